// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the image decoder (kbloom_image_check_header and
 * kbloom_image_load), which parses bytes straight from write() on a filter
 * node.  Besides memory safety (ASan/UBSan) it asserts the decoder's
 * contract:
 *   - every rejection is one of the documented image errnos, and
 *     check_header and load agree on a bad header; an image of any version
 *     but 3 (kbloom 0.1 wrote 1 and 2, whose cells are placed otherwise)
 *     is refused: version 4, a scalable filter's, with EXDEV, the others
 *     with EPROTO;
 *   - an image of version 4 is also given to a scalable filter's decoder
 *     (kbloom_chain_image.c), into a chain of its header's parameters
 *     (bit 1) or a default one: check_header and validate agree, every
 *     rejection is an image errno and changes nothing, and an accepted
 *     image, applied, re-encodes to the same bytes;
 *   - a rejected image leaves the destination exactly as it was (cells,
 *     counts, geometry): all or nothing; an accepted one restarts the
 *     delete counts, which images do not carry;
 *   - an accepted image re-encodes, through the streaming encoder in
 *     arbitrary chunks, to the same bytes (only the creator's capacity and
 *     target rate are the destination's own, and a window's spare plane
 *     and its time since the last rotation, which is the module's, read
 *     as 0), with a CRC matching an independent CRC32C, and loads again
 *     into a fresh filter;
 *   - a rejected image leaves a window's place (current plane, live
 *     planes, rotations, keys per plane) as it was;
 *   - statistics over whatever bits were loaded stay in range.
 *
 * Input: one control byte, then the image.
 *   bit 0     recompute the trailing CRC, so mutations reach the bits
 *   bit 1     give the destination the header's geometry when it is small
 *             and valid (else a fixed default), so mutations get past EXDEV
 *   bits 2-3  keys added to the destination beforehand (0, 1, 17, 300;
 *             a counting destination then deletes every third)
 *   bits 4-7  chunk size for re-encoding
 */
#include <errno.h>
#include <stddef.h>

#include "fuzz_common.h"
#include "kbloom_chain.h"

#define HDR_BYTES	sizeof(struct kbloom_image_header)
#define WIN_BYTES	sizeof(struct kbloom_image_window)
#define HDR2_BYTES	(HDR_BYTES + WIN_BYTES)
/* Destinations taken from the header stay small: fuzzing wants speed. */
#define FUZZ_MAX_BLOCKS	64
#define DEFAULT_SEED	0x6b626c6f6f6d2121ULL

static const struct kbloom_geometry default_geo = {
	.nblocks = 2, .capacity = 64, .seed = DEFAULT_SEED, .k = 7,
	.type = KBLOOM_TYPE_BITS, .fp_target_ppb = 0,
};

static const unsigned int prefill_keys[4] = { 0, 1, 17, 300 };
static const size_t chunk_sizes[16] = {
	1, 2, 3, 7, 8, 13, 63, 64, 65, 100, 127, 128, 129, 1000, 4096, 1 << 20,
};

static void geometry_for(const uint8_t *img, size_t len, int from_header,
			 struct kbloom_geometry *geo)
{
	*geo = default_geo;
	if (!from_header || len < HDR_BYTES)
		return;
	geo->nblocks = le64(img + offsetof(struct kbloom_image_header,
					       nblocks));
	geo->k = le32(img + offsetof(struct kbloom_image_header, k));
	geo->type = le32(img + offsetof(struct kbloom_image_header, type));
	geo->seed = le64(img + offsetof(struct kbloom_image_header, seed));
	geo->capacity = le64(img + offsetof(struct kbloom_image_header,
						capacity));
	geo->fp_target_ppb = le32(img + offsetof(struct kbloom_image_header,
						     fp_target_ppb));
	if (geo->type == KBLOOM_TYPE_WINDOW && len >= HDR2_BYTES) {
		geo->generations = le32(img + HDR_BYTES +
				offsetof(struct kbloom_image_window,
					 generations));
		geo->plane_order = geo->generations <= KBLOOM_GENERATIONS_MAX ?
				   kbloom_plane_order(geo->generations) : 0;
	}
	if (geo->nblocks > FUZZ_MAX_BLOCKS || kbloom_geometry_validate(geo))
		*geo = default_geo;
}

