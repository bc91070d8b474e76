// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom-ops: add, check, lookup and delete, single and batched, and the
 * whole-filter operations clear, merge and intersect, for every type.
 */
#include "kbloom_test.h"
#include "kbloom_hash.h"

typedef bool (*kbloom_test_single_op)(struct kbloom_filter *f,
				      const void *key, u32 len);

static bool kbloom_test_lookup(struct kbloom_filter *f, const void *key,
			       u32 len)
{
	return kbloom_lookup(f, key, len);
}

static u32 kbloom_test_lookup_batch(struct kbloom_filter *f,
				    const struct kbloom_key *keys, u32 n,
				    unsigned long *results)
{
	return kbloom_lookup_batch(f, keys, n, results);
}

static void xxh64_known_answer(struct kunit *test)
{
	const struct kbloom_test_type *t = test->param_value;
	struct kbloom_filter *f;

	KUNIT_EXPECT_EQ(test, xxh64("abc", 3, 0), 0x44bc2cf5ad770999ULL);
	/* The filter hashes with xxh64 under its own seed, nothing else. */
	f = kbloom_test_new(test, t, 8, 7, 0);
	KUNIT_EXPECT_EQ(test, kbloom_hash(f, "abc", 3), 0x44bc2cf5ad770999ULL);
	f = kbloom_test_new(test, t, 8, 7, KBLOOM_TEST_SEED);
	KUNIT_EXPECT_EQ(test, kbloom_hash(f, "abc", 3),
			xxh64("abc", 3, KBLOOM_TEST_SEED));
}

/*
 * The inline hash of short keys (kbloom_hash.h) is xxh64() itself: at
 * every length from 0 to past the 32-byte switch to xxh64()'s own loop,
 * at every alignment of the key, under the filter's seed (the path every
 * operation takes) and under seeds that set every bit range.
 */
static void xxh64_inline_equals_called(struct kunit *test)
{
	const struct kbloom_test_type *t = test->param_value;
	struct kbloom_filter *f = kbloom_test_new(test, t, 8, 7,
						  KBLOOM_TEST_SEED);
	u8 buf[KBLOOM_XXH_SHORT + 16 + 8];
	u32 len, off, i, wrong = 0, wrong_seeded = 0;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = kbloom_test_mix(i);
	for (len = 0; len <= KBLOOM_XXH_SHORT + 16; len++) {
		for (off = 0; off < 8; off++) {
			const u8 *key = buf + off;

			wrong += kbloom_hash(f, key, len) !=
				 xxh64(key, len, KBLOOM_TEST_SEED);
			for (i = 0; i < 16; i++) {
				u64 seed = kbloom_test_mix(len * 64 + off * 8 +
							   i);

				wrong_seeded += kbloom_xxh64(key, len, seed) !=
						xxh64(key, len, seed);
			}
		}
	}
	KUNIT_EXPECT_EQ(test, wrong, 0);
	KUNIT_EXPECT_EQ(test, wrong_seeded, 0);
}

#define KBLOOM_TEST_FN_KEYS	200000

