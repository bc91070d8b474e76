// SPDX-License-Identifier: GPL-2.0
/*
 * Concurrent adds on the host: 1, 2 and 4 threads adding distinct random
 * 8-byte keys into ONE filter, through the module's own core compiled for
 * userspace (kmod/core/core.mk, kmod/core/kbloom_kernel_shim.h), with
 * kbloom_add() one key per call and kbloom_add_batch() 4,096 keys per
 * call, for both filter types.  Every figure is the total over the
 * threads in M keys/s, the median of interleaved repeats; beside it, the
 * scaling against 1 thread.
 *
 * After every timed fill it checks what concurrency could break:
 *   - no key is lost: kbloom_lookup_batch() finds every key added;
 *   - the cells are exactly those of a fill by one thread: OR-ing bits and
 *     incrementing counters (stopping at KBLOOM_COUNTER_MAX) are
 *     commutative, so any interleaving of the same adds must leave the
 *     same words, and a lost update anywhere shows as a difference;
 *   - the stats are exact: add_calls equals the keys submitted.
 *
 * The compat header counts per thread, not per CPU: a thread takes the
 * next of COMPAT_NR_CPUS slots the first time it counts, and counts are
 * exact only while at most that many threads have ever counted.  So the
 * workers are one pool of MAX_THREADS threads, created once and reused by
 * every run, never a fresh set of threads per run.
 *
 * Usage: threads [--n N] [--repeats R]   (10 M keys at 10 bits/key, 9)
 * Build and run: make -C bench threads   (nothing else heavy running)
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#define BITS_PER_KEY	10
#define KEY_BYTES	8
#define BATCH		4096
#define MAX_THREADS	4
#define MAX_REPEATS	15
#define SEED		0x7468726561647321ULL	/* "threads!" */
#define WHY_BYTES	200

static const int thread_counts[] = { 1, 2, MAX_THREADS };
#define NCOUNTS	((int)ARRAY_SIZE(thread_counts))

enum op { OP_ADD, OP_ADD_BATCH, NOPS };
static const char *const op_names[NOPS] = { "add", "add_batch" };
static const u32 types[] = { KBLOOM_TYPE_BITS, KBLOOM_TYPE_COUNTING };
#define NTYPES	((int)ARRAY_SIZE(types))
static const char *const type_names[] = { "bits", "counting" };

static u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

/* splitmix64 (keys.c's): a bijection of the counter, so the keys are distinct. */
static u64 key_word(u64 i)
{
	u64 state = SEED + i * 0x9e3779b97f4a7c15ULL;

	return bench_rand64(&state);
}


/* What one run asks of the pool, and what each worker measured. */
struct job {
	struct kbloom_filter *f;
	enum op op;
	int nthreads;
	bool quit;
};

struct worker {
	pthread_t tid;
	int index;
	u64 t_start, t_end;
	unsigned long results[BITS_TO_LONGS(BATCH)];
};

static u64 nkeys;
static u64 *key_words;
static struct kbloom_key *key_vec;
static struct job job;
static struct worker workers[MAX_THREADS];
static pthread_barrier_t start_line, finish_line;
static int failures;

static void keep(u64 v)
{
	__asm__ __volatile__("" : : "r"(v));
}

/* Worker i of t adds keys [i n / t, (i + 1) n / t): its own, no overlap. */
static void worker_run(struct worker *w)
{
	u64 first = nkeys * w->index / job.nthreads;
	u64 end = nkeys * (w->index + 1) / job.nthreads;
	u64 i, fresh = 0;

	w->t_start = now_ns();
	if (job.op == OP_ADD) {
		for (i = first; i < end; i++)
			fresh += kbloom_add(job.f, &key_words[i], KEY_BYTES);
	} else {
		for (i = first; i < end; i += BATCH) {
			u32 m = (u32)min_t(u64, end - i, BATCH);

			fresh += kbloom_add_batch(job.f, key_vec + i, m,
						  w->results);
		}
	}
	w->t_end = now_ns();
	keep(fresh);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	for (;;) {
		pthread_barrier_wait(&start_line);
		if (job.quit)
			return NULL;
		if (w->index < job.nthreads)
			worker_run(w);
		pthread_barrier_wait(&finish_line);
	}
}

