// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the kbloom filter core, built into a UML kernel by
 * scripts/kunit.  It drives the core only through kbloom_core.h, as the
 * module does, and holds it to exact answers: an exact key set for false
 * negatives, the core's own model for false positives, byte-exact images
 * and one errno per rejection.  Keys and seeds are fixed, so every run sees
 * the same filters and a bound that passes once passes always.
 */
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
#include <asm/unaligned.h>

#include "kbloom_core.h"

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
static u64 kbloom_test_mix(u64 x)
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
static void kbloom_test_make_key(u64 i, bool varlen, struct kbloom_test_key *k)
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

/* Loads keys first .. first + n - 1 (n <= KBLOOM_TEST_CHUNK) into b. */
static void kbloom_test_fill(struct kbloom_test_batch *b, u64 first, u32 n,
			     bool varlen)
{
	u32 j;

	for (j = 0; j < n; j++) {
		kbloom_test_make_key(first + j, varlen, &b->raw[j]);
		b->keys[j].data = b->raw[j].bytes;
		b->keys[j].len = b->raw[j].len;
	}
}

static struct kbloom_test_batch *kbloom_test_batch(struct kunit *test)
{
	struct kbloom_test_batch *b;

	b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, b);
	return b;
}

static int kbloom_test_filter_init(struct kunit_resource *res, void *context)
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

static void kbloom_test_filter_free(struct kunit_resource *res)
{
	struct kbloom_filter *f = res->data;

	kbloom_filter_free(f);
	kfree(f);
}

/* A filter freed when the test case ends, however it ends. */
static struct kbloom_filter *kbloom_test_filter(struct kunit *test,
						const struct kbloom_geometry *geo)
{
	struct kbloom_filter *f;

	f = kunit_alloc_resource(test, kbloom_test_filter_init,
				 kbloom_test_filter_free, GFP_KERNEL,
				 (void *)geo);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f);
	return f;
}

static struct kbloom_filter *kbloom_test_new(struct kunit *test, u64 bits,
					     u32 k, u64 seed)
{
	struct kbloom_geometry geo;

	KUNIT_ASSERT_EQ(test, kbloom_geometry_from_bits(&geo, bits, k, 0), 0);
	geo.seed = seed;
	return kbloom_test_filter(test, &geo);
}

static u64 kbloom_test_words(const struct kbloom_filter *f)
{
	return f->geo.nblocks * KBLOOM_BLOCK_WORDS;
}

static u64 kbloom_test_popcount(const struct kbloom_filter *f)
{
	u64 i, bits = 0;

	for (i = 0; i < kbloom_test_words(f); i++)
		bits += hweight64(f->words[i]);
	return bits;
}

typedef u32 (*kbloom_test_batch_op)(struct kbloom_filter *f,
				   const struct kbloom_key *keys, u32 n,
				   unsigned long *results);

/*
 * Runs op over keys first .. first + n - 1 in batches; returns the keys it
 * counted (added new, may be present, removed).
 */
static u64 kbloom_test_range(struct kbloom_filter *f,
			     struct kbloom_test_batch *b, u64 first, u64 n,
			     bool varlen, kbloom_test_batch_op op)
{
	u64 i, counted = 0;

	for (i = 0; i < n; i += KBLOOM_TEST_CHUNK) {
		u32 m = min_t(u64, n - i, KBLOOM_TEST_CHUNK);

		kbloom_test_fill(b, first + i, m, varlen);
		counted += op(f, b->keys, m, NULL);
	}
	return counted;
}

static u64 kbloom_test_add_range(struct kbloom_filter *f,
				 struct kbloom_test_batch *b, u64 first, u64 n,
				 bool varlen)
{
	return kbloom_test_range(f, b, first, n, varlen, kbloom_add_batch);
}

static u64 kbloom_test_check_range(struct kbloom_filter *f,
				   struct kbloom_test_batch *b, u64 first,
				   u64 n, bool varlen)
{
	return kbloom_test_range(f, b, first, n, varlen, kbloom_check_batch);
}

/* A counting filter of nblocks blocks of 128 four-bit counters. */
static struct kbloom_filter *kbloom_test_new_counting(struct kunit *test,
						      u64 nblocks, u32 k,
						      u64 seed)
{
	struct kbloom_geometry geo;

	KUNIT_ASSERT_EQ(test,
			kbloom_geometry_from_bits_type(&geo,
						       KBLOOM_TYPE_COUNTING,
						       nblocks * 512, k, 0),
			0);
	KUNIT_ASSERT_EQ(test, geo.nblocks, nblocks);
	geo.seed = seed;
	return kbloom_test_filter(test, &geo);
}

/* Counter i of a word: the uapi's nibble order, i % 16 of word i / 16. */
static u32 kbloom_test_nibble(u64 word, u32 i)
{
	return (word >> (i * 4)) & 0xf;
}

/* Counter cells that are above 0, or at exactly value when value > 0. */
static u64 kbloom_test_count_counters(const struct kbloom_filter *f,
				      u32 value)
{
	u64 i, n = 0;
	u32 j;

	for (i = 0; i < kbloom_test_words(f); i++)
		for (j = 0; j < 16; j++) {
			u32 c = kbloom_test_nibble(f->words[i], j);

			n += value ? c == value : c != 0;
		}
	return n;
}

static u64 kbloom_test_delete_range(struct kbloom_filter *f,
				    struct kbloom_test_batch *b, u64 first,
				    u64 n, bool varlen)
{
	return kbloom_test_range(f, b, first, n, varlen, kbloom_delete_batch);
}

static void xxh64_known_answer(struct kunit *test)
{
	struct kbloom_filter *f;

	KUNIT_EXPECT_EQ(test, xxh64("abc", 3, 0), 0x44bc2cf5ad770999ULL);
	/* The filter hashes with xxh64 under its own seed, nothing else. */
	f = kbloom_test_new(test, 4096, 7, 0);
	KUNIT_EXPECT_EQ(test, kbloom_hash(f, "abc", 3), 0x44bc2cf5ad770999ULL);
	f = kbloom_test_new(test, 4096, 7, KBLOOM_TEST_SEED);
	KUNIT_EXPECT_EQ(test, kbloom_hash(f, "abc", 3),
			xxh64("abc", 3, KBLOOM_TEST_SEED));
}

#define KBLOOM_TEST_FN_KEYS	200000

static void no_false_negatives(struct kunit *test)
{
	struct kbloom_test_batch *b = kbloom_test_batch(test);
	u64 i, n = KBLOOM_TEST_FN_KEYS, single_misses = 0, batch_misses = 0;
	u64 bitmap_misses = 0;
	struct kbloom_geometry geo;
	struct kbloom_stats st;
	struct kbloom_filter *f;

	KUNIT_ASSERT_EQ(test, kbloom_geometry_from_rate(&geo, n, 10000000), 0);
	geo.seed = KBLOOM_TEST_SEED;
	f = kbloom_test_filter(test, &geo);

	/* Half the keys go in one by one, half in batches. */
	for (i = 0; i < n / 2; i++) {
		kbloom_test_make_key(i, true, &b->raw[0]);
		kbloom_add(f, b->raw[0].bytes, b->raw[0].len);
	}
	kbloom_test_add_range(f, b, n / 2, n - n / 2, true);

	/* Every added key is found by both paths. */
	for (i = 0; i < n; i++) {
		kbloom_test_make_key(i, true, &b->raw[0]);
		if (!kbloom_check(f, b->raw[0].bytes, b->raw[0].len))
			single_misses++;
	}
	for (i = 0; i < n; i += KBLOOM_TEST_CHUNK) {
		u32 m = min_t(u64, n - i, KBLOOM_TEST_CHUNK);

		kbloom_test_fill(b, i, m, true);
		batch_misses += m - kbloom_check_batch(f, b->keys, m,
						       b->results);
		bitmap_misses += m - bitmap_weight(b->results, m);
	}
	KUNIT_EXPECT_EQ(test, single_misses, 0);
	KUNIT_EXPECT_EQ(test, batch_misses, 0);
	KUNIT_EXPECT_EQ(test, bitmap_misses, 0);

	kbloom_get_stats(f, &st);
	KUNIT_EXPECT_EQ(test, st.add_calls, n);
	KUNIT_EXPECT_EQ(test, st.check_calls, 2 * n);
	KUNIT_EXPECT_EQ(test, st.check_hits, 2 * n);
}

/*
 * Keys 0..1999 then 0..999 again: the repeats must report "nothing new" in
 * a batch exactly as they do one by one, and both filters end bit-equal.
 */
#define KBLOOM_TEST_SEQ_KEYS	3000
#define KBLOOM_TEST_SEQ_DISTINCT 2000

/* Keys first .. first + n - 1 of a sequence that repeats every DISTINCT. */
static void kbloom_test_fill_cycling(struct kbloom_test_batch *b, u64 first,
				     u32 n)
{
	u32 j;

	for (j = 0; j < n; j++) {
		u64 key = (first + j) % KBLOOM_TEST_SEQ_DISTINCT;

		kbloom_test_make_key(key, true, &b->raw[j]);
		b->keys[j].data = b->raw[j].bytes;
		b->keys[j].len = b->raw[j].len;
	}
}

