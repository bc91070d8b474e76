// SPDX-License-Identifier: GPL-2.0
/*
 * The counting type: 128 four-bit counters a block.  It never forgets a key
 * that was added and not deleted, deleting keys leaves exactly the filter
 * of the keys that remain, its rate is what the 128-cell model says,
 * counters stick at 15, merge adds and intersect takes the minimum counter
 * by counter, and images carry the counters.
 */
#include <math.h>
#include <string.h>
#include "harness.h"
#include "model.h"

#define SUITE "counting"
#define CELLS 128

static struct kbloom_geometry counting_geo(u64 nblocks, u32 k)
{
	return (struct kbloom_geometry){ .nblocks = nblocks, .k = k,
					 .type = KBLOOM_TYPE_COUNTING };
}

static void make_counting(struct kbloom_filter *f, u64 nblocks, u32 k,
			  u64 seed)
{
	struct kbloom_geometry g = counting_geo(nblocks, k);

	make_filter_geo(f, &g, seed);
}

/* Counter cell of the filter, cells numbered block by block. */
static u32 counter_at(const struct kbloom_filter *f, u64 cell)
{
	u64 word = cell / CELLS * 8 + cell % CELLS / 16;

	return f->words[word] >> (cell % 16 * 4) & 0xf;
}

static void set_counter(struct kbloom_filter *f, u64 cell, u32 value)
{
	u64 word = cell / CELLS * 8 + cell % CELLS / 16;
	u32 shift = cell % 16 * 4;

	f->words[word] = (f->words[word] & ~(0xfULL << shift)) |
			 (u64)value << shift;
}

static u64 nonzero_counters(const struct kbloom_filter *f)
{
	u64 cell, n = 0;

	for (cell = 0; cell < f->geo.nblocks * CELLS; cell++)
		n += counter_at(f, cell) != 0;
	return n;
}

static bool same_cells(const struct kbloom_filter *a,
		       const struct kbloom_filter *b)
{
	return !memcmp(a->words, b->words, a->geo.nblocks * 64);
}

static bool within_bound(double got, double want, u64 queries)
{
	double sigma = sqrt(want * (1 - want) / queries);

	return fabs(got - want) <= fmax(5 * sigma, 0.02 * want);
}

/*
 * A million keys at 1 %, then half of them deleted: the rest are all still
 * there, the deleted half answers "maybe" at the rate of a filter holding
 * only the rest, and the counters are those of a filter that never saw the
 * deleted half.
 */
