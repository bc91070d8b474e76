// SPDX-License-Identifier: GPL-2.0
/*
 * Statistics against measurement at 25 %, 100 % and 200 % of capacity, and
 * back at 100 % by deletes, for every type: the current-state rate against
 * the measured rate of absent keys and the model, the cardinality estimate
 * against the true count, the cells in use, the saturation flag.  Exact
 * statistics of small filters are the unit suite's (kunit/stats.c).
 */
#include <math.h>
#include <string.h>
#include "harness.h"
#include "model.h"
#include "kbloom_log_table.h"

#define SUITE "stats"

/* Cells above 0, as the statistics count them. */
static u64 cells_set(const struct kbloom_filter *f, const struct kbloom_test_type *t)
{
	u32 width = 512 / kbloom_test_block_cells(t), c;
	u64 w, n = 0;

	for (w = 0; w < f->geo.nblocks * 8; w++)
		for (c = 0; c < 64; c += width)
			n += (f->words[w] >> c & ((1ULL << width) - 1)) != 0;
	return n;
}

/* The statistics of f, holding n keys, against measurement and model. */
static void check_at(struct kbloom_filter *f, const struct kbloom_test_type *t,
		     u64 n, const char *at)
{
	const u64 queries = 4000000;
	struct kbloom_stats st;
	double now, measured, sigma, est_err, model;
	u64 cells;

	kbloom_get_stats(f, &st);
	cells = cells_set(f, t);
	/* absent keys: counters beyond every key ever added */
	measured = (double)count_counter_hits(f, 1ULL << 40, queries) /
		   queries;
	now = st.fp_now_ppb / 1e9;
	sigma = sqrt(now * (1 - now) / queries);
	est_err = (double)st.est_keys / n - 1;
	model = model_fp_scheme_cells((double)n / f->geo.nblocks, f->geo.k,
				      kbloom_test_block_cells(t));
	printf("# %s at %s of capacity: fp now %.5f%% measured %.5f%% (%.1f sigma) model %.5f%%, est %llu of %llu keys (%+.2f%%), fill %.2f%%, saturated %u\n",
	       t->name, at, 100 * now, 100 * measured,
	       (measured - now) / sigma, 100 * model,
	       (unsigned long long)st.est_keys, (unsigned long long)n,
	       100 * est_err, st.fill_ppb / 1e7, st.saturated);

	expect(fabs(measured - now) <= fmax(5 * sigma, 0.02 * now), SUITE,
	       typed_name("fp_now_vs_measured_%s", t, at),
	       "fp_now %.6g, measured %.6g, sigma %.2g", now, measured, sigma);
	/* one filter's rate strays from the average over filters a little */
	expect(fabs(now / model - 1) <= 0.02, SUITE,
	       typed_name("fp_now_vs_model_%s", t, at),
	       "fp_now %.6g, model %.6g", now, model);
	expect(fabs(est_err) <= 0.01, SUITE, typed_name("est_keys_%s", t, at),
	       "estimated %llu for %llu keys",
	       (unsigned long long)st.est_keys, (unsigned long long)n);
	expect(st.bits_set == cells &&
	       st.fill_ppb == (u32)(cells * 1000000000ULL /
				    (f->geo.nblocks * kbloom_test_block_cells(t))), SUITE,
	       typed_name("bits_and_fill_%s", t, at),
	       "bits_set %llu vs %llu, fill %u",
	       (unsigned long long)st.bits_set, (unsigned long long)cells,
	       st.fill_ppb);
	expect(st.saturated == (n > f->geo.capacity), SUITE,
	       typed_name("saturated_%s", t, at), "flagged %u at %llu keys",
	       st.saturated, (unsigned long long)n);
	if (n == f->geo.capacity && !st.delete_calls) {
		double design = st.fp_design_ppb / 1e9;

		sigma = sqrt(design / queries);
		expect(fabs(measured - design) <= fmax(5 * sigma, 0.02 * design),
		       SUITE, typed_name("fp_design_vs_measured_at_capacity", t),
		       "design %.6g, measured %.6g", design, measured);
	}
}

/*
 * 25 %, 100 % and 200 % of capacity; then, for a type that deletes, the
 * second million deleted: the first is all there, the deleted keys answer
 * "maybe" at the rate of a filter holding only the first, whose cells
 * these are, and the statistics are those of 100 % again.
 */
static void test_stats_sweep(const struct kbloom_test_type *t)
{
	const u64 capacity = 1000000;
	struct kbloom_filter f, fresh;
	struct kbloom_geometry g;
	struct kbloom_stats st;
	u64 removed, found;
	double got, want;

	kbloom_geometry_from_rate_type(&g, t->type, capacity, 10000000);
	make_filter_geo(&f, &g, 2024);
	add_counter_keys(&f, 0, capacity / 4);
	check_at(&f, t, capacity / 4, "25pct");
	add_counter_keys(&f, capacity / 4, capacity - capacity / 4);
	check_at(&f, t, capacity, "100pct");
	add_counter_keys(&f, capacity, capacity);
	check_at(&f, t, 2 * capacity, "200pct");
	if (!t->deletes)
		goto out;

	removed = delete_counter_keys(&f, capacity, capacity);
	found = count_counter_hits(&f, 0, capacity);
	expect(removed == capacity && found == capacity, SUITE,
	       typed_name("delete_half_keeps_other_half", t),
	       "%llu removed, %llu of the other %llu found",
	       (unsigned long long)removed, (unsigned long long)found,
	       (unsigned long long)capacity);
	got = (double)count_counter_hits(&f, capacity, capacity) / capacity;
	want = model_fp_scheme_cells((double)capacity / g.nblocks, g.k,
				     kbloom_test_block_cells(t));
	printf("# %s, deleted half: maybe %.5f%%, model %.5f%%\n", t->name,
	       100 * got, 100 * want);
	expect(fabs(got - want) <= fmax(5 * sqrt(want / capacity),
					0.02 * want), SUITE,
	       typed_name("deleted_half_fp_vs_formula", t),
	       "measured %.6f, model %.6f", got, want);
	make_filter_geo(&fresh, &g, 2024);
	add_counter_keys(&fresh, 0, capacity);
	expect(!memcmp(f.words, fresh.words, g.nblocks * 64), SUITE,
	       typed_name("delete_half_equals_fresh", t),
	       "cells differ from a filter of the remaining half");
	kbloom_filter_free(&fresh);
	kbloom_get_stats(&f, &st);
	expect(st.delete_calls == capacity && st.delete_hits == capacity,
	       SUITE, typed_name("delete_counts", t), "deletes %llu/%llu",
	       (unsigned long long)st.delete_calls,
	       (unsigned long long)st.delete_hits);
	check_at(&f, t, capacity, "100pct_after_delete");
out:
	kbloom_filter_free(&f);
}

/* The generated logarithm table the estimate reads, against libm. */
static void test_log_table(void)
{
	unsigned int x, bad = 0;

	for (x = 0; x <= 512; x++) {
		double cells = x < 512 ? x : 511.5;
		double want = -log1p(-cells / 512) *
			      (1 << KBLOOM_LOG_TABLE_SHIFT);

		bad += fabs(kbloom_neg_log_clear[x] - want) > 0.5 + 1e-6;
	}
	expect(!bad, SUITE, "log_table", "%u entries off", bad);
}

int main(void)
{
	const struct kbloom_test_type *t;

	test_log_table();
	for_each_host_type(t)
		test_stats_sweep(t);
	return harness_exit();
}
