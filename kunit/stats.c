// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom-stats: statistics from the cells, for every type: the cells in
 * use, fill, a cardinality estimate, the current rate and saturation,
 * following adds and deletes.
 */
#include "kbloom_test.h"

/* fill_ppb is set cells over all cells, rounded either way. */
static void kbloom_test_expect_fill(struct kunit *test,
				    const struct kbloom_test_type *t,
				    const struct kbloom_filter *f,
				    const struct kbloom_stats *st)
{
	u64 cells = kbloom_test_cells(f, t, 0);
	u64 fill = div64_u64(cells * KBLOOM_PPB,
			     f->geo.nblocks * kbloom_test_block_cells(t));

	KUNIT_EXPECT_EQ(test, st->bits_set, cells);
	KUNIT_EXPECT_LE(test, (u64)st->fill_ppb, fill + 1);
	KUNIT_EXPECT_GE(test, (u64)st->fill_ppb + 1, fill);
}

/* Tens of thousands of cells' worth of estimate: within 3 %. */
static void kbloom_test_expect_keys(struct kunit *test,
				    const struct kbloom_stats *st, u64 n)
{
	KUNIT_EXPECT_LE(test, st->est_keys, n + n * 3 / 100);
	KUNIT_EXPECT_GE(test, st->est_keys, n - n * 3 / 100);
}

static void stats_from_cells(struct kunit *test)
{
	const struct kbloom_test_type *t = test->param_value;
	struct kbloom_test_batch *b = kbloom_test_batch(test);
	struct kbloom_geometry geo;
	struct kbloom_filter *f;
	struct kbloom_stats st;
	u64 n = 50000;

	f = kbloom_test_new_rate(test, t, n, 10000000, &geo);
	kbloom_get_stats(f, &st);
	KUNIT_EXPECT_EQ(test, st.bits_set, 0ULL);
	KUNIT_EXPECT_EQ(test, st.fill_ppb, 0U);
	KUNIT_EXPECT_EQ(test, st.est_keys, 0ULL);
	KUNIT_EXPECT_EQ(test, st.fp_now_ppb, 0U);
	KUNIT_EXPECT_EQ(test, st.saturated, 0U);

	kbloom_test_add_range(f, b, 0, n, false);
	kbloom_get_stats(f, &st);
	kbloom_test_expect_fill(test, t, f, &st);
	kbloom_test_expect_keys(test, &st, n);
	KUNIT_EXPECT_GT(test, st.fp_now_ppb, 0U);
	KUNIT_EXPECT_LE(test, st.fp_now_ppb, geo.fp_target_ppb);
	KUNIT_EXPECT_EQ(test, st.saturated, 0U);

	/* Twice the design load is over capacity and over target. */
	kbloom_test_add_range(f, b, n, n, false);
	kbloom_get_stats(f, &st);
	kbloom_test_expect_keys(test, &st, 2 * n);
	KUNIT_EXPECT_EQ(test, st.saturated, 1U);
	KUNIT_EXPECT_GT(test, st.fp_now_ppb, geo.fp_target_ppb);

	/* Deleting back to capacity: the statistics follow the cells down. */
	if (!kbloom_test_deletes(test, t, f))
		return;
	KUNIT_EXPECT_EQ(test, kbloom_test_delete_range(f, b, n, n, false), n);
	kbloom_get_stats(f, &st);
	kbloom_test_expect_fill(test, t, f, &st);
	kbloom_test_expect_keys(test, &st, n);
	KUNIT_EXPECT_EQ(test, st.delete_calls, n);
	KUNIT_EXPECT_EQ(test, st.delete_hits, n);
	KUNIT_EXPECT_EQ(test, st.saturated, 0U);
	KUNIT_EXPECT_LE(test, st.fp_now_ppb, geo.fp_target_ppb);
}

/* Every cell set: all is full, and the estimate still says something. */
static void stats_full(struct kunit *test)
{
	const struct kbloom_test_type *t = test->param_value;
	struct kbloom_filter *f;
	struct kbloom_stats st;

	f = kbloom_test_new(test, t, 10, 7, KBLOOM_TEST_SEED);
	kbloom_get_stats(f, &st);
	KUNIT_EXPECT_EQ(test, st.fp_design_ppb, 0U);
	memset(f->words, 0xff, kbloom_geometry_bytes(&f->geo));
	kbloom_get_stats(f, &st);
	KUNIT_EXPECT_EQ(test, st.bits_set, 10ULL * kbloom_test_block_cells(t));
	KUNIT_EXPECT_EQ(test, st.fill_ppb, KBLOOM_PPB);
	KUNIT_EXPECT_EQ(test, st.fp_now_ppb, KBLOOM_PPB);
	KUNIT_EXPECT_GT(test, st.est_keys, 0ULL);
}

/* Above the target rate counts as saturated even under capacity. */
static void saturated_by_rate(struct kunit *test)
{
	const struct kbloom_test_type *t = test->param_value;
	struct kbloom_test_batch *b = kbloom_test_batch(test);
	struct kbloom_geometry geo;
	struct kbloom_filter *f;
	struct kbloom_stats st;

	f = kbloom_test_new_rate(test, t, 1000, 10000000, &geo);
	/* A rate target with an absurd capacity: only the rate can trip. */
	f->geo.capacity = U64_MAX;
	kbloom_test_add_range(f, b, 0, 3000, false);
	kbloom_get_stats(f, &st);
	KUNIT_EXPECT_GT(test, st.fp_now_ppb, 10000000U);
	KUNIT_EXPECT_EQ(test, st.saturated, 1U);
}

static struct kunit_case kbloom_stats_cases[] = {
	KBLOOM_TEST_CASE(stats_from_cells),
	KBLOOM_TEST_CASE(stats_full),
	KBLOOM_TEST_CASE(saturated_by_rate),
	{}
};

KBLOOM_TEST_SUITE("kbloom-stats", kbloom_stats_cases);
