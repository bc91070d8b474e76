// SPDX-License-Identifier: GPL-2.0
/*
 * Geometry in floating point, for every type: the core's integer formula
 * agrees with the models of model.h, k = 0 picks the best k, and sizing
 * from (n, p) meets p, measured over a million keys, with no more than
 * 1 % more bits than the minimum.  A window's rate is its whole window's,
 * all g generations live and holding their share, measured at that very
 * moment, just before a rotation.  The requests, their errors and the
 * formula's integer properties are the unit suite's (kunit/geometry.c).
 */
#include <math.h>
#include "harness.h"
#include "model.h"
#include "kbloom_formula.h"

#define SUITE "geometry"

/* The generations a type's rate counts: a window's g, else the one. */
static unsigned int live_of(const struct kbloom_test_type *t)
{
	return t->generations ? t->generations : 1;
}

/* 64-byte blocks per key block. */
static u64 unit_blocks(const struct kbloom_test_type *t)
{
	return kbloom_test_key_block(t);
}

/* The core's integer formula against the long-double closed form. */
static void test_formula_precision(const struct kbloom_test_type *t)
{
	static const double per_block[] = { 0.01, 1, 5, 10, 25.6, 32, 51.2,
					    64, 85.3, 128, 200, 400 };
	double worst = 0;
	unsigned int i, k;
	char where[64] = "";

	for (k = 1; k <= 16; k++) {
		for (i = 0; i < ARRAY_SIZE(per_block); i++) {
			/* n / key blocks = per_block exactly at these sizes */
			u64 units = 10000;
			u64 n = (u64)(per_block[i] * units);
			double want = type_model_closed(t, (double)n / units,
							k, live_of(t));
			double got = type_core_fp(t, units * unit_blocks(t), n,
						  k, live_of(t));
			double err = fabs(got - want) /
				     fmax(want * 1e-6, 0.5e-9 + 1e-12);

			if (err > worst) {
				worst = err;
				snprintf(where, sizeof(where),
					 "k %u lambda %g: %.9g vs %.9g", k,
					 (double)n / units, got, want);
			}
		}
	}
	expect(worst <= 1, SUITE, typed_name("formula_integer_vs_float", t),
	       "worst %s", where);
}

/* The closed form against direct occupancy computation: the derivation. */
static void test_closed_form_derivation(const struct kbloom_test_type *t)
{
	double worst = 0;
	unsigned int k;
	double lambda;
	char where[80] = "";

	for (k = 1; k <= 16; k++) {
		for (lambda = 2; lambda <= 300; lambda *= 1.7) {
			double a = type_model_closed(t, lambda, k, live_of(t));
			double b = type_model_fp(t, lambda, k, live_of(t));
			/*
			 * Below 1 ppb the closed form's cancellation shows,
			 * and a window's, summed per s, cancels in each
			 * sum: 1e-14 absolute is long double's share of it.
			 */
			double rel = fabs(a - b) / fmax(b, 1e-8);

			if (b > 1e-9 && rel > worst) {
				worst = rel;
				snprintf(where, sizeof(where),
					 "k %u lambda %g: %.9g vs %.9g", k,
					 lambda, a, b);
			}
		}
	}
	expect(worst < 1e-6, SUITE, typed_name("closed_form_vs_occupancy", t),
	       "worst relative difference %g at %s", worst, where);
}

/* k = 0 picks the k the model says is best (or one within 0.1 %). */
static void test_best_k(const struct kbloom_test_type *t)
{
	static const u32 budgets[] = { 4, 6, 8, 10, 12, 16, 20, 24, 32, 40,
				       48, 64 };
	struct kbloom_geometry g;
	unsigned int i, k, k_none, k_ten;

	for (i = 0; i < ARRAY_SIZE(budgets); i++) {
		double lambda, best = 1, got;
		unsigned int best_k = 0;

		kbloom_geometry_from_bits_per_key_gen(&g, t->type,
						      t->generations, 51200,
						      budgets[i], 0);
		lambda = (double)type_share(t, 51200) / key_blocks(&g);
		for (k = 1; k <= 16; k++) {
			double fp = type_model_fp(t, lambda, k, live_of(t));

			if (fp < best) {
				best = fp;
				best_k = k;
			}
		}
		got = type_model_fp(t, lambda, g.k, live_of(t));
		expect(got <= best * 1.001, SUITE,
		       typed_name("best_k_%ubpk", t, budgets[i]),
		       "core k %u (%.6g), model k %u (%.6g)", g.k, got,
		       best_k, best);
	}
	/*
	 * No capacity: designed for 10 cells per key (12800 keys in 1000
	 * counting blocks), not 10 bits of memory (which would be 2.5
	 * counters and a k of 2); a window's in each generation, which
	 * (g - 1) times that capacity asks for.
	 */
	kbloom_geometry_from_bits_gen(&g, t->type, t->generations, 512 * 1000,
				      0, 0);
	k_none = g.k;
	kbloom_geometry_from_bits_gen(&g, t->type, t->generations, 512 * 1000,
				      0, (t->generations ? t->generations - 1 :
					  1) * 1000 *
				      kbloom_test_block_cells(t) / 10);
	k_ten = g.k;
	expect(k_none == k_ten && k_none >= 5, SUITE,
	       typed_name("best_k_without_capacity", t),
	       "k %u, for 10 cells %u", k_none, k_ten);
}

