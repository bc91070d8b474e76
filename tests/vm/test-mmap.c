// SPDX-License-Identifier: GPL-2.0
/*
 * The read-only mapping of a filter (kmod/kbloom_mmap.c) as memory,
 * through the real device, every case for both filter types: the header
 * page against GET_INFO, each rejected mmap/mprotect/mremap with its
 * errno and nothing changed, and the mapping's life across destroy,
 * close, fork, munmap, mremap and rmmod.  What a reader is told through
 * it is test-mmap-answers.c; the helpers both use are mmap-test.h.
 */
#include <sys/syscall.h>
#include <sys/wait.h>

#include "mmap-test.h"

/* ---- 1. layout ---- */

static const char *layout(const struct vt_type *t, const void *arg)
{
	/*
	 * 101 blocks (a window's rounded up to whole key blocks): 6464 bytes
	 * of cells or a few more, so the last page has a tail.
	 */
	const uint64_t nblocks = (101 + vt_planes(t) - 1) / vt_planes(t) *
				 vt_planes(t);
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
	else if (H->generations != t->generations ||
		 (t->generations ?
		  H->plane_order != kbloom_plane_order(t->generations) ||
		  __builtin_popcountll(H->live) != (int)t->generations ||
		  H->live >> (t->generations + 1) :
		  H->plane_order || H->live || H->rotations))
		msg = vt_fail("window fields: generations %u plane_order %u "
			      "live %#llx rotations %llu", H->generations,
			      H->plane_order, (unsigned long long)H->live,
			      (unsigned long long)H->rotations);
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

/* ---- the run ---- */

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
};

int main(void)
{
	size_t i;

	page = sysconf(_SC_PAGESIZE);
	for (i = 0; i < ARRAY_SIZE(plain); i++)
		run_variants(plain[i].name, plain[i].fn, NULL, plain[i].need);
	for (i = 0; i < ARRAY_SIZE(rejections); i++)
		run_variants(rejections[i].name, reject_case,
			     &rejections[i], 0);
	vt_summary(SUITE);
	return vt_failed ? 1 : 0;
}
