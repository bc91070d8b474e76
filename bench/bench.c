// SPDX-License-Identifier: GPL-2.0
/*
 * The host benchmark's driver: kbloom's filter core against libbloom, the
 * kernel's BPF bloom map and the random-load limit, on the same random keys.
 *
 * Every timed figure is the median of interleaved repeats (kbloom,
 * libbloom, bpf-map, limit, kbloom, ...), so a burst of load from another
 * process spreads over all implementations instead of landing on one.
 * Answers are verified in untimed passes; those checks print PASS:/FAIL:
 * lines and are the only thing that decides the exit status.
 *
 * Usage: bench [--quick] [--n N]... [--jsonl PATH] [--plot-data DIR]
 *              [--work DIR] [--before-check-10m NS] [--window]
 *              [--before-check-10m-16b NS]
 *        --n replaces the plan's sizes (at most 3) and skips the sweep and
 *        callgrind: for comparing a change to the core at one size.
 *        --before-check-10m: the single check at 10 M 8-byte keys of the
 *        core as it was before e5d38a5 (2026-12-01), the first change for
 *        these targets (also KBLOOM_BENCH_BEFORE_CHECK_10M_NS; the 16-byte
 *        one KBLOOM_BENCH_BEFORE_CHECK_10M_16B_NS), for the target "single
 *        check <= 0.8x before"; without it that ratio is not evaluated.
 *        --window: only the window filters' rows (window.c): the memory
 *        table and the speed of a window at the plan's window sizes.
 *        bench --callgrind-child WORKLOAD N   (run by callgrind.c)
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "bench.h"
#include "callgrind.h"
#include "floor.h"
#include "limit.h"
#include "peer_bpf.h"
#include "peer_kbloom.h"
#include "peer_libbloom.h"
#include "scale.h"
#include "window.h"

#ifndef BENCH_CFLAGS
#define BENCH_CFLAGS "?"
#endif

struct plan {
	bool quick;
	int repeats;
	u64 sizes[3];
	int nsizes;
	u64 add_max;		/* adds per timed pass, into an empty filter */
	u64 filled_div;		/* adds into a full filter: n / this ... */
	u64 filled_max;		/* ... and at most this many per pass */
	u64 queries_max;	/* check queries per timed pass, half absent */
	u64 bpf_sample;		/* bpf(2) calls per timed pass */
	double bpf_fill_budget_s;
	u64 sweep_bits;		/* filter size of the false-positive sweep */
	u64 sweep_absent;
	u64 callgrind_n;	/* 0: no callgrind */
	u64 window_sizes[2];	/* window keys of the window filter rows */
	int nwindow;
	u64 scale_first;	/* first capacity of the timed chains */
};

static const u32 key_sizes[] = { 8, 16 };
static const u32 sweep_bits_per_key[] = { 8, 10, 12, 16 };

static const struct plan full_plan = {
	.repeats = 5,
	.sizes = { 1000000, 10000000, 100000000 },
	.nsizes = 3,
	.add_max = 10000000,
	.filled_div = 10,
	.filled_max = 10000000,
	.queries_max = 4000000,
	.bpf_sample = 200000,
	.bpf_fill_budget_s = 45,
	.sweep_bits = 1ULL << 23,
	.sweep_absent = 2000000,
	.callgrind_n = 100000,
	.window_sizes = { 1000000, 10000000 },
	.nwindow = 2,
	.scale_first = 100000,
};

static const struct plan quick_plan = {
	.quick = true,
	.repeats = 3,
	.sizes = { 100000, 1000000 },
	.nsizes = 2,
	.add_max = 10000000,
	.filled_div = 10,
	.filled_max = 10000000,
	.queries_max = 200000,
	.bpf_sample = 20000,
	.bpf_fill_budget_s = 1,
	.sweep_bits = 1ULL << 20,
	.sweep_absent = 200000,
	.window_sizes = { 100000, 1000000 },
	.nwindow = 2,
	.scale_first = 10000,
};

static bool bpf_usable = true;

