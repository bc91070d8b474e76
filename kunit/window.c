// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom-window: what only a window filter does, at every width of cell
 * (P = 4 .. 64 planes): its keys stay for g - 1 rotations and go at the
 * g-th, a rotation retires exactly one plane and clears it, rotations by
 * count come due at the add that fills the current generation, and merge,
 * intersect and images keep generations by age.  What windows share with
 * the other types (no false negatives, batches, images, rejections) runs
 * in the typed suites, the window being a row of kbloom_test_types[].
 */
#include "kbloom_test.h"

/* Generations worth testing: each P, and the largest g of each P. */
static const u32 kbloom_test_gens[] = { 2, 3, 4, 7, 8, 16, 31, 63 };

static void kbloom_test_gens_desc(const u32 *g, char *desc)
{
	scnprintf(desc, KUNIT_PARAM_DESC_SIZE, "g%u", *g);
}

KUNIT_ARRAY_PARAM(kbloom_test_gens, kbloom_test_gens, kbloom_test_gens_desc);

/* Keys per generation in these cases, far below the filter's capacity. */
#define KBLOOM_TEST_GEN_KEYS	300

/* A window of g generations, 64 key blocks of 512 cells, k = 7. */
static struct kbloom_filter *kbloom_test_window(struct kunit *test, u32 g,
						u64 seed)
{
	u32 order = kbloom_plane_order(g);
	struct kbloom_geometry geo;

	KUNIT_ASSERT_EQ(test, kbloom_geometry_from_bits_gen(&geo,
							    KBLOOM_TYPE_WINDOW,
							    g,
							    (64ULL << order) *
							    512, 7, 0), 0);
	KUNIT_ASSERT_EQ(test, geo.plane_order, order);
	KUNIT_ASSERT_EQ(test, geo.nblocks, 64ULL << order);
	geo.seed = seed;
	return kbloom_test_filter(test, &geo);
}

/* Bits set in one plane, over every cell. */
static u64 kbloom_test_plane_bits(const struct kbloom_filter *f, u32 plane)
{
	u32 width = 1U << f->geo.plane_order, s;
	u64 i, n = 0, mask = 0;

	for (s = plane; s < 64; s += width)
		mask |= 1ULL << s;
	for (i = 0; i < kbloom_test_words(f); i++)
		n += hweight64(f->words[i] & mask);
	return n;
}

/* The planes: g live, cur among them, one spare, its bits all clear. */
static void kbloom_test_expect_planes(struct kunit *test,
				      const struct kbloom_filter *f)
{
	u32 g = f->geo.generations, spare = (f->win.cur + 1) % (g + 1), a;

	KUNIT_EXPECT_EQ(test, hweight64(f->win.live), g);
	KUNIT_EXPECT_TRUE(test, f->win.live & BIT_ULL(f->win.cur));
	KUNIT_EXPECT_FALSE(test, f->win.live & BIT_ULL(spare));
	KUNIT_EXPECT_EQ(test, f->win.live & ~GENMASK_ULL(g, 0), 0ULL);
	KUNIT_EXPECT_EQ(test, kbloom_test_plane_bits(f, spare), 0ULL);
	for (a = 0; a < g; a++)
		KUNIT_EXPECT_TRUE(test, f->win.live &
					BIT_ULL(kbloom_window_plane(f, a)));
	KUNIT_EXPECT_EQ(test, kbloom_window_plane(f, 0), f->win.cur);
}

/*
 * Generation j gets keys j * N .. j * N + N - 1, then a rotation.  After
 * each, every generation younger than g is whole (an exact set: no false
 * negative), and the keys of generation j - g are gone but for false
 * positives, of which these sizes allow a few.
 */