static void no_false_negatives(struct kunit *test)
{
	const struct kbloom_test_type *t = test->param_value;
	struct kbloom_test_batch *b = kbloom_test_batch(test);
	u64 i, n = KBLOOM_TEST_FN_KEYS, single_misses = 0, batch_misses = 0;
	u64 bitmap_misses = 0;
	struct kbloom_geometry geo;
	struct kbloom_stats st;
	struct kbloom_filter *f;

	f = kbloom_test_new_rate(test, t, n, 10000000, &geo);

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
 * Runs keys first .. first + n - 1 (repeating every cycle, if not 0)
 * through bop on bf in batches and through sop on sf one by one; returns
 * how many answers differ, counting a batch whose returned count is not
 * its bitmap's, or that left a bit set past its last key, as one more.
 */
static u64 kbloom_test_both_ways(struct kbloom_test_batch *b,
				 struct kbloom_filter *bf,
				 struct kbloom_filter *sf, u64 first, u64 n,
				 u64 cycle, kbloom_test_batch_op bop,
				 kbloom_test_single_op sop)
{
	u64 i, differ = 0;

	for (i = 0; i < n; i += KBLOOM_TEST_CHUNK) {
		u32 m = min_t(u64, n - i, KBLOOM_TEST_CHUNK), j, hits;

		kbloom_test_fill_cycle(b, first + i, m, true, cycle);
		/* Garbage the core must overwrite. */
		memset(b->results, 0xa5, sizeof(b->results));
		hits = bop(bf, b->keys, m, b->results);
		for (j = 0; j < m; j++)
			differ += sop(sf, b->keys[j].data, b->keys[j].len) !=
				  test_bit(j, b->results);
		for (j = m; j < round_up(m, BITS_PER_LONG); j++)
			differ += test_bit(j, b->results);
		differ += hits != bitmap_weight(b->results, m);
		/* Without a bitmap, the same count. */
		if (bop != kbloom_add_batch && bop != kbloom_delete_batch)
			differ += bop(bf, b->keys, m, NULL) != hits;
	}
	return differ;
}

/* Batches of 1 to 70 keys: every offset of the prefetch window. */
static u64 kbloom_test_sizes(struct kbloom_test_batch *b,
			     struct kbloom_filter *bf, struct kbloom_filter *sf,
			     kbloom_test_batch_op bop,
			     kbloom_test_single_op sop)
{
	u64 n, differ = 0;

	for (n = 1; n <= 70; n++)
		differ += kbloom_test_both_ways(b, bf, sf, n * 70, n, 0, bop,
						sop);
	return differ;
}

/*
 * Keys 0..1999 then 0..999 again: the repeats must report "nothing new" in
 * a batch exactly as they do one by one, and both filters end cell-equal;
 * then checks of present and absent keys, and for a type that deletes,
 * deletes of added and never-added keys, all with the same answers.
 */
#define KBLOOM_TEST_SEQ_KEYS	3000
#define KBLOOM_TEST_SEQ_DISTINCT 2000

static void batch_matches_single(struct kunit *test)
{
	const struct kbloom_test_type *t = test->param_value;
	struct kbloom_test_batch *b = kbloom_test_batch(test);
	struct kbloom_filter *batched, *single;
	struct kbloom_stats bst, sst;

	batched = kbloom_test_new(test, t, 160, 6, KBLOOM_TEST_SEED);
	single = kbloom_test_new(test, t, 160, 6, KBLOOM_TEST_SEED);

	KUNIT_EXPECT_EQ(test, kbloom_test_both_ways(b, batched, single, 0,
						    KBLOOM_TEST_SEQ_KEYS,
						    KBLOOM_TEST_SEQ_DISTINCT,
						    kbloom_add_batch,
						    kbloom_add), 0);
	KUNIT_EXPECT_EQ(test, memcmp(batched->words, single->words,
				     kbloom_test_words(single) * 8), 0);
	KUNIT_EXPECT_EQ(test, kbloom_test_both_ways(b, batched, single, 0,
						    2 * KBLOOM_TEST_SEQ_DISTINCT,
						    0, kbloom_check_batch,
						    kbloom_check), 0);

	kbloom_get_stats(batched, &bst);
	kbloom_get_stats(single, &sst);
	KUNIT_EXPECT_EQ(test, bst.add_calls, (u64)KBLOOM_TEST_SEQ_KEYS);
	KUNIT_EXPECT_EQ(test, sst.add_calls, (u64)KBLOOM_TEST_SEQ_KEYS);
	KUNIT_EXPECT_EQ(test, bst.add_new, sst.add_new);
	KUNIT_EXPECT_LE(test, bst.add_new, (u64)KBLOOM_TEST_SEQ_DISTINCT);
	KUNIT_EXPECT_EQ(test, bst.check_calls,
			(u64)4 * KBLOOM_TEST_SEQ_DISTINCT);
	KUNIT_EXPECT_EQ(test, sst.check_calls,
			(u64)2 * KBLOOM_TEST_SEQ_DISTINCT);
	KUNIT_EXPECT_EQ(test, bst.check_hits, 2 * sst.check_hits);
	KUNIT_EXPECT_EQ(test, kbloom_test_sizes(b, batched, single,
						kbloom_check_batch,
						kbloom_check), 0);

	if (!kbloom_test_deletes(test, t, batched))
		return;
	/* Keys 1000..2999: half were added (twice for 1000..1999). */
	KUNIT_EXPECT_EQ(test, kbloom_test_both_ways(b, batched, single, 1000,
						    2000, 0,
						    kbloom_delete_batch,
						    kbloom_delete), 0);
	KUNIT_EXPECT_EQ(test, memcmp(batched->words, single->words,
				     kbloom_test_words(single) * 8), 0);
	kbloom_get_stats(batched, &bst);
	kbloom_get_stats(single, &sst);
	KUNIT_EXPECT_EQ(test, bst.delete_calls, 2000ULL);
	KUNIT_EXPECT_EQ(test, sst.delete_calls, 2000ULL);
	KUNIT_EXPECT_GE(test, bst.delete_hits, 1000ULL);
	KUNIT_EXPECT_EQ(test, bst.delete_hits, sst.delete_hits);
	KUNIT_EXPECT_EQ(test, kbloom_test_sizes(b, batched, single,
						kbloom_delete_batch,
						kbloom_delete), 0);
	KUNIT_EXPECT_EQ(test, memcmp(batched->words, single->words,
				     kbloom_test_words(single) * 8), 0);
}

static void add_reports_new_bits(struct kunit *test)
{
	const struct kbloom_test_type *t = test->param_value;
	struct kbloom_key keys[3] = {
		{ "first", 5 }, { "first", 5 }, { "second", 6 },
	};
	unsigned long results[1];
	struct kbloom_test_key *key;
	struct kbloom_filter *f;
	struct kbloom_stats st;
	u32 i, lied = 0;

	key = kunit_kzalloc(test, sizeof(*key), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, key);
	f = kbloom_test_new(test, t, 8, 7, KBLOOM_TEST_SEED);
	KUNIT_EXPECT_FALSE(test, kbloom_check(f, "key", 3));
	KUNIT_EXPECT_TRUE(test, kbloom_add(f, "key", 3));
	KUNIT_EXPECT_FALSE(test, kbloom_add(f, "key", 3));
	KUNIT_EXPECT_TRUE(test, kbloom_check(f, "key", 3));
	/* k probes, of which some may land on the same cell. */
	KUNIT_EXPECT_GE(test, kbloom_test_cells(f, t, 0), 1ULL);
	KUNIT_EXPECT_LE(test, kbloom_test_cells(f, t, 0), 7ULL);

	/* Within a batch, a repeat sees the cells of its first occurrence. */
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
	KUNIT_EXPECT_EQ(test, st.bits_set, kbloom_test_cells(f, t, 0));

	/* Key after key: "new" exactly when a cell left 0. */
	for (i = 0; i < 2000; i++) {
		u64 before = kbloom_test_cells(f, t, 0);

		kbloom_test_make_key(i, true, key);
		lied += kbloom_add(f, key->bytes, key->len) !=
			(kbloom_test_cells(f, t, 0) > before);
	}
	KUNIT_EXPECT_EQ(test, lied, 0U);
}

/*
 * New keys per word of 64 in a stream of known and new keys, cycled over
 * batches of KBLOOM_TEST_CHUNK: an add that writes at once follows a word
 * of mostly new keys and one that looks first follows the others
 * (probe_add_bits()), so this makes every switch between the two, within
 * a batch and across batches, and runs mostly-known words through the
 * writing add and mostly-new ones through the looking one.
 */
static const u8 kbloom_test_new_per_word[] = {
	64, 64, 0, 0, 40, 24, 33, 32, 31, 64, 1, 63, 0, 64, 32, 33,
};

#define KBLOOM_TEST_MIX_KNOWN	300
#define KBLOOM_TEST_MIX_WORDS	(3 * ARRAY_SIZE(kbloom_test_new_per_word))

/*
 * In any mix of known and new keys, batched or one at a time, an add
 * answers "new" exactly when the key was not all there before it (a
 * lookup says so), and both ways leave the same cells and counts.
 */
static void add_new_in_mixed_words(struct kunit *test)
{
	const struct kbloom_test_type *t = test->param_value;
	struct kbloom_test_batch *b = kbloom_test_batch(test);
	struct kbloom_filter *batched, *single;
	struct kbloom_stats bst, sst;
	u64 next_new = 1000000, expected_new = 0;
	u32 w, j, known = 0, wrong_single = 0, wrong_batch = 0;

	batched = kbloom_test_new(test, t, 1024, 6, KBLOOM_TEST_SEED);
	single = kbloom_test_new(test, t, 1024, 6, KBLOOM_TEST_SEED);
	kbloom_test_add_range(batched, b, 0, KBLOOM_TEST_MIX_KNOWN, false);
	kbloom_test_add_range(single, b, 0, KBLOOM_TEST_MIX_KNOWN, false);

	for (w = 0; w < KBLOOM_TEST_MIX_WORDS; w += KBLOOM_TEST_CHUNK / 64) {
		bool absent[KBLOOM_TEST_CHUNK];

		for (j = 0; j < KBLOOM_TEST_CHUNK; j++) {
			u32 word = (w + j / 64) %
				   ARRAY_SIZE(kbloom_test_new_per_word);
			bool new = (j * 37) % 64 < kbloom_test_new_per_word[word];
			struct kbloom_test_key *key = &b->raw[j];

			kbloom_test_make_key(new ? next_new++ :
					     known++ % KBLOOM_TEST_MIX_KNOWN,
					     false, key);
			b->keys[j].data = key->bytes;
			b->keys[j].len = key->len;
			absent[j] = !kbloom_lookup(single, key->bytes,
						   key->len);
			expected_new += absent[j];
			wrong_single += kbloom_add(single, key->bytes,
						   key->len) != absent[j];
		}
		kbloom_add_batch(batched, b->keys, KBLOOM_TEST_CHUNK,
				 b->results);
		for (j = 0; j < KBLOOM_TEST_CHUNK; j++)
			wrong_batch += test_bit(j, b->results) != absent[j];
	}
	KUNIT_EXPECT_EQ(test, wrong_single, 0U);
	KUNIT_EXPECT_EQ(test, wrong_batch, 0U);
	/* Most of the new keys were new: the test saw both kinds. */
	KUNIT_EXPECT_GT(test, expected_new, (u64)next_new - 1000000 - 20);
	KUNIT_EXPECT_EQ(test, memcmp(batched->words, single->words,
				     kbloom_test_words(single) * 8), 0);
	kbloom_get_stats(batched, &bst);
	kbloom_get_stats(single, &sst);
	KUNIT_EXPECT_EQ(test, bst.add_new, sst.add_new);
	KUNIT_EXPECT_EQ(test, bst.add_new, expected_new + KBLOOM_TEST_MIX_KNOWN);
}

static void words_aligned(struct kunit *test)
{
	const struct kbloom_test_type *t = test->param_value;
	static const u64 sizes[] = { 1, 3, 61, 1000, 1 << 15 };
	struct kbloom_filter *f;
	u32 s;

	for (s = 0; s < ARRAY_SIZE(sizes); s++) {
		u64 i, nonzero = 0;

		f = kbloom_test_new(test, t, sizes[s], 4, s);
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
 * Each key, added alone, changes 1..k cells, all inside the one block that
 * fastrange over its full hash names, and the counts of its cells add up
 * to k where a cell can count that far (a repeated probe counts twice).
 * Over many keys every block and every cell gets used, and cells of one
 * key coincide no more often than independent draws would (C(k, 2) /
 * cells per key).
 */
#define KBLOOM_TEST_BLOCKS	61
#define KBLOOM_TEST_BLOCK_KEYS	2000
#define KBLOOM_TEST_BLOCK_K	8

static void one_block_per_key(struct kunit *test)
{
	const struct kbloom_test_type *t = test->param_value;
	const u32 keys = KBLOOM_TEST_BLOCK_KEYS, k = KBLOOM_TEST_BLOCK_K;
	/* A key block: a window's is P of the 64-byte blocks. */
	const u32 cells_per_block = kbloom_test_block_cells(t) *
				    kbloom_test_key_block(t);
	u32 spread = 0, wrong_block = 0, wrong_cells = 0, unused = 0;
	u32 cold = 0, hot = 0, not_new = 0;
	struct kbloom_test_key *key;
	struct kbloom_filter *f;
	u64 i, b, c, total = 0;
	u16 *uses, *cells;

	key = kunit_kzalloc(test, sizeof(*key), GFP_KERNEL);
	uses = kunit_kcalloc(test, KBLOOM_TEST_BLOCKS, sizeof(*uses),
			     GFP_KERNEL);
	cells = kunit_kcalloc(test, cells_per_block, sizeof(*cells),
			      GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, key);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, uses);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cells);
	f = kbloom_test_new(test, t, KBLOOM_TEST_BLOCKS, k, KBLOOM_TEST_SEED);

	for (i = 0; i < keys; i++) {
		u32 blocks = 0, set = 0, sum = 0, last = 0;

		kbloom_clear(f);
		kbloom_test_make_key(i, true, key);
		not_new += !kbloom_add(f, key->bytes, key->len);
		for (b = 0; b < KBLOOM_TEST_BLOCKS; b++) {
			u32 in_block = 0;

			for (c = 0; c < cells_per_block; c++) {
				u32 v = kbloom_test_cell(f, t,
							 b * cells_per_block + c);

				in_block += !!v;
				sum += v;
			}
			if (!in_block)
				continue;
			blocks++;
			last = b;
			set += in_block;
		}
		spread += blocks != 1;
		wrong_block += last != mul_u64_u64_shr(kbloom_hash(f, key->bytes,
								   key->len),
						       KBLOOM_TEST_BLOCKS, 64);
		wrong_cells += !set || sum > k ||
			       (kbloom_test_add_max(t) >= k && sum != k);
		total += set;
		uses[last]++;
		for (c = 0; c < cells_per_block; c++)
			cells[c] += !!kbloom_test_cell(f, t,
						       last * cells_per_block + c);
	}
	/* Tens of keys per block and per cell: never 0, never 3x. */
	for (b = 0; b < KBLOOM_TEST_BLOCKS; b++)
		unused += !uses[b];
	for (c = 0; c < cells_per_block; c++) {
		cold += !cells[c];
		hot += cells[c] > 3 * keys * k / cells_per_block;
	}
	KUNIT_EXPECT_EQ(test, not_new, 0U);
	KUNIT_EXPECT_EQ(test, spread, 0U);
	KUNIT_EXPECT_EQ(test, wrong_block, 0U);
	KUNIT_EXPECT_EQ(test, wrong_cells, 0U);
	KUNIT_EXPECT_EQ(test, unused, 0U);
	KUNIT_EXPECT_EQ(test, cold, 0U);
	KUNIT_EXPECT_EQ(test, hot, 0U);
	/* Coinciding cells cost C(k, 2) / cells a key on average; allow 3x. */
	KUNIT_EXPECT_GE(test, total, (u64)keys * k -
			3 * keys * (k * (k - 1) / 2) / cells_per_block);
}

/*
 * The cells a key takes, computed here from the uapi header's description
 * alone ("Where a key's cells are"), its constants written out: the
 * filter holding one key must hold exactly those.  k runs across one, two
 * and three draws for both cell widths.
 */
static void kbloom_test_documented_cells(const struct kbloom_test_type *t,
					 u64 h, u32 k, u8 *count)
{
	u32 bits = t->cell_bits == 4 ? 7 : 9, per = 64 / bits, j;
	u64 r = 0;

	for (j = 0; j < k; j++) {
		if (!(j % per)) {
			u64 x = h;

			if (j) {
				x ^= x >> 31;
				x *= 0xff51afd7ed558ccdULL + 2 * (j / per);
				x ^= x >> 29;
			}
			r = x * 0xd6e8feb86659fd93ULL;
		}
		count[r >> (64 - bits)]++;
		r <<= bits;
	}
}

static void cells_as_documented(struct kunit *test)
{
	static const u32 ks[] = { 1, 6, 7, 8, 9, 10, 16 };
	const struct kbloom_test_type *t = test->param_value;
	const u32 key_blocks = 5;
	/* Cells of a key block: 512, or 128 counters. */
	const u32 per_key_block = t->cell_bits == 4 ? 128 : 512;
	u32 i, n, c, wrong = 0, keys = 0;
	struct kbloom_test_key *key;
	u8 *count;

	key = kunit_kzalloc(test, sizeof(*key), GFP_KERNEL);
	count = kunit_kzalloc(test, per_key_block, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, key);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, count);
	for (i = 0; i < ARRAY_SIZE(ks); i++) {
		struct kbloom_filter *f = kbloom_test_new(test, t, key_blocks,
							  ks[i],
							  KBLOOM_TEST_SEED + i);

		for (n = 0; n < 64; n++, keys++) {
			u64 h, kb;

			kbloom_clear(f);
			kbloom_test_make_key(n, true, key);
			kbloom_add(f, key->bytes, key->len);
			h = kbloom_hash(f, key->bytes, key->len);
			kb = mul_u64_u64_shr(h, key_blocks, 64);
			memset(count, 0, per_key_block);
			kbloom_test_documented_cells(t, h, ks[i], count);
			for (c = 0; c < key_blocks * per_key_block; c++) {
				u32 got = kbloom_test_cell(f, t, c);
				u32 want = c / per_key_block != kb ? 0 :
					   count[c % per_key_block];

				/* Counters count; a bit or plane is set once. */
				want = t->cell_bits == 4 ?
				       min(want, kbloom_test_cell_max(t)) :
				       !!want;
				wrong += got != want;
			}
		}
	}
	KUNIT_EXPECT_EQ(test, keys, 64U * (u32)ARRAY_SIZE(ks));
	KUNIT_EXPECT_EQ(test, wrong, 0U);
}

