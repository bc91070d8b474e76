// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom-geometry: requests for a filter's shape, good and bad, the
 * integer rate formula the sizing relies on, and that a filter sized from
 * (n, p) meets p at n, for every type.  A window's rate is its whole
 * window's with all g generations live, each holding its share of the
 * capacity (n / (g - 1)): the moment before a rotation, its worst.
 */
#include "kbloom_test.h"

/*
 * The type's formula rate for n keys (a window: n in each of its g live
 * generations) in nblocks 64-byte blocks.
 */
static u32 kbloom_test_formula(const struct kbloom_test_type *t, u64 nblocks,
			       u64 n, u32 k)
{
	if (t->type == KBLOOM_TYPE_WINDOW)
		return kbloom_formula_fp_ppb_window(nblocks,
						    kbloom_plane_order(t->generations),
						    n, k, t->generations);
	return kbloom_formula_fp_ppb_type(t->type, nblocks, n, k);
}

/* The keys of one generation of a window of capacity n, else n. */
static u64 kbloom_test_share(const struct kbloom_test_type *t, u64 n)
{
	if (!t->generations)
		return n;
	return div_u64(n + t->generations - 2, t->generations - 1);
}

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

#define KBLOOM_TEST_NO_TYPE	(KBLOOM_TYPE_WINDOW + 1)

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
				const struct kbloom_test_type *t, u32 type,
				struct kbloom_geometry *geo)
{
	u32 g = t->generations;
	struct kbloom_filter f;
	int ret;

