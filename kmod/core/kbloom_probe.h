/* SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later */
/*
 * How a key's cells are found, read and written, inside the filter core:
 * kbloom_core.c (one key at a time) and kbloom_pipeline.c (batches)
 * inline every function here, so each type's probes are compiled for it
 * alone in both.
 *
 * Where a key goes: h = xxh64(key, seed).  The block is fastrange over all
 * 64 bits, (h * nblocks) >> 64, so no hash bits are wasted and no modulo is
 * needed.  The cells inside it are slices of a draw r = h * G1 (an odd
 * multiplier), top first: 9 bits for each of the 512 one-bit cells of
 * KBLOOM_TYPE_BITS (and of a window), 7 for each of the 128 4-bit
 * counters of KBLOOM_TYPE_COUNTING, so one draw gives 7 or 9 cells.  A key
 * with more probes than that takes a further draw from a xorshift-multiply
 * remix of h per 7 or 9 cells.
 *
 * Why slices of one multiply: given its block, a key's h is uniform over
 * an interval of 2^64 / nblocks values, so the low 64 - log2(nblocks)
 * bits of h are as good as random; bit i of a product depends on bits
 * 0..i of the multiplicand, so every slice of r mixes those bits in, and
 * two keys of one block get unrelated cells.  It measured at the exact
 * model (within max(5 sigma, 2 %)) at 6 to 20 bits per key for bits,
 * counting and window filters, as the double hashing it replaced did.
 * That one took a xorshift-multiply per probe (13 instructions, one of
 * them a multiply); a slice takes a shift: 10 instructions per probe and
 * no multiply.  Medians of 7 interleaved runs at 1 M keys, 10 bits per
 * key, k = 6, on a 2-vCPU AMD EPYC VM (e76da2c, 2026-12-02): check
 * 13.9 -> 11.6 ns, check_batch 9.7 -> 8.3, add_batch 18.1 -> 16.2; at
 * 100 M, batched checks 18.5 -> 15.7 (a pair of full bench runs).  Images
 * of the old scheme (versions 1 and 2) would answer differently, so they
 * are refused (kbloom_image.c).
 *
 * Why not cells as (a + i * b) mod 512 directly: a block then has only
 * 2^17 probe patterns, keys sharing or overlapping a pattern are common
 * (a pattern read backwards is another pattern, a shifted one shares k - 1
 * cells), and the measured rate was 1.13x the blocked formula at 10 bits
 * per key and 6.2x at 20.  kbloom_formula.c models the k cells as
 * independent uniform draws, which slices are (cells may repeat within a
 * key).
 *
 * One code path serves both types: a cell is a field of width 2^order bits
 * of a 64-bit word, adding increments it unless it holds its maximum (for
 * one bit, "increment unless set" is "set"), and a check asks for a
 * non-zero field.  The probe functions take the order as a constant, so
 * each type gets code as tight as if it were written for it alone.
 *
 * A window filter (KBLOOM_TYPE_WINDOW) probes the same 512 cells per key,
 * but each cell is a mask of P = 2^plane_order bits, one per plane, and a
 * key block is P lines: cell c is bits c * P .. c * P + P - 1 of it.  An add
 * sets its plane's bit in the k cells; a check ANDs the k masks with the
 * live planes.  So each generation is a 512-cell blocked filter of its own,
 * as memory-efficient as g separate filters, while a check reads one key
 * block instead of g: 0.28 to 0.57 times the time of g separate arrays at
 * g = 4..16, batched 0.18 to 0.48 times (bench/window.c, 10 M and 100 M
 * keys, a 2-vCPU AMD EPYC VM; 52077d0, 2026-12-01).  Rotation clears one
 * bit of every cell in place.
 *
 * Counters stick at their maximum: once a counter has overflowed, the
 * number of keys behind it is unknown, and decrementing it could take it to
 * 0 while keys still need it.  A cell probed twice by one key is
 * incremented twice, and delete decrements it twice, so add and delete
 * stay mirror images.
 */
#ifndef KBLOOM_PROBE_H
#define KBLOOM_PROBE_H

#include "kbloom_core.h"
#include "kbloom_hash.h"