/*
 * What a reader of a mapped filter runs: the same answers as the counted
 * checks, single and batched, and not a count or a cell changed.
 */
static void lookup_answers_as_check(struct kunit *test)
{
	const struct kbloom_test_type *t = test->param_value;
	struct kbloom_test_batch *b = kbloom_test_batch(test);
	struct kbloom_stats before, after;
	struct kbloom_filter *f;
	void *snap;
	u64 hits;

	f = kbloom_test_new(test, t, 64, 6, KBLOOM_TEST_SEED);
	kbloom_test_add_range(f, b, 0, 1000, true);
	snap = kbloom_test_snap(test, f);
	kbloom_get_stats(f, &before);

	/* Keys 0..999 are present, 1000..1999 mostly absent. */
	KUNIT_EXPECT_EQ(test, kbloom_test_both_ways(b, f, f, 0, 2000, 0,
						    kbloom_test_lookup_batch,
						    kbloom_test_lookup), 0);
	KUNIT_EXPECT_EQ(test, kbloom_test_range(f, b, 0, 1000, true,
						kbloom_test_lookup_batch),
			1000ULL);
	KUNIT_EXPECT_TRUE(test, kbloom_test_same(f, snap));
	kbloom_get_stats(f, &after);
	KUNIT_EXPECT_EQ(test, after.check_calls, before.check_calls);
	KUNIT_EXPECT_EQ(test, after.check_hits, before.check_hits);

	/* The counted check gives the same answers and counts them. */
	hits = kbloom_test_range(f, b, 900, 256, true, kbloom_test_lookup_batch);
	KUNIT_EXPECT_EQ(test, kbloom_test_both_ways(b, f, f, 900, 256, 0,
						    kbloom_check_batch,
						    kbloom_test_lookup), 0);
	kbloom_get_stats(f, &after);
	KUNIT_EXPECT_EQ(test, after.check_calls, before.check_calls + 512);
	KUNIT_EXPECT_EQ(test, after.check_hits, before.check_hits + 2 * hits);
}

