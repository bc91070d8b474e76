// SPDX-License-Identifier: GPL-2.0
/*
 * The filter never forgets a key, and its false-positive rate is what the
 * model of its scheme says.
 */
#include <math.h>
#include "harness.h"
#include "model.h"

#define SUITE "fp"

static bool in_bitmap(const u8 *bm, u64 i)
{
	return bm[i / 8] >> (i % 8) & 1;
}

/*
 * 10 M keys drawn with repeats from a universe of 20 M; the exact set is a
 * bitmap over the universe.  Every member must answer "maybe"; the others
 * measure the false-positive rate at the true distinct count.
 */
static void test_no_false_negatives(void)
{
	const u64 universe = 20000000, draws = 10000000;
	struct kbloom_geometry geo;
	struct kbloom_filter f;
	struct rng r = { 42 };
	u64 i, members = 0, missed = 0, absent = 0, fp = 0;
	u8 *exact = calloc(universe / 8 + 1, 1);
	struct kbloom_key *keys = malloc(sizeof(*keys) * 4096);
	u64 *vals = malloc(sizeof(*vals) * 4096);
	double want, sigma;

	kbloom_geometry_from_bits_per_key(&geo, draws, 10, 0);
	make_filter_geo(&f, &geo, 7);
	for (i = 0; i < draws; i++) {
		u64 u = rng_next(&r) % universe;

		exact[u / 8] |= 1 << (u % 8);
		vals[i % 4096] = mix64(u);
		keys[i % 4096].data = &vals[i % 4096];
		keys[i % 4096].len = 8;
		if (i % 4096 == 4095 || i == draws - 1)
			kbloom_add_batch(&f, keys, i % 4096 + 1, NULL);
	}
	for (i = 0; i < universe; i++) {
		u64 v = mix64(i);
		bool maybe = kbloom_check(&f, &v, sizeof(v));

		if (in_bitmap(exact, i)) {
			members++;
			missed += !maybe;
		} else {
			absent++;
			fp += maybe;
		}
	}
	expect(missed == 0, SUITE, "no_false_negatives_10M",
	       "%llu of %llu present keys reported absent",
	       (unsigned long long)missed, (unsigned long long)members);

	want = model_fp_scheme((double)members / geo.nblocks, geo.k);
	sigma = sqrt(want / absent);
	expect(fabs((double)fp / absent - want) <= fmax(5 * sigma, 0.02 * want),
	       SUITE, "fp_at_10M_distinct", "measured %.5f%%, model %.5f%%",
	       100.0 * fp / absent, 100 * want);
	printf("# 10M draws: %llu distinct, fp %.4f%% (model %.4f%%)\n",
	       (unsigned long long)members, 100.0 * fp / absent, 100 * want);
	kbloom_filter_free(&f);
	free(exact);
	free(keys);
	free(vals);
}

/* Measured rate against the model at the best k for each budget. */
static void test_fp_matches_formula(u32 bits_per_key)
{
	const u64 n = 1000000, queries = 4000000;
	struct kbloom_geometry geo;
	struct kbloom_filter f;
	double lambda, want, got, sigma, core;
	char name[64];
	u64 hits;

	snprintf(name, sizeof(name), "fp_vs_formula_%ubpk", bits_per_key);
	kbloom_geometry_from_bits_per_key(&geo, n, bits_per_key, 0);
	make_filter_geo(&f, &geo, 1234 + bits_per_key);
	add_counter_keys(&f, 0, n);
	hits = count_counter_hits(&f, n, queries);

	lambda = (double)n / geo.nblocks;
	want = model_fp_scheme(lambda, geo.k);
	core = kbloom_formula_fp_ppb(geo.nblocks, n, geo.k) / 1e9;
	got = (double)hits / queries;
	sigma = sqrt(want * (1 - want) / queries);
	printf("# %2u bits/key k=%2u: measured %.5f%% model %.5f%% core %.5f%% textbook %.5f%% (%+.2f%%, %.1f sigma)\n",
	       bits_per_key, geo.k, 100 * got, 100 * want, 100 * core,
	       100 * model_fp_textbook(lambda, geo.k),
	       100 * (got / want - 1), (got - want) / sigma);
	expect(fabs(got - want) <= fmax(5 * sigma, 0.02 * want), SUITE, name,
	       "measured %.6f, model %.6f (sigma %.6f)", got, want, sigma);
	kbloom_filter_free(&f);
}

int main(void)
{
	static const u32 budgets[] = { 6, 8, 10, 12, 16, 20 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(budgets); i++)
		test_fp_matches_formula(budgets[i]);
	test_no_false_negatives();
	return harness_exit();
}
