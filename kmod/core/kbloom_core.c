// SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later
/*
 * The filter itself: allocation, hashing, add, check and delete (single and
 * batched), and the whole-filter operations clear, merge and intersect.
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
#include "kbloom_core.h"
#include "kbloom_formula.h"
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
/*
 * How far ahead of the key being probed a batch hashes keys and prefetches
 * their blocks: enough misses in flight to cover a memory latency, few
 * enough to stay within the CPU's miss buffers.  A power of two.  32
 * against 16: batched checks at 100 M keys 17.0-17.4 ns against
 * 18.4-19.4 ns, the same at 10 M (two interleaved pairs on a 2-vCPU AMD
 * EPYC VM; e5d38a5, 2026-12-01).
 */
#define KBLOOM_BATCH_AHEAD	32
/* Blocks handled by whole-filter loops between chances to reschedule. */
#define KBLOOM_RESCHED_BLOCKS	4096
/* kbloom_rewrite()'s chunks of key blocks start at multiples of 64. */
static_assert((KBLOOM_RESCHED_BLOCKS >> KBLOOM_WINDOW_PLANE_ORDER_MAX) %
	      KBLOOM_WRITE_STRIPES == 0, "chunks start at multiples of 64");

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

/*
 * Adds n to a plane's count, if the plane is still in epoch (any epoch
 * when epoch is negative); false if it is not.  *before: the count it
 * had.  A compare-and-swap, not an add, so that the test of the epoch and
 * the add are one: an emptying between them would otherwise be undone.
 * Batches take it once per run of keys, and cost what they did; a single
 * add takes it per key, and cost 29.6 ns against 26.8 and 27.4 ns with
 * the plain atomic add before (a window of 100,000 keys, `bench --quick
 * --window` on the host, two runs each, 2-vCPU AMD EPYC VM; 089f5f2,
 * 2026-12-03); at 1 M keys the two were within noise (38.3 to 38.8 ns
 * against 37.9 to 38.7).
 */
static bool window_count_add(struct kbloom_window *w, u32 plane, int epoch,
			     u64 n, u64 *before)
{
	atomic64_t *count = &w->plane_count[plane];
	s64 old = atomic64_read(count);
	u64 adds;

	do {
		if (epoch >= 0 &&
		    (u64)old >> KBLOOM_PLANE_EPOCH_SHIFT != (u64)epoch)
			return false;
		adds = (u64)old & KBLOOM_PLANE_ADDS_MAX;
	} while (!atomic64_try_cmpxchg(count, &old,
				       (s64)(((u64)old & ~KBLOOM_PLANE_ADDS_MAX) |
					     min(adds + min(n, KBLOOM_PLANE_ADDS_MAX),
						 KBLOOM_PLANE_ADDS_MAX))));
	*before = adds;
	return true;
}

/* The count that takes a plane to every (or past it) makes it due, once. */
static void window_due(struct kbloom_filter *f, u64 before, u64 n)
{
	u64 every = READ_ONCE(f->win.every);

	if (every && before < every && before + n >= every && f->win.due)
		f->win.due(f);
}

/*
 * n keys went into ref's plane in ref's epoch.  If the plane was emptied
 * since (retired by g rotations, cleared or loaded while a batch held the
 * count of its run), those keys are gone with it, and so is their count:
 * added to the plane's next keys, it would make their rotation come due
 * early.
 */
void kbloom_window_count(struct kbloom_filter *f,
			 const struct kbloom_plane_ref *ref, u64 n)
{
	u64 before;

	if (window_count_add(&f->win, ref->plane, ref->epoch, n, &before))
		window_due(f, before, n);
}

void kbloom_window_set_adds(struct kbloom_window *w, u32 plane, u64 n)
{
	u16 epoch = w->epoch[plane] + 1;

	WRITE_ONCE(w->epoch[plane], epoch);
	atomic64_set(&w->plane_count[plane],
		     (s64)((u64)epoch << KBLOOM_PLANE_EPOCH_SHIFT |
			   min(n, KBLOOM_PLANE_ADDS_MAX)));
}