#ifdef __KERNEL__
#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/bottom_half.h>
#include <linux/compiler.h>
#include <linux/cpumask.h>
#include <linux/errno.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/prefetch.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/xxhash.h>
#endif

/* Odd multipliers with well-spread bits, for the draws of a key's cells. */
#define KBLOOM_MIX_G1		0xd6e8feb86659fd93ULL
#define KBLOOM_MIX_REMIX	0xff51afd7ed558ccdULL

enum kbloom_op {
	KBLOOM_OP_ADD,		/* looks first: a known key writes nothing */
	KBLOOM_OP_FILL,		/* writes every cell: see probe_add_bits() */
	KBLOOM_OP_CHECK,
	KBLOOM_OP_DELETE,
	KBLOOM_OP_COUNT_KNOWN,	/* counters of a key present, else nothing */
};

/*
 * Not a cell width: selects the window's probes in the functions that take
 * an order, so that each type's loops are still compiled for it alone.
 */
#define KBLOOM_WINDOW_ORDER	8

/* log2 of the 64-byte blocks of a key block: plane_order for a window. */
static __always_inline u32 block_order(const struct kbloom_filter *f,
				       u32 order)
{
	return order == KBLOOM_WINDOW_ORDER ? f->geo.plane_order : 0;
}

static __always_inline u64 *block_of_order(const struct kbloom_filter *f,
					   u64 h, u32 order)
{
	u32 shift = block_order(f, order);
	u64 index = mul_u64_u64_shr(h, f->geo.nblocks >> shift, 64);
	u64 *block = f->words + (index << shift) * KBLOOM_BLOCK_WORDS;

	/*
	 * Left to itself the compiler re-adds words and the block's offset
	 * at every probe (x86 addressing has one index register); one
	 * pointer in a register saves two instructions per probe.
	 */
	OPTIMIZER_HIDE_VAR(block);
	return block;
}

static __always_inline u64 *block_of(const struct kbloom_filter *f, u64 h)
{
	return block_of_order(f, h, f->geo.type == KBLOOM_TYPE_WINDOW ?
				    KBLOOM_WINDOW_ORDER : 0);
}

/* Bits of a cell's number: 9 for 512 cells (bits, windows), 7 for 128. */
static __always_inline u32 cell_number_bits(u32 order)
{
	return 9 - order;
}

/* A key's cells, drawn as the header comment says. */
struct kbloom_probe {
	u64 h;
	u64 r;		/* the current draw, its used slices shifted out */
	u32 draws;	/* taken so far */
	u32 left;	/* cells not yet in a draw */
	u32 in_r;	/* cells left in r */
};

static __always_inline void probe_start(struct kbloom_probe *p, u64 h, u32 k)
{
	p->h = h;
	p->draws = 0;
	p->left = k;
}

/* The next draw, while cells are left; false when the key has no more. */
static __always_inline bool probe_draw(struct kbloom_probe *p, u32 order)
{
	u64 x = p->h;

	if (!p->left)
		return false;
	if (p->draws) {
		x ^= x >> 31;
		x *= KBLOOM_MIX_REMIX + 2 * p->draws;
		x ^= x >> 29;
	}
	p->r = x * KBLOOM_MIX_G1;
	p->draws++;
	p->in_r = min_t(u32, p->left, 64 / cell_number_bits(order));
	p->left -= p->in_r;
	return true;
}

/* Where a cell lives: a word of the block and a shift within it. */
struct kbloom_cell {
	u32 word;
	u32 shift;
};

/*
 * The next cell of the current draw (cells 2^order bits wide).  A key's
 * cells are two loops, while (probe_draw()) while (probe_next()), so that
 * the cells of one draw (all of them, for k up to 7 or 9) take no test for
 * a new one: a test per cell cost 11 instructions more per check.
 */
static __always_inline bool probe_next(struct kbloom_probe *p, u32 order,
				       struct kbloom_cell *c)
{
	u32 cell;

	if (!p->in_r)
		return false;
	p->in_r--;
	cell = p->r >> (64 - cell_number_bits(order));
	p->r <<= cell_number_bits(order);
	c->word = cell >> (6 - order);
	c->shift = (cell << order) % 64;
	return true;
}