/*
 * Merge and intersect, cell by cell: the sum stopping at the cell's
 * maximum (for one bit, or), and the lower (and); first over every pair of
 * cell values, then over filters of keys 0..1499 and 1000..2499.
 */
static void kbloom_test_expect_combined(struct kunit *test,
					const struct kbloom_test_type *t,
					const struct kbloom_filter *a,
					const struct kbloom_filter *x,
					const struct kbloom_filter *u,
					const struct kbloom_filter *in)
{
	u64 i, bad_sum = 0, bad_min = 0;

	for (i = 0; i < a->geo.nblocks * kbloom_test_block_cells(t); i++) {
		u32 ca = kbloom_test_cell(a, t, i), cx = kbloom_test_cell(x, t, i);

		bad_sum += kbloom_test_cell(u, t, i) !=
			   kbloom_test_union(t, ca, cx);
		bad_min += kbloom_test_cell(in, t, i) !=
			   kbloom_test_common(t, ca, cx);
	}
	KUNIT_EXPECT_EQ(test, bad_sum, 0ULL);
	KUNIT_EXPECT_EQ(test, bad_min, 0ULL);
}

static void merge_intersect(struct kunit *test)
{
	const struct kbloom_test_type *t = test->param_value;
	struct kbloom_test_batch *b = kbloom_test_batch(test);
	struct kbloom_filter *a, *x, *u, *in, *empty;
	u32 values = kbloom_test_cell_max(t) + 1;
	struct kbloom_stats st;
	size_t bytes;
	void *snap;
	u64 i;

	a = kbloom_test_new(test, t, 100, 7, KBLOOM_TEST_SEED);
	x = kbloom_test_new(test, t, 100, 7, KBLOOM_TEST_SEED);
	u = kbloom_test_new(test, t, 100, 7, KBLOOM_TEST_SEED);
	in = kbloom_test_new(test, t, 100, 7, KBLOOM_TEST_SEED);
	empty = kbloom_test_new(test, t, 100, 7, KBLOOM_TEST_SEED);
	bytes = kbloom_geometry_bytes(&a->geo);
	for (i = 0; i < a->geo.nblocks * kbloom_test_block_cells(t); i++) {
		u32 live = kbloom_test_cell_live(a, t);

		kbloom_test_set_cell(a, t, i,
				     i % (values * values) % values & live);
		kbloom_test_set_cell(x, t, i,
				     i % (values * values) / values & live);
	}
	memcpy(u->words, a->words, bytes);
	memcpy(in->words, a->words, bytes);
	KUNIT_EXPECT_TRUE(test, kbloom_compatible(u, x));
	KUNIT_ASSERT_EQ(test, kbloom_merge(u, x), 0);
	KUNIT_ASSERT_EQ(test, kbloom_intersect(in, x), 0);
	kbloom_test_expect_combined(test, t, a, x, u, in);

	kbloom_clear(a);
	kbloom_clear(x);
	kbloom_clear(u);
	kbloom_clear(in);
	kbloom_test_add_range(a, b, 0, 1500, true);
	kbloom_test_add_range(x, b, 1000, 1500, true);
	kbloom_test_add_range(u, b, 0, 1500, true);
	kbloom_test_add_range(in, b, 0, 1500, true);
	KUNIT_ASSERT_EQ(test, kbloom_merge(u, x), 0);
	KUNIT_ASSERT_EQ(test, kbloom_intersect(in, x), 0);
	kbloom_test_expect_combined(test, t, a, x, u, in);
	/* A union has had the adds of both. */
	kbloom_get_stats(u, &st);
	KUNIT_EXPECT_EQ(test, st.add_calls, 3000ULL);
	KUNIT_EXPECT_EQ(test, kbloom_test_check_range(u, b, 0, 2500, true),
			2500ULL);
	KUNIT_EXPECT_EQ(test, kbloom_test_check_range(in, b, 1000, 500, true),
			500ULL);

	/* With itself, either is the identity. */
	snap = kbloom_test_snap(test, u);
	KUNIT_EXPECT_EQ(test, kbloom_merge(u, u), 0);
	KUNIT_EXPECT_EQ(test, kbloom_intersect(u, u), 0);
	KUNIT_EXPECT_TRUE(test, kbloom_test_same(u, snap));

	/* The empty filter is the identity of union and the zero of meet. */
	snap = kbloom_test_snap(test, x);
	KUNIT_ASSERT_EQ(test, kbloom_merge(x, empty), 0);
	KUNIT_EXPECT_TRUE(test, kbloom_test_same(x, snap));
	KUNIT_ASSERT_EQ(test, kbloom_intersect(a, empty), 0);
	KUNIT_EXPECT_EQ(test, kbloom_test_popcount(a), 0ULL);

	/* The union's keys come out one side at a time. */
	if (!kbloom_test_deletes(test, t, u))
		return;
	KUNIT_EXPECT_EQ(test, kbloom_test_delete_range(u, b, 0, 1000, true),
			1000ULL);
	KUNIT_EXPECT_EQ(test, kbloom_test_check_range(u, b, 1000, 1500, true),
			1500ULL);
}