	switch (c->call) {
	case KBLOOM_TEST_RATE:
		return kbloom_geometry_from_rate_gen(geo, type, g, c->capacity,
						     c->fp_ppb);
	case KBLOOM_TEST_BITS:
		return kbloom_geometry_from_bits_gen(geo, type, g, c->bits,
						     c->k, c->capacity);
	case KBLOOM_TEST_BITS_PER_KEY:
		return kbloom_geometry_from_bits_per_key_gen(geo, type, g,
							     c->capacity,
							     c->fp_ppb, c->k);
	case KBLOOM_TEST_VALIDATE:
	case KBLOOM_TEST_INIT:
		break;
	}
	/* A window's rows count key blocks: P 64-byte blocks each. */
	memset(geo, 0, sizeof(*geo));
	geo->nblocks = c->bits * kbloom_test_key_block(t);
	geo->k = c->k;
	geo->type = type;
	geo->fp_target_ppb = c->fp_ppb;
	geo->generations = g;
	geo->plane_order = g ? kbloom_plane_order(g) : 0;
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
	KUNIT_ASSERT_EQ(test, kbloom_test_geo_call(c, p->t, type, &geo), c->err);
	if (c->err)
		return;
	/* A window rounds its blocks up to whole key blocks. */
	if (c->nblocks)
		KUNIT_EXPECT_EQ(test, geo.nblocks,
				c->call == KBLOOM_TEST_VALIDATE ||
				c->call == KBLOOM_TEST_INIT ?
				c->nblocks * kbloom_test_key_block(p->t) :
				round_up(c->nblocks,
					 (u64)kbloom_test_key_block(p->t)));
	KUNIT_EXPECT_EQ(test, geo.generations, p->t->generations);
	KUNIT_EXPECT_EQ(test, geo.plane_order, p->t->generations ?
			kbloom_plane_order(p->t->generations) : 0);
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
 * with the same memory 128 counters a block, or a window's g generations,
 * do worse than 512 bits.
 */
static void formula_edges(struct kunit *test)
{
	const struct kbloom_test_type *t = test->param_value;
	u32 type = t->type;

	KUNIT_EXPECT_EQ(test, kbloom_test_formula(t, 100 * 64, 0, 7), 0U);
	KUNIT_EXPECT_EQ(test, kbloom_test_formula(t, 0, 100, 7), KBLOOM_PPB);
	KUNIT_EXPECT_EQ(test, kbloom_test_formula(t, 100 * 64, 100, 0),
			KBLOOM_PPB);
	KUNIT_EXPECT_EQ(test, kbloom_test_formula(t, 100 * 64, 100, 17),
			KBLOOM_PPB);
	KUNIT_EXPECT_EQ(test, kbloom_test_formula(t, 64, U64_MAX, 1),
			KBLOOM_PPB);
	KUNIT_EXPECT_LE(test, kbloom_test_formula(t, KBLOOM_MAX_BLOCKS * 4,
						  U64_MAX, 16), KBLOOM_PPB);
	KUNIT_EXPECT_EQ(test, kbloom_formula_fp_ppb_type(KBLOOM_TEST_NO_TYPE,
							 100, 100, 7),
			KBLOOM_PPB);
	if (type == KBLOOM_TYPE_BITS)
		KUNIT_EXPECT_EQ(test, kbloom_test_formula(t, 1000, 5000, 7),
				kbloom_formula_fp_ppb(1000, 5000, 7));
	else
		KUNIT_EXPECT_GT(test, kbloom_test_formula(t, 1000, 5000, 7),
				kbloom_formula_fp_ppb(1000, 5000, 7));
}

/*
 * The window's formula at its edges: it needs its generations, so the
 * typed call refuses it; no live generation answers nothing, more live
 * than planes or planes than a cell holds is refused, and one live
 * generation is a bits filter over the key blocks.  More live
 * generations only add false positives.
 */
static void formula_window_edges(struct kunit *test)
{
	u32 k, g, prev;

	KUNIT_EXPECT_EQ(test, kbloom_formula_fp_ppb_type(KBLOOM_TYPE_WINDOW,
							 1000, 5000, 7),
			KBLOOM_PPB);
	KUNIT_EXPECT_EQ(test, kbloom_formula_fp_ppb_window(4000, 2, 5000, 7, 0),
			0U);
	KUNIT_EXPECT_EQ(test, kbloom_formula_fp_ppb_window(4000, 2, 5000, 7, 5),
			KBLOOM_PPB);
	KUNIT_EXPECT_LT(test, kbloom_formula_fp_ppb_window(4000, 2, 5000, 7, 4),
			KBLOOM_PPB);
	KUNIT_EXPECT_EQ(test, kbloom_formula_fp_ppb_window(1 << 10, 7, 1, 7, 1),
			KBLOOM_PPB);
	KUNIT_EXPECT_LT(test, kbloom_formula_fp_ppb_window(1 << 10, 6, 1, 7, 1),
			KBLOOM_PPB);
	KUNIT_EXPECT_EQ(test, kbloom_formula_fp_ppb_window(3, 2, 1, 7, 1),
			KBLOOM_PPB);
	for (k = KBLOOM_K_MIN; k <= KBLOOM_K_MAX; k++) {
		u32 one = kbloom_formula_fp_ppb_window(4000, 2, 30000, k, 1);
		u32 bits = kbloom_formula_fp_ppb(1000, 30000, k);

		KUNIT_EXPECT_LE_MSG(test, one, bits + 1, "k %u", k);
		KUNIT_EXPECT_GE_MSG(test, one + 1, bits, "k %u", k);
		prev = 0;
		for (g = 1; g <= 64; g++) {
			u32 fp = kbloom_formula_fp_ppb_window(64000, 6, 10000,
							      k, g);

			KUNIT_EXPECT_GE_MSG(test, fp, prev, "k %u g %u", k, g);
			prev = fp;
		}
	}
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
			u32 fp = kbloom_test_formula(t, nblocks, 1000000, k);

			rises += fp > prev;
			prev = fp;
		}
	}
	KUNIT_EXPECT_EQ(test, rises, 0U);
}

/*
 * Sizing is minimal: one block fewer (one key block, for a window) misses
 * the target with every k at the design load (capacity plus 1/128, of
 * each generation for a window).
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
	u32 i, k, unit = kbloom_test_key_block(t);

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		u64 share = kbloom_test_share(t, cases[i].n);
		u64 design = share + share / 128;
		struct kbloom_geometry g;

		KUNIT_ASSERT_EQ(test,
				kbloom_geometry_from_rate_gen(&g, t->type,
							      t->generations,
							      cases[i].n,
							      cases[i].fp_ppb),
				0);
		KUNIT_EXPECT_EQ(test, g.nblocks % unit, 0ULL);
		KUNIT_EXPECT_LE(test, kbloom_test_formula(t, g.nblocks, design,
							  g.k),
				cases[i].fp_ppb);
		for (k = KBLOOM_K_MIN; k <= KBLOOM_K_MAX && g.nblocks > unit;
		     k++)
			KUNIT_EXPECT_GE_MSG(test,
					    kbloom_test_formula(t,
								g.nblocks - unit,
								design, k),
					    cases[i].fp_ppb, "n %llu, k %u",
					    cases[i].n, k);
	}
}

/*
 * Generations: a window takes 2 to KBLOOM_GENERATIONS_MAX, every other
 * type none, from every way of asking and in a geometry to validate.
 */
