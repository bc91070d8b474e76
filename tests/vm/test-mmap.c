// SPDX-License-Identifier: GPL-2.0
/*
 * The read-only mapping of a filter (kmod/kbloom_mmap.c) through the real
 * device, every case for both filter types: the header page against
 * GET_INFO, each rejected mmap/mprotect/mremap with its errno and nothing
 * changed, answers through the mapping (the module's own core, linked in
 * here) against KBLOOM_IOC_CHECK up to a 1 GiB filter, 1 M checks without
 * a single system call (seccomp strict mode) by the core and by libkbloom's
 * kbl_map()ped kbl_check_one(), the sequence count around
 * every whole-filter rewrite, and the mapping's life across destroy,
 * close, fork, munmap, mremap and rmmod.
 */
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include "vmtest.h"
#include "kbloom.h"
#include "kbloom_core.h"

#define SUITE	"mmap"
#define SEED	0x6d6d61705eed0001ULL
#define FP_1PC	10000000U
/* Keys per CHECK ioctl and per kbloom_lookup_batch() call. */
#define BATCH	4096

static size_t page;

/* ---- filters ---- */

/* header page + the cells rounded up to pages */
static size_t map_bytes_of(const struct kbloom_info *info)
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

static uint64_t map_seq(const struct map *m)
{
	return __atomic_load_n(&m->hdr->sequence, __ATOMIC_ACQUIRE);
}

static const uint8_t *map_cells(const struct map *m)
{
	return m->base + m->hdr->cells_offset;
}

/*
 * Maps all of the filter behind fd as a reader does: the header page
 * alone for map_bytes, then the whole; m->f is the core's filter over the
 * mapped cells.  0, or -1 with errno (EPROTO: a geometry the core refuses).
 */
static int map_whole(int fd, struct map *m)
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
	m->f.geo.nblocks = m->hdr->nblocks;
	m->f.geo.capacity = m->hdr->capacity;
	m->f.geo.seed = m->hdr->seed;
	m->f.geo.k = m->hdr->k;
	m->f.geo.type = m->hdr->type;
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

static void unmap(struct map *m)
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

static void keyset_free(struct keyset *s)
{
	vt_keys_free(&s->k);
	free(s->keys);
	s->keys = NULL;
}

static int keyset_make(struct keyset *s, const char *prefix, uint64_t first,
		       uint32_t n)
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

static uint64_t *bitmap_new(uint32_t n)
{
	return calloc((n + 63) / 64 + 1, sizeof(uint64_t));
}

/*
 * ADD, CHECK or DELETE every key of s, BATCH keys an ioctl; results (n
 * bits, may be NULL) gets every answer.  The hits, or -1 with errno.
 */
static long keyset_ioctl(int fd, unsigned long cmd, const struct keyset *s,
			 uint64_t *results)
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
static long keyset_mapped(const struct map *m, const struct keyset *s,
			  uint64_t *results)
{
	long hits = 0;
	uint32_t i;

	for (i = 0; i < s->k.count; i += BATCH) {
		uint32_t n = s->k.count - i < BATCH ? s->k.count - i : BATCH;

		hits += kbloom_lookup_batch(&m->f, s->keys + i, n,
					    (unsigned long *)(results + i / 64));
	}
	return hits;
}

