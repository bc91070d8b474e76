// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom-chain: scalable filters (kbloom_chain.h).  Parameters out of range
 * are refused with EINVAL, each alone; the schedule ends with E2BIG where
 * a capacity would overflow, where a rate falls below what sizing can
 * reach, and at KBLOOM_CHAIN_MAX_SUBS; its targets sum below the chain's
 * rate.  A chain of the bits and counting types grows as adds fill it,
 * never forgets a key by single or batched checks, refuses a new key with
 * EAGAIN when full and changes nothing then, undoes each add of a counting
 * chain with one delete in the sub-filter the key went to, reports each
 * sub-filter's statistics, clears back to one sub-filter, and merges with
 * a compatible
 * chain (EXDEV for each parameter that differs).  The accuracy at 1,000
 * times the capacity and the concurrent torture are host-only
 * (tests/host/test_chain.c): too many keys for UML.
 */
#include "kbloom_test.h"
#include "kbloom_chain.h"

static int kbloom_test_chain_init(struct kunit_resource *res, void *context)
{
	struct kbloom_chain *c;
	int ret;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	ret = kbloom_chain_init(c, context);
	if (ret) {
		kfree(c);
		return ret;
	}
	res->data = c;
	return 0;
}

static void kbloom_test_chain_free(struct kunit_resource *res)
{
	kbloom_chain_free(res->data);
	kfree(res->data);
}

/* A chain freed when the test case ends, however it ends. */
static struct kbloom_chain *
kbloom_test_chain(struct kunit *test, const struct kbloom_chain_params *cp)
{
	struct kbloom_chain *c;

	c = kunit_alloc_resource(test, kbloom_test_chain_init,
				 kbloom_test_chain_free, GFP_KERNEL,
				 (void *)cp);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, c);
	return c;
}

/* The types a chain takes: every type of the table but windows. */
static const void *kbloom_test_chain_types(KBLOOM_TEST_GEN_ARGS)
{
	const struct kbloom_test_type *t = prev ?
		(const struct kbloom_test_type *)prev + 1 : kbloom_test_types;

	for (; t < kbloom_test_types + ARRAY_SIZE(kbloom_test_types); t++)
		if (t->type != KBLOOM_TYPE_WINDOW) {
			kbloom_test_type_desc(t, desc);
			return t;
		}
	return NULL;
}

#define KBLOOM_TEST_CHAIN_CASE(fn) \
	KUNIT_CASE_PARAM(fn, kbloom_test_chain_types)

static struct kbloom_chain_params
kbloom_test_chain_params(const struct kbloom_test_type *t)
{
	return (struct kbloom_chain_params){
		.capacity = 1000, .seed = KBLOOM_TEST_SEED, .type = t->type,
		.fp_ppb = 10000000, .expansion = 2,
	};
}

/* Adds keys first .. first + n - 1, growing the chain when an add asks. */
static void kbloom_test_chain_feed(struct kunit *test, struct kbloom_chain *c,
				   u64 first, u64 n)
{
	struct kbloom_test_key k;
	u64 i;

	for (i = first; i < first + n; i++) {
		int ret;

		kbloom_test_make_key(i, false, &k);
		while ((ret = kbloom_chain_add(c, k.bytes, k.len)) == -EAGAIN)
			KUNIT_ASSERT_EQ(test, kbloom_chain_grow(c), 0);
		KUNIT_ASSERT_GE(test, ret, 0);
	}
}

/* Keys first .. first + n - 1 the chain does not find, singly and batched. */
static u64 kbloom_test_chain_missing(struct kunit *test,
				     const struct kbloom_chain *c,
				     u64 first, u64 n)
{
	struct kbloom_test_batch *b = kbloom_test_batch(test);
	u64 i, missing = 0;

	for (i = 0; i < n; i += KBLOOM_TEST_CHUNK) {
		u32 m = min_t(u64, n - i, KBLOOM_TEST_CHUNK), j;

		kbloom_test_fill(b, first + i, m, false);
		missing += m - kbloom_chain_lookup_batch(c, b->keys, m,
							 b->results);
		for (j = 0; j < m; j++)
			missing += !kbloom_chain_lookup(c, b->keys[j].data,
							b->keys[j].len);
	}
	return missing;
}

