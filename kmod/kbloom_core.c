// SPDX-License-Identifier: GPL-2.0
/*
 * The filter itself: allocation, hashing, add and check (single and
 * batched), and the whole-filter operations clear, merge and intersect.
 *
 * Where a key goes: h = xxh64(key, seed).  The block is fastrange over all
 * 64 bits, (h * nblocks) >> 64, so no hash bits are wasted and no modulo is
 * needed.  Inside the block, Kirsch-Mitzenmacher double hashing gives probe
 * i the 64-bit value x_i = g1 + i * g2, where g1 and g2 are remixes of h
 * (an odd multiply puts every bit of h into their top bits, so they do not
 * follow the block choice, which only h's top bits drive).  Each x_i is
 * mapped to a cell by a xorshift-multiply whose top 9 bits are the cell.
 *
 * Why not take the cells as (a + i * b) mod 512 directly: a block then has
 * only 2^17 probe patterns, keys sharing or overlapping a pattern are common
 * (a pattern read backwards is another pattern, a shifted one shares k - 1
 * cells), and the measured rate was 1.13x the blocked formula at 10 bits
 * per key and 6.2x at 20.  Taking the cells as the top bits of x_i alone
 * still measured 2.8x at 20, as nearby (g1, g2) give nearby cells.  The
 * finalising multiply (1.00x, within sampling error, at 6 to 20) makes
 * the k cells behave as independent uniform draws, which is what
 * kbloom_formula.c models (cells may repeat within a key).
 */
#include "kbloom_core.h"

#ifdef __KERNEL__
#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/prefetch.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/xxhash.h>
#endif

/* Odd multipliers with well-spread bits (G2 is 2^64 / golden ratio). */
#define KBLOOM_MIX_G1		0xd6e8feb86659fd93ULL
#define KBLOOM_MIX_G2		0x9e3779b97f4a7c15ULL
#define KBLOOM_MIX_CELL		0xff51afd7ed558ccdULL
#define KBLOOM_CELL_SHIFT	(64 - 9)
/* Keys hashed and prefetched before the first of them is probed. */
#define KBLOOM_BATCH_AHEAD	32
/* Blocks handled by whole-filter loops between chances to reschedule. */
#define KBLOOM_RESCHED_BLOCKS	4096

static u64 *block_of(const struct kbloom_filter *f, u64 h)
{
	u64 index = mul_u64_u64_shr(h, f->geo.nblocks, 64);

	return f->words + index * KBLOOM_BLOCK_WORDS;
}

/* The double-hashing sequence x_i = g1 + i * g2 of one key. */
struct kbloom_probe {
	u64 x;
	u64 step;
};

static void probe_start(u64 h, struct kbloom_probe *p)
{
	p->x = (h ^ (h >> 32)) * KBLOOM_MIX_G1;
	p->step = (h * KBLOOM_MIX_G2) | 1;
}

static u32 probe_next(struct kbloom_probe *p)
{
	u32 cell = ((p->x ^ (p->x >> 32)) * KBLOOM_MIX_CELL) >>
		   KBLOOM_CELL_SHIFT;

	p->x += p->step;
	return cell;
}

/* Atomically ORs mask into *word; returns true if that set a new bit. */
static bool word_or(u64 *word, u64 mask)
{
	u64 old = READ_ONCE(*word);

	/* Setting nothing new must not dirty a line other CPUs read. */
	do {
		if ((old & mask) == mask)
			return false;
	} while (!try_cmpxchg(word, &old, old | mask));
	return true;
}

/*
 * One atomic per cell that is still clear: a cell already set (most of
 * them, once the filter fills) costs only a load.
 */
static bool probe_add(const struct kbloom_filter *f, u64 h)
{
	u64 *block = block_of(f, h);
	struct kbloom_probe p;
	bool set_new = false;
	u32 i;

	probe_start(h, &p);
	for (i = 0; i < f->geo.k; i++) {
		u32 cell = probe_next(&p);

		if (word_or(&block[cell / 64], 1ULL << (cell % 64)))
			set_new = true;
	}
	return set_new;
}

/* Most checks are of absent keys: stop at the first clear cell. */
static bool probe_check(const struct kbloom_filter *f, u64 h)
{
	const u64 *block = block_of(f, h);
	struct kbloom_probe p;
	u32 i;

	probe_start(h, &p);
	for (i = 0; i < f->geo.k; i++) {
		u32 cell = probe_next(&p);

		if (!(READ_ONCE(block[cell / 64]) & (1ULL << (cell % 64))))
			return false;
	}
	return true;
}