/* Keys whose answers differ between two result bitmaps of n bits. */
static uint32_t bitmap_diff(const uint64_t *a, const uint64_t *b, uint32_t n)
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
static const char *mapped_equals_ioctl(int fd, const struct map *m,
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
static uint8_t *image_cells(int fd, size_t *len, uint8_t **img)
{
	size_t img_len;

	*img = vt_read_image(fd, 1 << 16, &img_len);
	if (!*img)
		return NULL;
	*len = img_len - sizeof(struct kbloom_image_header) - 4;
	return *img + sizeof(struct kbloom_image_header);
}

/* The mapped cells equal the image's, byte for byte (little-endian). */
static const char *cells_match_image(int fd, const struct map *m)
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

static const char *mappings_are(const char *name, int fd, uint64_t want)
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

/* ---- 1. layout ---- */

static const char *layout(const struct vt_type *t, const void *arg)
{
	/* 101 blocks: 6464 bytes of cells, so the last page has a tail. */
	const uint64_t nblocks = 101;
	struct kbloom_info info;
	const uint8_t *tail;
	const char *msg;
	struct map m;
	size_t i;
	int fd;

	(void)arg;
	EXPECT_OK(vt_create_typed("map-layout", t->type, 1000, nblocks * 512, 0,
				  SEED));
	fd = vt_open("map-layout", O_RDONLY);
	EXPECT(fd >= 0, "open: %s", vt_errno_name(errno));
	{
		int w = vt_open("map-layout", O_WRONLY);

		EXPECT(w >= 0, "open: %s", vt_errno_name(errno));
		EXPECT(vt_add_prefix(w, "lay", 0, 300) >= 0, "add: %s",
		       vt_errno_name(errno));
		close(w);
	}
	EXPECT_OK(vt_info(fd, &info));
	EXPECT_OK(map_whole(fd, &m));
#define H m.hdr
	msg = NULL;
	if (H->magic != KBLOOM_MAP_MAGIC || H->version != KBLOOM_MAP_VERSION ||
	    H->header_bytes != sizeof(struct kbloom_map_header))
		msg = vt_fail("magic %#x version %u header_bytes %u", H->magic,
			      H->version, H->header_bytes);
	else if (H->type != info.type || H->type != t->type ||
		 H->k != info.k || H->nblocks != info.nblocks ||
		 H->nblocks != nblocks || H->seed != info.seed ||
		 H->seed != SEED || H->capacity != info.capacity)
		msg = vt_fail("header type %u k %u nblocks %llu seed %llx "
			      "capacity %llu; GET_INFO %u %u %llu %llx %llu",
			      H->type, H->k, (unsigned long long)H->nblocks,
			      (unsigned long long)H->seed,
			      (unsigned long long)H->capacity, info.type,
			      info.k, (unsigned long long)info.nblocks,
			      (unsigned long long)info.seed,
			      (unsigned long long)info.capacity);
	else if (H->cells_offset != page || H->page_size != page ||
		 H->cells_bytes != nblocks * 64 ||
		 H->map_bytes % page ||
		 H->map_bytes != map_bytes_of(&info) || m.len != H->map_bytes)
		msg = vt_fail("cells_offset %llu page_size %u cells_bytes %llu "
			      "map_bytes %llu (page %zu)",
			      (unsigned long long)H->cells_offset,
			      H->page_size,
			      (unsigned long long)H->cells_bytes,
			      (unsigned long long)H->map_bytes, page);
	else if (H->sequence % 2 || H->flags)
		msg = vt_fail("sequence %llu flags %#x",
			      (unsigned long long)H->sequence, H->flags);
	for (i = 0; !msg && i < sizeof(H->reserved) / sizeof(H->reserved[0]);
	     i++)
		if (H->reserved[i])
			msg = vt_fail("reserved[%zu] = %llx", i,
				      (unsigned long long)H->reserved[i]);
	/* Everything past the header in its page is zero too. */
	for (i = sizeof(*H); !msg && i < page; i++)
		if (m.base[i])
			msg = vt_fail("header page byte %zu = %#x", i,
				      m.base[i]);
#undef H
	tail = map_cells(&m) + m.hdr->cells_bytes;
	for (i = 0; !msg && tail + i < m.base + m.len; i++)
		if (tail[i])
			msg = vt_fail("tail byte %zu past the cells = %#x", i,
				      tail[i]);
	if (!msg)
		msg = cells_match_image(fd, &m);
	unmap(&m);
	return vt_done(fd, "map-layout", msg);
}

/* ---- 2. rejections ---- */

/* mmap() that must fail; a success is undone and reported as 0. */
static long try_mmap(int fd, size_t len, int prot, int flags, off_t off)
{
	void *p = mmap(NULL, len, prot, flags, fd, off);

	if (p == MAP_FAILED)
		return -1;
	munmap(p, len);
	errno = 0;
	return 0;
}

struct rejection {
	const char *name;
	int open_flags;		/* the fd the attempt uses */
	int want;		/* errno */
	bool mapped;		/* attempt on an existing mapping */
	bool destroys;		/* the filter is destroyed first */
	long (*attempt)(int fd, struct map *m, size_t map_bytes);
};

static long rej_prot_write(int fd, struct map *m, size_t len)
{
	(void)m;
	return try_mmap(fd, len, PROT_READ | PROT_WRITE, MAP_SHARED, 0);
}

static long rej_prot_exec(int fd, struct map *m, size_t len)
{
	(void)m;
	return try_mmap(fd, len, PROT_READ | PROT_EXEC, MAP_SHARED, 0);
}

static long rej_private(int fd, struct map *m, size_t len)
{
	(void)m;
	return try_mmap(fd, len, PROT_READ, MAP_PRIVATE, 0);
}

static long rej_offset_at_end(int fd, struct map *m, size_t len)
{
	(void)m;
	return try_mmap(fd, page, PROT_READ, MAP_SHARED, len);
}

static long rej_past_end(int fd, struct map *m, size_t len)
{
	(void)m;
	/* From the second page, one page more than is left. */
	return try_mmap(fd, len, PROT_READ, MAP_SHARED, page);
}

static long rej_read(int fd, struct map *m, size_t len)
{
	(void)m;
	return try_mmap(fd, len, PROT_READ, MAP_SHARED, 0);
}

static long rej_mprotect_write(int fd, struct map *m, size_t len)
{
	(void)fd;
	(void)len;
	return mprotect(m->base, m->len, PROT_READ | PROT_WRITE);
}

static long rej_mprotect_exec(int fd, struct map *m, size_t len)
{
	(void)fd;
	(void)len;
	return mprotect(m->base, m->len, PROT_READ | PROT_EXEC);
}

static long rej_mremap_grow(int fd, struct map *m, size_t len)
{
	void *p;

	(void)fd;
	(void)len;
	p = mremap(m->base, m->len, m->len + page, MREMAP_MAYMOVE);
	if (p == MAP_FAILED)
		return -1;
	m->base = p;	/* grown: unmap all of it afterwards */
	m->len += page;
	m->hdr = p;
	errno = 0;
	return 0;
}

/*
 * A write through /proc/self/mem forces its way into read-only private
 * mappings (FOLL_FORCE copies the page); a shared mapping without
 * VM_MAYWRITE must refuse it, or a reader could change the filter.
 */
static long rej_proc_mem_write(int fd, struct map *m, size_t len)
{
	uint8_t byte = 0xff;
	ssize_t n;
	int mem, saved;

	(void)fd;
	(void)len;
	mem = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	if (mem < 0)
		return 0;	/* reported as a wrong errno */
	n = pwrite(mem, &byte, 1, (off_t)(uintptr_t)(m->base + page));
	saved = errno;
	close(mem);
	errno = n < 0 ? saved : 0;
	return n < 0 ? -1 : 0;
}

static const struct rejection rejections[] = {
	{ "reject-prot-write-rdwr", O_RDWR, EPERM, false, false,
	  rej_prot_write },
	{ "reject-prot-write-rdonly", O_RDONLY, EACCES, false, false,
	  rej_prot_write },
	{ "reject-prot-exec", O_RDONLY, EPERM, false, false, rej_prot_exec },
	{ "reject-map-private", O_RDONLY, EINVAL, false, false, rej_private },
	{ "reject-offset-at-end", O_RDONLY, EINVAL, false, false,
	  rej_offset_at_end },
	{ "reject-length-past-end", O_RDONLY, EINVAL, false, false,
	  rej_past_end },
	{ "reject-wronly", O_WRONLY, EACCES, false, false, rej_read },
	{ "reject-destroyed", O_RDONLY, ENODEV, false, true, rej_read },
	{ "reject-mprotect-write", O_RDWR, EACCES, true, false,
	  rej_mprotect_write },
	{ "reject-mprotect-exec", O_RDWR, EACCES, true, false,
	  rej_mprotect_exec },
	{ "reject-mremap-grow", O_RDONLY, EFAULT, true, false,
	  rej_mremap_grow },
	{ "reject-proc-mem-write", O_RDWR, EIO, true, false,
	  rej_proc_mem_write },
};

static const char *reject_destroyed(const struct vt_type *t,
				    const struct rejection *r)
{
	struct kbloom_info info;
	size_t len;
	int fd;

	fd = vt_fresh("map-rej", t->type, 1000, 0, 0, SEED);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	EXPECT_OK(vt_info(fd, &info));
	len = map_bytes_of(&info);
	close(fd);
	fd = vt_open("map-rej", r->open_flags);
	EXPECT(fd >= 0, "open: %s", vt_errno_name(errno));
	EXPECT_OK(vt_destroy("map-rej"));
	EXPECT_ERRNO(r->attempt(fd, NULL, len), r->want);
	/* Nothing was mapped: the fd still pins only a dead filter. */
	EXPECT_ERRNO(vt_info(fd, &info), ENODEV);
	close(fd);
	return NULL;
}

static const char *reject_case(const struct vt_type *t, const void *arg)
{
	const struct rejection *r = arg;
	struct kbloom_info info;
	struct vt_snap snap;
	const char *msg;
	struct map m = { 0 };
	size_t len;
	long hits;
	int fd, try;

	if (r->destroys)
		return reject_destroyed(t, r);
	fd = vt_fresh("map-rej", t->type, 1000, 0, 0, SEED);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(fd, "base", 0, 100) == 100, "add: %s",
	       vt_errno_name(errno));
	EXPECT_OK(vt_info(fd, &info));
	len = map_bytes_of(&info);
	try = vt_open("map-rej", r->open_flags);
	EXPECT(try >= 0, "open: %s", vt_errno_name(errno));
	if (r->mapped)
		EXPECT_OK(map_whole(try, &m));
	EXPECT_NULL(vt_snap_take(fd, &snap));
	errno = 0;
	if (r->attempt(try, &m, len) != -1 || errno != r->want) {
		msg = vt_fail("%s: got %s, want %s", r->name,
			      vt_errno_name(errno), vt_errno_name(r->want));
		vt_snap_free(&snap);
		unmap(&m);
		close(try);
		return vt_done(fd, "map-rej", msg);
	}
	msg = vt_snap_same(fd, &snap);	/* GET_INFO (mappings too), image */
	if (!msg && r->mapped && m.hdr->magic != KBLOOM_MAP_MAGIC)
		msg = "the mapping no longer reads the filter";
	if (!msg && r->mapped)
		msg = cells_match_image(fd, &m);
	if (!msg)
		msg = mappings_are("map-rej", fd, r->mapped ? 1 : 0);
	hits = vt_check_prefix(fd, "base", 0, 100);
	if (!msg && hits != 100)
		msg = vt_fail("%ld of 100 known keys found after", hits);
	unmap(&m);
	close(try);
	if (!msg)
		msg = mappings_are("map-rej", fd, 0);
	return vt_done(fd, "map-rej", msg);
}

