// SPDX-License-Identifier: GPL-2.0
/*
 * What the unit suite cannot afford under UML, for every type: millions of
 * keys.  The filter never forgets a key, its false-positive rate is what
 * the model of its scheme (model.h) says at every budget, and the cells a
 * key sets are uniform over its block.  A window never forgets a key of a
 * live generation, its expired keys answer "maybe" at the rate of absent
 * ones, and at steady state, with 2, 4, 8 and 16 generations, its rate is
 * the exact model's for its scheme, which is not what treating its
 * generations as independent filters would say.
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

	/*
	 * 10 bits a key; a window's all go to its current generation, with
	 * 10 cells a key there (test_fp_matches_formula() says why by bits).
	 */
	kbloom_geometry_from_bits_gen(&geo, t->type, t->generations,
				      draws * (t->generations ?
					       10 * t->cell_bits : 10), 0,
				      draws * (t->generations ?
					       t->generations - 1 : 1));
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

	want = type_model_fp(t, (double)members / key_blocks(&geo), geo.k, 1);
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

/*
 * Measured rate against the model at the best k for each budget.  A
 * window's budget is memory per key of one generation: all g of them hold
 * n keys (filled one after the other, the oldest dropped once).
 */
static void test_fp_matches_formula(const struct kbloom_test_type *t,
				    u32 bits_per_key)
{
	const u64 n = 1000000, queries = 4000000;
	struct kbloom_geometry geo;
	struct kbloom_filter f;
	double lambda, want, got, sigma, core;
	u32 live = t->generations ? t->generations : 1;
	u64 hits, next = 0;

	/*
	 * By bits, not bits per key: a window's budget per key of one
	 * generation may pass KBLOOM_MAX_BITS_PER_KEY, which counts per key
	 * of the window.  Its capacity, g - 1 generations of n, makes k the
	 * best for n a generation.
	 */
	kbloom_geometry_from_bits_gen(&geo, t->type, t->generations,
				      n * bits_per_key, 0,
				      n * (t->generations ?
					   t->generations - 1 : 1));
	make_filter_geo(&f, &geo, 1234 + bits_per_key);
	add_generations(&f, &next, n, live + !!t->generations, false);
	hits = count_counter_hits(&f, next, queries);

	lambda = (double)n / key_blocks(&geo);
	want = type_model_fp(t, lambda, geo.k, live);
	core = type_core_fp(t, geo.nblocks, n, geo.k, live);
	got = (double)hits / queries;
	sigma = sqrt(want * (1 - want) / queries);
	/* a window's generations taken as independent filters, else PSS */
	printf("# %s %2u bits/key (%5.2f cells) k=%2u: measured %.5f%% model %.5f%% core %.5f%% %s %.5f%% (%+.2f%%, %.1f sigma)\n",
	       t->name, bits_per_key, bits_per_key * kbloom_test_block_cells(t) / 512.0, geo.k,
	       100 * got, 100 * want, 100 * core,
	       t->generations ? "independent" : "textbook",
	       100 * (t->generations ?
		      model_fp_window_independent(lambda, geo.k, live) :
		      model_fp_textbook_cells(lambda, geo.k,
					      kbloom_test_block_cells(t))),
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
	/* a window's key block: 512 cells of P bits in P lines */
	const u32 k = 8, width = t->cell_bits,
		  cells = kbloom_test_block_cells(t) * kbloom_test_key_block(t);
	const u64 mask = width == 64 ? ~0ULL : (1ULL << width) - 1;
	u64 counts[512] = { 0 }, i;
	double chi = 0, dof = cells - 1, sd = sqrt(2 * dof);
	double expected = keys * (1 - pow(1 - 1.0 / cells, k));
	struct kbloom_filter f;
	unsigned int c;

	make_filter_type(&f, t, 1, k, 3);
	for (i = 0; i < keys; i++) {
		u64 v = mix64(i);

		kbloom_clear(&f);
		kbloom_add(&f, &v, sizeof(v));
		for (c = 0; c < cells; c++)
			counts[c] += (f.words[(u64)c * width / 64] >>
				      ((u64)c * width % 64) & mask) != 0;
	}
	kbloom_filter_free(&f);
	for (c = 0; c < cells; c++)
		chi += (counts[c] - expected) * (counts[c] - expected) /
		       expected;
	/* cells - 1 degrees of freedom: 5 standard deviations either way. */
	expect(chi > dof - 5 * sd && chi < dof + 5 * sd, SUITE,
	       typed_name("cells_uniform", t),
	       "chi-square %.1f over %.0f dof", chi, dof);
}

/*
 * A window of the type's g over 3 g rotations, m keys a generation: after
 * each fill every key of the g live generations answers "maybe", and the
 * keys of the generation the last rotation retired answer it at the rate
 * of keys never added (the same cells decide both), which the model says
 * for g live generations of m keys.
 */
static void test_window_forgets(const struct kbloom_test_type *t)
{
	const u64 m = 200000;
	const u32 g = t->generations, rounds = 3 * g;
	struct kbloom_geometry geo;
	struct kbloom_filter f;
	u64 next = 0, missed = 0, expired = 0, expired_hits = 0, absent_hits;
	u64 absent = 0;
	double want, got_expired, got_absent, sigma;
	u32 r;

	kbloom_geometry_from_rate_gen(&geo, t->type, g, (g - 1) * m, 10000000);
	make_filter_geo(&f, &geo, 77);
	for (r = 0; r < rounds; r++) {
		u64 live_from;

		add_generations(&f, &next, m, 1, r > 0);
		live_from = next > g * m ? next - g * m : 0;
		missed += (next - live_from) -
			  count_counter_hits(&f, live_from, next - live_from);
		if (live_from >= m) {
			expired += m;
			expired_hits += count_counter_hits(&f, live_from - m, m);
		}
	}
	absent = 4000000;
	absent_hits = count_counter_hits(&f, 1ULL << 40, absent);
	want = model_fp_window((double)m / key_blocks(&geo), geo.k, g);
	got_expired = (double)expired_hits / expired;
	got_absent = (double)absent_hits / absent;
	sigma = sqrt(want / expired);
	expect(!missed, SUITE, typed_name("window_live_keys_found", t),
	       "%llu keys of live generations answered absent",
	       (unsigned long long)missed);
	printf("# %s g %u, %u rotations: expired keys maybe %.5f%%, absent %.5f%%, model %.5f%%\n",
	       t->name, g, rounds - 1, 100 * got_expired, 100 * got_absent,
	       100 * want);
	expect(fabs(got_expired - want) <= fmax(5 * sigma, 0.02 * want),
	       SUITE, typed_name("window_expired_keys_fp", t),
	       "expired keys %.6f, model %.6f, sigma %.6f", got_expired, want,
	       sigma);
	kbloom_filter_free(&f);
}

/*
 * The must-show: at steady state (past g rotations) and at its worst
 * moment, all g live generations holding their share just before the next
 * rotation, a window sized for p measures the exact model's rate for its
 * scheme within max(5 sigma, 2 %): the core's integer formula and the
 * host's own occupancy computation, which must agree with each other.
 * 1 - (1 - p1)^g, the generations taken as independent filters, is
 * printed beside them.
 */
static void test_window_steady_state(u32 g, u32 fp_ppb, u64 queries)
{
	const u64 share = 250000;
	struct kbloom_geometry geo;
	struct kbloom_filter f;
	double lambda, want, core, indep, got, sigma;
	u64 next = 0, hits;
	char name[64];
	int ret;

	snprintf(name, sizeof(name), "window_steady_state_g%u_%gpct", g,
		 fp_ppb / 1e7);
	ret = kbloom_geometry_from_rate_gen(&geo, KBLOOM_TYPE_WINDOW, g,
					    (g - 1) * share, fp_ppb);
	if (ret) {
		fail(SUITE, name, "from_rate returned %d", ret);
		return;
	}
	make_filter_geo(&f, &geo, 1000 + g);
	add_generations(&f, &next, share, 2 * g + 1, false);
	hits = count_counter_hits(&f, next, queries);
	kbloom_filter_free(&f);

	lambda = (double)share / key_blocks(&geo);
	want = model_fp_window(lambda, geo.k, g);
	core = kbloom_formula_fp_ppb_window(geo.nblocks, geo.plane_order,
					    share, geo.k, g) / 1e9;
	indep = model_fp_window_independent(lambda, geo.k, g);
	got = (double)hits / queries;
	sigma = sqrt(want * (1 - want) / queries);
	printf("# window g %2u p %g%%: k %2u, %.3f bytes/key, measured %.5f%% exact model %.5f%% (core %.5f%%) 1-(1-p)^g %.5f%% (%+.3f%% of exact) measured vs exact %+.2f%% (%.1f sigma)\n",
	       g, fp_ppb / 1e7, geo.k,
	       geo.nblocks * 64.0 / ((g - 1) * share), 100 * got, 100 * want,
	       100 * core, 100 * indep, 100 * (indep / want - 1),
	       100 * (got / want - 1), (got - want) / sigma);
	expect(fabs(got - want) <= fmax(5 * sigma, 0.02 * want) &&
	       fabs(core - want) <= 1e-9 + 1e-6 * want, SUITE, name,
	       "measured %.6g, model %.6g, core %.6g (sigma %.2g)", got, want,
	       core, sigma);
}

int main(void)
{
	const struct kbloom_test_type *t;
	const u32 *b;
	u32 g;

	for_each_host_type(t) {
		for (b = t->budgets; *b; b++)
			test_fp_matches_formula(t, *b);
		test_no_false_negatives(t);
		test_cells_uniform(t);
		if (t->generations)
			test_window_forgets(t);
	}
	for (g = 2; g <= 16; g *= 2) {
		test_window_steady_state(g, 10000000, 10000000);
		test_window_steady_state(g, 1000000, 20000000);
	}
	return harness_exit();
}