/* What the encoder writes for an image that loaded into f. */
static uint8_t *expected_image(const struct kbloom_filter *f,
			       const uint8_t *img)
{
	size_t out_len = kbloom_image_bytes(&f->geo), i;
	struct kbloom_image_header *h;
	struct kbloom_image_window *w;
	uint64_t keep = ~0ULL;
	uint8_t *out = calloc(1, out_len);

	fuzz_assert(out, "out of memory");
	memcpy(out, img, out_len);
	h = (void *)out;
	w = (void *)(out + HDR_BYTES);
	h->capacity = htole64(f->geo.capacity);
	h->fp_target_ppb = htole32(f->geo.fp_target_ppb);
	w->elapsed_ms = 0;
	if (f->geo.type == KBLOOM_TYPE_WINDOW) {
		uint32_t width = 1U << f->geo.plane_order, sh;

		keep = 0;
		for (sh = 0; sh < 64; sh += width)
			keep |= le64toh(w->live) << sh;
	}
	for (i = HDR2_BYTES; i + 4 < out_len; i += 8)
		fuzz_put_le64(out + i, le64(out + i) & keep);
	fuzz_put_le32(out + out_len - 4, crc32c_ref(out, out_len - 4));
	return out;
}

/* A window's place, which a rejected image must not move. */
struct window_place {
	uint64_t live, rotations, adds[KBLOOM_IMAGE_PLANES];
	uint32_t cur;
};

static void window_place(const struct kbloom_filter *f,
			 struct window_place *wp)
{
	unsigned int i;

	memset(wp, 0, sizeof(*wp));
	wp->live = f->win.live;
	wp->cur = f->win.cur;
	wp->rotations = f->win.rotations;
	for (i = 0; i < KBLOOM_IMAGE_PLANES; i++)
		wp->adds[i] = kbloom_window_adds(&f->win, i);
}

static int image_errno(int ret)
{
	switch (ret) {
	case -ENOEXEC: case -EPROTO: case -EINVAL: case -EXDEV:
	case -ENODATA: case -EMSGSIZE: case -EBADMSG:
		return 1;
	}
	return 0;
}

/* The header's version field; the caller has a whole header. */
static uint32_t image_version(const uint8_t *img)
{
	return le32(img + offsetof(struct kbloom_image_header, version)) &
	       0xffff;
}

static uint8_t *encode(const struct kbloom_filter *f, size_t chunk,
		       size_t *len)
{
	struct kbloom_image_cursor cur;
	size_t total = kbloom_image_bytes(&f->geo), got = 0, n;
	uint8_t *buf = malloc(total + 1);

	fuzz_assert(buf, "out of memory");
	kbloom_image_start(f, &cur);
	do {
		size_t want = chunk < total + 1 - got ? chunk : total + 1 - got;

		n = kbloom_image_emit(f, &cur, buf + got, want);
		fuzz_assert(n <= want, "emit returned %zu of %zu", n, want);
		got += n;
	} while (n);
	*len = got;
	return buf;
}

static void check_accepted(struct kbloom_filter *f, const uint8_t *img,
			   size_t len, size_t chunk)
{
	size_t bits_end = len - 4, out_len;
	struct kbloom_filter again;
	struct kbloom_stats st;
	uint8_t *expect, *out;

	fuzz_assert(len == kbloom_image_bytes(&f->geo),
		    "accepted %zu bytes for a %llu-byte image", len,
		    (unsigned long long)kbloom_image_bytes(&f->geo));
	fuzz_assert(image_version(img) == KBLOOM_IMAGE_VERSION,
		    "accepted an image of version %u", image_version(img));
	fuzz_assert(crc32c_ref(img, bits_end) == le32(img + bits_end),
		    "accepted an image whose CRC32C is wrong");

	expect = expected_image(f, img);
	out = encode(f, chunk, &out_len);
	fuzz_assert(out_len == kbloom_image_bytes(&f->geo),
		    "re-encoded %zu bytes", out_len);
	fuzz_assert(!memcmp(out, expect, out_len),
		    "re-encoding differs from the loaded image");

	fuzz_assert(!kbloom_filter_init(&again, &f->geo), "init failed");
	fuzz_assert(!kbloom_image_load(&again, out, out_len),
		    "the filter's own image was rejected");
	fuzz_assert(!memcmp(again.words, f->words,
			    kbloom_geometry_bytes(&f->geo)),
		    "round trip changed the bits");
	kbloom_filter_free(&again);

	kbloom_get_stats(f, &st);
	fuzz_assert(st.bits_set <= f->geo.nblocks *
				   kbloom_block_cells(f->geo.type),
		    "bits_set %llu", (unsigned long long)st.bits_set);
	fuzz_assert(st.fill_ppb <= KBLOOM_PPB, "fill %u", st.fill_ppb);
	fuzz_assert(st.fp_now_ppb <= KBLOOM_PPB, "fp_now %u", st.fp_now_ppb);
	free(out);
	free(expect);
}

