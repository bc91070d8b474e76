// SPDX-License-Identifier: GPL-2.0
/*
 * Geometry: every invalid request is refused with its own errno, the
 * integer formula agrees with floating-point models, and sizing from
 * (n, p) meets p with no more than 1 % more bits than the minimum.
 */
#include <math.h>
#include "harness.h"
#include "model.h"

#define SUITE "geometry"

static void expect_errno(const char *name, int got, int want)
{
	expect(got == want, SUITE, name, "returned %d, want %d", got, want);
}

static void test_rejections(void)
{
	struct kbloom_geometry g;
	struct kbloom_filter f;

	expect_errno("bits_k17_einval",
		     kbloom_geometry_from_bits(&g, 1 << 20, 17, 0), -EINVAL);
	expect_errno("bits_zero_einval",
		     kbloom_geometry_from_bits(&g, 0, 7, 0), -EINVAL);
	expect_errno("bits_over_max_e2big",
		     kbloom_geometry_from_bits(&g, KBLOOM_MAX_BLOCKS * 512 + 1,
					       7, 0), -E2BIG);
	expect_errno("bits_u64_max_e2big",
		     kbloom_geometry_from_bits(&g, U64_MAX, 7, 0), -E2BIG);
	expect_errno("rate_capacity_zero_einval",
		     kbloom_geometry_from_rate(&g, 0, 10000000), -EINVAL);
	expect_errno("rate_fp_zero_einval",
		     kbloom_geometry_from_rate(&g, 1000, 0), -EINVAL);
	expect_errno("rate_fp_one_einval",
		     kbloom_geometry_from_rate(&g, 1000, KBLOOM_PPB), -EINVAL);
	expect_errno("rate_fp_over_one_einval",
		     kbloom_geometry_from_rate(&g, 1000, U32_MAX), -EINVAL);
	expect_errno("rate_huge_capacity_e2big",
		     kbloom_geometry_from_rate(&g, U64_MAX, 10000000), -E2BIG);
	expect_errno("rate_capacity_over_max_e2big",
		     kbloom_geometry_from_rate(&g, 1ULL << 40, 10000000),
		     -E2BIG);
	expect_errno("bpk_zero_einval",
		     kbloom_geometry_from_bits_per_key(&g, 1000, 0, 0),
		     -EINVAL);
	expect_errno("bpk_65_einval",
		     kbloom_geometry_from_bits_per_key(&g, 1000, 65, 0),
		     -EINVAL);
	expect_errno("bpk_capacity_zero_einval",
		     kbloom_geometry_from_bits_per_key(&g, 0, 10, 0), -EINVAL);
	expect_errno("bpk_k17_einval",
		     kbloom_geometry_from_bits_per_key(&g, 1000, 10, 17),
		     -EINVAL);
	expect_errno("bpk_overflow_e2big",
		     kbloom_geometry_from_bits_per_key(&g, 1ULL << 60, 64, 0),
		     -E2BIG);
	expect_errno("bpk_over_max_e2big",
		     kbloom_geometry_from_bits_per_key(&g, 1ULL << 36, 64, 0),
		     -E2BIG);

	g = (struct kbloom_geometry){ .nblocks = 1, .k = 0 };
	expect_errno("validate_k0_einval", kbloom_geometry_validate(&g),
		     -EINVAL);
	g.k = 17;
	expect_errno("validate_k17_einval", kbloom_geometry_validate(&g),
		     -EINVAL);
	g = (struct kbloom_geometry){ .nblocks = 0, .k = 7 };
	expect_errno("validate_nblocks0_einval", kbloom_geometry_validate(&g),
		     -EINVAL);
	g.nblocks = KBLOOM_MAX_BLOCKS + 1;
	expect_errno("validate_nblocks_over_e2big",
		     kbloom_geometry_validate(&g), -E2BIG);
	g = (struct kbloom_geometry){ .nblocks = 1, .k = 7, .type = 1 };
	expect_errno("validate_type_einval", kbloom_geometry_validate(&g),
		     -EINVAL);
	g = (struct kbloom_geometry){ .nblocks = 1, .k = 7,
				      .fp_target_ppb = KBLOOM_PPB };
	expect_errno("validate_target_einval", kbloom_geometry_validate(&g),
		     -EINVAL);
	g = (struct kbloom_geometry){ .nblocks = 1, .k = 17 };
	expect_errno("init_rejects_invalid", kbloom_filter_init(&f, &g),
		     -EINVAL);
}

