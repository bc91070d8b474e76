// SPDX-License-Identifier: GPL-2.0
/*
 * Images: streaming in any chunk size gives the same bytes, a load restores
 * the filter bit for bit, and every kind of bad image is refused with its
 * own errno, leaving the destination exactly as it was.
 */
#include <stddef.h>
#include <string.h>
#include "harness.h"

#define SUITE "image"

static u8 *emit_all(const struct kbloom_filter *f, size_t chunk, size_t *len)
{
	u64 total = kbloom_image_bytes(&f->geo);
	struct kbloom_image_cursor cur;
	u8 *img = malloc(total + 16);
	size_t pos = 0, got;

	kbloom_image_start(f, &cur);
	while ((got = kbloom_image_emit(f, &cur, img + pos,
					min_t(size_t, chunk,
					      total + 16 - pos))) > 0)
		pos += got;
	*len = pos;
	return img;
}

static void fill(struct kbloom_filter *f, u64 base, u64 n)
{
	add_counter_keys(f, base, n);
}

static void test_roundtrip(void)
{
	static const size_t chunks[] = { 1, 3, 7, 8, 63, 64, 100, 4096,
					 1 << 20 };
	struct kbloom_filter src, dst;
	size_t len, len_i;
	u8 *img, *img_i;
	unsigned int i, differ = 0;
	int ret;

	make_filter(&src, 777, 7, 0x5eed);
	make_filter(&dst, 777, 7, 0x5eed);
	fill(&src, 0, 20000);
	kbloom_check(&src, "x", 1);
	img = emit_all(&src, 1 << 30, &len);
	for (i = 0; i < ARRAY_SIZE(chunks); i++) {
		img_i = emit_all(&src, chunks[i], &len_i);
		differ += len_i != len || memcmp(img, img_i, len);
		free(img_i);
	}
	expect(len == kbloom_image_bytes(&src.geo) &&
	       len == sizeof(struct kbloom_image_header) + 777 * 64 + 4 &&
	       !differ, SUITE, "stream_any_chunking",
	       "length %zu, %u chunkings differ", len, differ);

	fill(&dst, 50000, 100);
	ret = kbloom_image_load(&dst, img, len);
	expect(!ret && !memcmp(src.words, dst.words, 777 * 64) &&
	       counts_of(&dst).add_calls == 20000 &&
	       counts_of(&dst).add_new == counts_of(&src).add_new &&
	       count_counter_hits(&dst, 0, 20000) == 20000, SUITE,
	       "roundtrip_bit_exact", "load returned %d", ret);

	/* An image at an odd address loads the same. */
	img_i = malloc(len + 1);
	memcpy(img_i + 1, img, len);
	kbloom_clear(&dst);
	ret = kbloom_image_load(&dst, img_i + 1, len);
	expect(!ret && !memcmp(src.words, dst.words, 777 * 64), SUITE,
	       "load_unaligned", "load returned %d", ret);
	free(img_i);
	free(img);
	kbloom_filter_free(&src);
	kbloom_filter_free(&dst);
}

/* CRC32C bit by bit, as a check on the table-driven one. */
static u32 crc32c_bitwise(const u8 *p, size_t len)
{
	u32 crc = ~0U;
	int bit;

	while (len--) {
		crc ^= *p++;
		for (bit = 0; bit < 8; bit++)
			crc = crc >> 1 ^ (crc & 1 ? 0x82f63b78U : 0);
	}
	return ~crc;
}

/*
 * Adds racing a stream land in the image or not, but the CRC always covers
 * exactly the bytes emitted, so the image loads.
 */
static void test_stream_while_adding(void)
{
	struct kbloom_filter f, g;
	struct kbloom_image_cursor cur;
	u64 total;
	size_t pos = 0, got;
	u8 *img;
	int ret;

	make_filter(&f, 300, 5, 3);
	make_filter(&g, 300, 5, 3);
	fill(&f, 0, 2000);
	total = kbloom_image_bytes(&f.geo);
	img = malloc(total);
	kbloom_image_start(&f, &cur);
	while ((got = kbloom_image_emit(&f, &cur, img + pos, 1000)) > 0) {
		pos += got;
		fill(&f, pos * 10, 200);
	}
	ret = kbloom_image_load(&g, img, pos);
	expect(pos == total && !ret &&
	       counts_of(&g).add_calls == 2000 &&
	       count_counter_hits(&g, 0, 2000) == 2000, SUITE,
	       "stream_while_adding", "%zu of %llu bytes, load %d", pos,
	       (unsigned long long)total, ret);
	/* Streaming again restarts from the header. */
	kbloom_image_start(&f, &cur);
	pos = kbloom_image_emit(&f, &cur, img, total);
	expect(pos == total && !kbloom_image_load(&g, img, pos) &&
	       !memcmp(f.words, g.words, 300 * 64), SUITE, "stream_restart",
	       "restarted stream did not load");
	free(img);
	kbloom_filter_free(&f);
	kbloom_filter_free(&g);
}

