// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom-geometry: requests for a filter's shape, good and bad, the
 * integer rate formula the sizing relies on, and that a filter sized from
 * (n, p) meets p at n, for every type.
 */
#include "kbloom_test.h"

/* Geometry requests, good and bad; err 0 rows give the expected blocks. */
enum kbloom_test_geo_call {
	KBLOOM_TEST_RATE,
	KBLOOM_TEST_BITS,
	KBLOOM_TEST_BITS_PER_KEY,
	KBLOOM_TEST_VALIDATE,
	KBLOOM_TEST_INIT,
};

struct kbloom_test_geo_case {
	const char *name;
	enum kbloom_test_geo_call call;
	u64 capacity;
	u64 bits;		/* nblocks for VALIDATE and INIT */
	u32 fp_ppb;		/* bits per key for BITS_PER_KEY */
	u32 k;
	u32 bad_type;		/* instead of the parameter's, if not 0 */
	int err;
	u64 nblocks;		/* 0: any */
};

#define KBLOOM_TEST_NO_TYPE	(KBLOOM_TYPE_COUNTING + 1)

static const struct kbloom_test_geo_case kbloom_test_geo_cases[] = {
	{ "rate_fp_0", KBLOOM_TEST_RATE, 1000, 0, 0, 0, 0, -EINVAL },
	{ "rate_fp_1e9", KBLOOM_TEST_RATE, 1000, 0, KBLOOM_PPB, 0, 0, -EINVAL },
	{ "rate_fp_over_1", KBLOOM_TEST_RATE, 1000, 0, U32_MAX, 0, 0, -EINVAL },
	{ "rate_capacity_0", KBLOOM_TEST_RATE, 0, 0, 10000000, 0, 0, -EINVAL },
	{ "rate_too_big", KBLOOM_TEST_RATE, 1ULL << 38, 0, 10000000, 0, 0,
	  -E2BIG },
	{ "rate_u64_max", KBLOOM_TEST_RATE, U64_MAX, 0, 1, 0, 0, -E2BIG },
	{ "rate_extremes", KBLOOM_TEST_RATE, 1, 0, 1, 0, 0, 0 },
	{ "rate_1000_1%", KBLOOM_TEST_RATE, 1000, 0, 10000000, 0, 0, 0 },
	{ "rate_type_unknown", KBLOOM_TEST_RATE, 1000, 0, 10000000, 0,
	  KBLOOM_TEST_NO_TYPE, -EINVAL },
	{ "bits_0", KBLOOM_TEST_BITS, 0, 0, 0, 7, 0, -EINVAL },
	{ "bits_k_17", KBLOOM_TEST_BITS, 0, 4096, 0, 17, 0, -EINVAL },
	{ "bits_u64_max", KBLOOM_TEST_BITS, 0, U64_MAX, 0, 7, 0, -E2BIG },
	{ "bits_max_plus_1", KBLOOM_TEST_BITS, 0,
	  KBLOOM_MAX_BLOCKS * 512 + 1, 0, 7, 0, -E2BIG },
	{ "bits_max", KBLOOM_TEST_BITS, 0, KBLOOM_MAX_BLOCKS * 512, 0, 16, 0,
	  0, KBLOOM_MAX_BLOCKS },
	{ "bits_1", KBLOOM_TEST_BITS, 0, 1, 0, 7, 0, 0, 1 },
	{ "bits_513", KBLOOM_TEST_BITS, 0, 513, 0, 7, 0, 0, 2 },
	{ "bits_1000_capacity_77", KBLOOM_TEST_BITS, 77, 1000, 0, 5, 0, 0, 2 },
	{ "bits_k_0_picks", KBLOOM_TEST_BITS, 0, 512 * 1000, 0, 0, 0, 0,
	  1000 },
	{ "bits_type_unknown", KBLOOM_TEST_BITS, 0, 4096, 0, 7,
	  KBLOOM_TEST_NO_TYPE, -EINVAL },
	{ "bpk_0", KBLOOM_TEST_BITS_PER_KEY, 1000, 0, 0, 0, 0, -EINVAL },
	{ "bpk_65", KBLOOM_TEST_BITS_PER_KEY, 1000, 0, 65, 0, 0, -EINVAL },
	{ "bpk_capacity_0", KBLOOM_TEST_BITS_PER_KEY, 0, 0, 10, 0, 0,
	  -EINVAL },
	{ "bpk_k_17", KBLOOM_TEST_BITS_PER_KEY, 1000, 0, 10, 17, 0, -EINVAL },
	{ "bpk_overflow", KBLOOM_TEST_BITS_PER_KEY, U64_MAX, 0, 10, 0, 0,
	  -E2BIG },
	{ "bpk_too_big", KBLOOM_TEST_BITS_PER_KEY, 1ULL << 36, 0, 64, 0, 0,
	  -E2BIG },
	{ "bpk_type_unknown", KBLOOM_TEST_BITS_PER_KEY, 1000, 0, 10, 0,
	  KBLOOM_TEST_NO_TYPE, -EINVAL },
	{ "bpk_1000x10", KBLOOM_TEST_BITS_PER_KEY, 1000, 0, 10, 0, 0, 0, 20 },
	/* Bits mean memory whatever the cells: 40 bits a key, 79 blocks. */
	{ "bpk_1000x40", KBLOOM_TEST_BITS_PER_KEY, 1000, 0, 40, 0, 0, 0, 79 },
	{ "validate_k_0", KBLOOM_TEST_VALIDATE, 0, 8, 0, 0, 0, -EINVAL },
	{ "validate_k_17", KBLOOM_TEST_VALIDATE, 0, 8, 0, 17, 0, -EINVAL },
	{ "validate_blocks_0", KBLOOM_TEST_VALIDATE, 0, 0, 0, 7, 0, -EINVAL },
	{ "validate_blocks_over", KBLOOM_TEST_VALIDATE, 0,
	  KBLOOM_MAX_BLOCKS + 1, 0, 7, 0, -E2BIG },
	{ "validate_type_unknown", KBLOOM_TEST_VALIDATE, 0, 8, 0, 7,
	  KBLOOM_TEST_NO_TYPE, -EINVAL },
	{ "validate_type_u32_max", KBLOOM_TEST_VALIDATE, 0, 8, 0, 7, U32_MAX,
	  -EINVAL },
	{ "validate_target_1", KBLOOM_TEST_VALIDATE, 0, 8, KBLOOM_PPB, 7, 0,
	  -EINVAL },
	{ "validate_ok", KBLOOM_TEST_VALIDATE, 0, 8, 0, 7, 0, 0, 8 },
	{ "init_k_17", KBLOOM_TEST_INIT, 0, 1, 0, 17, 0, -EINVAL },
	{ "init_ok", KBLOOM_TEST_INIT, 0, 3, 0, 7, 0, 0, 3 },
};