static void batch_matches_single(struct kunit *test)
{
	struct kbloom_test_batch *b = kbloom_test_batch(test);
	u32 add_mismatch = 0, check_mismatch = 0, hits_mismatch = 0;
	struct kbloom_filter *batched, *single;
	struct kbloom_stats bst, sst;
	u64 i, j;

	batched = kbloom_test_new(test, 40 * 512, 6, KBLOOM_TEST_SEED);
	single = kbloom_test_new(test, 40 * 512, 6, KBLOOM_TEST_SEED);

	for (i = 0; i < KBLOOM_TEST_SEQ_KEYS; i += KBLOOM_TEST_CHUNK) {
		u32 m = min_t(u64, KBLOOM_TEST_SEQ_KEYS - i, KBLOOM_TEST_CHUNK);
		u32 hits;

		kbloom_test_fill_cycling(b, i, m);
		/* Garbage the core must overwrite. */
		memset(b->results, 0xa5, sizeof(b->results));
		hits = kbloom_add_batch(batched, b->keys, m, b->results);
		for (j = 0; j < m; j++) {
			bool set = kbloom_add(single, b->keys[j].data,
					      b->keys[j].len);

			if (set != test_bit(j, b->results))
				add_mismatch++;
		}
		if (hits != bitmap_weight(b->results, m))
			hits_mismatch++;
	}
	KUNIT_EXPECT_EQ(test, add_mismatch, 0);
	KUNIT_EXPECT_EQ(test, hits_mismatch, 0);
	KUNIT_EXPECT_EQ(test, memcmp(batched->words, single->words,
				     kbloom_test_words(single) * 8), 0);

	/* Present and absent keys: the same answers both ways. */
	for (i = 0; i < 2 * KBLOOM_TEST_SEQ_DISTINCT; i += KBLOOM_TEST_CHUNK) {
		u32 m = min_t(u64, 2 * KBLOOM_TEST_SEQ_DISTINCT - i,
			      KBLOOM_TEST_CHUNK);
		u32 hits, hits_nomap;

		kbloom_test_fill(b, i, m, true);
		memset(b->results, 0x5a, sizeof(b->results));
		hits = kbloom_check_batch(batched, b->keys, m, b->results);
		hits_nomap = kbloom_check_batch(batched, b->keys, m, NULL);
		for (j = 0; j < m; j++)
			if (kbloom_check(single, b->keys[j].data,
					 b->keys[j].len) !=
			    test_bit(j, b->results))
				check_mismatch++;
		if (hits != bitmap_weight(b->results, m) || hits != hits_nomap)
			hits_mismatch++;
	}
	KUNIT_EXPECT_EQ(test, check_mismatch, 0);
	KUNIT_EXPECT_EQ(test, hits_mismatch, 0);

	kbloom_get_stats(batched, &bst);
	kbloom_get_stats(single, &sst);
	KUNIT_EXPECT_EQ(test, bst.add_calls, (u64)KBLOOM_TEST_SEQ_KEYS);
	KUNIT_EXPECT_EQ(test, sst.add_calls, (u64)KBLOOM_TEST_SEQ_KEYS);
	KUNIT_EXPECT_EQ(test, bst.add_new, sst.add_new);
	KUNIT_EXPECT_LE(test, bst.add_new, (u64)KBLOOM_TEST_SEQ_DISTINCT);
	KUNIT_EXPECT_EQ(test, bst.check_calls,
			(u64)4 * KBLOOM_TEST_SEQ_DISTINCT);
}

static void add_reports_new_bits(struct kunit *test)
{
	struct kbloom_key keys[3] = {
		{ "first", 5 }, { "first", 5 }, { "second", 6 },
	};
	unsigned long results[1];
	struct kbloom_filter *f;
	struct kbloom_stats st;

	f = kbloom_test_new(test, 8 * 512, 7, KBLOOM_TEST_SEED);
	KUNIT_EXPECT_FALSE(test, kbloom_check(f, "key", 3));
	KUNIT_EXPECT_TRUE(test, kbloom_add(f, "key", 3));
	KUNIT_EXPECT_FALSE(test, kbloom_add(f, "key", 3));
	KUNIT_EXPECT_TRUE(test, kbloom_check(f, "key", 3));
	/* k probes, of which some may land on the same cell. */
	KUNIT_EXPECT_GE(test, kbloom_test_popcount(f), 1ULL);
	KUNIT_EXPECT_LE(test, kbloom_test_popcount(f), 7ULL);

	/* Within a batch, a repeat sees the bits of its first occurrence. */
	results[0] = ~0UL;
	KUNIT_EXPECT_EQ(test, kbloom_add_batch(f, keys, 3, results), 2U);
	KUNIT_EXPECT_TRUE(test, test_bit(0, results));
	KUNIT_EXPECT_FALSE(test, test_bit(1, results));
	KUNIT_EXPECT_TRUE(test, test_bit(2, results));
	KUNIT_EXPECT_EQ(test, kbloom_add_batch(f, keys, 3, results), 0U);
	KUNIT_EXPECT_EQ(test, bitmap_weight(results, 3), 0U);

	kbloom_get_stats(f, &st);
	KUNIT_EXPECT_EQ(test, st.add_calls, 8ULL);
	KUNIT_EXPECT_EQ(test, st.add_new, 3ULL);
	KUNIT_EXPECT_EQ(test, st.check_calls, 2ULL);
	KUNIT_EXPECT_EQ(test, st.check_hits, 1ULL);
	KUNIT_EXPECT_EQ(test, st.bits_set, kbloom_test_popcount(f));
}

static void words_aligned(struct kunit *test)
{
	static const u64 sizes[] = { 1, 3, 61, 1000, 1 << 15 };
	struct kbloom_filter *f;
	u32 s;

	for (s = 0; s < ARRAY_SIZE(sizes); s++) {
		u64 i, nonzero = 0;

		f = kbloom_test_new(test, sizes[s] * 512, 4, s);
		KUNIT_EXPECT_EQ(test, f->geo.nblocks, sizes[s]);
		/* Page-aligned, so that the cells can be mapped whole. */
		KUNIT_EXPECT_EQ_MSG(test, offset_in_page(f->words), 0UL,
				    "%llu blocks", sizes[s]);
		KUNIT_EXPECT_GE(test, kbloom_geometry_bytes(&f->geo),
				sizes[s] * KBLOOM_BLOCK_BYTES);
		for (i = 0; i < kbloom_test_words(f); i++)
			nonzero += !!f->words[i];
		KUNIT_EXPECT_EQ(test, nonzero, 0ULL);
	}
}

/*
 * Each key, added alone, sets 1..k bits, all inside one block.  Over many
 * keys every block and every cell gets used, and cells of one key coincide
 * no more often than independent draws would (C(k, 2) / 512 per key).
 */
#define KBLOOM_TEST_BLOCKS	61
#define KBLOOM_TEST_BLOCK_KEYS	2000
#define KBLOOM_TEST_BLOCK_K	8

static void one_block_per_key(struct kunit *test)
{
	const u32 keys = KBLOOM_TEST_BLOCK_KEYS, k = KBLOOM_TEST_BLOCK_K;
	u32 spread = 0, wrong_bits = 0, unused = 0, cold = 0, hot = 0;
	struct kbloom_test_key *key;
	struct kbloom_filter *f;
	u64 i, b, w, total = 0;
	u16 *uses, *cells;

	key = kunit_kzalloc(test, sizeof(*key), GFP_KERNEL);
	uses = kunit_kcalloc(test, KBLOOM_TEST_BLOCKS, sizeof(*uses),
			     GFP_KERNEL);
	cells = kunit_kcalloc(test, KBLOOM_BLOCK_BITS, sizeof(*cells),
			      GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, key);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, uses);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cells);
	f = kbloom_test_new(test, KBLOOM_TEST_BLOCKS * 512, k,
			    KBLOOM_TEST_SEED);

	for (i = 0; i < keys; i++) {
		u32 blocks = 0, bits = 0, last = 0;

		kbloom_clear(f);
		kbloom_test_make_key(i, true, key);
		kbloom_add(f, key->bytes, key->len);
		for (b = 0; b < KBLOOM_TEST_BLOCKS; b++) {
			u32 in_block = 0;

			for (w = 0; w < KBLOOM_BLOCK_WORDS; w++)
				in_block += hweight64(f->words[b * 8 + w]);
			if (!in_block)
				continue;
			blocks++;
			last = b;
			bits += in_block;
		}
		spread += blocks != 1;
		wrong_bits += !bits || bits > k;
		total += bits;
		uses[last]++;
		for (w = 0; w < KBLOOM_BLOCK_BITS; w++)
			cells[w] += f->words[last * 8 + w / 64] >> (w % 64) & 1;
	}
	/* About 31 keys per block and 31 hits per cell: never 0, never 3x. */
	for (b = 0; b < KBLOOM_TEST_BLOCKS; b++)
		unused += !uses[b];
	for (w = 0; w < KBLOOM_BLOCK_BITS; w++) {
		cold += !cells[w];
		hot += cells[w] > 3 * keys * k / KBLOOM_BLOCK_BITS;
	}
	KUNIT_EXPECT_EQ(test, spread, 0U);
	KUNIT_EXPECT_EQ(test, wrong_bits, 0U);
	KUNIT_EXPECT_EQ(test, unused, 0U);
	KUNIT_EXPECT_EQ(test, cold, 0U);
	KUNIT_EXPECT_EQ(test, hot, 0U);
	/* Coinciding cells cost 28/512 bits a key on average; allow 3x. */
	KUNIT_EXPECT_GE(test, total, (u64)keys * k -
			3 * keys * (k * (k - 1) / 2) / KBLOOM_BLOCK_BITS);
}

/*
 * Sized from (n, p), the filter must meet p at n.  Q absent keys measure
 * its rate with sampling error sigma = sqrt(p / Q); the bounds are 5 sigma
 * plus a relative slack for how far one filter's block loads may stray
 * from the Poisson average the model assumes (about 1 / sqrt(blocks)).
 */