/*
 * Sizing for (n, p): the measured rate at n is at most p, and the filter
 * uses at most 1 % more bits than the least any k needs for p.  Queries are
 * enough that the sampling error is well under the sizing slack.  A
 * window's n keys are g - 1 generations' worth: measured with all g live
 * generations holding that share, after a rotation past them all.
 */
static void test_sizing(const struct kbloom_test_type *t, u32 fp_ppb, u64 queries)
{
	const u64 n = 1000000;
	struct kbloom_geometry g;
	struct kbloom_filter f;
	double p = fp_ppb / 1e9, min_bpk, bpk, measured, model;
	unsigned int min_k = 0;
	u64 share = type_share(t, n), next = 0;
	char name[48];
	int ret;

	snprintf(name, sizeof(name), "sizing_%gpct", 100 * p);
	ret = kbloom_geometry_from_rate_gen(&g, t->type, t->generations, n,
					    fp_ppb);
	if (ret) {
		fail(SUITE, typed_name("%s", t, name),
		     "from_rate returned %d", ret);
		return;
	}
	if (t->generations)
		min_bpk = 8 * model_window_bytes_per_key(p, t->generations,
							 &min_k);
	else
		min_bpk = model_min_bits_per_key_cells(p,
						       kbloom_test_block_cells(t),
						       &min_k);
	bpk = (double)g.nblocks * 512 / n;
	model = type_model_fp(t, (double)share / key_blocks(&g), g.k,
			      live_of(t));

	make_filter_geo(&f, &g, 99 + fp_ppb);
	add_generations(&f, &next, share, live_of(t) + !!t->generations,
			false);
	measured = (double)count_counter_hits(&f, next, queries) / queries;
	kbloom_filter_free(&f);

	printf("# %s p %g%%: k %u, %.4f bits/key (minimum %.4f at k %u, +%.2f%%), design %.5g%%, measured %.5g%% (%+.2f%% vs p, sigma %.2f%%)\n",
	       t->name, 100 * p, g.k, bpk, min_bpk, min_k,
	       100 * (bpk / min_bpk - 1),
	       100 * model, 100 * measured, 100 * (measured / p - 1),
	       100 * sqrt(p / queries) / p);
	expect(measured <= p && model <= p && bpk <= min_bpk * 1.01, SUITE,
	       typed_name("%s", t, name),
	       "measured %.6g, design %.6g, p %.6g, %.4f bits/key vs minimum %.4f",
	       measured, model, p, bpk, min_bpk);
}

/*
 * A window's integer rate at its hardest: up to 63 generations, k up to
 * 16, rates down to a fraction of a ppb, where each generation's sum
 * cancels 2^13-fold and g of them add.  Held to 0.01 ppb plus 10^-4 of
 * the long-double closed form, at 16 fractional bits of ppb (the
 * precision sizing compares at).
 */
static void test_window_formula_precision(void)
{
	static const u32 gens[] = { 2, 3, 7, 16, 31, 48, 63 };
	double worst = 0;
	char where[96] = "";
	unsigned int i, k;

	for (i = 0; i < ARRAY_SIZE(gens); i++) {
		for (k = 1; k <= 16; k++) {
			struct kbloom_fp_model m;
			double lambda;

			kbloom_fp_model_init(&m, k);
			for (lambda = 0.25; lambda <= 300; lambda *= 1.37) {
				u64 units = 1000000;
				u64 n = (u64)(lambda * units);
				double want = model_fp_window_closed((double)n / units,
								     k, gens[i]);
				double got = kbloom_fp_model_window_ppb16(&m, n, units,
									  gens[i]) /
					     65536e9;
				double err = fabs(got - want) /
					     (1e-11 + 1e-4 * want);

				if (err > worst) {
					worst = err;
					snprintf(where, sizeof(where),
						 "g %u k %u lambda %g: %.6g vs %.6g",
						 gens[i], k, (double)n / units,
						 got, want);
				}
			}
		}
	}
	expect(worst <= 1, SUITE, "window_formula_precision",
	       "worst %.3g of the bound at %s", worst, where);
}

int main(void)
{
	const struct kbloom_test_type *t;

	test_window_formula_precision();
	for_each_host_type(t) {
		test_formula_precision(t);
		test_closed_form_derivation(t);
		test_best_k(t);
		test_sizing(t, 100000000, 4000000);
		test_sizing(t, 10000000, 4000000);
		test_sizing(t, 1000000, 10000000);
		test_sizing(t, 100000, 40000000);
	}
	return harness_exit();
}
