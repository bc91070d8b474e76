/* SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later */
/*
 * The filter core: a blocked Bloom filter with one 64-byte, cache-line
 * aligned block per key.  Plain C with no device code, so the same source
 * builds into the module, the KUnit suite, the host tests and the benchmark
 * (userspace gets kernel types from kmod/core/kbloom_kernel_shim.h).
 *
 * A block holds 512 one-bit cells (KBLOOM_TYPE_BITS) or 128 four-bit
 * counters (KBLOOM_TYPE_COUNTING); everything else, hashing and probing
 * included, is the same code for both, parameterised by the cell width.
 *
 * Concurrency: checks are lock-free (aligned 64-bit loads).  Writers of
 * one block (add, delete, merge, intersect) serialise on the spinlock of
 * its stripe and change cells with plain aligned 64-bit stores, which is
 * what concurrent readers, in the kernel or through a mapping, see: a word
 * before or after a writer's store, never a torn one.  In the kernel the
 * writers hold it with bottom halves off, because other modules and BPF
 * programs add from softirq context (kbloom_kapi.c): an XDP program adding
 * on a CPU whose process context held the stripe would spin forever.  A
 * batch turns them off once, not per key.  On PREEMPT_RT both the lock
 * and bottom halves off are sleeping locks, so writers must be able to
 * block (kbloom_kapi.c says who may add there).  A key whose add
 * completed before a check began is always found, unless a delete of it
 * (or of a key never added) ran meanwhile.  clear, merge, intersect and
 * image load must be serialised against each other by the caller.  They
 * rewrite each block under its stripe (kbloom_rewrite()), so an add or
 * delete racing them lands wholly before or wholly after the rewrite of
 * its block: adds racing a merge or an intersect are kept; after a clear
 * returns, only keys whose add raced it may be found; after an image load
 * returns, every key of the image is found, and an add that raced it may
 * or may not be.  clear, merge, intersect, image load and get_stats walk
 * the whole filter and may sleep (cond_resched): call them from process
 * context, never under a spinlock.
 */
#ifndef KBLOOM_CORE_H
#define KBLOOM_CORE_H

#ifdef __KERNEL__
#include <linux/bits.h>
#include <linux/types.h>
#include <linux/atomic.h>
#include <linux/cache.h>
#include <linux/spinlock.h>
#include <uapi/linux/kbloom.h>
/* struct kbloom_key is the in-kernel API's (other modules pass it in). */
#include <linux/kbloom_api.h>
#include "kbloom_core_compat.h"
#else
#include "kbloom_kernel_shim.h"
#include "../../include/uapi/linux/kbloom.h"

struct kbloom_key {
	const void *data;
	u32 len;
};
#endif

#define KBLOOM_BLOCK_BITS	512
#define KBLOOM_BLOCK_BYTES	64
#define KBLOOM_BLOCK_WORDS	8
#define KBLOOM_K_MIN		1
/*
 * Hard limits of the core; the module caps memory further by parameter.
 * At most 2^31 blocks (128 GiB of cells), and no more than size_t counts
 * with room to spare: the cells' size, page-rounded, and an image's
 * (cells, headers and CRC) are handed to vmalloc() and the image buffers
 * as size_t, and on a 32-bit kernel a u64 size narrowed to it would
 * allocate too little for what adds and loads then write.  There the
 * bound is 1 MiB short of 4 GiB of cells.  The compiler's own macro
 * decides: the kernel's SIZE_MAX is a cast, which #if cannot evaluate.
 */
#if __SIZEOF_SIZE_T__ > 4
#define KBLOOM_MAX_BLOCKS	BIT_ULL(31)
#else
#define KBLOOM_MAX_BLOCKS	((BIT_ULL(32) - BIT_ULL(20)) / KBLOOM_BLOCK_BYTES)
#endif
#define KBLOOM_MIN_FP_PPB	1

