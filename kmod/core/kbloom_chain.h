/* SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later */
/*
 * Scalable filters: a chain of sub-filters that grows for users who cannot
 * know their key count (Almeida, Baquero, Preguica and Hutchison,
 * "Scalable Bloom Filters", 2007).  Sub-filter i is an ordinary core
 * filter (kbloom_core.h) of the chain's type, designed for
 * capacity * expansion^i keys at a rate of fp / ((i + 1) * (i + 2)), with
 * a seed of its own.  A key is added to the newest sub-filter unless one
 * of the chain already holds it; a check answers "maybe" when any
 * sub-filter does.  When the newest has taken its capacity of new keys,
 * the caller grows the chain by one sub-filter (kbloom_chain_grow()).
 *
 * The bound: while every sub-filter holds at most its capacity, the
 * chain's false-positive rate is at most fp, however many sub-filters it
 * has.  kbloom_chain.c proves it.
 *
 * A sub-filter never takes more than its capacity of new keys: an add of
 * a new key reserves its place in the newest's count before it writes a
 * cell, so adders racing each other cannot pass the capacity together,
 * and one that finds the chain full fails with -EAGAIN and changes
 * nothing; the caller grows the chain (or has it grown) and adds again.
 * Only the newest sub-filter takes new keys: growth seals it before the
 * next one is published (kbloom_chain_grow_publish()).
 *
 * Concurrency: as the core's.  Adds, lookups and checks run lock-free
 * beside one grower (the caller serialises growers, and growth against
 * free); a reader sees the sub-filters published before it began, and a
 * key whose add completed before a check began is found, because the
 * sub-filter it went to stays in the chain.
 */
#ifndef KBLOOM_CHAIN_H
#define KBLOOM_CHAIN_H

#include "kbloom_core.h"

#ifdef __KERNEL__
#include <linux/rcupdate.h>
#endif

/*
 * expansion, each sub-filter's capacity over the one before, is
 * KBLOOM_EXPANSION_MIN to _MAX (uapi).  Sub-filters of a chain at most:
 * with expansion 1, 1024 times the first capacity (a check then probes up
 * to 1024 blocks).  Larger expansions end sooner, where
 * capacity * expansion^i would pass 2^64 - 1.
 */
#define KBLOOM_CHAIN_MAX_SUBS		KBLOOM_SUBFILTERS_MAX

struct kbloom_chain_params {
	u64 capacity;		/* sub-filter 0's keys, >= 1 */
	u64 seed;		/* sub-filter 0's; the others derive theirs */
	u32 type;		/* KBLOOM_TYPE_BITS or KBLOOM_TYPE_COUNTING */
	u32 fp_ppb;		/* the whole chain's bound, 1 .. PPB - 1 */
	u32 expansion;		/* KBLOOM_EXPANSION_MIN .. _MAX */
};

/* 0, or -EINVAL for a type, rate, capacity or expansion out of range. */
int kbloom_chain_params_validate(const struct kbloom_chain_params *cp);
/*
 * How many sub-filters the schedule of cp can have: up to
 * KBLOOM_CHAIN_MAX_SUBS, fewer where a capacity would overflow u64.  The
 * memory caps and the core's KBLOOM_MAX_BLOCKS may end it sooner
 * (kbloom_chain_sub_geometry() says -E2BIG there).
 */
u32 kbloom_chain_max_subs(const struct kbloom_chain_params *cp);
/* Sub-filter index's design rate in ppb << 16: fp << 16 / ((i+1)(i+2)). */
u64 kbloom_chain_sub_target_ppb16(u32 fp_ppb, u32 index);
/* Sub-filter index's seed: seed itself for 0, a bijective mix else. */
u64 kbloom_chain_sub_seed(u64 seed, u32 index);
/*
 * Sub-filter index's geometry: its capacity, rate and seed by the
 * schedule.  -EINVAL for bad params; -E2BIG past the schedule's end
 * (index >= kbloom_chain_max_subs()) or when the core cannot build the
 * sub-filter (over KBLOOM_MAX_BLOCKS, or a rate no k reaches).
 */
int kbloom_chain_sub_geometry(struct kbloom_geometry *geo,
			      const struct kbloom_chain_params *cp, u32 index);

/*
 * The exact model of a chain's rate, a sub-filter at a time: start from
 * KBLOOM_CHAIN_PASS_ONE, the chance 1 (scaled by 2^62) that an absent key
 * passes no sub-filter, and fold in each sub-filter with the keys it
 * holds; kbloom_chain_rate_ppb16() turns what is left into the rate, in
 * ppb << 16.  Sub-filters have seeds of their own, so a query's answers
 * from them are independent and the chain's rate is 1 - prod(1 - f_i).
 */