static void keys_live_g_minus_1_rotations(struct kunit *test)
{
	const u32 g = *(const u32 *)test->param_value;
	struct kbloom_test_batch *b = kbloom_test_batch(test);
	const u64 n = KBLOOM_TEST_GEN_KEYS;
	struct kbloom_filter *f = kbloom_test_window(test, g, KBLOOM_TEST_SEED);
	u64 j, a, expired_hits = 0, expired = 0;

	kbloom_test_expect_planes(test, f);
	for (j = 0; j < g + 3; j++) {
		KUNIT_EXPECT_EQ(test, kbloom_test_add_range(f, b, j * n, n,
							    false), n);
		for (a = 0; a <= j && a < g; a++)
			KUNIT_EXPECT_EQ_MSG(test,
					    kbloom_test_check_range(f, b,
								    (j - a) * n,
								    n, false),
					    n, "age %llu after %llu rotations",
					    a, j);
		KUNIT_EXPECT_EQ(test, kbloom_window_rotate(f), 0);
		KUNIT_EXPECT_EQ(test, f->win.rotations, j + 1);
		kbloom_test_expect_planes(test, f);
		/* The generation just retired holds nothing any more. */
		if (j + 1 >= g) {
			expired_hits += kbloom_test_check_range(f, b,
								(j + 1 - g) * n,
								n, false);
			expired += n;
		}
	}
	/*
	 * 300 keys per generation in 64 blocks of 512 cells, k = 7: each
	 * generation's rate is about 1e-8 (4.7 keys, 33 of 512 cells set per
	 * block), so even 63 of them should find none; allow 1 in 10^4.
	 */
	KUNIT_EXPECT_LE_MSG(test, expired_hits * 10000, expired,
			    "%llu of %llu expired keys still found",
			    expired_hits, expired);
}

/* A rotation changes no live plane's bits, only the one it retires. */
static void rotation_clears_one_plane(struct kunit *test)
{
	const u32 g = *(const u32 *)test->param_value;
	struct kbloom_test_batch *b = kbloom_test_batch(test);
	struct kbloom_filter *f = kbloom_test_window(test, g, KBLOOM_TEST_SEED);
	u64 before[KBLOOM_IMAGE_PLANES];
	u32 j, p, retired;

	for (j = 0; j < g; j++) {
		kbloom_test_add_range(f, b, j * 1000, 200 + j, false);
		KUNIT_ASSERT_EQ(test, kbloom_window_rotate(f), 0);
	}
	kbloom_test_add_range(f, b, 99999, 50, false);
	for (p = 0; p <= g; p++)
		before[p] = kbloom_test_plane_bits(f, p);
	retired = kbloom_window_plane(f, g - 1);
	KUNIT_ASSERT_GT(test, before[retired], 0ULL);
	KUNIT_ASSERT_EQ(test, kbloom_window_rotate(f), 0);
	for (p = 0; p <= g; p++)
		KUNIT_EXPECT_EQ_MSG(test, kbloom_test_plane_bits(f, p),
				    p == retired ? 0 : before[p], "plane %u",
				    p);
	KUNIT_EXPECT_EQ(test, kbloom_window_adds(&f->win, retired), 0);
	/* The retired plane is the spare now, and the next to be current. */
	KUNIT_EXPECT_EQ(test, (f->win.cur + 1) % (g + 1), retired);
}

static atomic64_t kbloom_test_due_calls;
static struct kbloom_filter *kbloom_test_due_filter;

static void kbloom_test_due(struct kbloom_filter *f)
{
	WRITE_ONCE(kbloom_test_due_filter, f);
	atomic64_inc(&kbloom_test_due_calls);
}

/*
 * Rotations by count come due once, at the add that takes the current
 * generation to every keys, batched or single, known keys counting as
 * adds; a new generation starts counting from 0.
 */
static void count_rotation_due_once(struct kunit *test)
{
	const u32 g = *(const u32 *)test->param_value;
	struct kbloom_test_batch *b = kbloom_test_batch(test);
	struct kbloom_filter *f = kbloom_test_window(test, g, KBLOOM_TEST_SEED);
	const u64 every = 1000;
	u32 cur = f->win.cur;

	atomic64_set(&kbloom_test_due_calls, 0);
	f->win.every = every;
	f->win.due = kbloom_test_due;
	kbloom_test_add_range(f, b, 0, every - 101, true);
	kbloom_test_add_range(f, b, 0, 100, true);	/* known keys */
	KUNIT_EXPECT_EQ(test, kbloom_window_adds(&f->win, cur),
			every - 1);
	KUNIT_EXPECT_EQ(test, atomic64_read(&kbloom_test_due_calls), 0);
	kbloom_test_make_key(5000, true, &b->raw[0]);
	kbloom_add(f, b->raw[0].bytes, b->raw[0].len);
	KUNIT_EXPECT_EQ(test, atomic64_read(&kbloom_test_due_calls), 1);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(kbloom_test_due_filter) == f);
	/* Past every, while the rotation is pending: not due again. */
	kbloom_test_add_range(f, b, 6000, 700, true);
	KUNIT_EXPECT_EQ(test, atomic64_read(&kbloom_test_due_calls), 1);
	KUNIT_EXPECT_EQ(test, kbloom_window_adds(&f->win, cur),
			every + 700);

	KUNIT_ASSERT_EQ(test, kbloom_window_rotate(f), 0);
	cur = f->win.cur;
	KUNIT_EXPECT_EQ(test, kbloom_window_adds(&f->win, cur), 0);
	/* One batch crossing every: due once, at the end of its run. */
	kbloom_test_add_range(f, b, 10000, every + 5, false);
	KUNIT_EXPECT_EQ(test, atomic64_read(&kbloom_test_due_calls), 2);
	KUNIT_EXPECT_EQ(test, kbloom_window_adds(&f->win, cur),
			every + 5);
}

