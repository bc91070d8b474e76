// SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later
/*
 * What rewrites the whole filter, key block by key block under each
 * block's stripe: clear, merge, intersect (bits and counting filters, and
 * windows generation by generation) and a window's rotation.
 */
#include "kbloom_formula.h"
#include "kbloom_probe.h"

/* Blocks handled by whole-filter loops between chances to reschedule. */
#define KBLOOM_RESCHED_BLOCKS	4096
/* kbloom_rewrite()'s chunks of key blocks start at multiples of 64. */
static_assert((KBLOOM_RESCHED_BLOCKS >> KBLOOM_WINDOW_PLANE_ORDER_MAX) %
	      KBLOOM_WRITE_STRIPES == 0, "chunks start at multiples of 64");

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
	u32 a;

	for (a = 0; a < c->ages; a++) {
		u64 n = kbloom_window_adds(&src->win, c->src_plane[a]);

		if (n)
			kbloom_window_count_plane(dst, c->dst_plane[a], n, !a);
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