/* log2 of the bits of one cell: 0 for KBLOOM_TYPE_BITS, 2 for counters. */
#define KBLOOM_BITS_CELL_ORDER		0
#define KBLOOM_COUNTER_CELL_ORDER	2

static inline u32 kbloom_cell_order(u32 type)
{
	return type == KBLOOM_TYPE_COUNTING ? KBLOOM_COUNTER_CELL_ORDER :
					      KBLOOM_BITS_CELL_ORDER;
}

/*
 * log2 of the cells of a 64-byte block: 9 (512 bits) or 7 (128 counters).
 * A window's cells are masks of 2^plane_order bits, and its key block of
 * 2^plane_order lines holds 512 of them: per 64-byte block that is
 * 512 >> plane_order cells, which kbloom_geometry.plane_order gives.
 */
static inline u32 kbloom_cells_order(u32 type)
{
	return 9 - kbloom_cell_order(type);
}

/* Window planes per cell, 2^order: the least power of two above g. */
static inline u32 kbloom_plane_order(u32 generations)
{
	u32 order = 0;

	while ((1U << order) < generations + 1)
		order++;
	return order;
}

static inline u32 kbloom_block_cells(u32 type)
{
	return 1U << kbloom_cells_order(type);
}

struct kbloom_geometry {
	u64 nblocks;		/* 64-byte blocks, >= 1 */
	u64 capacity;		/* design keys, 0 when unknown */
	u64 seed;		/* xxh64 seed */
	u32 k;			/* probes per key, 1..KBLOOM_K_MAX */
	u32 type;		/* KBLOOM_TYPE_* */
	u32 fp_target_ppb;	/* what the creator asked for, 0 if nothing */
	/*
	 * Windows: g, and log2 of the planes of a cell (kbloom_plane_order),
	 * so a key block is 2^plane_order of the nblocks 64-byte blocks and
	 * nblocks is a multiple of it.  capacity counts the keys of g - 1
	 * generations.  Both 0 for the other types.
	 */
	u32 generations;
	u32 plane_order;
};

/* What the filter has been asked to do, and how often it said yes. */
struct kbloom_counts {
	u64 add_calls;
	u64 add_new;
	u64 check_calls;
	u64 check_hits;
	u64 delete_calls;
	u64 delete_hits;
};

struct kbloom_filter;

/*
 * A window filter's rotation state.  Planes 0 .. g (g + 1 of them; any
 * further planes of a cell are never set) take turns: cur is where adds go,
 * the g planes of ages 0 .. g - 1 (cur, cur - 1, ... modulo g + 1) are
 * live, and the one left, the spare, is empty or being emptied.
 */
struct kbloom_window {
	u64 live;		/* planes a check consults; bit i: plane i */
	u64 *live_mirror;	/* kept equal to live (a mapping's), or NULL */
	u32 cur;		/* the plane adds go to */
	u32 planes;		/* g + 1 */
	u64 rotations;		/* since create or the image loaded */
	/*
	 * Rotations by count: when an add takes the count of cur to every or
	 * past it, due(f) is called, once per plane, from the adder's
	 * context (any but NMI, possibly with bottom halves off): it must
	 * only schedule the rotation.  every 0 or due NULL: never.
	 */
	u64 every;
	void (*due)(struct kbloom_filter *f);
	/*
	 * Each plane's count of keys added, in the low 48 bits (it stops at
	 * KBLOOM_PLANE_ADDS_MAX), and in the high 16 which time the plane
	 * holds keys since the filter began: its epoch, one more each time
	 * the plane is emptied (retired, cleared, loaded).  A batch counts
	 * its keys after adding them, one atomic add per run of keys in a
	 * plane; a run counted after its plane was emptied belongs to keys
	 * that are gone, and the epoch lets kbloom_window_count() drop it
	 * instead of charging the plane's next keys with it.  epoch[] is the
	 * same number, read by every add beside cur, in lines that only
	 * rotations, clears and loads write, apart from the counts' lines
	 * that adds on every CPU write.  Use kbloom_window_adds().
	 */
	u16 epoch[KBLOOM_IMAGE_PLANES];
	atomic64_t plane_count[KBLOOM_IMAGE_PLANES] ____cacheline_aligned_in_smp;
};