/* The largest value of a cell 2^order bits wide, also its mask. */
static __always_inline u64 cell_max(u32 order)
{
	return (1ULL << (1U << order)) - 1;
}

/*
 * Increments the cell unless it holds max; returns true when it went from
 * 0 to 1.  The caller holds the stripe lock, so a plain load and store do: a
 * lock cmpxchg per probe was a full barrier each, 4.5 per key, and kept
 * the next key's cache miss from starting early.  A full cell (most of
 * them, once bits fill) costs only the load and never dirties a line that
 * other CPUs, or readers of a mapping, read.
 */
static __always_inline bool cell_inc(u64 *word, u32 shift, u64 max)
{
	u64 old = READ_ONCE(*word), val = (old >> shift) & max;

	if (val == max)
		return false;
	WRITE_ONCE(*word, old + (1ULL << shift));
	return !val;
}

/* Decrements the cell unless it is 0 or stuck at max; under the stripe lock. */
static __always_inline void cell_dec(u64 *word, u32 shift, u64 max)
{
	u64 old = READ_ONCE(*word), val = (old >> shift) & max;

	if (val && val != max)
		WRITE_ONCE(*word, old - (1ULL << shift));
}

/* Counters: a store per counter that is not stuck; under the stripe lock. */
static __always_inline bool probe_add_counters(const struct kbloom_filter *f,
					       u64 *block, u64 h, u32 order)
{
	struct kbloom_probe p;
	struct kbloom_cell c;
	bool set_new = false;

	probe_start(&p, h, f->geo.k);
	while (probe_draw(&p, order))
		while (probe_next(&p, order, &c))
			if (cell_inc(&block[c.word], c.shift,
				     cell_max(order)))
				set_new = true;
	return set_new;
}

/* Window: cell c of the 512 is the P-bit mask at bit c * P of the block. */
static __always_inline struct kbloom_cell
window_cell(const struct kbloom_filter *f, struct kbloom_cell c)
{
	u32 bit = (c.word * 64 + c.shift) << f->geo.plane_order;

	return (struct kbloom_cell){ .word = bit / 64, .shift = bit % 64 };
}

/* Where cell c's bit is: a bits filter's own, or that of a window's plane. */
static __always_inline struct kbloom_cell
bit_cell(const struct kbloom_filter *f, struct kbloom_cell c, u32 order,
	 u32 plane)
{
	if (order != KBLOOM_WINDOW_ORDER)
		return c;
	c = window_cell(f, c);
	c.shift += plane;
	return c;
}

/*
 * Bits of a bits filter, or of a window's current plane, under the stripe
 * lock, in one of two ways.  KBLOOM_OP_ADD looks first (as a check does)
 * and, only for a key that misses a bit, draws the cells again and ORs
 * all k bits in: a known key writes nothing, so it dirties no line that
 * other CPUs or readers of a mapping hold.  KBLOOM_OP_FILL ORs each bit in
 * as it reads the word, in one pass, and learns from the words it read
 * whether a bit was new: about 10 instructions less per probe (callgrind,
 * k = 6: 300.6 -> 239.8 per batched add), but it stores even for a known
 * key.  Callers pick FILL while keys are mostly new (probe_write_bits(),
 * batch_run()).  Medians of interleaved runs (9 at 1 M keys, 5 at 10 M, 3
 * at 100 M), batched adds into an empty filter: 17.5 -> 13.5 ns at 1 M,
 * 20.1 -> 16.4 at 10 M, 29.3 -> 25.0 at 100 M; of fresh keys into a full
 * 1 M-key filter 17.9 -> 14.3; re-adds of known keys 12.0 -> 11.5, as
 * they look first.  A window of g = 8, 1 M keys: 32.6 -> 28.0.
 *
 * Keeping ADD's first pass's cells in an array instead of drawing them
 * again took 7 instructions less per key but 17.2 against 16.6 ns per
 * batched add (medians of 7 interleaved runs, 1 M keys).  A branch per
 * probe on "already set?" is a coin toss while a filter fills: it
 * mispredicted enough to cost adds 45 ns against 21 ns at 10 M keys
 * (add_batch 24 against 12); so did a conditional store that went to a
 * dummy word for a set bit (batched adds 18.3 against 17.2 ns at 1 M).
 */