/* Filters that differ in blocks, k, seed or type never combine. */
static void merge_incompatible(struct kunit *test)
{
	const struct kbloom_test_type *t = test->param_value;
	/* Another type: the first, or the second for the first. */
	const struct kbloom_test_type *other =
		&kbloom_test_types[t == kbloom_test_types];
	struct kbloom_test_batch *b = kbloom_test_batch(test);
	struct kbloom_filter *dst, *others[4];
	struct kbloom_stats before, after;
	struct kbloom_geometry geo;
	void *snap;
	u32 i;

	dst = kbloom_test_new(test, t, 64, 7, KBLOOM_TEST_SEED);
	others[0] = kbloom_test_new(test, t, 65, 7, KBLOOM_TEST_SEED);
	others[1] = kbloom_test_new(test, t, 64, 8, KBLOOM_TEST_SEED);
	others[2] = kbloom_test_new(test, t, 64, 7, KBLOOM_TEST_SEED + 1);
	others[3] = kbloom_test_new(test, other, 64, 7, KBLOOM_TEST_SEED);
	kbloom_test_add_range(dst, b, 0, 500, true);
	for (i = 0; i < ARRAY_SIZE(others); i++)
		kbloom_test_add_range(others[i], b, 500, 500, true);
	kbloom_get_stats(dst, &before);
	snap = kbloom_test_snap(test, dst);

	for (i = 0; i < ARRAY_SIZE(others); i++) {
		void *other_snap = kbloom_test_snap(test, others[i]);

		KUNIT_EXPECT_FALSE(test, kbloom_compatible(dst, others[i]));
		KUNIT_EXPECT_FALSE(test, kbloom_compatible(others[i], dst));
		KUNIT_EXPECT_EQ(test, kbloom_merge(dst, others[i]), -EXDEV);
		KUNIT_EXPECT_EQ(test, kbloom_intersect(dst, others[i]), -EXDEV);
		KUNIT_EXPECT_EQ(test, kbloom_merge(others[i], dst), -EXDEV);
		KUNIT_EXPECT_EQ(test, kbloom_intersect(others[i], dst), -EXDEV);
		KUNIT_EXPECT_TRUE(test, kbloom_test_same(others[i],
							 other_snap));
	}
	KUNIT_EXPECT_TRUE(test, kbloom_test_same(dst, snap));
	kbloom_get_stats(dst, &after);
	KUNIT_EXPECT_EQ(test, after.add_calls, before.add_calls);
	KUNIT_EXPECT_EQ(test, after.add_new, before.add_new);

	/* Capacity and target rate are advice, not layout. */
	KUNIT_ASSERT_EQ(test, kbloom_geometry_from_bits_gen(&geo, t->type,
							    t->generations,
							    dst->geo.nblocks *
							    512, 7, 999), 0);
	geo.seed = KBLOOM_TEST_SEED;
	geo.fp_target_ppb = 12345;
	KUNIT_EXPECT_TRUE(test, kbloom_compatible(dst,
						  kbloom_test_filter(test,
								     &geo)));
}