static const u32 kbloom_test_gens[] = { 0, 1, 2, 3, 4, 7, 8, 62, 63, 64,
					U32_MAX };

static void generations(struct kunit *test)
{
	const struct kbloom_test_type *t = test->param_value;
	struct kbloom_geometry geo;
	u32 i;

	for (i = 0; i < ARRAY_SIZE(kbloom_test_gens); i++) {
		u32 g = kbloom_test_gens[i];
		bool ok = t->type == KBLOOM_TYPE_WINDOW ?
			  g >= KBLOOM_GENERATIONS_MIN &&
			  g <= KBLOOM_GENERATIONS_MAX : !g;
		int want = ok ? 0 : -EINVAL;

		KUNIT_EXPECT_EQ_MSG(test,
				    kbloom_geometry_from_rate_gen(&geo, t->type,
								  g, 1000,
								  10000000),
				    want, "rate, g %u", g);
		if (ok) {
			KUNIT_EXPECT_EQ(test, geo.generations, g);
			KUNIT_EXPECT_EQ(test, geo.nblocks %
					(1ULL << geo.plane_order), 0ULL);
			KUNIT_EXPECT_EQ(test, kbloom_geometry_validate(&geo), 0);
		}
		KUNIT_EXPECT_EQ_MSG(test,
				    kbloom_geometry_from_bits_gen(&geo, t->type,
								  g, 4096, 0,
								  0),
				    want, "bits, g %u", g);
		KUNIT_EXPECT_EQ_MSG(test,
				    kbloom_geometry_from_bits_per_key_gen(&geo,
									  t->type,
									  g,
									  1000,
									  10,
									  0),
				    want, "bits per key, g %u", g);
		geo = (struct kbloom_geometry){
			.nblocks = 64, .k = 7, .type = t->type,
			.generations = g,
			.plane_order = g <= 64 ? kbloom_plane_order(g) : 0,
		};
		KUNIT_EXPECT_EQ_MSG(test, kbloom_geometry_validate(&geo), want,
				    "validate, g %u", g);
	}
}

/*
 * A geometry to validate must have the plane order of its generations,
 * and whole key blocks.
 */
static void validate_window_shape(struct kunit *test)
{
	const struct kbloom_test_type *t = test->param_value;
	u32 g = t->generations, order = g ? kbloom_plane_order(g) : 0;
	struct kbloom_geometry geo = {
		.nblocks = 64, .k = 7, .type = t->type, .generations = g,
		.plane_order = order,
	};

	KUNIT_EXPECT_EQ(test, kbloom_geometry_validate(&geo), 0);
	geo.plane_order = order + 1;
	KUNIT_EXPECT_EQ(test, kbloom_geometry_validate(&geo), -EINVAL);
	geo.plane_order = U32_MAX;
	KUNIT_EXPECT_EQ(test, kbloom_geometry_validate(&geo), -EINVAL);
	if (order) {
		geo.plane_order = order - 1;
		KUNIT_EXPECT_EQ(test, kbloom_geometry_validate(&geo), -EINVAL);
		geo.plane_order = order;
		geo.nblocks = 64 + (1ULL << order) / 2;
		KUNIT_EXPECT_EQ(test, kbloom_geometry_validate(&geo), -EINVAL);
		geo.nblocks = KBLOOM_MAX_BLOCKS;
		KUNIT_EXPECT_EQ(test, kbloom_geometry_validate(&geo), 0);
		geo.nblocks = KBLOOM_MAX_BLOCKS + (1ULL << order);
		KUNIT_EXPECT_EQ(test, kbloom_geometry_validate(&geo), -E2BIG);
	}
}

/*
 * A window's bits are all its memory, rounded up to whole key blocks, and
 * its capacity is the window's: g - 1 generations share it.
 */