/* ---- 3. identical answers, 1 MiB and 1 GiB ---- */

struct size_case {
	const char *name;
	uint64_t bytes;
};

static const struct size_case sizes[] = {
	{ "identical-1MiB", 1ULL << 20 },
	{ "identical-1GiB", 1ULL << 30 },
};

#define KEYS_1M	(1U << 20)

/*
 * One key set both ways: mismatches (*diff), "maybe" answers of either
 * way (*hits_map, *hits_ioctl), seconds each way.
 */
struct both_ways {
	uint32_t diff;
	long hits_map, hits_ioctl;
	double t_map, t_ioctl;
};

static const char *check_both_ways(int fd, const struct map *m,
				   const struct keyset *s, struct both_ways *w)
{
	uint64_t *by_map = bitmap_new(s->k.count);
	uint64_t *by_ioctl = bitmap_new(s->k.count);
	double t0;

	if (!by_map || !by_ioctl) {
		free(by_map);
		free(by_ioctl);
		return "out of memory";
	}
	t0 = vt_now_s();
	w->hits_map = keyset_mapped(m, s, by_map);
	w->t_map = vt_now_s() - t0;
	t0 = vt_now_s();
	w->hits_ioctl = keyset_ioctl(fd, KBLOOM_IOC_CHECK, s, by_ioctl);
	w->t_ioctl = vt_now_s() - t0;
	w->diff = bitmap_diff(by_map, by_ioctl, s->k.count);
	free(by_map);
	free(by_ioctl);
	EXPECT(w->hits_ioctl >= 0, "CHECK: %s", vt_errno_name(errno));
	return NULL;
}

static const char *identical(const struct vt_type *t, const void *arg)
{
	const struct size_case *sz = arg;
	struct keyset in = { 0 }, out = { 0 };
	struct both_ways p, a;
	const char *msg = NULL;
	uint64_t need = sz->bytes + (512ULL << 20), have = vt_mem_total();
	double t0, t_add;
	struct map m;
	long added;
	int fd;

	/*
	 * The filter, the kernel and 2 M keys (60 MiB with their bitmaps
	 * and key arrays), with room to spare: 1.5 GiB for the 1 GiB one,
	 * which passed in a 3 GiB VM (MemTotal 2.9 GiB).
	 */
	if (have < need)
		return vt_skip("MemTotal %llu MiB, a %llu MiB filter needs "
			       "%llu MiB (run with KBLOOM_VM_MEM=3G)",
			       (unsigned long long)(have >> 20),
			       (unsigned long long)(sz->bytes >> 20),
			       (unsigned long long)(need >> 20));
	t0 = vt_now_s();
	EXPECT_OK(vt_create_typed("map-same", t->type, KEYS_1M, sz->bytes * 8,
				  0, SEED));
	fd = vt_open("map-same", O_RDWR);
	EXPECT(fd >= 0, "open: %s", vt_errno_name(errno));
	if (keyset_make(&in, "in", 0, KEYS_1M) ||
	    keyset_make(&out, "out", 0, KEYS_1M)) {
		keyset_free(&in);
		return vt_done(fd, "map-same", "out of memory for keys");
	}
	added = keyset_ioctl(fd, KBLOOM_IOC_ADD, &in, NULL);
	t_add = vt_now_s() - t0;
	if (added < 0)
		msg = vt_fail("ADD: %s", vt_errno_name(errno));
	else if (map_whole(fd, &m))
		msg = vt_fail("map: %s", vt_errno_name(errno));
	else {
		msg = check_both_ways(fd, &m, &in, &p);
		if (!msg)
			msg = check_both_ways(fd, &m, &out, &a);
		unmap(&m);
	}
	keyset_free(&in);
	keyset_free(&out);
	if (msg)
		return vt_done(fd, "map-same", msg);
	printf("%s: %s/%s: create+add %.1f s; present: mapped %.2f s, ioctl "
	       "%.2f s; absent: mapped %.2f s, ioctl %.2f s; FP %.4f %%\n",
	       SUITE, sz->name, t->name, t_add, p.t_map, p.t_ioctl, a.t_map,
	       a.t_ioctl, 100.0 * a.hits_map / KEYS_1M);
	if (p.diff || a.diff)
		msg = vt_fail("%u present and %u absent keys answered "
			      "differently", p.diff, a.diff);
	else if (p.hits_map != KEYS_1M || p.hits_ioctl != KEYS_1M)
		msg = vt_fail("false negatives: mapped %ld, ioctl %ld of %u",
			      KEYS_1M - p.hits_map, KEYS_1M - p.hits_ioctl,
			      KEYS_1M);
	return vt_done(fd, "map-same", msg);
}

/* ---- 4. no system call ---- */

static const char *check_ioctl_counts(const char *name, int fd,
				      uint64_t *calls, uint64_t *ioctls)
{
	struct kbloom_info info;

	EXPECT_OK(vt_info(fd, &info));
	EXPECT_OK(vt_sysfs_u64(name, "check_ioctls", ioctls));
	*calls = info.check_calls;
	return NULL;
}

/*
 * Two readers of the mapping: the core's kbloom_lookup() on the raw
 * mapping, and libkbloom's kbl_check_one() on a kbl_map()ped handle,
 * which must answer from the mapping without ever falling back.
 */
struct strict_way {
	const char *name;
	bool libkbloom;
};