#define KBLOOM_PLANE_EPOCH_SHIFT	48
#define KBLOOM_PLANE_ADDS_MAX		((1ULL << KBLOOM_PLANE_EPOCH_SHIFT) - 1)

/*
 * Where a window's add went: the plane cur was, and its epoch then (both
 * read under the block's stripe lock, which an emptying of that plane
 * must take first).
 */
struct kbloom_plane_ref {
	u32 plane;
	u16 epoch;
};

/* Keys added to a window's plane since it was last emptied. */
static inline u64 kbloom_window_adds(const struct kbloom_window *w, u32 plane)
{
	return (u64)atomic64_read(&w->plane_count[plane]) &
	       KBLOOM_PLANE_ADDS_MAX;
}

/*
 * The counts are per CPU: a shared counter would put a locked, serialising
 * instruction on every single-key operation and bounce its cache line
 * between CPUs.  Each CPU adds to its own copy; readers sum them.
 */
struct kbloom_filter {
	struct kbloom_geometry geo;
	u64 *words;		/* nblocks * 8 words, page-aligned */
	/*
	 * Set (WRITE_ONCE) by an owner giving the filter up: a walk of the
	 * statistics in progress stops at its next chunk, its results
	 * unused, rather than keep the owner waiting for it.
	 */
	bool walks_stop;
	/*
	 * Block b's writers hold stripes[b % KBLOOM_WRITE_STRIPES].lock: one
	 * locked instruction per key instead of a compare-and-swap per
	 * probe, which cost adds 2.3 to 4.5 times a check (a 2-vCPU AMD
	 * EPYC VM; be2a598, 2026-12-01).  Not one lock per filter: with it,
	 * two threads of single adds on one filter made half the throughput
	 * of one (the lock's line moved between CPUs on every key).  Never
	 * held across a sleep.
	 */
	struct kbloom_stripe *stripes;
	struct kbloom_counts __percpu *counts;
	struct kbloom_window win;	/* KBLOOM_TYPE_WINDOW only */
};

/* A power of two; a cache line each, so writers on two CPUs rarely meet. */
#define KBLOOM_WRITE_STRIPES	64

struct kbloom_stripe {
	spinlock_t lock;	/* the cells of blocks b % 64 == this index */
	/* The last single add here set a new bit; under lock. */
	bool adds_new;
} ____cacheline_aligned_in_smp;

struct kbloom_stats {
	u64 add_calls;
	u64 add_new;
	u64 check_calls;
	u64 check_hits;
	u64 delete_calls;
	u64 delete_hits;
	u64 bits_set;		/* cells non-zero: bits set, counters > 0 */
	u64 est_keys;		/* distinct keys estimated from block fill */
	u32 fill_ppb;		/* bits_set / cells */
	u32 fp_now_ppb;		/* mean over blocks of P(all k probes set),
				 * (x/cells)^k for a block with x cells set
				 */
	u32 fp_design_ppb;	/* formula rate at capacity (0: no capacity) */
	u32 saturated;		/* add_new - delete_hits over capacity, or
				 * fp_now above target
				 */
};

/*
 * Geometry of a filter of a given type.  Each returns 0 or a negative
 * errno: -EINVAL for parameters or a type out of range, -E2BIG when the
 * filter would exceed KBLOOM_MAX_BLOCKS.  *geo gets the type; its seed is
 * left to the caller (zeroed here).  bits and bits_per_key count memory, so
 * a counting filter has a quarter as many cells as a bits filter of the
 * same bits.  A k of 0 means the best k for capacity keys (for 10 cells per
 * key when capacity is 0).  from_rate picks k and the fewest blocks meeting
 * fp_ppb at capacity * (1 + 1/128) keys: the slack puts measured rates at
 * capacity under the target, for under 0.8 % more memory.
 */
