// SPDX-License-Identifier: GPL-2.0
/*
 * The window filters' rows of the host benchmark (KBLOOM_TYPE_WINDOW)
 * through the project's own core, never a prototype.
 *
 * 1. Memory per key of the window, beside the Age-Partitioned Bloom Filter
 *    and Bitcoin's rolling filter, like with like: bytes over the keys each
 *    one guarantees to find (the window).  Ours from the project's sizing,
 *    kbloom_geometry_from_rate_gen(); the peers from their own definitions,
 *    computed here (see apbf_* and bitcoin_* below for the formulas).
 * 2. Speed: add, add_batch, check and check_batch of a window of g = 8
 *    generations beside a bits filter sized for the same window keys and
 *    rate, and check_batch while another thread rotates the window
 *    continuously, with the ratios.
 *
 * The window is measured at its worst moment, just before a rotation: g
 * live generations of N = ceil(n / (g - 1)) keys each, n the window keys
 * (the guarantee covers the newest g - 1 generations, capacity = n).  Key
 * set j (0 .. g - 1) is generation j's; the bits filter holds the n keys of
 * sets 1 .. g - 1, the window's guaranteed ones, and the queries' present
 * half comes from those.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "peer_kbloom.h"
#include "window.h"

#define WIN_G		8		/* generations of the timed window */
#define WIN_FP_PPB	10000000	/* 1 %: the rate both filters are sized for */
#define WIN_SEED	0x77696e646f77ULL	/* "window" */
#define WIN_MEM_CAP	10000000	/* window keys of the memory table */

/* ------------------------------------------------------------------ */
/* 1. Memory per window key                                             */
/* ------------------------------------------------------------------ */

/*
 * The Age-Partitioned Bloom Filter (Shtul, Baquero, Almeida, "Age-
 * Partitioned Bloom Filters", 2020, arXiv:2001.03147): k + l slices of m
 * bits.  An insert sets one bit in each of the first k slices; after every
 * g inserts (a generation) the slices shift by one, the oldest slice is
 * dropped and an empty one enters in front.  A key's k bits stay in the
 * filter for l shifts after its own generation, so the last l * g inserts
 * are always found (the window; up to (l + 1) * g are).  m is chosen so
 * that a slice is half full when it leaves the first k positions, after
 * k * g inserts: 1 - exp(-k g / m) = 1/2, m = k g / ln 2.  Memory per
 * window key: (k + l) m / (l g) = (k + l) k / (l ln 2) bits.
 */
static double apbf_bits_per_key(u32 k, u32 l)
{
	return (double)(k + l) * k / (l * M_LN2);
}

/*
 * APBF's false-positive rate: a query is a false positive when k
 * consecutive slices all have its bit.  At the moment before a shift,
 * slice i < k has seen i + 1 generations, a full slice k * g inserts.
 * linear: the paper's model, slice fill (i + 1) / (2k) for i < k, 1/2 for
 * the others (the published rates: 0.121 % at k = 10, l = 7; 1.12 % at
 * k = 7, l = 5); !linear: the fill of a bit array, 1 - 2^(-(i + 1) / k),
 * which is higher for i < k - 1 (the paper's model is optimistic).  A
 * walk over the slices, oldest state kept as the length of the current run
 * of matching slices (k absorbs).
 */
static double apbf_fp(u32 k, u32 l, bool linear)
{
	double run[64] = { 1 }, next[64], hit = 0;
	u32 i, r;

	for (i = 0; i < k + l; i++) {
		double f;

		if (i >= k)
			f = 0.5;
		else
			f = linear ? (i + 1) / (2.0 * k) :
				     1 - exp2(-(i + 1.0) / k);
		memset(next, 0, sizeof(next));
		for (r = 0; r < k; r++) {
			next[0] += run[r] * (1 - f);
			if (r + 1 == k)
				hit += run[r] * f;
			else
				next[r + 1] += run[r] * f;
		}
		memcpy(run, next, sizeof(run));
	}
	return hit;
}

