// SPDX-License-Identifier: GPL-2.0
/*
 * Geometry: every invalid request is refused with its own errno, the
 * integer formula agrees with floating-point models, and sizing from
 * (n, p) meets p with no more than 1 % more bits than the minimum, for
 * both the bits type (512 cells a block) and the counting type (128).
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
	g = (struct kbloom_geometry){ .nblocks = 1, .k = 7, .type = 2 };
	expect_errno("validate_type_einval", kbloom_geometry_validate(&g),
		     -EINVAL);
	g.type = U32_MAX;
	expect_errno("validate_type_u32_max_einval",
		     kbloom_geometry_validate(&g), -EINVAL);
	expect_errno("rate_type2_einval",
		     kbloom_geometry_from_rate_type(&g, 2, 1000, 10000000),
		     -EINVAL);
	expect_errno("bits_type2_einval",
		     kbloom_geometry_from_bits_type(&g, 2, 4096, 7, 0),
		     -EINVAL);
	expect_errno("bpk_type2_einval",
		     kbloom_geometry_from_bits_per_key_type(&g, 2, 1000, 10,
							    0), -EINVAL);
	expect_errno("counting_bits_over_max_e2big",
		     kbloom_geometry_from_bits_type(&g, KBLOOM_TYPE_COUNTING,
						    KBLOOM_MAX_BLOCKS * 512 +
						    1, 7, 0), -E2BIG);
	expect_errno("counting_rate_over_max_e2big",
		     kbloom_geometry_from_rate_type(&g, KBLOOM_TYPE_COUNTING,
						    1ULL << 38, 10000000),
		     -E2BIG);
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

	/* Bits mean memory for counters too: the same blocks, 1/4 cells. */
	ret = kbloom_geometry_from_bits_per_key_type(&g, KBLOOM_TYPE_COUNTING,
						     1000, 40, 0);
	expect(!ret && g.nblocks == 79 && g.type == KBLOOM_TYPE_COUNTING &&
	       g.capacity == 1000 && !kbloom_geometry_validate(&g), SUITE,
	       "counting_bpk_sizes_memory", "ret %d nblocks %llu type %u",
	       ret, (unsigned long long)g.nblocks, g.type);
	ret = kbloom_geometry_from_bits_type(&g, KBLOOM_TYPE_COUNTING, 1000,
					     5, 77);
	expect(!ret && g.nblocks == 2 && g.k == 5 &&
	       g.type == KBLOOM_TYPE_COUNTING, SUITE,
	       "counting_bits_round_up_to_block", "ret %d nblocks %llu",
	       ret, (unsigned long long)g.nblocks);
	ret = kbloom_geometry_from_rate_type(&g, KBLOOM_TYPE_COUNTING, 1000,
					     10000000);
	expect(!ret && g.type == KBLOOM_TYPE_COUNTING &&
	       g.fp_target_ppb == 10000000 && !kbloom_geometry_validate(&g),
	       SUITE, "counting_rate_accepted", "ret %d", ret);
	ret = kbloom_geometry_from_bits(&g, 4096, 7, 0);
	expect(!ret && g.type == KBLOOM_TYPE_BITS, SUITE,
	       "untyped_calls_give_bits", "type %u", g.type);
}

/* The cells of a block of each type, for the model. */
static unsigned int type_cells(u32 type)
{
	return type == KBLOOM_TYPE_COUNTING ? MODEL_CELLS_COUNTING :
					      MODEL_CELLS_BITS;
}

/* The core's integer formula against the long-double closed form. */
static void formula_precision(u32 type, const char *name)
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
			double want = model_fp_closed_cells((double)n / nblocks,
							    k, type_cells(type));
			double got = kbloom_formula_fp_ppb_type(type, nblocks,
								n, k) / 1e9;
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
	expect(worst <= 1, SUITE, name, "worst %s", where);
}

