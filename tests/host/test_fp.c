// SPDX-License-Identifier: GPL-2.0
/*
 * What the unit suite cannot afford under UML, for every type: millions of
 * keys.  The filter never forgets a key, its false-positive rate is what
 * the model of its scheme (model.h) says at every budget, and the cells a
 * key sets are uniform over its block.
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
static void test_no_false_negatives(const struct kbloom_test_type *t)
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

	kbloom_geometry_from_bits_per_key_type(&geo, t->type, draws, 10, 0);
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
	expect(missed == 0, SUITE, typed_name("no_false_negatives_10M", t),
	       "%llu of %llu present keys reported absent",
	       (unsigned long long)missed, (unsigned long long)members);

	want = model_fp_scheme_cells((double)members / geo.nblocks, geo.k,
				     kbloom_test_block_cells(t));
	sigma = sqrt(want / absent);
	expect(fabs((double)fp / absent - want) <= fmax(5 * sigma, 0.02 * want),
	       SUITE, typed_name("fp_at_10M_distinct", t),
	       "measured %.5f%%, model %.5f%%", 100.0 * fp / absent,
	       100 * want);
	printf("# %s, 10M draws: %llu distinct, fp %.4f%% (model %.4f%%)\n",
	       t->name, (unsigned long long)members, 100.0 * fp / absent,
	       100 * want);
	kbloom_filter_free(&f);
	free(exact);
	free(keys);
	free(vals);
}

/* Measured rate against the model at the best k for each budget. */
static void test_fp_matches_formula(const struct kbloom_test_type *t,
				    u32 bits_per_key)
{
	const u64 n = 1000000, queries = 4000000;
	struct kbloom_geometry geo;
	struct kbloom_filter f;
	double lambda, want, got, sigma, core;
	u64 hits;

	kbloom_geometry_from_bits_per_key_type(&geo, t->type, n, bits_per_key,
					       0);
	make_filter_geo(&f, &geo, 1234 + bits_per_key);
	add_counter_keys(&f, 0, n);
	hits = count_counter_hits(&f, n, queries);

	lambda = (double)n / geo.nblocks;
	want = model_fp_scheme_cells(lambda, geo.k, kbloom_test_block_cells(t));
	core = kbloom_formula_fp_ppb_type(geo.type, geo.nblocks, n, geo.k) /
	       1e9;
	got = (double)hits / queries;
	sigma = sqrt(want * (1 - want) / queries);
	printf("# %s %2u bits/key (%5.2f cells) k=%2u: measured %.5f%% model %.5f%% core %.5f%% textbook %.5f%% (%+.2f%%, %.1f sigma)\n",
	       t->name, bits_per_key, bits_per_key * kbloom_test_block_cells(t) / 512.0, geo.k,
	       100 * got, 100 * want, 100 * core,
	       100 * model_fp_textbook_cells(lambda, geo.k, kbloom_test_block_cells(t)),
	       100 * (got / want - 1), (got - want) / sigma);
	expect(fabs(got - want) <= fmax(5 * sigma, 0.02 * want), SUITE,
	       typed_name("fp_vs_formula_%ubpk", t, bits_per_key),
	       "measured %.6f, model %.6f (sigma %.6f)", got, want, sigma);
	kbloom_filter_free(&f);
}

/*
 * Cells within a block are uniform: chi-square over the block's cells of
 * the cells one key sets, key after key.  A key's probes may repeat a
 * cell, so each cell is set by a key with chance 1 - (1 - 1/cells)^k.
 */
static void test_cells_uniform(const struct kbloom_test_type *t)
{
	const u64 keys = 200000;
	const u32 k = 8, width = 512 / kbloom_test_block_cells(t);
	u64 counts[512] = { 0 }, i;
	double chi = 0, dof = kbloom_test_block_cells(t) - 1, sd = sqrt(2 * dof);
	double expected = keys * (1 - pow(1 - 1.0 / kbloom_test_block_cells(t), k));
	struct kbloom_filter f;
	unsigned int c;

	make_filter_type(&f, t->type, 1, k, 3);
	for (i = 0; i < keys; i++) {
		u64 v = mix64(i);

		kbloom_clear(&f);
		kbloom_add(&f, &v, sizeof(v));
		for (c = 0; c < kbloom_test_block_cells(t); c++)
			counts[c] += (f.words[c * width / 64] >>
				      (c * width % 64) & ((1U << width) - 1)) != 0;
	}
	kbloom_filter_free(&f);
	for (c = 0; c < kbloom_test_block_cells(t); c++)
		chi += (counts[c] - expected) * (counts[c] - expected) /
		       expected;
	/* cells - 1 degrees of freedom: 5 standard deviations either way. */
	expect(chi > dof - 5 * sd && chi < dof + 5 * sd, SUITE,
	       typed_name("cells_uniform", t),
	       "chi-square %.1f over %.0f dof", chi, dof);
}

int main(void)
{
	const struct kbloom_test_type *t;
	const u32 *b;

	for_each_host_type(t) {
		for (b = t->budgets; *b; b++)
			test_fp_matches_formula(t, *b);
		test_no_false_negatives(t);
		test_cells_uniform(t);
	}
	return harness_exit();
}