static void test_accepted(void)
{
	struct kbloom_geometry g;
	int ret;

	ret = kbloom_geometry_from_bits(&g, 1000, 5, 77);
	expect(!ret && g.nblocks == 2 && g.k == 5 && g.capacity == 77 &&
	       !kbloom_geometry_validate(&g), SUITE, "bits_round_up_to_block",
	       "ret %d nblocks %llu k %u", ret,
	       (unsigned long long)g.nblocks, g.k);

	ret = kbloom_geometry_from_bits(&g, 512ULL * 1000, 0, 0);
	expect(!ret && g.k >= 1 && g.k <= 16, SUITE, "bits_k0_picks_best",
	       "ret %d k %u", ret, g.k);

	ret = kbloom_geometry_from_bits(&g, KBLOOM_MAX_BLOCKS * 512, 16, 0);
	expect(!ret && g.nblocks == KBLOOM_MAX_BLOCKS, SUITE,
	       "bits_at_max_accepted", "ret %d", ret);

	ret = kbloom_geometry_from_bits_per_key(&g, 1000, 10, 0);
	expect(!ret && g.nblocks == 20 && g.capacity == 1000, SUITE,
	       "bpk_sizes", "ret %d nblocks %llu", ret,
	       (unsigned long long)g.nblocks);

	ret = kbloom_geometry_from_rate(&g, 1, 1);
	expect(!ret && !kbloom_geometry_validate(&g) && g.fp_target_ppb == 1,
	       SUITE, "rate_extremes_accepted", "ret %d", ret);
}

/* The core's integer formula against the long-double closed form. */
static void test_formula_precision(void)
{
	static const double per_block[] = { 0.01, 1, 5, 10, 25.6, 32, 51.2,
					    64, 85.3, 128, 200, 400 };
	double worst = 0;
	unsigned int i, k;
	char where[64] = "";

	for (k = 1; k <= 16; k++) {
		for (i = 0; i < ARRAY_SIZE(per_block); i++) {
			/* n / nblocks = per_block exactly at these sizes */
			u64 nblocks = 10000;
			u64 n = (u64)(per_block[i] * nblocks);
			double want = model_fp_closed((double)n / nblocks, k);
			double got = kbloom_formula_fp_ppb(nblocks, n, k) / 1e9;
			double err = fabs(got - want) /
				     fmax(want * 1e-6, 0.5e-9 + 1e-12);

			if (err > worst) {
				worst = err;
				snprintf(where, sizeof(where),
					 "k %u lambda %g: %.9g vs %.9g", k,
					 (double)n / nblocks, got, want);
			}
		}
	}
	expect(worst <= 1, SUITE, "formula_integer_vs_float",
	       "worst %s", where);

	expect(kbloom_formula_fp_ppb(100, 0, 7) == 0 &&
	       kbloom_formula_fp_ppb(0, 100, 7) == KBLOOM_PPB &&
	       kbloom_formula_fp_ppb(100, 100, 0) == KBLOOM_PPB &&
	       kbloom_formula_fp_ppb(1, U64_MAX, 1) == KBLOOM_PPB &&
	       kbloom_formula_fp_ppb(KBLOOM_MAX_BLOCKS * 4, U64_MAX, 16) <=
	       KBLOOM_PPB, SUITE, "formula_edges", "unexpected edge value");
}

/* The closed form against direct occupancy computation: the derivation. */
static void test_closed_form_derivation(void)
{
	double worst = 0;
	unsigned int k;
	double lambda;
	char where[80] = "";

	for (k = 1; k <= 16; k++) {
		for (lambda = 2; lambda <= 300; lambda *= 1.7) {
			double a = model_fp_closed(lambda, k);
			double b = model_fp_scheme(lambda, k);
			double rel = fabs(a - b) / b;

			/* below 1 ppb the closed form's cancellation shows */
			if (b > 1e-9 && rel > worst) {
				worst = rel;
				snprintf(where, sizeof(where),
					 "k %u lambda %g: %.9g vs %.9g", k,
					 lambda, a, b);
			}
		}
	}
	expect(worst < 1e-6, SUITE, "closed_form_vs_occupancy",
	       "worst relative difference %g at %s", worst, where);
}

/* k = 0 picks the k the model says is best (or one within 0.1 %). */
static void test_best_k(void)
{
	static const u32 budgets[] = { 4, 6, 8, 10, 12, 16, 20, 24, 32 };
	unsigned int i, k;

	for (i = 0; i < ARRAY_SIZE(budgets); i++) {
		struct kbloom_geometry g;
		double lambda, best = 1, got;
		unsigned int best_k = 0;
		char name[48];

		kbloom_geometry_from_bits_per_key(&g, 51200, budgets[i], 0);
		lambda = 51200.0 / g.nblocks;
		for (k = 1; k <= 16; k++) {
			if (model_fp_scheme(lambda, k) < best) {
				best = model_fp_scheme(lambda, k);
				best_k = k;
			}
		}
		got = model_fp_scheme(lambda, g.k);
		snprintf(name, sizeof(name), "best_k_%ubpk", budgets[i]);
		expect(got <= best * 1.001, SUITE, name,
		       "core k %u (%.6g), model k %u (%.6g)", g.k, got,
		       best_k, best);
	}
}

