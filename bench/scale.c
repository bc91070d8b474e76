// SPDX-License-Identifier: GPL-2.0
/*
 * Scalable filters (kmod/core/kbloom_chain.h) in the host benchmark, through
 * the project's own core.
 *
 * 1. Memory per key at 10 and 100 times the first capacity, for expansion
 *    1, 2 and 4 and rates of 1 % and 0.1 %: ours (the core's plan of the
 *    chain, kbloom_chain_plan()), a bits filter sized right at create for
 *    the same keys and rate, and RedisBloom's scalable filter with the same
 *    parameters from its documented sizing (BF.RESERVE): sub-filter i holds
 *    capacity * expansion^i keys at an error of fp * 0.5^(i + 1) (the
 *    tightening ratio 0.5 of Almeida et al., the first at fp / 2), in
 *    capacity_i * -ln(error_i) / ln(2)^2 bits.  All three hold exactly the
 *    keys; a chain's memory is all of its sub-filters'.
 * 2. Check and batched-check time of a chain of expansion 2 at 1 % grown
 *    to 10 and 100 times its capacity, beside one bits filter sized right
 *    for the same keys and rate, on the same queries (half of them keys
 *    that were added), interleaved, the median of the repeats.  Both are
 *    asked with the uncounted lookups, so only the probing differs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "kbloom_chain.h"
#include "scale.h"

#define SCALE_SEED	0x7363616c65ULL		/* "scale" */

/* RedisBloom's documented bits for a sub-filter: -ln(e) / ln(2)^2 a key. */
static double redisbloom_bytes(u64 capacity, double fp, u32 expansion,
			       u64 keys)
{
	double bits = 0, err = fp;
	u64 cap = capacity;

	while (keys) {
		u64 held = bench_min(keys, cap);

		err *= 0.5;
		bits += (double)cap * -log(err) / (M_LN2 * M_LN2);
		keys -= held;
		cap *= expansion;
	}
	return bits / 8;
}

void scale_memory_table(void)
{
	static const u32 rates[] = { 10000000, 1000000 };
	static const u32 expansions[] = { 1, 2, 4 };
	static const u32 growths[] = { 10, 100 };
	const u64 first = 1000000;
	size_t p, e, g;

	printf("== scalable filters: memory per key, first capacity 1 M, "
	       "bits type; ours beside one filter sized right at create and "
	       "beside RedisBloom's scalable filter (its documented sizing)\n");
	printf("%-6s %-9s %-6s %5s %12s %12s %12s %10s %10s\n", "fp",
	       "expansion", "growth", "subs", "ours B/key", "right B/key",
	       "Redis B/key", "ours/right", "ours/Redis");
	for (p = 0; p < ARRAY_SIZE(rates); p++)
	for (e = 0; e < ARRAY_SIZE(expansions); e++)
	for (g = 0; g < ARRAY_SIZE(growths); g++) {
		const struct kbloom_chain_params cp = {
			.capacity = first, .type = KBLOOM_TYPE_BITS,
			.fp_ppb = rates[p], .expansion = expansions[e],
		};
		u64 keys = first * growths[g], bytes, rate16;
		struct kbloom_geometry geo;
		double ours, right, redis;
		u32 subs;

		if (kbloom_chain_plan(&cp, keys, &subs, &bytes, &rate16) ||
		    kbloom_geometry_from_rate(&geo, keys, rates[p])) {
			report_check(false, "scale-memory-sizing",
				     "fp %u ppb, expansion %u, %ux", rates[p],
				     expansions[e], growths[g]);
			continue;
		}
		ours = (double)bytes / keys;
		right = (double)kbloom_geometry_bytes(&geo) / keys;
		redis = redisbloom_bytes(first, rates[p] / 1e9,
					 expansions[e], keys) / keys;
		printf("%-6s %-9u %-6s %5u %12.2f %12.2f %12.2f %10.2f "
		       "%10.2f\n", rates[p] == 10000000 ? "1%" : "0.1%",
		       expansions[e], growths[g] == 10 ? "10x" : "100x", subs,
		       ours, right, redis, ours / right, ours / redis);
	}
	printf("  (a chain's memory is all its sub-filters', the newest "
	       "partly filled; RedisBloom's rounding of each sub-filter to "
	       "whole words is left out)\n");
	fflush(stdout);
}

/* Adds every key, growing the chain whenever an add finds it full. */
static int chain_fill(struct kbloom_chain *c, const struct key_set *ks)
{
	u64 i;

	for (i = 0; i < ks->n; i++)
		while (kbloom_chain_add(c, key_at(ks, i), ks->kb) == -EAGAIN) {
			int ret = kbloom_chain_grow(c);

			if (ret)
				return ret;
		}
	return 0;
}

struct scale_pass {
	const struct kbloom_chain *chain;	/* or the filter: */
	const struct kbloom_filter *one;
	u64 hits;
};

