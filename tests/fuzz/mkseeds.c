// SPDX-License-Identifier: GPL-2.0
/*
 * Writes the seed corpus: real images made by the core's encoder (valid
 * ones and one of each kind of damage the decoder must name), and geometry
 * inputs for each constructor.  The seeds are checked into
 * tests/fuzz/corpus/; `make seeds` rewrites them after a format change.
 *
 * Usage: mkseeds DIR   (writes DIR/image/ and DIR/geometry/)
 */
#include <stdio.h>
#include <sys/stat.h>

#include "fuzz_common.h"
#include "kbloom_chain.h"

static const char *dir;

static void write_seed(const char *target, const char *name, uint8_t ctl,
		       const uint8_t *p, size_t len)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/%s", dir, target, name);
	f = fopen(path, "wb");
	if (!f || fwrite(&ctl, 1, 1, f) != 1 ||
	    (len && fwrite(p, 1, len, f) != len) || fclose(f)) {
		perror(path);
		exit(1);
	}
}

/*
 * An image of a filter with the given geometry and keys "0".."n-1"; a
 * window of generations g (nblocks counts its key blocks) rotates after
 * every tenth key.
 */
static uint8_t *make_gen_image(uint32_t type, uint32_t gens, uint64_t nblocks,
			       uint32_t k, uint64_t seed, unsigned int keys,
			       size_t *len)
{
	uint32_t order = gens ? kbloom_plane_order(gens) : 0;
	struct kbloom_geometry g = {
		.nblocks = nblocks << order, .capacity = 64, .seed = seed,
		.k = k, .type = type, .generations = gens,
		.plane_order = order,
	};
	struct kbloom_image_cursor cur;
	struct kbloom_filter f;
	unsigned int i;
	uint8_t *buf;

	if (kbloom_filter_init(&f, &g))
		exit(1);
	for (i = 0; i < keys; i++) {
		char key[16];

		if (gens && i && !(i % 10))
			kbloom_window_rotate(&f);
		kbloom_add(&f, key, snprintf(key, sizeof(key), "%u", i));
	}
	*len = kbloom_image_bytes(&g);
	buf = malloc(*len);
	kbloom_image_start(&f, &cur);
	if (!buf || kbloom_image_emit(&f, &cur, buf, *len) != *len)
		exit(1);
	kbloom_filter_free(&f);
	/* The core's CRC must be the documented one. */
	if (crc32c_ref(buf, *len - 4) != le32(buf + *len - 4)) {
		fprintf(stderr, "mkseeds: core CRC is not standard CRC32C\n");
		exit(1);
	}
	return buf;
}

static uint8_t *make_image(uint32_t type, uint64_t nblocks, uint32_t k,
			   uint64_t seed, unsigned int keys, size_t *len)
{
	return make_gen_image(type, 0, nblocks, k, seed, keys, len);
}

/*
 * The same image as kbloom 0.1 wrote it, which is refused: version 2, or
 * version 1 (no window part), for the types it had.
 */
static void write_old_seed(const char *name, uint8_t ctl, uint8_t *img,
			   size_t len, uint16_t version)
{
	size_t hdr = sizeof(struct kbloom_image_header);
	size_t win = sizeof(struct kbloom_image_window);
	struct kbloom_image_header *h = (void *)img;

	if (version == 1) {
		memmove(img + hdr, img + hdr + win, len - hdr - win);
		len -= win;
		h->header_bytes = htole16(hdr);
	}
	h->version = htole16(version);
	fuzz_put_le32(img + len - 4, crc32c_ref(img, len - 4));
	write_seed("image", name, ctl, img, len);
}

/*
 * A scalable filter's image (version 4): capacity 64 at 1 %, expansion e,
 * keys "0".."n-1" added, the chain grown whenever they fill it.
 */