static __always_inline bool probe_add_bits(const struct kbloom_filter *f,
					   u64 *block, u64 h, u32 order,
					   u32 plane, bool fill)
{
	struct kbloom_probe p;
	struct kbloom_cell c;
	u64 missing = 0;

	probe_start(&p, h, f->geo.k);
	while (probe_draw(&p, KBLOOM_BITS_CELL_ORDER))
		while (probe_next(&p, KBLOOM_BITS_CELL_ORDER, &c)) {
			u64 *word, old;

			c = bit_cell(f, c, order, plane);
			word = &block[c.word];
			old = READ_ONCE(*word);
			missing |= ~old >> c.shift;
			if (fill)
				WRITE_ONCE(*word, old | 1ULL << c.shift);
		}
	if (fill || !(missing & 1))
		return missing & 1;
	probe_start(&p, h, f->geo.k);
	while (probe_draw(&p, KBLOOM_BITS_CELL_ORDER))
		while (probe_next(&p, KBLOOM_BITS_CELL_ORDER, &c)) {
			u64 *word;

			c = bit_cell(f, c, order, plane);
			word = &block[c.word];
			WRITE_ONCE(*word, READ_ONCE(*word) | 1ULL << c.shift);
		}
	return true;
}

/*
 * All k cells, ANDed, with no branch on what they hold.  Stopping at the
 * first empty cell reads fewer cells, but on a mix of present and absent
 * keys where it stops is a coin toss: a mispredicted branch per key, and
 * the keys behind it in a batch are thrown away and issued again.
 * Batched checks at 10 M keys, half of them absent, 13.1-13.9 ns with the
 * early exit against 9.1-9.9 without (three interleaved pairs on a 2-vCPU
 * AMD EPYC VM, 4db48fc, 2026-12-01; 100 M keys, memory-bound, 17.0 both),
 * for 30 more instructions per key.  The early exit measured faster in
 * e8ea275 (2026-12-01) only while kbloom_check() still branched on the
 * answer to count hits, which mispredicted the same way.
 */
static __always_inline bool probe_check(const struct kbloom_filter *f,
					const u64 *block, u64 h, u32 order)
{
	struct kbloom_probe p;
	struct kbloom_cell c;
	u64 all = 1;

	probe_start(&p, h, f->geo.k);
	while (probe_draw(&p, order))
		while (probe_next(&p, order, &c)) {
			u64 w = READ_ONCE(block[c.word]) >> c.shift;

			/* A counter answers with any of its bits. */
			if (order == KBLOOM_BITS_CELL_ORDER)
				all &= w;
			else
				all &= !!(w & cell_max(order));
		}
	return all & 1;
}

/*
 * Only a key that looks present is taken out: decrementing the counters of
 * a key with an empty cell would take from keys that are there.  Under
 * the stripe lock, so no other delete can empty a cell between the check and
 * the decrements.
 */
static __always_inline bool probe_delete(const struct kbloom_filter *f,
					 u64 *block, u64 h, u32 order)
{
	struct kbloom_probe p;
	struct kbloom_cell c;

	if (!probe_check(f, block, h, order))
		return false;
	probe_start(&p, h, f->geo.k);
	while (probe_draw(&p, order))
		while (probe_next(&p, order, &c))
			cell_dec(&block[c.word], c.shift, cell_max(order));
	return true;
}

/*
 * live holds only planes below P, so the cells above this one in the word
 * fall out of the AND without a mask (which for P = 64 would be 1 << 64).
 */
static __always_inline bool probe_check_window(const struct kbloom_filter *f,
					       const u64 *block, u64 h,
					       u64 live)
{
	struct kbloom_probe p;
	struct kbloom_cell c;

	probe_start(&p, h, f->geo.k);
	while (probe_draw(&p, KBLOOM_BITS_CELL_ORDER))
		while (probe_next(&p, KBLOOM_BITS_CELL_ORDER, &c)) {
			c = window_cell(f, c);
			live &= READ_ONCE(block[c.word]) >> c.shift;
		}
	return live != 0;
}