static void kbloom_test_geo_desc(const struct kbloom_test_geo_case *c,
				 char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KBLOOM_TEST_TYPED_PARAM(kbloom_test_geo, kbloom_test_geo_cases,
			kbloom_test_geo_desc);

static int kbloom_test_geo_call(const struct kbloom_test_geo_case *c,
				u32 type, struct kbloom_geometry *geo)
{
	struct kbloom_filter f;
	int ret;

	switch (c->call) {
	case KBLOOM_TEST_RATE:
		return kbloom_geometry_from_rate_type(geo, type, c->capacity,
						      c->fp_ppb);
	case KBLOOM_TEST_BITS:
		return kbloom_geometry_from_bits_type(geo, type, c->bits, c->k,
						      c->capacity);
	case KBLOOM_TEST_BITS_PER_KEY:
		return kbloom_geometry_from_bits_per_key_type(geo, type,
							      c->capacity,
							      c->fp_ppb, c->k);
	case KBLOOM_TEST_VALIDATE:
	case KBLOOM_TEST_INIT:
		break;
	}
	memset(geo, 0, sizeof(*geo));
	geo->nblocks = c->bits;
	geo->k = c->k;
	geo->type = type;
	geo->fp_target_ppb = c->fp_ppb;
	if (c->call == KBLOOM_TEST_VALIDATE)
		return kbloom_geometry_validate(geo);
	ret = kbloom_filter_init(&f, geo);
	if (!ret)
		kbloom_filter_free(&f);
	return ret;
}

static void geometry(struct kunit *test)
{
	const struct kbloom_test_typed *p = test->param_value;
	const struct kbloom_test_geo_case *c = p->row;
	u32 type = c->bad_type ? c->bad_type : p->t->type;
	struct kbloom_geometry geo, untyped;

	memset(&geo, 0xff, sizeof(geo));
	KUNIT_ASSERT_EQ(test, kbloom_test_geo_call(c, type, &geo), c->err);
	if (c->err)
		return;
	if (c->nblocks)
		KUNIT_EXPECT_EQ(test, geo.nblocks, c->nblocks);
	KUNIT_EXPECT_GE(test, geo.k, (u32)KBLOOM_K_MIN);
	KUNIT_EXPECT_LE(test, geo.k, (u32)KBLOOM_K_MAX);
	if (c->k)
		KUNIT_EXPECT_EQ(test, geo.k, c->k);
	KUNIT_EXPECT_EQ(test, geo.type, type);
	KUNIT_EXPECT_EQ(test, geo.seed, 0ULL);
	KUNIT_EXPECT_EQ(test, geo.capacity, c->capacity);
	KUNIT_EXPECT_EQ(test, kbloom_geometry_validate(&geo), 0);
	if (c->call == KBLOOM_TEST_RATE)
		KUNIT_EXPECT_EQ(test, geo.fp_target_ppb, c->fp_ppb);

	/* The calls without a type make the bits type. */
	if (type != KBLOOM_TYPE_BITS || c->call == KBLOOM_TEST_VALIDATE ||
	    c->call == KBLOOM_TEST_INIT)
		return;
	memset(&untyped, 0xff, sizeof(untyped));
	if (c->call == KBLOOM_TEST_RATE)
		kbloom_geometry_from_rate(&untyped, c->capacity, c->fp_ppb);
	else if (c->call == KBLOOM_TEST_BITS)
		kbloom_geometry_from_bits(&untyped, c->bits, c->k, c->capacity);
	else
		kbloom_geometry_from_bits_per_key(&untyped, c->capacity,
						  c->fp_ppb, c->k);
	KUNIT_EXPECT_EQ(test, untyped.nblocks, geo.nblocks);
	KUNIT_EXPECT_EQ(test, untyped.k, geo.k);
	KUNIT_EXPECT_EQ(test, untyped.type, geo.type);
	KUNIT_EXPECT_EQ(test, untyped.capacity, geo.capacity);
	KUNIT_EXPECT_EQ(test, untyped.fp_target_ppb, geo.fp_target_ppb);
}

/*
 * The integer formula at its edges: no keys, no blocks, no probes, more
 * keys than it can count; an unknown type is all false positives, and
 * with the same memory 128 counters a block do worse than 512 bits.
 */
static void formula_edges(struct kunit *test)
{
	const struct kbloom_test_type *t = test->param_value;
	u32 type = t->type;

	KUNIT_EXPECT_EQ(test, kbloom_formula_fp_ppb_type(type, 100, 0, 7), 0U);
	KUNIT_EXPECT_EQ(test, kbloom_formula_fp_ppb_type(type, 0, 100, 7),
			KBLOOM_PPB);
	KUNIT_EXPECT_EQ(test, kbloom_formula_fp_ppb_type(type, 100, 100, 0),
			KBLOOM_PPB);
	KUNIT_EXPECT_EQ(test, kbloom_formula_fp_ppb_type(type, 1, U64_MAX, 1),
			KBLOOM_PPB);
	KUNIT_EXPECT_LE(test, kbloom_formula_fp_ppb_type(type,
							 KBLOOM_MAX_BLOCKS * 4,
							 U64_MAX, 16),
			KBLOOM_PPB);
	KUNIT_EXPECT_EQ(test, kbloom_formula_fp_ppb_type(KBLOOM_TEST_NO_TYPE,
							 100, 100, 7),
			KBLOOM_PPB);
	if (type == KBLOOM_TYPE_BITS)
		KUNIT_EXPECT_EQ(test, kbloom_formula_fp_ppb_type(type, 1000,
								 5000, 7),
				kbloom_formula_fp_ppb(1000, 5000, 7));
	else
		KUNIT_EXPECT_GT(test, kbloom_formula_fp_ppb_type(type, 1000,
								 5000, 7),
				kbloom_formula_fp_ppb(1000, 5000, 7));
}

/* The bisection in sizing relies on the rate never rising with blocks. */
static void formula_falls_with_blocks(struct kunit *test)
{
	const struct kbloom_test_type *t = test->param_value;
	u32 k, rises = 0;
	u64 nblocks;

	for (k = KBLOOM_K_MIN; k <= KBLOOM_K_MAX; k++) {
		u32 prev = KBLOOM_PPB;

		for (nblocks = 1; nblocks < 800000;
		     nblocks += nblocks / 8 + 1) {
			u32 fp = kbloom_formula_fp_ppb_type(t->type, nblocks,
							    1000000, k);

			rises += fp > prev;
			prev = fp;
		}
	}
	KUNIT_EXPECT_EQ(test, rises, 0U);
}

/*
 * Sizing is minimal: one block fewer misses the target with every k at the
 * design load (capacity plus 1/128).
 */
static void sizing_minimal(struct kunit *test)
{
	static const struct {
		u64 n;
		u32 fp_ppb;
	} cases[] = { { 1, 500000000 }, { 1000, 10000000 },
		      { 123457, 1000000 }, { 10000000, 100000 },
		      { 1000000000ULL, 1000 }, { 1000000, 1 } };
	const struct kbloom_test_type *t = test->param_value;
	u32 i, k;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		u64 design = cases[i].n + cases[i].n / 128;
		struct kbloom_geometry g;

		KUNIT_ASSERT_EQ(test,
				kbloom_geometry_from_rate_type(&g, t->type,
							       cases[i].n,
							       cases[i].fp_ppb),
				0);
		KUNIT_EXPECT_LE(test, kbloom_formula_fp_ppb_type(t->type,
								 g.nblocks,
								 design, g.k),
				cases[i].fp_ppb);
		for (k = KBLOOM_K_MIN; k <= KBLOOM_K_MAX && g.nblocks > 1; k++)
			KUNIT_EXPECT_GE_MSG(test,
					    kbloom_formula_fp_ppb_type(t->type,
								       g.nblocks - 1,
								       design, k),
					    cases[i].fp_ppb, "n %llu, k %u",
					    cases[i].n, k);
	}
}

