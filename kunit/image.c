// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom-image: a filter's image streams the same in any pieces, loads
 * back cell for cell, keeps its layout (golden CRCs), and every kind of
 * bad image is refused with its own errno, leaving the destination exactly
 * as it was, for every type.
 */
#include "kbloom_test.h"

/* The header and window part: where the cells start. */
#define KBLOOM_TEST_HDR		(sizeof(struct kbloom_image_header) + \
				 sizeof(struct kbloom_image_window))

/* The CRC32C every image ends with: the standard one (iSCSI, ext4). */
static u32 kbloom_test_crc32c(const void *buf, size_t len)
{
	return ~kbloom_crc32c(~0U, buf, len);
}

static void crc32c_known_answer(struct kunit *test)
{
	u32 crc = kbloom_crc32c(~0U, "1234", 4);

	KUNIT_EXPECT_EQ(test, kbloom_test_crc32c("123456789", 9), 0xe3069283U);
	/* Chained updates equal one pass: the stream relies on it. */
	KUNIT_EXPECT_EQ(test, ~kbloom_crc32c(crc, "56789", 5), 0xe3069283U);
}

/* After editing an image, give it a valid CRC again. */
static void kbloom_test_reseal(u8 *img, size_t len)
{
	put_unaligned_le32(kbloom_test_crc32c(img, len - 4), img + len - 4);
}

/*
 * The image of f, emitted in pieces of piece bytes, or in uneven ones as
 * read() might (piece 0); one spare byte at the end lets a test append
 * garbage, and an emit past the end must give nothing.
 */
static u8 *kbloom_test_image_in(struct kunit *test,
				const struct kbloom_filter *f, size_t piece,
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
		size_t want = piece ?: pieces[p++ % ARRAY_SIZE(pieces)];

		got = kbloom_image_emit(f, &cur, img + done,
					min(want, *len + 1 - done));
		done += got;
	} while (got && done <= *len);
	KUNIT_EXPECT_EQ(test, done, *len);
	return img;
}

static u8 *kbloom_test_image(struct kunit *test, const struct kbloom_filter *f,
			     size_t *len)
{
	return kbloom_test_image_in(test, f, 0, len);
}