/*
 * A batch counts its keys after adding them, once per run of keys in a
 * plane.  A run counted after its plane was emptied (retired by g
 * rotations, or cleared) belongs to keys that are gone: it must not count
 * toward the plane's next keys, or their rotation comes due early.  One
 * that is counted while its plane is still live does count.
 */
static void late_count_after_emptying_dropped(struct kunit *test)
{
	const u32 g = *(const u32 *)test->param_value;
	struct kbloom_test_batch *b = kbloom_test_batch(test);
	struct kbloom_filter *f = kbloom_test_window(test, g, KBLOOM_TEST_SEED);
	struct kbloom_plane_ref ref, live_ref;
	const u64 every = 1000;
	u32 r;

	atomic64_set(&kbloom_test_due_calls, 0);
	f->win.every = every;
	f->win.due = kbloom_test_due;
	kbloom_test_make_key(1, true, &b->raw[0]);
	kbloom_window_add_ref(f, b->raw[0].bytes, b->raw[0].len, &ref);
	KUNIT_ASSERT_EQ(test, ref.plane, f->win.cur);
	for (r = 0; r < g; r++) {
		if (r == g - 1) {
			kbloom_window_add_ref(f, b->raw[0].bytes,
					      b->raw[0].len, &live_ref);
			KUNIT_ASSERT_NE(test, live_ref.plane, ref.plane);
		}
		KUNIT_ASSERT_EQ(test, kbloom_window_rotate(f), 0);
	}
	/* The g-th rotation retired ref's plane: the spare now. */
	KUNIT_ASSERT_EQ(test, (f->win.cur + 1) % (g + 1), ref.plane);
	kbloom_window_count(f, &ref, every - 1);
	KUNIT_EXPECT_EQ(test, kbloom_window_adds(&f->win, ref.plane), 0);
	/* live_ref's plane is of age 1, still live: its run counts. */
	kbloom_window_count(f, &live_ref, 5);
	KUNIT_EXPECT_EQ(test, kbloom_window_adds(&f->win, live_ref.plane), 5);
	/* The spare becomes current; its first key is its first count. */
	KUNIT_ASSERT_EQ(test, kbloom_window_rotate(f), 0);
	KUNIT_ASSERT_EQ(test, f->win.cur, ref.plane);
	kbloom_add(f, b->raw[0].bytes, b->raw[0].len);
	KUNIT_EXPECT_EQ(test, kbloom_window_adds(&f->win, ref.plane), 1);
	KUNIT_EXPECT_EQ(test, atomic64_read(&kbloom_test_due_calls), 0);

	/* A clear empties every plane: a run from before it is dropped. */
	kbloom_window_add_ref(f, b->raw[0].bytes, b->raw[0].len, &ref);
	kbloom_clear(f);
	kbloom_window_count(f, &ref, every);
	KUNIT_EXPECT_EQ(test, kbloom_window_adds(&f->win, ref.plane), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&kbloom_test_due_calls), 0);
}

/*
 * Windows combine generation by generation: the other's key of age a is
 * this one's key of age a, however far apart their planes are.
 */