static const char *size_name(u64 n)
{
	static char buf[4][24];
	static int next;
	char *b = buf[next++ & 3];

	if (n % 1000000 == 0)
		snprintf(b, 24, "%lluM", (unsigned long long)n / 1000000);
	else if (n % 1000 == 0)
		snprintf(b, 24, "%lluk", (unsigned long long)n / 1000);
	else
		snprintf(b, 24, "%llu", (unsigned long long)n);
	return b;
}

/* A blank result: fields that do not apply read as null in the JSONL. */
static struct result result_init(const char *impl, const char *op, u64 n,
				 u32 kb, u32 target)
{
	struct result r = {
		.impl = impl, .op = op, .n = n, .key_bytes = kb,
		.bits_per_key_target = target, .batch = 1,
		.fp_measured = NAN, .fp_theory = NAN, .fill_ns = NAN,
	};
	return r;
}

/* What was measured: the filter's real shape and the work per repeat. */
static void describe(struct result *r, u32 k, double bits_per_key, u64 bytes,
		     u64 ops_timed, int repeats)
{
	r->k = k;
	r->bits_per_key = bits_per_key;
	r->bytes = bytes;
	r->ops_timed = ops_timed;
	r->repeats = repeats;
}

/* Sampling error allowed for a measured rate: 5 sigma plus 2 % relative. */
static bool fp_close(double measured, double theory, u64 queries)
{
	double sigma = sqrt(theory * (1 - theory) / queries);

	return fabs(measured - theory) <= 5 * sigma + 0.02 * theory;
}

static void check_fp(const char *impl, const char *tag, double measured,
		     double theory, u64 queries)
{
	char name[128];

	snprintf(name, sizeof(name), "%s-fp-vs-formula/%s", impl, tag);
	report_check(fp_close(measured, theory, queries), name,
		     "measured %.4f%% over %llu queries, formula %.4f%%",
		     100 * measured, (unsigned long long)queries,
		     100 * theory);
}

static void check_zero(const char *impl, const char *what, const char *tag,
		       u64 count, const char *unit)
{
	char name[128];

	snprintf(name, sizeof(name), "%s-%s/%s", impl, what, tag);
	report_check(count == 0, name, "%llu %s",
		     (unsigned long long)count, unit);
}

/* A note that lives as long as the results (to the end of the run). */
const char *note_printf(const char *fmt, ...)
{
	char *note = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&note, fmt, ap) < 0)
		note = NULL;
	va_end(ap);
	return note;
}

static const char *bpf_note(const struct bpf_peer *bp, u64 sample)
{
	if (bp->filled >= bp->n)
		return note_printf("timed on %llu calls per repeat on the "
				   "full map (filled with all %s keys)",
				   (unsigned long long)sample,
				   size_name(bp->n));
	return note_printf("timed on %llu calls per repeat on the full-size "
			   "map filled with %llu of %s keys in the time "
			   "budget: absent lookups stop early, so its check "
			   "is optimistic; FP not measured",
			   (unsigned long long)sample,
			   (unsigned long long)bp->filled, size_name(bp->n));
}

/*
 * Filling 100 M keys five times per implementation would take most of the
 * run, so above add_max keys the filter used for checks is filled once
 * (that fill is timed too, as fill_ns), and each repeat times add_max adds
 * into a second, emptied filter of the same size: the same random blocks
 * over the same memory, at a lower fill, so more bits to set per add than
 * in a full filter.  The adds into a full filter are timed separately
 * (add_filled, below), so both ends of a fill are shown.
 */
static const char *add_note(u64 add_n, u64 n, double fill_ns)
{
	return note_printf("timed on the first %s adds into an empty %s-key "
			   "filter; one full fill of all %s keys: %.1f ns "
			   "per add", size_name(add_n), size_name(n),
			   size_name(n), fill_ns);
}

/*
 * A filter is loaded to full and then lives there, so adds into a full
 * filter are timed too: fresh keys (never added, never queried) into a
 * copy of the filter holding all n keys, restored from it before each
 * repeat, so every repeat times the same adds from the same state.  n / 10
 * of them (at most filled_max): the filter goes from n to 1.1 n keys while
 * timed, about the fill it has once loaded.
 */
