/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the mmap programs share (test-mmap.c: the mapping as memory, its
 * layout, refusals and life; test-mmap-answers.c: what a reader of it is
 * told): the mapping as a reader makes it, key sets with the core's view
 * of each key, the same checks by ioctl and through the mapping, and the
 * one runner of a case for every type.  One suite, "mmap", for both.
 */
#ifndef KBLOOM_MMAP_TEST_H
#define KBLOOM_MMAP_TEST_H

#include <sys/mman.h>

#include "vmtest.h"
#include "kbloom_core.h"

#define SUITE	"mmap"
#define SEED	0x6d6d61705eed0001ULL
/* Keys per CHECK ioctl and per kbloom_lookup_batch() call. */
#define BATCH	4096

static size_t page;	/* set by main() first */

/* ---- filters ---- */

/* header page + the cells rounded up to pages */
static inline size_t map_bytes_of(const struct kbloom_info *info)
{
	return page + ((info->nblocks * 64 + page - 1) & ~(page - 1));
}

/* ---- the mapping ---- */

struct map {
	uint8_t *base;
	size_t len;
	const struct kbloom_map_header *hdr;
	struct kbloom_filter f;	/* the core's view of the mapped cells */
};

static inline uint64_t map_seq(const struct map *m)
{
	return __atomic_load_n(&m->hdr->sequence, __ATOMIC_ACQUIRE);
}

static inline const uint8_t *map_cells(const struct map *m)
{
	return m->base + m->hdr->cells_offset;
}

/*
 * Maps all of the filter behind fd as a reader does: the header page
 * alone for map_bytes, then the whole; m->f is the core's filter over the
 * mapped cells.  0, or -1 with errno (EPROTO: a geometry the core refuses).
 */
static inline int map_whole(int fd, struct map *m)
{
	const struct kbloom_map_header *h;
	size_t len;

	memset(m, 0, sizeof(*m));
	h = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED)
		return -1;
	len = h->map_bytes;
	munmap((void *)h, page);
	m->base = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (m->base == MAP_FAILED) {
		m->base = NULL;
		return -1;
	}
	m->len = len;
	m->hdr = (const void *)m->base;
	kbloom_geometry_of_map(&m->f.geo, m->hdr);
	m->f.words = (u64 *)(m->base + m->hdr->cells_offset);
	m->f.counts = NULL;
	if (kbloom_geometry_validate(&m->f.geo)) {
		munmap(m->base, len);
		m->base = NULL;
		errno = EPROTO;
		return -1;
	}
	return 0;
}

/*
 * A window's live planes, loaded (acquire) once for a check or a batch
 * into the core's view of the mapping, as a reader must (uapi header,
 * "Mapping").  m->f is the caller's own memory, never const itself.
 */
static inline void map_live(const struct map *m)
{
	struct kbloom_filter *f = (struct kbloom_filter *)&m->f;

	f->win.live = __atomic_load_n(&m->hdr->live, __ATOMIC_ACQUIRE);
}

static inline void unmap(struct map *m)
{
	if (m->base)
		munmap(m->base, m->len);
	m->base = NULL;
}

/* ---- keys ---- */

/* A vt_keys set with the core's view of each key. */
struct keyset {
	struct vt_keys k;
	struct kbloom_key *keys;
};

static inline void keyset_free(struct keyset *s)
{
	vt_keys_free(&s->k);
	free(s->keys);
	s->keys = NULL;
}

static inline int keyset_make(struct keyset *s, const char *prefix,
			      uint64_t first, uint32_t n)
{
	uint64_t off = 0;
	uint32_t i;

	memset(s, 0, sizeof(*s));
	s->keys = calloc(n ? n : 1, sizeof(*s->keys));
	if (!s->keys || vt_keys_make(&s->k, prefix, first, n)) {
		keyset_free(s);
		return -1;
	}
	for (i = 0; i < n; i++) {
		s->keys[i].data = s->k.bytes + off;
		s->keys[i].len = s->k.lens[i];
		off += s->k.lens[i];
	}
	return 0;
}

static inline uint64_t *bitmap_new(uint32_t n)
{
	return calloc((n + 63) / 64 + 1, sizeof(uint64_t));
}

/*
 * ADD, CHECK or DELETE every key of s, BATCH keys an ioctl; results (n
 * bits, may be NULL) gets every answer.  The hits, or -1 with errno.
 */