static void test_million_add_delete(void)
{
	const u64 n = 1000000, queries = 4000000;
	struct kbloom_geometry g;
	struct kbloom_filter f, fresh;
	struct kbloom_stats st;
	double want, got, now;
	u64 found, removed, cells;

	kbloom_geometry_from_rate_type(&g, KBLOOM_TYPE_COUNTING, n, 10000000);
	make_filter_geo(&f, &g, 777);
	add_counter_keys(&f, 0, n);
	found = count_counter_hits(&f, 0, n);
	expect(found == n, SUITE, "no_false_negatives_1M",
	       "%llu of %llu keys reported absent",
	       (unsigned long long)(n - found), (unsigned long long)n);

	got = (double)count_counter_hits(&f, 1ULL << 40, queries) / queries;
	want = model_fp_scheme_cells((double)n / g.nblocks, g.k, CELLS);
	printf("# 1M keys, %llu blocks, k %u: fp %.5f%%, model %.5f%%, core %.5f%%\n",
	       (unsigned long long)g.nblocks, g.k, 100 * got, 100 * want,
	       kbloom_formula_fp_ppb_type(g.type, g.nblocks, n, g.k) / 1e7);
	expect(within_bound(got, want, queries) && got <= 0.01, SUITE,
	       "fp_at_1M_vs_formula", "measured %.6f, model %.6f", got, want);

	kbloom_get_stats(&f, &st);
	cells = nonzero_counters(&f);
	expect(st.bits_set == cells &&
	       st.fill_ppb == (u32)(cells * 1000000000ULL /
				    (g.nblocks * CELLS)) &&
	       fabs((double)st.est_keys / n - 1) <= 0.01 && !st.saturated,
	       SUITE, "stats_at_1M", "bits_set %llu (counted %llu), fill %u, est %llu, saturated %u",
	       (unsigned long long)st.bits_set, (unsigned long long)cells,
	       st.fill_ppb, (unsigned long long)st.est_keys, st.saturated);
	now = st.fp_now_ppb / 1e9;
	expect(within_bound(got, now, queries), SUITE,
	       "fp_now_vs_measured_at_1M", "fp_now %.6f, measured %.6f", now,
	       got);

	removed = delete_counter_keys(&f, 0, n / 2);
	found = count_counter_hits(&f, n / 2, n / 2);
	expect(removed == n / 2 && found == n / 2, SUITE,
	       "delete_half_keeps_other_half",
	       "%llu removed, %llu of the other %llu found",
	       (unsigned long long)removed, (unsigned long long)found,
	       (unsigned long long)(n / 2));

	got = (double)count_counter_hits(&f, 0, n / 2) / (n / 2);
	want = model_fp_scheme_cells((double)(n / 2) / g.nblocks, g.k, CELLS);
	printf("# deleted half: maybe %.5f%%, model at %llu keys %.5f%%\n",
	       100 * got, (unsigned long long)(n / 2), 100 * want);
	expect(within_bound(got, want, n / 2), SUITE,
	       "deleted_half_fp_vs_formula", "measured %.6f, model %.6f", got,
	       want);

	make_filter_geo(&fresh, &g, 777);
	add_counter_keys(&fresh, n / 2, n / 2);
	expect(same_cells(&f, &fresh), SUITE, "delete_half_equals_fresh",
	       "counters differ from a filter of the remaining half");

	kbloom_get_stats(&f, &st);
	expect(fabs((double)st.est_keys / (n / 2) - 1) <= 0.01 &&
	       st.delete_calls == n / 2 && st.delete_hits == n / 2 &&
	       st.bits_set == nonzero_counters(&f), SUITE,
	       "stats_after_delete", "est %llu, deletes %llu/%llu",
	       (unsigned long long)st.est_keys,
	       (unsigned long long)st.delete_calls,
	       (unsigned long long)st.delete_hits);
	kbloom_filter_free(&f);
	kbloom_filter_free(&fresh);
}

/* Measured rate against the 128-cell model, at the best k for the memory. */
static void test_fp_matches_formula(u32 bits_per_key)
{
	const u64 n = 1000000, queries = 4000000;
	struct kbloom_geometry geo;
	struct kbloom_filter f;
	double lambda, want, got, core;
	char name[64];

	snprintf(name, sizeof(name), "fp_vs_formula_%ubpk", bits_per_key);
	kbloom_geometry_from_bits_per_key_type(&geo, KBLOOM_TYPE_COUNTING, n,
					       bits_per_key, 0);
	make_filter_geo(&f, &geo, 4321 + bits_per_key);
	add_counter_keys(&f, 0, n);
	got = (double)count_counter_hits(&f, n, queries) / queries;

	lambda = (double)n / geo.nblocks;
	want = model_fp_scheme_cells(lambda, geo.k, CELLS);
	core = kbloom_formula_fp_ppb_type(geo.type, geo.nblocks, n, geo.k) /
	       1e9;
	printf("# %2u bits/key (%5.2f cells) k=%2u: measured %.5f%% model %.5f%% core %.5f%% textbook %.5f%% (%+.2f%%, %.1f sigma)\n",
	       bits_per_key, bits_per_key / 4.0, geo.k, 100 * got, 100 * want,
	       100 * core, 100 * model_fp_textbook_cells(lambda, geo.k, CELLS),
	       100 * (got / want - 1),
	       (got - want) / sqrt(want * (1 - want) / queries));
	expect(within_bound(got, want, queries), SUITE, name,
	       "measured %.6f, model %.6f", got, want);
	kbloom_filter_free(&f);
}

/*
 * A key added 20 times has its counters at 15 for good: 20 deletes all
 * find it, none decrements, and it is still there.  A key added 3 times
 * and deleted 3 times leaves no trace, and a fourth delete finds nothing.
 */