/*
 * A chain's parameters: the header's and chain part's (bit 1 of the
 * control byte) when they make a small chain, else a default one.
 */
#define FUZZ_CHAIN_MAX_CAPACITY	4096
#define FUZZ_CHAIN_MAX_SUBS	8

static void chain_params_for(const uint8_t *img, size_t len, int from_header,
			     struct kbloom_chain_params *cp)
{
	struct kbloom_chain_params h;

	*cp = (struct kbloom_chain_params){
		.capacity = 64, .seed = DEFAULT_SEED,
		.type = KBLOOM_TYPE_BITS, .fp_ppb = 10000000, .expansion = 2,
	};
	if (!from_header || len < KBLOOM_CHAIN_IMAGE_HEAD)
		return;
	h = (struct kbloom_chain_params){
		.capacity = le64(img + offsetof(struct kbloom_image_header,
						capacity)),
		.seed = le64(img + offsetof(struct kbloom_image_header, seed)),
		.type = le32(img + offsetof(struct kbloom_image_header, type)),
		.fp_ppb = le32(img + offsetof(struct kbloom_image_header,
					      fp_target_ppb)),
		.expansion = le32(img + HDR2_BYTES +
				  offsetof(struct kbloom_image_chain,
					   expansion)),
	};
	if (!kbloom_chain_params_validate(&h) &&
	    h.capacity <= FUZZ_CHAIN_MAX_CAPACITY)
		*cp = h;
}