static const struct strict_way strict_ways[] = {
	{ "no-syscalls-core", false },
	{ "no-syscalls-libkbloom", true },
};

/*
 * In the child: seccomp strict mode (read, write, _exit and sigreturn;
 * anything else is SIGKILL), then every check through the mapping.  It
 * writes its hits and the ioctls its kbl handle issued meanwhile.
 */
static void __attribute__((noreturn))
strict_checker(const struct map *m, struct kbl *h, const struct keyset *s,
	       int out)
{
	uint64_t ans[2] = { 0, h ? kbl_ioctl_count(h) : 0 };
	uint32_t i;
	int ret;

	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT))
		syscall(SYS_exit, 2);
	for (i = 0; i < s->k.count; i++) {
		if (h) {
			ret = kbl_check_one(h, s->keys[i].data,
					    s->keys[i].len);
			if (ret < 0)
				syscall(SYS_exit, 4);
		} else {
			ret = kbloom_lookup(&m->f, s->keys[i].data,
					    s->keys[i].len);
		}
		ans[0] += ret;
	}
	ans[1] = h ? kbl_ioctl_count(h) - ans[1] : 0;
	if (write(out, ans, sizeof(ans)) != sizeof(ans))
		syscall(SYS_exit, 3);
	/* exit_group, which _exit() calls, is not allowed. */
	syscall(SYS_exit, 0);
	for (;;)
		;
}

static const char *no_syscalls(const struct vt_type *t, const void *arg)
{
	const struct strict_way *way = arg;
	const uint32_t n = 1U << 20;
	struct keyset s = { 0 }, added = { 0 };
	uint64_t calls0, ioctls0, calls1, ioctls1, got[2] = { ~0ULL, ~0ULL };
	const char *msg = NULL;
	int fd, pipefd[2], status, ret;
	struct map m = { 0 };
	struct kbl *h = NULL;
	long hits;
	pid_t pid;

	fd = vt_fresh("map-strict", t->type, n / 2, 0, 0, SEED);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	/* Keys 0 to n/2 - 1 added, n/2 to n - 1 not. */
	if (keyset_make(&s, "strict", 0, n) ||
	    keyset_make(&added, "strict", 0, n / 2)) {
		keyset_free(&s);
		return vt_done(fd, "map-strict", "out of memory for keys");
	}
	hits = keyset_ioctl(fd, KBLOOM_IOC_ADD, &added, NULL);
	keyset_free(&added);
	if (hits < 0)
		msg = vt_fail("ADD: %s", vt_errno_name(errno));
	if (!msg && way->libkbloom) {
		ret = kbl_open("map-strict", O_RDONLY, &h);
		if (ret)
			msg = vt_fail("kbl_open: %s", kbl_strerror(ret));
		else if ((ret = kbl_map(h)) || !kbl_mapped(h))
			msg = vt_fail("kbl_map: %d (%s)", ret,
				      kbl_strerror(ret));
	} else if (!msg && map_whole(fd, &m)) {
		msg = vt_fail("map: %s", vt_errno_name(errno));
	}
	if (!msg)
		msg = check_ioctl_counts("map-strict", fd, &calls0, &ioctls0);
	if (!msg && pipe(pipefd))
		msg = vt_fail("pipe: %s", vt_errno_name(errno));
	if (msg)
		goto out;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		close(pipefd[0]);
		strict_checker(&m, h, &s, pipefd[1]);
	}
	close(pipefd[1]);
	if (pid < 0) {
		close(pipefd[0]);
		msg = vt_fail("fork: %s", vt_errno_name(errno));
		goto out;
	}
	if (read(pipefd[0], got, sizeof(got)) != sizeof(got))
		got[0] = ~0ULL;
	close(pipefd[0]);
	if (waitpid(pid, &status, 0) != pid)
		msg = vt_fail("waitpid: %s", vt_errno_name(errno));
	else if (WIFSIGNALED(status))
		msg = vt_fail("child killed by signal %d%s", WTERMSIG(status),
			      WTERMSIG(status) == SIGKILL ?
			      " (a system call under seccomp strict mode)" : "");
	else if (!WIFEXITED(status) || WEXITSTATUS(status))
		msg = vt_fail("child exit %d%s", WEXITSTATUS(status),
			      WEXITSTATUS(status) == 4 ?
			      " (kbl_check_one failed)" : "");
	if (!msg)
		msg = check_ioctl_counts("map-strict", fd, &calls1, &ioctls1);
	if (!msg && (calls1 != calls0 || ioctls1 != ioctls0))
		msg = vt_fail("mapped checks moved check_calls %llu -> %llu, "
			      "check_ioctls %llu -> %llu",
			      (unsigned long long)calls0,
			      (unsigned long long)calls1,
			      (unsigned long long)ioctls0,
			      (unsigned long long)ioctls1);
	if (!msg && got[1])
		msg = vt_fail("kbl_ioctl_count grew by %llu in the child",
			      (unsigned long long)got[1]);
	if (!msg) {
		hits = keyset_ioctl(fd, KBLOOM_IOC_CHECK, &s, NULL);
		if (hits < 0 || (uint64_t)hits != got[0])
			msg = vt_fail("child counted %llu hits, CHECK %ld (%s)",
				      (unsigned long long)got[0], hits,
				      vt_errno_name(errno));
		else if (hits < n / 2)
			msg = vt_fail("%ld hits for %u added keys", hits,
				      n / 2);
	}
out:
	unmap(&m);
	kbl_close(h);
	keyset_free(&s);
	return vt_done(fd, "map-strict", msg);
}

/* ---- 5. the sequence count ---- */

struct seq_ctx {
	int fd;			/* the filter, read-write, mapped */
	int other;		/* a compatible filter, read-only */
	uint8_t *saved;		/* an image of fd's filter before "extra" */
	size_t saved_len;
};

enum cells_after {
	CELLS_ZERO,		/* every cell 0 */
	CELLS_SAVED,		/* the saved image's */
	CELLS_SAME,		/* what they were before the operation */
	CELLS_ANY,		/* whatever the image says */
};

struct seq_op {
	const char *name;
	uint64_t delta;		/* of the sequence: 0 or 2 */
	int want;		/* errno, 0 for success */
	int want_bits;		/* errno where the type cannot delete */
	enum cells_after cells;
	long (*op)(struct seq_ctx *c);
};

static long other_op(int fd, unsigned long cmd, int other)
{
	struct kbloom_other req;

	memset(&req, 0, sizeof(req));
	req.fd = other;
	return ioctl(fd, cmd, &req);
}

static long seq_clear(struct seq_ctx *c)
{
	return ioctl(c->fd, KBLOOM_IOC_CLEAR, 0);
}

static long seq_clear_bad(struct seq_ctx *c)
{
	return ioctl(c->fd, KBLOOM_IOC_CLEAR, 1);
}