#define KBLOOM_TEST_FP_KEYS	100000
#define KBLOOM_TEST_FP_QUERIES	1000000

struct kbloom_test_rate {
	const char *name;
	u32 fp_ppb;
};

static const struct kbloom_test_rate kbloom_test_rates[] = {
	{ "10%", 100000000 },
	{ "1%", 10000000 },
	{ "0.1%", 1000000 },
};

static void kbloom_test_rate_desc(const struct kbloom_test_rate *r, char *desc)
{
	strscpy(desc, r->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kbloom_test_rate, kbloom_test_rates, kbloom_test_rate_desc);

/*
 * Expects measured false positives out of q queries to be within 5 sigma
 * plus slack/1000 of rate * q (or only not above, when upper_only).
 */
static void kbloom_test_expect_fp(struct kunit *test, const char *what,
				  u64 measured, u32 ppb, u64 q,
				  u32 slack_permille, bool upper_only)
{
	u64 mean = div_u64((u64)ppb * q, KBLOOM_PPB);
	u64 tol = 5 * int_sqrt64(mean) + 1 +
		  div_u64(mean * slack_permille, 1000);

	KUNIT_EXPECT_LE_MSG(test, measured, mean + tol,
			    "%s: %llu false positives in %llu, expected %llu",
			    what, measured, q, mean);
	if (!upper_only)
		KUNIT_EXPECT_GE_MSG(test, measured + tol, mean,
				    "%s: %llu false positives in %llu, expected %llu",
				    what, measured, q, mean);
}

static void fp_at_capacity(struct kunit *test)
{
	const struct kbloom_test_rate *r = test->param_value;
	struct kbloom_test_batch *b = kbloom_test_batch(test);
	u64 n = KBLOOM_TEST_FP_KEYS, q = KBLOOM_TEST_FP_QUERIES, fp;
	struct kbloom_geometry geo;
	struct kbloom_filter *f;
	struct kbloom_stats st;
	u32 model;

	KUNIT_ASSERT_EQ(test, kbloom_geometry_from_rate(&geo, n, r->fp_ppb), 0);
	KUNIT_EXPECT_EQ(test, geo.capacity, n);
	KUNIT_EXPECT_EQ(test, geo.fp_target_ppb, r->fp_ppb);
	KUNIT_EXPECT_GE(test, geo.k, (u32)KBLOOM_K_MIN);
	KUNIT_EXPECT_LE(test, geo.k, (u32)KBLOOM_K_MAX);
	/* The design meets the target, with no tenth of the bits to spare. */
	model = kbloom_formula_fp_ppb(geo.nblocks, n, geo.k);
	KUNIT_EXPECT_LE(test, model, r->fp_ppb);
	KUNIT_EXPECT_GT(test, kbloom_formula_fp_ppb(geo.nblocks * 9 / 10, n,
						    geo.k), r->fp_ppb);

	geo.seed = KBLOOM_TEST_SEED;
	f = kbloom_test_filter(test, &geo);
	kbloom_test_add_range(f, b, 0, n, false);
	/* Keys n .. n + q - 1 were never added: the key map is a bijection. */
	fp = kbloom_test_check_range(f, b, n, q, false);
	kbloom_get_stats(f, &st);
	kunit_info(test, "%s: k=%u blocks=%llu model=%u fp_now=%u fp=%llu/%llu\n",
		   r->name, geo.k, geo.nblocks, model, st.fp_now_ppb, fp, q);

	/* Block loads stray from the model's Poisson mean by ~1/sqrt(blocks). */
	kbloom_test_expect_fp(test, "target", fp, r->fp_ppb, q, 60, true);
	kbloom_test_expect_fp(test, "model", fp, model, q, 60, false);
	/* fp_now is the exact rate of these very bits: sampling error only. */
	kbloom_test_expect_fp(test, "fp_now", fp, st.fp_now_ppb, q, 5, false);
	KUNIT_EXPECT_EQ(test, st.fp_design_ppb, model);
	KUNIT_EXPECT_EQ(test, st.bits_set, kbloom_test_popcount(f));
}

/* Geometry requests, good and bad; err 0 rows give the expected blocks. */
enum kbloom_test_geo_call {
	KBLOOM_TEST_RATE,
	KBLOOM_TEST_BITS,
	KBLOOM_TEST_BITS_PER_KEY,
	KBLOOM_TEST_VALIDATE,
};

struct kbloom_test_geo_case {
	const char *name;
	enum kbloom_test_geo_call call;
	u64 capacity;
	u64 bits;		/* nblocks for KBLOOM_TEST_VALIDATE */
	u32 fp_ppb;		/* bits per key for KBLOOM_TEST_BITS_PER_KEY */
	u32 k;
	u32 type;
	int err;
	u64 nblocks;
};

static const struct kbloom_test_geo_case kbloom_test_geo_cases[] = {
	{ "rate_fp_0", KBLOOM_TEST_RATE, 1000, 0, 0, 0, 0, -EINVAL },
	{ "rate_fp_1e9", KBLOOM_TEST_RATE, 1000, 0, KBLOOM_PPB, 0, 0, -EINVAL },
	{ "rate_fp_over_1", KBLOOM_TEST_RATE, 1000, 0, U32_MAX, 0, 0, -EINVAL },
	{ "rate_capacity_0", KBLOOM_TEST_RATE, 0, 0, 10000000, 0, 0, -EINVAL },
	{ "rate_too_big", KBLOOM_TEST_RATE, 1ULL << 40, 0, 10000000, 0, 0,
	  -E2BIG },
	{ "rate_u64_max", KBLOOM_TEST_RATE, U64_MAX, 0, 1, 0, 0, -E2BIG },
	{ "bits_0", KBLOOM_TEST_BITS, 0, 0, 0, 7, 0, -EINVAL },
	{ "bits_k_17", KBLOOM_TEST_BITS, 0, 4096, 0, 17, 0, -EINVAL },
	{ "bits_u64_max", KBLOOM_TEST_BITS, 0, U64_MAX, 0, 7, 0, -E2BIG },
	{ "bits_max_plus_1", KBLOOM_TEST_BITS, 0,
	  KBLOOM_MAX_BLOCKS * 512 + 1, 0, 7, 0, -E2BIG },
	{ "bits_max", KBLOOM_TEST_BITS, 0, KBLOOM_MAX_BLOCKS * 512, 0, 7, 0, 0,
	  KBLOOM_MAX_BLOCKS },
	{ "bits_1", KBLOOM_TEST_BITS, 0, 1, 0, 7, 0, 0, 1 },
	{ "bits_513", KBLOOM_TEST_BITS, 0, 513, 0, 7, 0, 0, 2 },
	{ "bpk_0", KBLOOM_TEST_BITS_PER_KEY, 1000, 0, 0, 0, 0, -EINVAL },
	{ "bpk_65", KBLOOM_TEST_BITS_PER_KEY, 1000, 0, 65, 0, 0, -EINVAL },
	{ "bpk_capacity_0", KBLOOM_TEST_BITS_PER_KEY, 0, 0, 10, 0, 0,
	  -EINVAL },
	{ "bpk_k_17", KBLOOM_TEST_BITS_PER_KEY, 1000, 0, 10, 17, 0, -EINVAL },
	{ "bpk_overflow", KBLOOM_TEST_BITS_PER_KEY, U64_MAX, 0, 10, 0, 0,
	  -E2BIG },
	{ "bpk_too_big", KBLOOM_TEST_BITS_PER_KEY, 1ULL << 40, 0, 64, 0, 0,
	  -E2BIG },
	{ "bpk_1000x10", KBLOOM_TEST_BITS_PER_KEY, 1000, 0, 10, 0, 0, 0, 20 },
	{ "validate_k_0", KBLOOM_TEST_VALIDATE, 0, 8, 0, 0, 0, -EINVAL },
	{ "validate_k_17", KBLOOM_TEST_VALIDATE, 0, 8, 0, 17, 0, -EINVAL },
	{ "validate_blocks_0", KBLOOM_TEST_VALIDATE, 0, 0, 0, 7, 0, -EINVAL },
	{ "validate_blocks_over", KBLOOM_TEST_VALIDATE, 0,
	  KBLOOM_MAX_BLOCKS + 1, 0, 7, 0, -E2BIG },
	{ "validate_type_unknown", KBLOOM_TEST_VALIDATE, 0, 8, 0, 7,
	  KBLOOM_TYPE_COUNTING + 1, -EINVAL },
	{ "validate_ok", KBLOOM_TEST_VALIDATE, 0, 8, 0, 7, 0, 0, 8 },
};

static void kbloom_test_geo_desc(const struct kbloom_test_geo_case *c,
				 char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kbloom_test_geo, kbloom_test_geo_cases, kbloom_test_geo_desc);

static void geometry(struct kunit *test)
{
	const struct kbloom_test_geo_case *c = test->param_value;
	struct kbloom_geometry geo;
	int ret = 0;

	memset(&geo, 0xff, sizeof(geo));
	switch (c->call) {
	case KBLOOM_TEST_RATE:
		ret = kbloom_geometry_from_rate(&geo, c->capacity, c->fp_ppb);
		break;
	case KBLOOM_TEST_BITS:
		ret = kbloom_geometry_from_bits(&geo, c->bits, c->k,
						c->capacity);
		break;
	case KBLOOM_TEST_BITS_PER_KEY:
		ret = kbloom_geometry_from_bits_per_key(&geo, c->capacity,
							c->fp_ppb, c->k);
		break;
	case KBLOOM_TEST_VALIDATE:
		memset(&geo, 0, sizeof(geo));
		geo.nblocks = c->bits;
		geo.k = c->k;
		geo.type = c->type;
		ret = kbloom_geometry_validate(&geo);
		break;
	}
	KUNIT_ASSERT_EQ(test, ret, c->err);
	if (ret)
		return;
	KUNIT_EXPECT_EQ(test, geo.nblocks, c->nblocks);
	KUNIT_EXPECT_GE(test, geo.k, (u32)KBLOOM_K_MIN);
	KUNIT_EXPECT_LE(test, geo.k, (u32)KBLOOM_K_MAX);
	if (c->k)
		KUNIT_EXPECT_EQ(test, geo.k, c->k);
	KUNIT_EXPECT_EQ(test, geo.type, (u32)KBLOOM_TYPE_BITS);
	KUNIT_EXPECT_EQ(test, geo.seed, 0ULL);
	KUNIT_EXPECT_EQ(test, kbloom_geometry_validate(&geo), 0);
}

/* The CRC32C every image ends with: the standard one (iSCSI, ext4). */
static u32 kbloom_test_crc32c(const void *buf, size_t len)
{
	return ~__crc32c_le(~0U, buf, len);
}

/* After editing an image, give it a valid CRC again. */
static void kbloom_test_reseal(u8 *img, size_t len)
{
	put_unaligned_le32(kbloom_test_crc32c(img, len - 4), img + len - 4);
}

/*
 * The image of f, emitted in uneven pieces as read() would; one spare byte
 * at the end lets a test append garbage.
 */
static u8 *kbloom_test_image(struct kunit *test, const struct kbloom_filter *f,
			     size_t *len)
{
	static const size_t pieces[] = { 1, 7, 64, 4096, 13 };
	struct kbloom_image_cursor cur;
	size_t done = 0, got, p = 0;
	u8 *img;

	*len = kbloom_image_bytes(&f->geo);
	img = kunit_kzalloc(test, *len + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, img);
	kbloom_image_start(f, &cur);
	do {
		got = kbloom_image_emit(f, &cur, img + done,
					min(pieces[p++ % ARRAY_SIZE(pieces)],
					    *len + 1 - done));
		done += got;
	} while (got && done <= *len);
	KUNIT_EXPECT_EQ(test, done, *len);
	return img;
}

static void image_round_trip(struct kunit *test)
{
	struct kbloom_test_batch *b = kbloom_test_batch(test);
	const struct kbloom_image_header *h;
	struct kbloom_filter *src, *dst;
	struct kbloom_stats sst, dst_st;
	struct kbloom_geometry geo;
	u64 i, bad_words = 0;
	size_t len, len2;
	u8 *img, *img2;

	KUNIT_ASSERT_EQ(test, kbloom_geometry_from_rate(&geo, 5000, 1000000),
			0);
	geo.seed = KBLOOM_TEST_SEED;
	src = kbloom_test_filter(test, &geo);
	dst = kbloom_test_filter(test, &geo);
	kbloom_test_add_range(src, b, 0, 5000, true);

	img = kbloom_test_image(test, src, &len);
	KUNIT_ASSERT_EQ(test, len, sizeof(*h) + geo.nblocks * 64 + 4);
	h = (const void *)img;
	KUNIT_EXPECT_EQ(test, le32_to_cpu(h->magic), KBLOOM_IMAGE_MAGIC);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(h->version), KBLOOM_IMAGE_VERSION);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(h->header_bytes), sizeof(*h));
	KUNIT_EXPECT_EQ(test, le32_to_cpu(h->k), geo.k);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(h->type), (u32)KBLOOM_TYPE_BITS);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(h->nblocks), geo.nblocks);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(h->seed), KBLOOM_TEST_SEED);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(h->capacity), 5000ULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(h->fp_target_ppb), 1000000U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(h->flags), 0U);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(h->add_calls), 5000ULL);
	kbloom_get_stats(src, &sst);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(h->add_new), sst.add_new);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(h->reserved[0]) |
			le64_to_cpu(h->reserved[1]) |
			le64_to_cpu(h->reserved[2]), 0ULL);
	for (i = 0; i < kbloom_test_words(src); i++)
		bad_words += get_unaligned_le64(img + sizeof(*h) + i * 8) !=
			     src->words[i];
	KUNIT_EXPECT_EQ(test, bad_words, 0ULL);
	KUNIT_EXPECT_EQ(test, get_unaligned_le32(img + len - 4),
			kbloom_test_crc32c(img, len - 4));

	KUNIT_EXPECT_EQ(test, kbloom_image_check_header(dst, img, sizeof(*h)),
			0);
	KUNIT_ASSERT_EQ(test, kbloom_image_load(dst, img, len), 0);
	KUNIT_EXPECT_EQ(test, memcmp(dst->words, src->words,
				     kbloom_test_words(src) * 8), 0);
	kbloom_get_stats(dst, &dst_st);
	KUNIT_EXPECT_EQ(test, dst_st.add_calls, sst.add_calls);
	KUNIT_EXPECT_EQ(test, dst_st.add_new, sst.add_new);
	KUNIT_EXPECT_EQ(test, kbloom_test_check_range(dst, b, 0, 5000, true),
			5000ULL);

	/* Loading is faithful: the copy's image is byte for byte the same. */
	img2 = kbloom_test_image(test, dst, &len2);
	KUNIT_ASSERT_EQ(test, len2, len);
	KUNIT_EXPECT_EQ(test, memcmp(img, img2, len), 0);
}