/* The planes a check consults, once per check or batch. */
static __always_inline u64 window_live(const struct kbloom_filter *f)
{
	/* Pairs with kbloom_window_rotate()'s store of live. */
	return smp_load_acquire(&f->win.live);
}

static __always_inline bool probe_op(const struct kbloom_filter *f,
				     u64 *block, u64 h, enum kbloom_op op,
				     u32 order)
{
	if (order == KBLOOM_WINDOW_ORDER)
		return op == KBLOOM_OP_CHECK &&
		       probe_check_window(f, block, h, window_live(f));
	switch (op) {
	case KBLOOM_OP_ADD:
	case KBLOOM_OP_FILL:
		/*
		 * Counters are written by every add, so FILL is ADD for
		 * them; bits and windows add through probe_write_bits().
		 */
		return probe_add_counters(f, block, h, order);
	case KBLOOM_OP_CHECK:
		return probe_check(f, block, h, order);
	case KBLOOM_OP_COUNT_KNOWN:
		/* One step under the stripe: see kbloom_count_known_hash(). */
		if (!probe_check(f, block, h, order))
			return false;
		probe_add_counters(f, block, h, order);
		return true;
	default:
		return probe_delete(f, block, h, order);
	}
}

/* A bits filter has nothing to decrement: delete finds no key. */
static __always_inline bool probe_block(const struct kbloom_filter *f,
					u64 *block, u64 h, enum kbloom_op op)
{
	if (f->geo.type == KBLOOM_TYPE_COUNTING)
		return probe_op(f, block, h, op, KBLOOM_COUNTER_CELL_ORDER);
	if (op == KBLOOM_OP_DELETE)
		return false;
	if (f->geo.type == KBLOOM_TYPE_WINDOW)
		return probe_op(f, block, h, op, KBLOOM_WINDOW_ORDER);
	return probe_op(f, block, h, op, KBLOOM_BITS_CELL_ORDER);
}

/*
 * Key block b's stripe is b % KBLOOM_WRITE_STRIPES, for every type; the
 * order makes a key block one line, with no shift, for bits and counters.
 */
static __always_inline struct kbloom_stripe *
stripe_of(const struct kbloom_filter *f, const u64 *block, u32 order)
{
	u64 index = (u64)(block - f->words) / KBLOOM_BLOCK_WORDS >>
		    block_order(f, order);

	return &f->stripes[index % KBLOOM_WRITE_STRIPES];
}

static __always_inline bool probe(const struct kbloom_filter *f, u64 h,
				  enum kbloom_op op)
{
	return probe_block(f, block_of(f, h), h, op);
}

/* Add or delete one key's cells, holding its block's stripe. */
static __always_inline bool probe_write(const struct kbloom_filter *f,
					u64 *block, u64 h, enum kbloom_op op,
					u32 order)
{
	spinlock_t *lock = &stripe_of(f, block, order)->lock;
	bool ret;

	spin_lock(lock);
	ret = probe_op(f, block, h, op, order);
	spin_unlock(lock);
	return ret;
}

/*
 * A key's bits into a bits filter or a window, holding its block's
 * stripe; *plane gets the plane they went to (0 for a bits filter).  A
 * batch says whether to FILL (batch_run()).  A single add takes FILL while
 * the last single add of the stripe set a new bit, so a filter being
 * loaded key by key is written in one pass and re-adds of known keys still
 * write nothing; the hint shares the lock's line, which the add has just
 * taken.  Medians of interleaved runs at 1 M keys: adds into an empty
 * filter 23.0 -> 18.7 ns (9 runs); re-adds of known keys 13.5 looking
 * first, 17.1 with FILL (5 runs).
 *
 * A window's cur is read under the lock: a rotation publishes cur only
 * after live holds the new plane, and clears a retired plane under these
 * same locks, so an add either lands in a plane that stays live for g - 1
 * more rotations or finishes before the clear of its plane reaches its
 * block.
 */