static void test_sticky(void)
{
	struct kbloom_filter f, before;
	u64 cell, nonzero = 0, at_max = 0;
	u32 i, removed = 0, first_new, again_new;
	bool present, fourth;

	make_counting(&f, 10, 7, 5);
	make_counting(&before, 10, 7, 5);
	first_new = kbloom_add(&f, "sticky", 6);
	again_new = kbloom_add(&f, "sticky", 6);
	for (i = 2; i < 20; i++)
		kbloom_add(&f, "sticky", 6);
	for (cell = 0; cell < 10 * CELLS; cell++) {
		nonzero += counter_at(&f, cell) != 0;
		at_max += counter_at(&f, cell) == 15;
	}
	expect(first_new && !again_new && nonzero && at_max == nonzero,
	       SUITE, "add_20_times_saturates",
	       "new %d/%d, %llu cells, %llu at 15", first_new, again_new,
	       (unsigned long long)nonzero, (unsigned long long)at_max);

	memcpy(before.words, f.words, 10 * 64);
	for (i = 0; i < 20; i++)
		removed += kbloom_delete(&f, "sticky", 6);
	present = kbloom_check(&f, "sticky", 6);
	expect(removed == 20 && present && same_cells(&f, &before), SUITE,
	       "saturated_counters_stick", "%u of 20 deletes, present %d%s",
	       removed, present,
	       same_cells(&f, &before) ? "" : ", counters changed");

	for (i = 0; i < 3; i++)
		kbloom_add(&f, "thrice", 6);
	removed = 0;
	for (i = 0; i < 3; i++)
		removed += kbloom_delete(&f, "thrice", 6);
	fourth = kbloom_delete(&f, "thrice", 6);
	expect(removed == 3 && !fourth && same_cells(&f, &before) &&
	       !kbloom_check(&f, "thrice", 6), SUITE,
	       "add_delete_three_times_leaves_nothing",
	       "%u of 3 deletes, fourth %d", removed, fourth);
	kbloom_filter_free(&f);
	kbloom_filter_free(&before);
}

/*
 * A key that is not there is reported absent and changes nothing; one that
 * only looks present (a false positive) is "removed", which is why only
 * added keys may be deleted.
 */
static void test_delete_absent(void)
{
	struct kbloom_filter f;
	u8 *snap = malloc(50 * 64);
	u32 i, unchanged_absent = 0, absent = 0, fp = 0, fp_removed = 0;

	make_counting(&f, 50, 6, 9);
	add_counter_keys(&f, 0, 600);
	for (i = 0; i < 3000; i++) {
		u64 v = mix64((1ULL << 41) + i);
		bool looked = kbloom_check(&f, &v, sizeof(v)), removed;

		memcpy(snap, f.words, 50 * 64);
		removed = kbloom_delete(&f, &v, sizeof(v));
		if (looked) {
			fp++;
			fp_removed += removed;
			/* Put it back for the next keys' sake. */
			kbloom_add(&f, &v, sizeof(v));
		} else {
			absent++;
			unchanged_absent += !removed &&
					    !memcmp(snap, f.words, 50 * 64);
		}
	}
	expect(absent > 2000 && unchanged_absent == absent &&
	       fp_removed == fp, SUITE, "delete_absent_changes_nothing",
	       "%u of %u absent keys left it unchanged; %u of %u false positives removed",
	       unchanged_absent, absent, fp_removed, fp);
	free(snap);
	kbloom_filter_free(&f);
}

#define NKEYS 20000
static u8 key_bytes[NKEYS][40];
static struct kbloom_key keys[NKEYS];
static unsigned long results[BITS_TO_LONGS(NKEYS)];

/* Variable-length keys, one in seven repeated. */
static void make_keys(u64 salt)
{
	u32 i, j;

	for (i = 0; i < NKEYS; i++) {
		u64 r = mix64(salt + (i % 7 == 3 ? i / 2 : i));

		keys[i].len = 1 + r % 40;
		for (j = 0; j < keys[i].len; j++)
			key_bytes[i][j] = (u8)(mix64(r + j) >> 56);
		keys[i].data = key_bytes[i];
	}
}

