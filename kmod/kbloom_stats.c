// SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later
/*
 * Statistics that describe the filter's current cells rather than its
 * history: fill, the false-positive rate a random absent key sees right now,
 * and how many distinct keys the cells suggest.  All are computed per block
 * because a blocked filter's rate depends on how unevenly blocks fill, not
 * just on the overall fill.  A cell counts when it is non-zero: a set bit,
 * or a counter above 0.
 */
#include "kbloom_core.h"
#include "kbloom_log_table.h"

#ifdef __KERNEL__
#include <linux/bitops.h>
#include <linux/bits.h>
#include <linux/math64.h>
#include <linux/sched.h>
#endif

#define FX63_ONE		BIT_ULL(63)
#define KBLOOM_STATS_RESCHED	4096
#define KBLOOM_TABLE_CELLS_ORDER	9	/* the log table is for 512 */

/*
 * (x/cells)^k, scaled by 2^32: the chance that k independent uniform probes
 * all land among the x non-zero cells of a block of 2^cells_order.
 */
static u64 all_set_fx32(u32 x, u32 k, u32 cells_order)
{
	u64 fill63 = (u64)x << (63 - cells_order);
	u64 r = FX63_ONE;
	u32 t;

	for (t = 0; t < k; t++)
		r = mul_u64_u64_shr(r, fill63, 63);
	return (r + BIT_ULL(30)) >> 31;
}

/*
 * Non-zero cells, width bits wide, of one word: each cell is folded onto
 * its lowest bit, and those bits (low_bits) are counted.
 */
static u32 nonzero_cells(u64 word, u32 width, u64 low_bits)
{
	u32 s;

	for (s = 1; s < width; s <<= 1)
		word |= word >> s;
	return hweight64(word & low_bits);
}

/*
 * -ln(1 - x/cells) * 2^29: the table is for 512 cells, and x/cells is
 * (x * 512/cells)/512.  A full block of fewer cells counts as half a cell
 * short, as the table's full 512 does.
 */
static u64 neg_log_clear(u32 x, u32 cells_order)
{
	u32 scale = KBLOOM_TABLE_CELLS_ORDER - cells_order;
	u32 i = x << scale;

	if (i == KBLOOM_BLOCK_BITS && scale)
		i -= 1U << (scale - 1);
	return kbloom_neg_log_clear[i];
}

void kbloom_scan_cells(const struct kbloom_filter *f,
		       struct kbloom_cell_stats *cs)
{
	u64 nblocks = f->geo.nblocks, b;
	u64 all_set_sum = 0, neg_log_sum = 0, bits_set = 0, fp_now32, per_key;
	u32 k = f->geo.k, width = 1U << kbloom_cell_order(f->geo.type), w;
	u32 cells_order = kbloom_cells_order(f->geo.type);
	/* 1 every width bits: all ones for bits, 0x1111... for counters. */
	u64 low_bits = div64_u64(U64_MAX, U64_MAX >> (64 - width));

	for (b = 0; b < nblocks; b++) {
		const u64 *block = f->words + b * KBLOOM_BLOCK_WORDS;
		u32 x = 0;

		for (w = 0; w < KBLOOM_BLOCK_WORDS; w++)
			x += nonzero_cells(READ_ONCE(block[w]), width,
					   low_bits);
		bits_set += x;
		/* At most 2^31 blocks * 2^32 and 2^31 * 2^32: no overflow. */
		all_set_sum += all_set_fx32(x, k, cells_order);
		neg_log_sum += neg_log_clear(x, cells_order);
		if (!((b + 1) % KBLOOM_STATS_RESCHED))
			cond_resched();
	}

	cs->bits_set = bits_set;
	/*
	 * 10^9 is a multiple of 512, so 10^9 / cells is exact, and
	 * bits_set * 10^9 / cells <= 2^31 blocks * 10^9: no overflow.
	 */
	cs->fill_ppb = (u32)div64_u64(bits_set * (KBLOOM_PPB >> cells_order),
				      nblocks);
	fp_now32 = div64_u64(all_set_sum, nblocks);
	cs->fp_now_ppb = (u32)mul_u64_u64_shr(fp_now32, KBLOOM_PPB, 32);
	/*
	 * A block's k * i probes leave a cell clear with chance
	 * (1 - 1/cells)^(k i), so x non-zero cells suggest i =
	 * ln(1 - x/cells) / (k ln(1 - 1/cells)) keys; summing the logs first
	 * costs one division.
	 */
	per_key = (u64)k * neg_log_clear(1, cells_order);
	cs->est_keys = div64_u64(neg_log_sum + per_key / 2, per_key);
}

void kbloom_stats_combine(const struct kbloom_filter *f,
			  const struct kbloom_counts *counts,
			  const struct kbloom_cell_stats *cs,
			  struct kbloom_stats *st)
{
	u64 net;

	memset(st, 0, sizeof(*st));
	st->add_calls = counts->add_calls;
	st->add_new = counts->add_new;
	st->check_calls = counts->check_calls;
	st->check_hits = counts->check_hits;
	st->delete_calls = counts->delete_calls;
	st->delete_hits = counts->delete_hits;
	st->bits_set = cs->bits_set;
	st->est_keys = cs->est_keys;
	st->fill_ppb = cs->fill_ppb;
	st->fp_now_ppb = cs->fp_now_ppb;
	if (f->geo.capacity)
		st->fp_design_ppb = kbloom_formula_fp_ppb_type(f->geo.type,
							       f->geo.nblocks,
							       f->geo.capacity,
							       f->geo.k);
	/*
	 * Over capacity means more keys changed the filter than it was built
	 * for, less those deleted since: duplicates never count, and unlike
	 * the estimate the count cannot drift past capacity when exactly
	 * capacity keys went in.
	 */
	net = st->add_new > st->delete_hits ? st->add_new - st->delete_hits : 0;
	st->saturated = (f->geo.capacity && net > f->geo.capacity) ||
			(f->geo.fp_target_ppb &&
			 st->fp_now_ppb > f->geo.fp_target_ppb);
}

void kbloom_get_stats(const struct kbloom_filter *f, struct kbloom_stats *st)
{
	struct kbloom_cell_stats cs;
	struct kbloom_counts counts;

	kbloom_counts_read(f, &counts);
	kbloom_scan_cells(f, &cs);
	kbloom_stats_combine(f, &counts, &cs, st);
}