/*
 * A fixed filter's image, byte for byte, pinned by its CRC: the kernel's
 * image of the same filter (same seed, keys, geometry) must match it.
 */
#define GOLDEN_CRC	0xea05eb66U

static void test_golden(void)
{
	struct kbloom_geometry g = { .nblocks = 3, .k = 7, .capacity = 40,
				     .fp_target_ppb = 10000000 };
	struct kbloom_filter f;
	char key[16];
	size_t len;
	u8 *img;
	u32 crc, i;
	static const u8 head[] = { 'K', 'B', 'L', 'M', 1, 0, 88, 0, 7, 0, 0,
				   0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0 };

	make_filter_geo(&f, &g, 0x0123456789abcdefULL);
	for (i = 0; i < 40; i++)
		kbloom_add(&f, key, snprintf(key, sizeof(key), "golden-%u", i));
	img = emit_all(&f, 1 << 20, &len);
	crc = get_unaligned_le32(img + len - 4);
	printf("# golden image: %zu bytes, crc %#010x\n", len, crc);
	expect(!memcmp(img, head, sizeof(head)) &&
	       get_unaligned_le64(img + 24) == 0x0123456789abcdefULL &&
	       get_unaligned_le64(img + 32) == 40 &&
	       get_unaligned_le32(img + 40) == 10000000 &&
	       get_unaligned_le64(img + 48) == 40 && crc == GOLDEN_CRC &&
	       crc32c_bitwise(img, len - 4) == crc, SUITE, "golden_image",
	       "crc %#x, want %#x (bitwise %#x)", crc, GOLDEN_CRC,
	       crc32c_bitwise(img, len - 4));
	free(img);
	kbloom_filter_free(&f);
}

/* Re-seals a tampered header so only the tampering is wrong. */
static void reseal(u8 *img, size_t len)
{
	put_unaligned_le32(~__crc32c_le(~0U, img, len - 4), img + len - 4);
}

enum tamper {
	T_MAGIC, T_VERSION, T_FLAGS, T_RESERVED, T_K0, T_K17, T_HDR_BYTES,
	T_TYPE, T_NBLOCKS0, T_TARGET, T_GEO_NBLOCKS, T_GEO_K, T_GEO_SEED,
	T_GEO_TYPE,
	T_TRUNC_ONE, T_TRUNC_HEADER, T_TRUNC_TINY, T_LONGER, T_BIT_FLIP,
	T_CRC_FLIP, T_COUNTER_FLIP,
};

static const struct {
	const char *name;
	enum tamper how;
	int err;
} bad_images[] = {
	{ "bad_magic_enoexec", T_MAGIC, -ENOEXEC },
	{ "bad_version_eproto", T_VERSION, -EPROTO },
	{ "flags_set_einval", T_FLAGS, -EINVAL },
	{ "reserved_set_einval", T_RESERVED, -EINVAL },
	{ "k0_einval", T_K0, -EINVAL },
	{ "k17_einval", T_K17, -EINVAL },
	{ "header_bytes_einval", T_HDR_BYTES, -EINVAL },
	{ "unknown_type_einval", T_TYPE, -EINVAL },
	{ "nblocks0_einval", T_NBLOCKS0, -EINVAL },
	{ "target_over_one_einval", T_TARGET, -EINVAL },
	{ "other_nblocks_exdev", T_GEO_NBLOCKS, -EXDEV },
	{ "other_k_exdev", T_GEO_K, -EXDEV },
	{ "other_seed_exdev", T_GEO_SEED, -EXDEV },
	{ "other_type_exdev", T_GEO_TYPE, -EXDEV },
	{ "truncated_by_one_enodata", T_TRUNC_ONE, -ENODATA },
	{ "header_only_enodata", T_TRUNC_HEADER, -ENODATA },
	{ "shorter_than_header_enodata", T_TRUNC_TINY, -ENODATA },
	{ "longer_emsgsize", T_LONGER, -EMSGSIZE },
	{ "bit_flip_ebadmsg", T_BIT_FLIP, -EBADMSG },
	{ "crc_flip_ebadmsg", T_CRC_FLIP, -EBADMSG },
	{ "counter_flip_ebadmsg", T_COUNTER_FLIP, -EBADMSG },
};

#define OFF(field) offsetof(struct kbloom_image_header, field)

