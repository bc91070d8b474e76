/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every host test program shares: the PASS:/FAIL: report lines that
 * scripts/check counts, reproducible random keys, and small helpers for
 * making filters.
 */
#ifndef KBLOOM_HOST_HARNESS_H
#define KBLOOM_HOST_HARNESS_H

#include <stdio.h>
#include "../../kmod/core/kbloom_core.h"
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

/*
 * A filter of this geometry with a fixed seed; exits on failure.  By type:
 * keyblocks key blocks (a window's are P 64-byte blocks, else 1).
 */
void make_filter_type(struct kbloom_filter *f,
		      const struct kbloom_test_type *t, u64 keyblocks, u32 k,
		      u64 seed);
void make_filter_geo(struct kbloom_filter *f, const struct kbloom_geometry *g,
		     u64 seed);

/* Adds keys mix64(base + i) as 8-byte keys, i < n, through the batch path. */
void add_counter_keys(struct kbloom_filter *f, u64 base, u64 n);
/* Counts "maybe" answers for keys mix64(base + i), i < n (batched). */
u64 count_counter_hits(struct kbloom_filter *f, u64 base, u64 n);
/* Deletes keys mix64(base + i), i < n (batched); returns those removed. */
u64 delete_counter_keys(struct kbloom_filter *f, u64 base, u64 n);

/*
 * Windows.  The keys each generation of a window of capacity n is sized
 * for (n / (g - 1), rounded up); n itself for other types.
 */
u64 type_share(const struct kbloom_test_type *t, u64 n);
/*
 * gens generations of per_gen keys each, keys mix64(*next ...) on, with a
 * rotation before each (before the first too when rotate_first); *next
 * moves past them.  Without generations (not a window): the keys only.
 */
void add_generations(struct kbloom_filter *f, u64 *next, u64 per_gen,
		     u32 gens, bool rotate_first);
/*
 * The rate of type t's scheme by the host's models (model.h) at lambda
 * keys per key block (a window's: in each of live generations; other
 * types have one), and the core's integer formula for n keys (each
 * generation's) in nblocks 64-byte blocks.
 */
double type_model_fp(const struct kbloom_test_type *t, double lambda,
		     unsigned int k, unsigned int live);
double type_model_closed(const struct kbloom_test_type *t, double lambda,
			 unsigned int k, unsigned int live);
double type_core_fp(const struct kbloom_test_type *t, u64 nblocks, u64 n,
		    u32 k, u32 live);
/* Key blocks of a geometry: nblocks >> plane_order. */
static inline u64 key_blocks(const struct kbloom_geometry *g)
{
	return g->nblocks >> g->plane_order;
}

#endif /* KBLOOM_HOST_HARNESS_H */
