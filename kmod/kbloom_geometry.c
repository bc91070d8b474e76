// SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later
/*
 * Choosing a filter's geometry (blocks and probes per key) from what the
 * creator knows: a capacity and a target rate, a size in bits, or a budget
 * of bits per key.  Sizing searches the blocked-filter model directly
 * (kbloom_formula.c) rather than the textbook formula, which under-sizes a
 * blocked filter by up to a factor of two in rate.
 *
 * Bits always mean memory: a counting filter spends 4 bits on each cell,
 * so the same bits give it a quarter of the cells, and a rate costs it more
 * than 4 times the memory of a bits filter (its 128-cell blocks also load
 * less evenly than 512-cell ones).
 */
#include "kbloom_formula.h"

#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/math64.h>
#include <linux/overflow.h>
#endif

/* With no capacity to design for, k is the best one at this budget. */
#define KBLOOM_DEFAULT_CELLS_PER_KEY	10
/*
 * Sizing for a target rate designs for 1/128 more keys than asked.  The
 * formula is an average over filters and queries; the slack makes the rate
 * actually measured at capacity land under the target rather than on it,
 * for under 0.8 % more memory.
 */
#define KBLOOM_SIZING_SLACK		128

static void geometry_reset(struct kbloom_geometry *geo)
{
	*geo = (struct kbloom_geometry){ 0 };
}

static bool type_valid(u32 type)
{
	return type == KBLOOM_TYPE_BITS || type == KBLOOM_TYPE_COUNTING;
}

/* The k with the lowest rate for n keys in nblocks; ties go to fewer probes. */
static u32 best_k(u32 type, u64 nblocks, u64 n)
{
	struct kbloom_fp_model m;
	u64 best_fp = U64_MAX;
	u32 k, best = KBLOOM_K_MIN;

	for (k = KBLOOM_K_MIN; k <= KBLOOM_K_MAX; k++) {
		u64 fp;

		kbloom_fp_model_init_cells(&m, k, kbloom_cells_order(type));
		fp = kbloom_fp_model_ppb16(&m, n, nblocks);
		if (fp < best_fp) {
			best_fp = fp;
			best = k;
		}
	}
	return best;
}

/*
 * The fewest blocks that hold n keys at a rate of at most target_ppb16 with
 * this k, or 0 when even KBLOOM_MAX_BLOCKS is not enough.  The rate only
 * falls as blocks are added, so a bisection finds the least.
 */
static u64 fewest_blocks(const struct kbloom_fp_model *m, u64 n,
			 u64 target_ppb16)
{
	u64 lo = 0, hi = KBLOOM_MAX_BLOCKS;

	if (kbloom_fp_model_ppb16(m, n, hi) > target_ppb16)
		return 0;
	/* Invariant: hi meets the target, lo does not (or is 0). */
	while (hi - lo > 1) {
		u64 mid = lo + (hi - lo) / 2;

		if (kbloom_fp_model_ppb16(m, n, mid) <= target_ppb16)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

int kbloom_geometry_from_rate_type(struct kbloom_geometry *geo, u32 type,
				   u64 capacity, u32 fp_ppb)
{
	struct kbloom_fp_model m;
	u64 best_blocks = 0, design;
	u32 k, best = 0;

	geometry_reset(geo);
	if (!type_valid(type) || !capacity || fp_ppb < KBLOOM_MIN_FP_PPB ||
	    fp_ppb >= KBLOOM_PPB)
		return -EINVAL;
	if (check_add_overflow(capacity, capacity / KBLOOM_SIZING_SLACK,
			       &design))
		return -E2BIG;

	for (k = KBLOOM_K_MIN; k <= KBLOOM_K_MAX; k++) {
		u64 blocks;

		kbloom_fp_model_init_cells(&m, k, kbloom_cells_order(type));
		blocks = fewest_blocks(&m, design, (u64)fp_ppb << 16);
		if (blocks && (!best_blocks || blocks < best_blocks)) {
			best_blocks = blocks;
			best = k;
		}
	}
	if (!best_blocks)
		return -E2BIG;

	geo->nblocks = best_blocks;
	geo->k = best;
	geo->type = type;
	geo->capacity = capacity;
	geo->fp_target_ppb = fp_ppb;
	return 0;
}

int kbloom_geometry_from_bits_type(struct kbloom_geometry *geo, u32 type,
				   u64 bits, u32 k, u64 capacity)
{
	u64 nblocks;

	geometry_reset(geo);
	if (!type_valid(type) || !bits || k > KBLOOM_K_MAX)
		return -EINVAL;
	nblocks = bits / KBLOOM_BLOCK_BITS + !!(bits % KBLOOM_BLOCK_BITS);
	if (nblocks > KBLOOM_MAX_BLOCKS)
		return -E2BIG;

	if (!k) {
		u64 design = capacity;

		/* nblocks <= 2^31, so this cannot overflow. */
		if (!design)
			design = nblocks * kbloom_block_cells(type) /
				 KBLOOM_DEFAULT_CELLS_PER_KEY;
		k = best_k(type, nblocks, design);
	}
	geo->nblocks = nblocks;
	geo->k = k;
	geo->type = type;
	geo->capacity = capacity;
	return 0;
}

int kbloom_geometry_from_bits_per_key_type(struct kbloom_geometry *geo,
					   u32 type, u64 capacity,
					   u32 bits_per_key, u32 k)
{
	u64 bits;

	geometry_reset(geo);
	if (!type_valid(type) || !capacity || !bits_per_key ||
	    bits_per_key > KBLOOM_MAX_BITS_PER_KEY || k > KBLOOM_K_MAX)
		return -EINVAL;
	if (check_mul_overflow(capacity, (u64)bits_per_key, &bits))
		return -E2BIG;
	return kbloom_geometry_from_bits_type(geo, type, bits, k, capacity);
}

int kbloom_geometry_validate(const struct kbloom_geometry *geo)
{
	if (!geo->nblocks)
		return -EINVAL;
	if (geo->nblocks > KBLOOM_MAX_BLOCKS)
		return -E2BIG;
	if (geo->k < KBLOOM_K_MIN || geo->k > KBLOOM_K_MAX)
		return -EINVAL;
	if (!type_valid(geo->type))
		return -EINVAL;
	if (geo->fp_target_ppb >= KBLOOM_PPB)
		return -EINVAL;
	return 0;
}

u64 kbloom_geometry_bytes(const struct kbloom_geometry *geo)
{
	/* Validated geometries have nblocks <= 2^31: no overflow. */
	return geo->nblocks * KBLOOM_BLOCK_BYTES;
}