/* One defect per row, on an image of a compatible filter. */
enum kbloom_test_defect {
	KBLOOM_TEST_MAGIC,
	KBLOOM_TEST_VERSION,
	KBLOOM_TEST_HEADER_BYTES,
	KBLOOM_TEST_FLAGS,
	KBLOOM_TEST_RESERVED,
	KBLOOM_TEST_K_ZERO,
	KBLOOM_TEST_K_17,
	KBLOOM_TEST_TYPE,
	KBLOOM_TEST_OTHER_TYPE,
	KBLOOM_TEST_NBLOCKS_ZERO,
	KBLOOM_TEST_OTHER_SEED,
	KBLOOM_TEST_OTHER_K,
	KBLOOM_TEST_OTHER_BLOCKS,
	KBLOOM_TEST_EMPTY,
	KBLOOM_TEST_SHORT_HEADER,
	KBLOOM_TEST_SHORT_BITS,
	KBLOOM_TEST_SHORT_CRC,
	KBLOOM_TEST_TRAILING,
	KBLOOM_TEST_BIT_FLIP,
	KBLOOM_TEST_CRC_FLIP,
	KBLOOM_TEST_COUNTER_FLIP,
};

struct kbloom_test_bad_image {
	const char *name;
	enum kbloom_test_defect defect;
	int err;
	bool header;	/* kbloom_image_check_header sees it too */
};

static const struct kbloom_test_bad_image kbloom_test_bad_images[] = {
	{ "magic", KBLOOM_TEST_MAGIC, -ENOEXEC, true },
	{ "version", KBLOOM_TEST_VERSION, -EPROTO, true },
	{ "header_bytes", KBLOOM_TEST_HEADER_BYTES, -EINVAL, true },
	{ "flags", KBLOOM_TEST_FLAGS, -EINVAL, true },
	{ "reserved", KBLOOM_TEST_RESERVED, -EINVAL, true },
	{ "k_0", KBLOOM_TEST_K_ZERO, -EINVAL, true },
	{ "k_17", KBLOOM_TEST_K_17, -EINVAL, true },
	{ "type", KBLOOM_TEST_TYPE, -EINVAL, true },
	{ "other_type", KBLOOM_TEST_OTHER_TYPE, -EXDEV, true },
	{ "nblocks_0", KBLOOM_TEST_NBLOCKS_ZERO, -EINVAL, true },
	{ "other_seed", KBLOOM_TEST_OTHER_SEED, -EXDEV, true },
	{ "other_k", KBLOOM_TEST_OTHER_K, -EXDEV, true },
	{ "other_blocks", KBLOOM_TEST_OTHER_BLOCKS, -EXDEV, true },
	{ "empty", KBLOOM_TEST_EMPTY, -ENODATA, false },
	{ "short_header", KBLOOM_TEST_SHORT_HEADER, -ENODATA, false },
	{ "short_bits", KBLOOM_TEST_SHORT_BITS, -ENODATA, false },
	{ "short_crc", KBLOOM_TEST_SHORT_CRC, -ENODATA, false },
	{ "trailing_byte", KBLOOM_TEST_TRAILING, -EMSGSIZE, false },
	{ "bit_flip", KBLOOM_TEST_BIT_FLIP, -EBADMSG, false },
	{ "crc_flip", KBLOOM_TEST_CRC_FLIP, -EBADMSG, false },
	{ "counter_flip", KBLOOM_TEST_COUNTER_FLIP, -EBADMSG, false },
};

static void kbloom_test_bad_image_desc(const struct kbloom_test_bad_image *c,
				       char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kbloom_test_bad_image, kbloom_test_bad_images,
		  kbloom_test_bad_image_desc);

#define KBLOOM_TEST_IMAGE_BLOCKS	64