/* One timed fill of the emptied filter; returns M keys/s over all threads. */
static double timed_fill(struct kbloom_filter *f, enum op op, int nthreads)
{
	struct kbloom_counts zero = { 0 };
	u64 t0 = U64_MAX, t1 = 0;
	int i;

	kbloom_clear(f);
	kbloom_counts_set(f, &zero);
	job.f = f;
	job.op = op;
	job.nthreads = nthreads;
	pthread_barrier_wait(&start_line);
	pthread_barrier_wait(&finish_line);
	for (i = 0; i < nthreads; i++) {
		if (workers[i].t_start < t0)
			t0 = workers[i].t_start;
		if (workers[i].t_end > t1)
			t1 = workers[i].t_end;
	}
	return (double)nkeys / (double)(t1 - t0) * 1e3;
}

/* Why the filled filter is wrong, or NULL; ref: the cells of one thread. */
static const char *verify(struct kbloom_filter *f, const u64 *ref,
			  size_t cell_bytes, char *why, size_t why_len)
{
	unsigned long results[BITS_TO_LONGS(BATCH)];
	struct kbloom_counts c;
	u64 i, found = 0;

	/* Before the lookups, which count nothing anyway. */
	kbloom_counts_read(f, &c);
	for (i = 0; i < nkeys; i += BATCH) {
		u32 m = (u32)min_t(u64, nkeys - i, BATCH);

		found += kbloom_lookup_batch(f, key_vec + i, m, results);
	}
	if (found != nkeys) {
		snprintf(why, why_len, "%llu of %llu keys not found (lost)",
			 (unsigned long long)(nkeys - found),
			 (unsigned long long)nkeys);
		return why;
	}
	if (c.add_calls != nkeys) {
		snprintf(why, why_len, "add_calls %llu, %llu keys submitted",
			 (unsigned long long)c.add_calls,
			 (unsigned long long)nkeys);
		return why;
	}
	if (ref && memcmp(f->words, ref, cell_bytes)) {
		snprintf(why, why_len,
			 "cells differ from a fill by one thread");
		return why;
	}
	return NULL;
}

/*
 * Repeat r of one configuration: a timed fill, then its verification; the
 * first failure goes to why.  The first fill of a type is by one thread:
 * its cells become *ref, the reference for every later fill.
 */
static double run_one(struct kbloom_filter *f, u64 **ref, size_t cell_bytes,
		      enum op op, int c, int r, char *why)
{
	double m = timed_fill(f, op, thread_counts[c]);
	char buf[WHY_BYTES - 16];
	const char *bad = verify(f, *ref, cell_bytes, buf, sizeof(buf));

	if (bad && !why[0])
		snprintf(why, WHY_BYTES, "repeat %d: %s", r + 1, bad);
	if (!*ref && !bad) {
		*ref = bench_xmalloc(cell_bytes);
		memcpy(*ref, f->words, cell_bytes);
	}
	return m;
}

static void bad_args(void)
{
	fprintf(stderr, "usage: threads [--n KEYS] [--repeats 1-%d]\n",
		MAX_REPEATS);
	exit(2);
}