static void merge_intersect_by_age(struct kunit *test)
{
	const u32 g = *(const u32 *)test->param_value;
	struct kbloom_test_batch *b = kbloom_test_batch(test);
	struct kbloom_filter *dst = kbloom_test_window(test, g, 9);
	struct kbloom_filter *src = kbloom_test_window(test, g, 9);
	struct kbloom_filter *both = kbloom_test_window(test, g, 9);
	const u64 n = 100;
	u32 a;

	/* Different planes for the same ages: src is 5 rotations on. */
	for (a = 0; a < 5; a++)
		KUNIT_ASSERT_EQ(test, kbloom_window_rotate(src), 0);
	for (a = g; a-- > 0;) {
		kbloom_test_add_range(src, b, a * 10000, n, false);
		kbloom_test_add_range(dst, b, a * 10000 + 5000, n, false);
		kbloom_test_add_range(both, b, a * 10000, n, false);
		kbloom_test_add_range(both, b, a * 10000 + 5000, n, false);
		if (a) {
			kbloom_window_rotate(src);
			kbloom_window_rotate(dst);
			kbloom_window_rotate(both);
		}
	}
	KUNIT_ASSERT_EQ(test, kbloom_merge(dst, src), 0);
	KUNIT_ASSERT_EQ(test, kbloom_intersect(both, src), 0);
	for (a = 0; a < g; a++) {
		u32 plane = kbloom_window_plane(dst, a);

		KUNIT_EXPECT_EQ(test,
				kbloom_window_adds(&dst->win, plane),
				2 * n);
		KUNIT_EXPECT_EQ(test, kbloom_test_check_range(dst, b,
							      a * 10000, n,
							      false), n);
		KUNIT_EXPECT_EQ(test, kbloom_test_check_range(dst, b,
							      a * 10000 + 5000,
							      n, false), n);
		KUNIT_EXPECT_EQ(test, kbloom_test_check_range(both, b,
							      a * 10000, n,
							      false), n);
		KUNIT_EXPECT_LE(test, kbloom_test_check_range(both, b,
							      a * 10000 + 5000,
							      n, false), 2ULL);
	}
	/* Age g - 1 goes at the next rotation, src's keys with it. */
	KUNIT_ASSERT_EQ(test, kbloom_window_rotate(dst), 0);
	KUNIT_EXPECT_LE(test, kbloom_test_check_range(dst, b, (g - 1) * 10000,
						      n, false), 2ULL);
	KUNIT_EXPECT_EQ(test, kbloom_test_check_range(dst, b, 0, n, false), n);
	kbloom_test_expect_planes(test, dst);
	kbloom_test_expect_planes(test, both);
}

/* Different g, even with the same memory and probes, do not combine. */
static void merge_other_generations(struct kunit *test)
{
	struct kbloom_filter *a = kbloom_test_window(test, 4, 9);
	struct kbloom_filter *c = kbloom_test_window(test, 5, 9);

	KUNIT_ASSERT_EQ(test, a->geo.nblocks, c->geo.nblocks);
	KUNIT_EXPECT_FALSE(test, kbloom_compatible(a, c));
	KUNIT_EXPECT_EQ(test, kbloom_merge(a, c), -EXDEV);
	KUNIT_EXPECT_EQ(test, kbloom_intersect(a, c), -EXDEV);
}

/*
 * An image carries the generations and where the window is: loaded into
 * a fresh window it answers the same, rotates the same, and its spare is
 * clean even when the source's clear had not finished (here: bits planted
 * in the source's spare).
 */