static void image_round_trip(struct kunit *test)
{
	static const size_t pieces[] = { 1, 3, 8, 63, 64, 100, 1 << 20 };
	const struct kbloom_test_type *t = test->param_value;
	struct kbloom_test_batch *b = kbloom_test_batch(test);
	const struct kbloom_image_header *h;
	struct kbloom_filter *src, *dst;
	struct kbloom_stats sst, dst_st;
	struct kbloom_geometry geo;
	u64 i, bad_words = 0;
	size_t len, len2;
	u8 *img, *img2;

	src = kbloom_test_new_rate(test, t, 5000, 1000000, &geo);
	dst = kbloom_test_filter(test, &geo);
	kbloom_test_add_range(src, b, 0, 5000, true);
	/* Some cells at their maximum. */
	for (i = 0; i < 20; i++)
		kbloom_test_add_range(src, b, 0, 10, true);
	if (t->deletes)
		kbloom_test_delete_range(src, b, 10, 100, true);
	kbloom_test_add_range(dst, b, 100000, 100, true);

	img = kbloom_test_image(test, src, &len);
	KUNIT_ASSERT_EQ(test, len, KBLOOM_TEST_HDR + geo.nblocks * 64 + 4);
	h = (const void *)img;
	KUNIT_EXPECT_EQ(test, le32_to_cpu(h->magic), KBLOOM_IMAGE_MAGIC);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(h->version), KBLOOM_IMAGE_VERSION);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(h->header_bytes), KBLOOM_TEST_HDR);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(h->k), geo.k);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(h->type), t->type);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(h->nblocks), geo.nblocks);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(h->seed), KBLOOM_TEST_SEED);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(h->capacity), 5000ULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(h->fp_target_ppb), 1000000U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(h->flags), 0U);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(h->add_calls), 5200ULL);
	kbloom_get_stats(src, &sst);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(h->add_new), sst.add_new);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(h->reserved[0]) |
			le64_to_cpu(h->reserved[1]) |
			le64_to_cpu(h->reserved[2]), 0ULL);
	for (i = 0; i < kbloom_test_words(src); i++)
		bad_words += get_unaligned_le64(img + KBLOOM_TEST_HDR + i * 8) !=
			     src->words[i];
	KUNIT_EXPECT_EQ(test, bad_words, 0ULL);
	KUNIT_EXPECT_EQ(test, get_unaligned_le32(img + len - 4),
			kbloom_test_crc32c(img, len - 4));
	/* A window's cells hold one plane here: no cell is all planes. */
	KUNIT_EXPECT_GT(test, kbloom_test_cells(src, t, t->generations ? 1 :
						kbloom_test_cell_max(t)),
			0ULL);

	/* Any pieces, the same bytes. */
	for (i = 0; i < ARRAY_SIZE(pieces); i++) {
		img2 = kbloom_test_image_in(test, src, pieces[i], &len2);
		KUNIT_EXPECT_EQ_MSG(test, memcmp(img, img2, len), 0,
				    "in pieces of %zu", pieces[i]);
	}

	KUNIT_EXPECT_EQ(test, kbloom_image_check_header(dst, img, sizeof(*h)),
			0);
	KUNIT_ASSERT_EQ(test, kbloom_image_load(dst, img, len), 0);
	KUNIT_EXPECT_EQ(test, memcmp(dst->words, src->words,
				     kbloom_test_words(src) * 8), 0);
	kbloom_get_stats(dst, &dst_st);
	KUNIT_EXPECT_EQ(test, dst_st.add_calls, sst.add_calls);
	KUNIT_EXPECT_EQ(test, dst_st.add_new, sst.add_new);
	/* The image has no delete counts: a load starts them afresh. */
	KUNIT_EXPECT_EQ(test, dst_st.delete_calls, 0ULL);
	KUNIT_EXPECT_EQ(test, kbloom_test_check_range(dst, b, 0, 5000, true),
			t->deletes ? 4900ULL + kbloom_test_check_range(dst, b,
								       10, 100,
								       true) :
				     5000ULL);

	/* Loading is faithful: the copy's image is byte for byte the same. */
	img2 = kbloom_test_image(test, dst, &len2);
	KUNIT_ASSERT_EQ(test, len2, len);
	KUNIT_EXPECT_EQ(test, memcmp(img, img2, len), 0);

	/* An image at an odd address loads the same. */
	memmove(img2 + 1, img, len);
	kbloom_clear(dst);
	KUNIT_ASSERT_EQ(test, kbloom_image_load(dst, img2 + 1, len), 0);
	KUNIT_EXPECT_EQ(test, memcmp(dst->words, src->words,
				     kbloom_test_words(src) * 8), 0);

	/* A loaded filter deletes as the original would, cell for cell. */
	if (kbloom_test_deletes(test, t, dst)) {
		KUNIT_EXPECT_EQ(test, kbloom_test_delete_range(dst, b, 110,
							       4890, true),
				kbloom_test_delete_range(src, b, 110, 4890,
							 true));
		KUNIT_EXPECT_EQ(test, memcmp(dst->words, src->words,
					     kbloom_test_words(src) * 8), 0);
		KUNIT_EXPECT_EQ(test, kbloom_test_check_range(dst, b, 0, 10,
							      true), 10ULL);
	}
}

/*
 * Adds racing a stream land in the image or not, but the CRC always covers
 * exactly the bytes emitted, so the image loads; a new stream starts again
 * from the header.
 */
static void image_while_adding(struct kunit *test)
{
	const struct kbloom_test_type *t = test->param_value;
	struct kbloom_test_batch *b = kbloom_test_batch(test);
	struct kbloom_image_cursor cur;
	struct kbloom_filter *f, *g;
	size_t len, done = 0, got;
	struct kbloom_stats st;
	u8 *img;

	f = kbloom_test_new(test, t, 300, 5, KBLOOM_TEST_SEED);
	g = kbloom_test_new(test, t, 300, 5, KBLOOM_TEST_SEED);
	kbloom_test_add_range(f, b, 0, 2000, true);
	len = kbloom_image_bytes(&f->geo);
	img = kunit_kzalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, img);
	kbloom_image_start(f, &cur);
	while ((got = kbloom_image_emit(f, &cur, img + done, 1000)) > 0) {
		done += got;
		kbloom_test_add_range(f, b, done * 10, 200, true);
	}
	KUNIT_ASSERT_EQ(test, done, len);
	KUNIT_ASSERT_EQ(test, kbloom_image_load(g, img, len), 0);
	kbloom_get_stats(g, &st);
	KUNIT_EXPECT_EQ(test, st.add_calls, 2000ULL);
	KUNIT_EXPECT_EQ(test, kbloom_test_check_range(g, b, 0, 2000, true),
			2000ULL);

	kbloom_image_start(f, &cur);
	KUNIT_EXPECT_EQ(test, kbloom_image_emit(f, &cur, img, len), len);
	KUNIT_ASSERT_EQ(test, kbloom_image_load(g, img, len), 0);
	KUNIT_EXPECT_EQ(test, memcmp(f->words, g->words,
				     kbloom_geometry_bytes(&f->geo)), 0);
}