int kbloom_filter_init(struct kbloom_filter *f,
		       const struct kbloom_geometry *geo)
{
	int ret;
	u32 i;

	memset(f, 0, sizeof(*f));
	ret = kbloom_geometry_validate(geo);
	if (ret)
		return ret;
	/*
	 * Always vmalloc, in whole pages: slab memory would share its pages
	 * with other objects that a mapping must not show, and kvzalloc's
	 * kmalloc path is not page-granular.  vmalloc takes sizes over
	 * INT_MAX too, and at most 2^37 bytes come after validation.  The
	 * cost, 4 KiB pages instead of the direct map's large ones for
	 * filters under 4 MiB (larger ones were vmalloc already), is TLB
	 * reach the few hundred pages of such a filter stay within.
	 */
	f->words = __vmalloc(PAGE_ALIGN(kbloom_geometry_bytes(geo)),
			     GFP_KERNEL_ACCOUNT | __GFP_NOWARN | __GFP_ZERO);
	if (!f->words)
		return -ENOMEM;
	f->counts = alloc_percpu_gfp(struct kbloom_counts, GFP_KERNEL_ACCOUNT);
	if (!f->counts) {
		vfree(f->words);
		f->words = NULL;
		return -ENOMEM;
	}
	f->stripes = kcalloc(KBLOOM_WRITE_STRIPES, sizeof(*f->stripes),
			     GFP_KERNEL_ACCOUNT);
	if (!f->stripes) {
		free_percpu(f->counts);
		f->counts = NULL;
		vfree(f->words);
		f->words = NULL;
		return -ENOMEM;
	}
	for (i = 0; i < KBLOOM_WRITE_STRIPES; i++)
		spin_lock_init(&f->stripes[i].lock);
	f->geo = *geo;
	if (geo->type == KBLOOM_TYPE_WINDOW) {
		/* Plane 0 current, plane 1 the spare, the others live. */
		f->win.planes = geo->generations + 1;
		f->win.live = GENMASK_ULL(geo->generations, 0) & ~BIT_ULL(1);
	}
	return 0;
}

/*
 * What kbloom_filter_init() allocates for geo, as the allocators and the
 * memory cgroup count it: the cells' whole pages, the stripes' slab
 * object and the counts on every possible CPU.  Not the allocators' own
 * bookkeeping (vmalloc's page array and area, page tables).
 */
u64 kbloom_filter_held(const struct kbloom_geometry *geo)
{
	return PAGE_ALIGN(kbloom_geometry_bytes(geo)) +
	       kmalloc_size_roundup(KBLOOM_WRITE_STRIPES *
				    sizeof(struct kbloom_stripe)) +
	       (u64)sizeof(struct kbloom_counts) * num_possible_cpus();
}

void kbloom_filter_free(struct kbloom_filter *f)
{
	kfree(f->stripes);
	f->stripes = NULL;
	free_percpu(f->counts);
	f->counts = NULL;
	vfree(f->words);
	f->words = NULL;
}

void kbloom_counts_read(const struct kbloom_filter *f,
			struct kbloom_counts *sum)
{
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const struct kbloom_counts *c = per_cpu_ptr(f->counts, cpu);

		sum->add_calls += READ_ONCE(c->add_calls);
		sum->add_new += READ_ONCE(c->add_new);
		sum->check_calls += READ_ONCE(c->check_calls);
		sum->check_hits += READ_ONCE(c->check_hits);
		sum->delete_calls += READ_ONCE(c->delete_calls);
		sum->delete_hits += READ_ONCE(c->delete_hits);
	}
}

/* The whole value goes to one CPU's copy; every other copy is zeroed. */
void kbloom_counts_set(struct kbloom_filter *f,
		       const struct kbloom_counts *counts)
{
	int cpu, first = -1;

	for_each_possible_cpu(cpu) {
		struct kbloom_counts *c = per_cpu_ptr(f->counts, cpu);
		bool zero = first >= 0;

		if (!zero)
			first = cpu;
		WRITE_ONCE(c->add_calls, zero ? 0 : counts->add_calls);
		WRITE_ONCE(c->add_new, zero ? 0 : counts->add_new);
		WRITE_ONCE(c->check_calls, zero ? 0 : counts->check_calls);
		WRITE_ONCE(c->check_hits, zero ? 0 : counts->check_hits);
		WRITE_ONCE(c->delete_calls, zero ? 0 : counts->delete_calls);
		WRITE_ONCE(c->delete_hits, zero ? 0 : counts->delete_hits);
	}
}

static __always_inline u64 key_hash(const struct kbloom_filter *f,
				    const void *key, u32 len)
{
	return kbloom_xxh64(key, len, f->geo.seed);
}

