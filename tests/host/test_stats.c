// SPDX-License-Identifier: GPL-2.0
/*
 * Statistics against measurement at 25 %, 100 % and 200 % of capacity, and
 * back at 100 % by deletes, for every type: the current-state rate against
 * the measured rate of absent keys and the model, the cardinality estimate
 * against the true count, the cells in use, the saturation flag.  A
 * window's keys are spread over the g - 1 generations its capacity counts,
 * and then it is also seen at its worst moment, all g generations holding
 * their share; its generations' own statistics are held to exact counts.
 * Exact statistics of small filters are the unit suite's (kunit/stats.c).
 */
#include <math.h>
#include <string.h>
#include "harness.h"
#include "model.h"
#include "kbloom_log_table.h"

#define SUITE "stats"

/* Cells above 0, as the statistics count them: a window's in live planes. */
static u64 cells_set(const struct kbloom_filter *f, const struct kbloom_test_type *t)
{
	u32 width = 512 / kbloom_test_block_cells(t), c;
	u64 mask = width == 64 ? ~0ULL : (1ULL << width) - 1, w, n = 0;

	if (t->generations)
		mask &= f->win.live;
	for (w = 0; w < f->geo.nblocks * 8; w++)
		for (c = 0; c < 64; c += width)
			n += (f->words[w] >> c & mask) != 0;
	return n;
}

/* Cells of the filter: a window's are 512 a key block. */
static u64 all_cells(const struct kbloom_filter *f,
		     const struct kbloom_test_type *t)
{
	return f->geo.nblocks * kbloom_test_block_cells(t);
}

/*
 * What f holds: n keys, in full generations of n / full each (a window;
 * other types have the one), and whether that is saturated.
 */
struct load {
	u64 n;
	u32 full;
	bool saturated;
	const char *at;
};

/* The statistics of f, holding its load, against measurement and model. */
static void check_at(struct kbloom_filter *f, const struct kbloom_test_type *t,
		     const struct load *l)
{
	const u64 queries = 4000000;
	struct kbloom_stats st;
	double now, measured, sigma, est_err, model;
	u64 cells, n = l->n;
	const char *at = l->at;

	kbloom_get_stats(f, &st);
	cells = cells_set(f, t);
	/* absent keys: counters beyond every key ever added */
	measured = (double)count_counter_hits(f, 1ULL << 40, queries) /
		   queries;
	now = st.fp_now_ppb / 1e9;
	sigma = sqrt(now * (1 - now) / queries);
	est_err = (double)st.est_keys / n - 1;
	model = type_model_fp(t, (double)n / l->full / key_blocks(&f->geo),
			      f->geo.k, l->full);
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
	       st.fill_ppb == (u32)(cells * 1000000000ULL / all_cells(f, t)),
	       SUITE, typed_name("bits_and_fill_%s", t, at),
	       "bits_set %llu vs %llu, fill %u",
	       (unsigned long long)st.bits_set, (unsigned long long)cells,
	       st.fill_ppb);
	expect(st.saturated == l->saturated, SUITE,
	       typed_name("saturated_%s", t, at), "flagged %u at %llu keys",
	       st.saturated, (unsigned long long)n);
	/* the design is at capacity; a window's, with all g generations */
	if (t->generations ? l->full == t->generations :
	    n == f->geo.capacity && !st.delete_calls) {
		double design = st.fp_design_ppb / 1e9;

		sigma = sqrt(design / queries);
		expect(fabs(measured - design) <= fmax(5 * sigma, 0.02 * design),
		       SUITE, typed_name("fp_design_vs_measured_at_capacity", t),
		       "design %.6g, measured %.6g", design, measured);
	}
}

/*
 * A window's generations, newest first, against what went into each:
 * the adds, the cells of its plane, fill and the estimate (within 1 %).
 */
static void check_generations(struct kbloom_filter *f,
			      const struct kbloom_test_type *t,
			      const u64 *adds, const char *at)
{
	u32 g = t->generations, a, width = t->cell_bits, c;
	struct kbloom_generation gen[KBLOOM_GENERATIONS_MAX];
	u64 w, bad = 0, est = 0;
	struct kbloom_stats st;

	kbloom_window_generations(f, gen);
	kbloom_get_stats(f, &st);
	for (a = 0; a < g; a++) {
		u32 plane = kbloom_window_plane(f, a);
		u64 cells = 0;

		for (w = 0; w < f->geo.nblocks * 8; w++)
			for (c = 0; c < 64; c += width)
				cells += f->words[w] >> (c + plane) & 1;
		bad += gen[a].add_calls != adds[a] || gen[a].bits_set != cells ||
		       gen[a].fill_ppb != (u32)(cells * 1000000000ULL /
						all_cells(f, t)) ||
		       (adds[a] ? fabs((double)gen[a].est_keys / adds[a] - 1) >
				  0.01 : gen[a].est_keys != 0);
		est += gen[a].est_keys;
	}
	expect(!bad && (st.est_keys > est ? st.est_keys - est : est - st.est_keys) <= g,
	       SUITE, typed_name("generations_%s", t, at),
	       "%llu of %u generations off; est %llu, sum %llu",
	       (unsigned long long)bad, g, (unsigned long long)st.est_keys,
	       (unsigned long long)est);
}

/*
 * A window holding n keys spread over its g - 1 generations (the current
 * one last), or over all g at its worst moment; checked as a whole and
 * per generation.
 */
static void window_at(const struct kbloom_test_type *t,
		      const struct kbloom_geometry *g, u64 n, u32 full,
		      bool saturated, const char *at)
{
	struct load l = { n, full, saturated, at };
	u64 adds[KBLOOM_GENERATIONS_MAX] = { 0 }, next = 0, done = 0;
	struct kbloom_filter f;
	u32 i;

	make_filter_geo(&f, g, 2024);
	for (i = 0; i < full; i++) {
		u64 part = (n - done) / (full - i);

		add_generations(&f, &next, part, 1, i > 0);
		done += part;
		adds[full - 1 - i] = part;
	}
	check_at(&f, t, &l);
	check_generations(&f, t, adds, at);
	kbloom_filter_free(&f);
}

static void test_window_stats(const struct kbloom_test_type *t)
{
	const u64 capacity = 1000000;
	u32 g = t->generations;
	struct kbloom_geometry geo;

	kbloom_geometry_from_rate_gen(&geo, t->type, g, capacity, 10000000);
	window_at(t, &geo, capacity / 4, g - 1, false, "25pct");
	window_at(t, &geo, capacity, g - 1, false, "100pct");
	window_at(t, &geo, 2 * capacity, g - 1, true, "200pct");
	window_at(t, &geo, type_share(t, capacity) * g, g, false,
		  "100pct_all_generations");
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

	if (t->generations) {
		test_window_stats(t);
		return;
	}
	kbloom_geometry_from_rate_type(&g, t->type, capacity, 10000000);
	make_filter_geo(&f, &g, 2024);
	add_counter_keys(&f, 0, capacity / 4);
	check_at(&f, t, &(struct load){ capacity / 4, 1, false, "25pct" });
	add_counter_keys(&f, capacity / 4, capacity - capacity / 4);
	check_at(&f, t, &(struct load){ capacity, 1, false, "100pct" });
	add_counter_keys(&f, capacity, capacity);
	check_at(&f, t, &(struct load){ 2 * capacity, 1, true, "200pct" });
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
	check_at(&f, t, &(struct load){ capacity, 1, false,
					"100pct_after_delete" });
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
