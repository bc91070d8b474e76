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
 *
 * A window of g generations (KBLOOM_TYPE_WINDOW) is sized for its
 * guarantee: capacity is the keys of the g - 1 generations a key is sure
 * to stay in, so each generation is designed for capacity / (g - 1) keys
 * (rounded up, plus the slack), and the rate is the whole window's at the
 * worst moment, all g live generations that full, just before a rotation.
 * Its bits are all its memory: key blocks of 2^plane_order blocks, whose
 * cells carry g + 1 planes (the spare included) and any unused up to the
 * power of two, so nblocks comes out a multiple of 2^plane_order.
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
 * Sizing for a target rate designs for 1/KBLOOM_SIZING_SLACK more keys than
 * asked.  The formula is an average over filters and queries; the slack
 * makes the rate actually measured at capacity land under the target
 * rather than on it, for under 0.8 % more memory.
 */

static void geometry_reset(struct kbloom_geometry *geo)
{
	*geo = (struct kbloom_geometry){ 0 };
}

/* Windows need 2..63 generations; the other types none. */
static bool type_valid(u32 type, u32 generations)
{
	if (type == KBLOOM_TYPE_WINDOW)
		return generations >= KBLOOM_GENERATIONS_MIN &&
		       generations <= KBLOOM_GENERATIONS_MAX;
	return (type == KBLOOM_TYPE_BITS || type == KBLOOM_TYPE_COUNTING) &&
	       !generations;
}

/*
 * What sizing searches over, one "unit" at a time: a block of the type's
 * cells, or a window's key block of 2^plane_order blocks, where each of
 * the generations holds n keys and all of them are live.
 */
struct sizing {
	struct kbloom_fp_model m;
	u32 type;
	u32 generations;	/* 0: not a window */
	u32 plane_order;
	u64 max_units;
};

static void sizing_init(struct sizing *sz, u32 type, u32 generations)
{
	sz->type = type;
	sz->generations = generations;
	sz->plane_order = generations ? kbloom_plane_order(generations) : 0;
	sz->max_units = KBLOOM_MAX_BLOCKS >> sz->plane_order;
}

/* A window's cells are 512 a key block, whatever its planes. */
static void sizing_set_k(struct sizing *sz, u32 k)
{
	kbloom_fp_model_init_cells(&sz->m, k,
				   sz->generations ?
				   kbloom_cells_order(KBLOOM_TYPE_BITS) :
				   kbloom_cells_order(sz->type));
}

static u64 sizing_rate(const struct sizing *sz, u64 n, u64 units)
{
	if (sz->generations)
		return kbloom_fp_model_window_ppb16(&sz->m, n, units,
						    sz->generations);
	return kbloom_fp_model_ppb16(&sz->m, n, units);
}

/*
 * The keys each generation is designed for: the window's capacity shared
 * by the g - 1 generations the guarantee covers, rounded up; the capacity
 * itself for other types.
 */
static u64 keys_per_generation(u64 capacity, u32 generations)
{
	u64 share;

	if (!generations)
		return capacity;
	share = div64_u64(capacity, generations - 1);
	return share + (share * (generations - 1) != capacity);
}

/* The k with the lowest rate for n keys; ties go to fewer probes. */
static u32 best_k(struct sizing *sz, u64 units, u64 n)
{
	u64 best_fp = U64_MAX;
	u32 k, best = KBLOOM_K_MIN;

	for (k = KBLOOM_K_MIN; k <= KBLOOM_K_MAX; k++) {
		u64 fp;

		sizing_set_k(sz, k);
		fp = sizing_rate(sz, n, units);
		if (fp < best_fp) {
			best_fp = fp;
			best = k;
		}
	}
	return best;
}

/*
 * The fewest units that hold n keys (each generation's) at a rate of at
 * most target_ppb16 with sz's k, or 0 when even the most the core allows
 * are not enough.  The rate only falls as units are added, so a
 * bisection finds the least.
 */