static void image_rejects(struct kunit *test)
{
	const struct kbloom_test_bad_image *c = test->param_value;
	struct kbloom_test_batch *b = kbloom_test_batch(test);
	u64 bits = KBLOOM_TEST_IMAGE_BLOCKS * 512, seed = KBLOOM_TEST_SEED;
	struct kbloom_stats before, after;
	struct kbloom_image_header *h;
	struct kbloom_filter *src, *dst;
	size_t len, hdr = sizeof(*h);
	u32 k = 7;
	void *snap;
	u8 *img;

	if (c->defect == KBLOOM_TEST_OTHER_SEED)
		seed++;
	if (c->defect == KBLOOM_TEST_OTHER_K)
		k++;
	if (c->defect == KBLOOM_TEST_OTHER_BLOCKS)
		bits += 512;
	src = kbloom_test_new(test, bits, k, seed);
	dst = kbloom_test_new(test, KBLOOM_TEST_IMAGE_BLOCKS * 512, 7,
			      KBLOOM_TEST_SEED);
	kbloom_test_add_range(src, b, 0, 1000, true);
	kbloom_test_add_range(dst, b, 1000, 1000, true);
	kbloom_test_check_range(dst, b, 0, 100, true);
	kbloom_get_stats(dst, &before);
	snap = kunit_kmalloc(test, kbloom_geometry_bytes(&dst->geo),
			     GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, snap);
	memcpy(snap, dst->words, kbloom_geometry_bytes(&dst->geo));

	img = kbloom_test_image(test, src, &len);
	h = (void *)img;
	switch (c->defect) {
	case KBLOOM_TEST_MAGIC:
		h->magic = cpu_to_le32(KBLOOM_IMAGE_MAGIC ^ 0x20);
		break;
	case KBLOOM_TEST_VERSION:
		h->version = cpu_to_le16(KBLOOM_IMAGE_VERSION + 1);
		break;
	case KBLOOM_TEST_HEADER_BYTES:
		h->header_bytes = cpu_to_le16(hdr + 8);
		break;
	case KBLOOM_TEST_FLAGS:
		h->flags = cpu_to_le32(1);
		break;
	case KBLOOM_TEST_RESERVED:
		h->reserved[2] = cpu_to_le64(1);
		break;
	case KBLOOM_TEST_K_ZERO:
		h->k = 0;
		break;
	case KBLOOM_TEST_K_17:
		h->k = cpu_to_le32(KBLOOM_K_MAX + 1);
		break;
	case KBLOOM_TEST_TYPE:
		h->type = cpu_to_le32(KBLOOM_TYPE_COUNTING + 1);
		break;
	case KBLOOM_TEST_OTHER_TYPE:
		h->type = cpu_to_le32(KBLOOM_TYPE_COUNTING);
		break;
	case KBLOOM_TEST_NBLOCKS_ZERO:
		h->nblocks = 0;
		break;
	case KBLOOM_TEST_EMPTY:
		len = 0;
		break;
	case KBLOOM_TEST_SHORT_HEADER:
		len = hdr - 1;
		break;
	case KBLOOM_TEST_SHORT_BITS:
		len = hdr + 64 * 10;
		break;
	case KBLOOM_TEST_SHORT_CRC:
		len--;
		break;
	case KBLOOM_TEST_TRAILING:
		len++;
		break;
	case KBLOOM_TEST_BIT_FLIP:
		img[hdr + 100] ^= 0x10;
		break;
	case KBLOOM_TEST_CRC_FLIP:
		img[len - 1] ^= 0x80;
		break;
	case KBLOOM_TEST_COUNTER_FLIP:
		h->add_calls = cpu_to_le64(le64_to_cpu(h->add_calls) + 1);
		break;
	default:
		break;
	}
	/* Header defects carry a valid CRC: only the defect may be seen. */
	if (c->defect <= KBLOOM_TEST_NBLOCKS_ZERO)
		kbloom_test_reseal(img, len);

	if (c->header)
		KUNIT_EXPECT_EQ(test, kbloom_image_check_header(dst, img, hdr),
				c->err);
	/* The device validates first, then applies: both must agree. */
	KUNIT_EXPECT_EQ(test, kbloom_image_validate(dst, img, len), c->err);
	KUNIT_EXPECT_EQ(test, kbloom_image_load(dst, img, len), c->err);

	/* All or nothing: a rejected image leaves no trace. */
	KUNIT_EXPECT_EQ(test, memcmp(snap, dst->words,
				     kbloom_geometry_bytes(&dst->geo)), 0);
	kbloom_get_stats(dst, &after);
	KUNIT_EXPECT_EQ(test, after.add_calls, before.add_calls);
	KUNIT_EXPECT_EQ(test, after.add_new, before.add_new);
	KUNIT_EXPECT_EQ(test, after.check_calls, before.check_calls);
	KUNIT_EXPECT_EQ(test, after.bits_set, before.bits_set);
}

/* The filter types, for cases that hold for every type. */
static const u32 kbloom_test_types[] = {
	KBLOOM_TYPE_BITS,
	KBLOOM_TYPE_COUNTING,
};

