// SPDX-License-Identifier: GPL-2.0
/*
 * libkbloom's mapping without the device (make -C userspace test): the
 * header check, errno by errno, and mapped checks over memory laid out as
 * the module lays out a mapping (kmod/kbloom_mmap.c: a header page, then
 * the cells), filled by the core's own kbloom_add().  The same bytes in a
 * memfd go through kbl_map_open()'s two mmap() calls.  What needs the
 * module (the sequence moving during a check, destroy, the statistics)
 * is tested in the VM (tests/vm/test-libkbloom.c, test-mmap-answers.c).
 */
#include "../tests/vm/vmtest.h"

#include <sys/mman.h>

#include "../kmod/kbloom_core.h"
#include "libkbloom_map.h"

#define SUITE	"libkbloom-map"
#define NKEYS	5000

static size_t page;

/* A mapping's bytes: header page and cells, as the module builds them. */
struct mapping_bytes {
	char *base;
	size_t len;
	struct kbloom_map_header *hdr;
	struct kbloom_filter src;	/* the core's filter they copy */
};

static int key_of(char *buf, size_t size, const char *tag, int i)
{
	return snprintf(buf, size, "%s-%d", tag, i);
}

/* A filter of type with keys "in-<i>", i < NKEYS, and its mapping bytes. */
static const char *build(struct mapping_bytes *m, uint32_t type)
{
	struct kbloom_geometry geo;
	char key[32];
	int i, n;

	memset(m, 0, sizeof(*m));
	EXPECT(!kbloom_geometry_from_rate_type(&geo, type, NKEYS, 10000000),
	       "geometry");
	geo.seed = 0x1234567890abcdefULL;
	EXPECT(!kbloom_filter_init(&m->src, &geo), "filter");
	for (i = 0; i < NKEYS; i++) {
		n = key_of(key, sizeof(key), "in", i);
		kbloom_add(&m->src, key, n);
	}
	m->len = page + (kbloom_geometry_bytes(&geo) + page - 1) / page * page;
	m->base = aligned_alloc(page, m->len);
	EXPECT(m->base, "memory");
	memset(m->base, 0, m->len);
	m->hdr = (struct kbloom_map_header *)m->base;
	m->hdr->magic = KBLOOM_MAP_MAGIC;
	m->hdr->version = KBLOOM_MAP_VERSION;
	m->hdr->header_bytes = sizeof(*m->hdr);
	m->hdr->type = geo.type;
	m->hdr->k = geo.k;
	m->hdr->nblocks = geo.nblocks;
	m->hdr->seed = geo.seed;
	m->hdr->capacity = geo.capacity;
	m->hdr->cells_offset = page;
	m->hdr->cells_bytes = kbloom_geometry_bytes(&geo);
	m->hdr->map_bytes = m->len;
	m->hdr->page_size = page;
	memcpy(m->base + page, m->src.words, m->hdr->cells_bytes);
	return NULL;
}

static void unbuild(struct mapping_bytes *m)
{
	kbloom_filter_free(&m->src);
	free(m->base);
}

/*
 * Each way a header can be wrong, applied to a good one: every one must
 * give -EPROTO from the check and from attach.
 */
struct bad_header {
	const char *what;
	void (*spoil)(struct kbloom_map_header *h);
};

#define SPOIL(name, stmt)						\
	static void spoil_##name(struct kbloom_map_header *h) { stmt; }
SPOIL(magic, h->magic = KBLOOM_IMAGE_MAGIC)
SPOIL(version_new, h->version = KBLOOM_MAP_VERSION + 1)
SPOIL(version_zero, h->version = 0)
SPOIL(header_short, h->header_bytes = sizeof(*h) - 8)
SPOIL(page_size, h->page_size = page * 4)
SPOIL(type, h->type = 2)
SPOIL(k_zero, h->k = 0)
SPOIL(k_big, h->k = KBLOOM_K_MAX + 1)
SPOIL(nblocks_zero, h->nblocks = 0)
SPOIL(nblocks_huge, h->nblocks = KBLOOM_MAX_BLOCKS + 1)
SPOIL(nblocks_more, h->nblocks++)
SPOIL(cells_bytes, h->cells_bytes += 64)
SPOIL(cells_offset_unaligned, h->cells_offset = page + 64)
SPOIL(cells_offset_zero, h->cells_offset = 0)
SPOIL(map_bytes_unaligned, h->map_bytes -= 64)
SPOIL(map_bytes_short, h->map_bytes -= page)
SPOIL(map_bytes_long, h->map_bytes += page)
SPOIL(map_bytes_wrap, h->cells_offset = UINT64_MAX - page + 1)