static u64 kbloom_test_chain_keys(const struct kbloom_chain *c)
{
	u64 sum = 0;
	u32 i;

	for (i = 0; i < kbloom_chain_subs(c); i++)
		sum += (u64)atomic64_read(&kbloom_chain_sub(c, i)->keys);
	return sum;
}

struct kbloom_test_chain_bad {
	const char *name;
	struct kbloom_chain_params cp;
};

static const struct kbloom_test_chain_bad kbloom_test_chain_bads[] = {
	{ "type_unknown", { 100, 0, KBLOOM_TYPE_WINDOW + 1, 10000000, 2 } },
	{ "capacity_0", { 0, 0, KBLOOM_TYPE_BITS, 10000000, 2 } },
	{ "fp_0", { 100, 0, KBLOOM_TYPE_BITS, 0, 2 } },
	{ "fp_1", { 100, 0, KBLOOM_TYPE_BITS, KBLOOM_PPB, 2 } },
	{ "expansion_0", { 100, 0, KBLOOM_TYPE_BITS, 10000000, 0 } },
	{ "expansion_17", { 100, 0, KBLOOM_TYPE_BITS, 10000000,
			    KBLOOM_EXPANSION_MAX + 1 } },
};

static void kbloom_test_chain_bad_desc(const struct kbloom_test_chain_bad *b,
				       char *desc)
{
	strscpy(desc, b->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kbloom_test_chain_bad, kbloom_test_chain_bads,
		  kbloom_test_chain_bad_desc);

static void params_rejected(struct kunit *test)
{
	const struct kbloom_test_chain_bad *b = test->param_value;
	struct kbloom_geometry geo;
	struct kbloom_chain c;
	u32 subs;
	u64 bytes, rate;

	KUNIT_EXPECT_EQ(test, kbloom_chain_init(&c, &b->cp), -EINVAL);
	KUNIT_EXPECT_TRUE(test, !c.subs);
	KUNIT_EXPECT_EQ(test, kbloom_chain_sub_geometry(&geo, &b->cp, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, geo.nblocks, 0ULL);
	KUNIT_EXPECT_EQ(test, kbloom_chain_max_subs(&b->cp), 0U);
	KUNIT_EXPECT_EQ(test, kbloom_chain_plan(&b->cp, 10, &subs, &bytes,
						&rate), -EINVAL);
}

/*
 * The schedule ends where capacity * expansion^i would pass 2^64 - 1:
 * from 1 with expansion 2, 2^63 is the last capacity; with 16, 16^15.
 */
static void schedule_ends(struct kunit *test)
{
	static const struct {
		u64 capacity;
		u32 expansion;
		u32 max_subs;
	} ends[] = {
		{ 1, 1, KBLOOM_CHAIN_MAX_SUBS },
		{ 1, 2, 64 },
		{ 1, 16, 16 },
		{ 1ULL << 40, 16, 6 },
	};
	struct kbloom_geometry geo;
	u32 i;

	for (i = 0; i < ARRAY_SIZE(ends); i++) {
		const struct kbloom_chain_params cp = {
			.capacity = ends[i].capacity, .type = KBLOOM_TYPE_BITS,
			.fp_ppb = 10000000, .expansion = ends[i].expansion,
		};

		KUNIT_EXPECT_EQ_MSG(test, kbloom_chain_max_subs(&cp),
				    ends[i].max_subs, "row %u", i);
		KUNIT_EXPECT_EQ_MSG(test,
				    kbloom_chain_sub_geometry(&geo, &cp,
							      ends[i].max_subs),
				    -E2BIG, "row %u", i);
	}
}

/* The targets of all 1024 sub-filters sum below the chain's rate. */
static void schedule_sum_below_target(struct kunit *test)
{
	static const u32 rates[] = { 1, 999, 1000000, 10000000, 999999999 };
	u32 p, i;

	for (p = 0; p < ARRAY_SIZE(rates); p++) {
		u64 sum = 0;

		for (i = 0; i < KBLOOM_CHAIN_MAX_SUBS; i++)
			sum += kbloom_chain_sub_target_ppb16(rates[p], i);
		KUNIT_EXPECT_TRUE_MSG(test, sum < (u64)rates[p] << 16,
				      "rate %u ppb: targets sum to %llu",
				      rates[p], sum);
	}
}

/* Every type of the table: a chain of a window is refused with EINVAL. */
static void takes_bits_and_counting(struct kunit *test)
{
	const struct kbloom_test_type *t = test->param_value;
	struct kbloom_chain_params cp = kbloom_test_chain_params(t);
	struct kbloom_chain c;
	int ret = kbloom_chain_init(&c, &cp);

	if (t->type == KBLOOM_TYPE_WINDOW) {
		KUNIT_EXPECT_EQ(test, ret, -EINVAL);
		KUNIT_EXPECT_TRUE(test, !c.subs);
		return;
	}
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, kbloom_chain_subs(&c), 1U);
	KUNIT_EXPECT_EQ(test, kbloom_chain_sub(&c, 0)->f.geo.type, t->type);
	kbloom_chain_free(&c);
}

/*
 * A chain of 1 ppb: sub-filter 255's target, 65536 / (256 * 257) ppb << 16,
 * is 0, so the chain grows 254 times and then says E2BIG, unchanged.  A
 * capacity of 1 keeps each sub-filter one block: one key in 512 bits
 * with 16 probes answers "maybe" at about 1e-24.
 */
static void grow_past_reach(struct kunit *test)
{
	const struct kbloom_chain_params cp = {
		.capacity = 1, .type = KBLOOM_TYPE_BITS, .fp_ppb = 1,
		.expansion = 1,
	};
	struct kbloom_chain *c = kbloom_test_chain(test, &cp);
	struct kbloom_geometry geo;
	u32 grown = 0;
	int ret;

	KUNIT_EXPECT_EQ(test, kbloom_chain_sub_geometry(&geo, &cp, 254), 0);
	KUNIT_EXPECT_EQ(test, kbloom_chain_sub_geometry(&geo, &cp, 255),
			-E2BIG);
	while (grown < 300 && !(ret = kbloom_chain_grow(c)))
		grown++;
	KUNIT_EXPECT_EQ(test, ret, -E2BIG);
	KUNIT_EXPECT_EQ(test, grown, 254U);
	KUNIT_EXPECT_EQ(test, kbloom_chain_subs(c), 255U);
}

/*
 * 20,000 keys into a first capacity of 1,000 doubling: 5 sub-filters, none
 * past its capacity, every key found, and the statistics say so.
 */
static void grows_and_finds(struct kunit *test)
{
	const struct kbloom_test_type *t = test->param_value;
	const struct kbloom_chain_params cp = kbloom_test_chain_params(t);
	struct kbloom_chain *c = kbloom_test_chain(test, &cp);
	struct kbloom_test_key k;
	u32 i;

	kbloom_test_chain_feed(test, c, 0, 20000);
	KUNIT_EXPECT_EQ(test, kbloom_chain_subs(c), 5U);
	KUNIT_EXPECT_EQ(test, kbloom_test_chain_missing(test, c, 0, 20000),
			0ULL);
	for (i = 0; i < kbloom_chain_subs(c); i++) {
		const struct kbloom_filter *f = &kbloom_chain_sub(c, i)->f;
		struct kbloom_chain_sub_stats st;
		struct kbloom_cell_stats cs;

		kbloom_chain_sub_stats(c, i, NULL, &st);
		kbloom_scan_cells(f, &cs);
		KUNIT_EXPECT_EQ(test, st.capacity, 1000ULL << i);
		KUNIT_EXPECT_LE(test, st.keys, st.capacity);
		KUNIT_EXPECT_EQ(test, st.keys,
				(u64)atomic64_read(&kbloom_chain_sub(c, i)->keys));
		KUNIT_EXPECT_EQ(test, st.k, f->geo.k);
		KUNIT_EXPECT_EQ(test, st.bytes, kbloom_geometry_bytes(&f->geo));
		KUNIT_EXPECT_EQ(test, st.fill_ppb, cs.fill_ppb);
		KUNIT_EXPECT_EQ(test, st.fp_now_ppb, cs.fp_now_ppb);
		KUNIT_EXPECT_LE(test, (u64)st.fp_target_ppb << 16,
				kbloom_chain_sub_target_ppb16(cp.fp_ppb, i) +
				0xffff);
	}
	KUNIT_EXPECT_LT(test, kbloom_chain_fp_now_ppb(c), cp.fp_ppb);
	/* A key already there is not new, full chain or not. */
	kbloom_test_make_key(7, false, &k);
	KUNIT_EXPECT_EQ(test, kbloom_chain_add(c, k.bytes, k.len), 0);
}

/* A new key to a full chain: EAGAIN, and nothing changed. */
static void full_refuses_new_keys(struct kunit *test)
{
	const struct kbloom_test_type *t = test->param_value;
	const struct kbloom_chain_params cp = kbloom_test_chain_params(t);
	struct kbloom_chain *c = kbloom_test_chain(test, &cp);
	struct kbloom_test_key k;
	u64 i, keys;
	int ret = 0;

	for (i = 0; ret >= 0; i++) {
		kbloom_test_make_key(i, false, &k);
		ret = kbloom_chain_add(c, k.bytes, k.len);
	}
	KUNIT_EXPECT_EQ(test, ret, -EAGAIN);
	KUNIT_EXPECT_TRUE(test, kbloom_chain_full(c));
	KUNIT_EXPECT_EQ(test, kbloom_chain_subs(c), 1U);
	keys = kbloom_test_chain_keys(c);
	KUNIT_EXPECT_EQ(test, keys, cp.capacity);
	KUNIT_EXPECT_FALSE(test, kbloom_chain_lookup(c, k.bytes, k.len));
	KUNIT_EXPECT_EQ(test, kbloom_chain_add(c, k.bytes, k.len), -EAGAIN);
	KUNIT_EXPECT_EQ(test, kbloom_test_chain_keys(c), keys);
	KUNIT_ASSERT_EQ(test, kbloom_chain_grow(c), 0);
	KUNIT_EXPECT_FALSE(test, kbloom_chain_full(c));
	KUNIT_EXPECT_EQ(test, kbloom_chain_add(c, k.bytes, k.len), 1);
	KUNIT_EXPECT_TRUE(test, kbloom_chain_lookup(c, k.bytes, k.len));
}

/*
 * Every key added once, the first 2,000 twice, over 5 sub-filters; then
 * each deleted as often as it was added.  Every delete removes, no key
 * still there is lost, and at the end every sub-filter is empty: each add
 * was undone in the sub-filter it went to, its home.  A bits chain
 * deletes nothing.
 */
static void delete_undoes_adds(struct kunit *test)
{
	const struct kbloom_test_type *t = test->param_value;
	const struct kbloom_chain_params cp = kbloom_test_chain_params(t);
	struct kbloom_chain *c = kbloom_test_chain(test, &cp);
	struct kbloom_test_key k;
	u64 i, failed = 0;
	u32 s;

	kbloom_test_chain_feed(test, c, 0, 20000);
	kbloom_test_chain_feed(test, c, 0, 2000);
	KUNIT_ASSERT_EQ(test, kbloom_chain_subs(c), 5U);
	kbloom_test_make_key(0, false, &k);
	if (t->type != KBLOOM_TYPE_COUNTING) {
		KUNIT_EXPECT_FALSE(test, kbloom_chain_delete(c, k.bytes, k.len));
		KUNIT_EXPECT_TRUE(test, kbloom_chain_lookup(c, k.bytes, k.len));
		return;
	}
	for (i = 0; i < 2000; i++) {
		kbloom_test_make_key(i, false, &k);
		failed += !kbloom_chain_delete(c, k.bytes, k.len);
	}
	KUNIT_EXPECT_EQ(test, failed, 0ULL);
	KUNIT_EXPECT_EQ(test, kbloom_test_chain_missing(test, c, 0, 20000),
			0ULL);
	for (i = 0; i < 20000; i++) {
		kbloom_test_make_key(i, false, &k);
		failed += !kbloom_chain_delete(c, k.bytes, k.len);
	}
	KUNIT_EXPECT_EQ(test, failed, 0ULL);
	for (s = 0; s < kbloom_chain_subs(c); s++) {
		struct kbloom_chain_sub_stats st;

		kbloom_chain_sub_stats(c, s, NULL, &st);
		KUNIT_EXPECT_EQ_MSG(test, st.fill_ppb, 0U, "sub-filter %u", s);
	}
}

/* clear: one sub-filter again, empty, and it grows again. */
static void clear_back_to_one(struct kunit *test)
{
	const struct kbloom_test_type *t = test->param_value;
	const struct kbloom_chain_params cp = kbloom_test_chain_params(t);
	struct kbloom_chain *c = kbloom_test_chain(test, &cp);
	struct kbloom_chain_sub_stats st;

	kbloom_test_chain_feed(test, c, 0, 5000);
	KUNIT_EXPECT_EQ(test, kbloom_chain_subs(c), 3U);
	kbloom_chain_clear(c);
	KUNIT_EXPECT_EQ(test, kbloom_chain_subs(c), 1U);
	kbloom_chain_sub_stats(c, 0, NULL, &st);
	KUNIT_EXPECT_EQ(test, st.keys, 0ULL);
	KUNIT_EXPECT_EQ(test, st.fill_ppb, 0U);
	KUNIT_EXPECT_EQ(test, kbloom_chain_fp_now_ppb(c), 0U);
	kbloom_test_chain_feed(test, c, 0, 5000);
	KUNIT_EXPECT_EQ(test, kbloom_chain_subs(c), 3U);
	KUNIT_EXPECT_EQ(test, kbloom_test_chain_missing(test, c, 0, 5000),
			0ULL);
}

/*
 * merge: a bits chain of 3 sub-filters takes one of 6 and finds the keys
 * of both, their counts summed; into itself it changes nothing; a chain
 * that differs in any one parameter is refused with EXDEV and changes
 * nothing.  A counting chain takes no merge at all (EOPNOTSUPP, first):
 * each of those merges changes nothing.
 */
static void merge_compatible(struct kunit *test)
{
	const struct kbloom_test_type *t = test->param_value;
	const struct kbloom_chain_params cp = kbloom_test_chain_params(t);
	struct kbloom_chain *a = kbloom_test_chain(test, &cp);
	struct kbloom_chain *b = kbloom_test_chain(test, &cp);
	bool counting = t->type == KBLOOM_TYPE_COUNTING;
	int refused = counting ? -EOPNOTSUPP : 0;
	u64 keys;
	u32 bad;

	kbloom_test_chain_feed(test, a, 0, 5000);
	kbloom_test_chain_feed(test, b, 100000, 50000);
	for (bad = 0; bad < 5; bad++) {
		struct kbloom_chain_params o = cp;
		struct kbloom_chain *x;

		o.capacity += bad == 0;
		o.seed += bad == 1;
		if (bad == 2)
			o.type = counting ? KBLOOM_TYPE_BITS :
					    KBLOOM_TYPE_COUNTING;
		o.fp_ppb += bad == 3;
		o.expansion += bad == 4;
		x = kbloom_test_chain(test, &o);
		kbloom_test_chain_feed(test, x, 100000, 5000);
		KUNIT_EXPECT_EQ_MSG(test, kbloom_chain_merge(a, x),
				    refused ?: -EXDEV,
				    "parameter %u differs", bad);
		KUNIT_EXPECT_EQ(test, kbloom_chain_subs(a), 3U);
	}
	keys = kbloom_test_chain_keys(a);
	if (!counting)
		keys += kbloom_test_chain_keys(b);
	if (counting)
		KUNIT_EXPECT_EQ(test, kbloom_chain_merge_subs(a, b, 3),
				-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, kbloom_chain_merge(a, b), refused);
	KUNIT_EXPECT_EQ(test, kbloom_chain_subs(a), counting ? 3U : 6U);
	KUNIT_EXPECT_EQ(test, kbloom_test_chain_keys(a), keys);
	KUNIT_EXPECT_EQ(test, kbloom_test_chain_missing(test, a, 0, 5000),
			0ULL);
	if (!counting)
		KUNIT_EXPECT_EQ(test,
				kbloom_test_chain_missing(test, a, 100000,
							  50000), 0ULL);
	else
		KUNIT_EXPECT_GT(test,
				kbloom_test_chain_missing(test, a, 100000,
							  50000), 49000ULL);
	KUNIT_EXPECT_EQ(test, kbloom_chain_merge(a, a), refused);
	KUNIT_EXPECT_EQ(test, kbloom_test_chain_keys(a), keys);
}

/* The image of c's sub-filters now, emitted 777 bytes at a time. */
static u8 *kbloom_test_chain_image(struct kunit *test,
				   const struct kbloom_chain *c, size_t *len)
{
	const struct kbloom_counts counts = { .add_calls = 7, .add_new = 5 };
	struct kbloom_image_cursor cur;
	size_t done = 0, got;
	u8 *img;

	*len = kbloom_chain_image_bytes(c, kbloom_chain_subs(c));
	img = kunit_kzalloc(test, *len + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, img);
	kbloom_chain_image_start(c, &counts, &cur);
	do {
		got = kbloom_chain_image_emit(c, &cur, img + done,
					      min_t(size_t, 777,
						    *len + 1 - done));
		done += got;
	} while (got && done <= *len);
	KUNIT_EXPECT_EQ(test, done, *len);
	return img;
}

/* Validates img into c, grows or truncates c to its sub-filters, applies. */
static int kbloom_test_chain_load(struct kunit *test, struct kbloom_chain *c,
				  const u8 *img, size_t len)
{
	struct kbloom_counts counts;
	u32 subs;
	int ret;

	ret = kbloom_chain_image_validate(c, img, len, &subs);
	if (ret)
		return ret;
	while (c->nsubs < subs)
		KUNIT_ASSERT_EQ(test, kbloom_chain_grow(c), 0);
	kbloom_chain_free_subs(kbloom_chain_truncate(c, subs));
	kbloom_chain_image_apply(c, img, &counts);
	KUNIT_EXPECT_EQ(test, counts.add_calls, 7ULL);
	KUNIT_EXPECT_EQ(test, counts.add_new, 5ULL);
	return 0;
}

/*
 * Images of version 4: a chain of 3 sub-filters loads into one of 1 (which
 * grows) and one of 5 (which drops 2), each then equal to it cell for
 * cell and key count for key count, every key found; a second image of
 * the loaded chain is the first byte for byte.
 */
static void image_round_trip(struct kunit *test)
{
	const struct kbloom_test_type *t = test->param_value;
	const struct kbloom_chain_params cp = kbloom_test_chain_params(t);
	struct kbloom_chain *a = kbloom_test_chain(test, &cp);
	u32 into, i;

	kbloom_test_chain_feed(test, a, 0, 5000);
	KUNIT_ASSERT_EQ(test, kbloom_chain_subs(a), 3U);
	for (into = 1; into <= 5; into += 4) {
		struct kbloom_chain *b = kbloom_test_chain(test, &cp);
		size_t len, len2;
		u8 *img, *img2;

		img = kbloom_test_chain_image(test, a, &len);
		kbloom_test_chain_feed(test, b, 1000000, 0);
		while (b->nsubs < into)
			KUNIT_ASSERT_EQ(test, kbloom_chain_grow(b), 0);
		KUNIT_ASSERT_EQ(test, kbloom_test_chain_load(test, b, img, len),
				0);
		KUNIT_EXPECT_EQ(test, kbloom_chain_subs(b), 3U);
		for (i = 0; i < 3; i++) {
			const struct kbloom_filter *fa = &kbloom_chain_sub(a, i)->f;
			size_t bytes = fa->geo.nblocks * KBLOOM_BLOCK_BYTES;

			KUNIT_EXPECT_EQ(test, atomic64_read(&kbloom_chain_sub(b, i)->keys),
					atomic64_read(&kbloom_chain_sub(a, i)->keys));
			KUNIT_EXPECT_TRUE(test, !memcmp(fa->words,
							kbloom_chain_sub(b, i)->f.words,
							bytes));
		}
		KUNIT_EXPECT_EQ(test, kbloom_test_chain_missing(test, b, 0,
								5000), 0ULL);
		img2 = kbloom_test_chain_image(test, b, &len2);
		KUNIT_EXPECT_EQ(test, len2, len);
		KUNIT_EXPECT_TRUE(test, !memcmp(img, img2, len));
	}
}

struct kbloom_test_chain_corrupt {
	const char *name;
	size_t at;		/* byte offset, or ~0: see len_delta */
	u64 value;		/* stored little-endian, width bytes */
	u32 width;
	int err;
	bool early;		/* the header alone shows it */
};

#define KT_HDR(field) offsetof(struct kbloom_image_header, field)
#define KT_WIN		sizeof(struct kbloom_image_header)
#define KT_CHAIN	(KT_WIN + sizeof(struct kbloom_image_window))
#define KT_SUB(i, field) (KT_CHAIN + sizeof(struct kbloom_image_chain) + \
			  (i) * sizeof(struct kbloom_image_subfilter) + \
			  offsetof(struct kbloom_image_subfilter, field))