#define KBLOOM_CHAIN_PASS_ONE		BIT_ULL(62)
u64 kbloom_chain_pass62(u64 pass62, const struct kbloom_geometry *geo,
			u64 keys);
u64 kbloom_chain_rate_ppb16(u64 pass62);

/*
 * The chain of cp holding n keys, its sub-filters filled in order (all
 * full but the newest, and at least sub-filter 0): how many sub-filters,
 * their bytes, and the exact model's rate then, in ppb << 16.  0, or
 * kbloom_chain_sub_geometry()'s errors where it cannot grow that far.
 * It sizes every sub-filter: process context.
 */
int kbloom_chain_plan(const struct kbloom_chain_params *cp, u64 n,
		      u32 *subs, u64 *bytes, u64 *rate_ppb16);

struct kbloom_chain_sub {
	struct kbloom_filter f;
	/*
	 * Keys this sub-filter took that set a new cell: its load.  An add
	 * reserves its place here first and gives it back when it set no
	 * cell, so it never passes the capacity but by a merge.
	 */
	atomic64_t keys;
	/* No longer the newest: takes no new key (set before the next is). */
	bool sealed;
	/* The next of a list kbloom_chain_detach() returned. */
	struct kbloom_chain_sub *retired;
};

struct kbloom_chain {
	struct kbloom_chain_params params;
	/*
	 * kbloom_chain_max_subs() slots, the first nsubs in use, oldest
	 * first.  The rules of the array, for every layer:
	 * - growth builds a sub-filter, then publishes its slot
	 *   (rcu_assign_pointer()), then the count that covers it (a
	 *   release); readers load the count (kbloom_chain_subs(), an
	 *   acquire) and each slot through kbloom_chain_sub(), whose
	 *   dependency order pairs with the slot's publication: a reader
	 *   that loaded a count before a CLEAR and reads a slot regrown
	 *   since sees the new sub-filter whole;
	 * - one grower at a time, and none during clear, truncate, merge or
	 *   free: the caller's lock (the module's grow_lock, and kd->lock
	 *   exclusive for clear and loads);
	 * - a sub-filter that clear or truncate detaches stays whole until
	 *   the caller frees it, after every reader that may hold it is
	 *   gone (the module: synchronize_rcu(), then stats_cache.lock);
	 * - readers hold rcu_read_lock() (the in-kernel API, kfuncs, the
	 *   mapping's fault), or what keeps clear out (the ioctls kd->lock
	 *   shared, statistics walks stats_cache.lock), or have the chain
	 *   to themselves (userspace); the module asserts which where it
	 *   can (kbloom_scalable.c).
	 */
	struct kbloom_chain_sub __rcu **subs;
	/* published with a release, after the sub-filter it counts */
	u32 nsubs;
#ifndef __KERNEL__
	/* adds in flight, for growth's wait (the kernel waits on RCU) */
	long adders;
#endif
};

/*
 * init builds sub-filter 0; grow adds the next one, or says -E2BIG at the
 * schedule's end (kbloom_chain_sub_geometry()) and -ENOMEM, and then
 * changes nothing.  Both allocate and may sleep: process context.  free
 * takes the chain from a caller that made sure no one else uses it.
 */
int kbloom_chain_init(struct kbloom_chain *c,
		      const struct kbloom_chain_params *cp);
int kbloom_chain_grow(struct kbloom_chain *c);
/*
 * grow in two halves, for a caller that must announce the next sub-filter
 * before any add can reach it (a mapping's table): prepare builds it into
 * the slot c->nsubs (the same errors as grow), unseen by readers of the
 * count; publish then makes it the newest.  The caller keeps other
 * growers out between them; a failed prepare needs no undo.
 */
int kbloom_chain_grow_prepare(struct kbloom_chain *c);
void kbloom_chain_grow_publish(struct kbloom_chain *c);
void kbloom_chain_free(struct kbloom_chain *c);
/*
 * Memory, counted as kbloom_filter_held() counts it: what init allocates
 * besides sub-filter 0 (the slots), and what each sub-filter of geometry
 * geo takes (its struct and its filter).
 */
u64 kbloom_chain_held(const struct kbloom_chain_params *cp);
u64 kbloom_chain_sub_held(const struct kbloom_geometry *geo);

