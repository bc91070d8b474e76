/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every host test program shares: the PASS:/FAIL: report lines that
 * scripts/check counts, reproducible random keys, and small helpers for
 * making filters.
 */
#ifndef KBLOOM_HOST_HARNESS_H
#define KBLOOM_HOST_HARNESS_H

#include <stdio.h>
#include "../../kmod/kbloom_core.h"
#include "../../kunit/kbloom_test_types.h"

void pass(const char *suite, const char *name);
void fail(const char *suite, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Reports a case from a condition; returns the condition. */
bool expect(bool ok, const char *suite, const char *name, const char *fmt,
	    ...) __attribute__((format(printf, 4, 5)));
/* Exit status for main(): non-zero when any case failed. */
int harness_exit(void);

/* The filter's counts, summed over its per-CPU (here per-thread) copies. */
static inline struct kbloom_counts counts_of(const struct kbloom_filter *f)
{
	struct kbloom_counts c;

	kbloom_counts_read(f, &c);
	return c;
}

/* splitmix64: a bijection of the counter, so distinct i give distinct keys. */
static inline u64 mix64(u64 i)
{
	u64 z = i + 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

struct rng {
	u64 state;
};

static inline u64 rng_next(struct rng *r)
{
	return mix64(r->state++);
}

/*
 * The filter types: the unit suite's table (kunit/kbloom_test_types.h), so
 * that a new type is one row for the KUnit suites and these sweeps alike.
 */
#define for_each_host_type(t)						\
	for ((t) = kbloom_test_types;					\
	     (t) < kbloom_test_types + ARRAY_SIZE(kbloom_test_types); (t)++)

/* "<case>/<type>", for the report lines. */
const char *typed_name(const char *fmt, const struct kbloom_test_type *t, ...)
	__attribute__((format(printf, 1, 3)));

/* A filter of this geometry with a fixed seed; exits on failure. */
void make_filter_type(struct kbloom_filter *f, u32 type, u64 nblocks, u32 k,
		      u64 seed);
void make_filter_geo(struct kbloom_filter *f, const struct kbloom_geometry *g,
		     u64 seed);

/* Adds keys mix64(base + i) as 8-byte keys, i < n, through the batch path. */
void add_counter_keys(struct kbloom_filter *f, u64 base, u64 n);
/* Counts "maybe" answers for keys mix64(base + i), i < n (batched). */
u64 count_counter_hits(struct kbloom_filter *f, u64 base, u64 n);
/* Deletes keys mix64(base + i), i < n (batched); returns those removed. */
u64 delete_counter_keys(struct kbloom_filter *f, u64 base, u64 n);

#endif /* KBLOOM_HOST_HARNESS_H */