/* The batched add, check and delete answer what single calls answer. */
static void test_batch_equals_single(void)
{
	struct kbloom_filter single, batch;
	struct kbloom_stats st;
	u32 i, diff = 0, hits, single_hits = 0;

	make_keys(11);
	make_counting(&single, 400, 6, 13);
	make_counting(&batch, 400, 6, 13);

	memset(results, 0xff, sizeof(results));
	hits = kbloom_add_batch(&batch, keys, NKEYS, results);
	for (i = 0; i < NKEYS; i++) {
		bool s = kbloom_add(&single, keys[i].data, keys[i].len);

		single_hits += s;
		diff += s != test_bit(i, results);
	}
	expect(!diff && hits == single_hits && same_cells(&single, &batch),
	       SUITE, "add_batch_equals_single",
	       "%u answers differ, hits %u vs %u", diff, hits, single_hits);

	/* Delete the first half: everything present answers yes. */
	memset(results, 0xff, sizeof(results));
	hits = kbloom_delete_batch(&batch, keys, NKEYS / 2, results);
	diff = 0;
	single_hits = 0;
	for (i = 0; i < NKEYS / 2; i++) {
		bool s = kbloom_delete(&single, keys[i].data, keys[i].len);

		single_hits += s;
		diff += s != test_bit(i, results) || !s;
	}
	for (i = NKEYS / 2; i < BITS_TO_LONGS(NKEYS / 2) * BITS_PER_LONG;
	     i++)
		diff += test_bit(i, results);
	expect(!diff && hits == NKEYS / 2 && single_hits == hits &&
	       same_cells(&single, &batch), SUITE,
	       "delete_batch_equals_single", "%u answers differ, hits %u vs %u",
	       diff, hits, single_hits);

	/* The second half is all there; deleting again finds fewer. */
	hits = kbloom_check_batch(&batch, keys + NKEYS / 2, NKEYS / 2, NULL);
	diff = hits != NKEYS / 2;
	hits = kbloom_delete_batch(&batch, keys, NKEYS / 2, results);
	single_hits = 0;
	for (i = 0; i < NKEYS / 2; i++) {
		bool s = kbloom_delete(&single, keys[i].data, keys[i].len);

		single_hits += s;
		diff += s != test_bit(i, results);
	}
	kbloom_get_stats(&batch, &st);
	expect(!diff && hits == single_hits && same_cells(&single, &batch) &&
	       st.delete_calls == NKEYS && st.add_calls == NKEYS &&
	       st.delete_hits == NKEYS / 2 + hits, SUITE,
	       "delete_again_equals_single",
	       "%u differ, hits %u vs %u, deletes %llu/%llu", diff, hits,
	       single_hits, (unsigned long long)st.delete_calls,
	       (unsigned long long)st.delete_hits);

	/* Odd sizes cross the prefetch window at every offset. */
	diff = 0;
	for (i = 1; i <= 70; i++) {
		u32 j, want = 0;

		for (j = 0; j < i; j++)
			want += kbloom_check(&single, keys[i + j].data,
					     keys[i + j].len);
		diff += kbloom_delete_batch(&batch, keys + i, i, results) !=
			want;
		for (j = 0; j < i; j++)
			kbloom_delete(&single, keys[i + j].data,
				      keys[i + j].len);
	}
	expect(!diff && same_cells(&single, &batch), SUITE,
	       "delete_batch_sizes_1_to_70", "%u sizes differ", diff);
	kbloom_filter_free(&single);
	kbloom_filter_free(&batch);
}

/* Every pair of counter values, a in dst and b in src, in two blocks. */
static void fill_pairs(struct kbloom_filter *a, struct kbloom_filter *b)
{
	u32 cell;

	for (cell = 0; cell < 256; cell++) {
		set_counter(a, cell, cell / 16);
		set_counter(b, cell, cell % 16);
	}
}

static void test_merge_intersect_values(void)
{
	struct kbloom_filter a, b;
	u32 cell, bad_union = 0, bad_common = 0;
	int m, x;

	make_counting(&a, 2, 3, 1);
	make_counting(&b, 2, 3, 1);
	fill_pairs(&a, &b);
	m = kbloom_merge(&a, &b);
	for (cell = 0; cell < 256; cell++) {
		u32 want = cell / 16 + cell % 16;

		bad_union += counter_at(&a, cell) != (want > 15 ? 15 : want);
	}
	expect(!m && !bad_union, SUITE, "merge_adds_saturating",
	       "ret %d, %u of 256 pairs wrong", m, bad_union);

	fill_pairs(&a, &b);
	x = kbloom_intersect(&a, &b);
	for (cell = 0; cell < 256; cell++) {
		u32 lo = cell / 16 < cell % 16 ? cell / 16 : cell % 16;

		bad_common += counter_at(&a, cell) != lo;
	}
	expect(!x && !bad_common, SUITE, "intersect_takes_minimum",
	       "ret %d, %u of 256 pairs wrong", x, bad_common);
	kbloom_filter_free(&a);
	kbloom_filter_free(&b);
}

