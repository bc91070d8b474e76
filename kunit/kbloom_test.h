/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the kbloom KUnit suites share: the filter types they run over, the
 * keys, batches, and filters freed when a case ends.  The suites drive the
 * core only through kbloom_core.h, as the module does, and hold it to
 * exact answers: an exact key set for false negatives, the core's own
 * model for false positives, byte-exact images and one errno per
 * rejection.  Keys and seeds are fixed, so every run sees the same filters
 * and a bound that passes once passes always.
 *
 * They build into a UML kernel (scripts/kunit) and, through the KUnit shim
 * in tests/host/kunit/, into a host program (tests/host/Makefile): the
 * same source, against the same core.
 */
#ifndef KBLOOM_TEST_H
#define KBLOOM_TEST_H

#ifdef __KERNEL__
#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/crc32.h>
#include <linux/kernel.h>
#include <linux/math.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/xxhash.h>
#include "kbloom_core_compat.h"
#else
#include <kunit/test.h>
#endif

#include "kbloom_core.h"
#include "kbloom_test_types.h"

static inline void kbloom_test_type_desc(const struct kbloom_test_type *t,
					 char *desc)
{
	strscpy(desc, t->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kbloom_test_type, kbloom_test_types, kbloom_test_type_desc);

/* A case run once for every type, the type its parameter. */
#define KBLOOM_TEST_CASE(fn)	KUNIT_CASE_PARAM(fn, kbloom_test_type_gen_params)

/* One suite of one file; scripts/kunit looks for this to know the names. */
#define KBLOOM_TEST_SUITE(suite_name, cases)				\
	static struct kunit_suite cases##_suite = {			\
		.name = suite_name,					\
		.test_cases = cases,					\
	};								\
	kunit_test_suite(cases##_suite)

/*
 * A table's rows, each run for every type: the parameter of such a case.
 * KBLOOM_TEST_TYPED_PARAM(gen, array, get_desc) defines
 * gen_params(), which names a parameter "<row>/<type>".
 */
struct kbloom_test_typed {
	const void *row;
	const struct kbloom_test_type *t;
};

/*
 * A parameter generator's arguments: the test comes first where KUnit has
 * KUNIT_CASE_PARAM_WITH_INIT, which came with that change (7.3's KUnit has
 * both; 6.1's, 6.12's and the host's shim neither).
 */
#ifdef KUNIT_CASE_PARAM_WITH_INIT
#define KBLOOM_TEST_GEN_ARGS	struct kunit *test, const void *prev, char *desc
#else
#define KBLOOM_TEST_GEN_ARGS	const void *prev, char *desc
#endif

#define KBLOOM_TEST_TYPED_PARAM(gen, array, get_desc)			\
	static const void *gen##_gen_params(KBLOOM_TEST_GEN_ARGS)	\
	{								\
		static struct kbloom_test_typed				\
			all[sizeof(array) / sizeof((array)[0]) *	\
			    ARRAY_SIZE(kbloom_test_types)];		\
		const char *rows = (const char *)(array);		\
		struct kbloom_test_typed *next = prev ?			\
			(struct kbloom_test_typed *)prev + 1 : all;	\
		size_t i = next - all, n = ARRAY_SIZE(kbloom_test_types); \
									\
		if (i >= ARRAY_SIZE(all))				\
			return NULL;					\
		next->row = rows + i / n * sizeof((array)[0]);		\
		next->t = &kbloom_test_types[i % n];			\
		get_desc(next->row, desc);				\
		strlcat(desc, "/", KUNIT_PARAM_DESC_SIZE);		\
		strlcat(desc, next->t->name, KUNIT_PARAM_DESC_SIZE);	\
		return next;						\
	}

/* Keys per batch call in these tests: several windows of the prefetcher. */
#define KBLOOM_TEST_CHUNK	256
#define KBLOOM_TEST_KEY_MAX	64
#define KBLOOM_TEST_SEED	0x6b626c6f6f6d2121ULL

struct kbloom_test_key {
	u8 bytes[KBLOOM_TEST_KEY_MAX];
	u32 len;
};

struct kbloom_test_batch {
	struct kbloom_test_key raw[KBLOOM_TEST_CHUNK];
	struct kbloom_key keys[KBLOOM_TEST_CHUNK];
	unsigned long results[BITS_TO_LONGS(KBLOOM_TEST_CHUNK)];
};

/* splitmix64 is a bijection of u64: distinct indices give distinct keys. */
static inline u64 kbloom_test_mix(u64 x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/*
 * Key number i.  Fixed-length keys are 8 bytes and pairwise distinct; the
 * variable-length ones (1..64 bytes) reach every tail path of xxh64.
 */
static inline void kbloom_test_make_key(u64 i, bool varlen,
					struct kbloom_test_key *k)
{
	u32 w;

	if (!varlen) {
		put_unaligned_le64(kbloom_test_mix(i), k->bytes);
		k->len = 8;
		return;
	}
	for (w = 0; w < KBLOOM_TEST_KEY_MAX / 8; w++)
		put_unaligned_le64(kbloom_test_mix(i * 8 + w), k->bytes + w * 8);
	k->len = 1 + i % KBLOOM_TEST_KEY_MAX;
}

/*
 * Loads keys first .. first + n - 1 (n <= KBLOOM_TEST_CHUNK) into b; with
 * cycle > 0, key numbers repeat every cycle.
 */
static inline void kbloom_test_fill_cycle(struct kbloom_test_batch *b,
					  u64 first, u32 n, bool varlen,
					  u64 cycle)
{
	u32 j;

	for (j = 0; j < n; j++) {
		u64 i = cycle ? (first + j) % cycle : first + j;

		kbloom_test_make_key(i, varlen, &b->raw[j]);
		b->keys[j].data = b->raw[j].bytes;
		b->keys[j].len = b->raw[j].len;
	}
}

static inline void kbloom_test_fill(struct kbloom_test_batch *b, u64 first,
				    u32 n, bool varlen)
{
	kbloom_test_fill_cycle(b, first, n, varlen, 0);
}

static inline struct kbloom_test_batch *kbloom_test_batch(struct kunit *test)
{
	struct kbloom_test_batch *b;

	b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, b);
	return b;
}

static inline int kbloom_test_filter_init(struct kunit_resource *res,
					  void *context)
{
	struct kbloom_filter *f;
	int ret;

	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	ret = kbloom_filter_init(f, context);
	if (ret) {
		kfree(f);
		return ret;
	}
	res->data = f;
	return 0;
}

static inline void kbloom_test_filter_free(struct kunit_resource *res)
{
	struct kbloom_filter *f = res->data;

	kbloom_filter_free(f);
	kfree(f);
}

/* A filter freed when the test case ends, however it ends. */
static inline struct kbloom_filter *
kbloom_test_filter(struct kunit *test, const struct kbloom_geometry *geo)
{
	struct kbloom_filter *f;

	f = kunit_alloc_resource(test, kbloom_test_filter_init,
				 kbloom_test_filter_free, GFP_KERNEL,
				 (void *)geo);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f);
	return f;
}

