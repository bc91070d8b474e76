// SPDX-License-Identifier: GPL-2.0
/*
 * libkbloom's image arithmetic without the device (make -C userspace
 * test): kbl_image_size(), the length a header gives (kbl_image_length())
 * and kbl_load()'s verdict on where its input ended
 * (kbl_image_input_end()), for version 3 and version 4 (scalable) images.
 * kbl_load() has only the image's header to tell a truncated image from a
 * whole one (the module cannot tell the end of its input from a pause),
 * so a wrong length there loses ENODATA or invents it.  The lengths are
 * checked against images the core's own encoders write
 * (kmod/core/kbloom_image.c, kmod/core/kbloom_chain_image.c), so the
 * library and the module cannot drift apart; malformed headers are built
 * by hand.  What needs the module (a real save and load) is tested in the VM.
 */
#include "../tests/vm/vmtest.h"

#include "../kmod/core/kbloom_chain.h"
#include "libkbloom_image.h"
#include "kbloom.h"

#define SUITE	"libkbloom-image"

#define HDR_BYTES	sizeof(struct kbloom_image_header)
#define WIN_BYTES	sizeof(struct kbloom_image_window)
#define SUBS_AT		(HDR_BYTES + WIN_BYTES + \
			 sizeof(struct kbloom_image_chain))
#define SUB_BYTES	sizeof(struct kbloom_image_subfilter)
#define CRC_BYTES	4U

/* A header as an image of version with header_bytes and nblocks has. */
static struct kbloom_image_header header(uint16_t version, uint16_t hbytes,
					 uint64_t nblocks)
{
	struct kbloom_image_header h;

	memset(&h, 0, sizeof(h));
	h.magic = htole32(KBLOOM_IMAGE_MAGIC);
	h.version = htole16(version);
	h.header_bytes = htole16(hbytes);
	h.nblocks = htole64(nblocks);
	h.type = htole32(KBLOOM_TYPE_BITS);
	h.k = htole32(7);
	return h;
}

/* The whole image the core writes from cur: emitted in odd-sized pieces. */
static uint64_t emit_all(size_t (*emit)(const void *, void *, void *, size_t),
			 const void *filter, void *cur, uint8_t **out)
{
	size_t cap = 1 << 16, len = 0, n;
	uint8_t *buf = malloc(cap);

	while (buf) {
		if (cap - len < 4099) {
			uint8_t *more = realloc(buf, cap * 2);

			if (!more)
				break;
			buf = more;
			cap *= 2;
		}
		n = emit(filter, cur, buf + len, 4099);
		if (!n) {
			*out = buf;
			return len;
		}
		len += n;
	}
	free(buf);
	*out = NULL;
	return 0;
}

static size_t emit_fixed(const void *f, void *cur, void *buf, size_t len)
{
	return kbloom_image_emit(f, cur, buf, len);
}

static size_t emit_chain(const void *c, void *cur, void *buf, size_t len)
{
	return kbloom_chain_image_emit(c, cur, buf, len);
}

/* Version 3: the module's image of a fixed filter, and its size. */
static const char *test_v3_encoder(void)
{
	struct kbloom_image_cursor cur;
	struct kbloom_geometry geo;
	struct kbloom_filter f;
	struct kbloom_info info;
	struct kbloom_image_header h;
	uint8_t *img;
	uint64_t len;

	EXPECT(!kbloom_geometry_from_rate_gen(&geo, KBLOOM_TYPE_COUNTING, 0,
					      10000, 10000000), "geometry");
	EXPECT(!kbloom_filter_init(&f, &geo), "filter");
	kbloom_image_start(&f, &cur);
	len = emit_all(emit_fixed, &f, &cur, &img);
	kbloom_filter_free(&f);
	EXPECT(img, "emit");
	memcpy(&h, img, sizeof(h));
	free(img);
	EXPECT(le16toh(h.version) == KBLOOM_IMAGE_VERSION, "version %u",
	       le16toh(h.version));
	EXPECT(kbl_image_length(&h) == len, "length %llu, image %llu",
	       (unsigned long long)kbl_image_length(&h),
	       (unsigned long long)len);
	EXPECT(kbl_image_subfilters(&h) == 0, "a version 3 image has none");
	memset(&info, 0, sizeof(info));
	info.nblocks = geo.nblocks;
	EXPECT(kbl_image_size(&info) == len, "size %llu, image %llu",
	       (unsigned long long)kbl_image_size(&info),
	       (unsigned long long)len);
	return NULL;
}

