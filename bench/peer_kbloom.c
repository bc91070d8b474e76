// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom's filter core in userspace: the very sources the module is built
 * from (kmod/core/core.mk), compiled with the project's -O2.  Timed loops only
 * call the core; checking the answers happens in separate untimed passes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peer_kbloom.h"

int kbloom_peer_init(struct kbloom_filter *f, u64 n, u32 bits_per_key,
		     u64 seed)
{
	struct kbloom_geometry geo;
	int err;

	err = kbloom_geometry_from_bits_per_key(&geo, n, bits_per_key, 0);
	if (err)
		return err;
	geo.seed = seed;
	geo.type = KBLOOM_TYPE_BITS;
	return kbloom_filter_init(f, &geo);
}

double kbloom_peer_bits_per_key(const struct kbloom_filter *f, u64 n)
{
	return (double)f->geo.nblocks * KBLOOM_BLOCK_BITS / n;
}

double kbloom_peer_fp_theory(const struct kbloom_filter *f, u64 n)
{
	return fp_blocked_core(f->geo.nblocks, n, f->geo.k);
}

/* Adds keys first .. first + n - 1 to the filter as it is. */
double kbloom_peer_add_keys(struct kbloom_filter *f, const struct key_set *ks,
			    u64 first, u64 n)
{
	u64 i, t0, t1, fresh = 0;

	t0 = bench_now_ns();
	for (i = first; i < first + n; i++)
		fresh += kbloom_add(f, key_at(ks, i), ks->kb);
	t1 = bench_now_ns();
	bench_keep(fresh);
	return (double)(t1 - t0) / n;
}

/* Clears, then adds the first n keys: the cost of filling the filter. */
double kbloom_peer_add(struct kbloom_filter *f, const struct key_set *ks,
		       u64 n)
{
	kbloom_clear(f);
	return kbloom_peer_add_keys(f, ks, 0, n);
}

/* kbloom_add_batch, BENCH_BATCH keys per call, into the filter as it is. */
double kbloom_peer_add_batch(struct kbloom_filter *f,
			     const struct kbloom_key *kv, u64 n)
{
	unsigned long results[BITS_TO_LONGS(BENCH_BATCH)];
	u64 i, t0, t1, fresh = 0;

	t0 = bench_now_ns();
	for (i = 0; i < n; i += BENCH_BATCH) {
		u32 m = (u32)bench_min(n - i, BENCH_BATCH);

		fresh += kbloom_add_batch(f, kv + i, m, results);
	}
	t1 = bench_now_ns();
	bench_keep(fresh);
	return (double)(t1 - t0) / n;
}

/*
 * dst's cells become src's (same geometry): a filled filter, restored.
 * Then each of its lines is read once, so the adds timed next start from
 * the cache state the checks (of a filter in use) find: straight after
 * the copy, single adds into a full 1 M-key filter took 34 to 40 ns
 * against 21 into an empty one, and 24 to 27 with the lines read
 * (a 2-vCPU AMD EPYC VM, 4d29090, 2026-12-02; 1.2 MB filter; batched
 * adds, which prefetch, 16 either way).
 */
void kbloom_peer_copy(struct kbloom_filter *dst,
		      const struct kbloom_filter *src)
{
	u64 i, words = kbloom_geometry_bytes(&src->geo) / 8, sum = 0;

	memcpy(dst->words, src->words, kbloom_geometry_bytes(&src->geo));
	for (i = 0; i < words; i += KBLOOM_BLOCK_WORDS)
		sum += READ_ONCE(dst->words[i]);
	bench_keep(sum);
}

/* A digest of the cells, to compare two filters' contents. */
u64 kbloom_peer_digest(const struct kbloom_filter *f)
{
	return XXH64(f->words, kbloom_geometry_bytes(&f->geo), 0);
}

double kbloom_peer_check(struct kbloom_filter *f, const struct query_set *qs)
{
	u64 i, t0, t1, hits = 0, q = qs->keys.n;

	t0 = bench_now_ns();
	for (i = 0; i < q; i++)
		hits += kbloom_check(f, key_at(&qs->keys, i), qs->keys.kb);
	t1 = bench_now_ns();
	bench_keep(hits);
	return (double)(t1 - t0) / q;
}

double kbloom_peer_check_batch(struct kbloom_filter *f,
			       const struct query_set *qs, u32 batch)
{
	unsigned long results[BITS_TO_LONGS(KBLOOM_BATCH_MAX)];
	u64 i, t0, t1, hits = 0, q = qs->keys.n;

	t0 = bench_now_ns();
	for (i = 0; i < q; i += batch) {
		u32 m = (u32)bench_min(q - i, batch);

		hits += kbloom_check_batch(f, qs->kv + i, m, results);
	}
	t1 = bench_now_ns();
	bench_keep(hits);
	return (double)(t1 - t0) / q;
}

/* Added keys the filter does not report: must be 0 for a Bloom filter. */
u64 kbloom_peer_missing(struct kbloom_filter *f, const struct key_set *ks,
			u64 n)
{
	unsigned long results[BITS_TO_LONGS(BENCH_BATCH)];
	struct kbloom_key kv[BENCH_BATCH];
	u64 i, missing = 0;

	for (i = 0; i < n; i += BENCH_BATCH) {
		u32 j, m = (u32)bench_min(n - i, BENCH_BATCH);

		for (j = 0; j < m; j++) {
			kv[j].data = key_at(ks, i + j);
			kv[j].len = ks->kb;
		}
		missing += m - kbloom_check_batch(f, kv, m, results);
	}
	return missing;
}

static void tally(struct answers *a, bool present, bool maybe)
{
	if (present && !maybe)
		a->false_negatives++;
	if (!present) {
		a->absent++;
		a->false_positives += maybe;
	}
}

/*
 * Answers of the single and the batched path for every query; returns how
 * many queries the two paths answered differently (must be 0).
 */
u64 kbloom_peer_answers(struct kbloom_filter *f, const struct query_set *qs,
			struct answers *single, struct answers *batched)
{
	unsigned long results[BITS_TO_LONGS(BENCH_BATCH)];
	u64 i, q = qs->keys.n, differ = 0;

	memset(single, 0, sizeof(*single));
	memset(batched, 0, sizeof(*batched));
	for (i = 0; i < q; i += BENCH_BATCH) {
		u32 j, m = (u32)bench_min(q - i, BENCH_BATCH);

		kbloom_check_batch(f, qs->kv + i, m, results);
		for (j = 0; j < m; j++) {
			bool one = kbloom_check(f, qs->kv[i + j].data,
						qs->kv[i + j].len);
			bool many = test_bit(j, results);

			tally(single, qs->present[i + j], one);
			tally(batched, qs->present[i + j], many);
			differ += one != many;
		}
	}
	return differ;
}