static const struct bad_header bad_headers[] = {
#define BAD(name) { #name, spoil_##name }
	BAD(magic), BAD(version_new), BAD(version_zero), BAD(header_short),
	BAD(page_size), BAD(type), BAD(k_zero), BAD(k_big),
	BAD(nblocks_zero), BAD(nblocks_huge), BAD(nblocks_more),
	BAD(cells_bytes), BAD(cells_offset_unaligned), BAD(cells_offset_zero),
	BAD(map_bytes_unaligned), BAD(map_bytes_short), BAD(map_bytes_long),
	BAD(map_bytes_wrap),
#undef BAD
};

static const char *test_header_good(void)
{
	struct mapping_bytes m;
	struct kbl_map *map;
	const char *why;

	why = build(&m, KBLOOM_TYPE_BITS);
	if (why)
		return why;
	EXPECT(kbl_map_header_check(m.hdr, m.len, page) == 0, "refused");
	/* A longer header of the same version keeps its known prefix. */
	m.hdr->header_bytes = sizeof(*m.hdr) + 64;
	EXPECT(kbl_map_header_check(m.hdr, m.len, page) == 0,
	       "longer header refused");
	EXPECT(kbl_map_attach(m.base, m.len, &map) == 0, "attach");
	EXPECT(kbl_map_hdr(map) == m.hdr, "header pointer");
	kbl_map_close(map);
	unbuild(&m);
	return NULL;
}

/* One case per bad field, so each rejection has its own PASS or FAIL. */
static void test_header_bad(void)
{
	size_t i;

	for (i = 0; i < sizeof(bad_headers) / sizeof(bad_headers[0]); i++) {
		char name[64];
		struct mapping_bytes m;
		struct kbl_map *map = NULL;
		const char *why = build(&m, KBLOOM_TYPE_BITS);
		int check, attach;

		snprintf(name, sizeof(name), "header-%s", bad_headers[i].what);
		if (!why) {
			bad_headers[i].spoil(m.hdr);
			check = kbl_map_header_check(m.hdr, m.len, page);
			attach = kbl_map_attach(m.base, m.len, &map);
			if (check != -EPROTO || attach != -EPROTO || map)
				why = vt_fail("check %d, attach %d, want -EPROTO",
					      check, attach);
			unbuild(&m);
		}
		vt_report(SUITE, name, why);
	}
}

static const char *test_attach_short(void)
{
	struct mapping_bytes m;
	struct kbl_map *map = NULL;
	const char *why = build(&m, KBLOOM_TYPE_BITS);

	if (why)
		return why;
	EXPECT(kbl_map_attach(m.base, m.len - page, &map) == -EPROTO && !map,
	       "memory shorter than map_bytes accepted");
	EXPECT(kbl_map_attach(m.base, sizeof(*m.hdr) - 1, &map) == -EPROTO &&
	       !map, "memory shorter than a header accepted");
	unbuild(&m);
	return NULL;
}

static const char *test_attach_dead(void)
{
	struct mapping_bytes m;
	struct kbl_map *map = NULL;
	const char *why = build(&m, KBLOOM_TYPE_BITS);

	if (why)
		return why;
	m.hdr->flags |= KBLOOM_MAP_DEAD;
	EXPECT(kbl_map_attach(m.base, m.len, &map) == -ENODEV && !map,
	       "a dead filter attached");
	unbuild(&m);
	return NULL;
}

static bool bit(const uint64_t *w, size_t i)
{
	return w[i / 64] >> (i % 64) & 1;
}

/*
 * Keys "in-<i>" and "out-<i>": the one-key, packed and pointer checks of
 * the mapping must give the core's own answer for each, chunk by chunk.
 */