static const char *filled_note(u64 m, u64 n)
{
	return note_printf("timed on %s adds of fresh keys into a copy of the "
			   "filter holding all %s keys (restored each repeat; "
			   "%s -> %s keys while timed)", size_name(m),
			   size_name(n), size_name(n), size_name(n + m));
}

/* All implementations at one (n, key size), 10 bits/key, timed. */
static void run_config(const struct plan *p, const struct key_set *added,
		       const struct key_set *absent,
		       const struct key_set *fresh, u64 n)
{
	u32 kb = added->kb;
	u64 q_each = bench_min(n, p->queries_max / 2), q = 2 * q_each;
	u64 sample = bench_min(p->bpf_sample, q);
	u64 add_n = bench_min(n, p->add_max);
	u64 fill_m = bench_min(bench_min(n / p->filled_div, p->filled_max),
			       fresh->n);
	struct result kadd, kfadd, kabat, kfbat, kchk, kbat, ladd, lchk, badd;
	struct result bchk, lim, flr, flri;
	struct kbloom_key *kv_added, *kv_fresh;
	struct answers ks, kbt, la, ba;
	struct kbloom_filter f, f_adds, *kf_add = &f;
	struct query_set qs;
	struct bpf_peer bp;
	struct bloom b, b_adds, *lb_add = &b;
	double kfill = NAN, lfill = NAN;
	bool bpf = false;
	u64 *idx, differ, missing, single_digest;
	char tag[64];
	int r, err;

	snprintf(tag, sizeof(tag), "n=%s,%uB", size_name(n), kb);
	printf("== n = %s, %u-byte keys, %d repeats, %llu check queries "
	       "(half absent) per pass\n", size_name(n), kb, p->repeats,
	       (unsigned long long)q);
	fflush(stdout);
	queries_build(&qs, added, n, q_each, absent, q_each, n ^ kb);

	err = kbloom_peer_init(&f, n, 10, 0x6b626c6f6f6d ^ n);
	if (err) {
		report_check(false, "kbloom-init", "%s: %s", tag,
			     strerror(-err));
		queries_free(&qs);
		return;
	}
	err = libbloom_peer_init(&b, n, 10);
	if (err) {
		report_check(false, "libbloom-init", "%s: %s", tag,
			     strerror(-err));
		kbloom_filter_free(&f);
		queries_free(&qs);
		return;
	}
	if (bpf_usable) {
		err = bpf_peer_init(&bp, n, kb, 10);
		if (err) {
			printf("bpf-map: skipped: bpf(BPF_MAP_CREATE) of a "
			       "bloom filter map failed: %s (needs root or "
			       "CAP_BPF and a kernel with "
			       "BPF_MAP_TYPE_BLOOM_FILTER, 5.16+)\n",
			       strerror(-err));
			bpf_usable = false;
		} else {
			u64 t0 = bench_now_ns();

			err = bpf_peer_fill(&bp, added, &qs, sample,
					    p->bpf_fill_budget_s);
			if (err) {
				printf("bpf-map: skipped: filling failed: %s\n",
				       strerror(-err));
				bpf_peer_free(&bp);
			} else {
				bpf = true;
				printf("bpf-map: filled %llu of %llu keys in "
				       "%.1f s\n",
				       (unsigned long long)bp.filled,
				       (unsigned long long)n,
				       (bench_now_ns() - t0) / 1e9);
			}
		}
	}
	/* Always: the adds into a full filter go to a copy of f. */
	if (kbloom_peer_init(&f_adds, n, 10, 0x6b626c6f6f6d ^ n)) {
		fprintf(stderr, "bench: out of memory for %s\n", tag);
		exit(2);
	}
	if (add_n < n) {
		if (libbloom_peer_init(&b_adds, n, 10)) {
			fprintf(stderr, "bench: out of memory for %s\n", tag);
			exit(2);
		}
		kf_add = &f_adds;
		lb_add = &b_adds;
		kfill = kbloom_peer_add(&f, added, n);
		lfill = libbloom_peer_add(&b, added, n);
		printf("one full fill: kbloom %.1f, libbloom %.1f ns per add; "
		       "repeats time the first %s adds into an empty filter\n",
		       kfill, lfill, size_name(add_n));
	}
	idx = limit_indices(q, f.geo.nblocks * KBLOOM_BLOCK_WORDS, n + kb);
	kv_added = keys_kv(added, add_n);
	kv_fresh = keys_kv(fresh, fill_m);

	kadd = result_init("kbloom", "add", n, kb, 10);
	kfadd = result_init("kbloom", "add_filled", n, kb, 10);
	kabat = result_init("kbloom", "add_batch", n, kb, 10);
	kfbat = result_init("kbloom", "add_batch_filled", n, kb, 10);
	kchk = result_init("kbloom", "check", n, kb, 10);
	kbat = result_init("kbloom", "check_batch", n, kb, 10);
	ladd = result_init("libbloom", "add", n, kb, 10);
	lchk = result_init("libbloom", "check", n, kb, 10);
	badd = result_init("bpf-map", "add", n, kb, 10);
	bchk = result_init("bpf-map", "check", n, kb, 10);
	lim = result_init("limit", "load", n, kb, 10);
	flr = result_init("xxh64+load", "load", n, kb, 10);
	flri = result_init("xxh64i+load", "load", n, kb, 10);
	kbat.batch = BENCH_BATCH;
	kabat.batch = BENCH_BATCH;
	kfbat.batch = BENCH_BATCH;
	flr.batch = BENCH_BATCH;
	flri.batch = BENCH_BATCH;

	/*
	 * When add_n == n, kf_add is f itself: the batched fill leaves f
	 * holding all n keys again before the filled adds copy it.
	 */
	for (r = 0; r < p->repeats; r++) {
		kadd.ns[r] = kbloom_peer_add(kf_add, added, add_n);
		kbloom_clear(kf_add);
		kabat.ns[r] = kbloom_peer_add_batch(kf_add, kv_added, add_n);
		kbloom_peer_copy(&f_adds, &f);
		kfadd.ns[r] = kbloom_peer_add_keys(&f_adds, fresh, 0, fill_m);
		kbloom_peer_copy(&f_adds, &f);
		kfbat.ns[r] = kbloom_peer_add_batch(&f_adds, kv_fresh, fill_m);
		kchk.ns[r] = kbloom_peer_check(&f, &qs);
		kbat.ns[r] = kbloom_peer_check_batch(&f, &qs, BENCH_BATCH);
		ladd.ns[r] = libbloom_peer_add(lb_add, added, add_n);
		lchk.ns[r] = libbloom_peer_check(&b, &qs);
		if (bpf) {
			badd.ns[r] = bpf_peer_add(&bp, added, sample);
			bchk.ns[r] = bpf_peer_check(&bp, &qs, sample);
		}
		lim.ns[r] = limit_load(f.words, idx, q);
		flr.ns[r] = floor_xxh64_load(&f, qs.kv, q);
		flri.ns[r] = floor_xxh64_inline_load(&f, qs.kv, q);
		printf("  repeat %d/%d: kbloom add %.1f filled %.1f batch %.1f"
		       " filled %.1f check %.1f batch %.1f | libbloom add %.1f"
		       " check %.1f", r + 1, p->repeats, kadd.ns[r],
		       kfadd.ns[r], kabat.ns[r], kfbat.ns[r], kchk.ns[r],
		       kbat.ns[r], ladd.ns[r], lchk.ns[r]);
		if (bpf)
			printf(" | bpf add %.0f check %.0f", badd.ns[r],
			       bchk.ns[r]);
		printf(" | load %.1f xxh64+load %.1f (inlined %.1f) ns\n",
		       lim.ns[r], flr.ns[r], flri.ns[r]);
		fflush(stdout);
	}

	/* Untimed: what each one answered. */
	missing = kbloom_peer_missing(&f, added, n);
	differ = kbloom_peer_answers(&f, &qs, &ks, &kbt);
	check_zero("kbloom", "no-false-negatives", tag,
		   missing + ks.false_negatives + kbt.false_negatives,
		   "added keys reported absent");
	check_zero("kbloom", "batch-matches-single", tag, differ,
		   "queries answered differently");
	check_zero("kbloom", "no-false-negatives-filled-add", tag,
		   kbloom_peer_missing(&f_adds, fresh, fill_m),
		   "keys added into the full filter reported absent");
	/* Single and batched adds of the same keys set the same cells. */
	kbloom_peer_add(&f_adds, added, add_n);
	single_digest = kbloom_peer_digest(&f_adds);
	kbloom_clear(&f_adds);
	kbloom_peer_add_batch(&f_adds, kv_added, add_n);
	report_check(single_digest == kbloom_peer_digest(&f_adds),
		     note_printf("kbloom-add-batch-cells-match-add/%s", tag),
		     "%s keys added one by one and in batches of %u leave "
		     "different cells", size_name(add_n), BENCH_BATCH);
	kchk.fp_theory = kbloom_peer_fp_theory(&f, n);
	kchk.fp_measured = answers_fp(&ks);
	kchk.fp_queries = ks.absent;
	check_fp("kbloom", tag, kchk.fp_measured, kchk.fp_theory, ks.absent);
	kbat.fp_theory = kchk.fp_theory;
	kbat.fp_measured = answers_fp(&kbt);
	kbat.fp_queries = kbt.absent;

	libbloom_peer_answers(&b, &qs, &la);
	check_zero("libbloom", "no-false-negatives", tag, la.false_negatives,
		   "added keys reported absent");
	lchk.fp_theory = libbloom_peer_fp_theory(&b, n);
	lchk.fp_measured = answers_fp(&la);
	lchk.fp_queries = la.absent;

	describe(&kadd, f.geo.k, kbloom_peer_bits_per_key(&f, n),
		 kbloom_geometry_bytes(&f.geo), add_n, p->repeats);
	describe(&kabat, f.geo.k, kadd.bits_per_key, kadd.bytes, add_n,
		 p->repeats);
	describe(&kfadd, f.geo.k, kadd.bits_per_key, kadd.bytes, fill_m,
		 p->repeats);
	describe(&kfbat, f.geo.k, kadd.bits_per_key, kadd.bytes, fill_m,
		 p->repeats);
	kfadd.note = filled_note(fill_m, n);
	kfbat.note = kfadd.note;
	describe(&kchk, f.geo.k, kadd.bits_per_key, kadd.bytes, q,
		 p->repeats);
	describe(&kbat, f.geo.k, kadd.bits_per_key, kadd.bytes, q,
		 p->repeats);
	describe(&lim, 0, 0, kadd.bytes, q, p->repeats);
	describe(&flr, 0, 0, kadd.bytes, q, p->repeats);
	describe(&flri, 0, 0, kadd.bytes, q, p->repeats);
	flr.note = note_printf("libxxhash XXH64 (called) of each query, one "
			       "8-byte load from the block the core picks, %d "
			       "keys ahead%s, %u per pass",
			       floor_ahead, floor_ahead_found ?
			       " (the core's KBLOOM_BATCH_AHEAD)" :
			       " (KBLOOM_BATCH_AHEAD not found in the core)",
			       BENCH_BATCH);
	flri.note = "the same with XXH64 inlined (XXH_INLINE_ALL)";
	describe(&ladd, b.hashes, libbloom_peer_bits_per_key(&b, n), b.bytes,
		 add_n, p->repeats);
	if (add_n < n) {
		kadd.fill_ns = kfill;
		ladd.fill_ns = lfill;
		kadd.note = add_note(add_n, n, kfill);
		kabat.note = note_printf("timed on the first %s adds into an "
					 "empty %s-key filter",
					 size_name(add_n), size_name(n));
		ladd.note = add_note(add_n, n, lfill);
	}
	describe(&lchk, b.hashes, ladd.bits_per_key, b.bytes, q, p->repeats);
	lim.note = "independent random 8-byte loads over the kbloom "
		   "filter's own array";
	report_add(&kadd);
	report_add(&kfadd);
	report_add(&kabat);
	report_add(&kfbat);
	report_add(&kchk);
	report_add(&kbat);
	report_add(&ladd);
	report_add(&lchk);

	if (bpf) {
		err = bpf_peer_answers(&bp, &qs, sample, &ba);
		if (err) {
			report_check(false, "bpf-map-answers", "%s: %s", tag,
				     strerror(-err));
		} else {
			check_zero("bpf-map", "no-false-negatives", tag,
				   ba.false_negatives,
				   "added keys reported absent");
			if (bp.filled >= n) {
				bchk.fp_measured = answers_fp(&ba);
				bchk.fp_queries = ba.absent;
			}
		}
		describe(&badd, bp.shape.k, bpf_peer_bits_per_key(&bp),
			 bp.shape.bits / 8, sample, p->repeats);
		describe(&bchk, bp.shape.k, badd.bits_per_key,
			 bp.shape.bits / 8, sample, p->repeats);
		bchk.fp_theory = bpf_peer_fp_theory(&bp);
		badd.note = bpf_note(&bp, sample);
		bchk.note = badd.note;
		report_add(&badd);
		report_add(&bchk);
		bpf_peer_free(&bp);
	}
	report_add(&lim);
	report_add(&flr);
	report_add(&flri);

	free(idx);
	free(kv_added);
	free(kv_fresh);
	kbloom_filter_free(&f_adds);
	if (add_n < n)
		bloom_free(&b_adds);
	bloom_free(&b);
	kbloom_filter_free(&f);
	queries_free(&qs);
}