/*
 * A filter of type t with nblocks key blocks (64-byte blocks but for a
 * window, whose key blocks are P of them) and k probes.
 */
static inline struct kbloom_filter *
kbloom_test_new(struct kunit *test, const struct kbloom_test_type *t,
		u64 nblocks, u32 k, u64 seed)
{
	u64 blocks = nblocks * kbloom_test_key_block(t);
	struct kbloom_geometry geo;

	KUNIT_ASSERT_EQ(test, kbloom_geometry_from_bits_gen(&geo, t->type,
							    t->generations,
							    blocks * 512, k,
							    0), 0);
	KUNIT_ASSERT_EQ(test, geo.nblocks, blocks);
	geo.seed = seed;
	return kbloom_test_filter(test, &geo);
}

/* Sized from (n, p) for type t; a window's n keys are g - 1 generations'. */
static inline struct kbloom_filter *
kbloom_test_new_rate(struct kunit *test, const struct kbloom_test_type *t,
		     u64 n, u32 fp_ppb, struct kbloom_geometry *geo)
{
	KUNIT_ASSERT_EQ(test, kbloom_geometry_from_rate_gen(geo, t->type,
							    t->generations, n,
							    fp_ppb), 0);
	KUNIT_EXPECT_EQ(test, geo->type, t->type);
	geo->seed = KBLOOM_TEST_SEED;
	return kbloom_test_filter(test, geo);
}