static const char *compare(const struct kbl_map *map,
			   const struct kbloom_filter *src)
{
	static char data[KBL_MAP_CHUNK * 32];
	const void *ptrs[KBL_MAP_CHUNK];
	size_t plens[KBL_MAP_CHUNK];
	uint32_t lens[KBL_MAP_CHUNK];
	uint64_t bits[KBL_MAP_CHUNK / 64], bits2[KBL_MAP_CHUNK / 64];
	uint64_t hits, hits2, maybe = 0;
	int t, base, i;

	for (t = 0; t < 2; t++) {
		for (base = 0; base < NKEYS; base += KBL_MAP_CHUNK) {
			int n = NKEYS - base < KBL_MAP_CHUNK ? NKEYS - base :
							       KBL_MAP_CHUNK;
			size_t off = 0;
			uint64_t want_hits = 0;

			for (i = 0; i < n; i++) {
				int len = key_of(data + off, 32,
						 t ? "out" : "in", base + i);

				lens[i] = len;
				plens[i] = len;
				ptrs[i] = data + off;
				off += len;
			}
			EXPECT(!kbl_map_check_packed(map, data, lens, n, bits,
						     &hits), "packed");
			EXPECT(!kbl_map_check_ptrs(map, ptrs, plens, n, bits2,
						   &hits2), "pointers");
			for (i = 0; i < n; i++) {
				bool want = kbloom_lookup(src, ptrs[i],
							  lens[i]);
				int one = kbl_map_check_one(map, ptrs[i],
							    lens[i]);

				EXPECT(one == want, "key %s-%d: one %d, core %d",
				       t ? "out" : "in", base + i, one, want);
				EXPECT(bit(bits, i) == want &&
				       bit(bits2, i) == want,
				       "key %d: packed %d, pointers %d, core %d",
				       base + i, bit(bits, i), bit(bits2, i),
				       want);
				want_hits += want;
			}
			for (i = n; i < (n + 63) / 64 * 64; i++)
				EXPECT(!bit(bits, i) && !bit(bits2, i),
				       "bit %d past the chunk set", i);
			EXPECT(hits == want_hits && hits2 == want_hits,
			       "hits %llu / %llu, core %llu",
			       (unsigned long long)hits,
			       (unsigned long long)hits2,
			       (unsigned long long)want_hits);
			if (!t)
				EXPECT(hits == (uint64_t)n,
				       "false negatives in chunk %d", base);
			else
				maybe += hits;
		}
	}
	/* Sized for 1 %: far more than 5 % of absent keys would be a bug. */
	EXPECT(maybe < NKEYS / 20, "%llu of %d absent keys maybe",
	       (unsigned long long)maybe, NKEYS);
	return NULL;
}

static const char *answers(uint32_t type)
{
	struct mapping_bytes m;
	struct kbl_map *map;
	const char *why = build(&m, type);

	if (why)
		return why;
	EXPECT(!kbl_map_attach(m.base, m.len, &map), "attach");
	why = compare(map, &m.src);
	kbl_map_close(map);
	unbuild(&m);
	return why;
}

static const char *test_answers_bits(void)
{
	return answers(KBLOOM_TYPE_BITS);
}

static const char *test_answers_counting(void)
{
	return answers(KBLOOM_TYPE_COUNTING);
}

/*
 * want: -EAGAIN (a rewrite running), -ENODEV (dead), or 1: the present
 * key "in-1" found by each call.
 */
static const char *expect_all(const struct kbl_map *map, int want)
{
	static const char key[] = "in-1";
	const void *ptr = key;
	size_t plen = 4;
	uint32_t len = 4;
	uint64_t bits[1], hits;
	int r;

	r = kbl_map_check_one(map, key, 4);
	EXPECT(r == want, "one: %d, want %d", r, want);
	/* The chunk calls say 0 where the one-key call says 1 or 0. */
	want = want < 0 ? want : 0;
	r = kbl_map_check_packed(map, key, &len, 1, bits, &hits);
	EXPECT(r == want, "packed: %d, want %d", r, want);
	EXPECT(r || (bits[0] == 1 && hits == 1), "packed: not found");
	r = kbl_map_check_ptrs(map, &ptr, &plen, 1, bits, &hits);
	EXPECT(r == want, "pointers: %d, want %d", r, want);
	EXPECT(r || (bits[0] == 1 && hits == 1), "pointers: not found");
	return NULL;
}

static const char *test_sequence_odd(void)
{
	struct mapping_bytes m;
	struct kbl_map *map;
	const char *why = build(&m, KBLOOM_TYPE_BITS);

	if (why)
		return why;
	EXPECT(!kbl_map_attach(m.base, m.len, &map), "attach");
	m.hdr->sequence = 3;
	why = expect_all(map, -EAGAIN);
	if (!why) {
		/* Even again, one rewrite later: answers come back. */
		m.hdr->sequence = 4;
		why = expect_all(map, 1);
	}
	kbl_map_close(map);
	unbuild(&m);
	return why;
}

