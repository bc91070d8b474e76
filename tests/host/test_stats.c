// SPDX-License-Identifier: GPL-2.0
/*
 * Statistics against measurement at 25 %, 100 % and 200 % of capacity: the
 * current-state rate against the measured rate of absent keys, the
 * cardinality estimate against the true count, the saturation flag.
 */
#include <math.h>
#include "harness.h"
#include "model.h"
#include "kbloom_log_table.h"

#define SUITE "stats"

static u64 popcount_all(const struct kbloom_filter *f)
{
	u64 w, bits = 0;

	for (w = 0; w < f->geo.nblocks * 8; w++)
		bits += __builtin_popcountll(f->words[w]);
	return bits;
}

static void check_at(struct kbloom_filter *f, u64 n, unsigned int pct)
{
	const u64 queries = 4000000;
	struct kbloom_stats st;
	double now, measured, sigma, est_err, model;
	u64 bits;
	char name[64];

	kbloom_get_stats(f, &st);
	bits = popcount_all(f);
	/* absent keys: counters beyond every key ever added */
	measured = (double)count_counter_hits(f, 1ULL << 40, queries) /
		   queries;
	now = st.fp_now_ppb / 1e9;
	sigma = sqrt(now * (1 - now) / queries);
	est_err = (double)st.est_keys / n - 1;
	model = model_fp_scheme((double)n / f->geo.nblocks, f->geo.k);
	printf("# %3u%% of capacity: fp now %.5f%% measured %.5f%% (%.1f sigma) model %.5f%%, est %llu of %llu keys (%+.2f%%), fill %.2f%%, saturated %u\n",
	       pct, 100 * now, 100 * measured, (measured - now) / sigma,
	       100 * model, (unsigned long long)st.est_keys,
	       (unsigned long long)n, 100 * est_err, st.fill_ppb / 1e7,
	       st.saturated);

	snprintf(name, sizeof(name), "fp_now_vs_measured_%upct", pct);
	expect(fabs(measured - now) <= fmax(5 * sigma, 0.02 * now), SUITE,
	       name, "fp_now %.6g, measured %.6g, sigma %.2g", now, measured,
	       sigma);
	/* one filter's rate strays from the average over filters a little */
	snprintf(name, sizeof(name), "fp_now_vs_model_%upct", pct);
	expect(fabs(now / model - 1) <= 0.02, SUITE, name,
	       "fp_now %.6g, model %.6g", now, model);
	snprintf(name, sizeof(name), "est_keys_%upct", pct);
	expect(fabs(est_err) <= 0.01, SUITE, name,
	       "estimated %llu for %llu keys",
	       (unsigned long long)st.est_keys, (unsigned long long)n);
	snprintf(name, sizeof(name), "bits_and_fill_%upct", pct);
	expect(st.bits_set == bits &&
	       st.fill_ppb == (u32)(bits * 1000000000ULL /
				    (f->geo.nblocks * 512)), SUITE, name,
	       "bits_set %llu vs %llu, fill %u",
	       (unsigned long long)st.bits_set, (unsigned long long)bits,
	       st.fill_ppb);
	snprintf(name, sizeof(name), "saturated_%upct", pct);
	if (pct <= 100)
		expect(!st.saturated, SUITE, name, "flagged at %u%%", pct);
	else
		expect(st.saturated, SUITE, name, "not flagged at %u%%", pct);
	if (pct == 100) {
		double design = st.fp_design_ppb / 1e9;

		sigma = sqrt(design / queries);
		expect(fabs(measured - design) <= fmax(5 * sigma, 0.02 * design),
		       SUITE, "fp_design_vs_measured_at_capacity",
		       "design %.6g, measured %.6g", design, measured);
	}
}

static void test_stats_sweep(void)
{
	const u64 capacity = 1000000;
	struct kbloom_geometry g;
	struct kbloom_filter f;

	kbloom_geometry_from_rate(&g, capacity, 10000000);
	make_filter_geo(&f, &g, 2024);
	add_counter_keys(&f, 0, capacity / 4);
	check_at(&f, capacity / 4, 25);
	add_counter_keys(&f, capacity / 4, capacity - capacity / 4);
	check_at(&f, capacity, 100);
	add_counter_keys(&f, capacity, capacity);
	check_at(&f, 2 * capacity, 200);
	kbloom_filter_free(&f);
}

/* Above the target rate counts as saturated even under capacity. */
static void test_saturated_by_rate(void)
{
	struct kbloom_geometry g;
	struct kbloom_filter f;
	struct kbloom_stats st;

	kbloom_geometry_from_rate(&g, 1000, 10000000);
	make_filter_geo(&f, &g, 1);
	/* A rate target with an absurd capacity: only the rate can trip. */
	f.geo.capacity = U64_MAX;
	add_counter_keys(&f, 0, 3000);
	kbloom_get_stats(&f, &st);
	expect(st.saturated && st.fp_now_ppb > 10000000, SUITE,
	       "saturated_by_rate", "fp_now %u ppb, saturated %u",
	       st.fp_now_ppb, st.saturated);
	kbloom_filter_free(&f);
}

static void test_empty_and_full(void)
{
	struct kbloom_filter f;
	struct kbloom_stats st;
	u64 w;

	make_filter(&f, 10, 7, 1);
	kbloom_get_stats(&f, &st);
	expect(!st.bits_set && !st.est_keys && !st.fp_now_ppb &&
	       !st.fill_ppb && !st.fp_design_ppb && !st.saturated, SUITE,
	       "empty", "nonzero stats on an empty filter");
	for (w = 0; w < 80; w++)
		f.words[w] = ~0ULL;
	kbloom_get_stats(&f, &st);
	expect(st.bits_set == 5120 && st.fill_ppb == KBLOOM_PPB &&
	       st.fp_now_ppb == KBLOOM_PPB && st.est_keys > 0, SUITE, "full",
	       "bits %llu fill %u fp %u", (unsigned long long)st.bits_set,
	       st.fill_ppb, st.fp_now_ppb);
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
	test_log_table();
	test_stats_sweep();
	test_saturated_by_rate();
	test_empty_and_full();
	return harness_exit();
}