static uint8_t *make_chain_image(uint32_t type, uint32_t expansion,
				 uint64_t seed, unsigned int keys, size_t *len)
{
	const struct kbloom_chain_params cp = {
		.capacity = 64, .seed = seed, .type = type,
		.fp_ppb = 10000000, .expansion = expansion,
	};
	struct kbloom_counts counts = { .add_calls = keys, .add_new = keys };
	struct kbloom_image_cursor cur;
	struct kbloom_chain c;
	unsigned int i;
	uint8_t *buf;

	if (kbloom_chain_init(&c, &cp))
		exit(1);
	for (i = 0; i < keys; i++) {
		char key[16];
		int n = snprintf(key, sizeof(key), "%u", i);

		while (kbloom_chain_add(&c, key, n) == -EAGAIN)
			if (kbloom_chain_grow(&c))
				exit(1);
	}
	*len = kbloom_chain_image_bytes(&c, kbloom_chain_subs(&c));
	buf = malloc(*len);
	kbloom_chain_image_start(&c, &counts, &cur);
	if (!buf || kbloom_chain_image_emit(&c, &cur, buf, *len) != *len)
		exit(1);
	kbloom_chain_free(&c);
	return buf;
}

/*
 * Scalable filters' images: bits and counting, of one sub-filter and of
 * several, from their own header (bit 1), so the chain decoder accepts
 * them; into the fuzz target's fixed filter each is EXDEV.  One relabelled
 * version 3 (a fixed filter's, to the chain decoder) and a fixed filter's
 * relabelled 4 reach the other kind's refusals.
 */
static void chain_image_seeds(void)
{
	size_t len;
	uint8_t *img;

	img = make_chain_image(KBLOOM_TYPE_BITS, 2, 11, 20, &len);
	write_seed("image", "v4-bits-one-sub", 0x02, img, len);
	write_seed("image", "v4-into-fixed", 0x00, img, len);
	img[4] = KBLOOM_IMAGE_VERSION;
	write_seed("image", "v4-relabelled-v3", 0x03, img, len);
	free(img);
	img = make_chain_image(KBLOOM_TYPE_BITS, 2, 11, 400, &len);
	write_seed("image", "v4-bits-three-subs", 0x02 | 0x40, img, len);
	free(img);
	img = make_chain_image(KBLOOM_TYPE_COUNTING, 1, 12, 200, &len);
	write_seed("image", "v4-counting-e1", 0x02 | 0x04 | 0x20, img, len);
	free(img);
	img = make_chain_image(KBLOOM_TYPE_COUNTING, 4, 13, 300, &len);
	write_seed("image", "v4-counting-e4-fixcrc", 0x03 | 0x08, img, len);
	free(img);
	img = make_image(KBLOOM_TYPE_BITS, 2, 7, 11, 20, &len);
	img[4] = KBLOOM_IMAGE_VERSION_CHAIN;
	write_seed("image", "v3-relabelled-v4", 0x03, img, len);
	free(img);
}