int kbloom_geometry_from_rate_type(struct kbloom_geometry *geo, u32 type,
				   u64 capacity, u32 fp_ppb);
int kbloom_geometry_from_bits_type(struct kbloom_geometry *geo, u32 type,
				   u64 bits, u32 k, u64 capacity);
int kbloom_geometry_from_bits_per_key_type(struct kbloom_geometry *geo,
					   u32 type, u64 capacity,
					   u32 bits_per_key, u32 k);
/*
 * The same for any type with its generations (0 but for windows, where
 * 2..KBLOOM_GENERATIONS_MAX; -EINVAL otherwise).  A window's capacity is
 * the keys of g - 1 generations, its rate the window's when g live
 * generations hold capacity / (g - 1) keys each, and its bits all of its
 * memory, spare plane included; nblocks comes out a multiple of the key
 * block, 2^plane_order.
 */
int kbloom_geometry_from_rate_gen(struct kbloom_geometry *geo, u32 type,
				  u32 generations, u64 capacity, u32 fp_ppb);
int kbloom_geometry_from_bits_gen(struct kbloom_geometry *geo, u32 type,
				  u32 generations, u64 bits, u32 k,
				  u64 capacity);
int kbloom_geometry_from_bits_per_key_gen(struct kbloom_geometry *geo,
					  u32 type, u32 generations,
					  u64 capacity, u32 bits_per_key,
					  u32 k);

/* The same for KBLOOM_TYPE_BITS, the type that takes no asking for. */
static inline int kbloom_geometry_from_rate(struct kbloom_geometry *geo,
					    u64 capacity, u32 fp_ppb)
{
	return kbloom_geometry_from_rate_type(geo, KBLOOM_TYPE_BITS, capacity,
					      fp_ppb);
}

static inline int kbloom_geometry_from_bits(struct kbloom_geometry *geo,
					    u64 bits, u32 k, u64 capacity)
{
	return kbloom_geometry_from_bits_type(geo, KBLOOM_TYPE_BITS, bits, k,
					      capacity);
}

static inline int
kbloom_geometry_from_bits_per_key(struct kbloom_geometry *geo, u64 capacity,
				  u32 bits_per_key, u32 k)
{
	return kbloom_geometry_from_bits_per_key_type(geo, KBLOOM_TYPE_BITS,
						      capacity, bits_per_key,
						      k);
}

int kbloom_geometry_validate(const struct kbloom_geometry *geo);

/*
 * The geometry a mapping's header page shows (kbloom_mmap.c writes it),
 * for a reader that runs the core on the mapped cells; validate it before
 * use.  A mapping does not carry the target rate: 0.
 */
static inline void kbloom_geometry_of_map(struct kbloom_geometry *geo,
					  const struct kbloom_map_header *hdr)
{
	*geo = (struct kbloom_geometry){
		.nblocks = hdr->nblocks,
		.capacity = hdr->capacity,
		.seed = hdr->seed,
		.k = hdr->k,
		.type = hdr->type,
		.generations = hdr->generations,
		.plane_order = hdr->plane_order,
	};
}

/*
 * Blocked-filter formula rate for n keys in nblocks blocks of the type's
 * cells with k probes (kbloom_formula.c); KBLOOM_PPB for k or type out of
 * range or no blocks.  kbloom_formula_fp_ppb() is the bits type's.
 */
u32 kbloom_formula_fp_ppb_type(u32 type, u64 nblocks, u64 n, u32 k);
u32 kbloom_formula_fp_ppb(u64 nblocks, u64 n, u32 k);
/*
 * A window's rate (exact for its scheme: a query's k cells are the same in
 * every generation) when live generations each hold n keys, in a filter
 * of nblocks 64-byte blocks and key blocks of 2^plane_order of them.
 */