static void clear_resets(struct kunit *test)
{
	const struct kbloom_test_type *t = test->param_value;
	struct kbloom_test_batch *b = kbloom_test_batch(test);
	struct kbloom_filter *f;
	struct kbloom_stats st;

	f = kbloom_test_new(test, t, 100, 7, KBLOOM_TEST_SEED);
	kbloom_test_add_range(f, b, 0, 3000, true);
	kbloom_test_check_range(f, b, 0, 3000, true);
	if (t->deletes)
		kbloom_test_delete_range(f, b, 0, 100, true);
	KUNIT_ASSERT_GT(test, kbloom_test_popcount(f), 0ULL);

	kbloom_clear(f);
	KUNIT_EXPECT_EQ(test, kbloom_test_popcount(f), 0ULL);
	KUNIT_EXPECT_EQ(test, kbloom_test_check_range(f, b, 0, 3000, true),
			0ULL);
	kbloom_get_stats(f, &st);
	KUNIT_EXPECT_EQ(test, st.add_calls, 0ULL);
	KUNIT_EXPECT_EQ(test, st.add_new, 0ULL);
	KUNIT_EXPECT_EQ(test, st.delete_calls, 0ULL);
	KUNIT_EXPECT_EQ(test, st.delete_hits, 0ULL);
	/* Only the checks made since the clear are counted. */
	KUNIT_EXPECT_EQ(test, st.check_calls, 3000ULL);
	KUNIT_EXPECT_EQ(test, st.check_hits, 0ULL);
	KUNIT_EXPECT_EQ(test, st.bits_set, 0ULL);

	/* The filter is as good as new. */
	KUNIT_EXPECT_GT(test, kbloom_test_add_range(f, b, 0, 3000, true), 0ULL);
	KUNIT_EXPECT_EQ(test, kbloom_test_check_range(f, b, 0, 3000, true),
			3000ULL);
}