/* Merged and intersected filters answer for keys as unions and meets. */
static void test_merge_intersect_keys(void)
{
	struct kbloom_filter a, b, c, only_b;
	struct kbloom_stats st;
	u32 missing, removed, left, i;
	u8 *copy;
	int ret;

	make_keys(21);
	make_counting(&a, 1000, 6, 3);
	make_counting(&b, 1000, 6, 3);
	make_counting(&c, 1000, 6, 3);
	make_counting(&only_b, 1000, 6, 3);
	/* a: keys 0..11999, b: keys 8000..19999 */
	kbloom_add_batch(&a, keys, 12000, NULL);
	kbloom_add_batch(&b, keys + 8000, 12000, NULL);
	kbloom_delete_batch(&b, keys + 8000, 10, NULL);
	kbloom_add_batch(&only_b, keys + 8000, 12000, NULL);
	memcpy(c.words, a.words, 1000 * 64);

	ret = kbloom_merge(&a, &b);
	missing = NKEYS - 10 - kbloom_check_batch(&a, keys + 10, NKEYS - 10,
						  NULL);
	kbloom_get_stats(&a, &st);
	/* The union's keys come out one side at a time. */
	removed = kbloom_delete_batch(&a, keys, 8000, NULL);
	left = kbloom_check_batch(&a, keys + 12000, 8000, NULL);
	expect(!ret && !missing && st.add_calls == 24000 &&
	       st.delete_calls == 10 && removed == 8000 && left == 8000,
	       SUITE, "merge_is_union",
	       "ret %d, %u missing, add_calls %llu, removed %u, left %u", ret,
	       missing, (unsigned long long)st.add_calls, removed, left);

	/*
	 * A key of a stays exactly when b says "maybe" for it: keys b holds
	 * too (make_keys repeats some) and b's false positives.
	 */
	ret = kbloom_intersect(&c, &b);
	missing = 4000 - 10 - kbloom_check_batch(&c, keys + 8010, 3990, NULL);
	left = 0;
	for (i = 0; i < 8000; i++)
		left += kbloom_check(&c, keys[i].data, keys[i].len) !=
			kbloom_check(&b, keys[i].data, keys[i].len);
	expect(!ret && !missing && !left, SUITE, "intersect_is_meet",
	       "ret %d, %u common keys missing, %u of a's keys disagree with b",
	       ret, missing, left);

	/* A filter merged with or intersected with itself stays as it is. */
	copy = malloc(1000 * 64);
	memcpy(copy, only_b.words, 1000 * 64);
	ret = kbloom_merge(&only_b, &only_b) |
	      kbloom_intersect(&only_b, &only_b);
	expect(!ret && !memcmp(copy, only_b.words, 1000 * 64), SUITE,
	       "merge_intersect_self_noop", "ret %d", ret);
	free(copy);
	kbloom_filter_free(&a);
	kbloom_filter_free(&b);
	kbloom_filter_free(&c);
	kbloom_filter_free(&only_b);
}

/* Same blocks, k and seed but another type: incompatible both ways. */
static void test_type_mismatch(void)
{
	struct kbloom_filter bits, counting;
	u8 *bits_copy = malloc(100 * 64), *counting_copy = malloc(100 * 64);
	int m1, m2, x1, x2;

	make_filter(&bits, 100, 7, 1);
	make_counting(&counting, 100, 7, 1);
	add_counter_keys(&bits, 0, 500);
	add_counter_keys(&counting, 0, 500);
	memcpy(bits_copy, bits.words, 100 * 64);
	memcpy(counting_copy, counting.words, 100 * 64);
	m1 = kbloom_merge(&bits, &counting);
	m2 = kbloom_merge(&counting, &bits);
	x1 = kbloom_intersect(&bits, &counting);
	x2 = kbloom_intersect(&counting, &bits);
	expect(m1 == -EXDEV && m2 == -EXDEV && x1 == -EXDEV && x2 == -EXDEV &&
	       !memcmp(bits_copy, bits.words, 100 * 64) &&
	       !memcmp(counting_copy, counting.words, 100 * 64), SUITE,
	       "bits_and_counting_exdev", "merge %d/%d intersect %d/%d", m1,
	       m2, x1, x2);
	free(bits_copy);
	free(counting_copy);
	kbloom_filter_free(&bits);
	kbloom_filter_free(&counting);
}

