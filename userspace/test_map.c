// SPDX-License-Identifier: GPL-2.0
/*
 * libkbloom's mapping without the device (make -C userspace test): the
 * header check, errno by errno, and mapped checks over memory laid out as
 * the module lays out a mapping (kmod/kbloom_mmap.c: a header page, then
 * the cells), filled by the core's own kbloom_add().  The same bytes in a
 * memfd go through kbl_map_open()'s two mmap() calls.  A scalable
 * filter's mapping (a table of sub-filters, each one's cells on pages of
 * their own) from the core's own chain: its answers, its staleness after
 * a growth or a moved sequence, and each way its table can be wrong.  What needs the
 * module (the sequence moving during a check, destroy, the statistics)
 * is tested in the VM (tests/vm/test-libkbloom.c, test-mmap-answers.c).
 */
#include "../tests/vm/vmtest.h"

#include <sys/mman.h>

#include "../kmod/core/kbloom_chain.h"
#include "libkbloom_map.h"

#define SUITE	"libkbloom-map"
#define NKEYS	5000
#define WINDOW_GENERATIONS	4

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

/* The module's side of a mapping: the cells, and a window's live planes. */
static void sync_cells(struct mapping_bytes *m)
{
	memcpy(m->base + page, m->src.words, m->hdr->cells_bytes);
	m->hdr->live = m->src.geo.type == KBLOOM_TYPE_WINDOW ?
		       m->src.win.live : 0;
	m->hdr->rotations = m->src.win.rotations;
}

