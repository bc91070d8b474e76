/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the benchmark's files share: the key sets every implementation is fed
 * (the same bytes for all of them), the clock, and the result records that
 * report.c turns into the table, the JSONL and the plot data.
 */
#ifndef KBLOOM_BENCH_H
#define KBLOOM_BENCH_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "kbloom_core.h"	/* from KMOD (-I), the core being timed */

#define BENCH_MAX_REPEATS	9
#define BENCH_BATCH		4096	/* keys per kbloom_*_batch call */

static inline u64 bench_min(u64 a, u64 b)
{
	return a < b ? a : b;
}

static inline u64 bench_max(u64 a, u64 b)
{
	return a > b ? a : b;
}

/* Keeps the compiler from discarding results nobody else reads. */
static inline void bench_keep(u64 v)
{
	__asm__ __volatile__("" : : "r"(v));
}

static inline u64 bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

/* n keys of kb bytes each, back to back. */
struct key_set {
	u8 *bytes;
	u64 n;
	u32 kb;
};

static inline const u8 *key_at(const struct key_set *ks, u64 i)
{
	return ks->bytes + i * ks->kb;
}

/*
 * Check queries: half of them keys that were added, half keys that never
 * were, shuffled together so a branch predictor cannot learn the pattern.
 */
struct query_set {
	struct key_set keys;
	u8 *present;			/* 1 when query i was added */
	struct kbloom_key *kv;		/* the same keys for the batch API */
	u64 npresent;
	u64 nabsent;
};

/* What an implementation answered for a query set. */
struct answers {
	u64 false_negatives;		/* present keys reported absent */
	u64 false_positives;		/* absent keys reported present */
	u64 absent;			/* absent keys asked */
};

static inline double answers_fp(const struct answers *a)
{
	return a->absent ? (double)a->false_positives / a->absent : NAN;
}

/* keys.c */
void keys_generate(struct key_set *ks, u64 n, u32 kb, u64 seed);
void keys_free(struct key_set *ks);
struct kbloom_key *keys_kv(const struct key_set *ks, u64 n);
void queries_build(struct query_set *qs, const struct key_set *added,
		   u64 nadded, u64 npresent, const struct key_set *absent,
		   u64 nabsent, u64 seed);
void queries_free(struct query_set *qs);
u64 bench_rand64(u64 *state);
/* malloc, or the program ends with a message: the benchmark cannot go on. */
void *bench_xmalloc(size_t bytes);

/* One measured figure: the median of its repeats, with what it measured. */
struct result {
	const char *impl;		/* kbloom, libbloom, bpf-map, limit ... */
	const char *where;		/* host or vm */
	const char *op;			/* add, add_filled, add_batch, ... */
	u64 n;				/* keys in the filter */
	u32 key_bytes;
	u32 bits_per_key_target;
	double bits_per_key;		/* what the implementation really used */
	u32 k;				/* hash functions / probes, 0 if n/a */
	u32 batch;			/* keys per call */
	u64 bytes;			/* memory of the filter (or array) */
	u64 ops_timed;			/* operations in one timed repeat */
	int repeats;
	double ns[BENCH_MAX_REPEATS];	/* per-op time of each repeat */
	double ns_per_op;		/* median of ns[], NAN if not timed */
	double fill_ns;			/* add: one fill of all n keys, or NAN */
	double fp_measured;		/* NAN: not applicable */
	double fp_theory;
	u64 fp_queries;			/* absent keys behind fp_measured */
	double instr_per_op;		/* callgrind; 0 unless measured */
	u32 generations;		/* window filters' g; 0 otherwise */
	double fp_target;		/* rate it was sized for; 0: by bits */
	const char *note;		/* NULL or a caveat for the reader */
};

double median(const double *v, int n);
/* A printf'd note that lives to the end of the run (bench.c). */
const char *note_printf(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* report.c */
struct result *report_add(const struct result *r);
const struct result *report_find(const char *impl, const char *op, u64 n,
				 u32 key_bytes, u32 bits_per_key_target);
void report_print_table(void);
void report_set_before_check_10m(u32 key_bytes, double ns);
int report_print_ratios(bool quick);
int report_write_jsonl(const char *path);
int report_write_plot_data(const char *dir);
void report_check(bool ok, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int report_failures(void);

/* Formulas (theory.c). */
double fp_standard(double bits, double n, u32 k);
double fp_blocked_core(u64 nblocks, u64 n, u32 k);

#endif /* KBLOOM_BENCH_H */