static void image_seeds(void)
{
	/* The fuzz target's default destination: 2 blocks, k 7. */
	const uint64_t seed = 0x6b626c6f6f6d2121ULL;
	size_t len, hdr = sizeof(struct kbloom_image_header);
	uint8_t *img = make_image(KBLOOM_TYPE_BITS, 2, 7, seed, 20, &len);
	uint8_t *big;

	write_seed("image", "valid-default", 0x00, img, len);
	write_seed("image", "valid-default-fixcrc", 0x01, img, len);
	write_seed("image", "truncated-header", 0x00, img, hdr - 1);
	write_seed("image", "truncated-bits", 0x00, img, len - 5);
	img[len - 1] ^= 0x55;
	write_seed("image", "bad-crc", 0x00, img, len);
	img[len - 1] ^= 0x55;
	big = malloc(len + 1);
	memcpy(big, img, len);
	big[len] = 0;
	write_seed("image", "trailing-byte", 0x00, big, len + 1);
	free(big);
	img[0] ^= 1;
	write_seed("image", "bad-magic", 0x01, img, len);
	img[0] ^= 1;
	img[4] = 2;
	write_seed("image", "bad-version", 0x01, img, len);
	img[4] = 1;
	img[offsetof(struct kbloom_image_header, flags)] = 1;
	write_seed("image", "bad-flags", 0x01, img, len);
	img[offsetof(struct kbloom_image_header, flags)] = 0;
	img[offsetof(struct kbloom_image_header, seed)] ^= 1;
	write_seed("image", "other-seed", 0x01, img, len);
	write_seed("image", "other-seed-own-geometry", 0x03, img, len);
	free(img);

	img = make_image(KBLOOM_TYPE_BITS, 1, 1, 0, 0, &len);
	write_seed("image", "one-block-k1-empty", 0x02, img, len);
	free(img);
	img = make_image(KBLOOM_TYPE_BITS, 5, 16, 42, 500, &len);
	write_seed("image", "five-blocks-k16-full", 0x02 | 0x30, img, len);
	free(img);
	img = make_image(KBLOOM_TYPE_BITS, 64, 3, 7, 1000, &len);
	write_seed("image", "sixty-four-blocks", 0x02 | 0x08 | 0x70, img, len);
	free(img);
	img = make_image(KBLOOM_TYPE_COUNTING, 3, 7, 9, 60, &len);
	write_seed("image", "counting-three-blocks", 0x02 | 0x0c | 0x40, img,
		   len);
	free(img);
	/* Counters driven to the sticky maximum. */
	img = make_image(KBLOOM_TYPE_COUNTING, 1, 16, 9, 400, &len);
	write_seed("image", "counting-saturated", 0x03 | 0x08, img, len);
	free(img);
	/* Images of kbloom 0.1, versions 1 and 2: refused. */
	img = make_image(KBLOOM_TYPE_BITS, 2, 7, seed, 20, &len);
	write_old_seed("version1-default", 0x00, img, len, 1);
	free(img);
	img = make_image(KBLOOM_TYPE_COUNTING, 3, 7, 9, 60, &len);
	write_old_seed("version1-counting", 0x02 | 0x04, img, len, 1);
	free(img);
	img = make_image(KBLOOM_TYPE_BITS, 2, 7, seed, 20, &len);
	write_old_seed("version2-default", 0x00, img, len, 2);
	free(img);
	/* Windows: every cell width, rotated some, from their own header. */
	img = make_gen_image(KBLOOM_TYPE_WINDOW, 2, 2, 7, 5, 45, &len);
	write_seed("image", "window-g2", 0x02 | 0x10, img, len);
	free(img);
	img = make_gen_image(KBLOOM_TYPE_WINDOW, 4, 1, 5, 5, 100, &len);
	write_seed("image", "window-g4", 0x03 | 0x04, img, len);
	free(img);
	img = make_gen_image(KBLOOM_TYPE_WINDOW, 7, 1, 9, 6, 200, &len);
	write_seed("image", "window-g7-many-rotations", 0x02 | 0x50, img,
		   len);
	free(img);
	img = make_gen_image(KBLOOM_TYPE_WINDOW, 63, 1, 3, 6, 80, &len);
	write_seed("image", "window-g63", 0x02, img, len);
	free(img);
	chain_image_seeds();
}

/* Little-endian field writers for geometry inputs. */
static size_t put(uint8_t *p, size_t at, uint64_t v, unsigned int bytes)
{
	unsigned int i;

	for (i = 0; i < bytes; i++)
		p[at + i] = v >> (8 * i);
	return at + bytes;
}

/* After the operation byte, the generations byte (0: not a window). */
static void geometry_seed(const char *name, uint8_t op, const uint64_t *v,
			  const unsigned int *widths, unsigned int n)
{
	uint8_t buf[64] = { 0 };
	size_t at = 1;
	unsigned int i;

	for (i = 0; i < n; i++)
		at = put(buf, at, v[i], widths[i]);
	write_seed("geometry", name, op, buf, at);
}