static long seq_intersect_self(struct seq_ctx *c)
{
	return other_op(c->fd, KBLOOM_IOC_INTERSECT, c->fd);
}

static long seq_intersect_other(struct seq_ctx *c)
{
	return other_op(c->fd, KBLOOM_IOC_INTERSECT, c->other);
}

static long seq_merge(struct seq_ctx *c)
{
	return other_op(c->fd, KBLOOM_IOC_MERGE, c->other);
}

static long seq_add(struct seq_ctx *c)
{
	return vt_add_prefix(c->fd, "more", 0, 200) < 0 ? -1 : 0;
}

static long seq_delete(struct seq_ctx *c)
{
	struct vt_keys k;
	long ret;

	if (vt_keys_make(&k, "base", 0, 50))
		return -1;
	ret = vt_keys_op(c->fd, KBLOOM_IOC_DELETE, &k, NULL);
	vt_keys_free(&k);
	return ret < 0 ? -1 : 0;
}

/* Writes img through a write-only fd of its own; -1 with errno. */
static long load_image(const uint8_t *img, size_t len)
{
	int fd = vt_open("map-seq", O_WRONLY), ret, saved;

	if (fd < 0)
		return -1;
	ret = vt_write_image(fd, img, len, 1 << 16);
	saved = errno;
	close(fd);
	errno = saved;
	return ret;
}

static long seq_load(struct seq_ctx *c)
{
	return load_image(c->saved, c->saved_len);
}

static long seq_load_bad_crc(struct seq_ctx *c)
{
	uint8_t *bad = malloc(c->saved_len);
	long ret;

	if (!bad)
		return -1;
	memcpy(bad, c->saved, c->saved_len);
	bad[sizeof(struct kbloom_image_header)] ^= 1;
	ret = load_image(bad, c->saved_len);
	free(bad);
	return ret;
}

static const struct seq_op seq_ops[] = {
	{ "seq-clear", 2, 0, 0, CELLS_ZERO, seq_clear },
	{ "seq-intersect-self", 2, 0, 0, CELLS_SAME, seq_intersect_self },
	{ "seq-intersect-other", 2, 0, 0, CELLS_ANY, seq_intersect_other },
	{ "seq-image-load", 2, 0, 0, CELLS_SAVED, seq_load },
	{ "seq-add", 0, 0, 0, CELLS_ANY, seq_add },
	{ "seq-delete", 0, 0, EOPNOTSUPP, CELLS_ANY, seq_delete },
	{ "seq-merge", 0, 0, 0, CELLS_ANY, seq_merge },
	{ "seq-image-rejected", 0, EBADMSG, 0, CELLS_SAME, seq_load_bad_crc },
	{ "seq-clear-bad-arg", 0, EINVAL, 0, CELLS_SAME, seq_clear_bad },
};

static const char *seq_check(const struct seq_op *o, struct seq_ctx *c,
			     const struct vt_type *t, const struct map *m)
{
	int want = !(t->caps & VT_DELETES) && o->want_bits ?
		   o->want_bits : o->want;
	uint8_t *before_img, *img;
	const uint8_t *before, *cells;
	size_t before_len, len, i;
	uint64_t s0, s1;
	long ret;
	bool ok = true;

	before = image_cells(c->fd, &before_len, &before_img);
	EXPECT(before, "read image: %s", vt_errno_name(errno));
	s0 = map_seq(m);
	errno = 0;
	ret = o->op(c);
	s1 = map_seq(m);
	if (want ? ret != -1 || errno != want : ret != 0) {
		free(before_img);
		return vt_fail("%s: got %ld (%s), want %s", o->name, ret,
			       vt_errno_name(errno), vt_errno_name(want));
	}
	if (s0 % 2 || s1 % 2 || s1 - s0 != o->delta) {
		free(before_img);
		return vt_fail("sequence %llu -> %llu, want +%llu and even",
			       (unsigned long long)s0, (unsigned long long)s1,
			       (unsigned long long)o->delta);
	}
	cells = image_cells(c->fd, &len, &img);
	if (!cells) {
		free(before_img);
		return vt_fail("read image: %s", vt_errno_name(errno));
	}
	/* What the mapping shows is the filter's image, and as expected. */
	ok = len == m->hdr->cells_bytes && !memcmp(cells, map_cells(m), len);
	switch (o->cells) {
	case CELLS_ZERO:
		for (i = 0; ok && i < len; i++)
			ok = !cells[i];
		break;
	case CELLS_SAVED:
		ok = ok && !memcmp(cells, c->saved +
				   sizeof(struct kbloom_image_header), len);
		break;
	case CELLS_SAME:
		ok = ok && len == before_len && !memcmp(cells, before, len);
		break;
	case CELLS_ANY:
		break;
	}
	free(img);
	free(before_img);
	EXPECT(ok, "%s: the mapped cells are not what they should be",
	       o->name);
	return NULL;
}

static const char *seq_case(const struct vt_type *t, const void *arg)
{
	const struct seq_op *o = arg;
	struct seq_ctx c = { .fd = -1, .other = -1 };
	const char *msg = NULL;
	struct map m = { 0 };
	int w;

	c.fd = vt_fresh("map-seq", t->type, 1000, 0, 0, SEED);
	EXPECT(c.fd >= 0, "create: %s", vt_errno_name(errno));
	w = vt_fresh("map-seq-b", t->type, 1000, 0, 0, SEED);
	if (w < 0) {
		msg = vt_fail("create other: %s", vt_errno_name(errno));
		goto out;
	}
	if (vt_add_prefix(w, "base", 50, 100) < 0 ||
	    vt_add_prefix(w, "other", 0, 100) < 0 ||
	    vt_add_prefix(c.fd, "base", 0, 100) < 0)
		msg = vt_fail("add: %s", vt_errno_name(errno));
	close(w);
	c.other = vt_open("map-seq-b", O_RDONLY);
	if (!msg && c.other < 0)
		msg = vt_fail("open other: %s", vt_errno_name(errno));
	if (!msg) {
		c.saved = vt_read_image(c.fd, 1 << 16, &c.saved_len);
		if (!c.saved)
			msg = vt_fail("read image: %s", vt_errno_name(errno));
	}
	if (!msg && vt_add_prefix(c.fd, "extra", 0, 100) < 0)
		msg = vt_fail("add: %s", vt_errno_name(errno));
	if (!msg && map_whole(c.fd, &m))
		msg = vt_fail("map: %s", vt_errno_name(errno));
	if (!msg)
		msg = seq_check(o, &c, t, &m);
out:
	unmap(&m);
	free(c.saved);
	if (c.other >= 0)
		close(c.other);
	msg = vt_done(-1, "map-seq-b", msg);
	return vt_done(c.fd, "map-seq", msg);
}

/* ---- 6. lifetime ---- */