static u64 fewest_units(const struct sizing *sz, u64 n, u64 target_ppb16)
{
	u64 lo = 0, hi = sz->max_units;

	if (sizing_rate(sz, n, hi) > target_ppb16)
		return 0;
	/* Invariant: hi meets the target, lo does not (or is 0). */
	while (hi - lo > 1) {
		u64 mid = lo + (hi - lo) / 2;

		if (sizing_rate(sz, n, mid) <= target_ppb16)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

static void geometry_set(struct kbloom_geometry *geo,
			 const struct sizing *sz, u64 units, u32 k,
			 u64 capacity)
{
	geo->nblocks = units << sz->plane_order;
	geo->k = k;
	geo->type = sz->type;
	geo->capacity = capacity;
	geo->generations = sz->generations;
	geo->plane_order = sz->plane_order;
}

/*
 * Sizing for a target in ppb with 16 fractional bits, so a chain's later
 * sub-filters (kbloom_chain.c) can ask for less than 1 ppb; the public
 * calls take whole ppb.  fp_target_ppb records the target rounded up.
 */
int kbloom_geometry_from_rate_ppb16(struct kbloom_geometry *geo, u32 type,
				    u32 generations, u64 capacity,
				    u64 target_ppb16)
{
	struct sizing sz;
	u64 best_units = 0, design;
	u32 k, best = 0;

	geometry_reset(geo);
	if (!type_valid(type, generations) || !capacity || !target_ppb16 ||
	    target_ppb16 >= KBLOOM_PPB16_ONE)
		return -EINVAL;
	design = keys_per_generation(capacity, generations);
	if (check_add_overflow(design, design / KBLOOM_SIZING_SLACK, &design))
		return -E2BIG;

	sizing_init(&sz, type, generations);
	for (k = KBLOOM_K_MIN; k <= KBLOOM_K_MAX; k++) {
		u64 units;

		sizing_set_k(&sz, k);
		units = fewest_units(&sz, design, target_ppb16);
		if (units && (!best_units || units < best_units)) {
			best_units = units;
			best = k;
		}
	}
	if (!best_units)
		return -E2BIG;

	geometry_set(geo, &sz, best_units, best, capacity);
	geo->fp_target_ppb = (u32)((target_ppb16 + 0xffff) >> 16);
	return 0;
}

int kbloom_geometry_from_rate_gen(struct kbloom_geometry *geo, u32 type,
				  u32 generations, u64 capacity, u32 fp_ppb)
{
	if (fp_ppb < KBLOOM_MIN_FP_PPB || fp_ppb >= KBLOOM_PPB) {
		geometry_reset(geo);
		return -EINVAL;
	}
	return kbloom_geometry_from_rate_ppb16(geo, type, generations,
					       capacity, (u64)fp_ppb << 16);
}

int kbloom_geometry_from_bits_gen(struct kbloom_geometry *geo, u32 type,
				  u32 generations, u64 bits, u32 k,
				  u64 capacity)
{
	struct sizing sz;
	u64 nblocks, units;

	geometry_reset(geo);
	if (!type_valid(type, generations) || !bits || k > KBLOOM_K_MAX)
		return -EINVAL;
	sizing_init(&sz, type, generations);
	/* Whole key blocks: bits / 512 rounded up to a multiple of 2^order. */
	nblocks = bits / KBLOOM_BLOCK_BITS + !!(bits % KBLOOM_BLOCK_BITS);
	units = (nblocks >> sz.plane_order) +
		!!(nblocks & ((1ULL << sz.plane_order) - 1));
	if (units > sz.max_units)
		return -E2BIG;

	if (!k) {
		u64 design = keys_per_generation(capacity, generations);

		/*
		 * Without a capacity, 10 cells a key (in each generation);
		 * units <= 2^31, so this cannot overflow.
		 */
		if (!design)
			design = units * (generations ? KBLOOM_BLOCK_BITS :
					  kbloom_block_cells(type)) /
				 KBLOOM_DEFAULT_CELLS_PER_KEY;
		k = best_k(&sz, units, design);
	}
	geometry_set(geo, &sz, units, k, capacity);
	return 0;
}

int kbloom_geometry_from_bits_per_key_gen(struct kbloom_geometry *geo,
					  u32 type, u32 generations,
					  u64 capacity, u32 bits_per_key,
					  u32 k)
{
	u64 bits;

	geometry_reset(geo);
	if (!type_valid(type, generations) || !capacity || !bits_per_key ||
	    bits_per_key > KBLOOM_MAX_BITS_PER_KEY || k > KBLOOM_K_MAX)
		return -EINVAL;
	if (check_mul_overflow(capacity, (u64)bits_per_key, &bits))
		return -E2BIG;
	return kbloom_geometry_from_bits_gen(geo, type, generations, bits, k,
					     capacity);
}

/* The calls without generations: the types that have none. */
int kbloom_geometry_from_rate_type(struct kbloom_geometry *geo, u32 type,
				   u64 capacity, u32 fp_ppb)
{
	return kbloom_geometry_from_rate_gen(geo, type, 0, capacity, fp_ppb);
}

int kbloom_geometry_from_bits_type(struct kbloom_geometry *geo, u32 type,
				   u64 bits, u32 k, u64 capacity)
{
	return kbloom_geometry_from_bits_gen(geo, type, 0, bits, k, capacity);
}

int kbloom_geometry_from_bits_per_key_type(struct kbloom_geometry *geo,
					   u32 type, u64 capacity,
					   u32 bits_per_key, u32 k)
{
	return kbloom_geometry_from_bits_per_key_gen(geo, type, 0, capacity,
						     bits_per_key, k);
}

int kbloom_geometry_validate(const struct kbloom_geometry *geo)
{
	if (!geo->nblocks)
		return -EINVAL;
	if (geo->nblocks > KBLOOM_MAX_BLOCKS)
		return -E2BIG;
	if (geo->k < KBLOOM_K_MIN || geo->k > KBLOOM_K_MAX)
		return -EINVAL;
	if (!type_valid(geo->type, geo->generations))
		return -EINVAL;
	/* A window's key block is 2^plane_order whole blocks. */
	if (geo->plane_order != (geo->generations ?
				 kbloom_plane_order(geo->generations) : 0) ||
	    geo->nblocks & ((1ULL << geo->plane_order) - 1))
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