/*
 * Sized from (n, p), the filter must meet p at n.  Q absent keys measure
 * its rate with sampling error sigma = sqrt(p / Q); the bounds are 5 sigma
 * plus a relative slack for how far one filter's block loads may stray
 * from the Poisson average the model assumes (about 1 / sqrt(blocks)).
 */
#define KBLOOM_TEST_FP_KEYS	100000
#define KBLOOM_TEST_FP_QUERIES	1000000

struct kbloom_test_rate {
	const char *name;
	u32 fp_ppb;
};

static const struct kbloom_test_rate kbloom_test_rates[] = {
	{ "10%", 100000000 },
	{ "1%", 10000000 },
	{ "0.1%", 1000000 },
};

static void kbloom_test_rate_desc(const struct kbloom_test_rate *r, char *desc)
{
	strscpy(desc, r->name, KUNIT_PARAM_DESC_SIZE);
}

KBLOOM_TEST_TYPED_PARAM(kbloom_test_rate, kbloom_test_rates,
			kbloom_test_rate_desc);

/*
 * Expects measured false positives out of q queries to be within 5 sigma
 * plus slack/1000 of rate * q (or only not above, when upper_only).
 */
static void kbloom_test_expect_fp(struct kunit *test, const char *what,
				  u64 measured, u32 ppb, u64 q,
				  u32 slack_permille, bool upper_only)
{
	u64 mean = div_u64((u64)ppb * q, KBLOOM_PPB);
	u64 tol = 5 * int_sqrt64(mean) + 1 +
		  div_u64(mean * slack_permille, 1000);

	KUNIT_EXPECT_LE_MSG(test, measured, mean + tol,
			    "%s: %llu false positives in %llu, expected %llu",
			    what, measured, q, mean);
	if (!upper_only)
		KUNIT_EXPECT_GE_MSG(test, measured + tol, mean,
				    "%s: %llu false positives in %llu, expected %llu",
				    what, measured, q, mean);
}