static const char *dead_keeps_cells(const struct vt_type *t, const void *arg)
{
	struct keyset s = { 0 };
	uint8_t *img;
	const uint8_t *cells;
	const char *msg = NULL;
	struct kbloom_info info;
	size_t len;
	uint64_t seq;
	struct map m;
	long hits;
	int fd;

	(void)arg;
	fd = vt_fresh("map-dead", t->type, 1000, 0, 0, SEED);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(fd, "base", 0, 100) == 100, "add: %s",
	       vt_errno_name(errno));
	EXPECT_OK(map_whole(fd, &m));
	cells = image_cells(fd, &len, &img);
	EXPECT(cells, "read image: %s", vt_errno_name(errno));
	seq = map_seq(&m);
	if (keyset_make(&s, "base", 0, 100))
		msg = "out of memory";
	else if (vt_destroy("map-dead"))
		msg = vt_fail("destroy: %s", vt_errno_name(errno));
	else if (!(m.hdr->flags & KBLOOM_MAP_DEAD))
		msg = vt_fail("flags %#x after destroy", m.hdr->flags);
	else if (map_seq(&m) != seq)
		msg = "sequence moved at destroy";
	else if (len != m.hdr->cells_bytes || memcmp(cells, map_cells(&m), len))
		msg = "cells changed at destroy";
	free(img);
	if (!msg) {
		uint64_t *r = bitmap_new(100);

		hits = r ? keyset_mapped(&m, &s, r) : -1;
		free(r);
		if (hits != 100)
			msg = vt_fail("%ld of 100 keys found through the dead "
				      "mapping", hits);
	}
	if (!msg && (vt_info(fd, &info) != -1 || errno != ENODEV))
		msg = vt_fail("GET_INFO after destroy: %s",
			      vt_errno_name(errno));
	keyset_free(&s);
	unmap(&m);
	close(fd);
	return msg;
}

static const char *close_then_munmap(const struct vt_type *t, const void *arg)
{
	const char *msg = NULL;
	struct map m;
	uint8_t *img;
	const uint8_t *cells;
	size_t len;
	int fd;

	(void)arg;
	fd = vt_fresh("map-close", t->type, 1000, 0, 0, SEED);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(fd, "base", 0, 100) == 100, "add: %s",
	       vt_errno_name(errno));
	cells = image_cells(fd, &len, &img);
	EXPECT(cells, "read image: %s", vt_errno_name(errno));
	if (map_whole(fd, &m)) {
		free(img);
		return vt_done(fd, "map-close", vt_fail("map: %s",
						     vt_errno_name(errno)));
	}
	close(fd);
	/* The mapping alone holds the filter now. */
	if (len != m.hdr->cells_bytes || memcmp(cells, map_cells(&m), len))
		msg = "cells differ after close";
	free(img);
	if (!msg)
		msg = mappings_are("map-close", -1, 1);
	if (!msg && munmap(m.base, m.len))
		msg = vt_fail("munmap: %s", vt_errno_name(errno));
	if (!msg)
		msg = mappings_are("map-close", -1, 0);
	return vt_done(-1, "map-close", msg);
}