/* The bisection in sizing relies on the rate never rising with blocks. */
static void test_formula_monotone(void)
{
	unsigned int k, bad = 0;
	u64 nblocks;

	for (k = 1; k <= 16; k++) {
		u32 prev = KBLOOM_PPB;

		for (nblocks = 1; nblocks < 200000; nblocks += nblocks / 8 + 1) {
			u32 fp = kbloom_formula_fp_ppb(nblocks, 1000000, k);

			bad += fp > prev;
			prev = fp;
		}
	}
	expect(!bad, SUITE, "formula_falls_with_blocks",
	       "%u increases over the sweep", bad);
}

/*
 * Sizing is minimal: one block fewer misses the target with every k at the
 * design load (capacity plus 1/128).
 */
static void test_sizing_minimal(void)
{
	static const struct {
		u64 n;
		u32 fp_ppb;
	} cases[] = { { 1, 500000000 }, { 1000, 10000000 },
		      { 123457, 1000000 }, { 10000000, 100000 },
		      { 5000000000ULL, 1000 }, { 1000000, 1 } };
	unsigned int i, k, bad = 0;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct kbloom_geometry g;
		u64 design = cases[i].n + cases[i].n / 128;

		if (kbloom_geometry_from_rate(&g, cases[i].n, cases[i].fp_ppb)) {
			bad++;
			continue;
		}
		bad += kbloom_formula_fp_ppb(g.nblocks, design, g.k) >
		       cases[i].fp_ppb;
		for (k = 1; k <= 16 && g.nblocks > 1; k++)
			bad += kbloom_formula_fp_ppb(g.nblocks - 1, design, k) <
			       cases[i].fp_ppb;
	}
	expect(!bad, SUITE, "sizing_minimal", "%u violations", bad);
}

/*
 * Sizing for (n, p): the measured rate at n is at most p, and the filter
 * uses at most 1 % more bits than the least any k needs for p.  Queries are
 * enough that the sampling error is well under the sizing slack.
 */
static void test_sizing(u32 fp_ppb, u64 queries)
{
	const u64 n = 1000000;
	struct kbloom_geometry g;
	struct kbloom_filter f;
	double p = fp_ppb / 1e9, min_bpk, bpk, measured, model;
	unsigned int min_k = 0;
	char name[48];
	int ret;

	snprintf(name, sizeof(name), "sizing_%gpct", 100 * p);
	ret = kbloom_geometry_from_rate(&g, n, fp_ppb);
	if (ret) {
		fail(SUITE, name, "from_rate returned %d", ret);
		return;
	}
	min_bpk = model_min_bits_per_key(p, &min_k);
	bpk = (double)g.nblocks * 512 / n;
	model = model_fp_scheme((double)n / g.nblocks, g.k);

	make_filter_geo(&f, &g, 99 + fp_ppb);
	add_counter_keys(&f, 0, n);
	measured = (double)count_counter_hits(&f, n, queries) / queries;
	kbloom_filter_free(&f);

	printf("# p %g%%: k %u, %.4f bits/key (minimum %.4f at k %u, +%.2f%%), design %.5g%%, measured %.5g%% (%+.2f%% vs p, sigma %.2f%%)\n",
	       100 * p, g.k, bpk, min_bpk, min_k, 100 * (bpk / min_bpk - 1),
	       100 * model, 100 * measured, 100 * (measured / p - 1),
	       100 * sqrt(p / queries) / p);
	expect(measured <= p && model <= p && bpk <= min_bpk * 1.01, SUITE,
	       name, "measured %.6g, design %.6g, p %.6g, %.4f bits/key vs minimum %.4f",
	       measured, model, p, bpk, min_bpk);
}

int main(void)
{
	test_rejections();
	test_accepted();
	test_formula_precision();
	test_closed_form_derivation();
	test_best_k();
	test_formula_monotone();
	test_sizing_minimal();
	test_sizing(100000000, 4000000);
	test_sizing(10000000, 4000000);
	test_sizing(1000000, 10000000);
	test_sizing(100000, 40000000);
	return harness_exit();
}