static void kbloom_test_type_desc(const u32 *type, char *desc)
{
	strscpy(desc, *type == KBLOOM_TYPE_COUNTING ? "counting" : "bits",
		KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kbloom_test_type, kbloom_test_types, kbloom_test_type_desc);

/*
 * What a reader of a mapped filter runs: the same answers as the counted
 * checks, single and batched, and not a count or a cell changed.
 */
static void lookup_answers_as_check(struct kunit *test)
{
	const u32 type = *(const u32 *)test->param_value;
	struct kbloom_test_batch *b = kbloom_test_batch(test);
	unsigned long looked[BITS_TO_LONGS(KBLOOM_TEST_CHUNK)];
	struct kbloom_stats before, after;
	struct kbloom_geometry geo;
	struct kbloom_filter *f;
	u64 first, differ = 0, found = 0;
	void *snap;
	u32 j, hits;

	KUNIT_ASSERT_EQ(test, kbloom_geometry_from_bits_type(&geo, type,
							     64 * 512, 6, 0),
			0);
	geo.seed = KBLOOM_TEST_SEED;
	f = kbloom_test_filter(test, &geo);
	kbloom_test_add_range(f, b, 0, 1000, true);
	snap = kunit_kmalloc(test, kbloom_geometry_bytes(&f->geo), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, snap);
	memcpy(snap, f->words, kbloom_geometry_bytes(&f->geo));
	kbloom_get_stats(f, &before);

	/* Keys 0..999 are present, 1000..1999 mostly absent. */
	for (first = 0; first < 2000; first += KBLOOM_TEST_CHUNK) {
		kbloom_test_fill(b, first, KBLOOM_TEST_CHUNK, true);
		hits = kbloom_lookup_batch(f, b->keys, KBLOOM_TEST_CHUNK,
					   looked);
		KUNIT_EXPECT_EQ(test, hits,
				bitmap_weight(looked, KBLOOM_TEST_CHUNK));
		for (j = 0; j < KBLOOM_TEST_CHUNK; j++) {
			bool one = kbloom_lookup(f, b->keys[j].data,
						 b->keys[j].len);

			differ += one != test_bit(j, looked);
			found += one && first + j < 1000;
		}
	}
	KUNIT_EXPECT_EQ(test, differ, 0ULL);
	KUNIT_EXPECT_EQ(test, found, 1000ULL);
	KUNIT_EXPECT_EQ(test, memcmp(snap, f->words,
				     kbloom_geometry_bytes(&f->geo)), 0);
	kbloom_get_stats(f, &after);
	KUNIT_EXPECT_EQ(test, after.check_calls, before.check_calls);
	KUNIT_EXPECT_EQ(test, after.check_hits, before.check_hits);

	/* The counted check gives the same bits and counts them. */
	kbloom_test_fill(b, 900, KBLOOM_TEST_CHUNK, true);
	kbloom_lookup_batch(f, b->keys, KBLOOM_TEST_CHUNK, looked);
	hits = kbloom_check_batch(f, b->keys, KBLOOM_TEST_CHUNK, b->results);
	KUNIT_EXPECT_TRUE(test, bitmap_equal(looked, b->results,
					     KBLOOM_TEST_CHUNK));
	kbloom_get_stats(f, &after);
	KUNIT_EXPECT_EQ(test, after.check_calls,
			before.check_calls + KBLOOM_TEST_CHUNK);
	KUNIT_EXPECT_EQ(test, after.check_hits, before.check_hits + hits);
}

/* Keys 0..1499 in a, 1000..2499 in b: 500 in both. */
static void merge_intersect(struct kunit *test)
{
	struct kbloom_test_batch *b = kbloom_test_batch(test);
	struct kbloom_filter *a, *x, *u, *in, *empty;
	u64 i, bad_or = 0, bad_and = 0;
	void *snap;

	a = kbloom_test_new(test, 100 * 512, 7, KBLOOM_TEST_SEED);
	x = kbloom_test_new(test, 100 * 512, 7, KBLOOM_TEST_SEED);
	u = kbloom_test_new(test, 100 * 512, 7, KBLOOM_TEST_SEED);
	in = kbloom_test_new(test, 100 * 512, 7, KBLOOM_TEST_SEED);
	empty = kbloom_test_new(test, 100 * 512, 7, KBLOOM_TEST_SEED);
	kbloom_test_add_range(a, b, 0, 1500, true);
	kbloom_test_add_range(x, b, 1000, 1500, true);
	kbloom_test_add_range(u, b, 0, 1500, true);
	kbloom_test_add_range(in, b, 0, 1500, true);

	KUNIT_EXPECT_TRUE(test, kbloom_compatible(u, x));
	KUNIT_ASSERT_EQ(test, kbloom_merge(u, x), 0);
	KUNIT_ASSERT_EQ(test, kbloom_intersect(in, x), 0);
	for (i = 0; i < kbloom_test_words(a); i++) {
		bad_or += u->words[i] != (a->words[i] | x->words[i]);
		bad_and += in->words[i] != (a->words[i] & x->words[i]);
	}
	KUNIT_EXPECT_EQ(test, bad_or, 0ULL);
	KUNIT_EXPECT_EQ(test, bad_and, 0ULL);
	KUNIT_EXPECT_EQ(test, kbloom_test_check_range(u, b, 0, 2500, true),
			2500ULL);
	KUNIT_EXPECT_EQ(test, kbloom_test_check_range(in, b, 1000, 500, true),
			500ULL);

	/* The empty filter is the identity of union and the zero of meet. */
	snap = kunit_kmalloc(test, kbloom_geometry_bytes(&x->geo), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, snap);
	memcpy(snap, x->words, kbloom_geometry_bytes(&x->geo));
	KUNIT_ASSERT_EQ(test, kbloom_merge(x, empty), 0);
	KUNIT_EXPECT_EQ(test, memcmp(snap, x->words,
				     kbloom_geometry_bytes(&x->geo)), 0);
	KUNIT_ASSERT_EQ(test, kbloom_intersect(a, empty), 0);
	KUNIT_EXPECT_EQ(test, kbloom_test_popcount(a), 0ULL);
}

/* Filters that differ in one of blocks, k or seed never combine. */
static void merge_incompatible(struct kunit *test)
{
	struct kbloom_test_batch *b = kbloom_test_batch(test);
	struct kbloom_filter *dst, *others[3];
	struct kbloom_geometry geo;
	struct kbloom_stats before, after;
	u64 before_bits;
	u32 i;

	dst = kbloom_test_new(test, 64 * 512, 7, KBLOOM_TEST_SEED);
	others[0] = kbloom_test_new(test, 65 * 512, 7, KBLOOM_TEST_SEED);
	others[1] = kbloom_test_new(test, 64 * 512, 8, KBLOOM_TEST_SEED);
	others[2] = kbloom_test_new(test, 64 * 512, 7, KBLOOM_TEST_SEED + 1);
	kbloom_test_add_range(dst, b, 0, 500, true);
	for (i = 0; i < ARRAY_SIZE(others); i++)
		kbloom_test_add_range(others[i], b, 500, 500, true);
	kbloom_get_stats(dst, &before);
	before_bits = kbloom_test_popcount(dst);

	for (i = 0; i < ARRAY_SIZE(others); i++) {
		KUNIT_EXPECT_FALSE(test, kbloom_compatible(dst, others[i]));
		KUNIT_EXPECT_FALSE(test, kbloom_compatible(others[i], dst));
		KUNIT_EXPECT_EQ(test, kbloom_merge(dst, others[i]), -EXDEV);
		KUNIT_EXPECT_EQ(test, kbloom_intersect(dst, others[i]), -EXDEV);
	}
	kbloom_get_stats(dst, &after);
	KUNIT_EXPECT_EQ(test, kbloom_test_popcount(dst), before_bits);
	KUNIT_EXPECT_EQ(test, after.add_calls, before.add_calls);
	KUNIT_EXPECT_EQ(test, after.add_new, before.add_new);

	/* Capacity and target rate are advice, not layout. */
	KUNIT_ASSERT_EQ(test, kbloom_geometry_from_bits(&geo, 64 * 512, 7, 999),
			0);
	geo.seed = KBLOOM_TEST_SEED;
	geo.fp_target_ppb = 12345;
	KUNIT_EXPECT_TRUE(test, kbloom_compatible(dst,
						  kbloom_test_filter(test,
								     &geo)));
}

static void clear_resets(struct kunit *test)
{
	struct kbloom_test_batch *b = kbloom_test_batch(test);
	struct kbloom_filter *f;
	struct kbloom_stats st;

	f = kbloom_test_new(test, 100 * 512, 7, KBLOOM_TEST_SEED);
	kbloom_test_add_range(f, b, 0, 3000, true);
	kbloom_test_check_range(f, b, 0, 3000, true);
	KUNIT_ASSERT_GT(test, kbloom_test_popcount(f), 0ULL);

	kbloom_clear(f);
	KUNIT_EXPECT_EQ(test, kbloom_test_popcount(f), 0ULL);
	KUNIT_EXPECT_EQ(test, kbloom_test_check_range(f, b, 0, 3000, true),
			0ULL);
	kbloom_get_stats(f, &st);
	KUNIT_EXPECT_EQ(test, st.add_calls, 0ULL);
	KUNIT_EXPECT_EQ(test, st.add_new, 0ULL);
	/* Only the checks made since the clear are counted. */
	KUNIT_EXPECT_EQ(test, st.check_calls, 3000ULL);
	KUNIT_EXPECT_EQ(test, st.check_hits, 0ULL);
	KUNIT_EXPECT_EQ(test, st.bits_set, 0ULL);

	/* The filter is as good as new. */
	KUNIT_EXPECT_GT(test, kbloom_test_add_range(f, b, 0, 3000, true), 0ULL);
	KUNIT_EXPECT_EQ(test, kbloom_test_check_range(f, b, 0, 3000, true),
			3000ULL);
}

/* Statistics from the bits: fill, a cardinality estimate and saturation. */
static void stats_from_bits(struct kunit *test)
{
	struct kbloom_test_batch *b = kbloom_test_batch(test);
	u64 n = 50000, bits, fill;
	struct kbloom_geometry geo;
	struct kbloom_filter *f;
	struct kbloom_stats st;

	KUNIT_ASSERT_EQ(test, kbloom_geometry_from_rate(&geo, n, 10000000), 0);
	geo.seed = KBLOOM_TEST_SEED;
	f = kbloom_test_filter(test, &geo);
	kbloom_get_stats(f, &st);
	KUNIT_EXPECT_EQ(test, st.bits_set, 0ULL);
	KUNIT_EXPECT_EQ(test, st.est_keys, 0ULL);
	KUNIT_EXPECT_EQ(test, st.fp_now_ppb, 0U);
	KUNIT_EXPECT_EQ(test, st.saturated, 0U);

	kbloom_test_add_range(f, b, 0, n, false);
	kbloom_get_stats(f, &st);
	bits = kbloom_test_popcount(f);
	KUNIT_EXPECT_EQ(test, st.bits_set, bits);
	/* Rounded either way, but no further. */
	fill = div64_u64(bits * KBLOOM_PPB, geo.nblocks * 512);
	KUNIT_EXPECT_LE(test, (u64)st.fill_ppb, fill + 1);
	KUNIT_EXPECT_GE(test, (u64)st.fill_ppb + 1, fill);
	/* Tens of thousands of blocks' worth of fill: within 3 %. */
	KUNIT_EXPECT_LE(test, st.est_keys, n + n * 3 / 100);
	KUNIT_EXPECT_GE(test, st.est_keys, n - n * 3 / 100);
	KUNIT_EXPECT_GT(test, st.fp_now_ppb, 0U);

	/* Twice the design load is over capacity and over target. */
	kbloom_test_add_range(f, b, n, n, false);
	kbloom_get_stats(f, &st);
	KUNIT_EXPECT_EQ(test, st.saturated, 1U);
	KUNIT_EXPECT_GT(test, st.fp_now_ppb, geo.fp_target_ppb);
}

/*
 * Counting filters, batch against single: adds with repeats, checks of
 * present and absent keys, then deletes of added and never-added keys,
 * all giving the same answers and leaving the same counters.
 */
static void counting_batch_matches_single(struct kunit *test)
{
	struct kbloom_test_batch *b = kbloom_test_batch(test);
	u32 mismatch = 0, hits_mismatch = 0;
	struct kbloom_filter *batched, *single;
	struct kbloom_stats bst, sst;
	u64 i, j, removed = 0;

	batched = kbloom_test_new_counting(test, 160, 6, KBLOOM_TEST_SEED);
	single = kbloom_test_new_counting(test, 160, 6, KBLOOM_TEST_SEED);

	for (i = 0; i < KBLOOM_TEST_SEQ_KEYS; i += KBLOOM_TEST_CHUNK) {
		u32 m = min_t(u64, KBLOOM_TEST_SEQ_KEYS - i, KBLOOM_TEST_CHUNK);
		u32 hits;

		kbloom_test_fill_cycling(b, i, m);
		memset(b->results, 0xa5, sizeof(b->results));
		hits = kbloom_add_batch(batched, b->keys, m, b->results);
		for (j = 0; j < m; j++)
			if (kbloom_add(single, b->keys[j].data,
				       b->keys[j].len) !=
			    test_bit(j, b->results))
				mismatch++;
		if (hits != bitmap_weight(b->results, m))
			hits_mismatch++;
	}
	KUNIT_EXPECT_EQ(test, mismatch, 0);
	KUNIT_EXPECT_EQ(test, memcmp(batched->words, single->words,
				     kbloom_test_words(single) * 8), 0);

	for (i = 0; i < 2 * KBLOOM_TEST_SEQ_DISTINCT; i += KBLOOM_TEST_CHUNK) {
		u32 m = min_t(u64, 2 * KBLOOM_TEST_SEQ_DISTINCT - i,
			      KBLOOM_TEST_CHUNK);
		u32 hits;

		kbloom_test_fill(b, i, m, true);
		memset(b->results, 0x5a, sizeof(b->results));
		hits = kbloom_check_batch(batched, b->keys, m, b->results);
		for (j = 0; j < m; j++)
			if (kbloom_check(single, b->keys[j].data,
					 b->keys[j].len) !=
			    test_bit(j, b->results))
				mismatch++;
		if (hits != bitmap_weight(b->results, m))
			hits_mismatch++;
	}
	KUNIT_EXPECT_EQ(test, mismatch, 0);

	/* Keys 1000..2999: half were added (twice for 1000..1999). */
	for (i = 1000; i < 3000; i += KBLOOM_TEST_CHUNK) {
		u32 m = min_t(u64, 3000 - i, KBLOOM_TEST_CHUNK);
		u32 hits;

		kbloom_test_fill(b, i, m, true);
		memset(b->results, 0xa5, sizeof(b->results));
		hits = kbloom_delete_batch(batched, b->keys, m, b->results);
		for (j = 0; j < m; j++)
			if (kbloom_delete(single, b->keys[j].data,
					  b->keys[j].len) !=
			    test_bit(j, b->results))
				mismatch++;
		if (hits != bitmap_weight(b->results, m))
			hits_mismatch++;
		removed += hits;
	}
	KUNIT_EXPECT_EQ(test, mismatch, 0);
	KUNIT_EXPECT_EQ(test, hits_mismatch, 0);
	KUNIT_EXPECT_EQ(test, memcmp(batched->words, single->words,
				     kbloom_test_words(single) * 8), 0);
	KUNIT_EXPECT_GE(test, removed, 1000ULL);

	kbloom_get_stats(batched, &bst);
	kbloom_get_stats(single, &sst);
	KUNIT_EXPECT_EQ(test, bst.delete_calls, 2000ULL);
	KUNIT_EXPECT_EQ(test, sst.delete_calls, 2000ULL);
	KUNIT_EXPECT_EQ(test, bst.delete_hits, removed);
	KUNIT_EXPECT_EQ(test, sst.delete_hits, removed);
	KUNIT_EXPECT_EQ(test, bst.add_new, sst.add_new);
}

/* Every added key deleted once, and once only: all counters back to 0. */
static void counting_delete_all_empties(struct kunit *test)
{
	struct kbloom_test_batch *b = kbloom_test_batch(test);
	struct kbloom_filter *f;
	struct kbloom_stats st;

	f = kbloom_test_new_counting(test, 400, 7, KBLOOM_TEST_SEED);
	kbloom_test_add_range(f, b, 0, 3000, true);
	KUNIT_ASSERT_EQ(test, kbloom_test_check_range(f, b, 0, 3000, true),
			3000ULL);
	KUNIT_ASSERT_GT(test, kbloom_test_count_counters(f, 0), 0ULL);

	KUNIT_EXPECT_EQ(test, kbloom_test_delete_range(f, b, 0, 3000, true),
			3000ULL);
	KUNIT_EXPECT_EQ(test, kbloom_test_count_counters(f, 0), 0ULL);
	KUNIT_EXPECT_EQ(test, kbloom_test_popcount(f), 0ULL);
	kbloom_get_stats(f, &st);
	KUNIT_EXPECT_EQ(test, st.bits_set, 0ULL);
	KUNIT_EXPECT_EQ(test, st.fill_ppb, 0U);
	KUNIT_EXPECT_EQ(test, st.est_keys, 0ULL);
	KUNIT_EXPECT_EQ(test, st.delete_calls, 3000ULL);
	KUNIT_EXPECT_EQ(test, st.delete_hits, 3000ULL);
	KUNIT_EXPECT_EQ(test, kbloom_test_check_range(f, b, 0, 3000, true),
			0ULL);
}

/*
 * A counter that reached KBLOOM_COUNTER_MAX has lost count, so it stays:
 * 20 adds of one key take its counters to 15, and 20 deletes, each
 * reported as a removal, leave them there and the key present.
 */
static void counting_sticky(struct kunit *test)
{
	struct kbloom_filter *f;
	u64 cells, at_max;
	u32 i, removed = 0;

	f = kbloom_test_new_counting(test, 1, 4, KBLOOM_TEST_SEED);
	for (i = 0; i < 20; i++)
		kbloom_add(f, "sticky", 6);
	cells = kbloom_test_count_counters(f, 0);
	at_max = kbloom_test_count_counters(f, KBLOOM_COUNTER_MAX);
	KUNIT_ASSERT_GE(test, cells, 1ULL);
	KUNIT_EXPECT_LE(test, cells, 4ULL);
	KUNIT_EXPECT_EQ(test, at_max, cells);

	for (i = 0; i < 20; i++)
		removed += kbloom_delete(f, "sticky", 6);
	KUNIT_EXPECT_EQ(test, removed, 20U);
	KUNIT_EXPECT_TRUE(test, kbloom_check(f, "sticky", 6));
	KUNIT_EXPECT_EQ(test, kbloom_test_count_counters(f, 0), cells);
	KUNIT_EXPECT_EQ(test,
			kbloom_test_count_counters(f, KBLOOM_COUNTER_MAX),
			at_max);
}

/* An absent key is reported so and its delete changes no counter. */
static void counting_delete_absent(struct kunit *test)
{
	struct kbloom_test_batch *b = kbloom_test_batch(test);
	struct kbloom_filter *f;
	struct kbloom_stats st;
	size_t bytes;
	void *snap;

	f = kbloom_test_new_counting(test, 16, 5, KBLOOM_TEST_SEED);
	KUNIT_EXPECT_FALSE(test, kbloom_delete(f, "nobody", 6));
	kbloom_test_fill(b, 0, KBLOOM_TEST_CHUNK, true);
	memset(b->results, 0xa5, sizeof(b->results));
	KUNIT_EXPECT_EQ(test, kbloom_delete_batch(f, b->keys, KBLOOM_TEST_CHUNK,
						  b->results), 0U);
	KUNIT_EXPECT_TRUE(test, bitmap_empty(b->results, KBLOOM_TEST_CHUNK));
	KUNIT_EXPECT_EQ(test, kbloom_test_popcount(f), 0ULL);
	kbloom_get_stats(f, &st);
	KUNIT_EXPECT_EQ(test, st.delete_calls, (u64)KBLOOM_TEST_CHUNK + 1);
	KUNIT_EXPECT_EQ(test, st.delete_hits, 0ULL);
	KUNIT_EXPECT_EQ(test, st.bits_set, 0ULL);

	/* With keys in it, a never-added key that misses still changes none. */
	kbloom_test_add_range(f, b, 0, 100, true);
	bytes = kbloom_geometry_bytes(&f->geo);
	snap = kunit_kmalloc(test, bytes, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, snap);
	memcpy(snap, f->words, bytes);
	KUNIT_ASSERT_FALSE(test, kbloom_check(f, "nobody", 6));
	KUNIT_EXPECT_FALSE(test, kbloom_delete(f, "nobody", 6));
	KUNIT_EXPECT_EQ(test, memcmp(snap, f->words, bytes), 0);
}

/* A bits filter has no counters: delete is refused and changes nothing. */
static void delete_on_bits(struct kunit *test)
{
	struct kbloom_test_batch *b = kbloom_test_batch(test);
	struct kbloom_stats before, after;
	struct kbloom_filter *f;
	size_t bytes;
	void *snap;

	f = kbloom_test_new(test, 32 * 512, 7, KBLOOM_TEST_SEED);
	KUNIT_EXPECT_EQ(test, kbloom_delete_supported(f), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test,
			kbloom_delete_supported(kbloom_test_new_counting(test,
									 1, 1,
									 0)),
			0);
	kbloom_test_add_range(f, b, 0, 500, true);
	bytes = kbloom_geometry_bytes(&f->geo);
	snap = kunit_kmalloc(test, bytes, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, snap);
	memcpy(snap, f->words, bytes);
	kbloom_get_stats(f, &before);

	kbloom_test_fill(b, 0, KBLOOM_TEST_CHUNK, true);
	KUNIT_EXPECT_FALSE(test, kbloom_delete(f, b->keys[0].data,
					       b->keys[0].len));
	memset(b->results, 0xa5, sizeof(b->results));
	KUNIT_EXPECT_EQ(test, kbloom_delete_batch(f, b->keys, KBLOOM_TEST_CHUNK,
						  b->results), 0U);
	KUNIT_EXPECT_TRUE(test, bitmap_empty(b->results, KBLOOM_TEST_CHUNK));
	KUNIT_EXPECT_EQ(test, memcmp(snap, f->words, bytes), 0);
	kbloom_get_stats(f, &after);
	KUNIT_EXPECT_EQ(test, after.delete_calls, 0ULL);
	KUNIT_EXPECT_EQ(test, after.delete_hits, 0ULL);
	KUNIT_EXPECT_EQ(test, after.bits_set, before.bits_set);
	KUNIT_EXPECT_EQ(test, kbloom_test_check_range(f, b, 0, 500, true),
			500ULL);
}

/*
 * Merge and intersect of counting filters, counter by counter over every
 * pair of values: the sum stopping at KBLOOM_COUNTER_MAX, and the lower.
 */
static void counting_merge_intersect(struct kunit *test)
{
	struct kbloom_filter *a, *x, *u, *in, *bits;
	u64 i, bad_sum = 0, bad_min = 0;
	size_t bytes;
	u32 j;

	a = kbloom_test_new_counting(test, 8, 5, KBLOOM_TEST_SEED);
	x = kbloom_test_new_counting(test, 8, 5, KBLOOM_TEST_SEED);
	u = kbloom_test_new_counting(test, 8, 5, KBLOOM_TEST_SEED);
	in = kbloom_test_new_counting(test, 8, 5, KBLOOM_TEST_SEED);
	bits = kbloom_test_new(test, 8 * 512, 5, KBLOOM_TEST_SEED);
	bytes = kbloom_geometry_bytes(&a->geo);
	/* 1024 counter pairs: all 256 value pairs, four times each. */
	for (i = 0; i < kbloom_test_words(a); i++) {
		a->words[i] = 0;
		x->words[i] = 0;
		for (j = 0; j < 16; j++) {
			u64 pair = (i * 16 + j) % 256;

			a->words[i] |= (pair & 0xf) << (j * 4);
			x->words[i] |= (pair >> 4) << (j * 4);
		}
	}
	memcpy(u->words, a->words, bytes);
	memcpy(in->words, a->words, bytes);

	KUNIT_EXPECT_TRUE(test, kbloom_compatible(u, x));
	KUNIT_ASSERT_EQ(test, kbloom_merge(u, x), 0);
	KUNIT_ASSERT_EQ(test, kbloom_intersect(in, x), 0);
	for (i = 0; i < kbloom_test_words(a); i++)
		for (j = 0; j < 16; j++) {
			u32 ca = kbloom_test_nibble(a->words[i], j);
			u32 cx = kbloom_test_nibble(x->words[i], j);

			bad_sum += kbloom_test_nibble(u->words[i], j) !=
				   min_t(u32, ca + cx, KBLOOM_COUNTER_MAX);
			bad_min += kbloom_test_nibble(in->words[i], j) !=
				   min(ca, cx);
		}
	KUNIT_EXPECT_EQ(test, bad_sum, 0ULL);
	KUNIT_EXPECT_EQ(test, bad_min, 0ULL);

	/* Same blocks, k and seed, another type: never combined. */
	memcpy(u->words, a->words, bytes);
	KUNIT_EXPECT_FALSE(test, kbloom_compatible(u, bits));
	KUNIT_EXPECT_EQ(test, kbloom_merge(u, bits), -EXDEV);
	KUNIT_EXPECT_EQ(test, kbloom_intersect(u, bits), -EXDEV);
	KUNIT_EXPECT_EQ(test, kbloom_merge(bits, u), -EXDEV);
	KUNIT_EXPECT_EQ(test, memcmp(u->words, a->words, bytes), 0);
}

/* Statistics count counters above 0 against 128 cells a block. */
static void counting_stats(struct kunit *test)
{
	struct kbloom_test_batch *b = kbloom_test_batch(test);
	u64 n = 20000, cells, fill;
	struct kbloom_geometry geo;
	struct kbloom_filter *f;
	struct kbloom_stats st;

	KUNIT_ASSERT_EQ(test,
			kbloom_geometry_from_rate_type(&geo,
						       KBLOOM_TYPE_COUNTING,
						       n, 10000000),
			0);
	KUNIT_EXPECT_EQ(test, geo.type, (u32)KBLOOM_TYPE_COUNTING);
	geo.seed = KBLOOM_TEST_SEED;
	f = kbloom_test_filter(test, &geo);

	kbloom_test_add_range(f, b, 0, n, false);
	kbloom_get_stats(f, &st);
	cells = kbloom_test_count_counters(f, 0);
	KUNIT_EXPECT_EQ(test, st.bits_set, cells);
	/* Fewer cells set than bits: a counter holds several probes. */
	KUNIT_EXPECT_LT(test, cells, kbloom_test_popcount(f));
	fill = div64_u64(cells * KBLOOM_PPB, geo.nblocks * 128);
	KUNIT_EXPECT_LE(test, (u64)st.fill_ppb, fill + 1);
	KUNIT_EXPECT_GE(test, (u64)st.fill_ppb + 1, fill);
	KUNIT_EXPECT_LE(test, st.est_keys, n + n * 5 / 100);
	KUNIT_EXPECT_GE(test, st.est_keys, n - n * 5 / 100);
	KUNIT_EXPECT_GT(test, st.fp_now_ppb, 0U);
	KUNIT_EXPECT_LE(test, st.fp_now_ppb, 10000000U);
	KUNIT_EXPECT_EQ(test, st.saturated, 0U);

	/* Deleting half: the statistics follow the counters down. */
	KUNIT_EXPECT_EQ(test, kbloom_test_delete_range(f, b, 0, n / 2, false),
			n / 2);
	kbloom_get_stats(f, &st);
	cells = kbloom_test_count_counters(f, 0);
	KUNIT_EXPECT_EQ(test, st.bits_set, cells);
	fill = div64_u64(cells * KBLOOM_PPB, geo.nblocks * 128);
	KUNIT_EXPECT_LE(test, (u64)st.fill_ppb, fill + 1);
	KUNIT_EXPECT_GE(test, (u64)st.fill_ppb + 1, fill);
	KUNIT_EXPECT_EQ(test, st.delete_calls, n / 2);
	KUNIT_EXPECT_EQ(test, st.delete_hits, n / 2);
	KUNIT_EXPECT_LE(test, st.est_keys, n / 2 + n / 2 * 5 / 100);
	KUNIT_EXPECT_GE(test, st.est_keys, n / 2 - n / 2 * 5 / 100);
}

/*
 * The same keys under the same seed make the same image in the kernel and
 * in the host build of the core: one layout, one hash, one CRC.  The value
 * below comes from the host build (kmod/kbloom_compat.h, libxxhash) running
 * these same steps: kbloom_geometry_from_bits(128 * 512 bits, k = 7), this
 * seed, kbloom_add() of "key-0" .. "key-999", then the image's last four
 * bytes.  A change of probing, layout or image format changes it, and then
 * saved images stop loading: update it only together with such a change.
 */
#define KBLOOM_TEST_GOLDEN_SEED	0x0123456789abcdefULL
#define KBLOOM_TEST_GOLDEN_CRC	0xfd3581f5U

static void golden_image(struct kunit *test)
{
	struct kbloom_filter *f;
	char key[16];
	size_t len;
	u8 *img;
	u32 i;

	f = kbloom_test_new(test, 128 * 512, 7, KBLOOM_TEST_GOLDEN_SEED);
	for (i = 0; i < 1000; i++) {
		u32 len = scnprintf(key, sizeof(key), "key-%u", i);

		kbloom_add(f, key, len);
	}
	img = kbloom_test_image(test, f, &len);
	KUNIT_EXPECT_EQ(test, get_unaligned_le32(img + len - 4),
			KBLOOM_TEST_GOLDEN_CRC);
}

/*
 * The counting filter's golden image, from the host build of the core
 * running the same steps (tests/host/test_counting.c): 3 blocks, k 5,
 * capacity 20, the golden seed, "golden-<i % 15>" added for i < 20, then
 * "golden-3" deleted.  Counters at 0, 1 and 2 make the nibble order
 * (counter i in bits 4 * (i % 16) of word i / 16) part of the CRC, so
 * saved counting images keep loading only while that order holds.
 */
#define KBLOOM_TEST_COUNTING_GOLDEN_CRC	0xb9168db6U

static void counting_golden_image(struct kunit *test)
{
	struct kbloom_geometry geo = {
		.nblocks = 3, .k = 5, .type = KBLOOM_TYPE_COUNTING,
		.capacity = 20, .seed = KBLOOM_TEST_GOLDEN_SEED,
	};
	struct kbloom_filter *f;
	char key[16];
	size_t len;
	u8 *img;
	u32 i;

	f = kbloom_test_filter(test, &geo);
	for (i = 0; i < 20; i++) {
		u32 len = scnprintf(key, sizeof(key), "golden-%u", i % 15);

		kbloom_add(f, key, len);
	}
	KUNIT_EXPECT_TRUE(test, kbloom_delete(f, "golden-3", 8));
	img = kbloom_test_image(test, f, &len);
	KUNIT_EXPECT_EQ(test, get_unaligned_le32(img + 12),
			(u32)KBLOOM_TYPE_COUNTING);
	KUNIT_EXPECT_EQ(test, get_unaligned_le32(img + len - 4),
			KBLOOM_TEST_COUNTING_GOLDEN_CRC);
}

static struct kunit_case kbloom_test_cases[] = {
	KUNIT_CASE(xxh64_known_answer),
	KUNIT_CASE(no_false_negatives),
	KUNIT_CASE(batch_matches_single),
	KUNIT_CASE(add_reports_new_bits),
	KUNIT_CASE(words_aligned),
	KUNIT_CASE(one_block_per_key),
	KUNIT_CASE_PARAM(fp_at_capacity,
			 kbloom_test_rate_gen_params),
	KUNIT_CASE_PARAM(geometry, kbloom_test_geo_gen_params),
	KUNIT_CASE(image_round_trip),
	KUNIT_CASE_PARAM(image_rejects,
			 kbloom_test_bad_image_gen_params),
	KUNIT_CASE(merge_intersect),
	KUNIT_CASE(merge_incompatible),
	KUNIT_CASE(clear_resets),
	KUNIT_CASE(stats_from_bits),
	KUNIT_CASE(golden_image),
	KUNIT_CASE(counting_batch_matches_single),
	KUNIT_CASE(counting_delete_all_empties),
	KUNIT_CASE(counting_sticky),
	KUNIT_CASE(counting_delete_absent),
	KUNIT_CASE(delete_on_bits),
	KUNIT_CASE(counting_merge_intersect),
	KUNIT_CASE(counting_stats),
	KUNIT_CASE(counting_golden_image),
	KUNIT_CASE_PARAM(lookup_answers_as_check, kbloom_test_type_gen_params),
	{}
};

static struct kunit_suite kbloom_test_suite = {
	.name = "kbloom",
	.test_cases = kbloom_test_cases,
};

kunit_test_suite(kbloom_test_suite);

MODULE_DESCRIPTION("KUnit tests for the kbloom filter core");
MODULE_LICENSE("GPL");