/* One defect per row, on an image of a compatible filter. */
enum kbloom_test_defect {
	KBLOOM_TEST_MAGIC,
	KBLOOM_TEST_VERSION,
	KBLOOM_TEST_VERSION_CHAIN,
	KBLOOM_TEST_HEADER_BYTES,
	KBLOOM_TEST_FLAGS,
	KBLOOM_TEST_RESERVED,
	KBLOOM_TEST_K_ZERO,
	KBLOOM_TEST_K_17,
	KBLOOM_TEST_TYPE,
	KBLOOM_TEST_OTHER_TYPE,
	KBLOOM_TEST_NBLOCKS_ZERO,
	KBLOOM_TEST_TARGET,
	KBLOOM_TEST_WIN_RESERVED,
	KBLOOM_TEST_WIN_GENERATIONS,
	KBLOOM_TEST_WIN_CURRENT,
	KBLOOM_TEST_WIN_LIVE,
	KBLOOM_TEST_WIN_ADDS_MAX,
	KBLOOM_TEST_WIN_SPARE_ADDS,
	KBLOOM_TEST_OTHER_SEED,
	KBLOOM_TEST_OTHER_K,
	KBLOOM_TEST_OTHER_BLOCKS,
	KBLOOM_TEST_EMPTY,
	KBLOOM_TEST_SHORT_HEADER,
	KBLOOM_TEST_HEADER_ONLY,
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
	int window_err;	/* a window's errno, when it differs */
};