static void test_bad_images(void)
{
	struct kbloom_filter src, dst;
	size_t good_len, len;
	u8 *good, *img, *before;
	unsigned int i;

	make_filter(&src, 50, 6, 77);
	fill(&src, 0, 500);
	good = emit_all(&src, 1 << 20, &good_len);
	make_filter(&dst, 50, 6, 77);
	fill(&dst, 1000, 300);
	kbloom_check(&dst, "y", 1);
	before = malloc(50 * 64);
	memcpy(before, dst.words, 50 * 64);

	for (i = 0; i < ARRAY_SIZE(bad_images); i++) {
		bool reseal_after = true;
		int ret, hdr_ret, want_hdr;

		img = malloc(good_len + 8);
		memcpy(img, good, good_len);
		len = good_len;
		switch (bad_images[i].how) {
		case T_MAGIC:
			img[0] ^= 1;
			break;
		case T_VERSION:
			put_unaligned_le32(2, img + OFF(version));
			img[OFF(version) + 2] = 88;	/* keep header_bytes */
			img[OFF(version) + 3] = 0;
			break;
		case T_FLAGS:
			img[OFF(flags)] = 1;
			break;
		case T_RESERVED:
			img[OFF(reserved) + 23] = 0x80;
			break;
		case T_K0:
			put_unaligned_le32(0, img + OFF(k));
			break;
		case T_K17:
			put_unaligned_le32(17, img + OFF(k));
			break;
		case T_HDR_BYTES:
			img[OFF(header_bytes)] = 96;
			break;
		case T_TYPE:
			put_unaligned_le32(2, img + OFF(type));
			break;
		case T_GEO_TYPE:
			put_unaligned_le32(KBLOOM_TYPE_COUNTING,
					   img + OFF(type));
			break;
		case T_NBLOCKS0:
			put_unaligned_le64(0, img + OFF(nblocks));
			break;
		case T_TARGET:
			put_unaligned_le32(KBLOOM_PPB, img + OFF(fp_target_ppb));
			break;
		case T_GEO_NBLOCKS:
			put_unaligned_le64(51, img + OFF(nblocks));
			break;
		case T_GEO_K:
			put_unaligned_le32(7, img + OFF(k));
			break;
		case T_GEO_SEED:
			put_unaligned_le64(78, img + OFF(seed));
			break;
		case T_TRUNC_ONE:
			len--;
			reseal_after = false;
			break;
		case T_TRUNC_HEADER:
			len = sizeof(struct kbloom_image_header);
			reseal_after = false;
			break;
		case T_TRUNC_TINY:
			len = 10;
			reseal_after = false;
			break;
		case T_LONGER:
			img[len++] = 0;
			reseal_after = false;
			break;
		case T_BIT_FLIP:
			img[sizeof(struct kbloom_image_header) + 1000] ^= 0x10;
			reseal_after = false;
			break;
		case T_CRC_FLIP:
			img[len - 1] ^= 0x01;
			reseal_after = false;
			break;
		case T_COUNTER_FLIP:
			img[OFF(add_calls)] ^= 0x04;
			reseal_after = false;
			break;
		}
		if (reseal_after)
			reseal(img, len);
		ret = kbloom_image_load(&dst, img, len);
		hdr_ret = kbloom_image_check_header(&dst, img, len);
		/*
		 * check_header sees only the header: it must report the
		 * header's faults and pass the rest.
		 */
		want_hdr = bad_images[i].err;
		if (want_hdr == -EMSGSIZE || want_hdr == -EBADMSG ||
		    (want_hdr == -ENODATA &&
		     len >= sizeof(struct kbloom_image_header)))
			want_hdr = 0;
		expect(ret == bad_images[i].err && hdr_ret == want_hdr &&
		       !memcmp(before, dst.words, 50 * 64) &&
		       counts_of(&dst).add_calls == 300 &&
		       counts_of(&dst).check_calls == 1, SUITE,
		       bad_images[i].name,
		       "load returned %d (want %d), check_header %d (want %d)%s",
		       ret, bad_images[i].err, hdr_ret, want_hdr,
		       memcmp(before, dst.words, 50 * 64) ?
		       ", destination changed" : "");
		free(img);
	}
	expect(!kbloom_image_check_header(&dst, good, good_len) &&
	       !kbloom_image_load(&dst, good, good_len) &&
	       !memcmp(src.words, dst.words, 50 * 64), SUITE,
	       "good_image_still_loads", "the untampered image was refused");
	free(before);
	free(good);
	kbloom_filter_free(&src);
	kbloom_filter_free(&dst);
}

int main(void)
{
	test_roundtrip();
	test_stream_while_adding();
	test_golden();
	test_bad_images();
	return harness_exit();
}