/*
 * Version 4: a chain of three sub-filters, of different sizes, written by
 * the core, whose header counts three descriptors; GET_INFO of that
 * filter would give the sum of their blocks and subfilters 3.
 */
static const char *test_v4_encoder(void)
{
	struct kbloom_chain_params cp = {
		.capacity = 1000, .seed = 0x1234567890abcdefULL,
		.type = KBLOOM_TYPE_BITS, .fp_ppb = 10000000, .expansion = 2,
	};
	struct kbloom_counts counts = { 0 };
	struct kbloom_image_cursor cur;
	struct kbloom_chain c;
	struct kbloom_info info;
	struct kbloom_image_header h;
	uint64_t len, nblocks = 0;
	uint8_t *img;
	uint32_t i;

	EXPECT(!kbloom_chain_init(&c, &cp), "chain");
	EXPECT(!kbloom_chain_grow(&c) && !kbloom_chain_grow(&c), "grow");
	for (i = 0; i < kbloom_chain_subs(&c); i++)
		nblocks += kbloom_chain_sub(&c, i)->f.geo.nblocks;
	kbloom_chain_image_start(&c, &counts, &cur);
	len = emit_all(emit_chain, &c, &cur, &img);
	EXPECT(len == kbloom_chain_image_bytes(&c, 3), "core: %llu bytes",
	       (unsigned long long)len);
	kbloom_chain_free(&c);
	EXPECT(img, "emit");
	memcpy(&h, img, sizeof(h));
	free(img);
	EXPECT(le16toh(h.version) == KBLOOM_IMAGE_VERSION_CHAIN, "version %u",
	       le16toh(h.version));
	EXPECT(kbl_image_subfilters(&h) == 3, "%u sub-filters",
	       kbl_image_subfilters(&h));
	EXPECT(kbl_image_length(&h) == len, "length %llu, image %llu",
	       (unsigned long long)kbl_image_length(&h),
	       (unsigned long long)len);
	memset(&info, 0, sizeof(info));
	info.nblocks = nblocks;
	info.expansion = 2;
	info.subfilters = 3;
	EXPECT(kbl_image_size(&info) == len, "size %llu, image %llu",
	       (unsigned long long)kbl_image_size(&info),
	       (unsigned long long)len);
	/* The last byte decides: one short is truncated, whole is not. */
	EXPECT(kbl_image_input_end(&h, sizeof(h), len - 1) == -ENODATA,
	       "one byte short");
	EXPECT(kbl_image_input_end(&h, sizeof(h), len) == 0, "whole");
	return NULL;
}

/*
 * kbl_image_size() of a scalable filter counts a descriptor per
 * sub-filter; one whose info says 0 sub-filters (filled by hand) still
 * has sub-filter 0, and a filter of fixed size has no chain part at all.
 */
static const char *test_size(void)
{
	struct kbloom_info info;

	memset(&info, 0, sizeof(info));
	info.nblocks = 10;
	EXPECT(kbl_image_size(&info) == HDR_BYTES + WIN_BYTES + 640 + CRC_BYTES,
	       "fixed: %llu", (unsigned long long)kbl_image_size(&info));
	info.expansion = 4;
	info.subfilters = KBLOOM_SUBFILTERS_MAX;
	EXPECT(kbl_image_size(&info) == SUBS_AT + KBLOOM_SUBFILTERS_MAX *
	       SUB_BYTES + 640 + CRC_BYTES, "1024 sub-filters: %llu",
	       (unsigned long long)kbl_image_size(&info));
	info.subfilters = 0;
	EXPECT(kbl_image_size(&info) == SUBS_AT + SUB_BYTES + 640 + CRC_BYTES,
	       "no sub-filters: %llu",
	       (unsigned long long)kbl_image_size(&info));
	return NULL;
}