static void image_keeps_generations(struct kunit *test)
{
	const u32 g = *(const u32 *)test->param_value;
	struct kbloom_test_batch *b = kbloom_test_batch(test);
	struct kbloom_filter *src = kbloom_test_window(test, g, 3);
	struct kbloom_filter *dst = kbloom_test_window(test, g, 3);
	struct kbloom_image_cursor cur;
	u32 j, spare;
	size_t len;
	u8 *img;

	for (j = 0; j < g + 2; j++) {
		kbloom_test_add_range(src, b, j * 1000, 100, false);
		kbloom_window_rotate(src);
	}
	kbloom_test_add_range(src, b, 77777, 100, false);
	spare = (src->win.cur + 1) % (g + 1);
	src->words[5] |= 1ULL << spare;
	len = kbloom_image_bytes(&src->geo);
	img = kunit_kzalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, img);
	kbloom_image_start(src, &cur);
	KUNIT_ASSERT_EQ(test, kbloom_image_emit(src, &cur, img, len), len);
	KUNIT_ASSERT_EQ(test, kbloom_image_load(dst, img, len), 0);
	src->words[5] &= ~(1ULL << spare);

	KUNIT_EXPECT_EQ(test, dst->win.cur, src->win.cur);
	KUNIT_EXPECT_EQ(test, dst->win.live, src->win.live);
	KUNIT_EXPECT_EQ(test, dst->win.rotations, src->win.rotations);
	KUNIT_EXPECT_EQ(test, memcmp(dst->words, src->words,
				     kbloom_test_words(src) * 8), 0);
	for (j = 0; j <= g; j++)
		KUNIT_EXPECT_EQ(test, kbloom_window_adds(&dst->win, j),
				kbloom_window_adds(&src->win, j));
	kbloom_test_expect_planes(test, dst);
	/* Both forget the same keys at the same rotation. */
	KUNIT_ASSERT_EQ(test, kbloom_window_rotate(dst), 0);
	KUNIT_ASSERT_EQ(test, kbloom_window_rotate(src), 0);
	KUNIT_EXPECT_EQ(test, memcmp(dst->words, src->words,
				     kbloom_test_words(src) * 8), 0);
}

/* Only windows rotate; the others refuse and change nothing. */
static void rotate_needs_window(struct kunit *test)
{
	const struct kbloom_test_type *t = test->param_value;
	struct kbloom_test_batch *b = kbloom_test_batch(test);
	struct kbloom_filter *f = kbloom_test_new(test, t, 16, 5,
						  KBLOOM_TEST_SEED);
	void *snap;

	kbloom_test_add_range(f, b, 0, 500, true);
	snap = kbloom_test_snap(test, f);
	if (t->generations) {
		KUNIT_EXPECT_EQ(test, kbloom_window_rotate(f), 0);
		KUNIT_EXPECT_EQ(test, f->win.rotations, 1ULL);
		KUNIT_EXPECT_EQ(test, kbloom_test_check_range(f, b, 0, 500,
							      true), 500ULL);
		return;
	}
	KUNIT_EXPECT_EQ(test, kbloom_window_rotate(f), -EOPNOTSUPP);
	KUNIT_EXPECT_TRUE(test, kbloom_test_same(f, snap));
	KUNIT_EXPECT_EQ(test, f->win.rotations, 0ULL);
}

/* CLEAR empties every generation and keeps where the window is. */
static void clear_keeps_place(struct kunit *test)
{
	const u32 g = *(const u32 *)test->param_value;
	struct kbloom_test_batch *b = kbloom_test_batch(test);
	struct kbloom_filter *f = kbloom_test_window(test, g, 1);
	u32 cur, p;

	kbloom_window_rotate(f);
	kbloom_window_rotate(f);
	kbloom_test_add_range(f, b, 0, 500, true);
	cur = f->win.cur;
	kbloom_clear(f);
	KUNIT_EXPECT_EQ(test, kbloom_test_popcount(f), 0ULL);
	KUNIT_EXPECT_EQ(test, f->win.cur, cur);
	KUNIT_EXPECT_EQ(test, f->win.rotations, 2ULL);
	for (p = 0; p <= g; p++)
		KUNIT_EXPECT_EQ(test, kbloom_window_adds(&f->win, p), 0);
	kbloom_test_expect_planes(test, f);
}

static struct kunit_case kbloom_window_cases[] = {
	KUNIT_CASE_PARAM(keys_live_g_minus_1_rotations,
			 kbloom_test_gens_gen_params),
	KUNIT_CASE_PARAM(rotation_clears_one_plane, kbloom_test_gens_gen_params),
	KUNIT_CASE_PARAM(count_rotation_due_once, kbloom_test_gens_gen_params),
	KUNIT_CASE_PARAM(late_count_after_emptying_dropped,
			 kbloom_test_gens_gen_params),
	KUNIT_CASE_PARAM(merge_intersect_by_age, kbloom_test_gens_gen_params),
	KUNIT_CASE(merge_other_generations),
	KUNIT_CASE_PARAM(image_keeps_generations, kbloom_test_gens_gen_params),
	KBLOOM_TEST_CASE(rotate_needs_window),
	KUNIT_CASE_PARAM(clear_keeps_place, kbloom_test_gens_gen_params),
	{}
};

KBLOOM_TEST_SUITE("kbloom-window", kbloom_window_cases);