static void test_formula_precision(void)
{
	formula_precision(KBLOOM_TYPE_BITS, "formula_integer_vs_float");
	formula_precision(KBLOOM_TYPE_COUNTING,
			  "counting_formula_integer_vs_float");
	expect(kbloom_formula_fp_ppb_type(2, 100, 100, 7) == KBLOOM_PPB &&
	       kbloom_formula_fp_ppb_type(KBLOOM_TYPE_BITS, 1000, 5000, 7) ==
	       kbloom_formula_fp_ppb(1000, 5000, 7) &&
	       kbloom_formula_fp_ppb_type(KBLOOM_TYPE_COUNTING, 4000, 5000,
					  7) >
	       kbloom_formula_fp_ppb(1000, 5000, 7), SUITE,
	       "formula_by_type", "type dispatch wrong");

	expect(kbloom_formula_fp_ppb(100, 0, 7) == 0 &&
	       kbloom_formula_fp_ppb(0, 100, 7) == KBLOOM_PPB &&
	       kbloom_formula_fp_ppb(100, 100, 0) == KBLOOM_PPB &&
	       kbloom_formula_fp_ppb(1, U64_MAX, 1) == KBLOOM_PPB &&
	       kbloom_formula_fp_ppb(KBLOOM_MAX_BLOCKS * 4, U64_MAX, 16) <=
	       KBLOOM_PPB, SUITE, "formula_edges", "unexpected edge value");
}