static void geometry_seeds(void)
{
	/* capacity (u64 + shift), fp (u32 + shift) */
	const unsigned int rate_w[] = { 8, 1, 4, 1 };
	const uint64_t rate_1m_1pct[] = { 1000000, 0, 10000000, 0 };
	const uint64_t rate_tiny[] = { 1, 0, 999999999, 0 };
	const uint64_t rate_huge[] = { UINT64_MAX, 0, 1, 0 };
	/* bits (u64 + shift), k, capacity (u64 + shift) */
	const unsigned int bits_w[] = { 8, 1, 1, 8, 1 };
	const uint64_t bits_8m[] = { 8 << 20, 0, 0, 0, 0 };
	const uint64_t bits_odd_k7[] = { 513, 0, 7, 100, 0 };
	const uint64_t bits_max[] = { (1ULL << 40), 0, 0, UINT64_MAX, 0 };
	/* capacity (u64 + shift), bits per key, k */
	const unsigned int bpk_w[] = { 8, 1, 1, 1 };
	const uint64_t bpk_10[] = { 1000000, 0, 10, 0 };
	const uint64_t bpk_64_k16[] = { 1ULL << 32, 0, 64, 16 };
	/* nblocks, n, more (u64 + shift each), k */
	const unsigned int f_w[] = { 8, 1, 8, 1, 8, 1, 1 };
	const uint64_t f_typical[] = { 19532, 0, 1000000, 0, 1000, 0, 7 };
	const uint64_t f_saturated[] = { 1, 0, 1 << 20, 0, 1, 0, 16 };
	const uint64_t f_wide[] = { UINT64_MAX, 0, UINT64_MAX, 0, 1, 0, 1 };
	/*
	 * A scalable filter's sub-filter: capacity (u64 + shift), fp (u32),
	 * expansion, index (u16: with bit 15, index % 1100, else % 8), fp's
	 * shift, seed (u64 + shift).
	 */
	const unsigned int c_w[] = { 8, 1, 4, 1, 2, 1, 8, 1 };
	const uint64_t c_1m_e2_sub3[] = { 1000000, 0, 10000000, 2, 3, 0, 7, 0 };
	const uint64_t c_1m_e2_sub0[] = { 1000000, 0, 10000000, 2, 0, 0,
					  777777, 0 };
	/* 0x8000 + 155: index 1023, the last of expansion 1 */
	const uint64_t c_e1_last[] = { 100, 0, 1000000, 1, 0x809b, 0, 9, 0 };
	/* capacity 1, expansion 2: 64 sub-filters, index 64 is past them */
	const uint64_t c_e2_past[] = { 1, 0, 1000000, 2, 0x8000 + 296, 0, 9,
				       0 };
	const uint64_t c_e17[] = { 1000, 0, 10000000, 17, 0, 0, 1, 0 };
	/* nblocks, capacity (u64 + shift), seed, k, type, fp */
	const unsigned int v_w[] = { 8, 1, 8, 1, 8, 1, 1, 4 };
	const uint64_t v_ok[] = { 4, 0, 100, 0, 1, 8, 0, 0 };

	geometry_seed("rate-1m-1pct", 0, rate_1m_1pct, rate_w, 4);
	geometry_seed("rate-tiny", 0, rate_tiny, rate_w, 4);
	geometry_seed("rate-huge", 0, rate_huge, rate_w, 4);
	geometry_seed("bits-8m", 1, bits_8m, bits_w, 5);
	geometry_seed("bits-odd-k7", 1, bits_odd_k7, bits_w, 5);
	geometry_seed("bits-max", 1, bits_max, bits_w, 5);
	geometry_seed("bpk-10", 2, bpk_10, bpk_w, 4);
	geometry_seed("bpk-64-k16", 2, bpk_64_k16, bpk_w, 4);
	geometry_seed("formula-typical", 3, f_typical, f_w, 7);
	geometry_seed("formula-saturated", 3, f_saturated, f_w, 7);
	geometry_seed("formula-wide", 3, f_wide, f_w, 7);
	geometry_seed("validate-ok", 4, v_ok, v_w, 8);
	/* The same inputs for counting filters: type 1 in the high bits. */
	geometry_seed("counting-rate-1m-1pct", 0x10, rate_1m_1pct, rate_w, 4);
	geometry_seed("counting-bits-odd-k7", 0x11, bits_odd_k7, bits_w, 5);
	geometry_seed("counting-bpk-10", 0x12, bpk_10, bpk_w, 4);
	geometry_seed("counting-formula-typical", 0x13, f_typical, f_w, 7);
	geometry_seed("bad-type-rate", 0xf0, rate_1m_1pct, rate_w, 4);
	geometry_seed("chain-1m-e2-sub3", 5, c_1m_e2_sub3, c_w, 8);
	geometry_seed("chain-1m-e2-sub0", 5, c_1m_e2_sub0, c_w, 8);
	geometry_seed("chain-e1-last", 5, c_e1_last, c_w, 8);
	geometry_seed("chain-e2-past-end", 5, c_e2_past, c_w, 8);
	geometry_seed("chain-expansion-17", 5, c_e17, c_w, 8);
	geometry_seed("counting-chain-1m-e2-sub3", 0x15, c_1m_e2_sub3, c_w, 8);
	geometry_seed("window-chain", 0x25, c_1m_e2_sub3, c_w, 8);
}

int main(int argc, char **argv)
{
	char path[512];

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	dir = argv[1];
	snprintf(path, sizeof(path), "%s/image", dir);
	mkdir(dir, 0755);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/geometry", dir);
	mkdir(path, 0755);
	image_seeds();
	geometry_seeds();
	return 0;
}