/*
 * header_bytes of a version 4 image is the fixed parts and whole
 * descriptors, 1 to KBLOOM_SUBFILTERS_MAX of them: anything else is a
 * damaged header, whose length kbl_load() must not believe.
 */
static const char *test_v4_header_bytes(void)
{
	static const struct {
		uint32_t hbytes;
		uint32_t subs;	/* 0: refused */
	} cases[] = {
		{ SUBS_AT + SUB_BYTES, 1 },
		{ SUBS_AT + 2 * SUB_BYTES, 2 },
		{ SUBS_AT + KBLOOM_SUBFILTERS_MAX * SUB_BYTES,
		  KBLOOM_SUBFILTERS_MAX },
		{ SUBS_AT, 0 },				/* no sub-filter */
		{ SUBS_AT + SUB_BYTES / 2, 0 },		/* half of one */
		{ SUBS_AT + SUB_BYTES + 1, 0 },		/* one and a byte */
		{ SUBS_AT + 2 * SUB_BYTES - 8, 0 },
		{ HDR_BYTES + WIN_BYTES, 0 },		/* version 3's */
		{ HDR_BYTES, 0 },
		{ 0, 0 },
		{ SUBS_AT + (KBLOOM_SUBFILTERS_MAX + 1) * SUB_BYTES, 0 },
		{ 0xffff, 0 },				/* the most it holds */
		{ 0xffff - (0xffff - SUBS_AT) % SUB_BYTES, 0 },	/* whole, too many */
	};
	struct kbloom_image_header h;
	uint64_t want;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		h = header(KBLOOM_IMAGE_VERSION_CHAIN, cases[i].hbytes, 5);
		want = cases[i].subs ? cases[i].hbytes + 5 * 64 + CRC_BYTES : 0;
		EXPECT(kbl_image_subfilters(&h) == cases[i].subs,
		       "header_bytes %u: %u sub-filters, want %u",
		       cases[i].hbytes, kbl_image_subfilters(&h),
		       cases[i].subs);
		EXPECT(kbl_image_length(&h) == want,
		       "header_bytes %u: length %llu, want %llu",
		       cases[i].hbytes,
		       (unsigned long long)kbl_image_length(&h),
		       (unsigned long long)want);
	}
	return NULL;
}

/* Version 3 has one header_bytes; other versions have no length here. */
static const char *test_versions(void)
{
	struct kbloom_image_header h;

	h = header(KBLOOM_IMAGE_VERSION, HDR_BYTES + WIN_BYTES, 2);
	EXPECT(kbl_image_length(&h) == HDR_BYTES + WIN_BYTES + 128 + CRC_BYTES,
	       "version 3: %llu", (unsigned long long)kbl_image_length(&h));
	h = header(KBLOOM_IMAGE_VERSION, SUBS_AT + SUB_BYTES, 2);
	EXPECT(!kbl_image_length(&h), "version 3 with descriptors");
	h = header(KBLOOM_IMAGE_VERSION, HDR_BYTES, 2);
	EXPECT(!kbl_image_length(&h), "version 3 without a window part");
	h = header(1, HDR_BYTES, 2);
	EXPECT(!kbl_image_length(&h), "version 1");
	h = header(KBLOOM_IMAGE_VERSION_CHAIN + 1, SUBS_AT + SUB_BYTES, 2);
	EXPECT(!kbl_image_length(&h) && !kbl_image_subfilters(&h),
	       "version 5");
	return NULL;
}

/*
 * nblocks * 64 + header_bytes + 4 must fit in 64 bits: a header whose
 * length wraps would make a short input look whole.
 */