/* The closed form against direct occupancy computation: the derivation. */
static void closed_form_derivation(unsigned int cells, const char *name)
{
	double worst = 0;
	unsigned int k;
	double lambda;
	char where[80] = "";

	for (k = 1; k <= 16; k++) {
		for (lambda = 2; lambda <= 300; lambda *= 1.7) {
			double a = model_fp_closed_cells(lambda, k, cells);
			double b = model_fp_scheme_cells(lambda, k, cells);
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
	expect(worst < 1e-6, SUITE, name,
	       "worst relative difference %g at %s", worst, where);
}

static void test_closed_form_derivation(void)
{
	closed_form_derivation(MODEL_CELLS_BITS, "closed_form_vs_occupancy");
	closed_form_derivation(MODEL_CELLS_COUNTING,
			       "counting_closed_form_vs_occupancy");
}

/* k = 0 picks the k the model says is best (or one within 0.1 %). */
static void best_k(u32 type, const u32 *budgets, unsigned int nbudgets)
{
	unsigned int cells = type_cells(type), i, k;

	for (i = 0; i < nbudgets; i++) {
		struct kbloom_geometry g;
		double lambda, best = 1, got;
		unsigned int best_k = 0;
		char name[48];

		kbloom_geometry_from_bits_per_key_type(&g, type, 51200,
						       budgets[i], 0);
		lambda = 51200.0 / g.nblocks;
		for (k = 1; k <= 16; k++) {
			double fp = model_fp_scheme_cells(lambda, k, cells);

			if (fp < best) {
				best = fp;
				best_k = k;
			}
		}
		got = model_fp_scheme_cells(lambda, g.k, cells);
		snprintf(name, sizeof(name), "%sbest_k_%ubpk",
			 type ? "counting_" : "", budgets[i]);
		expect(got <= best * 1.001, SUITE, name,
		       "core k %u (%.6g), model k %u (%.6g)", g.k, got,
		       best_k, best);
	}
}

static void test_best_k(void)
{
	static const u32 bits_budgets[] = { 4, 6, 8, 10, 12, 16, 20, 24, 32 };
	static const u32 counting_budgets[] = { 8, 16, 32, 40, 48, 64 };
	struct kbloom_geometry g;
	unsigned int k_none, k_ten;

	best_k(KBLOOM_TYPE_BITS, bits_budgets, ARRAY_SIZE(bits_budgets));
	best_k(KBLOOM_TYPE_COUNTING, counting_budgets,
	       ARRAY_SIZE(counting_budgets));
	/*
	 * No capacity: designed for 10 cells per key (12800 keys in 1000
	 * counting blocks), not 10 bits of memory (which would be 2.5 cells
	 * and a k of 2).
	 */
	kbloom_geometry_from_bits_type(&g, KBLOOM_TYPE_COUNTING, 512 * 1000, 0,
				       0);
	k_none = g.k;
	kbloom_geometry_from_bits_type(&g, KBLOOM_TYPE_COUNTING, 512 * 1000, 0,
				       12800);
	k_ten = g.k;
	expect(k_none == k_ten && k_none >= 5, SUITE,
	       "counting_best_k_without_capacity", "k %u, for 10 cells %u",
	       k_none, k_ten);
}

/* The bisection in sizing relies on the rate never rising with blocks. */
static void test_formula_monotone(void)
{
	unsigned int k, bad = 0;
	u32 type;
	u64 nblocks;

	for (type = KBLOOM_TYPE_BITS; type <= KBLOOM_TYPE_COUNTING; type++) {
		for (k = 1; k <= 16; k++) {
			u32 prev = KBLOOM_PPB;

			for (nblocks = 1; nblocks < 800000;
			     nblocks += nblocks / 8 + 1) {
				u32 fp = kbloom_formula_fp_ppb_type(type,
								    nblocks,
								    1000000,
								    k);

				bad += fp > prev;
				prev = fp;
			}
		}
	}
	expect(!bad, SUITE, "formula_falls_with_blocks",
	       "%u increases over the sweep", bad);
}

/*
 * Sizing is minimal: one block fewer misses the target with every k at the
 * design load (capacity plus 1/128).
 */
static void sizing_minimal(u32 type, const char *name)
{
	static const struct {
		u64 n;
		u32 fp_ppb;
	} cases[] = { { 1, 500000000 }, { 1000, 10000000 },
		      { 123457, 1000000 }, { 10000000, 100000 },
		      { 1000000000ULL, 1000 }, { 1000000, 1 } };
	unsigned int i, k, bad = 0;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct kbloom_geometry g;
		u64 design = cases[i].n + cases[i].n / 128;

		if (kbloom_geometry_from_rate_type(&g, type, cases[i].n,
						   cases[i].fp_ppb)) {
			bad++;
			continue;
		}
		bad += kbloom_formula_fp_ppb_type(type, g.nblocks, design,
						  g.k) > cases[i].fp_ppb;
		for (k = 1; k <= 16 && g.nblocks > 1; k++)
			bad += kbloom_formula_fp_ppb_type(type, g.nblocks - 1,
							  design, k) <
			       cases[i].fp_ppb;
	}
	expect(!bad, SUITE, name, "%u violations", bad);
}

static void test_sizing_minimal(void)
{
	sizing_minimal(KBLOOM_TYPE_BITS, "sizing_minimal");
	sizing_minimal(KBLOOM_TYPE_COUNTING, "counting_sizing_minimal");
}

/*
 * Sizing for (n, p): the measured rate at n is at most p, and the filter
 * uses at most 1 % more bits than the least any k needs for p.  Queries are
 * enough that the sampling error is well under the sizing slack.
 */
static void test_sizing(u32 type, u32 fp_ppb, u64 queries)
{
	const u64 n = 1000000;
	struct kbloom_geometry g;
	struct kbloom_filter f;
	double p = fp_ppb / 1e9, min_bpk, bpk, measured, model;
	unsigned int min_k = 0, cells = type_cells(type);
	char name[48];
	int ret;

	snprintf(name, sizeof(name), "%ssizing_%gpct",
		 type ? "counting_" : "", 100 * p);
	ret = kbloom_geometry_from_rate_type(&g, type, n, fp_ppb);
	if (ret) {
		fail(SUITE, name, "from_rate returned %d", ret);
		return;
	}
	min_bpk = model_min_bits_per_key_cells(p, cells, &min_k);
	bpk = (double)g.nblocks * 512 / n;
	model = model_fp_scheme_cells((double)n / g.nblocks, g.k, cells);

	make_filter_geo(&f, &g, 99 + fp_ppb);
	add_counter_keys(&f, 0, n);
	measured = (double)count_counter_hits(&f, n, queries) / queries;
	kbloom_filter_free(&f);

	printf("# %s p %g%%: k %u, %.4f bits/key (minimum %.4f at k %u, +%.2f%%), design %.5g%%, measured %.5g%% (%+.2f%% vs p, sigma %.2f%%)\n",
	       type ? "counting" : "bits", 100 * p, g.k, bpk, min_bpk, min_k,
	       100 * (bpk / min_bpk - 1),
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
	test_sizing(KBLOOM_TYPE_BITS, 100000000, 4000000);
	test_sizing(KBLOOM_TYPE_BITS, 10000000, 4000000);
	test_sizing(KBLOOM_TYPE_BITS, 1000000, 10000000);
	test_sizing(KBLOOM_TYPE_BITS, 100000, 40000000);
	test_sizing(KBLOOM_TYPE_COUNTING, 100000000, 4000000);
	test_sizing(KBLOOM_TYPE_COUNTING, 10000000, 4000000);
	test_sizing(KBLOOM_TYPE_COUNTING, 1000000, 10000000);
	return harness_exit();
}