/* A bits filter has no counters: delete refuses and changes nothing. */
static void test_delete_on_bits(void)
{
	struct kbloom_filter f;
	struct kbloom_stats st;
	u8 *copy = malloc(100 * 64);
	u32 hits, set;
	bool single;

	make_keys(31);
	make_filter(&f, 100, 7, 1);
	kbloom_add_batch(&f, keys, 1000, NULL);
	memcpy(copy, f.words, 100 * 64);
	memset(results, 0xff, sizeof(results));
	hits = kbloom_delete_batch(&f, keys, 1000, results);
	/* set: the answers that were zeroed, up to the first one left */
	for (set = 0; set < 1000 && !test_bit(set, results); set++)
		;
	single = kbloom_delete(&f, keys[0].data, keys[0].len);
	kbloom_get_stats(&f, &st);
	expect(kbloom_delete_supported(&f) == -EOPNOTSUPP && !hits &&
	       set == 1000 && !single && !st.delete_calls &&
	       !st.delete_hits && !memcmp(copy, f.words, 100 * 64) &&
	       kbloom_check_batch(&f, keys, 1000, NULL) == 1000, SUITE,
	       "delete_on_bits_eopnotsupp",
	       "supported %d, hits %u, results %u, single %d, calls %llu",
	       kbloom_delete_supported(&f), hits, set, single,
	       (unsigned long long)st.delete_calls);
	free(copy);
	kbloom_filter_free(&f);
}

/* Clear empties counters and counts; delete counts add up. */
static void test_clear(void)
{
	struct kbloom_filter f;
	struct kbloom_stats st;
	u64 w, nonzero = 0;

	make_counting(&f, 300, 6, 2);
	add_counter_keys(&f, 0, 3000);
	delete_counter_keys(&f, 0, 1000);
	delete_counter_keys(&f, 1ULL << 42, 1000);
	kbloom_get_stats(&f, &st);
	expect(st.delete_calls == 2000 && st.delete_hits >= 1000 &&
	       st.delete_hits < 1100 && kbloom_delete_supported(&f) == 0,
	       SUITE, "delete_counts", "calls %llu hits %llu",
	       (unsigned long long)st.delete_calls,
	       (unsigned long long)st.delete_hits);
	kbloom_clear(&f);
	for (w = 0; w < f.geo.nblocks * 8; w++)
		nonzero += f.words[w] != 0;
	kbloom_get_stats(&f, &st);
	expect(!nonzero && !st.delete_calls && !st.delete_hits &&
	       !st.add_calls && !st.bits_set, SUITE, "clear",
	       "%llu words set, %llu deletes counted",
	       (unsigned long long)nonzero,
	       (unsigned long long)st.delete_calls);
	kbloom_filter_free(&f);
}

/*
 * Saturation counts the keys that are in: added past capacity flags it,
 * deleting back under capacity clears it.
 */
static void test_saturation_with_deletes(void)
{
	struct kbloom_geometry g;
	struct kbloom_filter f;
	struct kbloom_stats over, back;

	kbloom_geometry_from_rate_type(&g, KBLOOM_TYPE_COUNTING, 100000,
				       10000000);
	make_filter_geo(&f, &g, 3);
	add_counter_keys(&f, 0, 200000);
	kbloom_get_stats(&f, &over);
	delete_counter_keys(&f, 100000, 100000);
	kbloom_get_stats(&f, &back);
	expect(over.saturated && !back.saturated &&
	       back.fp_now_ppb <= 10000000, SUITE,
	       "saturation_follows_deletes",
	       "at 200%%: %u, deleted back to 100%%: %u (fp_now %u)",
	       over.saturated, back.saturated, back.fp_now_ppb);
	kbloom_filter_free(&f);
}