static void window_bits_are_memory(struct kunit *test)
{
	const u32 w = KBLOOM_TYPE_WINDOW;
	struct kbloom_geometry a, b;
	u64 cap;
	u32 g;

	for (g = KBLOOM_GENERATIONS_MIN; g <= KBLOOM_GENERATIONS_MAX; g++) {
		u64 p = 1ULL << kbloom_plane_order(g);

		KUNIT_ASSERT_EQ(test, kbloom_geometry_from_bits_gen(&a, w, g,
								    512 * 1000 + 1,
								    0, 0), 0);
		KUNIT_EXPECT_EQ_MSG(test, a.nblocks, round_up(1001ULL, p),
				    "g %u", g);
		KUNIT_EXPECT_EQ(test, a.plane_order, kbloom_plane_order(g));
		/* no capacity: k for 10 cells a key in each generation */
		KUNIT_ASSERT_EQ(test, kbloom_geometry_from_bits_gen(&b, w, g,
								    512 * 1000,
								    0, 0), 0);
		cap = (u64)(g - 1) * (b.nblocks >> b.plane_order) * 512 / 10;
		KUNIT_ASSERT_EQ(test, kbloom_geometry_from_bits_gen(&a, w, g,
								    512 * 1000,
								    0, cap), 0);
		KUNIT_EXPECT_EQ_MSG(test, a.k, b.k, "g %u", g);
		/* capacity is g - 1 generations' */
		cap = 100000ULL * (g - 1);
		KUNIT_ASSERT_EQ(test, kbloom_geometry_from_rate_gen(&a, w, g,
								    cap,
								    10000000),
				0);
		KUNIT_ASSERT_EQ(test, kbloom_geometry_from_rate_gen(&b, w, g,
								    cap - 1,
								    10000000),
				0);
		KUNIT_EXPECT_EQ_MSG(test, a.nblocks, b.nblocks, "g %u", g);
		KUNIT_EXPECT_EQ(test, a.capacity, cap);
	}
	/* sizes past the core's limit, however the share rounds */
	KUNIT_EXPECT_EQ(test, kbloom_geometry_from_rate_gen(&a, w, 2, U64_MAX,
							    1), -E2BIG);
	KUNIT_EXPECT_EQ(test, kbloom_geometry_from_rate_gen(&a, w, 63, U64_MAX,
							    1), -E2BIG);
	KUNIT_EXPECT_EQ(test, kbloom_geometry_from_bits_per_key_gen(&a, w, 8,
								    U64_MAX / 2,
								    3, 0),
			-E2BIG);
	KUNIT_EXPECT_EQ(test, kbloom_geometry_from_bits_gen(&a, w, 63,
							    KBLOOM_MAX_BLOCKS * 512 + 1,
							    7, 0), -E2BIG);
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

/*
 * Keys first .. first + n - 1 into f; a window's at its worst moment: g
 * generations of n / (g - 1) each, the current one just filled.
 */
static void kbloom_test_load(struct kunit *test,
			     const struct kbloom_test_type *t,
			     struct kbloom_filter *f,
			     struct kbloom_test_batch *b, u64 n)
{
	u64 share = kbloom_test_share(t, n), first = 0;
	u32 i;

	if (!t->generations) {
		kbloom_test_add_range(f, b, 0, n, false);
		return;
	}
	for (i = 0; i < t->generations; i++) {
		if (i)
			KUNIT_ASSERT_EQ(test, kbloom_window_rotate(f), 0);
		kbloom_test_add_range(f, b, first, share, false);
		first += share;
	}
}

static void fp_at_capacity(struct kunit *test)
{
	const struct kbloom_test_typed *p = test->param_value;
	const struct kbloom_test_rate *r = p->row;
	struct kbloom_test_batch *b = kbloom_test_batch(test);
	u64 n = KBLOOM_TEST_FP_KEYS, q = KBLOOM_TEST_FP_QUERIES, fp, share;
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
	share = kbloom_test_share(p->t, n);
	model = kbloom_test_formula(p->t, geo.nblocks, share, geo.k);
	KUNIT_EXPECT_LE(test, model, r->fp_ppb);
	KUNIT_EXPECT_GT(test, kbloom_test_formula(p->t, geo.nblocks * 9 / 10,
						  share, geo.k), r->fp_ppb);

	kbloom_test_load(test, p->t, f, b, n);
	/* Keys past the last added were never added: the key map is a bijection. */
	fp = kbloom_test_check_range(f, b, 2 * n, q, false);
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
	KUNIT_CASE(formula_window_edges),
	KBLOOM_TEST_CASE(formula_falls_with_blocks),
	KBLOOM_TEST_CASE(sizing_minimal),
	KBLOOM_TEST_CASE(generations),
	KBLOOM_TEST_CASE(validate_window_shape),
	KUNIT_CASE(window_bits_are_memory),
	KUNIT_CASE_PARAM(fp_at_capacity, kbloom_test_rate_gen_params),
	{}
};

KBLOOM_TEST_SUITE("kbloom-geometry", kbloom_geometry_cases);