/*
 * Bitcoin Core's CRollingBloomFilter (src/common/bloom.cpp): for N
 * elements at rate p, k = round(ln p / ln 1/2) (1 .. 50), generations of
 * (N + 1) / 2 elements, three of them kept (at most 1.5 N elements: the
 * last N to 1.5 N are found, so N is the window), and
 * ceil(-k * 1.5 N / ln(1 - p^(1/k))) cells of 2 bits each (a generation
 * number), stored in 64-bit pairs.  Its header's "about 1.8 bytes per
 * element per factor of 10 in false-positive rate" is this.
 */
static double bitcoin_bits_per_key(double p, u64 n, u32 *k_out)
{
	double lp = log(p), cells;
	long k = lround(lp / log(0.5));
	u64 per_gen, max_elems, words;

	if (k < 1)
		k = 1;
	if (k > 50)
		k = 50;
	per_gen = (n + 1) / 2;
	max_elems = per_gen * 3;
	cells = ceil(-1.0 * k * max_elems / log(1.0 - exp(lp / k)));
	words = ((u64)cells + 63) / 64 * 2;
	*k_out = (u32)k;
	return 64.0 * words / n;
}

struct win_size {
	u64 bytes;
	u32 k, plane_order;
	u64 nblocks;
	double model;		/* kbloom_formula_fp_ppb_window at the worst */
	int err;
};

static struct win_size window_size(u32 g, u64 cap, double p)
{
	struct kbloom_geometry geo;
	struct win_size s = { 0 };
	u64 per_gen = (cap + g - 2) / (g - 1);

	s.err = kbloom_geometry_from_rate_gen(&geo, KBLOOM_TYPE_WINDOW, g, cap,
					      (u32)llround(p * 1e9));
	if (s.err)
		return s;
	s.bytes = kbloom_geometry_bytes(&geo);
	s.k = geo.k;
	s.plane_order = geo.plane_order;
	s.nblocks = geo.nblocks;
	s.model = kbloom_formula_fp_ppb_window(geo.nblocks, geo.plane_order,
					       per_gen, geo.k, g) / 1e9;
	return s;
}

static const double mem_rates[] = { 0.01, 0.001, 0.0112, 0.00121 };
#define NRATES	ARRAY_SIZE(mem_rates)
static const u32 mem_gens[] = { 2, 3, 4, 7, 8, 15, 16 };

static void mem_cell(const struct win_size *s, u64 cap)
{
	if (s->err)
		printf(" | %-17s", strerror(-s->err));
	else
		printf(" | %5.2f B k%-2u %.3f%%", (double)s->bytes / cap, s->k,
		       100 * s->model);
}

static void mem_json(const char *impl, u32 g, double p, double bytes_per_key,
		     u32 k, double fp, const char *note)
{
	struct result r = {
		.impl = impl, .op = "memory", .n = WIN_MEM_CAP, .key_bytes = 8,
		.bits_per_key = 8 * bytes_per_key, .k = k, .batch = 1,
		.bytes = (u64)llround(bytes_per_key * WIN_MEM_CAP),
		.fp_measured = NAN, .fp_theory = fp, .fill_ns = NAN,
		.note = note,
	};

	r.generations = g;
	r.fp_target = p;
	report_add(&r);
}