/*
 * Sub-filter i, below a count the caller loaded, under one of the
 * protections the array's rules name (kbloom_chain): raw, as the core
 * cannot know which its caller holds.
 */
static __always_inline struct kbloom_chain_sub *
kbloom_chain_sub(const struct kbloom_chain *c, u32 i)
{
	return rcu_dereference_raw(c->subs[i]);
}

/* The sub-filters now in the chain (at least 1 after init). */
static inline u32 kbloom_chain_subs(const struct kbloom_chain *c)
{
	/* Pairs with the release that publishes a grown sub-filter. */
	return smp_load_acquire(&c->nsubs);
}

/* The newest sub-filter has taken its capacity: time to grow. */
bool kbloom_chain_full(const struct kbloom_chain *c);

/*
 * add returns 1 when the key was new to the chain: no sub-filter held it,
 * and it set a cell of the newest (counted there); 0 when the chain
 * already answered "maybe" for it; -EAGAIN when it is new and the newest
 * sub-filter is full (kbloom_chain_full()): nothing changed.  A key's
 * home is the oldest sub-filter that answers "maybe" for it (where it
 * went, or where it was a false positive when it came): a counting
 * chain's add of a known key counts it once more there, and delete takes
 * it from there, so every add is undone by one delete, as in a counting
 * filter, and no other key's counters are touched; delete returns what
 * the core's does (false for a bits chain, which has nothing to take).
 * A delete does not give back capacity: the count of new keys stays.
 * After a merge a key's home can be an older sub-filter that the merged
 * keys made answer "maybe" for it, with a chance at most the chain's rate.
 * lookup counts nothing; its batch form sets bit i of results (n bits,
 * zeroed here) for key i, as the core's does.  Any context the core's
 * calls allow.
 */
int kbloom_chain_add(struct kbloom_chain *c, const void *key, u32 len);
bool kbloom_chain_delete(struct kbloom_chain *c, const void *key, u32 len);
bool kbloom_chain_lookup(const struct kbloom_chain *c, const void *key,
			 u32 len);
u32 kbloom_chain_lookup_batch(const struct kbloom_chain *c,
			      const struct kbloom_key *keys, u32 n,
			      unsigned long *results);

/* The rate the exact model gives for the keys the sub-filters hold now. */
u64 kbloom_chain_model_ppb16(const struct kbloom_chain *c);
/* Memory of all sub-filters' cells, in bytes. */
u64 kbloom_chain_bytes(const struct kbloom_chain *c);

/*
 * clear takes the chain back to sub-filter 0 alone, emptied, the others
 * freed.  The caller serialises it against everything else on the chain,
 * readers included, since it frees what they read.
 *
 * Two chains are compatible when their parameters (kbloom_chain_params,
 * seed included) are equal: their sub-filters of one index then have one
 * geometry.  merge ORs each of src's sub-filters into dst's of the same
 * index, growing dst first to as many as src has, and adds their key
 * counts: every key of src is then found in dst.  A counting chain takes
 * no merge (-EOPNOTSUPP, before any other check: merge_supported says
 * it): src's keys would land in dst's older sub-filters, which could then
 * answer "maybe" for keys of dst's newer ones and move their homes, so a
 * delete would take from other keys' counters (false negatives).  A
 * sub-filter may then hold more than its capacity, and the chain's rate
 * is the model's for what it holds (kbloom_chain_model_ppb16()), no longer
 * the bound.  -EXDEV for chains that are not compatible, and the growth's
 * errors (dst keeps the empty sub-filters it grew; its keys and answers
 * are as before).  The caller serialises merges into dst against clear,
 * free and other growers; adds and checks run on.  Process context.
 * There is no intersect: a key's sub-filter is the one that was newest
 * when it came to that chain, so two chains hold a common key in
 * sub-filters of different indexes, and intersecting them index by index
 * would lose it.
 */
void kbloom_chain_clear(struct kbloom_chain *c);
/*
 * clear in two halves, for callers whose readers hold no lock (RCU):
 * detach takes the chain back to sub-filter 0, its cells untouched, and
 * returns the others linked by their retired field (NULL if none), with
 * walks_stop set, so a walk of their cells ends at its next chunk.  Their
 * slots keep pointing at them until the chain grows over them, so a
 * reader that loaded the old count still reads valid sub-filters; the
 * caller frees the list with kbloom_chain_free_subs() once no reader can
 * hold it.
 */
