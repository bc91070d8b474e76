/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The filter core: a blocked Bloom filter with one 512-bit, cache-line
 * aligned block per key.  Plain C with no device code, so the same source
 * builds into the module, the KUnit suite, the host tests and the benchmark
 * (userspace gets kernel types from kbloom_compat.h).
 *
 * Concurrency: add and check are lock-free (atomic OR of 64-bit words); a
 * key whose add completed before a check began is always found.  clear,
 * merge, intersect and image load must be serialised against each other by
 * the caller; racing them with add/check cannot crash but may lose adds
 * that race a clear, which is what clear means.  Merge and intersect update
 * words atomically, so adds racing them are kept.  clear, merge, intersect,
 * image load and get_stats walk the whole filter and may sleep
 * (cond_resched): call them from process context, never under a spinlock.
 */
#ifndef KBLOOM_CORE_H
#define KBLOOM_CORE_H

#ifdef __KERNEL__
#include <linux/bits.h>
#include <linux/types.h>
#include <linux/atomic.h>
#include <uapi/linux/kbloom.h>
#else
#include "kbloom_compat.h"
#include "../include/uapi/linux/kbloom.h"
#endif

#define KBLOOM_BLOCK_BITS	512
#define KBLOOM_BLOCK_BYTES	64
#define KBLOOM_BLOCK_WORDS	8
#define KBLOOM_K_MIN		1
/* Hard limits of the core; the module caps memory further by parameter. */
#define KBLOOM_MAX_BLOCKS	BIT_ULL(31)	/* 128 GiB of bits */
#define KBLOOM_MAX_BITS_PER_KEY	64
#define KBLOOM_MIN_FP_PPB	1

struct kbloom_geometry {
	u64 nblocks;		/* 512-bit blocks, >= 1 */
	u64 capacity;		/* design keys, 0 when unknown */
	u64 seed;		/* xxh64 seed */
	u32 k;			/* probes per key, 1..KBLOOM_K_MAX */
	u32 type;		/* KBLOOM_TYPE_* */
	u32 fp_target_ppb;	/* what the creator asked for, 0 if nothing */
};

struct kbloom_filter {
	struct kbloom_geometry geo;
	u64 *words;		/* nblocks * 8 words, 64-byte aligned */
	void *alloc;		/* what was allocated to hold words */
	atomic64_t add_calls;
	atomic64_t add_new;
	atomic64_t check_calls;
	atomic64_t check_hits;
};

/* A key handed to the batch operations. */
struct kbloom_key {
	const void *data;
	u32 len;
};

struct kbloom_stats {
	u64 add_calls;
	u64 add_new;
	u64 check_calls;
	u64 check_hits;
	u64 bits_set;
	u64 est_keys;		/* distinct keys estimated from block fill */
	u32 fill_ppb;		/* bits_set / bits */
	u32 fp_now_ppb;		/* mean over blocks of P(all k probes set),
				 * (x/512)^k for a block with x bits set
				 */
	u32 fp_design_ppb;	/* formula rate at capacity (0: no capacity) */
	u32 saturated;		/* add_new over capacity, or fp_now above
				 * target
				 */
};

/*
 * Geometry.  Each returns 0 or a negative errno: -EINVAL for parameters
 * out of range, -E2BIG when the filter would exceed KBLOOM_MAX_BLOCKS.
 * The seed and type of *geo are left to the caller (zeroed here).
 * A k of 0 means the best k for capacity keys (for 10 bits per key when
 * capacity is 0).  from_rate picks k and the fewest blocks meeting fp_ppb
 * at capacity * (1 + 1/128) keys: the slack puts measured rates at capacity
 * under the target, for under 0.8 % more memory.
 */
int kbloom_geometry_from_rate(struct kbloom_geometry *geo, u64 capacity,
			      u32 fp_ppb);
int kbloom_geometry_from_bits(struct kbloom_geometry *geo, u64 bits, u32 k,
			      u64 capacity);
int kbloom_geometry_from_bits_per_key(struct kbloom_geometry *geo,
				      u64 capacity, u32 bits_per_key, u32 k);
int kbloom_geometry_validate(const struct kbloom_geometry *geo);
/*
 * Blocked-filter formula rate for n keys in nblocks blocks with k probes
 * (kbloom_formula.c); KBLOOM_PPB for k out of range or no blocks.
 */
u32 kbloom_formula_fp_ppb(u64 nblocks, u64 n, u32 k);
u64 kbloom_geometry_bytes(const struct kbloom_geometry *geo);

/* Lifetime.  init allocates (zeroed, accounted to the caller in-kernel). */
int kbloom_filter_init(struct kbloom_filter *f,
		       const struct kbloom_geometry *geo);
void kbloom_filter_free(struct kbloom_filter *f);

/* Single keys.  add returns true when the key set at least one new bit. */
u64 kbloom_hash(const struct kbloom_filter *f, const void *key, u32 len);
bool kbloom_add(struct kbloom_filter *f, const void *key, u32 len);
bool kbloom_check(struct kbloom_filter *f, const void *key, u32 len);

/*
 * Batches: hash every key, prefetch the blocks ahead, then probe.  Bit i of
 * results (may be NULL; n bits, zeroed here) is set for key i: new bits set
 * (add) or maybe present (check).  Returns the number of bits set.
 */
u32 kbloom_add_batch(struct kbloom_filter *f, const struct kbloom_key *keys,
		     u32 n, unsigned long *results);
u32 kbloom_check_batch(struct kbloom_filter *f, const struct kbloom_key *keys,
		       u32 n, unsigned long *results);

/*
 * Whole-filter operations; merge/intersect return -EXDEV if incompatible
 * and then change nothing.  Merge also adds src's add_calls and add_new to
 * dst's; intersect leaves the counters alone.
 */
void kbloom_clear(struct kbloom_filter *f);
bool kbloom_compatible(const struct kbloom_filter *a,
		       const struct kbloom_filter *b);
int kbloom_merge(struct kbloom_filter *dst, const struct kbloom_filter *src);
int kbloom_intersect(struct kbloom_filter *dst,
		     const struct kbloom_filter *src);

void kbloom_get_stats(const struct kbloom_filter *f, struct kbloom_stats *st);

/*
 * Images (format in the uapi header).  Encoding streams: a cursor holds the
 * header snapshot taken at offset 0 and the running CRC, so reads must be
 * sequential.  Decoding validates everything before touching the filter.
 */
struct kbloom_image_cursor {
	struct kbloom_image_header hdr;
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
/* Checks header (len >= sizeof header) against f; 0 or an image errno. */
int kbloom_image_check_header(const struct kbloom_filter *f, const void *img,
			      size_t len);
/* Validates the whole image, then loads it: all or nothing. */
int kbloom_image_load(struct kbloom_filter *f, const void *img, size_t len);

#endif /* KBLOOM_CORE_H */