void window_memory_table(void)
{
	const u64 cap = WIN_MEM_CAP;
	u32 best_g[NRATES] = { 0 }, i, g;
	struct win_size best[NRATES];
	double apbf_lin[2], apbf_exact[2];
	u32 kb1, kb2;

	printf("\n== window filters: memory per window key (keys guaranteed "
	       "found), %s window keys\n", "10M");
	printf("   kbloom: kbloom_geometry_from_rate_gen(), all memory (spare "
	       "plane and unused planes included) / capacity; k; and the "
	       "core's model rate at the worst moment (g generations of "
	       "capacity / (g - 1) keys)\n");
	printf(" %-23s", "target rate");
	for (i = 0; i < NRATES; i++) {
		char head[24];

		snprintf(head, sizeof(head), "%.3g %%", 100 * mem_rates[i]);
		printf(" | %-17s", head);
	}
	printf("\n");
	for (i = 0; i < NRATES; i++)
		best[i].bytes = 0;
	for (g = KBLOOM_GENERATIONS_MIN; g <= KBLOOM_GENERATIONS_MAX; g++) {
		bool shown = false;
		size_t j;

		for (j = 0; j < ARRAY_SIZE(mem_gens); j++)
			shown |= mem_gens[j] == g;
		if (shown)
			printf(" kbloom window g=%-2u P=%-2u", g,
			       1U << kbloom_plane_order(g));
		for (i = 0; i < NRATES; i++) {
			struct win_size s = window_size(g, cap, mem_rates[i]);

			if (shown) {
				mem_cell(&s, cap);
				if (!s.err)
					mem_json("kbloom-window", g,
						 mem_rates[i],
						 (double)s.bytes / cap, s.k,
						 s.model, "memory per window "
						 "key, from_rate_gen");
			}
			if (!s.err && (!best[i].bytes ||
				       s.bytes < best[i].bytes)) {
				best[i] = s;
				best_g[i] = g;
			}
		}
		if (shown)
			printf("\n");
	}
	printf(" %-23s", "kbloom window best g");
	for (i = 0; i < NRATES; i++)
		printf(" | g=%-2u %5.2f B k%-2u ", best_g[i],
		       (double)best[i].bytes / cap, best[i].k);
	printf("\n");
	printf(" %-23s", "Bitcoin rolling");
	for (i = 0; i < NRATES; i++) {
		double b = bitcoin_bits_per_key(mem_rates[i], cap, &kb1) / 8;

		printf(" | %5.2f B k%-2u       ", b, kb1);
		mem_json("bitcoin-rolling", 3, mem_rates[i], b, kb1,
			 mem_rates[i], "CRollingBloomFilter's sizing; window "
			 "N (N to 1.5 N found), 2-bit cells");
	}
	printf("\n");
	apbf_lin[0] = apbf_fp(7, 5, true);
	apbf_lin[1] = apbf_fp(10, 7, true);
	apbf_exact[0] = apbf_fp(7, 5, false);
	apbf_exact[1] = apbf_fp(10, 7, false);
	printf(" %-23s | %-17s | %-17s | %5.2f B k7 l5     | %5.2f B k10 l7\n",
	       "APBF", "", "",
	       apbf_bits_per_key(7, 5) / 8, apbf_bits_per_key(10, 7) / 8);
	mem_json("apbf", 5, 0.0112, apbf_bits_per_key(7, 5) / 8, 7,
		 apbf_lin[0], "(k + l) k / (l ln 2) bits, k = 7, l = 5");
	mem_json("apbf", 7, 0.00121, apbf_bits_per_key(10, 7) / 8, 10,
		 apbf_lin[1], "(k + l) k / (l ln 2) bits, k = 10, l = 7");
	printf("   APBF: (k + l) slices of m = k g / ln 2 bits for a window of "
	       "l g inserts: (k + l) k / (l ln 2) bits per window key;\n"
	       "   its rate by the paper's model (slice fill (i + 1) / 2k): "
	       "k7 l5 %.3f%%, k10 l7 %.3f%%; with the exact fill of a bit "
	       "array, 1 - 2^(-(i + 1) / k): %.3f%%, %.3f%%\n",
	       100 * apbf_lin[0], 100 * apbf_lin[1], 100 * apbf_exact[0],
	       100 * apbf_exact[1]);
	/* The paper's published rates, to 3 significant digits. */
	report_check(fabs(apbf_lin[0] - 0.0112) < 0.00005 &&
		     fabs(apbf_lin[1] - 0.00121) < 0.000005,
		     "window-apbf-rates-as-published",
		     "APBF model gives %.4f%% (k7 l5) and %.4f%% (k10 l7); "
		     "the paper says 1.12%% and 0.121%%", 100 * apbf_lin[0],
		     100 * apbf_lin[1]);
	/* Bitcoin's header: about 1.8 bytes per element per factor of 10. */
	{
		double d = (bitcoin_bits_per_key(0.001, cap, &kb2) -
			    bitcoin_bits_per_key(0.01, cap, &kb1)) / 8;

		report_check(d > 1.7 && d < 1.9,
			     "window-bitcoin-1.8-bytes-per-decade",
			     "%.2f bytes per element from 1 %% to 0.1 %%", d);
		printf("   Bitcoin: ceil(-k 1.5N / ln(1 - p^(1/k))) 2-bit "
		       "cells for a window of N, k = round(log2 1/p): %.2f "
		       "bytes per element per factor of 10 (1 %% -> 0.1 %%)\n",
		       d);
	}
	for (i = 0; i < NRATES; i++)
		report_check(!best[i].err && best[i].model <= mem_rates[i],
			     note_printf("window-sized-meets-rate/%.3g%%",
					 100 * mem_rates[i]),
			     "best g=%u: model %.5f%% over the target",
			     best_g[i], 100 * best[i].model);
}