struct kbloom_chain_sub *kbloom_chain_detach(struct kbloom_chain *c);
/* detach down to the first subs (at least 1) sub-filters. */
struct kbloom_chain_sub *kbloom_chain_truncate(struct kbloom_chain *c,
					       u32 subs);
void kbloom_chain_free_subs(struct kbloom_chain_sub *list);
int kbloom_chain_merge_supported(const struct kbloom_chain *c);
bool kbloom_chain_compatible(const struct kbloom_chain *a,
			     const struct kbloom_chain *b);
int kbloom_chain_merge(struct kbloom_chain *dst,
		       const struct kbloom_chain *src);
/*
 * merge of src's first n sub-filters into a dst that has them already
 * (a caller that grows dst itself, within its caps and with its mapping
 * told: src may grow meanwhile, and merge would grow dst past them).
 */
int kbloom_chain_merge_subs(struct kbloom_chain *dst,
			    const struct kbloom_chain *src, u32 n);

/*
 * Sub-filter index's statistics, index below kbloom_chain_subs(): its
 * design, the new keys it took, and from a walk of its cells (or cells,
 * a walk already made) their fill, the keys they suggest and the rate
 * they give a query now.  The chain's rate now combines those of its
 * sub-filters, 1 - prod(1 - fp_now).  The walks may sleep
 * (kbloom_scan_cells()): process context.
 */
struct kbloom_chain_sub_stats {
	u64 capacity;
	u64 keys;
	u64 nblocks;
	u64 seed;
	u64 bits_set;
	u64 est_keys;
	u64 bytes;
	u32 fill_ppb;
	u32 fp_now_ppb;
	u32 fp_target_ppb;	/* rounded up to whole ppb */
	u32 k;
};

void kbloom_chain_sub_stats(const struct kbloom_chain *c, u32 index,
			    const struct kbloom_cell_stats *cells,
			    struct kbloom_chain_sub_stats *st);
/*
 * The walk of the chain's cells those combine: each sub-filter's into
 * sub[i] (when sub is not NULL; room for kbloom_chain_subs()), and the
 * whole chain's into *total (cells set and keys suggested summed, their
 * fill over all cells, the rate now).  Returns the sub-filters walked.
 */
u32 kbloom_chain_scan(const struct kbloom_chain *c,
		      struct kbloom_cell_stats *sub,
		      struct kbloom_cell_stats *total);
u32 kbloom_chain_fp_now_ppb(const struct kbloom_chain *c);

/*
 * The chain's image, version 4 (kbloom_chain_image.c).  start snapshots
 * the header for the sub-filters present now, with the whole filter's
 * counts (a chain keeps none of its own); emit then streams as
 * kbloom_image_emit() does, the caller keeping those sub-filters (and no
 * more) alive.  check_header judges the header, window and chain parts
 * (KBLOOM_CHAIN_IMAGE_HEAD bytes; -ENODATA for fewer once magic, version
 * and parameters passed) against c: 0 with the image's sub-filters and
 * length, or an image errno (-EXDEV for a version 3 image).
 * validate judges a whole image; it may size sub-filters past c's
 * present ones (process context).  apply takes a validated image into a
 * chain the caller grew or truncated to its sub-filters, rewriting each
 * one's cells under its stripes, setting its keys, and hands back the
 * image's whole-filter counts.  The caller serialises apply as it does
 * clear; adds and checks may run on, and a racing add lands wholly before
 * or after the rewrite of its block.
 */
#define KBLOOM_CHAIN_IMAGE_HEAD	(sizeof(struct kbloom_image_header) + \
				 sizeof(struct kbloom_image_window) + \
				 sizeof(struct kbloom_image_chain))
u64 kbloom_chain_image_bytes(const struct kbloom_chain *c, u32 subs);
void kbloom_chain_image_start(const struct kbloom_chain *c,
			      const struct kbloom_counts *counts,
			      struct kbloom_image_cursor *cur);
size_t kbloom_chain_image_emit(const struct kbloom_chain *c,
			       struct kbloom_image_cursor *cur, void *buf,
			       size_t len);
int kbloom_chain_image_check_header(const struct kbloom_chain *c,
				    const void *img, size_t len, u32 *subs,
				    u64 *bytes);
int kbloom_chain_image_validate(const struct kbloom_chain *c,
				const void *img, size_t len, u32 *subs);
void kbloom_chain_image_apply(struct kbloom_chain *c, const void *img,
			      struct kbloom_counts *counts);

#endif /* KBLOOM_CHAIN_H */
