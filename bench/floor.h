/* SPDX-License-Identifier: GPL-2.0 */
/*
 * "xxh64 + one load": the floor of any filter design that hashes a key with
 * xxh64 and reads one cache line for it.
 */
#ifndef KBLOOM_BENCH_FLOOR_H
#define KBLOOM_BENCH_FLOOR_H

#include "bench.h"

/*
 * Keys hashed ahead: the core's KBLOOM_BATCH_AHEAD, which the Makefile reads
 * from its source; found is false when it could not (16 is used then).
 */
extern const u32 floor_ahead;
extern const bool floor_ahead_found;

/* libxxhash's XXH64 called, as the core's userspace build calls it. */
double floor_xxh64_load(const struct kbloom_filter *f,
			const struct kbloom_key *kv, u64 count);
/* The same with XXH64 inlined (XXH_INLINE_ALL): same values, no call. */
double floor_xxh64_inline_load(const struct kbloom_filter *f,
			       const struct kbloom_key *kv, u64 count);
/* The block index the floor loads from for one key. */
u64 floor_block_index(const struct kbloom_filter *f, const void *key, u32 len);

#endif /* KBLOOM_BENCH_FLOOR_H */