/* A child that waits for its pipe to close, holding its copy of the vmas. */
static pid_t fork_holder(int *wake)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p))
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		close(p[1]);
		if (read(p[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(p[0]);
	*wake = p[1];
	return pid;
}

static const char *mappings_count(const struct vt_type *t, const void *arg)
{
	const char *msg = NULL;
	struct map m;
	int fd, wake, status;
	pid_t pid;

	(void)arg;
	/* 4 pages of cells, so there is a middle to unmap. */
	EXPECT_OK(vt_create_typed("map-count", t->type, 1000, 4 * page * 8, 0,
				  SEED));
	fd = vt_open("map-count", O_RDONLY);
	EXPECT(fd >= 0, "open: %s", vt_errno_name(errno));
	EXPECT_NULL(mappings_are("map-count", fd, 0));
	EXPECT_OK(map_whole(fd, &m));
	EXPECT_NULL(mappings_are("map-count", fd, 1));
	pid = fork_holder(&wake);
	EXPECT(pid > 0, "fork: %s", vt_errno_name(errno));
	msg = mappings_are("map-count", fd, 2);
	close(wake);
	if (waitpid(pid, &status, 0) != pid && !msg)
		msg = vt_fail("waitpid: %s", vt_errno_name(errno));
	if (!msg)
		msg = mappings_are("map-count", fd, 1);
	/* A hole in the middle: two vmas. */
	if (!msg && munmap(m.base + 2 * page, page))
		msg = vt_fail("munmap middle: %s", vt_errno_name(errno));
	if (!msg)
		msg = mappings_are("map-count", fd, 2);
	if (!msg && munmap(m.base, m.len))
		msg = vt_fail("munmap: %s", vt_errno_name(errno));
	m.base = NULL;
	if (!msg)
		msg = mappings_are("map-count", fd, 0);
	unmap(&m);
	return vt_done(fd, "map-count", msg);
}

static int module_refcnt(uint64_t *v)
{
	return vt_read_u64_file("/sys/module/kbloom/refcnt", v);
}

/*
 * rmmod is refused while only a mapping holds the module (its fd closed):
 * delete_module() fails with EAGAIN (EWOULDBLOCK, the kernel's answer to a
 * module in use; rmmod prints "in use").  After munmap() the module's
 * references are back to what they were before the filter was opened
 * (an open file holds two: its cdev's and its file operations'), which is
 * what lets the harness's final rmmod succeed; the module is not actually
 * unloaded here, so later tests keep it.
 */
static const char *rmmod_refused(const struct vt_type *t, const void *arg)
{
	uint64_t base, held, after = 0;
	const char *msg = NULL;
	struct map m;
	long ret;
	int fd;

	(void)arg;
	EXPECT_OK(module_refcnt(&base));
	fd = vt_fresh("map-rmmod", t->type, 1000, 0, 0, SEED);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	if (map_whole(fd, &m))
		return vt_done(fd, "map-rmmod", vt_fail("map: %s",
						     vt_errno_name(errno)));
	close(fd);
	if (module_refcnt(&held)) {
		unmap(&m);
		return vt_done(-1, "map-rmmod", vt_fail("no refcnt: %s",
						     vt_errno_name(errno)));
	}
	errno = 0;
	ret = syscall(SYS_delete_module, "kbloom", O_NONBLOCK);
	if (ret == 0) {
		/*
		 * Unloaded under a live mapping: a kernel bug.  Put the
		 * module back so that the rest of the run has one.
		 */
		int ko = open(getenv("KBLOOM_VM_MODULE") ?
			      getenv("KBLOOM_VM_MODULE") : "/kbloom.ko",
			      O_RDONLY | O_CLOEXEC);

		if (ko >= 0)
			syscall(SYS_finit_module, ko, "", 0);
		return "rmmod succeeded while a mapping held the module";
	}
	if (errno != EAGAIN)
		msg = vt_fail("delete_module: %s, want EAGAIN",
			      vt_errno_name(errno));
	if (!msg && m.hdr->magic != KBLOOM_MAP_MAGIC)
		msg = "mapping unreadable after the refused rmmod";
	unmap(&m);
	if (!msg && module_refcnt(&after))
		msg = vt_fail("refcnt: %s", vt_errno_name(errno));
	if (!msg && (held <= base || after != base))
		msg = vt_fail("module refcnt %llu before, %llu with the "
			      "mapping, %llu after munmap",
			      (unsigned long long)base,
			      (unsigned long long)held,
			      (unsigned long long)after);
	return vt_done(-1, "map-rmmod", msg);
}

/* ---- 7. fork, munmap, mremap, sub-ranges ---- */

/* A filter of 4 pages of cells with keys, mapped; its image's cells. */
struct fixture {
	const char *name;
	int fd;
	struct map m;
	uint8_t *img;
	const uint8_t *cells;
	size_t len;
};

static const char *fixture_up(struct fixture *x, const char *name,
			      const struct vt_type *t)
{
	memset(x, 0, sizeof(*x));
	x->name = name;
	x->fd = -1;
	EXPECT_OK(vt_create_typed(name, t->type, 1000, 4 * page * 8, 0, SEED));
	x->fd = vt_open(name, O_RDWR);
	EXPECT(x->fd >= 0, "open: %s", vt_errno_name(errno));
	EXPECT(vt_add_prefix(x->fd, "base", 0, 1000) >= 0, "add: %s",
	       vt_errno_name(errno));
	x->cells = image_cells(x->fd, &x->len, &x->img);
	EXPECT(x->cells, "read image: %s", vt_errno_name(errno));
	EXPECT_OK(map_whole(x->fd, &x->m));
	return NULL;
}

static const char *fixture_down(struct fixture *x, const char *msg)
{
	unmap(&x->m);
	free(x->img);
	return vt_done(x->fd, x->name, msg);
}

/* Bytes [from, to) of the cells read at p equal the image's. */
static bool cells_at(const struct fixture *x, const uint8_t *p, size_t from,
		     size_t to)
{
	return to <= x->len && !memcmp(p, x->cells + from, to - from);
}

static const char *fork_same(const struct vt_type *t, const void *arg)
{
	struct fixture x;
	struct keyset s = { 0 };
	const char *msg;
	uint64_t got[2] = { 0, 0 };
	long hits = 0;
	int p[2], status;
	pid_t pid;

	(void)arg;
	msg = fixture_up(&x, "map-fork", t);
	if (!msg && keyset_make(&s, "base", 500, 1000))
		msg = "out of memory";
	if (!msg)
		msg = mapped_equals_ioctl(x.fd, &x.m, &s, &hits);
	if (!msg && pipe(p))
		msg = vt_fail("pipe: %s", vt_errno_name(errno));
	if (msg) {
		keyset_free(&s);
		return fixture_down(&x, msg);
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		uint64_t *r = bitmap_new(s.k.count);
		uint64_t ans[2];

		close(p[0]);
		/* The child's own page tables: every page faults again. */
		ans[0] = cells_at(&x, map_cells(&x.m), 0, x.len);
		ans[1] = r ? (uint64_t)keyset_mapped(&x.m, &s, r) : ~0ULL;
		_exit(write(p[1], ans, sizeof(ans)) == sizeof(ans) ? 0 : 1);
	}
	close(p[1]);
	if (pid < 0 || read(p[0], got, sizeof(got)) != sizeof(got))
		msg = vt_fail("no answer from the child: %s",
			      vt_errno_name(errno));
	close(p[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	if (!msg && !got[0])
		msg = "the child sees other cells";
	if (!msg && got[1] != (uint64_t)hits)
		msg = vt_fail("the child found %llu keys, the parent %ld",
			      (unsigned long long)got[1], hits);
	keyset_free(&s);
	return fixture_down(&x, msg);
}

static const char *munmap_ends(const struct vt_type *t, const void *arg)
{
	struct fixture x;
	const char *msg;
	size_t cells_pages;

	(void)arg;
	msg = fixture_up(&x, "map-ends", t);
	if (msg)
		return fixture_down(&x, msg);
	cells_pages = (x.m.len - page) / page;
	/* The header page and the last cells page go; the middle stays. */
	if (munmap(x.m.base + x.m.len - page, page) || munmap(x.m.base, page))
		msg = vt_fail("munmap: %s", vt_errno_name(errno));
	else if (!cells_at(&x, x.m.base + page, 0, (cells_pages - 1) * page))
		msg = "the middle pages changed";
	else
		msg = mappings_are("map-ends", x.fd, 1);
	if (!msg) {
		munmap(x.m.base + page, (cells_pages - 1) * page);
		x.m.base = NULL;
		msg = mappings_are("map-ends", x.fd, 0);
	}
	x.m.base = NULL;
	return fixture_down(&x, msg);
}

/*
 * After mremap(): the header and the first len bytes of cells read as
 * before, and the module still counts one mapping of the filter.
 */
static const char *remapped_intact(struct fixture *x, const char *name,
				   size_t len)
{
	const char *msg;

	if (x->m.hdr->magic != KBLOOM_MAP_MAGIC ||
	    !cells_at(x, map_cells(&x->m), 0, len))
		msg = vt_fail("%s: contents changed by mremap", name);
	else
		msg = mappings_are(name, x->fd, 1);
	return fixture_down(x, msg);
}

static const char *mremap_move(const struct vt_type *t, const void *arg)
{
	struct fixture x;
	const char *msg;
	void *to, *p;

	(void)arg;
	msg = fixture_up(&x, "map-move", t);
	if (msg)
		return fixture_down(&x, msg);
	/* Somewhere free to move to: reserve it, then move over it. */
	to = mmap(NULL, x.m.len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		  0);
	if (to == MAP_FAILED)
		return fixture_down(&x, vt_fail("reserve: %s",
						vt_errno_name(errno)));
	p = mremap(x.m.base, x.m.len, x.m.len, MREMAP_MAYMOVE | MREMAP_FIXED,
		   to);
	if (p != to) {
		munmap(to, x.m.len);
		return fixture_down(&x, vt_fail("mremap: %s",
						vt_errno_name(errno)));
	}
	x.m.base = p;
	x.m.hdr = p;
	return remapped_intact(&x, "map-move", x.len);
}

static const char *mremap_shrink(const struct vt_type *t, const void *arg)
{
	struct fixture x;
	const char *msg;
	void *p;

	(void)arg;
	msg = fixture_up(&x, "map-shrink", t);
	if (msg)
		return fixture_down(&x, msg);
	/* The header and the first page of cells. */
	p = mremap(x.m.base, x.m.len, 2 * page, 0);
	if (p != x.m.base)
		return fixture_down(&x, vt_fail("mremap: %s",
						vt_errno_name(errno)));
	x.m.len = 2 * page;
	return remapped_intact(&x, "map-shrink", page);
}

static const char *cells_only(const struct vt_type *t, const void *arg)
{
	struct fixture x;
	const char *msg;
	uint8_t *p;
	size_t len;

	(void)arg;
	msg = fixture_up(&x, "map-sub", t);
	if (msg)
		return fixture_down(&x, msg);
	len = x.m.len - x.m.hdr->cells_offset;
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, x.fd,
		 x.m.hdr->cells_offset);
	if (p == MAP_FAILED)
		return fixture_down(&x, vt_fail("mmap at cells_offset: %s",
						vt_errno_name(errno)));
	if (!cells_at(&x, p, 0, x.len))
		msg = "the cells mapped alone differ";
	else
		msg = mappings_are("map-sub", x.fd, 2);
	munmap(p, len);
	return fixture_down(&x, msg);
}

/* ---- 8. adds and deletes become visible ---- */

static const char *adds_visible(const struct vt_type *t, const void *arg)
{
	struct keyset s = { 0 };
	uint64_t *r = NULL;
	const char *msg = NULL;
	struct map m;
	uint32_t round, i;
	int fd;

	(void)arg;
	fd = vt_fresh("map-adds", t->type, 20000, 0, 0, SEED);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	if (map_whole(fd, &m))
		return vt_done(fd, "map-adds", vt_fail("map: %s",
						    vt_errno_name(errno)));
	/* Mapped first; then 10 rounds of adds, each checked at once. */
	for (round = 0; !msg && round < 10; round++) {
		if (keyset_make(&s, "add", round * 2000, 2000) ||
		    !(r = bitmap_new(2000))) {
			msg = "out of memory";
			break;
		}
		if (keyset_ioctl(fd, KBLOOM_IOC_ADD, &s, NULL) < 0)
			msg = vt_fail("ADD: %s", vt_errno_name(errno));
		else if (keyset_mapped(&m, &s, r) != 2000) {
			for (i = 0; i < 2000 && (r[i / 64] >> (i % 64)) & 1;
			     i++)
				;
			msg = vt_fail("round %u: key add-%u added but not "
				      "found through the mapping", round,
				      round * 2000 + i);
		}
		keyset_free(&s);
		free(r);
		r = NULL;
	}
	/* And the first rounds' keys are still there. */
	if (!msg && keyset_make(&s, "add", 0, 20000))
		msg = "out of memory";
	if (!msg && (r = bitmap_new(20000)) &&
	    keyset_mapped(&m, &s, r) != 20000)
		msg = "a key added earlier is gone from the mapping";
	free(r);
	keyset_free(&s);
	unmap(&m);
	return vt_done(fd, "map-adds", msg);
}

static const char *deletes_visible(const struct vt_type *t, const void *arg)
{
	struct keyset s = { 0 }, gone = { 0 };
	const char *msg = NULL;
	struct map m;
	long before, after, deleted;
	int fd;

	(void)arg;
	fd = vt_fresh("map-dels", t->type, 10000, 0, 0, SEED);
	EXPECT(fd >= 0, "create: %s", vt_errno_name(errno));
	if (map_whole(fd, &m))
		return vt_done(fd, "map-dels", vt_fail("map: %s",
						    vt_errno_name(errno)));
	if (keyset_make(&s, "del", 0, 10000) ||
	    keyset_make(&gone, "del", 0, 5000))
		msg = "out of memory";
	if (!msg && keyset_ioctl(fd, KBLOOM_IOC_ADD, &s, NULL) < 0)
		msg = vt_fail("ADD: %s", vt_errno_name(errno));
	if (!msg)
		msg = mapped_equals_ioctl(fd, &m, &s, &before);
	if (!msg) {
		deleted = keyset_ioctl(fd, KBLOOM_IOC_DELETE, &gone, NULL);
		if (deleted != 5000)
			msg = vt_fail("DELETE removed %ld of 5000 (%s)",
				      deleted, vt_errno_name(errno));
	}
	/* Answers after the deletes: the mapping's are the ioctl's. */
	if (!msg)
		msg = mapped_equals_ioctl(fd, &m, &s, &after);
	if (!msg && before != 10000)
		msg = vt_fail("%ld of 10000 added keys found", before);
	/* Most deleted keys now read absent (1 % may be false positives). */
	if (!msg && after > 5000 + 5000 / 20)
		msg = vt_fail("%ld keys still found after 5000 of 10000 were "
			      "deleted", after);
	keyset_free(&s);
	keyset_free(&gone);
	unmap(&m);
	return vt_done(fd, "map-dels", msg);
}

/* ---- the run ---- */

typedef const char *(*mcase_fn)(const struct vt_type *t, const void *arg);

/* name/<type> for every type with the capabilities need. */
static void run_variants(const char *name, mcase_fn fn, const void *arg,
			 uint32_t need)
{
	const struct vt_type *t;

	vt_for_each_type(t, need)
		vt_report_typed(SUITE, name, t, fn(t, arg));
}

static const struct {
	const char *name;
	mcase_fn fn;
	uint32_t need;
} plain[] = {
	{ "layout", layout, 0 },
	{ "dead-keeps-cells", dead_keeps_cells, 0 },
	{ "close-then-munmap", close_then_munmap, 0 },
	{ "mappings-count", mappings_count, 0 },
	{ "rmmod-refused", rmmod_refused, 0 },
	{ "fork-same", fork_same, 0 },
	{ "munmap-ends", munmap_ends, 0 },
	{ "mremap-move", mremap_move, 0 },
	{ "mremap-shrink", mremap_shrink, 0 },
	{ "cells-only", cells_only, 0 },
	{ "adds-visible", adds_visible, 0 },
	{ "deletes-visible", deletes_visible, VT_DELETES },
};

int main(void)
{
	size_t i;

	page = sysconf(_SC_PAGESIZE);
	for (i = 0; i < ARRAY_SIZE(plain); i++)
		run_variants(plain[i].name, plain[i].fn, NULL, plain[i].need);
	for (i = 0; i < ARRAY_SIZE(strict_ways); i++)
		run_variants(strict_ways[i].name, no_syscalls,
			     &strict_ways[i], 0);
	for (i = 0; i < ARRAY_SIZE(rejections); i++)
		run_variants(rejections[i].name, reject_case,
			     &rejections[i], 0);
	for (i = 0; i < ARRAY_SIZE(seq_ops); i++)
		run_variants(seq_ops[i].name, seq_case, &seq_ops[i], 0);
	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		run_variants(sizes[i].name, identical, &sizes[i], 0);
	vt_summary(SUITE);
	return vt_failed ? 1 : 0;
}