/* ------------------------------------------------------------------ */
/* 2. Speed                                                             */
/* ------------------------------------------------------------------ */

struct win_bench {
	struct kbloom_filter win, bits;
	struct key_set keys;		/* g sets of per_gen keys, back to back */
	struct kbloom_key *kv;		/* the same, for the batch API */
	u64 n, per_gen;
	u32 g;
};

static const struct kbloom_key *set_kv(const struct win_bench *wb, u32 j)
{
	return wb->kv + (u64)j * wb->per_gen;
}

static void add_set_batch(struct kbloom_filter *f, const struct win_bench *wb,
			  u32 j)
{
	unsigned long results[BITS_TO_LONGS(BENCH_BATCH)];
	const struct kbloom_key *kv = set_kv(wb, j);
	u64 i;

	for (i = 0; i < wb->per_gen; i += BENCH_BATCH)
		kbloom_add_batch(f, kv + i,
				 (u32)bench_min(wb->per_gen - i, BENCH_BATCH),
				 results);
}

/*
 * Empties the window and fills it to the worst moment, set j into the
 * generation of age g - 1 - j; returns ns per add (rotations untimed).
 */
static double window_fill(struct win_bench *wb, bool batch)
{
	u64 spent = 0, fresh = 0, i;
	u32 j;

	kbloom_clear(&wb->win);
	for (j = 0; j < wb->g; j++) {
		const struct kbloom_key *kv = set_kv(wb, j);
		u64 t0;

		if (j)
			kbloom_window_rotate(&wb->win);
		t0 = bench_now_ns();
		if (batch) {
			add_set_batch(&wb->win, wb, j);
		} else {
			for (i = 0; i < wb->per_gen; i++)
				fresh += kbloom_add(&wb->win, kv[i].data,
						    kv[i].len);
		}
		spent += bench_now_ns() - t0;
	}
	bench_keep(fresh);
	return (double)spent / (wb->per_gen * wb->g);
}

/* The bits filter holds sets 1 .. g - 1: the window's guaranteed keys. */
static double bits_fill(struct win_bench *wb, bool batch)
{
	unsigned long results[BITS_TO_LONGS(BENCH_BATCH)];
	const struct kbloom_key *kv = set_kv(wb, 1);
	u64 i, m = wb->per_gen * (wb->g - 1), t0, fresh = 0;

	kbloom_clear(&wb->bits);
	t0 = bench_now_ns();
	if (batch) {
		for (i = 0; i < m; i += BENCH_BATCH)
			fresh += kbloom_add_batch(&wb->bits, kv + i,
						  (u32)bench_min(m - i,
								 BENCH_BATCH),
						  results);
	} else {
		for (i = 0; i < m; i++)
			fresh += kbloom_add(&wb->bits, kv[i].data, kv[i].len);
	}
	t0 = bench_now_ns() - t0;
	bench_keep(fresh);
	return (double)t0 / m;
}

/*
 * Rotations while checks run.  The rotator rotates, then adds into the new
 * current generation the set the rotation retired, so the window the
 * checks see stays at its steady state (g generations of N keys, the same
 * keys) instead of emptying, which would make checks cheaper and the
 * comparison flattering.  It stops only between a refill and the next
 * rotation.  bare: rotations back to back with no refill; the window
 * empties after g of them, so those are timed against checks of the
 * emptied window.
 */
struct rotator {
	struct win_bench *wb;
	int stop;		/* read and written with atomics */
	bool bare;
	u32 next;		/* the set the next rotation retires */
	u64 rotations;
	u64 busy_ns;
	int err;
};