int kbloom_filter_init(struct kbloom_filter *f,
		       const struct kbloom_geometry *geo)
{
	size_t bytes;
	int ret;

	memset(f, 0, sizeof(*f));
	ret = kbloom_geometry_validate(geo);
	if (ret)
		return ret;
	/* At most 2^37 + 63 bytes after validation. */
	bytes = kbloom_geometry_bytes(geo) + KBLOOM_BLOCK_BYTES - 1;
	/* kvzalloc refuses sizes over INT_MAX; vmalloc does not. */
	if (bytes <= INT_MAX)
		f->alloc = kvzalloc(bytes, GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	else
		f->alloc = __vmalloc(bytes, GFP_KERNEL_ACCOUNT | __GFP_NOWARN |
				     __GFP_ZERO);
	if (!f->alloc)
		return -ENOMEM;
	f->words = PTR_ALIGN((u64 *)f->alloc, KBLOOM_BLOCK_BYTES);
	f->geo = *geo;
	return 0;
}

void kbloom_filter_free(struct kbloom_filter *f)
{
	kvfree(f->alloc);
	f->alloc = NULL;
	f->words = NULL;
}

u64 kbloom_hash(const struct kbloom_filter *f, const void *key, u32 len)
{
	return xxh64(key, len, f->geo.seed);
}

bool kbloom_add(struct kbloom_filter *f, const void *key, u32 len)
{
	bool set_new = probe_add(f, kbloom_hash(f, key, len));

	atomic64_inc(&f->add_calls);
	if (set_new)
		atomic64_inc(&f->add_new);
	return set_new;
}

bool kbloom_check(struct kbloom_filter *f, const void *key, u32 len)
{
	bool maybe = probe_check(f, kbloom_hash(f, key, len));

	atomic64_inc(&f->check_calls);
	if (maybe)
		atomic64_inc(&f->check_hits);
	return maybe;
}

/*
 * Hashing a window of keys and prefetching their blocks before probing the
 * first turns n dependent cache misses into overlapped ones.
 */
static u32 batch_probe(struct kbloom_filter *f, const struct kbloom_key *keys,
		       u32 n, unsigned long *results, bool add)
{
	u64 hashes[KBLOOM_BATCH_AHEAD];
	u32 done, i, hits = 0;

	if (results)
		bitmap_zero(results, n);
	for (done = 0; done < n; done += KBLOOM_BATCH_AHEAD) {
		u32 window = min_t(u32, n - done, KBLOOM_BATCH_AHEAD);

		for (i = 0; i < window; i++) {
			const struct kbloom_key *key = &keys[done + i];

			hashes[i] = kbloom_hash(f, key->data, key->len);
			prefetch(block_of(f, hashes[i]));
		}
		for (i = 0; i < window; i++) {
			bool hit = add ? probe_add(f, hashes[i]) :
					 probe_check(f, hashes[i]);

			if (!hit)
				continue;
			hits++;
			if (results)
				__set_bit(done + i, results);
		}
	}
	return hits;
}

u32 kbloom_add_batch(struct kbloom_filter *f, const struct kbloom_key *keys,
		     u32 n, unsigned long *results)
{
	u32 hits = batch_probe(f, keys, n, results, true);

	atomic64_add(n, &f->add_calls);
	atomic64_add(hits, &f->add_new);
	return hits;
}

u32 kbloom_check_batch(struct kbloom_filter *f, const struct kbloom_key *keys,
		       u32 n, unsigned long *results)
{
	u32 hits = batch_probe(f, keys, n, results, false);

	atomic64_add(n, &f->check_calls);
	atomic64_add(hits, &f->check_hits);
	return hits;
}

void kbloom_clear(struct kbloom_filter *f)
{
	u64 b;

	for (b = 0; b < f->geo.nblocks; b += KBLOOM_RESCHED_BLOCKS) {
		u64 blocks = min_t(u64, f->geo.nblocks - b,
				   KBLOOM_RESCHED_BLOCKS);

		memset(f->words + b * KBLOOM_BLOCK_WORDS, 0,
		       blocks * KBLOOM_BLOCK_BYTES);
		cond_resched();
	}
	atomic64_set(&f->add_calls, 0);
	atomic64_set(&f->add_new, 0);
	atomic64_set(&f->check_calls, 0);
	atomic64_set(&f->check_hits, 0);
}

bool kbloom_compatible(const struct kbloom_filter *a,
		       const struct kbloom_filter *b)
{
	return a->geo.nblocks == b->geo.nblocks && a->geo.k == b->geo.k &&
	       a->geo.seed == b->geo.seed && a->geo.type == b->geo.type;
}

/*
 * Both combine word by word with atomic updates, so adds racing a merge or
 * an intersect on dst are never lost.
 */
static void combine(struct kbloom_filter *dst, const struct kbloom_filter *src,
		    bool keep_common)
{
	u64 words = dst->geo.nblocks * KBLOOM_BLOCK_WORDS, i;

	for (i = 0; i < words; i++) {
		u64 other = READ_ONCE(src->words[i]);
		u64 *word = &dst->words[i];
		u64 old = READ_ONCE(*word);

		if (keep_common) {
			while ((old & other) != old &&
			       !try_cmpxchg(word, &old, old & other))
				;
		} else {
			word_or(word, other);
		}
		if (!((i + 1) % (KBLOOM_RESCHED_BLOCKS * KBLOOM_BLOCK_WORDS)))
			cond_resched();
	}
}

int kbloom_merge(struct kbloom_filter *dst, const struct kbloom_filter *src)
{
	if (!kbloom_compatible(dst, src))
		return -EXDEV;
	if (dst == src)
		return 0;
	combine(dst, src, false);
	/* The union holds every key submitted to either side. */
	atomic64_add(atomic64_read(&src->add_calls), &dst->add_calls);
	atomic64_add(atomic64_read(&src->add_new), &dst->add_new);
	return 0;
}

int kbloom_intersect(struct kbloom_filter *dst,
		     const struct kbloom_filter *src)
{
	if (!kbloom_compatible(dst, src))
		return -EXDEV;
	if (dst != src)
		combine(dst, src, true);
	return 0;
}