static void fp_at_capacity(struct kunit *test)
{
	const struct kbloom_test_typed *p = test->param_value;
	const struct kbloom_test_rate *r = p->row;
	struct kbloom_test_batch *b = kbloom_test_batch(test);
	u64 n = KBLOOM_TEST_FP_KEYS, q = KBLOOM_TEST_FP_QUERIES, fp;
	struct kbloom_geometry geo;
	struct kbloom_filter *f;
	struct kbloom_stats st;
	u32 model;

	f = kbloom_test_new_rate(test, p->t, n, r->fp_ppb, &geo);
	KUNIT_EXPECT_EQ(test, geo.capacity, n);
	KUNIT_EXPECT_EQ(test, geo.fp_target_ppb, r->fp_ppb);
	KUNIT_EXPECT_GE(test, geo.k, (u32)KBLOOM_K_MIN);
	KUNIT_EXPECT_LE(test, geo.k, (u32)KBLOOM_K_MAX);
	/* The design meets the target, with no tenth of the bits to spare. */
	model = kbloom_formula_fp_ppb_type(geo.type, geo.nblocks, n, geo.k);
	KUNIT_EXPECT_LE(test, model, r->fp_ppb);
	KUNIT_EXPECT_GT(test, kbloom_formula_fp_ppb_type(geo.type,
							 geo.nblocks * 9 / 10,
							 n, geo.k), r->fp_ppb);

	kbloom_test_add_range(f, b, 0, n, false);
	/* Keys n .. n + q - 1 were never added: the key map is a bijection. */
	fp = kbloom_test_check_range(f, b, n, q, false);
	kbloom_get_stats(f, &st);
	kunit_info(test, "%s: k=%u blocks=%llu model=%u fp_now=%u fp=%llu/%llu\n",
		   p->t->name, geo.k, geo.nblocks, model, st.fp_now_ppb, fp, q);

	/* Block loads stray from the model's Poisson mean by ~1/sqrt(blocks). */
	kbloom_test_expect_fp(test, "target", fp, r->fp_ppb, q, 60, true);
	kbloom_test_expect_fp(test, "model", fp, model, q, 60, false);
	/* fp_now is the exact rate of these very cells: sampling error only. */
	kbloom_test_expect_fp(test, "fp_now", fp, st.fp_now_ppb, q, 5, false);
	KUNIT_EXPECT_EQ(test, st.fp_design_ppb, model);
	KUNIT_EXPECT_EQ(test, st.bits_set, kbloom_test_cells(f, p->t, 0));
}

static struct kunit_case kbloom_geometry_cases[] = {
	KUNIT_CASE_PARAM(geometry, kbloom_test_geo_gen_params),
	KBLOOM_TEST_CASE(formula_edges),
	KBLOOM_TEST_CASE(formula_falls_with_blocks),
	KBLOOM_TEST_CASE(sizing_minimal),
	KUNIT_CASE_PARAM(fp_at_capacity, kbloom_test_rate_gen_params),
	{}
};

KBLOOM_TEST_SUITE("kbloom-geometry", kbloom_geometry_cases);