static u8 *emit_all(const struct kbloom_filter *f, size_t *len)
{
	u64 total = kbloom_image_bytes(&f->geo);
	struct kbloom_image_cursor cur;
	u8 *img = malloc(total);

	kbloom_image_start(f, &cur);
	*len = kbloom_image_emit(f, &cur, img, total);
	return img;
}

/* Images carry the counters: a loaded filter deletes as the original. */
static void test_image(void)
{
	struct kbloom_filter src, dst, bits;
	struct kbloom_stats st;
	size_t len;
	u8 *img;
	u32 i, over = 0;
	int ret, ret_bits;

	make_counting(&src, 500, 6, 0xabc);
	make_counting(&dst, 500, 6, 0xabc);
	make_filter(&bits, 500, 6, 0xabc);
	add_counter_keys(&src, 0, 5000);
	for (i = 0; i < 30; i++)
		add_counter_keys(&src, 0, 10);	/* some counters at 15 */
	delete_counter_keys(&src, 10, 100);
	for (i = 0; i < 500 * CELLS; i++)
		over += counter_at(&src, i) == 15;
	img = emit_all(&src, &len);
	add_counter_keys(&dst, 1ULL << 43, 100);
	delete_counter_keys(&dst, 1ULL << 43, 10);
	ret = kbloom_image_load(&dst, img, len);
	kbloom_get_stats(&dst, &st);
	expect(!ret && len == kbloom_image_bytes(&src.geo) &&
	       get_unaligned_le32(img + 12) == KBLOOM_TYPE_COUNTING &&
	       same_cells(&src, &dst) && over > 0 &&
	       st.add_calls == 5300 && !st.delete_calls && !st.delete_hits,
	       SUITE, "image_roundtrip",
	       "load %d, %llu adds, %llu deletes, %u counters at 15", ret,
	       (unsigned long long)st.add_calls,
	       (unsigned long long)st.delete_calls, over);
	expect(delete_counter_keys(&dst, 110, 4890) == 4890 &&
	       count_counter_hits(&dst, 0, 10) == 10 &&
	       !memcmp(img + 88, src.words, 500 * 64), SUITE,
	       "image_loaded_deletes",
	       "a loaded filter lost keys on delete");
	ret_bits = kbloom_image_load(&bits, img, len);
	expect(ret_bits == -EXDEV, SUITE, "image_into_bits_exdev",
	       "load returned %d", ret_bits);
	free(img);
	kbloom_filter_free(&src);
	kbloom_filter_free(&dst);
	kbloom_filter_free(&bits);
}

/*
 * A fixed counting filter's image, pinned by its CRC: the layout of the
 * counters (nibble i % 16 of word i / 16) is part of the ABI.
 */
#define GOLDEN_CRC	0xb9168db6U

static void test_golden(void)
{
	struct kbloom_geometry g = counting_geo(3, 5);
	struct kbloom_filter f;
	char key[16];
	size_t len;
	u8 *img;
	u32 crc, i;

	g.capacity = 20;
	make_filter_geo(&f, &g, 0x0123456789abcdefULL);
	for (i = 0; i < 20; i++)
		kbloom_add(&f, key, snprintf(key, sizeof(key), "golden-%u",
					     i % 15));
	kbloom_delete(&f, "golden-3", 8);
	img = emit_all(&f, &len);
	crc = get_unaligned_le32(img + len - 4);
	printf("# golden counting image: %zu bytes, crc %#010x\n", len, crc);
	expect(crc == GOLDEN_CRC && get_unaligned_le32(img + 12) == 1, SUITE,
	       "golden_image", "crc %#x, want %#x", crc, GOLDEN_CRC);
	free(img);
	kbloom_filter_free(&f);
}

int main(void)
{
	static const u32 budgets[] = { 8, 10, 12, 16, 32, 40, 48, 64 };
	unsigned int i;

	test_sticky();
	test_delete_absent();
	test_batch_equals_single();
	test_merge_intersect_values();
	test_merge_intersect_keys();
	test_type_mismatch();
	test_delete_on_bits();
	test_clear();
	test_saturation_with_deletes();
	test_image();
	test_golden();
	test_million_add_delete();
	for (i = 0; i < ARRAY_SIZE(budgets); i++)
		test_fp_matches_formula(budgets[i]);
	return harness_exit();
}