static const struct kbloom_test_bad_image kbloom_test_bad_images[] = {
	{ "magic", KBLOOM_TEST_MAGIC, -ENOEXEC, true },
	{ "version", KBLOOM_TEST_VERSION, -EPROTO, true },
	{ "version_chain", KBLOOM_TEST_VERSION_CHAIN, -EXDEV, true },
	{ "header_bytes", KBLOOM_TEST_HEADER_BYTES, -EINVAL, true },
	{ "flags", KBLOOM_TEST_FLAGS, -EINVAL, true },
	{ "reserved", KBLOOM_TEST_RESERVED, -EINVAL, true },
	{ "k_0", KBLOOM_TEST_K_ZERO, -EINVAL, true },
	{ "k_17", KBLOOM_TEST_K_17, -EINVAL, true },
	{ "type", KBLOOM_TEST_TYPE, -EINVAL, true },
	{ "other_type", KBLOOM_TEST_OTHER_TYPE, -EXDEV, true },
	{ "nblocks_0", KBLOOM_TEST_NBLOCKS_ZERO, -EINVAL, true },
	{ "target_1", KBLOOM_TEST_TARGET, -EINVAL, true },
	/* The window part: any non-zero byte of it but for a window. */
	{ "window_reserved", KBLOOM_TEST_WIN_RESERVED, -EINVAL, false },
	{ "window_generations", KBLOOM_TEST_WIN_GENERATIONS, -EINVAL, false,
	  -EXDEV },
	{ "window_current", KBLOOM_TEST_WIN_CURRENT, -EINVAL, false },
	{ "window_live", KBLOOM_TEST_WIN_LIVE, -EINVAL, false },
	{ "window_adds_max", KBLOOM_TEST_WIN_ADDS_MAX, -EINVAL, false },
	{ "window_spare_adds", KBLOOM_TEST_WIN_SPARE_ADDS, -EINVAL, false },
	{ "other_seed", KBLOOM_TEST_OTHER_SEED, -EXDEV, true },
	{ "other_k", KBLOOM_TEST_OTHER_K, -EXDEV, true },
	{ "other_blocks", KBLOOM_TEST_OTHER_BLOCKS, -EXDEV, true },
	{ "empty", KBLOOM_TEST_EMPTY, -ENODATA, false },
	{ "short_header", KBLOOM_TEST_SHORT_HEADER, -ENODATA, false },
	{ "header_only", KBLOOM_TEST_HEADER_ONLY, -ENODATA, false },
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

KBLOOM_TEST_TYPED_PARAM(kbloom_test_bad_image, kbloom_test_bad_images,
			kbloom_test_bad_image_desc);

#define KBLOOM_TEST_IMAGE_BLOCKS	64

static void image_rejects(struct kunit *test)
{
	const struct kbloom_test_typed *p = test->param_value;
	const struct kbloom_test_bad_image *c = p->row;
	const struct kbloom_test_type *t = p->t;
	struct kbloom_test_batch *b = kbloom_test_batch(test);
	u64 nblocks = KBLOOM_TEST_IMAGE_BLOCKS, seed = KBLOOM_TEST_SEED;
	struct kbloom_stats before, after;
	struct kbloom_image_window *w;
	struct kbloom_image_header *h;
	struct kbloom_filter *src, *dst;
	size_t len, hdr = KBLOOM_TEST_HDR;
	int err = t->generations && c->window_err ? c->window_err : c->err;
	u32 k = 7;
	void *snap;
	u8 *img;

	if (c->defect == KBLOOM_TEST_OTHER_SEED)
		seed++;
	if (c->defect == KBLOOM_TEST_OTHER_K)
		k++;
	if (c->defect == KBLOOM_TEST_OTHER_BLOCKS)
		nblocks++;
	src = kbloom_test_new(test, t, nblocks, k, seed);
	dst = kbloom_test_new(test, t, KBLOOM_TEST_IMAGE_BLOCKS, 7,
			      KBLOOM_TEST_SEED);
	kbloom_test_add_range(src, b, 0, 1000, true);
	kbloom_test_add_range(dst, b, 1000, 1000, true);
	kbloom_test_check_range(dst, b, 0, 100, true);
	kbloom_get_stats(dst, &before);
	snap = kbloom_test_snap(test, dst);

	img = kbloom_test_image(test, src, &len);
	h = (void *)img;
	w = (void *)(img + sizeof(*h));
	switch (c->defect) {
	case KBLOOM_TEST_MAGIC:
		h->magic = cpu_to_le32(KBLOOM_IMAGE_MAGIC ^ 0x20);
		break;
	case KBLOOM_TEST_VERSION:
		h->version = cpu_to_le16(KBLOOM_IMAGE_VERSION_CHAIN + 1);
		break;
	case KBLOOM_TEST_VERSION_CHAIN:
		/* A scalable filter's image: not this filter's kind. */
		h->version = cpu_to_le16(KBLOOM_IMAGE_VERSION_CHAIN);
		break;
	case KBLOOM_TEST_HEADER_BYTES:
		h->header_bytes = cpu_to_le16(hdr + 8);
		break;
	case KBLOOM_TEST_FLAGS:
		h->flags = cpu_to_le32(1);
		break;
	case KBLOOM_TEST_RESERVED:
		h->reserved[2] = cpu_to_le64(1ULL << 63);
		break;
	case KBLOOM_TEST_K_ZERO:
		h->k = 0;
		break;
	case KBLOOM_TEST_K_17:
		h->k = cpu_to_le32(KBLOOM_K_MAX + 1);
		break;
	case KBLOOM_TEST_TYPE:
		h->type = cpu_to_le32(KBLOOM_TYPE_WINDOW + 1);
		break;
	case KBLOOM_TEST_OTHER_TYPE:
		h->type = cpu_to_le32(kbloom_test_types[t == kbloom_test_types].type);
		break;
	case KBLOOM_TEST_NBLOCKS_ZERO:
		h->nblocks = 0;
		break;
	case KBLOOM_TEST_TARGET:
		h->fp_target_ppb = cpu_to_le32(KBLOOM_PPB);
		break;
	case KBLOOM_TEST_WIN_RESERVED:
		w->reserved[3] = cpu_to_le64(1);
		break;
	case KBLOOM_TEST_WIN_GENERATIONS:
		w->generations = cpu_to_le32(le32_to_cpu(w->generations) + 1);
		break;
	case KBLOOM_TEST_WIN_CURRENT:
		w->cur_plane = cpu_to_le32(KBLOOM_IMAGE_PLANES);
		break;
	case KBLOOM_TEST_WIN_LIVE:
		w->live = cpu_to_le64(le64_to_cpu(w->live) ^ 1);
		break;
	case KBLOOM_TEST_WIN_ADDS_MAX:
		w->plane_adds[le32_to_cpu(w->cur_plane)] =
			cpu_to_le64(KBLOOM_PLANE_ADDS_MAX + 1);
		break;
	case KBLOOM_TEST_WIN_SPARE_ADDS:
		w->plane_adds[KBLOOM_IMAGE_PLANES - 1] = cpu_to_le64(1);
		break;
	case KBLOOM_TEST_EMPTY:
		len = 0;
		break;
	case KBLOOM_TEST_SHORT_HEADER:
		len = hdr - 1;
		break;
	case KBLOOM_TEST_HEADER_ONLY:
		len = hdr;
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
	if (c->defect <= KBLOOM_TEST_WIN_SPARE_ADDS)
		kbloom_test_reseal(img, len);

	/* check_header judges the header alone, and passes a good one. */
	KUNIT_EXPECT_EQ(test, kbloom_image_check_header(dst, img, hdr),
			c->header ? err : 0);
	/* The window part, once the header is whole, by itself. */
	if (c->defect >= KBLOOM_TEST_WIN_RESERVED &&
	    c->defect <= KBLOOM_TEST_WIN_SPARE_ADDS)
		KUNIT_EXPECT_EQ(test, kbloom_image_check_window(dst, img, hdr),
				err);
	/* The device validates first, then applies: both must agree. */
	KUNIT_EXPECT_EQ(test, kbloom_image_validate(dst, img, len), err);
	KUNIT_EXPECT_EQ(test, kbloom_image_load(dst, img, len), err);

	/* All or nothing: a rejected image leaves no trace. */
	KUNIT_EXPECT_TRUE(test, kbloom_test_same(dst, snap));
	kbloom_get_stats(dst, &after);
	KUNIT_EXPECT_EQ(test, after.add_calls, before.add_calls);
	KUNIT_EXPECT_EQ(test, after.add_new, before.add_new);
	KUNIT_EXPECT_EQ(test, after.check_calls, before.check_calls);
	KUNIT_EXPECT_EQ(test, after.bits_set, before.bits_set);
}

/*
 * The same keys under the same seed make the same image in the kernel and
 * in the host build of the core: one layout, one hash, one CRC.  The
 * type's golden_crc comes from the host build (tests/host, the same
 * steps): 3 blocks, k 5, capacity 20, this seed, "golden-<i % 15>" added
 * for i < 20 (a window rotating once before the eleventh), then
 * "golden-3" deleted where the type deletes.  Cells at
 * 0, 1 and 2 make the cell order part of the CRC.  A change of probing,
 * layout or image format changes it, and then saved images stop loading:
 * update it only together with such a change.
 */
#define KBLOOM_TEST_GOLDEN_SEED	0x0123456789abcdefULL

static void golden_image(struct kunit *test)
{
	const struct kbloom_test_type *t = test->param_value;
	struct kbloom_geometry geo = {
		.nblocks = 3 * kbloom_test_key_block(t), .k = 5,
		.type = t->type, .capacity = 20,
		.seed = KBLOOM_TEST_GOLDEN_SEED,
		.generations = t->generations,
		.plane_order = t->generations ?
			       kbloom_plane_order(t->generations) : 0,
	};
	struct kbloom_filter *f;
	char key[16];
	size_t len;
	u8 *img;
	u32 i;

	f = kbloom_test_filter(test, &geo);
	for (i = 0; i < 20; i++) {
		u32 n = scnprintf(key, sizeof(key), "golden-%u", i % 15);

		/* A window's first ten keys go a generation back. */
		if (i == 10 && t->generations)
			KUNIT_EXPECT_EQ(test, kbloom_window_rotate(f), 0);
		kbloom_add(f, key, n);
	}
	if (t->deletes)
		KUNIT_EXPECT_TRUE(test, kbloom_delete(f, "golden-3", 8));
	img = kbloom_test_image(test, f, &len);
	/* The header's layout, byte by byte: version 3, 664 header bytes. */
	KUNIT_EXPECT_EQ(test, memcmp(img, "KBLM\3\0\x98\2\5\0\0\0", 12), 0);
	KUNIT_EXPECT_EQ(test, get_unaligned_le32(img + 12), t->type);
	KUNIT_EXPECT_EQ(test, get_unaligned_le64(img + 16), geo.nblocks);
	KUNIT_EXPECT_EQ(test, get_unaligned_le64(img + 24),
			KBLOOM_TEST_GOLDEN_SEED);
	KUNIT_EXPECT_EQ(test, get_unaligned_le64(img + 32), 20ULL);
	KUNIT_EXPECT_EQ(test, get_unaligned_le64(img + 48), 20ULL);
	/* The window part: generations, current plane, live, rotations. */
	KUNIT_EXPECT_EQ(test, get_unaligned_le32(img + 88), t->generations);
	KUNIT_EXPECT_EQ(test, get_unaligned_le32(img + 92),
			t->generations ? 1U : 0U);
	KUNIT_EXPECT_EQ(test, get_unaligned_le64(img + 104),
			t->generations ? 1ULL : 0ULL);
	KUNIT_EXPECT_EQ(test, get_unaligned_le32(img + len - 4), t->golden_crc);
}

/*
 * Images of kbloom 0.1 placed a key's cells by double hashing: version 1
 * (no window part, header_bytes 88) and version 2 (this layout) are
 * refused with EPROTO, whole or header only, and the filter keeps its
 * cells and counts.  Loaded, their cells would answer for other keys.
 */
static void old_versions_refused(struct kunit *test)
{
	const struct kbloom_test_type *t = test->param_value;
	struct kbloom_test_batch *b = kbloom_test_batch(test);
	struct kbloom_image_header *h;
	struct kbloom_filter *src, *dst;
	size_t len, v1_len, hdr = sizeof(*h);
	struct kbloom_stats before, after;
	u64 *cells;
	u8 *img;

	src = kbloom_test_new(test, t, 64, 6, KBLOOM_TEST_SEED);
	dst = kbloom_test_new(test, t, 64, 6, KBLOOM_TEST_SEED);
	kbloom_test_add_range(src, b, 0, 1500, true);
	kbloom_test_add_range(dst, b, 5000, 100, true);
	cells = kunit_kmalloc(test, kbloom_test_words(dst) * 8, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cells);
	memcpy(cells, dst->words, kbloom_test_words(dst) * 8);
	kbloom_get_stats(dst, &before);
	img = kbloom_test_image(test, src, &len);
	h = (void *)img;
	/* Version 2: the layout of today's, the cells of 0.1. */
	h->version = cpu_to_le16(2);
	kbloom_test_reseal(img, len);
	KUNIT_EXPECT_EQ(test, kbloom_image_check_header(dst, img, hdr),
			-EPROTO);
	KUNIT_EXPECT_EQ(test, kbloom_image_load(dst, img, len), -EPROTO);
	/* Version 1: the window part cut out. */
	memmove(img + hdr, img + KBLOOM_TEST_HDR, len - KBLOOM_TEST_HDR);
	v1_len = len - sizeof(struct kbloom_image_window);
	h->version = cpu_to_le16(1);
	h->header_bytes = cpu_to_le16(hdr);
	kbloom_test_reseal(img, v1_len);
	KUNIT_EXPECT_EQ(test, kbloom_image_check_header(dst, img, hdr),
			-EPROTO);
	KUNIT_EXPECT_EQ(test, kbloom_image_load(dst, img, v1_len), -EPROTO);
	KUNIT_EXPECT_EQ(test, memcmp(dst->words, cells,
				     kbloom_test_words(dst) * 8), 0);
	kbloom_get_stats(dst, &after);
	KUNIT_EXPECT_EQ(test, after.add_calls, before.add_calls);
	KUNIT_EXPECT_EQ(test, after.add_new, before.add_new);
}

static struct kunit_case kbloom_image_cases[] = {
	KUNIT_CASE(crc32c_known_answer),
	KBLOOM_TEST_CASE(image_round_trip),
	KBLOOM_TEST_CASE(image_while_adding),
	KUNIT_CASE_PARAM(image_rejects, kbloom_test_bad_image_gen_params),
	KBLOOM_TEST_CASE(golden_image),
	KBLOOM_TEST_CASE(old_versions_refused),
	{}
};

KBLOOM_TEST_SUITE("kbloom-image", kbloom_image_cases);