/* False positives only, at several bits/key, each filter exactly full. */
static void run_sweep(const struct plan *p, const struct key_set *added,
		      const struct key_set *absent)
{
	size_t i;

	printf("== false-positive sweep: %llu-bit filters, %llu absent "
	       "queries\n", (unsigned long long)p->sweep_bits,
	       (unsigned long long)p->sweep_absent);
	fflush(stdout);
	for (i = 0; i < ARRAY_SIZE(sweep_bits_per_key); i++) {
		u32 c = sweep_bits_per_key[i];
		u64 n = p->sweep_bits / c, npresent = bench_min(n, 100000);
		struct result kr = result_init("kbloom", "check", n, 8, c);
		struct result lr = result_init("libbloom", "check", n, 8, c);
		struct result br = result_init("bpf-map", "check", n, 8, c);
		struct answers ks, kbt, la, ba;
		struct kbloom_filter f;
		struct query_set qs;
		struct bpf_peer bp;
		struct bloom b;
		char tag[64];
		int err;

		snprintf(tag, sizeof(tag), "sweep,c=%u,n=%s", c, size_name(n));
		queries_build(&qs, added, n, npresent, absent,
			      p->sweep_absent, c);
		kr.note = "fp sweep";
		lr.note = kr.note;
		br.note = kr.note;

		err = kbloom_peer_init(&f, n, c, 0x5eed ^ c);
		if (err) {
			report_check(false, "kbloom-init", "%s: %s", tag,
				     strerror(-err));
		} else {
			kbloom_peer_add(&f, added, n);
			kbloom_peer_answers(&f, &qs, &ks, &kbt);
			check_zero("kbloom", "no-false-negatives", tag,
				   ks.false_negatives + kbt.false_negatives,
				   "added keys reported absent");
			kr.fp_measured = answers_fp(&ks);
			kr.fp_theory = kbloom_peer_fp_theory(&f, n);
			kr.fp_queries = ks.absent;
			kr.k = f.geo.k;
			kr.bits_per_key = kbloom_peer_bits_per_key(&f, n);
			kr.bytes = kbloom_geometry_bytes(&f.geo);
			check_fp("kbloom", tag, kr.fp_measured, kr.fp_theory,
				 ks.absent);
			report_add(&kr);
			kbloom_filter_free(&f);
		}

		if (!libbloom_peer_init(&b, n, c)) {
			libbloom_peer_add(&b, added, n);
			libbloom_peer_answers(&b, &qs, &la);
			check_zero("libbloom", "no-false-negatives", tag,
				   la.false_negatives,
				   "added keys reported absent");
			lr.fp_measured = answers_fp(&la);
			lr.fp_theory = libbloom_peer_fp_theory(&b, n);
			lr.fp_queries = la.absent;
			lr.k = b.hashes;
			lr.bits_per_key = libbloom_peer_bits_per_key(&b, n);
			lr.bytes = b.bytes;
			report_add(&lr);
			bloom_free(&b);
		}

		if (bpf_usable && !bpf_peer_init(&bp, n, 8, c)) {
			u64 sample = bench_min(qs.keys.n, 2 * p->bpf_sample);

			if (!bpf_peer_fill(&bp, added, &qs, 0, 1e9) &&
			    !bpf_peer_answers(&bp, &qs, sample, &ba)) {
				check_zero("bpf-map", "no-false-negatives",
					   tag, ba.false_negatives,
					   "added keys reported absent");
				br.fp_measured = answers_fp(&ba);
				br.fp_theory = bpf_peer_fp_theory(&bp);
				br.fp_queries = ba.absent;
				br.k = bp.shape.k;
				br.bits_per_key = bpf_peer_bits_per_key(&bp);
				br.bytes = bp.shape.bits / 8;
				report_add(&br);
			}
			bpf_peer_free(&bp);
		}
		queries_free(&qs);
	}
}