static inline long keyset_ioctl(int fd, unsigned long cmd,
				const struct keyset *s, uint64_t *results)
{
	const char *end = s->k.bytes + s->k.keys_len;
	long hits = 0;
	uint32_t i;

	for (i = 0; i < s->k.count; i += BATCH) {
		uint32_t n = s->k.count - i < BATCH ? s->k.count - i : BATCH;
		const char *stop = i + n < s->k.count ?
				   (const char *)s->keys[i + n].data : end;
		struct kbloom_batch b;

		memset(&b, 0, sizeof(b));
		b.keys = (uintptr_t)s->keys[i].data;
		b.lens = (uintptr_t)(s->k.lens + i);
		b.keys_len = stop - (const char *)s->keys[i].data;
		b.count = n;
		b.results = results ? (uintptr_t)(results + i / 64) : 0;
		if (ioctl(fd, cmd, &b))
			return -1;
		hits += b.hits;
	}
	return hits;
}

/* The same checks through the mapping, with the core's batch lookup. */
static inline long keyset_mapped(const struct map *m,
				 const struct keyset *s, uint64_t *results)
{
	long hits = 0;
	uint32_t i;

	for (i = 0; i < s->k.count; i += BATCH) {
		uint32_t n = s->k.count - i < BATCH ? s->k.count - i : BATCH;

		map_live(m);
		hits += kbloom_lookup_batch(&m->f, s->keys + i, n,
					    (unsigned long *)(results + i / 64));
	}
	return hits;
}

/* Keys whose answers differ between two result bitmaps of n bits. */
static inline uint32_t bitmap_diff(const uint64_t *a, const uint64_t *b,
				   uint32_t n)
{
	uint32_t i, diff = 0;

	for (i = 0; i < n; i++)
		diff += ((a[i / 64] ^ b[i / 64]) >> (i % 64)) & 1;
	return diff;
}

/*
 * Mapped answers equal the ioctl's for every key of s; *hits gets their
 * count.  NULL or what differed.
 */
static inline const char *mapped_equals_ioctl(int fd, const struct map *m,
					      const struct keyset *s, long *hits)
{
	uint64_t *by_map = bitmap_new(s->k.count);
	uint64_t *by_ioctl = bitmap_new(s->k.count);
	long hm, hi;
	uint32_t diff;

	if (!by_map || !by_ioctl) {
		free(by_map);
		free(by_ioctl);
		return "out of memory";
	}
	hm = keyset_mapped(m, s, by_map);
	hi = keyset_ioctl(fd, KBLOOM_IOC_CHECK, s, by_ioctl);
	diff = hi < 0 ? 0 : bitmap_diff(by_map, by_ioctl, s->k.count);
	free(by_map);
	free(by_ioctl);
	EXPECT(hi >= 0, "CHECK: %s", vt_errno_name(errno));
	EXPECT(!diff && hm == hi, "%u of %u answers differ (mapped %ld hits, "
	       "ioctl %ld)", diff, s->k.count, hm, hi);
	if (hits)
		*hits = hm;
	return NULL;
}

/* The cells of the filter's image (read()), as they are now. */
static inline uint8_t *image_cells(int fd, size_t *len, uint8_t **img)
{
	size_t img_len;

	*img = vt_read_image(fd, 1 << 16, &img_len);
	if (!*img)
		return NULL;
	*len = img_len - VT_IMAGE_HDR - 4;
	return *img + VT_IMAGE_HDR;
}

/* The mapped cells equal the image's, byte for byte (little-endian). */
static inline const char *cells_match_image(int fd, const struct map *m)
{
	uint8_t *img;
	size_t len;
	const uint8_t *cells = image_cells(fd, &len, &img);
	bool same;

	EXPECT(cells, "read image: %s", vt_errno_name(errno));
	same = len == m->hdr->cells_bytes && !memcmp(cells, map_cells(m), len);
	free(img);
	EXPECT(same, "mapped cells differ from the image's (%zu bytes)", len);
	return NULL;
}

static inline const char *mappings_are(const char *name, int fd,
				       uint64_t want)
{
	struct kbloom_info info;
	uint64_t v;

	EXPECT_OK(vt_sysfs_u64(name, "mappings", &v));
	EXPECT(v == want, "sysfs mappings %llu, want %llu",
	       (unsigned long long)v, (unsigned long long)want);
	if (fd >= 0) {
		EXPECT_OK(vt_info(fd, &info));
		EXPECT(info.mappings == want, "GET_INFO mappings %llu, want %llu",
		       (unsigned long long)info.mappings,
		       (unsigned long long)want);
	}
	return NULL;
}

/* ---- the run ---- */

typedef const char *(*mcase_fn)(const struct vt_type *t, const void *arg);

/* name/<type> for every type with the capabilities need. */
static inline void run_variants(const char *name, mcase_fn fn,
				const void *arg, uint32_t need)
{
	const struct vt_type *t;

	vt_for_each_type(t, need)
		vt_report_typed(SUITE, name, t, fn(t, arg));
}

#endif