/* ns per query of single lookups over qs. */
static double lookup_single(struct scale_pass *sp, const struct query_set *qs)
{
	u64 t0 = bench_now_ns(), i, hits = 0;

	for (i = 0; i < qs->keys.n; i++)
		hits += sp->chain ?
			kbloom_chain_lookup(sp->chain, key_at(&qs->keys, i),
					    qs->keys.kb) :
			kbloom_lookup(sp->one, key_at(&qs->keys, i),
				      qs->keys.kb);
	sp->hits = hits;
	return (double)(bench_now_ns() - t0) / qs->keys.n;
}

/* ns per query of lookups in batches of BENCH_BATCH over qs. */
static double lookup_batch(struct scale_pass *sp, const struct query_set *qs)
{
	u64 t0 = bench_now_ns(), i, hits = 0;

	for (i = 0; i < qs->keys.n; i += BENCH_BATCH) {
		u32 n = (u32)bench_min(BENCH_BATCH, qs->keys.n - i);

		hits += sp->chain ?
			kbloom_chain_lookup_batch(sp->chain, qs->kv + i, n,
						  NULL) :
			kbloom_lookup_batch(sp->one, qs->kv + i, n, NULL);
	}
	sp->hits = hits;
	return (double)(bench_now_ns() - t0) / qs->keys.n;
}

void scale_run(u64 first, u32 growth, int repeats)
{
	const struct kbloom_chain_params cp = {
		.capacity = first, .seed = SCALE_SEED, .type = KBLOOM_TYPE_BITS,
		.fp_ppb = 10000000, .expansion = 2,
	};
	u64 n = first * growth, nq = bench_min(n / 2, 1000000);
	double cs[BENCH_MAX_REPEATS], os[BENCH_MAX_REPEATS];
	double cb[BENCH_MAX_REPEATS], ob[BENCH_MAX_REPEATS];
	struct key_set added, absent;
	struct kbloom_geometry geo;
	struct scale_pass sc = { 0 }, so = { 0 };
	struct kbloom_filter one;
	struct kbloom_chain chain;
	struct query_set qs;
	struct kbloom_key *kv;
	double c1, o1, c2, o2;
	int r, err;
	u64 i;

	err = kbloom_chain_init(&chain, &cp);
	if (err) {
		report_check(false, "scale-init", "%s", strerror(-err));
		return;
	}
	err = kbloom_geometry_from_rate(&geo, n, cp.fp_ppb);
	if (!err) {
		geo.seed = SCALE_SEED;
		err = kbloom_filter_init(&one, &geo);
	}
	if (err) {
		report_check(false, "scale-one-init", "%s", strerror(-err));
		kbloom_chain_free(&chain);
		return;
	}
	keys_generate(&added, n, 8, 8000 + growth);
	keys_generate(&absent, nq, 8, 9000 + growth);
	queries_build(&qs, &added, n, nq, &absent, nq, 10000 + growth);
	err = chain_fill(&chain, &added);
	kv = keys_kv(&added, n);
	for (i = 0; i < n; i += BENCH_BATCH)
		kbloom_add_batch(&one, kv + i,
				 (u32)bench_min(BENCH_BATCH, n - i), NULL);
	free(kv);
	report_check(!err, note_printf("scale-grow/%ux", growth), "%s",
		     strerror(-err));
	sc.chain = &chain;
	so.one = &one;
	for (r = 0; r < repeats; r++) {
		cs[r] = lookup_single(&sc, &qs);
		os[r] = lookup_single(&so, &qs);
		cb[r] = lookup_batch(&sc, &qs);
		ob[r] = lookup_batch(&so, &qs);
	}
	/* Every present query is found; the absent ones' rate stays < 1 %. */
	report_check(sc.hits >= qs.npresent && so.hits >= qs.npresent &&
		     sc.hits - qs.npresent < qs.nabsent / 100,
		     note_printf("scale-answers/%ux", growth),
		     "chain %llu, one filter %llu maybe of %llu present",
		     (unsigned long long)sc.hits, (unsigned long long)so.hits,
		     (unsigned long long)qs.npresent);
	c1 = median(cs, repeats);
	o1 = median(os, repeats);
	c2 = median(cb, repeats);
	o2 = median(ob, repeats);
	printf("== scalable filter at %ux (expansion 2, 1 %%, %u sub-filters, "
	       "%.1f MB) beside one filter of the same %llu keys and rate "
	       "(%.1f MB): check %.1f vs %.1f ns (%.2fx), check_batch %.1f vs "
	       "%.1f ns (%.2fx); %d repeats of %llu queries, half present\n",
	       growth, kbloom_chain_subs(&chain),
	       kbloom_chain_bytes(&chain) / 1048576.0, (unsigned long long)n,
	       kbloom_geometry_bytes(&geo) / 1048576.0, c1, o1, c1 / o1, c2,
	       o2, c2 / o2, repeats, (unsigned long long)qs.keys.n);
	fflush(stdout);
	queries_free(&qs);
	keys_free(&added);
	keys_free(&absent);
	kbloom_filter_free(&one);
	kbloom_chain_free(&chain);
}