static const char *test_overflow(void)
{
	uint64_t hbytes = SUBS_AT + SUB_BYTES;
	uint64_t most = (UINT64_MAX - hbytes - CRC_BYTES) / 64;
	struct kbloom_image_header h;

	h = header(KBLOOM_IMAGE_VERSION_CHAIN, hbytes, most);
	EXPECT(kbl_image_length(&h) == most * 64 + hbytes + CRC_BYTES,
	       "the longest length: %llu",
	       (unsigned long long)kbl_image_length(&h));
	h = header(KBLOOM_IMAGE_VERSION_CHAIN, hbytes, most + 1);
	EXPECT(!kbl_image_length(&h), "sum wraps: %llu",
	       (unsigned long long)kbl_image_length(&h));
	h = header(KBLOOM_IMAGE_VERSION_CHAIN, hbytes, UINT64_MAX / 64 + 1);
	EXPECT(!kbl_image_length(&h), "cells wrap");
	h = header(KBLOOM_IMAGE_VERSION_CHAIN, hbytes, UINT64_MAX);
	EXPECT(!kbl_image_length(&h), "nblocks 2^64 - 1");
	h = header(KBLOOM_IMAGE_VERSION, HDR_BYTES + WIN_BYTES,
		   UINT64_MAX / 64 + 1);
	EXPECT(!kbl_image_length(&h), "version 3 cells wrap");
	/* No length: the module, which took the header, judges the rest. */
	EXPECT(kbl_image_input_end(&h, sizeof(h), sizeof(h)) == 0,
	       "a wrapped length is no verdict");
	return NULL;
}

/* The verdicts kbl_load() gives on inputs the module took. */
static const char *test_input_end(void)
{
	struct kbloom_image_header h = header(KBLOOM_IMAGE_VERSION_CHAIN,
					      SUBS_AT + 2 * SUB_BYTES, 3);
	uint64_t len = SUBS_AT + 2 * SUB_BYTES + 3 * 64 + CRC_BYTES;
	static const char junk[] = "not an image, but long enough for a header ......................................";

	EXPECT(kbl_image_input_end(&h, 0, 0) == -ENOEXEC, "empty input");
	EXPECT(kbl_image_input_end(&h, 3, 3) == -ENOEXEC, "3 bytes of magic");
	EXPECT(kbl_image_input_end(&h, 4, 4) == -ENODATA, "magic only");
	EXPECT(kbl_image_input_end(&h, sizeof(h) - 1, sizeof(h) - 1) ==
	       -ENODATA, "header short of a byte");
	EXPECT(kbl_image_input_end(junk, 10, 10) == -ENOEXEC, "short junk");
	EXPECT(kbl_image_input_end(&h, sizeof(h), sizeof(h)) == -ENODATA,
	       "header alone");
	/* Descriptors and cells are counted: the header's part is not all. */
	EXPECT(kbl_image_input_end(&h, sizeof(h), SUBS_AT + 2 * SUB_BYTES) ==
	       -ENODATA, "no cells");
	EXPECT(kbl_image_input_end(&h, sizeof(h), len - 1) == -ENODATA,
	       "no last byte");
	EXPECT(kbl_image_input_end(&h, sizeof(h), len) == 0, "whole");
	/* Longer is the module's EMSGSIZE, not a truncation. */
	EXPECT(kbl_image_input_end(&h, sizeof(h), len + 1) == 0, "longer");
	h.header_bytes = htole16(SUBS_AT + 2 * SUB_BYTES + 1);
	EXPECT(kbl_image_input_end(&h, sizeof(h), sizeof(h)) == 0,
	       "damaged header_bytes: no length to judge by");
	return NULL;
}

static const struct vt_case cases[] = {
	VT_NAMED("v3-encoder", test_v3_encoder),
	VT_NAMED("v4-encoder", test_v4_encoder),
	VT_NAMED("size", test_size),
	VT_NAMED("v4-header-bytes", test_v4_header_bytes),
	VT_NAMED("versions", test_versions),
	VT_NAMED("overflow", test_overflow),
	VT_NAMED("input-end", test_input_end),
};

int main(void)
{
	return vt_run(SUITE, cases, ARRAY_SIZE(cases));
}