static inline u64 kbloom_test_words(const struct kbloom_filter *f)
{
	return f->geo.nblocks * KBLOOM_BLOCK_WORDS;
}

static inline u32 kbloom_test_cell_max(const struct kbloom_test_type *t)
{
	return (1U << t->cell_bits) - 1;
}

/*
 * Where repeated adds of one key leave a cell: a counter's maximum, or 1
 * for a bit and for a window's cell (plane 0, current in a filter that has
 * not rotated).
 */
static inline u32 kbloom_test_add_max(const struct kbloom_test_type *t)
{
	return t->generations ? 1 : kbloom_test_cell_max(t);
}

/*
 * What merge and intersect make of two cells: a sum stopping at the
 * maximum and the lower of the two (for bits, or and and); a window's
 * cells, generation by generation, the union and the common planes.
 */
static inline u32 kbloom_test_union(const struct kbloom_test_type *t, u32 a,
				    u32 b)
{
	return t->generations ? a | b : min(a + b, kbloom_test_cell_max(t));
}

static inline u32 kbloom_test_common(const struct kbloom_test_type *t, u32 a,
				     u32 b)
{
	return t->generations ? a & b : min(a, b);
}

/* The values a cell of f may hold: a window's live planes. */
static inline u32 kbloom_test_cell_live(const struct kbloom_filter *f,
					const struct kbloom_test_type *t)
{
	return t->generations ? (u32)f->win.live : kbloom_test_cell_max(t);
}

static inline u32 kbloom_test_cell(const struct kbloom_filter *f,
				   const struct kbloom_test_type *t, u64 i)
{
	u32 per_word = 64 / t->cell_bits;

	return f->words[i / per_word] >> (i % per_word * t->cell_bits) &
	       kbloom_test_cell_max(t);
}

static inline void kbloom_test_set_cell(struct kbloom_filter *f,
					const struct kbloom_test_type *t,
					u64 i, u32 v)
{
	u32 per_word = 64 / t->cell_bits, shift = i % per_word * t->cell_bits;
	u64 *w = &f->words[i / per_word];

	*w = (*w & ~((u64)kbloom_test_cell_max(t) << shift)) | (u64)v << shift;
}

/* Cells above 0, or at exactly value when value > 0. */
static inline u64 kbloom_test_cells(const struct kbloom_filter *f,
				    const struct kbloom_test_type *t,
				    u32 value)
{
	u64 i, n = 0;

	for (i = 0; i < f->geo.nblocks * kbloom_test_block_cells(t); i++) {
		u32 c = kbloom_test_cell(f, t, i);

		n += value ? c == value : c != 0;
	}
	return n;
}

static inline u64 kbloom_test_popcount(const struct kbloom_filter *f)
{
	u64 i, bits = 0;

	for (i = 0; i < kbloom_test_words(f); i++)
		bits += hweight64(f->words[i]);
	return bits;
}

/* A copy of f's cells, to show later that an operation changed none. */
static inline void *kbloom_test_snap(struct kunit *test,
				     const struct kbloom_filter *f)
{
	size_t bytes = kbloom_geometry_bytes(&f->geo);
	void *snap = kunit_kmalloc(test, bytes, GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, snap);
	memcpy(snap, f->words, bytes);
	return snap;
}