/*
 * "xxh64 + one load" is only a floor if it loads the block the core
 * probes: add one key to an empty filter and find the block it changed.
 */
static void check_floor_block(const struct key_set *keys)
{
	struct kbloom_filter f;
	u64 i, b, wrong = 0, tried = bench_min(keys->n, 64);

	if (kbloom_peer_init(&f, 10000, 10, 0x6b626c6f6f6d)) {
		report_check(false, "floor-picks-core-block", "no filter");
		return;
	}
	for (i = 0; i < tried; i++) {
		u64 want = floor_block_index(&f, key_at(keys, i), keys->kb);
		u64 got = f.geo.nblocks;

		kbloom_clear(&f);
		kbloom_add(&f, key_at(keys, i), keys->kb);
		for (b = 0; b < f.geo.nblocks && got == f.geo.nblocks; b++) {
			u32 w;

			for (w = 0; w < KBLOOM_BLOCK_WORDS; w++)
				if (f.words[b * KBLOOM_BLOCK_WORDS + w])
					got = b;
		}
		wrong += got != want;
	}
	report_check(!wrong, note_printf("floor-picks-core-block/%uB",
					 keys->kb),
		     "%llu of %llu keys: the core set cells outside the block "
		     "xxh64 + one load reads", (unsigned long long)wrong,
		     (unsigned long long)tried);
	kbloom_filter_free(&f);
}