static void chain_image(const uint8_t *img, size_t len, uint8_t ctl)
{
	struct kbloom_chain_params cp;
	struct kbloom_image_cursor cur;
	struct kbloom_counts counts, emitted = { 0 };
	struct kbloom_chain c;
	uint8_t *before, *out;
	size_t bytes, got = 0, n, chunk = chunk_sizes[ctl >> 4];
	u64 total = 0;
	u32 subs = 0, vsubs = 0, i;
	int hret, vret;

	chain_params_for(img, len, ctl & 2, &cp);
	fuzz_assert(!kbloom_chain_init(&c, &cp), "chain init failed");
	for (i = 0; i < prefill_keys[(ctl >> 2) & 3]; i++)
		if (kbloom_chain_add(&c, &i, sizeof(i)) == -EAGAIN &&
		    kbloom_chain_grow(&c))
			break;
	bytes = kbloom_geometry_bytes(&kbloom_chain_sub(&c, 0)->f.geo);
	before = malloc(bytes);
	fuzz_assert(before, "out of memory");
	memcpy(before, kbloom_chain_sub(&c, 0)->f.words, bytes);

	hret = kbloom_chain_image_check_header(&c, img, len, &subs, &total);
	vret = kbloom_chain_image_validate(&c, img, len, &vsubs);
	fuzz_assert(!hret || image_errno(hret), "chain check_header said %d",
		    hret);
	fuzz_assert(!vret || image_errno(vret), "chain validate said %d",
		    vret);
	/* validate judges the header as check_header does, then the rest. */
	fuzz_assert(!hret ? (!vret ? vsubs == subs && len == total : 1) :
			    vret == hret,
		    "chain check_header said %d (%u sub-filters), validate %d (%u)",
		    hret, subs, vret, vsubs);
	fuzz_assert(!memcmp(before, kbloom_chain_sub(&c, 0)->f.words, bytes),
		    "judging a chain image changed the cells");
	if (vret || vsubs > FUZZ_CHAIN_MAX_SUBS)
		goto out;
	/* As a load does: grow or truncate to the image's, then apply. */
	while (c.nsubs < vsubs)
		fuzz_assert(!kbloom_chain_grow(&c), "chain growth failed");
	kbloom_chain_free_subs(kbloom_chain_truncate(&c, vsubs));
	kbloom_chain_image_apply(&c, img, &counts);
	fuzz_assert(kbloom_chain_image_bytes(&c, vsubs) == len,
		    "a chain of %u sub-filters has %llu-byte images, not %zu",
		    vsubs,
		    (unsigned long long)kbloom_chain_image_bytes(&c, vsubs),
		    len);
	out = malloc(len + 1);
	fuzz_assert(out, "out of memory");
	emitted.add_calls = counts.add_calls;
	emitted.add_new = counts.add_new;
	kbloom_chain_image_start(&c, &emitted, &cur);
	do {
		size_t want = chunk < len + 1 - got ? chunk : len + 1 - got;

		n = kbloom_chain_image_emit(&c, &cur, out + got, want);
		fuzz_assert(n <= want, "chain emit returned %zu of %zu", n,
			    want);
		got += n;
	} while (n);
	fuzz_assert(got == len && !memcmp(out, img, len),
		    "a chain image re-encoded to other bytes (%zu of %zu)",
		    got, len);
	fuzz_assert(kbloom_chain_fp_now_ppb(&c) <= KBLOOM_PPB,
		    "chain fp_now %u", kbloom_chain_fp_now_ppb(&c));
	free(out);
out:
	free(before);
	kbloom_chain_free(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kbloom_geometry geo;
	struct kbloom_filter f;
	struct kbloom_counts counts_before, counts_after;
	struct window_place place_before, place_after;
	uint8_t ctl, *img, *before;
	size_t len, bytes;
	unsigned int i;
	int hret = 0, lret;

	if (!size)
		return 0;
	ctl = data[0];
	len = size - 1;
	/* A private, exactly-sized copy: ASan sees any overread. */
	img = malloc(len ? len : 1);
	fuzz_assert(img, "out of memory");
	memcpy(img, data + 1, len);
	if ((ctl & 1) && len >= HDR_BYTES + 4)
		fuzz_put_le32(img + len - 4, crc32c_ref(img, len - 4));

	geometry_for(img, len, ctl & 2, &geo);
	fuzz_assert(!kbloom_filter_init(&f, &geo), "init failed");
	for (i = 0; i < prefill_keys[(ctl >> 2) & 3]; i++)
		kbloom_add(&f, &i, sizeof(i));
	for (i = 0; !kbloom_delete_supported(&f) &&
		    i < prefill_keys[(ctl >> 2) & 3]; i += 3)
		kbloom_delete(&f, &i, sizeof(i));

	bytes = kbloom_geometry_bytes(&geo);
	before = malloc(bytes);
	fuzz_assert(before, "out of memory");
	memcpy(before, f.words, bytes);
	kbloom_counts_read(&f, &counts_before);
	window_place(&f, &place_before);

	if (len >= HDR_BYTES) {
		hret = kbloom_image_check_header(&f, img, len);
		fuzz_assert(!hret || image_errno(hret),
			    "check_header returned %d", hret);
	}
	lret = kbloom_image_load(&f, img, len);
	fuzz_assert(!lret || image_errno(lret), "load returned %d", lret);
	fuzz_assert(!hret || lret == hret,
		    "check_header said %d, load said %d", hret, lret);
	/*
	 * Past the magic, the version is judged first: a scalable filter's
	 * is another kind of filter's image, any other unknown.
	 */
	if (len >= HDR_BYTES && le32(img) == KBLOOM_IMAGE_MAGIC &&
	    image_version(img) != KBLOOM_IMAGE_VERSION)
		fuzz_assert(lret == (image_version(img) ==
				     KBLOOM_IMAGE_VERSION_CHAIN ?
				     -EXDEV : -EPROTO),
			    "version %u: load said %d", image_version(img),
			    lret);
	if (len >= HDR_BYTES && image_version(img) ==
	    KBLOOM_IMAGE_VERSION_CHAIN)
		chain_image(img, len, ctl);

	if (lret) {
		fuzz_assert(!memcmp(before, f.words, bytes),
			    "rejected image (%d) changed the bits", lret);
		kbloom_counts_read(&f, &counts_after);
		fuzz_assert(!memcmp(&counts_before, &counts_after,
				    sizeof(counts_after)),
			    "rejected image (%d) changed the counters", lret);
		fuzz_assert(!memcmp(&f.geo, &geo, sizeof(geo)),
			    "rejected image changed the geometry");
		window_place(&f, &place_after);
		fuzz_assert(!memcmp(&place_before, &place_after,
				    sizeof(place_after)),
			    "rejected image (%d) moved the window", lret);
	} else {
		fuzz_assert(len >= HDR_BYTES, "accepted %zu bytes", len);
		kbloom_counts_read(&f, &counts_after);
		fuzz_assert(!counts_after.delete_calls &&
			    !counts_after.delete_hits,
			    "a load kept the delete counts");
		check_accepted(&f, img, len, chunk_sizes[ctl >> 4]);
	}

	free(before);
	kbloom_filter_free(&f);
	free(img);
	return 0;
}