/* A filter of type with keys "in-<i>", i < NKEYS, and its mapping bytes. */
static const char *build(struct mapping_bytes *m, uint32_t type)
{
	struct kbloom_geometry geo;
	char key[32];
	int i, n;

	memset(m, 0, sizeof(*m));
	/*
	 * A window of 4 generations, sized for NKEYS per generation: its
	 * NKEYS keys all go to the current one.
	 */
	EXPECT(!kbloom_geometry_from_rate_gen(&geo, type,
					      type == KBLOOM_TYPE_WINDOW ?
					      WINDOW_GENERATIONS : 0,
					      type == KBLOOM_TYPE_WINDOW ?
					      NKEYS * (WINDOW_GENERATIONS - 1) :
					      NKEYS, 10000000), "geometry");
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
	m->hdr->generations = geo.generations;
	m->hdr->plane_order = geo.plane_order;
	sync_cells(m);
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
SPOIL(version_new, h->version = KBLOOM_MAP_VERSION_CHAIN + 1)
/* A scalable filter's version on a header that has no table. */
SPOIL(version_chain, h->version = KBLOOM_MAP_VERSION_CHAIN)
SPOIL(version_zero, h->version = 0)
/* A kbloom 0.1 module's mapping: its cells are placed otherwise. */
SPOIL(version_old, h->version = 1)
SPOIL(header_short, h->header_bytes = sizeof(*h) - 8)
SPOIL(page_size, h->page_size = page * 4)
SPOIL(type, h->type = KBLOOM_TYPE_WINDOW + 1)
SPOIL(type_window, h->type = KBLOOM_TYPE_WINDOW)
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
SPOIL(generations_on_bits, h->generations = 4)
SPOIL(plane_order_on_bits, h->plane_order = 3)

static const struct bad_header bad_headers[] = {
#define BAD(name) { #name, spoil_##name }
	BAD(magic), BAD(version_new), BAD(version_chain), BAD(version_zero),
	BAD(version_old),
	BAD(header_short), BAD(page_size), BAD(type), BAD(type_window),
	BAD(k_zero), BAD(k_big),
	BAD(nblocks_zero), BAD(nblocks_huge), BAD(nblocks_more),
	BAD(cells_bytes), BAD(cells_offset_unaligned), BAD(cells_offset_zero),
	BAD(map_bytes_unaligned), BAD(map_bytes_short), BAD(map_bytes_long),
	BAD(map_bytes_wrap), BAD(generations_on_bits),
	BAD(plane_order_on_bits),
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

/* A window's header, spoiled: the same -EPROTO. */
SPOIL(window_generations_zero, h->generations = 0)
SPOIL(window_generations_one, h->generations = 1)
SPOIL(window_generations_big, h->generations = KBLOOM_GENERATIONS_MAX + 1)
SPOIL(window_plane_order_low, h->plane_order--)
SPOIL(window_plane_order_high, h->plane_order++)
SPOIL(window_generations_other_planes, h->generations = 8)
SPOIL(window_as_bits, h->type = KBLOOM_TYPE_BITS)

static const struct bad_header bad_window_headers[] = {
#define BAD(name) { #name, spoil_##name }
	BAD(window_generations_zero), BAD(window_generations_one),
	BAD(window_generations_big), BAD(window_plane_order_low),
	BAD(window_plane_order_high), BAD(window_generations_other_planes),
	BAD(window_as_bits),
#undef BAD
};

/* One case per bad field, so each rejection has its own PASS or FAIL. */
static void header_bad(const struct bad_header *bad, size_t n, uint32_t type)
{
	size_t i;

	for (i = 0; i < n; i++) {
		char name[64];
		struct mapping_bytes m;
		struct kbl_map *map = NULL;
		const char *why = build(&m, type);
		int check, attach;

		snprintf(name, sizeof(name), "header-%s", bad[i].what);
		if (!why) {
			bad[i].spoil(m.hdr);
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

static void test_header_bad(void)
{
	header_bad(bad_headers, sizeof(bad_headers) / sizeof(bad_headers[0]),
		   KBLOOM_TYPE_BITS);
	header_bad(bad_window_headers,
		   sizeof(bad_window_headers) / sizeof(bad_window_headers[0]),
		   KBLOOM_TYPE_WINDOW);
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
static const char *compare_keys(const struct kbl_map *map,
				const struct kbloom_filter *src,
				bool in_present)
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
			if (!t && in_present)
				EXPECT(hits == (uint64_t)n,
				       "false negatives in chunk %d", base);
			else
				maybe += hits;
		}
	}
	/*
	 * Sized for 1 %: far more than 5 % of absent keys (the "out" keys,
	 * and the "in" ones too once they expired) would be a bug.
	 */
	EXPECT(maybe < (in_present ? NKEYS : 2 * NKEYS) / 20,
	       "%llu of %d absent keys maybe", (unsigned long long)maybe,
	       in_present ? NKEYS : 2 * NKEYS);
	return NULL;
}

static const char *compare(const struct kbl_map *map,
			   const struct kbloom_filter *src)
{
	return compare_keys(map, src, true);
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

static const char *expect_all(const struct kbl_map *map, int want);

static const char *test_answers_window(void)
{
	return answers(KBLOOM_TYPE_WINDOW);
}

/*
 * Rotation by rotation, the mapped answers follow the header's live
 * planes and the cells as the module leaves them: equal to the core's
 * own lookup each time, every key found for g - 1 rotations and gone
 * (but for false positives) after g.
 */
static const char *test_window_rotations(void)
{
	struct mapping_bytes m;
	struct kbl_map *map;
	const char *why = build(&m, KBLOOM_TYPE_WINDOW);
	int r;

	if (why)
		return why;
	EXPECT(!kbl_map_attach(m.base, m.len, &map), "attach");
	for (r = 1; r <= WINDOW_GENERATIONS && !why; r++) {
		EXPECT(!kbloom_window_rotate(&m.src), "rotate");
		sync_cells(&m);
		why = compare_keys(map, &m.src, r < WINDOW_GENERATIONS);
		if (why) {
			static char msg[256];

			snprintf(msg, sizeof(msg), "after %d rotations: %s",
				 r, why);
			why = msg;
		}
	}
	kbl_map_close(map);
	unbuild(&m);
	return why;
}

/*
 * The live planes come from the header at each check, not from the
 * attach: with the current plane out of live (cells unchanged), the keys
 * added to it are absent, through each call; put back, found again.
 */
static const char *test_window_live_from_header(void)
{
	struct mapping_bytes m;
	struct kbl_map *map;
	const char *why = build(&m, KBLOOM_TYPE_WINDOW);
	uint64_t live;

	if (why)
		return why;
	EXPECT(!kbl_map_attach(m.base, m.len, &map), "attach");
	live = m.hdr->live;
	EXPECT(live & 1, "plane 0 not live at creation: 0x%llx",
	       (unsigned long long)live);
	__atomic_store_n(&m.hdr->live, live & ~1ULL, __ATOMIC_RELEASE);
	why = expect_all(map, 0);
	if (!why) {
		__atomic_store_n(&m.hdr->live, live, __ATOMIC_RELEASE);
		why = expect_all(map, 1);
	}
	kbl_map_close(map);
	unbuild(&m);
	return why;
}

/*
 * want: -EAGAIN (a rewrite running), -ENODEV (dead), or 1 / 0: the
 * key "in-1" found / not found by each call.
 */
static const char *expect_all(const struct kbl_map *map, int want)
{
	static const char key[] = "in-1";
	const void *ptr = key;
	size_t plen = 4;
	uint32_t len = 4;
	uint64_t bits[1], hits;
	int r;

	int found = want;

	r = kbl_map_check_one(map, key, 4);
	EXPECT(r == want, "one: %d, want %d", r, want);
	/* The chunk calls say 0 where the one-key call says 1 or 0. */
	want = want < 0 ? want : 0;
	r = kbl_map_check_packed(map, key, &len, 1, bits, &hits);
	EXPECT(r == want, "packed: %d, want %d", r, want);
	EXPECT(r || (bits[0] == (uint64_t)found && hits == (uint64_t)found),
	       "packed: bits %llu, hits %llu, want %d",
	       (unsigned long long)bits[0], (unsigned long long)hits, found);
	r = kbl_map_check_ptrs(map, &ptr, &plen, 1, bits, &hits);
	EXPECT(r == want, "pointers: %d, want %d", r, want);
	EXPECT(r || (bits[0] == (uint64_t)found && hits == (uint64_t)found),
	       "pointers: bits %llu, hits %llu, want %d",
	       (unsigned long long)bits[0], (unsigned long long)hits, found);
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

/*
 * A scalable filter's mapping bytes, as kmod/kbloom_mmap.c lays them out:
 * the header page, a table page, then each sub-filter's cells from a page
 * of its own; the chain holds keys "in-<i>", i < CHAIN_KEYS, and grew to
 * CHAIN_SUBS sub-filters for them.
 */
#define CHAIN_KEYS	3000
#define CHAIN_SUBS	3

struct chain_bytes {
	char *base;
	size_t len;
	struct kbloom_map_header *hdr;
	struct kbloom_map_subfilter *table;
	struct kbloom_chain src;
};

static const char *chain_build(struct chain_bytes *m)
{
	const struct kbloom_chain_params cp = {
		.capacity = 500, .seed = 0x5ca1ab1e, .type = KBLOOM_TYPE_BITS,
		.fp_ppb = 10000000, .expansion = 2,
	};
	uint64_t at;
	char key[32];
	int i, n, ret;
	uint32_t s;

	memset(m, 0, sizeof(*m));
	EXPECT(!kbloom_chain_init(&m->src, &cp), "chain");
	for (i = 0; i < CHAIN_KEYS; i++) {
		n = key_of(key, sizeof(key), "in", i);
		while ((ret = kbloom_chain_add(&m->src, key, n)) == -EAGAIN)
			EXPECT(!kbloom_chain_grow(&m->src), "grow");
	}
	EXPECT(m->src.nsubs == CHAIN_SUBS, "%u sub-filters", m->src.nsubs);
	at = 2 * page;
	for (s = 0; s < CHAIN_SUBS; s++)
		at += (kbloom_geometry_bytes(&kbloom_chain_sub(&m->src, s)->f.geo) + page -
		       1) / page * page;
	m->len = at;
	m->base = aligned_alloc(page, m->len);
	EXPECT(m->base, "memory");
	memset(m->base, 0, m->len);
	m->hdr = (struct kbloom_map_header *)m->base;
	m->table = (struct kbloom_map_subfilter *)(m->base + page);
	m->hdr->magic = KBLOOM_MAP_MAGIC;
	m->hdr->version = KBLOOM_MAP_VERSION_CHAIN;
	m->hdr->header_bytes = sizeof(*m->hdr);
	m->hdr->type = cp.type;
	m->hdr->k = kbloom_chain_sub(&m->src, 0)->f.geo.k;
	m->hdr->nblocks = kbloom_chain_sub(&m->src, 0)->f.geo.nblocks;
	m->hdr->seed = cp.seed;
	m->hdr->capacity = cp.capacity;
	m->hdr->cells_offset = 2 * page;
	m->hdr->cells_bytes = kbloom_geometry_bytes(&kbloom_chain_sub(&m->src, 0)->f.geo);
	m->hdr->map_bytes = m->len;
	m->hdr->page_size = page;
	m->hdr->expansion = cp.expansion;
	m->hdr->subfilters = CHAIN_SUBS;
	m->hdr->subs_offset = page;
	at = 2 * page;
	for (s = 0; s < CHAIN_SUBS; s++) {
		const struct kbloom_filter *f = &kbloom_chain_sub(&m->src, s)->f;

		m->table[s].cells_offset = at;
		m->table[s].nblocks = f->geo.nblocks;
		m->table[s].seed = f->geo.seed;
		m->table[s].k = f->geo.k;
		memcpy(m->base + at, f->words, kbloom_geometry_bytes(&f->geo));
		at += (kbloom_geometry_bytes(&f->geo) + page - 1) / page * page;
	}
	return NULL;
}

static void chain_unbuild(struct chain_bytes *m)
{
	kbloom_chain_free(&m->src);
	free(m->base);
}

/* Every key and 20,000 absent ones: the mapping answers as the chain. */
static const char *test_chain_answers(void)
{
	struct kbl_map *map = NULL;
	struct chain_bytes m;
	const char *msg = NULL;
	char key[32];
	int i, n, got;

	EXPECT_NULL(chain_build(&m));
	if (kbl_map_attach(m.base, m.len, &map)) {
		msg = vt_fail("attach");
		goto out;
	}
	for (i = 0; i < CHAIN_KEYS + 20000 && !msg; i++) {
		n = key_of(key, sizeof(key), "in", i);
		got = kbl_map_check_one(map, key, n);
		if (got != kbloom_chain_lookup(&m.src, key, n) ||
		    (i < CHAIN_KEYS && got != 1))
			msg = vt_fail("key %d: mapped %d", i, got);
	}
	if (!msg && kbl_map_stale(map))
		msg = vt_fail("stale at once");
out:
	kbl_map_close(map);
	chain_unbuild(&m);
	return msg;
}

/*
 * A growth (subfilters raised past the table the mapping covers) and a
 * CLEAR or load (sequence moved) make the mapping stale: checks say
 * -EAGAIN, for the caller to ask the module.  A mapping shorter than the
 * present sub-filters covers those it holds and is stale.
 */
static const char *test_chain_stale(void)
{
	struct kbl_map *map = NULL;
	struct chain_bytes m;
	const char *msg = NULL;

	EXPECT_NULL(chain_build(&m));
	if (kbl_map_attach(m.base, m.len, &map))
		msg = vt_fail("attach");
	if (!msg) {
		m.hdr->subfilters = CHAIN_SUBS + 1;
		if (!kbl_map_stale(map) ||
		    kbl_map_check_one(map, "in-1", 4) != -EAGAIN)
			msg = vt_fail("grown: not stale");
		m.hdr->subfilters = CHAIN_SUBS;
		m.hdr->sequence += 2;
		if (!msg && (!kbl_map_stale(map) ||
			     kbl_map_check_one(map, "in-1", 4) != -EAGAIN))
			msg = vt_fail("sequence moved: not stale");
		m.hdr->sequence -= 2;
	}
	kbl_map_close(map);
	map = NULL;
	/* Only sub-filters 0 and 1 inside the mapping. */
	if (!msg && (kbl_map_attach(m.base, m.table[2].cells_offset, &map) ||
		     !kbl_map_stale(map)))
		msg = vt_fail("a short mapping: not stale");
	kbl_map_close(map);
	map = NULL;
	/* The table not whole inside it: refused. */
	if (!msg && kbl_map_attach(m.base, page, &map) != -EPROTO)
		msg = vt_fail("a mapping of the header alone attached");
	kbl_map_close(map);
	chain_unbuild(&m);
	return msg;
}

/* Each way the table or the scalable fields can be wrong: -EPROTO. */
static const char *test_chain_bad(void)
{
	static const char *const what[] = {
		"entry reserved", "entry unaligned", "entry overlaps",
		"entry k 0", "entry nblocks 0", "entry past the mapping end",
		"subfilters 0", "subfilters past the table", "expansion 0",
		"expansion 17", "subs_offset", "cells before the table",
		"window", "sub-filter 0 not first",
	};
	struct kbl_map *map;
	struct chain_bytes m;
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(what); i++) {
		EXPECT_NULL(chain_build(&m));
		switch (i) {
		case 0: m.table[1].reserved = 1; break;
		case 1: m.table[1].cells_offset += 64; break;
		case 2: m.table[2].cells_offset = m.table[1].cells_offset; break;
		case 3: m.table[2].k = 0; break;
		case 4: m.table[1].nblocks = 0; break;
		case 5: m.table[0].cells_offset = m.len; break;
		case 6: m.hdr->subfilters = 0; break;
		case 7: m.hdr->subfilters = page / sizeof(*m.table) + 1; break;
		case 8: m.hdr->expansion = 0; break;
		case 9: m.hdr->expansion = KBLOOM_EXPANSION_MAX + 1; break;
		case 10: m.hdr->subs_offset = 2 * page; break;
		case 11: m.hdr->cells_offset = page; break;
		case 12: m.hdr->type = KBLOOM_TYPE_WINDOW; break;
		default: m.table[0].cells_offset = page; break;
		}
		map = NULL;
		ret = kbl_map_attach(m.base, m.len, &map);
		kbl_map_close(map);
		chain_unbuild(&m);
		EXPECT(ret == -EPROTO, "%s: attach %d", what[i], ret);
	}
	return NULL;
}

static const struct vt_case cases[] = {
	VT_NAMED("header-good", test_header_good),
	VT_NAMED("attach-short", test_attach_short),
	VT_NAMED("attach-dead", test_attach_dead),
	VT_NAMED("answers-bits", test_answers_bits),
	VT_NAMED("answers-counting", test_answers_counting),
	VT_NAMED("answers-window", test_answers_window),
	VT_NAMED("window-rotations", test_window_rotations),
	VT_NAMED("window-live-from-header", test_window_live_from_header),
	VT_NAMED("sequence-odd", test_sequence_odd),
	VT_NAMED("dead-after-attach", test_dead_after_attach),
	VT_NAMED("open-memfd", test_open_memfd),
	VT_NAMED("open-bad-magic", test_open_bad_magic),
	VT_NAMED("open-write-only", test_open_write_only),
	VT_NAMED("chain-answers", test_chain_answers),
	VT_NAMED("chain-stale", test_chain_stale),
	VT_NAMED("chain-bad", test_chain_bad),
};

int main(void)
{
	page = (size_t)sysconf(_SC_PAGESIZE);
	test_header_bad();
	return vt_run(SUITE, cases, sizeof(cases) / sizeof(cases[0]));
}