static inline bool kbloom_test_same(const struct kbloom_filter *f,
				    const void *snap)
{
	return !memcmp(f->words, snap, kbloom_geometry_bytes(&f->geo));
}

typedef u32 (*kbloom_test_batch_op)(struct kbloom_filter *f,
				    const struct kbloom_key *keys, u32 n,
				    unsigned long *results);

/*
 * Runs op over keys first .. first + n - 1 in batches; returns the keys it
 * counted (added new, may be present, removed).
 */
static inline u64 kbloom_test_range(struct kbloom_filter *f,
				    struct kbloom_test_batch *b, u64 first,
				    u64 n, bool varlen, kbloom_test_batch_op op)
{
	u64 i, counted = 0;

	for (i = 0; i < n; i += KBLOOM_TEST_CHUNK) {
		u32 m = min_t(u64, n - i, KBLOOM_TEST_CHUNK);

		kbloom_test_fill(b, first + i, m, varlen);
		counted += op(f, b->keys, m, NULL);
	}
	return counted;
}

static inline u64 kbloom_test_add_range(struct kbloom_filter *f,
					struct kbloom_test_batch *b, u64 first,
					u64 n, bool varlen)
{
	return kbloom_test_range(f, b, first, n, varlen, kbloom_add_batch);
}

static inline u64 kbloom_test_check_range(struct kbloom_filter *f,
					  struct kbloom_test_batch *b,
					  u64 first, u64 n, bool varlen)
{
	return kbloom_test_range(f, b, first, n, varlen, kbloom_check_batch);
}

static inline u64 kbloom_test_delete_range(struct kbloom_filter *f,
					   struct kbloom_test_batch *b,
					   u64 first, u64 n, bool varlen)
{
	return kbloom_test_range(f, b, first, n, varlen, kbloom_delete_batch);
}

/*
 * Whether the case may go on to delete from f.  The type says if its
 * filters delete; the core must agree.  A type without deletes must
 * refuse them on f, as it is, and change nothing: not a cell, not a count.
 */
static inline bool kbloom_test_deletes(struct kunit *test,
				       const struct kbloom_test_type *t,
				       struct kbloom_filter *f)
{
	struct kbloom_test_batch *b = kbloom_test_batch(test);
	struct kbloom_stats before, after;
	void *snap;

	KUNIT_EXPECT_EQ(test, kbloom_delete_supported(f),
			t->deletes ? 0 : -EOPNOTSUPP);
	if (t->deletes)
		return true;
	snap = kbloom_test_snap(test, f);
	kbloom_get_stats(f, &before);
	kbloom_test_fill(b, 0, KBLOOM_TEST_CHUNK, true);
	KUNIT_EXPECT_FALSE(test, kbloom_delete(f, b->keys[0].data,
					       b->keys[0].len));
	memset(b->results, 0xa5, sizeof(b->results));
	KUNIT_EXPECT_EQ(test, kbloom_delete_batch(f, b->keys,
						  KBLOOM_TEST_CHUNK,
						  b->results), 0U);
	KUNIT_EXPECT_TRUE(test, bitmap_empty(b->results, KBLOOM_TEST_CHUNK));
	KUNIT_EXPECT_TRUE(test, kbloom_test_same(f, snap));
	kbloom_get_stats(f, &after);
	KUNIT_EXPECT_EQ(test, after.delete_calls, 0ULL);
	KUNIT_EXPECT_EQ(test, after.delete_hits, 0ULL);
	KUNIT_EXPECT_EQ(test, after.add_calls, before.add_calls);
	KUNIT_EXPECT_EQ(test, after.bits_set, before.bits_set);
	return false;
}

#endif /* KBLOOM_TEST_H */