u64 kbloom_hash(const struct kbloom_filter *f, const void *key, u32 len)
{
	return key_hash(f, key, len);
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

static bool window_add(struct kbloom_filter *f, u64 h,
		       struct kbloom_plane_ref *ref)
{
	u64 *block = window_fetch(f, h, true);
	bool set_new;

	local_bh_disable();
	set_new = probe_write_bits(f, block, h, KBLOOM_WINDOW_ORDER, ref, true,
				   false);
	local_bh_enable();
	return set_new;
}

static bool cells_add(struct kbloom_filter *f, u64 h)
{
	u64 *block = block_fetch(f, h);
	struct kbloom_plane_ref ref;
	bool set_new;

	local_bh_disable();
	if (f->geo.type == KBLOOM_TYPE_COUNTING)
		set_new = probe_write(f, block, h, KBLOOM_OP_ADD,
				      KBLOOM_COUNTER_CELL_ORDER);
	else
		set_new = probe_write_bits(f, block, h, KBLOOM_BITS_CELL_ORDER,
					   &ref, true, false);
	local_bh_enable();
	return set_new;
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

static void count_add(struct kbloom_filter *f, bool set_new)
{
	this_cpu_inc(f->counts->add_calls);
	if (set_new)
		count_cells_changed(f->counts->add_new, 1);
}

bool kbloom_window_add_ref(struct kbloom_filter *f, const void *key, u32 len,
			   struct kbloom_plane_ref *ref)
{
	bool set_new = window_add(f, key_hash(f, key, len), ref);

	count_add(f, set_new);
	return set_new;
}

bool kbloom_add(struct kbloom_filter *f, const void *key, u32 len)
{
	struct kbloom_plane_ref ref;
	bool set_new;

	if (f->geo.type == KBLOOM_TYPE_WINDOW) {
		set_new = kbloom_window_add_ref(f, key, len, &ref);
		kbloom_window_count(f, &ref, 1);
		return set_new;
	}
	set_new = cells_add(f, key_hash(f, key, len));
	count_add(f, set_new);
	return set_new;
}

bool kbloom_lookup(const struct kbloom_filter *f, const void *key, u32 len)
{
	return probe(f, key_hash(f, key, len), KBLOOM_OP_CHECK);
}

bool kbloom_check(struct kbloom_filter *f, const void *key, u32 len)
{
	bool maybe = kbloom_lookup(f, key, len);

	this_cpu_inc(f->counts->check_calls);
	/* No branch on the answer: see probe_check(). */
	this_cpu_add(f->counts->check_hits, (u64)maybe);
	return maybe;
}

bool kbloom_lookup_hash(const struct kbloom_filter *f, u64 h)
{
	return probe(f, h, KBLOOM_OP_CHECK);
}

bool kbloom_add_hash(struct kbloom_filter *f, u64 h)
{
	bool set_new = cells_add(f, h);

	count_add(f, set_new);
	return set_new;
}

/* One key's counters written, holding its stripe; false for no counters. */
static bool counters_write(struct kbloom_filter *f, u64 h, enum kbloom_op op)
{
	bool ret;

	if (kbloom_delete_supported(f))
		return false;
	local_bh_disable();
	ret = probe_write(f, block_fetch(f, h), h, op,
			  KBLOOM_COUNTER_CELL_ORDER);
	local_bh_enable();
	return ret;
}

bool kbloom_count_known_hash(struct kbloom_filter *f, u64 h)
{
	bool known = counters_write(f, h, KBLOOM_OP_COUNT_KNOWN);

	if (known)
		count_add(f, false);
	return known;
}

unsigned long kbloom_lookup_hashes(const struct kbloom_filter *f,
				   const u64 *h, u32 n)
{
	u64 *blocks[BITS_PER_LONG];
	unsigned long found = 0;
	u32 i;

	for (i = 0; i < n; i++) {
		blocks[i] = block_of(f, h[i]);
		prefetch(blocks[i]);
	}
	for (i = 0; i < n; i++)
		found |= (unsigned long)probe_block(f, blocks[i], h[i],
						    KBLOOM_OP_CHECK) << i;
	return found;
}

int kbloom_delete_supported(const struct kbloom_filter *f)
{
	return f->geo.type == KBLOOM_TYPE_COUNTING ? 0 : -EOPNOTSUPP;
}

bool kbloom_delete(struct kbloom_filter *f, const void *key, u32 len)
{
	return kbloom_delete_hash(f, key_hash(f, key, len));
}

bool kbloom_delete_hash(struct kbloom_filter *f, u64 h)
{
	bool removed;

	if (kbloom_delete_supported(f))
		return false;
	removed = counters_write(f, h, KBLOOM_OP_DELETE);
	this_cpu_inc(f->counts->delete_calls);
	if (removed)
		count_cells_changed(f->counts->delete_hits, 1);
	return removed;
}

/* A key's hash, its block prefetched on the way so the probe finds it. */
static __always_inline u64 *hash_prefetch(const struct kbloom_filter *f,
					  const struct kbloom_key *key,
					  u64 *h, enum kbloom_op op, u32 order)
{
	u64 *block;

	*h = key_hash(f, key->data, key->len);
	if (order == KBLOOM_WINDOW_ORDER)
		return window_fetch(f, *h, op != KBLOOM_OP_CHECK);
	block = block_of(f, *h);
	prefetch(block);
	return block;
}

/*
 * Where a batch is: the blocks and hashes of the keys ahead; for a
 * window's adds, the plane (and its epoch) of the last ones and how many
 * went there, so that its count takes one atomic operation per run rather
 * than per key; for its checks, the live planes, read once per batch.
 */
struct kbloom_pipeline {
	u64 hashes[KBLOOM_BATCH_AHEAD];
	u64 *blocks[KBLOOM_BATCH_AHEAD];
	u64 live;
	struct kbloom_plane_ref ref;
	u32 run;
};

/* Key i of a batch into the block fetched for it: true when it counts. */
static __always_inline bool batch_key(struct kbloom_filter *f,
				      struct kbloom_pipeline *pl, u64 *block,
				      u64 h, enum kbloom_op op, u32 order)
{
	struct kbloom_plane_ref ref;
	bool ret;

	if (op == KBLOOM_OP_CHECK)
		return order == KBLOOM_WINDOW_ORDER ?
		       probe_check_window(f, block, h, pl->live) :
		       probe_op(f, block, h, op, order);
	if (order == KBLOOM_COUNTER_CELL_ORDER)
		return probe_write(f, block, h, op, order);
	ret = probe_write_bits(f, block, h, order, &ref, false,
			       op == KBLOOM_OP_FILL);
	if (order != KBLOOM_WINDOW_ORDER)
		return ret;
	if ((ref.plane != pl->ref.plane || ref.epoch != pl->ref.epoch) &&
	    pl->run) {
		kbloom_window_count(f, &pl->ref, pl->run);
		pl->run = 0;
	}
	pl->ref = ref;
	pl->run++;
	return ret;
}

/* Keys base .. end - 1 (at most 64); bit i - base of the result for key i. */
static __always_inline unsigned long
batch_word(struct kbloom_filter *f, struct kbloom_pipeline *pl,
	   const struct kbloom_key *keys, u32 n, u32 base, u32 end,
	   enum kbloom_op op, u32 order)
{
	unsigned long found = 0;
	u32 i;

	for (i = base; i < end; i++) {
		u32 slot = i % KBLOOM_BATCH_AHEAD;
		u32 next = i + KBLOOM_BATCH_AHEAD;
		u64 *block = pl->blocks[slot], h = pl->hashes[slot];

		if (next < n)
			pl->blocks[slot] = hash_prefetch(f, &keys[next],
							 &pl->hashes[slot],
							 op, order);
		/* No branch on the answer: see probe_check(). */
		found |= (unsigned long)batch_key(f, pl, block, h, op, order)
			 << (i - base);
	}
	return found;
}

/*
 * A rolling pipeline: while key i is probed, key i + KBLOOM_BATCH_AHEAD is
 * hashed and its block prefetched, so cache misses stay in flight all
 * along instead of in bursts.  Results are gathered a word at a time.
 * Adds of bits and windows take KBLOOM_OP_FILL (probe_add_bits()) for a
 * word of 64 keys when more than half of the word before were new: a
 * branch per word, not per key, so mixed keys mispredict nothing.
 * The first word looks first, so a batch of known keys writes nothing.
 */
static __always_inline u32 batch_run(struct kbloom_filter *f,
				     const struct kbloom_key *keys, u32 n,
				     unsigned long *results,
				     enum kbloom_op op, u32 order)
{
	struct kbloom_pipeline pl;
	u32 ahead = min_t(u32, n, KBLOOM_BATCH_AHEAD);
	u32 base, i, hits = 0;
	bool fill = false;

	pl.run = 0;
	pl.ref.plane = 0;
	pl.ref.epoch = 0;
	if (order == KBLOOM_WINDOW_ORDER && op == KBLOOM_OP_CHECK)
		pl.live = window_live(f);
	for (i = 0; i < ahead; i++)
		pl.blocks[i] = hash_prefetch(f, &keys[i], &pl.hashes[i], op,
					     order);
	for (base = 0; base < n; base += BITS_PER_LONG) {
		u32 end = min_t(u32, n, base + BITS_PER_LONG);
		unsigned long found;
		u32 found_n;

		if (op == KBLOOM_OP_ADD &&
		    order != KBLOOM_COUNTER_CELL_ORDER && fill)
			found = batch_word(f, &pl, keys, n, base, end,
					   KBLOOM_OP_FILL, order);
		else
			found = batch_word(f, &pl, keys, n, base, end, op,
					   order);
		found_n = hweight_long(found);
		fill = found_n * 2 > end - base;
		hits += found_n;
		if (results)
			results[base / BITS_PER_LONG] = found;
	}
	if (pl.run)
		kbloom_window_count(f, &pl.ref, pl.run);
	return hits;
}

/* One loop per type and operation, each with its probe inlined. */
static u32 batch_probe_op(struct kbloom_filter *f,
			  const struct kbloom_key *keys, u32 n,
			  unsigned long *results, enum kbloom_op op)
{
	if (f->geo.type == KBLOOM_TYPE_WINDOW && op != KBLOOM_OP_DELETE)
		return op == KBLOOM_OP_ADD ?
		       batch_run(f, keys, n, results, KBLOOM_OP_ADD,
				 KBLOOM_WINDOW_ORDER) :
		       batch_run(f, keys, n, results, KBLOOM_OP_CHECK,
				 KBLOOM_WINDOW_ORDER);
	if (f->geo.type == KBLOOM_TYPE_COUNTING) {
		switch (op) {
		case KBLOOM_OP_ADD:
			return batch_run(f, keys, n, results, KBLOOM_OP_ADD,
					 KBLOOM_COUNTER_CELL_ORDER);
		case KBLOOM_OP_CHECK:
			return batch_run(f, keys, n, results, KBLOOM_OP_CHECK,
					 KBLOOM_COUNTER_CELL_ORDER);
		default:
			return batch_run(f, keys, n, results, KBLOOM_OP_DELETE,
					 KBLOOM_COUNTER_CELL_ORDER);
		}
	}
	switch (op) {
	case KBLOOM_OP_ADD:
		return batch_run(f, keys, n, results, KBLOOM_OP_ADD,
				 KBLOOM_BITS_CELL_ORDER);
	case KBLOOM_OP_CHECK:
		return batch_run(f, keys, n, results, KBLOOM_OP_CHECK,
				 KBLOOM_BITS_CELL_ORDER);
	default:
		/* A bits filter has nothing to decrement. */
		if (results)
			bitmap_zero(results, n);
		return 0;
	}
}

/*
 * Writers hold stripes with bottom halves off (kbloom_core.h); once per
 * batch, as the module's batches are at most KBLOOM_CHUNK_KEYS keys.
 */
static u32 batch_probe(struct kbloom_filter *f, const struct kbloom_key *keys,
		       u32 n, unsigned long *results, enum kbloom_op op)
{
	u32 hits;

	if (op == KBLOOM_OP_CHECK)
		return batch_probe_op(f, keys, n, results, op);
	local_bh_disable();
	hits = batch_probe_op(f, keys, n, results, op);
	local_bh_enable();
	return hits;
}

u32 kbloom_add_batch(struct kbloom_filter *f, const struct kbloom_key *keys,
		     u32 n, unsigned long *results)
{
	u32 hits = batch_probe(f, keys, n, results, KBLOOM_OP_ADD);

	this_cpu_add(f->counts->add_calls, n);
	if (hits)
		count_cells_changed(f->counts->add_new, hits);
	return hits;
}

/* A check writes nothing: the filter is not changed through the cast. */
u32 kbloom_lookup_batch(const struct kbloom_filter *f,
			const struct kbloom_key *keys, u32 n,
			unsigned long *results)
{
	return batch_probe((struct kbloom_filter *)f, keys, n, results,
			   KBLOOM_OP_CHECK);
}

u32 kbloom_check_batch(struct kbloom_filter *f, const struct kbloom_key *keys,
		       u32 n, unsigned long *results)
{
	u32 hits = kbloom_lookup_batch(f, keys, n, results);

	this_cpu_add(f->counts->check_calls, n);
	this_cpu_add(f->counts->check_hits, hits);
	return hits;
}

u32 kbloom_delete_batch(struct kbloom_filter *f,
			const struct kbloom_key *keys, u32 n,
			unsigned long *results)
{
	u32 hits;

	if (kbloom_delete_supported(f)) {
		if (results)
			bitmap_zero(results, n);
		return 0;
	}
	hits = batch_probe(f, keys, n, results, KBLOOM_OP_DELETE);
	this_cpu_add(f->counts->delete_calls, n);
	if (hits)
		count_cells_changed(f->counts->delete_hits, hits);
	return hits;
}

/*
 * Whole-filter writers (clear, image load, merge, intersect, a window's
 * plane clear) rewrite the cells key block by key block, each under its
 * block's stripe, as adds and deletes change them: an add then lands
 * wholly before the rewrite of its block or wholly after it.  Without
 * the stripe, an add that loaded a word before the rewrite stored it and
 * stored old | bit after would put back the bits a clear removed, or wipe
 * the bits of an image just loaded: keys of the image then not found
 * after the load returned (seen in 10 of 300 rounds of a softirq adder
 * racing a load, in Debian 6.1's kernel under qemu, before this walk).
 * A chunk of key blocks is walked one stripe at a time (every
 * KBLOOM_WRITE_STRIPES-th key block, a stride the prefetchers follow), so
 * a lock is taken once per 64 key blocks of a chunk rather than once per
 * block, and the CPU is given up between chunks.
 */
void kbloom_rewrite(struct kbloom_filter *f, kbloom_rewrite_fn fn,
		    const void *arg)
{
	u32 order = f->geo.plane_order, s;
	u64 nkeyblocks = f->geo.nblocks >> order;
	u64 chunk_blocks = KBLOOM_RESCHED_BLOCKS >> order;
	u64 chunk, end;

	for (chunk = 0; chunk < nkeyblocks; chunk = end) {
		end = min_t(u64, nkeyblocks, chunk + chunk_blocks);
		/* Chunks start at multiples of the stripe count (below). */
		for (s = 0; s < KBLOOM_WRITE_STRIPES && chunk + s < end; s++) {
			spin_lock_bh(&f->stripes[s].lock);
			fn(f, chunk + s, end, arg);
			spin_unlock_bh(&f->stripes[s].lock);
		}
		cond_resched();
	}
}

static void clear_blocks(struct kbloom_filter *f, u64 first, u64 end,
			 __always_unused const void *arg)
{
	u32 order = f->geo.plane_order;
	u64 b;

	for (b = first; b < end; b += KBLOOM_WRITE_STRIPES)
		memset(f->words + (b * KBLOOM_BLOCK_WORDS << order), 0,
		       KBLOOM_BLOCK_BYTES << order);
}

void kbloom_clear(struct kbloom_filter *f)
{
	u32 p;

	kbloom_rewrite(f, clear_blocks, NULL);
	kbloom_counts_set(f, &(struct kbloom_counts){});
	for (p = 0; p < KBLOOM_IMAGE_PLANES; p++)
		kbloom_window_set_adds(&f->win, p, 0);
}

bool kbloom_compatible(const struct kbloom_filter *a,
		       const struct kbloom_filter *b)
{
	return a->geo.nblocks == b->geo.nblocks && a->geo.k == b->geo.k &&
	       a->geo.seed == b->geo.seed && a->geo.type == b->geo.type &&
	       a->geo.generations == b->geo.generations;
}

u32 kbloom_window_plane(const struct kbloom_filter *f, u32 age)
{
	u32 planes = f->win.planes;

	return (READ_ONCE(f->win.cur) + planes - age % planes) % planes;
}

/*
 * Counters, 4 bits each, are combined 16 to a word, in two passes of 8 so
 * that every counter has a byte to itself and sums cannot carry into a
 * neighbour.
 */
#define KBLOOM_LOW_NIBBLES	0x0f0f0f0f0f0f0f0fULL
#define KBLOOM_NIBBLE_CARRY	0x1010101010101010ULL

/* Per byte lane, values 0..15: min(a + b, 15). */
static u64 lanes_add_saturating(u64 a, u64 b)
{
	u64 sum = a + b;
	u64 over = ((sum & KBLOOM_NIBBLE_CARRY) >> 4) * 0x0f;

	return (sum | over) & KBLOOM_LOW_NIBBLES;
}

/* Per byte lane, values 0..15: min(a, b). */
static u64 lanes_min(u64 a, u64 b)
{
	/* 16 + a - b keeps bit 4 exactly when a >= b. */
	u64 diff = (a | KBLOOM_NIBBLE_CARRY) - b;
	u64 b_lower = ((diff & KBLOOM_NIBBLE_CARRY) >> 4) * 0x0f;

	return (b & b_lower) | (a & ~b_lower);
}

static u64 counters_union(u64 a, u64 b)
{
	return lanes_add_saturating(a & KBLOOM_LOW_NIBBLES,
				    b & KBLOOM_LOW_NIBBLES) |
	       lanes_add_saturating((a >> 4) & KBLOOM_LOW_NIBBLES,
				    (b >> 4) & KBLOOM_LOW_NIBBLES) << 4;
}

static u64 counters_common(u64 a, u64 b)
{
	return lanes_min(a & KBLOOM_LOW_NIBBLES, b & KBLOOM_LOW_NIBBLES) |
	       lanes_min((a >> 4) & KBLOOM_LOW_NIBBLES,
			 (b >> 4) & KBLOOM_LOW_NIBBLES) << 4;
}

/*
 * What a walk of the cells does to each word of dst: a union with src or
 * what both hold; for windows, generation by generation (dst's plane of
 * each age takes src's plane of that age), or the clear of one plane.
 */
struct kbloom_combine {
	bool keep_common;
	bool clear;		/* windows: empty clear_plane, src unused */
	u32 clear_plane;
	u32 ages;		/* windows: generations */
	u64 low;		/* windows: bit 0 of every cell of a word */
	u8 dst_plane[KBLOOM_IMAGE_PLANES];
	u8 src_plane[KBLOOM_IMAGE_PLANES];
};

static u64 window_word(u64 dst, u64 src, const struct kbloom_combine *c)
{
	u32 a;

	if (c->clear)
		return dst & ~(c->low << c->clear_plane);
	for (a = 0; a < c->ages; a++) {
		u64 from = ((src >> c->src_plane[a]) & c->low) <<
			   c->dst_plane[a];

		if (c->keep_common)
			dst &= ~(c->low << c->dst_plane[a]) | from;
		else
			dst |= from;
	}
	return dst;
}

/* One word of dst combined with one of src. */
static u64 combine_word(u32 type, u64 dst, u64 src,
			const struct kbloom_combine *c)
{
	if (type == KBLOOM_TYPE_WINDOW)
		return window_word(dst, src, c);
	if (type == KBLOOM_TYPE_COUNTING)
		return c->keep_common ? counters_common(dst, src) :
					counters_union(dst, src);
	return c->keep_common ? dst & src : dst | src;
}

/* A window's cells of one word, each by its lowest bit. */
static u64 window_low_bits(const struct kbloom_filter *f)
{
	u32 width = 1U << f->geo.plane_order, s;
	u64 low = 0;

	for (s = 0; s < 64; s += width)
		low |= 1ULL << s;
	return low;
}

/* Pairs the generations of two windows by age, newest first. */
static void window_ages(const struct kbloom_filter *dst,
			const struct kbloom_filter *src,
			struct kbloom_combine *c)
{
	u32 a;

	c->ages = dst->geo.generations;
	c->low = window_low_bits(dst);
	for (a = 0; a < c->ages; a++) {
		c->dst_plane[a] = kbloom_window_plane(dst, a);
		c->src_plane[a] = kbloom_window_plane(src, a);
	}
}

struct kbloom_combine_arg {
	const struct kbloom_filter *src;
	const struct kbloom_combine *c;
};

/* Merge, intersect and a window's plane clear, word by word. */
static void combine_blocks(struct kbloom_filter *dst, u64 first, u64 end,
			   const void *arg)
{
	const struct kbloom_combine_arg *a = arg;
	u32 type = dst->geo.type;
	u64 block_words = (u64)KBLOOM_BLOCK_WORDS << dst->geo.plane_order;
	u64 b, w;

	for (b = first; b < end; b += KBLOOM_WRITE_STRIPES) {
		for (w = b * block_words; w < (b + 1) * block_words; w++) {
			u64 old = READ_ONCE(dst->words[w]);
			u64 new = combine_word(type, old,
					       READ_ONCE(a->src->words[w]),
					       a->c);

			/* An unchanged word stays clean. */
			if (new != old)
				WRITE_ONCE(dst->words[w], new);
		}
	}
}

static void combine(struct kbloom_filter *dst, const struct kbloom_filter *src,
		    const struct kbloom_combine *c)
{
	struct kbloom_combine_arg a = { .src = src, .c = c };

	kbloom_rewrite(dst, combine_blocks, &a);
}

/*
 * A window's generations merge by age, and so do their counts of keys
 * added; a current generation that reaches rotate_every that way makes
 * the rotation due as adds would.
 */
static void window_merge_counts(struct kbloom_filter *dst,
				const struct kbloom_combine *c,
				const struct kbloom_filter *src)
{
	u64 before;
	u32 a;

	for (a = 0; a < c->ages; a++) {
		u64 n = kbloom_window_adds(&src->win, c->src_plane[a]);

		if (n && window_count_add(&dst->win, c->dst_plane[a], -1, n,
					  &before) && !a)
			window_due(dst, before, n);
	}
}

int kbloom_merge(struct kbloom_filter *dst, const struct kbloom_filter *src)
{
	struct kbloom_combine c = { .keep_common = false };
	struct kbloom_counts from;

	if (!kbloom_compatible(dst, src))
		return -EXDEV;
	if (dst == src)
		return 0;
	if (dst->geo.type == KBLOOM_TYPE_WINDOW)
		window_ages(dst, src, &c);
	combine(dst, src, &c);
	if (dst->geo.type == KBLOOM_TYPE_WINDOW)
		window_merge_counts(dst, &c, src);
	/* The union holds every key submitted to either side. */
	kbloom_counts_read(src, &from);
	this_cpu_add(dst->counts->add_calls, from.add_calls);
	this_cpu_add(dst->counts->add_new, from.add_new);
	this_cpu_add(dst->counts->delete_calls, from.delete_calls);
	this_cpu_add(dst->counts->delete_hits, from.delete_hits);
	return 0;
}

int kbloom_intersect(struct kbloom_filter *dst,
		     const struct kbloom_filter *src)
{
	struct kbloom_combine c = { .keep_common = true };

	if (!kbloom_compatible(dst, src))
		return -EXDEV;
	if (dst == src)
		return 0;
	if (dst->geo.type == KBLOOM_TYPE_WINDOW)
		window_ages(dst, src, &c);
	combine(dst, src, &c);
	return 0;
}

/*
 * The order is what makes the guarantee (uapi header): live gains the
 * spare and loses the oldest plane in one store, so a check sees either
 * the old window or the new one, never a plane being cleared; cur moves
 * only after that store, so no add lands in a plane a check may ignore;
 * the retired plane is cleared last, under the stripes, and becomes the
 * next spare.  Its old keys can no longer be found, but its bits stay set
 * until the clear reaches them: only a plane outside live is ever
 * cleared, so that costs no false negative.
 */
int kbloom_window_rotate(struct kbloom_filter *f)
{
	struct kbloom_combine c = { .clear = true };
	struct kbloom_window *w = &f->win;
	u64 live, *mirror;
	u32 next, old;

	if (f->geo.type != KBLOOM_TYPE_WINDOW)
		return -EOPNOTSUPP;
	next = (w->cur + 1) % w->planes;
	old = (w->cur + 2) % w->planes;
	live = (w->live | BIT_ULL(next)) & ~BIT_ULL(old);
	/* Checks load live with acquire (window_live()). */
	smp_store_release(&w->live, live);
	mirror = w->live_mirror ?: &w->live;
	/* So do readers of a mapping, from its header (if any). */
	smp_store_release(mirror, live);
	/* Adds load cur with acquire: live is stored before they see it. */
	smp_store_release(&w->cur, next);
	WRITE_ONCE(w->rotations, w->rotations + 1);
	c.clear_plane = old;
	c.low = window_low_bits(f);
	combine(f, f, &c);
	kbloom_window_set_adds(w, old, 0);
	return 0;
}