static double before_arg(const char *env)
{
	const char *v = getenv(env);

	return v && *v ? strtod(v, NULL) : NAN;
}

static void print_header(const struct plan *p)
{
	char line[256], model[256] = "?", thp[128] = "?";
	struct utsname u;
	FILE *f;

	f = fopen("/proc/cpuinfo", "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "model name", 10)) {
			snprintf(model, sizeof(model), "%s",
				 strchr(line, ':') + 2);
			model[strcspn(model, "\n")] = '\0';
			break;
		}
	}
	if (f)
		fclose(f);
	f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	if (f && fgets(thp, sizeof(thp), f))
		thp[strcspn(thp, "\n")] = '\0';
	if (f)
		fclose(f);
	uname(&u);
	printf("kbloom benchmark (%s): kernel %s, %s, THP %s\n",
	       p->quick ? "QUICK" : "full", u.release, model, thp);
	printf("core and peers built with: %s\n", BENCH_CFLAGS);
	f = fopen("/proc/loadavg", "r");
	if (f && fgets(line, sizeof(line), f))
		printf("load average at start: %s", line);
	if (f)
		fclose(f);
}

int main(int argc, char **argv)
{
	const char *jsonl = "results.jsonl", *plotdir = ".", *workdir = ".";
	struct plan plan = full_plan;
	struct key_set added, absent, fresh;
	u64 t0 = bench_now_ns();
	bool only_sizes = false, only_window = false, only_scale = false;
	double before8 = before_arg("KBLOOM_BENCH_BEFORE_CHECK_10M_NS");
	double before16 = before_arg("KBLOOM_BENCH_BEFORE_CHECK_10M_16B_NS");
	u64 sizes[3];
	int i, s, nsizes = 0;
	size_t k;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--callgrind-child") && i + 2 < argc)
			return callgrind_child(argv[i + 1],
					       strtoull(argv[i + 2], NULL, 0));
		if (!strcmp(argv[i], "--quick")) {
			plan = quick_plan;
		} else if (!strcmp(argv[i], "--window")) {
			only_window = true;
		} else if (!strcmp(argv[i], "--scale")) {
			only_scale = true;
		} else if (!strcmp(argv[i], "--n") && i + 1 < argc) {
			only_sizes = true;
			if (nsizes < 3)
				sizes[nsizes++] = strtoull(argv[i + 1], NULL,
							   0);
			i++;
		} else if (!strcmp(argv[i], "--jsonl") && i + 1 < argc) {
			jsonl = argv[++i];
		} else if (!strcmp(argv[i], "--plot-data") && i + 1 < argc) {
			plotdir = argv[++i];
		} else if (!strcmp(argv[i], "--work") && i + 1 < argc) {
			workdir = argv[++i];
		} else if (!strcmp(argv[i], "--before-check-10m") &&
			   i + 1 < argc) {
			before8 = strtod(argv[++i], NULL);
		} else if (!strcmp(argv[i], "--before-check-10m-16b") &&
			   i + 1 < argc) {
			before16 = strtod(argv[++i], NULL);
		} else {
			fprintf(stderr, "usage: %s [--quick] [--n N]... "
				"[--window | --scale] [--jsonl PATH] [--plot-data DIR] "
				"[--work DIR] [--before-check-10m NS] "
				"[--before-check-10m-16b NS]\n", argv[0]);
			return 2;
		}
	}
	if (only_sizes) {
		memcpy(plan.sizes, sizes, sizeof(sizes));
		plan.nsizes = nsizes;
	}
	print_header(&plan);
	report_set_before_check_10m(8, before8);
	report_set_before_check_10m(16, before16);

	for (k = 0; k < ARRAY_SIZE(key_sizes) && !only_window && !only_scale;
	     k++) {
		u64 nmax = 0, nfresh = 0;
		u64 nabsent = bench_max(plan.queries_max / 2,
					plan.sweep_absent);

		for (s = 0; s < plan.nsizes; s++) {
			nmax = bench_max(nmax, plan.sizes[s]);
			nfresh = bench_max(nfresh, plan.sizes[s] /
						   plan.filled_div);
		}
		nfresh = bench_min(nfresh, plan.filled_max);
		if (!only_sizes)
			nmax = bench_max(nmax, plan.sweep_bits / 8);
		keys_generate(&added, nmax, key_sizes[k], 1000 + key_sizes[k]);
		keys_generate(&absent, nabsent, key_sizes[k],
			      2000 + key_sizes[k]);
		keys_generate(&fresh, nfresh, key_sizes[k],
			      3000 + key_sizes[k]);
		check_floor_block(&added);
		for (s = 0; s < plan.nsizes; s++)
			run_config(&plan, &added, &absent, &fresh,
				   plan.sizes[s]);
		if (key_sizes[k] == 8 && !only_sizes)
			run_sweep(&plan, &added, &absent);
		keys_free(&added);
		keys_free(&absent);
		keys_free(&fresh);
	}
	if (!only_sizes) {
		if (!only_scale)
			window_memory_table();
		for (s = 0; s < plan.nwindow && !only_scale; s++)
			window_run(plan.window_sizes[s], plan.repeats,
				   plan.quick);
		scale_memory_table();
		scale_run(plan.scale_first, 10, plan.repeats);
		scale_run(plan.scale_first, 100, plan.repeats);
	}
	if (plan.callgrind_n && !only_sizes && !only_window && !only_scale) {
		printf("== callgrind: %llu operations per workload\n",
		       (unsigned long long)plan.callgrind_n);
		fflush(stdout);
		callgrind_measure(workdir, plan.callgrind_n);
	}

	report_print_table();
	report_print_ratios(plan.quick);
	window_report();
	report_check(!report_write_jsonl(jsonl), "jsonl-written", "%s",
		     jsonl);
	report_check(!report_write_plot_data(plotdir), "plot-data-written",
		     "%s", plotdir);
	printf("\nJSONL: %s\n", jsonl);
	printf("total time %.1f s\n", (bench_now_ns() - t0) / 1e9);
	return report_failures() ? 1 : 0;
}
