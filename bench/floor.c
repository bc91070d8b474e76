// SPDX-License-Identifier: GPL-2.0
/*
 * "xxh64 + one load": each key hashed with xxh64 under the filter's seed,
 * and one 64-bit word loaded from the block the core picks for it,
 * (h * nblocks) >> 64.  Keys come from the same struct kbloom_key array as
 * kbloom_check_batch's, BENCH_BATCH per pass like its calls, and the
 * pipeline is the core's: key i + BENCH_CORE_AHEAD is hashed and its block
 * prefetched while key i's word is loaded.  Whatever a design does inside
 * the block costs on top of this, so check_batch / this is the overhead of
 * the probes themselves, and this / the random-load limit is the hash's.
 *
 * floor_inline.c compiles this file again with XXH64 inlined.
 */
#ifdef FLOOR_INLINE
#define XXH_INLINE_ALL
#define FLOOR_FN	floor_xxh64_inline_load
#else
#define FLOOR_FN	floor_xxh64_load
#endif
#include <xxhash.h>

#include "floor.h"

#ifndef BENCH_CORE_AHEAD
#define BENCH_CORE_AHEAD	16
#define BENCH_CORE_AHEAD_FOUND	0
#endif

static inline const u64 *floor_block(const u64 *words, u64 nblocks, u64 h)
{
	u64 index = (u64)(((__uint128_t)h * nblocks) >> 64);
	const u64 *block = words + index * KBLOOM_BLOCK_WORDS;

	__builtin_prefetch(block);
	return block;
}

#ifndef FLOOR_INLINE
const u32 floor_ahead = BENCH_CORE_AHEAD;
const bool floor_ahead_found = BENCH_CORE_AHEAD_FOUND;

u64 floor_block_index(const struct kbloom_filter *f, const void *key, u32 len)
{
	u64 h = XXH64(key, len, f->geo.seed);

	return (u64)(((__uint128_t)h * f->geo.nblocks) >> 64);
}
#endif

double FLOOR_FN(const struct kbloom_filter *f, const struct kbloom_key *kv,
		u64 count)
{
	const u64 *blocks[BENCH_CORE_AHEAD];
	const u64 *words = f->words;
	u64 nblocks = f->geo.nblocks, seed = f->geo.seed;
	u64 base, t0, t1, sum = 0;

	t0 = bench_now_ns();
	for (base = 0; base < count; base += BENCH_BATCH) {
		const struct kbloom_key *keys = kv + base;
		u64 i, n = bench_min(count - base, BENCH_BATCH);
		u64 ahead = bench_min(n, BENCH_CORE_AHEAD);

		for (i = 0; i < ahead; i++)
			blocks[i] = floor_block(words, nblocks,
						XXH64(keys[i].data,
						      keys[i].len, seed));
		for (i = 0; i < n; i++) {
			u64 slot = i % BENCH_CORE_AHEAD;
			const u64 *block = blocks[slot];

			if (i + BENCH_CORE_AHEAD < n) {
				const struct kbloom_key *k =
					&keys[i + BENCH_CORE_AHEAD];

				blocks[slot] = floor_block(words, nblocks,
							   XXH64(k->data,
								 k->len,
								 seed));
			}
			sum += *block;
		}
	}
	t1 = bench_now_ns();
	bench_keep(sum);
	return (double)(t1 - t0) / count;
}