/*
 * One field of a good image (3 sub-filters, bits, capacity 1000, 1 %,
 * expansion 2) changed, and the errno each change must meet.
 */
static const struct kbloom_test_chain_corrupt kbloom_test_chain_corrupts[] = {
	{ "magic", KT_HDR(magic), 0x4d4c424c, 4, -ENOEXEC, true },
	{ "version_3", KT_HDR(version), KBLOOM_IMAGE_VERSION, 2, -EXDEV, true },
	{ "version_2", KT_HDR(version), 2, 2, -EPROTO, true },
	{ "version_5", KT_HDR(version), 5, 2, -EPROTO, true },
	{ "flags", KT_HDR(flags), 1, 4, -EINVAL, true },
	{ "reserved", KT_HDR(reserved), 1, 8, -EINVAL, true },
	{ "k", KT_HDR(k), 3, 4, -EINVAL },
	{ "k_0", KT_HDR(k), 0, 4, -EINVAL, true },
	{ "type_window", KT_HDR(type), KBLOOM_TYPE_WINDOW, 4, -EINVAL, true },
	{ "type_unknown", KT_HDR(type), 9, 4, -EINVAL, true },
	{ "type_other", KT_HDR(type), KBLOOM_TYPE_COUNTING, 4, -EXDEV, true },
	{ "seed", KT_HDR(seed), 1, 8, -EXDEV, true },
	{ "capacity", KT_HDR(capacity), 1001, 8, -EXDEV, true },
	{ "fp", KT_HDR(fp_target_ppb), 10000001, 4, -EXDEV, true },
	{ "fp_1", KT_HDR(fp_target_ppb), KBLOOM_PPB, 4, -EINVAL, true },
	{ "nblocks_0", KT_HDR(nblocks), 0, 8, -EINVAL, true },
	{ "nblocks_less", KT_HDR(nblocks), 1, 8, -EINVAL },
	{ "header_bytes_odd", KT_HDR(header_bytes), KT_CHAIN + 40, 2,
	  -EINVAL },
	{ "header_bytes_no_sub", KT_HDR(header_bytes), KT_CHAIN + 32, 2,
	  -EINVAL },
	{ "header_bytes_v3", KT_HDR(header_bytes), KT_CHAIN, 2, -EINVAL },
	{ "header_bytes_max", KT_HDR(header_bytes),
	  KT_CHAIN + 32 + (KBLOOM_CHAIN_MAX_SUBS + 1) * 32, 2, -EINVAL },
	{ "window", KT_WIN + 4, 1, 4, -EINVAL },
	{ "expansion", KT_CHAIN, 3, 4, -EXDEV },
	{ "subfilters", KT_CHAIN + 4, 2, 4, -EINVAL },
	{ "chain_reserved", KT_CHAIN + 8, 1, 8, -EINVAL },
	{ "sub_nblocks", KT_SUB(1, nblocks), 1, 8, -EINVAL },
	{ "sub_seed", KT_SUB(2, seed), 1, 8, -EINVAL },
	{ "sub_k", KT_SUB(0, k), 2, 4, -EINVAL },
	{ "sub_reserved", KT_SUB(2, reserved), 1, 4, -EINVAL },
	{ "crc", KT_SUB(0, keys), 1, 8, -EBADMSG },
	{ "cells", KT_SUB(2, reserved) + 100, 0xff, 1, -EBADMSG },
};