u32 kbloom_formula_fp_ppb_window(u64 nblocks, u32 plane_order, u64 n,
				 u32 k, u32 live);
u64 kbloom_geometry_bytes(const struct kbloom_geometry *geo);

/*
 * Lifetime.  init allocates the cells zeroed, page-aligned and in whole
 * pages (so they can be mapped into userspace, kbloom_mmap.c), accounted
 * to the caller's memory cgroup in-kernel.
 */
int kbloom_filter_init(struct kbloom_filter *f,
		       const struct kbloom_geometry *geo);
void kbloom_filter_free(struct kbloom_filter *f);
/* The memory init allocates for geo, in bytes: the cells and the rest. */
u64 kbloom_filter_held(const struct kbloom_geometry *geo);

/*
 * The counts summed over CPUs.  A sum taken while operations run is a
 * moment between their starts and ends, like any statistic.  set replaces
 * them all; like clear, it must not race operations whose counts matter
 * (those racing it may be lost).
 */
void kbloom_counts_read(const struct kbloom_filter *f,
			struct kbloom_counts *sum);
void kbloom_counts_set(struct kbloom_filter *f,
		       const struct kbloom_counts *counts);

/*
 * Single keys.  add returns true when the key set at least one new bit
 * (took a counter from 0 to 1).  A counting filter's add increments each
 * of the key's k counters, once per probe, except those at
 * KBLOOM_COUNTER_MAX, which stay there for good.  delete returns true when
 * the key was removed: all k counters were non-zero, and each was then
 * decremented, once per probe, except sticky ones (and any a racing delete
 * took to 0 meanwhile: counters never wrap).  A key not added can be
 * "removed" when it is a false positive, and then other keys may be lost:
 * delete only what was added.  On a bits filter, delete changes nothing and
 * returns false; kbloom_delete_supported() says which.
 */
u64 kbloom_hash(const struct kbloom_filter *f, const void *key, u32 len);
bool kbloom_add(struct kbloom_filter *f, const void *key, u32 len);
bool kbloom_check(struct kbloom_filter *f, const void *key, u32 len);
/*
 * A check that counts nothing and writes nothing: for readers of a mapped
 * filter (libkbloom), whose counts are not the filter's to keep.  The
 * counted kbloom_check() and kbloom_check_batch() are these plus counts.
 */
bool kbloom_lookup(const struct kbloom_filter *f, const void *key, u32 len);
bool kbloom_delete(struct kbloom_filter *f, const void *key, u32 len);
/*
 * The same for a key's hash computed by the caller (kbloom_hash() gives
 * f's own): a scalable filter (kbloom_chain.c) hashes a key once and
 * derives each sub-filter's hash from it.  Bits and counting filters only
 * (a window counts its adds per plane, which these do not).  lookup_hashes
 * probes n <= BITS_PER_LONG hashes, their blocks all prefetched first,
 * and sets bit i of its answer for hash i that may be present.
 */
bool kbloom_lookup_hash(const struct kbloom_filter *f, u64 h);
bool kbloom_add_hash(struct kbloom_filter *f, u64 h);
bool kbloom_delete_hash(struct kbloom_filter *f, u64 h);
/*
 * A counting filter's add of a key it answers "maybe" for, as one step
 * under the key's stripe: true, and each of its counters one more, when
 * every one was above zero; false, and nothing changed, when a cell was
 * empty (a delete emptied it since the caller looked) or f is not
 * counting.  It never takes a cell from zero, so the keys f answers
 * "maybe" for stay the same (kbloom_chain.c's home rule needs that).
 */
bool kbloom_count_known_hash(struct kbloom_filter *f, u64 h);
unsigned long kbloom_lookup_hashes(const struct kbloom_filter *f,
				   const u64 *h, u32 n);
