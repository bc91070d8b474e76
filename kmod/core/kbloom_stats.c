// SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later
/*
 * Statistics that describe the filter's current cells rather than its
 * history: fill, the false-positive rate a random absent key sees right now,
 * and how many distinct keys the cells suggest.  All are computed per block
 * because a blocked filter's rate depends on how unevenly blocks fill, not
 * just on the overall fill.  A cell counts when it is non-zero: a set bit,
 * or a counter above 0.
 *
 * A window's cell is a mask of planes, and it counts when a live plane set
 * it; its fill is against the 512 cells of each key block.  Each live
 * generation is a 512-cell blocked filter of its own, so its keys are
 * estimated from its own per-block fill, and the window's estimate is the
 * sum of the generations'.  A check answers "maybe" when any live
 * generation has all k of its cells, so a key block whose planes have x_p
 * cells set gives 1 - prod_p (1 - (x_p/512)^k).  That treats the planes
 * as independent where the query's cells are shared; averaged over filters
 * it is 1 - (1 - p)^g of the one-generation rate, above the exact model
 * (kbloom_formula.c) by 0.01 to 0.04 % of the rate at 1 %, for 2 to 16
 * generations: far below what a statistic of one filter is good to.
 */
#include "kbloom_formula.h"
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
 * (x/cells)^k, scaled by 2^63: the chance that k independent uniform probes
 * all land among the x non-zero cells of a block of 2^cells_order.
 */
static u64 all_set_fx63(u32 x, u32 k, u32 cells_order)
{
	u64 fill63 = (u64)x << (63 - cells_order);
	u64 r = FX63_ONE;
	u32 t;

	for (t = 0; t < k; t++)
		r = mul_u64_u64_shr(r, fill63, 63);
	return r;
}