static const char *test_dead_after_attach(void)
{
	struct mapping_bytes m;
	struct kbl_map *map;
	const char *why = build(&m, KBLOOM_TYPE_COUNTING);

	if (why)
		return why;
	EXPECT(!kbl_map_attach(m.base, m.len, &map), "attach");
	m.hdr->flags |= KBLOOM_MAP_DEAD;
	why = expect_all(map, -ENODEV);
	/* Dead wins over a rewrite that never ended. */
	m.hdr->sequence = 7;
	if (!why)
		why = expect_all(map, -ENODEV);
	kbl_map_close(map);
	unbuild(&m);
	return why;
}

/* The same bytes in a file: kbl_map_open()'s header-page-first mmap(). */
static int memfd_of(const struct mapping_bytes *m)
{
	int fd = memfd_create("kbloom-map-test", MFD_CLOEXEC);

	if (fd < 0)
		return -1;
	if (write(fd, m->base, m->len) != (ssize_t)m->len) {
		close(fd);
		return -1;
	}
	return fd;
}

static const char *test_open_memfd(void)
{
	struct mapping_bytes m;
	struct kbl_map *map;
	const char *why = build(&m, KBLOOM_TYPE_COUNTING);
	int fd, ret;

	if (why)
		return why;
	fd = memfd_of(&m);
	EXPECT(fd >= 0, "memfd: %s", strerror(errno));
	ret = kbl_map_open(fd, &map);
	EXPECT(!ret, "kbl_map_open: %d", ret);
	EXPECT(kbl_map_hdr(map)->map_bytes == m.len &&
	       (void *)kbl_map_hdr(map) != (void *)m.base, "not mapped");
	why = compare(map, &m.src);
	kbl_map_close(map);
	close(fd);
	unbuild(&m);
	return why;
}

static const char *test_open_bad_magic(void)
{
	struct mapping_bytes m;
	struct kbl_map *map = NULL;
	const char *why = build(&m, KBLOOM_TYPE_BITS);
	int fd, ret;

	if (why)
		return why;
	m.hdr->magic = 0;
	fd = memfd_of(&m);
	EXPECT(fd >= 0, "memfd: %s", strerror(errno));
	ret = kbl_map_open(fd, &map);
	EXPECT(ret == -EPROTO && !map, "kbl_map_open: %d, want -EPROTO", ret);
	close(fd);
	unbuild(&m);
	return NULL;
}

/* mmap()'s own errno comes back: a write-only file cannot be mapped. */
static const char *test_open_write_only(void)
{
	struct mapping_bytes m;
	struct kbl_map *map = NULL;
	const char *why = build(&m, KBLOOM_TYPE_BITS);
	char path[] = "/tmp/kbloom-map-test.XXXXXX";
	int fd, wfd, ret;

	if (why)
		return why;
	fd = mkstemp(path);
	EXPECT(fd >= 0, "mkstemp: %s", strerror(errno));
	wfd = open(path, O_WRONLY | O_CLOEXEC);
	unlink(path);
	close(fd);
	EXPECT(wfd >= 0, "open %s write-only: %s", path, strerror(errno));
	EXPECT(write(wfd, m.base, m.len) == (ssize_t)m.len, "write");
	ret = kbl_map_open(wfd, &map);
	EXPECT(ret == -EACCES && !map, "kbl_map_open: %d, want -EACCES", ret);
	close(wfd);
	unbuild(&m);
	return NULL;
}

static const struct vt_case cases[] = {
	VT_NAMED("header-good", test_header_good),
	VT_NAMED("attach-short", test_attach_short),
	VT_NAMED("attach-dead", test_attach_dead),
	VT_NAMED("answers-bits", test_answers_bits),
	VT_NAMED("answers-counting", test_answers_counting),
	VT_NAMED("sequence-odd", test_sequence_odd),
	VT_NAMED("dead-after-attach", test_dead_after_attach),
	VT_NAMED("open-memfd", test_open_memfd),
	VT_NAMED("open-bad-magic", test_open_bad_magic),
	VT_NAMED("open-write-only", test_open_write_only),
};

int main(void)
{
	page = (size_t)sysconf(_SC_PAGESIZE);
	test_header_bad();
	return vt_run(SUITE, cases, sizeof(cases) / sizeof(cases[0]));
}