/* 0 when f's cells are counters, else -EOPNOTSUPP. */
int kbloom_delete_supported(const struct kbloom_filter *f);

/*
 * Batches: hash every key, prefetch the blocks ahead, then probe.  Bit i of
 * results (may be NULL; n bits, zeroed here) is set for key i: new bits set
 * (add), maybe present (check) or removed (delete).  Returns the number of
 * bits set.
 */
u32 kbloom_add_batch(struct kbloom_filter *f, const struct kbloom_key *keys,
		     u32 n, unsigned long *results);
u32 kbloom_check_batch(struct kbloom_filter *f, const struct kbloom_key *keys,
		       u32 n, unsigned long *results);
u32 kbloom_lookup_batch(const struct kbloom_filter *f,
			const struct kbloom_key *keys, u32 n,
			unsigned long *results);
u32 kbloom_delete_batch(struct kbloom_filter *f,
			const struct kbloom_key *keys, u32 n,
			unsigned long *results);

/*
 * Whole-filter operations; merge/intersect return -EXDEV if incompatible
 * and then change nothing.  Merge ORs bits and adds counters (stopping at
 * KBLOOM_COUNTER_MAX); intersect ANDs bits and keeps the lower counter.
 * Merge also adds src's add and delete counts to dst's; intersect leaves
 * the counts alone.
 */
void kbloom_clear(struct kbloom_filter *f);

/*
 * kbloom_rewrite() calls fn(f, first, end, arg) for every chunk of key
 * blocks and every stripe, holding that stripe with bottom halves off; fn
 * rewrites key blocks first, first + KBLOOM_WRITE_STRIPES, ... below end.
 * Process context: it reschedules between chunks.
 */
typedef void (*kbloom_rewrite_fn)(struct kbloom_filter *f, u64 first,
				  u64 end, const void *arg);
void kbloom_rewrite(struct kbloom_filter *f, kbloom_rewrite_fn fn,
		    const void *arg);
bool kbloom_compatible(const struct kbloom_filter *a,
		       const struct kbloom_filter *b);
int kbloom_merge(struct kbloom_filter *dst, const struct kbloom_filter *src);
int kbloom_intersect(struct kbloom_filter *dst,
		     const struct kbloom_filter *src);

void kbloom_get_stats(const struct kbloom_filter *f, struct kbloom_stats *st);

/*
 * Windows.  rotate makes the spare plane current and retires the oldest
 * live one in a single store to live (then to live_mirror), and only then
 * publishes the new cur, so that no add lands in a plane a check ignores;
 * then it empties the retired plane under each stripe's lock in chunks,
 * rescheduling, and returns with it the new spare.  Process context; the
 * caller serialises rotate against rotate, clear, merge, intersect and
 * image load; adds and checks run on.  -EOPNOTSUPP for other types.
 * plane gives the plane of a live generation by age (0: current).
 * generations fills gen[0 .. g - 1], newest first, walking the cells.
 */
int kbloom_window_rotate(struct kbloom_filter *f);
/*
 * kbloom_add() on a window filter in two steps, for tests of the count:
 * kbloom_window_add_ref() adds and says where the key went,
 * kbloom_window_count() counts n keys that went there (and calls due when
 * they take the plane to every), nothing if the plane was emptied since.
 * kbloom_window_set_adds() empties a plane's count: it takes n, and a new
 * epoch.  The caller serialises it as it does rotations.
 */
bool kbloom_window_add_ref(struct kbloom_filter *f, const void *key, u32 len,
			   struct kbloom_plane_ref *ref);
void kbloom_window_count(struct kbloom_filter *f,
			 const struct kbloom_plane_ref *ref, u64 n);
void kbloom_window_set_adds(struct kbloom_window *w, u32 plane, u64 n);
/* n keys a merge put in plane, in whatever epoch; due: may make it due. */
void kbloom_window_count_plane(struct kbloom_filter *f, u32 plane, u64 n,
			       bool due);