static __always_inline bool probe_write_bits(const struct kbloom_filter *f,
					     u64 *block, u64 h, u32 order,
					     struct kbloom_plane_ref *ref,
					     bool single, bool fill)
{
	struct kbloom_stripe *stripe = stripe_of(f, block, order);
	bool ret;

	spin_lock(&stripe->lock);
	ref->plane = 0;
	if (order == KBLOOM_WINDOW_ORDER) {
		/*
		 * Pairs with kbloom_window_rotate()'s store of cur, which
		 * comes after the epoch of that plane was last moved on.
		 */
		ref->plane = smp_load_acquire(&f->win.cur);
		ref->epoch = READ_ONCE(f->win.epoch[ref->plane]);
	}
	if (single)
		fill = stripe->adds_new;
	if (fill)
		ret = probe_add_bits(f, block, h, order, ref->plane, true);
	else
		ret = probe_add_bits(f, block, h, order, ref->plane, false);
	if (single)
		stripe->adds_new = ret;
	spin_unlock(&stripe->lock);
	return ret;
}

static __always_inline u64 key_hash(const struct kbloom_filter *f,
				    const void *key, u32 len)
{
	return kbloom_xxh64(key, len, f->geo.seed);
}

/*
 * A single key's block is fetched before its stripe is locked: the
 * locked instruction waits for earlier stores to drain, and the miss
 * should not wait behind it.
 */
static __always_inline u64 *block_fetch(const struct kbloom_filter *f, u64 h)
{
	u64 *block = block_of(f, h);

	prefetchw(block);
	return block;
}

/*
 * A window's key block is P lines, of which a key's k probes touch at most
 * k.  Out of cache, fetch those (the whole block instead cost batched
 * checks at g = 16 1.9 times as much, bench/window.c); in cache, only the
 * first, as a dozen prefetches per key in flight cost more than the misses
 * they hide.  Batched checks of a window of g = 8, k = 9, P = 16, ns per
 * key, every line against the first only: 1.1 MB 34.2 / 17.7, 17 MB
 * 35.1 / 25.4, 26 MB 37.4 / 42.1, 34 MB 39.2 / 75.6, 129 MB 41.5 / 116
 * (a 2-vCPU AMD EPYC VM, 32 MiB L3; 3791a20, 2026-12-01).  The kernel
 * cannot ask the cache's size in a way that holds on every CPU
 * (x86_cache_size is L2 on AMD), so the line is drawn at 16 MiB: below
 * the smaller caches of today's servers, at most 1.4 times the best in
 * between on that VM.
 */
#define KBLOOM_WINDOW_FETCH_ALL_BYTES	(16ULL << 20)

static __always_inline bool window_fetch_all(const struct kbloom_filter *f)
{
	return f->geo.nblocks * KBLOOM_BLOCK_BYTES >
	       KBLOOM_WINDOW_FETCH_ALL_BYTES;
}

static __always_inline u64 *window_fetch(const struct kbloom_filter *f, u64 h,
					 bool write)
{
	u64 *block = block_of_order(f, h, KBLOOM_WINDOW_ORDER);
	struct kbloom_probe p;
	struct kbloom_cell c;
	u64 lines = 0;

	probe_start(&p, h, window_fetch_all(f) ? f->geo.k : 1);
	while (probe_draw(&p, KBLOOM_BITS_CELL_ORDER))
		while (probe_next(&p, KBLOOM_BITS_CELL_ORDER, &c))
			lines |= BIT_ULL(window_cell(f, c).word /
					 KBLOOM_BLOCK_WORDS);
	while (lines) {
		const u64 *line = block + __ffs64(lines) * KBLOOM_BLOCK_WORDS;

		if (write)
			prefetchw(line);
		else
			prefetch(line);
		lines &= lines - 1;
	}
	return block;
}

/*
 * add_new and delete_hits count operations that took a cell from zero or
 * to it, and a cached walk of the cells is kept while they do not move
 * (kbloom_stats_cache.c).  A reader that sees a count must then see the
 * cells it counts: the cell stores went before the stripe's unlock, but a
 * release orders only what precedes it, so a later plain per-CPU
 * increment could be seen first on a weakly ordered CPU.  The write
 * barrier pairs with the read barrier between the reader's sample of the
 * counts and its walk.  It compiles to nothing on x86.
 */
#define count_cells_changed(counter, n)					\
	do {								\
		/* The cells before the count, as said above. */	\
		smp_wmb();						\
		this_cpu_add(counter, n);				\
	} while (0)

#endif /* KBLOOM_PROBE_H */