static void
kbloom_test_chain_corrupt_desc(const struct kbloom_test_chain_corrupt *c,
			       char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kbloom_test_chain_corrupt, kbloom_test_chain_corrupts,
		  kbloom_test_chain_corrupt_desc);

static void kbloom_test_put_le(u8 *p, u64 v, u32 width)
{
	u32 i;

	for (i = 0; i < width; i++)
		p[i] = v >> (8 * i);
}

/*
 * Each corruption alone is refused with its errno by validate, and by
 * check_header already where the header shows it; the chain is unchanged
 * (its image the same bytes).  A fixed filter's check calls any version 4
 * image EXDEV; a short image is ENODATA, a long one EMSGSIZE.
 */
static void image_rejected(struct kunit *test)
{
	const struct kbloom_test_chain_corrupt *bad = test->param_value;
	const size_t head = KBLOOM_CHAIN_IMAGE_HEAD;
	const struct kbloom_chain_params cp =
		kbloom_test_chain_params(&kbloom_test_types[0]);
	struct kbloom_chain *c = kbloom_test_chain(test, &cp);
	size_t len, len2;
	u8 *img, *img2;
	u32 subs;
	u64 bytes;
	int err;

	KUNIT_ASSERT_EQ(test, kbloom_test_types[0].type, KBLOOM_TYPE_BITS);
	kbloom_test_chain_feed(test, c, 0, 5000);
	KUNIT_ASSERT_EQ(test, kbloom_chain_subs(c), 3U);
	img = kbloom_test_chain_image(test, c, &len);
	KUNIT_EXPECT_EQ(test, kbloom_chain_image_validate(c, img, len, &subs),
			0);
	KUNIT_EXPECT_EQ(test, subs, 3U);
	KUNIT_EXPECT_EQ(test, kbloom_chain_image_validate(c, img, len - 1,
							  &subs), -ENODATA);
	KUNIT_EXPECT_EQ(test, kbloom_chain_image_validate(c, img, len + 1,
							  &subs), -EMSGSIZE);
	KUNIT_EXPECT_EQ(test, kbloom_image_check_header(&kbloom_chain_sub(c, 0)->f, img,
							len), -EXDEV);
	kbloom_test_put_le(img + bad->at, bad->value, bad->width);
	err = kbloom_chain_image_validate(c, img, len, &subs);
	KUNIT_EXPECT_EQ(test, err, bad->err);
	/*
	 * The header and chain parts: all but the window part (judged with
	 * the descriptors, at the end) and the descriptors.
	 */
	if (bad->at < head && bad->at != KT_WIN + 4 && bad->err != -EBADMSG)
		KUNIT_EXPECT_EQ(test,
				kbloom_chain_image_check_header(c, img, head,
								&subs, &bytes),
				bad->err);
	/* The header alone: what it shows, else ENODATA for the rest. */
	if (bad->at < KT_WIN && bad->err != -EBADMSG)
		KUNIT_EXPECT_EQ(test,
				kbloom_chain_image_check_header(c, img, KT_WIN,
								&subs, &bytes),
				bad->early ? bad->err : -ENODATA);
	img2 = kbloom_test_chain_image(test, c, &len2);
	kbloom_test_put_le(img2 + bad->at, bad->value, bad->width);
	KUNIT_EXPECT_TRUE(test, len2 == len && !memcmp(img, img2, len));
}

static struct kunit_case kbloom_chain_cases[] = {
	KUNIT_CASE_PARAM(params_rejected, kbloom_test_chain_bad_gen_params),
	KUNIT_CASE(schedule_ends),
	KUNIT_CASE(schedule_sum_below_target),
	KBLOOM_TEST_CASE(takes_bits_and_counting),
	KUNIT_CASE(grow_past_reach),
	KBLOOM_TEST_CHAIN_CASE(grows_and_finds),
	KBLOOM_TEST_CHAIN_CASE(full_refuses_new_keys),
	KBLOOM_TEST_CHAIN_CASE(delete_undoes_adds),
	KBLOOM_TEST_CHAIN_CASE(clear_back_to_one),
	KBLOOM_TEST_CHAIN_CASE(merge_compatible),
	KBLOOM_TEST_CHAIN_CASE(image_round_trip),
	KUNIT_CASE_PARAM(image_rejected, kbloom_test_chain_corrupt_gen_params),
	{}
};

KBLOOM_TEST_SUITE("kbloom-chain", kbloom_chain_cases);