static void *rotator_run(void *arg)
{
	struct rotator *rt = arg;
	u64 t0 = bench_now_ns();

	while (!__atomic_load_n(&rt->stop, __ATOMIC_ACQUIRE)) {
		int err = kbloom_window_rotate(&rt->wb->win);

		if (err) {
			rt->err = err;
			break;
		}
		rt->rotations++;
		if (!rt->bare) {
			add_set_batch(&rt->wb->win, rt->wb, rt->next);
			rt->next = (rt->next + 1) % rt->wb->g;
		}
	}
	rt->busy_ns = bench_now_ns() - t0;
	return NULL;
}

/* check_batch passes over qs for at least budget_ns; ns per key. */
static double check_batch_for(struct kbloom_filter *f,
			      const struct query_set *qs, u64 budget_ns)
{
	u64 t0 = bench_now_ns(), done = 0, t;

	do {
		kbloom_peer_check_batch(f, qs, BENCH_BATCH);
		done += qs->keys.n;
		t = bench_now_ns() - t0;
	} while (t < budget_ns);
	return (double)t / done;
}

static double check_batch_rotating(struct win_bench *wb,
				   const struct query_set *qs,
				   u64 budget_ns, struct rotator *rt)
{
	pthread_t th;
	double ns;

	__atomic_store_n(&rt->stop, 0, __ATOMIC_RELAXED);
	/* window_fill() left set 0 oldest; bare ones do not refill. */
	rt->next = 0;
	if (pthread_create(&th, NULL, rotator_run, rt)) {
		rt->err = -EAGAIN;
		return NAN;
	}
	ns = check_batch_for(&wb->win, qs, budget_ns);
	__atomic_store_n(&rt->stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	return ns;
}

/* Keys of sets first .. last the window does not find (must be 0). */
static u64 window_missing(struct win_bench *wb, u32 first, u32 last)
{
	struct key_set view = {
		.bytes = wb->keys.bytes + (u64)first * wb->per_gen * 8,
		.n = (u64)(last - first + 1) * wb->per_gen, .kb = 8,
	};

	return kbloom_peer_missing(&wb->win, &view, view.n);
}

static void describe_row(struct result *r, const struct kbloom_filter *f,
			 u64 n, u64 ops, int repeats, const char *note)
{
	r->k = f->geo.k;
	r->bits_per_key = 8.0 * kbloom_geometry_bytes(&f->geo) / n;
	r->bytes = kbloom_geometry_bytes(&f->geo);
	r->ops_timed = ops;
	r->repeats = repeats;
	r->note = note;
}

/* What the summary needs beside the results. */
struct win_stats {
	u64 n, rotations, rot_ns, bare;
	double fp_model;
};

static struct win_stats stats[4];
static size_t nstats;

enum {
	W_ADD, W_ADDB, W_CHK, W_CHKB, W_CHKB_ROT, W_CHKB_EMPTY, W_CHKB_BARE,
	W_NOPS
};

static const char *const w_ops[W_NOPS] = {
	"add", "add_batch", "check", "check_batch", "check_batch_rotating",
	"check_batch_emptied", "check_batch_rotating_bare",
};

void window_run(u64 n, int repeats, bool quick)
{
	struct result wr[W_NOPS], br[W_NOPS];
	struct rotator rt = { 0 }, rtb = { 0 };
	struct kbloom_geometry geo;
	struct win_bench wb = { 0 };
	struct query_set qs;
	struct key_set absent, guaranteed;
	u64 q_each = bench_min(n / 2, quick ? 100000 : 1000000);
	u64 budget = quick ? 40000000ULL : 600000000ULL;
	u64 rot_total = 0, rot_ns = 0, bare_total = 0, missing, i;
	struct answers ks, kbt;
	char tag[64];
	double fp_model;
	int r, err, op;

	wb.n = n;
	wb.g = WIN_G;
	wb.per_gen = (n + WIN_G - 2) / (WIN_G - 1);
	snprintf(tag, sizeof(tag), "window,g=%u,n=%llu", WIN_G,
		 (unsigned long long)n);
	err = kbloom_geometry_from_rate_gen(&geo, KBLOOM_TYPE_WINDOW, WIN_G, n,
					    WIN_FP_PPB);
	if (!err) {
		geo.seed = WIN_SEED ^ n;
		err = kbloom_filter_init(&wb.win, &geo);
	}
	if (err) {
		report_check(false, "window-init", "%s: %s", tag,
			     strerror(-err));
		return;
	}
	err = kbloom_geometry_from_rate(&geo, n, WIN_FP_PPB);
	if (!err) {
		geo.seed = WIN_SEED ^ n;
		err = kbloom_filter_init(&wb.bits, &geo);
	}
	if (err) {
		report_check(false, "window-bits-init", "%s: %s", tag,
			     strerror(-err));
		kbloom_filter_free(&wb.win);
		return;
	}
	keys_generate(&wb.keys, wb.per_gen * WIN_G, 8, 5000 + n);
	wb.kv = keys_kv(&wb.keys, wb.keys.n);
	keys_generate(&absent, q_each, 8, 6000 + n);
	guaranteed.bytes = wb.keys.bytes + wb.per_gen * 8;
	guaranteed.n = wb.per_gen * (WIN_G - 1);
	guaranteed.kb = 8;
	queries_build(&qs, &guaranteed, guaranteed.n, q_each, &absent, q_each,
		      7000 + n);

	printf("== window g = %u, n = %llu window keys (%llu per generation, "
	       "%u live = %llu keys at the worst moment), sized for 1 %% over "
	       "the window: %.1f MB, k %u, P %u; bits filter for the n "
	       "window keys at 1 %%: %.1f MB, k %u; %d repeats, %llu check "
	       "queries (half absent)\n", WIN_G, (unsigned long long)n,
	       (unsigned long long)wb.per_gen, WIN_G,
	       (unsigned long long)wb.per_gen * WIN_G,
	       kbloom_geometry_bytes(&wb.win.geo) / 1048576.0, wb.win.geo.k,
	       1U << wb.win.geo.plane_order,
	       kbloom_geometry_bytes(&wb.bits.geo) / 1048576.0, wb.bits.geo.k,
	       repeats, (unsigned long long)qs.keys.n);
	fflush(stdout);

	for (op = 0; op < W_NOPS; op++) {
		wr[op] = (struct result){
			.impl = "kbloom-window", .op = w_ops[op], .n = n,
			.key_bytes = 8, .batch = 1, .fp_measured = NAN,
			.fp_theory = NAN, .fill_ns = NAN,
		};
		wr[op].fp_target = WIN_FP_PPB / 1e9;
		br[op] = wr[op];
		br[op].impl = "kbloom-bits-as-window";
		wr[op].generations = WIN_G;
		if (op == W_ADDB || op >= W_CHKB) {
			wr[op].batch = BENCH_BATCH;
			br[op].batch = BENCH_BATCH;
		}
	}
	rt.wb = &wb;
	rtb.wb = &wb;
	rtb.bare = true;

	for (r = 0; r < repeats; r++) {
		u64 before;

		wr[W_ADD].ns[r] = window_fill(&wb, false);
		br[W_ADD].ns[r] = bits_fill(&wb, false);
		wr[W_ADDB].ns[r] = window_fill(&wb, true);
		br[W_ADDB].ns[r] = bits_fill(&wb, true);
		wr[W_CHK].ns[r] = kbloom_peer_check(&wb.win, &qs);
		br[W_CHK].ns[r] = kbloom_peer_check(&wb.bits, &qs);
		wr[W_CHKB].ns[r] = check_batch_for(&wb.win, &qs, budget);
		br[W_CHKB].ns[r] = check_batch_for(&wb.bits, &qs, budget);
		before = rt.rotations;
		wr[W_CHKB_ROT].ns[r] = check_batch_rotating(&wb, &qs, budget,
							    &rt);
		rot_total += rt.rotations - before;
		rot_ns += rt.busy_ns;
		printf("  repeat %d/%d: window add %.1f batch %.1f check %.1f "
		       "batch %.1f rotating %.1f (%llu rotations) | bits add "
		       "%.1f batch %.1f check %.1f batch %.1f ns\n", r + 1,
		       repeats, wr[W_ADD].ns[r], wr[W_ADDB].ns[r],
		       wr[W_CHK].ns[r], wr[W_CHKB].ns[r], wr[W_CHKB_ROT].ns[r],
		       (unsigned long long)(rt.rotations - before),
		       br[W_ADD].ns[r], br[W_ADDB].ns[r], br[W_CHK].ns[r],
		       br[W_CHKB].ns[r]);
		fflush(stdout);
	}
	if (rt.err)
		report_check(false, note_printf("window-rotate/%s", tag),
			     "kbloom_window_rotate: %s", strerror(-rt.err));

	/*
	 * Untimed: the rotator stopped after a refill, so every set is in
	 * the window again (sets rt.next .. rt.next + g - 1 by age, oldest
	 * first); every key of the g sets must be found, and the guaranteed
	 * ones by single and batched checks alike.
	 */
	missing = window_missing(&wb, 0, WIN_G - 1);
	report_check(missing == 0,
		     note_printf("window-no-false-negatives-after-rotations/%s",
				 tag),
		     "%llu of %llu keys lost after %llu rotations with "
		     "concurrent checks", (unsigned long long)missing,
		     (unsigned long long)wb.keys.n,
		     (unsigned long long)rt.rotations);
	/* Back to the fill's order for the answers and the FP. */
	window_fill(&wb, true);
	report_check(kbloom_peer_answers(&wb.win, &qs, &ks, &kbt) == 0 &&
		     ks.false_negatives + kbt.false_negatives == 0,
		     note_printf("window-batch-matches-single/%s", tag),
		     "%llu + %llu false negatives, or answers differ",
		     (unsigned long long)ks.false_negatives,
		     (unsigned long long)kbt.false_negatives);
	fp_model = kbloom_formula_fp_ppb_window(wb.win.geo.nblocks,
						wb.win.geo.plane_order,
						wb.per_gen, wb.win.geo.k,
						WIN_G) / 1e9;
	wr[W_CHK].fp_measured = answers_fp(&ks);
	wr[W_CHK].fp_theory = fp_model;
	wr[W_CHK].fp_queries = ks.absent;
	report_check(fabs(wr[W_CHK].fp_measured - fp_model) <=
		     5 * sqrt(fp_model * (1 - fp_model) / ks.absent) +
		     0.02 * fp_model,
		     note_printf("window-fp-vs-model/%s", tag),
		     "measured %.4f%% over %llu queries, model %.4f%%",
		     100 * wr[W_CHK].fp_measured,
		     (unsigned long long)ks.absent, 100 * fp_model);
	bits_fill(&wb, true);
	kbloom_peer_answers(&wb.bits, &qs, &ks, &kbt);
	br[W_CHK].fp_measured = answers_fp(&ks);
	br[W_CHK].fp_theory = kbloom_formula_fp_ppb(wb.bits.geo.nblocks,
						    guaranteed.n,
						    wb.bits.geo.k) / 1e9;
	br[W_CHK].fp_queries = ks.absent;

	/*
	 * Bare back-to-back rotations last: they empty the window, so they
	 * are compared with checks of the emptied window, interleaved.
	 */
	for (i = 0; i < WIN_G; i++)
		kbloom_window_rotate(&wb.win);
	for (r = 0; r < repeats; r++) {
		u64 before = rtb.rotations;

		wr[W_CHKB_EMPTY].ns[r] = check_batch_for(&wb.win, &qs, budget);
		wr[W_CHKB_BARE].ns[r] = check_batch_rotating(&wb, &qs, budget,
							     &rtb);
		bare_total += rtb.rotations - before;
	}

	for (op = 0; op < W_NOPS; op++) {
		u64 ops = op <= W_ADDB ? wb.per_gen * WIN_G : qs.keys.n;

		describe_row(&wr[op], &wb.win, n, ops, repeats,
			     op == W_CHKB_ROT ?
			     note_printf("another thread rotates and refills "
					 "the retired generation's keys "
					 "(%llu rotations over the repeats)",
					 (unsigned long long)rot_total) :
			     op == W_CHKB_BARE ?
			     note_printf("another thread rotates back to back, "
					 "no refill, on the emptied window "
					 "(%llu rotations)",
					 (unsigned long long)bare_total) :
			     op == W_CHKB_EMPTY ?
			     "the window emptied by g rotations, none running" :
			     "window g = 8 sized for 1 % over n window keys; "
			     "g generations of n / 7 keys");
		report_add(&wr[op]);
		if (op >= W_CHKB_ROT)
			continue;
		describe_row(&br[op], &wb.bits, n,
			     op <= W_ADDB ? guaranteed.n : qs.keys.n, repeats,
			     "bits filter sized for 1 % over the n window keys");
		report_add(&br[op]);
	}

	if (nstats < ARRAY_SIZE(stats))
		stats[nstats++] = (struct win_stats){
			.n = n, .rotations = rot_total, .rot_ns = rot_ns,
			.bare = bare_total, .fp_model = fp_model,
		};
	queries_free(&qs);
	keys_free(&absent);
	free(wb.kv);
	keys_free(&wb.keys);
	kbloom_filter_free(&wb.win);
	kbloom_filter_free(&wb.bits);
}

void window_report(void)
{
	size_t c;
	int op;

	if (!nstats)
		return;
	printf("\nWindow filters (g = %u, sized for 1 %% over n window "
	       "keys) against a bits filter sized for 1 %% over the same n "
	       "keys: median ns per key of interleaved repeats\n", WIN_G);
	for (c = 0; c < nstats; c++) {
		const struct win_stats *st = &stats[c];
		const struct result *w[W_NOPS], *b[W_NOPS];
		u64 n = st->n;
		bool ok = true;

		for (op = 0; op < W_NOPS; op++) {
			w[op] = report_find("kbloom-window", w_ops[op], n, 8,
					    0);
			b[op] = op < W_CHKB_ROT ?
				report_find("kbloom-bits-as-window", w_ops[op],
					    n, 8, 0) : NULL;
			ok &= w[op] && (op >= W_CHKB_ROT || b[op]);
		}
		if (!ok)
			continue;
		printf(" n = %llu window keys, 8-byte keys: window %.1f MB "
		       "(k %u), bits %.1f MB (k %u)\n", (unsigned long long)n,
		       w[W_ADD]->bytes / 1048576.0, w[W_ADD]->k,
		       b[W_ADD]->bytes / 1048576.0, b[W_ADD]->k);
		for (op = 0; op < W_CHKB_ROT; op++)
			printf("   %-12s window %7.1f  bits %7.1f  window / "
			       "bits %5.2fx\n", w_ops[op], w[op]->ns_per_op,
			       b[op]->ns_per_op,
			       w[op]->ns_per_op / b[op]->ns_per_op);
		printf("   check_batch while another thread rotates and "
		       "refills: %.1f ns; throughput with / without "
		       "rotations %.2f (target >= 0.5: %s); %.1f rotations/s, "
		       "%llu in all\n", w[W_CHKB_ROT]->ns_per_op,
		       w[W_CHKB]->ns_per_op / w[W_CHKB_ROT]->ns_per_op,
		       w[W_CHKB]->ns_per_op / w[W_CHKB_ROT]->ns_per_op >= 0.5 ?
		       "met" : "NOT MET",
		       st->rot_ns ? st->rotations * 1e9 / st->rot_ns : 0.0,
		       (unsigned long long)st->rotations);
		printf("   for information, on the emptied window: "
		       "check_batch %.1f ns, while another thread rotates "
		       "back to back (no refill) %.1f ns; throughput ratio "
		       "%.2f (%llu rotations)\n", w[W_CHKB_EMPTY]->ns_per_op,
		       w[W_CHKB_BARE]->ns_per_op,
		       w[W_CHKB_EMPTY]->ns_per_op / w[W_CHKB_BARE]->ns_per_op,
		       (unsigned long long)st->bare);
		printf("   FP at the worst moment: window measured %.4f%%, "
		       "model %.4f%%; bits measured %.4f%%, formula %.4f%%\n",
		       100 * w[W_CHK]->fp_measured, 100 * st->fp_model,
		       100 * b[W_CHK]->fp_measured, 100 * b[W_CHK]->fp_theory);
	}
}