u32 kbloom_window_plane(const struct kbloom_filter *f, u32 age);
void kbloom_window_generations(const struct kbloom_filter *f,
			       struct kbloom_generation *gen);

/*
 * get_stats in its two halves, for a caller that keeps a scan while the
 * cells stay as they were (the module's sysfs, kbloom_stats_cache.c).
 * scan_cells walks every block for what depends on the cells alone, which
 * is only which cells are non-zero; combine adds the counts and what
 * follows from the geometry, without touching the cells.
 */
struct kbloom_cell_stats {
	u64 bits_set;
	u64 est_keys;
	u32 fill_ppb;
	u32 fp_now_ppb;
};

void kbloom_scan_cells(const struct kbloom_filter *f,
		       struct kbloom_cell_stats *cs);
void kbloom_stats_combine(const struct kbloom_filter *f,
			  const struct kbloom_counts *counts,
			  const struct kbloom_cell_stats *cs,
			  struct kbloom_stats *st);

/*
 * Images (format in the uapi header).  Encoding streams: a cursor holds the
 * header snapshot taken at offset 0 and the running CRC, so reads must be
 * sequential.  Decoding validates everything before touching the filter.
 */
struct kbloom_image_cursor {
	struct kbloom_image_header hdr;
	struct kbloom_image_window win;	/* the window part */
	struct kbloom_image_chain chain;	/* a scalable filter's */
	u64 pos;
	u32 crc;
};

u64 kbloom_image_bytes(const struct kbloom_geometry *geo);
void kbloom_image_start(const struct kbloom_filter *f,
			struct kbloom_image_cursor *cur);
/* Copies up to len bytes from cur->pos into buf; returns bytes copied. */
size_t kbloom_image_emit(const struct kbloom_filter *f,
			 struct kbloom_image_cursor *cur, void *buf,
			 size_t len);
/*
 * Checks the header (len >= sizeof header; version 3 only) against f; 0
 * or an image errno.  Once it passed, the image is kbloom_image_bytes()
 * long, and check_window judges its window part once header_bytes have
 * arrived (-ENODATA before).
 */
int kbloom_image_check_header(const struct kbloom_filter *f, const void *img,
			      size_t len);
int kbloom_image_check_window(const struct kbloom_filter *f, const void *img,
			      size_t len);
/*
 * Validates the whole image, then loads it: all or nothing.  The image
 * restores add_calls and add_new; the delete counts, which it does not
 * carry, restart from 0.
 */
int kbloom_image_load(struct kbloom_filter *f, const void *img, size_t len);
/*
 * The two halves of load, for a caller that must know before anything
 * changes whether something will (the device, which tells readers of a
 * mapping that the filter is being replaced): validate changes nothing;
 * apply takes an image that validate accepted.
 */
int kbloom_image_validate(const struct kbloom_filter *f, const void *img,
			  size_t len);
void kbloom_image_apply(struct kbloom_filter *f, const void *img);

/*
 * The parts a scalable filter's image (kbloom_chain_image.c) shares.
 * copy_cells copies bytes [from, from + len) of f's cells in image order,
 * each word masked by keep (a window's live planes, else ~0).  put_cells
 * rewrites all of f's cells from an image's, under each stripe
 * (kbloom_rewrite()).  fields_valid judges the header fields both
 * versions share (all but magic, version and header_bytes).  check_crc
 * says -EBADMSG unless the last 4 of len bytes are the CRC32C of the rest.
 */
void kbloom_image_copy_cells(const struct kbloom_filter *f, u64 from,
			     u8 *out, size_t len, u64 keep);
void kbloom_image_put_cells(struct kbloom_filter *f, const void *cells);
bool kbloom_image_fields_valid(const struct kbloom_image_header *hdr);
int kbloom_image_check_crc(const void *img, u64 len);

#endif /* KBLOOM_CORE_H */