/* The same scaled by 2^32, rounded. */
static u64 all_set_fx32(u32 x, u32 k, u32 cells_order)
{
	return (all_set_fx63(x, k, cells_order) + BIT_ULL(30)) >> 31;
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

/* log2 of a window's cells per key block, as of a bits block. */
#define WINDOW_CELLS_ORDER	KBLOOM_TABLE_CELLS_ORDER

/*
 * One bit in every cell of a window word (cells of 2^plane_order bits):
 * plane p of every cell is this shifted left by p.
 */
static u64 window_low_bits(u32 plane_order)
{
	u32 width = 1U << plane_order;

	return width == 64 ? 1 : div64_u64(U64_MAX, U64_MAX >> (64 - width));
}

/*
 * Bit-sliced counters of a key block's words: bit j of slice i is bit i of
 * the number of words with bit j set.  10 slices count to 1023, and a key
 * block has at most 512 words.
 */
#define WINDOW_SLICES	10

/*
 * The cells of one key block (8 << plane_order words) that the planes in
 * mask set: x[p] for each plane p of mask, and the return value, the
 * cells with any of them.  Each word is read once, so both counts come
 * from the same cells however adds race the walk.  Every bit position is
 * counted at once in bit-sliced counters (a carry-save add per word, two
 * steps on average), folded into planes once per key block: a popcount
 * per plane and word made the walk g times a bits filter's.  256 MiB on
 * the host (two busy cores): 0.07 s as a bits filter; as a window of 2,
 * 4, 8, 16 and 63 generations 0.21, 0.25, 0.28, 0.26 and 0.35 s, against
 * 0.20, 0.29, 0.51, 0.97 and 3.3 s with a popcount per plane and word.
 */
static u32 window_block_counts(const u64 *kb, u32 plane_order, u64 mask,
			       u64 low_bits, u16 *x)
{
	u32 width = 1U << plane_order, words = KBLOOM_BLOCK_WORDS << plane_order;
	u64 rep = mask * low_bits, slice[WINDOW_SLICES] = { 0 }, planes;
	u32 w, i, any = 0;

	for (w = 0; w < words; w++) {
		u64 carry = READ_ONCE(kb[w]) & rep;

		if (!carry)
			continue;
		any += nonzero_cells(carry, width, low_bits);
		for (i = 0; carry && i < WINDOW_SLICES; i++) {
			u64 both = slice[i] & carry;

			slice[i] ^= carry;
			carry = both;
		}
	}
	for (planes = mask; planes; planes &= planes - 1) {
		u32 p = __ffs64(planes);
		u64 lane = low_bits << p;
		u32 n = 0;

		for (i = 0; i < WINDOW_SLICES; i++)
			n += hweight64(slice[i] & lane) << i;
		x[p] = n;
	}
	return any;
}

/*
 * Between chunks of a walk: a chance to reschedule, and the end of it once
 * the filter's owner set walks_stop (its results are then not used).
 */
static bool walk_pause(const struct kbloom_filter *f)
{
	cond_resched();
	return READ_ONCE(f->walks_stop);
}

/*
 * A window's cell statistics: the union view over the live planes (live
 * read once, so a rotation during the walk is seen before or after).
 */
static void window_scan_cells(const struct kbloom_filter *f,
			      struct kbloom_cell_stats *cs)
{
	u32 order = f->geo.plane_order, k = f->geo.k;
	u64 keyblocks = f->geo.nblocks >> order, b, planes;
	u64 live = READ_ONCE(f->win.live), low_bits = window_low_bits(order);
	u64 any_sum = 0, neg_log_sum = 0, fp_sum = 0, fp_now32, per_key;
	u16 x[KBLOOM_IMAGE_PLANES];

	for (b = 0; b < keyblocks; b++) {
		const u64 *kb = f->words + (b * KBLOOM_BLOCK_WORDS << order);
		u64 none63 = FX63_ONE;

		any_sum += window_block_counts(kb, order, live, low_bits, x);
		for (planes = live; planes; planes &= planes - 1) {
			u32 p = __ffs64(planes);

			none63 = mul_u64_u64_shr(none63, FX63_ONE -
						 all_set_fx63(x[p], k,
							      WINDOW_CELLS_ORDER),
						 63);
			neg_log_sum += neg_log_clear(x[p], WINDOW_CELLS_ORDER);
		}
		/* At most 2^31 key blocks * 2^32: no overflow. */
		fp_sum += (FX63_ONE - none63 + BIT_ULL(30)) >> 31;
		if (!((b + 1) % KBLOOM_STATS_RESCHED) && walk_pause(f))
			return;
	}

	cs->bits_set = any_sum;
	cs->fill_ppb = (u32)div64_u64(any_sum *
				      (KBLOOM_PPB >> WINDOW_CELLS_ORDER),
				      keyblocks);
	fp_now32 = div64_u64(fp_sum, keyblocks);
	cs->fp_now_ppb = (u32)mul_u64_u64_shr(fp_now32, KBLOOM_PPB, 32);
	/*
	 * The sum over generations of each one's estimate, as for a bits
	 * filter: rounded once, so it may differ from the sum of the rounded
	 * kbloom_window_generations() estimates by less than g / 2.
	 * neg_log_sum: at most 2^31 blocks of 2^32 in all planes together.
	 */
	per_key = (u64)k * neg_log_clear(1, WINDOW_CELLS_ORDER);
	cs->est_keys = div64_u64(neg_log_sum + per_key / 2, per_key);
}

void kbloom_window_generations(const struct kbloom_filter *f,
			       struct kbloom_generation *gen)
{
	u32 order = f->geo.plane_order, k = f->geo.k, g = f->geo.generations;
	u64 keyblocks = f->geo.nblocks >> order, low_bits, mask = 0, b, per_key;
	u16 x[KBLOOM_IMAGE_PLANES];
	u8 plane_of[KBLOOM_GENERATIONS_MAX];
	u32 a;

	if (f->geo.type != KBLOOM_TYPE_WINDOW)
		return;
	memset(gen, 0, sizeof(*gen) * g);
	for (a = 0; a < g; a++) {
		plane_of[a] = (u8)kbloom_window_plane(f, a);
		mask |= BIT_ULL(plane_of[a]);
	}
	low_bits = window_low_bits(order);
	/* est_keys holds the generation's sum of logs until the end. */
	for (b = 0; b < keyblocks; b++) {
		window_block_counts(f->words + (b * KBLOOM_BLOCK_WORDS << order),
				    order, mask, low_bits, x);
		for (a = 0; a < g; a++) {
			u32 xp = x[plane_of[a]];

			gen[a].bits_set += xp;
			gen[a].est_keys += neg_log_clear(xp, WINDOW_CELLS_ORDER);
		}
		if (!((b + 1) % KBLOOM_STATS_RESCHED) && walk_pause(f))
			return;
	}
	per_key = (u64)k * neg_log_clear(1, WINDOW_CELLS_ORDER);
	for (a = 0; a < g; a++) {
		gen[a].add_calls = kbloom_window_adds(&f->win, plane_of[a]);
		gen[a].fill_ppb = (u32)div64_u64(gen[a].bits_set *
						 (KBLOOM_PPB >> WINDOW_CELLS_ORDER),
						 keyblocks);
		gen[a].est_keys = div64_u64(gen[a].est_keys + per_key / 2,
					    per_key);
	}
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

	if (f->geo.type == KBLOOM_TYPE_WINDOW) {
		window_scan_cells(f, cs);
		return;
	}
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
		if (!((b + 1) % KBLOOM_STATS_RESCHED) && walk_pause(f))
			return;
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

/* Keys of one generation's design: capacity over g - 1, rounded up. */
static u64 window_share(const struct kbloom_geometry *geo)
{
	u64 share = div64_u64(geo->capacity, geo->generations - 1);

	return share + (share * (geo->generations - 1) != geo->capacity);
}

/*
 * A window's design rate is its worst moment's: all g live generations
 * holding their share.  Its add_new counts every key ever added, most of
 * them long expired, so it cannot say the window is over capacity; a live
 * generation that took more adds than its share and the sizing slack
 * (KBLOOM_SIZING_SLACK, 1/128) can.  Adds, not new keys: a key added twice
 * into one generation counts twice, which only errs towards saying
 * saturated, as the rate test does not.
 */
static void window_combine(const struct kbloom_filter *f,
			   struct kbloom_stats *st)
{
	const struct kbloom_geometry *geo = &f->geo;
	u64 share, over = 0;
	u32 a;

	if (geo->capacity) {
		share = window_share(geo);
		st->fp_design_ppb = kbloom_formula_fp_ppb_window(geo->nblocks,
								 geo->plane_order,
								 share, geo->k,
								 geo->generations);
		over = share + share / KBLOOM_SIZING_SLACK;
		for (a = 0; a < geo->generations && !st->saturated; a++) {
			u32 p = kbloom_window_plane(f, a);

			st->saturated = kbloom_window_adds(&f->win, p) > over;
		}
	}
	if (geo->fp_target_ppb && st->fp_now_ppb > geo->fp_target_ppb)
		st->saturated = 1;
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
	if (f->geo.type == KBLOOM_TYPE_WINDOW) {
		window_combine(f, st);
		return;
	}
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