/* Every added key deleted once, and once only: every cell back to 0. */
static void delete_all_empties(struct kunit *test)
{
	const struct kbloom_test_type *t = test->param_value;
	struct kbloom_test_batch *b = kbloom_test_batch(test);
	struct kbloom_filter *f;
	struct kbloom_stats st;

	f = kbloom_test_new(test, t, 400, 7, KBLOOM_TEST_SEED);
	kbloom_test_add_range(f, b, 0, 3000, true);
	KUNIT_ASSERT_EQ(test, kbloom_test_check_range(f, b, 0, 3000, true),
			3000ULL);
	KUNIT_ASSERT_GT(test, kbloom_test_cells(f, t, 0), 0ULL);
	if (!kbloom_test_deletes(test, t, f))
		return;

	KUNIT_EXPECT_EQ(test, kbloom_test_delete_range(f, b, 0, 3000, true),
			3000ULL);
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
 * A cell that reached its maximum has lost count, so it stays: 20 adds of
 * one key take its cells there, and 20 deletes, each reported as a
 * removal, leave them there and the key present.  A key added and deleted
 * three times leaves no trace, and a fourth delete finds nothing.
 */
static void sticky(struct kunit *test)
{
	const struct kbloom_test_type *t = test->param_value;
	struct kbloom_filter *f;
	u64 cells, at_max;
	u32 i, removed = 0;
	void *snap;

	f = kbloom_test_new(test, t, 1, 4, KBLOOM_TEST_SEED);
	for (i = 0; i < 20; i++)
		KUNIT_EXPECT_EQ(test, kbloom_add(f, "sticky", 6), !i);
	cells = kbloom_test_cells(f, t, 0);
	at_max = kbloom_test_cells(f, t, kbloom_test_add_max(t));
	KUNIT_ASSERT_GE(test, cells, 1ULL);
	KUNIT_EXPECT_LE(test, cells, 4ULL);
	KUNIT_EXPECT_EQ(test, at_max, cells);
	if (!kbloom_test_deletes(test, t, f))
		return;

	snap = kbloom_test_snap(test, f);
	for (i = 0; i < 20; i++)
		removed += kbloom_delete(f, "sticky", 6);
	KUNIT_EXPECT_EQ(test, removed, 20U);
	KUNIT_EXPECT_TRUE(test, kbloom_check(f, "sticky", 6));
	KUNIT_EXPECT_TRUE(test, kbloom_test_same(f, snap));

	for (i = 0; i < 3; i++)
		kbloom_add(f, "thrice", 6);
	for (removed = 0, i = 0; i < 3; i++)
		removed += kbloom_delete(f, "thrice", 6);
	KUNIT_EXPECT_EQ(test, removed, 3U);
	KUNIT_EXPECT_FALSE(test, kbloom_delete(f, "thrice", 6));
	KUNIT_EXPECT_TRUE(test, kbloom_test_same(f, snap));
}

/*
 * An absent key is reported so and its delete changes no cell; one that
 * only looks present (a false positive) is "removed", which is why only
 * added keys may be deleted.
 */
static void delete_absent(struct kunit *test)
{
	const struct kbloom_test_type *t = test->param_value;
	struct kbloom_test_batch *b = kbloom_test_batch(test);
	u32 i, absent = 0, changed = 0, fp = 0, fp_removed = 0;
	struct kbloom_filter *f;
	struct kbloom_stats st;
	void *snap;

	f = kbloom_test_new(test, t, 16, 5, KBLOOM_TEST_SEED);
	if (!kbloom_test_deletes(test, t, f))
		return;
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

	/* With keys in it, never-added keys, absent or not. */
	kbloom_test_add_range(f, b, 0, 200, true);
	snap = kbloom_test_snap(test, f);
	for (i = 0; i < 3000; i++) {
		bool looked, removed;

		kbloom_test_make_key(1000000 + i, true, &b->raw[0]);
		looked = kbloom_check(f, b->raw[0].bytes, b->raw[0].len);
		memcpy(snap, f->words, kbloom_geometry_bytes(&f->geo));
		removed = kbloom_delete(f, b->raw[0].bytes, b->raw[0].len);
		if (looked) {
			fp++;
			fp_removed += removed;
			/* Put it back for the next keys' sake. */
			kbloom_add(f, b->raw[0].bytes, b->raw[0].len);
		} else {
			absent++;
			changed += removed || !kbloom_test_same(f, snap);
		}
	}
	KUNIT_EXPECT_GT(test, absent, 2000U);
	KUNIT_EXPECT_GT(test, fp, 0U);
	KUNIT_EXPECT_EQ(test, changed, 0U);
	KUNIT_EXPECT_EQ(test, fp_removed, fp);
}

static struct kunit_case kbloom_ops_cases[] = {
	KBLOOM_TEST_CASE(xxh64_known_answer),
	KBLOOM_TEST_CASE(xxh64_inline_equals_called),
	KBLOOM_TEST_CASE(no_false_negatives),
	KBLOOM_TEST_CASE(batch_matches_single),
	KBLOOM_TEST_CASE(add_reports_new_bits),
	KBLOOM_TEST_CASE(add_new_in_mixed_words),
	KBLOOM_TEST_CASE(words_aligned),
	KBLOOM_TEST_CASE(one_block_per_key),
	KBLOOM_TEST_CASE(cells_as_documented),
	KBLOOM_TEST_CASE(lookup_answers_as_check),
	KBLOOM_TEST_CASE(merge_intersect),
	KBLOOM_TEST_CASE(merge_incompatible),
	KBLOOM_TEST_CASE(clear_resets),
	KBLOOM_TEST_CASE(delete_all_empties),
	KBLOOM_TEST_CASE(sticky),
	KBLOOM_TEST_CASE(delete_absent),
	{}
};

KBLOOM_TEST_SUITE("kbloom-ops", kbloom_ops_cases);

MODULE_DESCRIPTION("KUnit tests for the kbloom filter core");
MODULE_LICENSE("GPL");