int main(int argc, char **argv)
{
	static double mkps[NTYPES][NOPS][NCOUNTS][MAX_REPEATS];
	/* First failure of each type x op x threads, for its FAIL line. */
	static char why[NTYPES][NOPS][NCOUNTS][WHY_BYTES];
	struct kbloom_filter filters[NTYPES];
	u64 *ref[NTYPES] = { NULL };
	size_t cell_bytes[NTYPES];
	int repeats = 9, r, t, o, c, i;
	u64 k;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	nkeys = 10000000;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--n") && i + 1 < argc)
			nkeys = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--repeats") && i + 1 < argc)
			repeats = atoi(argv[++i]);
		else
			bad_args();
	}
	if (nkeys < MAX_THREADS || repeats < 1 || repeats > MAX_REPEATS)
		bad_args();

	key_words = bench_xmalloc(nkeys * sizeof(*key_words));
	key_vec = bench_xmalloc(nkeys * sizeof(*key_vec));
	for (k = 0; k < nkeys; k++) {
		key_words[k] = key_word(k);
		key_vec[k].data = &key_words[k];
		key_vec[k].len = KEY_BYTES;
	}
	for (t = 0; t < NTYPES; t++) {
		struct kbloom_geometry geo;
		int err;

		err = kbloom_geometry_from_bits_per_key_type(&geo, types[t],
							     nkeys,
							     BITS_PER_KEY, 0);
		if (!err) {
			geo.seed = SEED;
			err = kbloom_filter_init(&filters[t], &geo);
		}
		if (err) {
			fprintf(stderr, "threads: %s filter of %llu keys: %s\n",
				type_names[t], (unsigned long long)nkeys,
				strerror(-err));
			return 2;
		}
		cell_bytes[t] = geo.nblocks * KBLOOM_BLOCK_BYTES;
	}

	pthread_barrier_init(&start_line, NULL, MAX_THREADS + 1);
	pthread_barrier_init(&finish_line, NULL, MAX_THREADS + 1);
	for (i = 0; i < MAX_THREADS; i++) {
		workers[i].index = i;
		if (pthread_create(&workers[i].tid, NULL, worker_main,
				   &workers[i])) {
			fprintf(stderr, "threads: pthread_create failed\n");
			return 2;
		}
	}

	printf("threads: %llu distinct random %d-byte keys, ",
	       (unsigned long long)nkeys, KEY_BYTES);
	printf("one filter at %d bits/key, ", BITS_PER_KEY);
	printf("%d repeats interleaved, %ld CPUs online\n", repeats, cpus);
	if (cpus < MAX_THREADS) {
		printf("threads: note: %d threads on %ld CPUs oversubscribe: ",
		       MAX_THREADS, cpus);
		printf("beyond %ld threads, more threads cannot add ", cpus);
		printf("throughput, only contention\n");
	}
	fflush(stdout);

	/* Repeat r of every configuration before repeat r + 1 of any. */
	for (r = 0; r < repeats; r++)
		for (t = 0; t < NTYPES; t++)
			for (o = 0; o < NOPS; o++)
				for (c = 0; c < NCOUNTS; c++)
					mkps[t][o][c][r] =
						run_one(&filters[t], &ref[t],
							cell_bytes[t], o, c, r,
							why[t][o][c]);

	job.quit = true;
	pthread_barrier_wait(&start_line);
	for (i = 0; i < MAX_THREADS; i++)
		pthread_join(workers[i].tid, NULL);

	printf("\n%-9s %-10s %7s %10s %8s %15s\n", "type", "op", "threads",
	       "M keys/s", "vs 1", "repeats' range");
	for (t = 0; t < NTYPES; t++)
		for (o = 0; o < NOPS; o++) {
			double one = median(mkps[t][o][0], repeats);

			for (c = 0; c < NCOUNTS; c++) {
				double m = median(mkps[t][o][c], repeats);
				double lo = mkps[t][o][c][0], hi = lo;

				for (r = 1; r < repeats; r++) {
					double v = mkps[t][o][c][r];

					lo = v < lo ? v : lo;
					hi = v > hi ? v : hi;
				}
				printf("%-9s %-10s %7d %10.2f %7.2fx %7.2f-%-7.2f%s\n",
				       type_names[t], op_names[o],
				       thread_counts[c], m, m / one, lo, hi,
				       thread_counts[c] > cpus ?
				       "  (oversubscribed)" : "");
			}
		}
	printf("(medians of %d; M keys/s: all threads' keys over the ",
	       repeats);
	printf("time from the first thread's start to the last one's end)\n\n");

	for (t = 0; t < NTYPES; t++)
		for (o = 0; o < NOPS; o++)
			for (c = 0; c < NCOUNTS; c++) {
				if (why[t][o][c][0]) {
					printf("FAIL: threads/%s-%s-%d: %s\n",
					       type_names[t], op_names[o],
					       thread_counts[c], why[t][o][c]);
					failures++;
				} else {
					printf("PASS: threads/%s-%s-%d\n",
					       type_names[t], op_names[o],
					       thread_counts[c]);
				}
			}
	for (t = 0; t < NTYPES; t++) {
		kbloom_filter_free(&filters[t]);
		free(ref[t]);
	}
	free(key_words);
	free(key_vec);
	return failures ? 1 : 0;
}
