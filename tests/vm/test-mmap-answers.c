// SPDX-License-Identifier: GPL-2.0
/*
 * What a reader of a filter's mapping (kmod/kbloom_mmap.c) is told,
 * every case for both filter types: answers through the mapping (the
 * module's own core, linked in here) against KBLOOM_IOC_CHECK up to a
 * 1 GiB filter, 256 Ki checks without a single system call (seccomp strict
 * mode) by the core and by libkbloom's kbl_map()ped kbl_check_one(), the
 * sequence count around every whole-filter rewrite, and adds and deletes
 * seen at once.  The mapping as memory is test-mmap.c; the helpers both
 * use are mmap-test.h.
 */
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "mmap-test.h"
#include "kbloom.h"

/* ---- 3. identical answers, 1 MiB and 1 GiB ---- */

struct size_case {
	const char *name;
	uint64_t bytes;
};

static const struct size_case sizes[] = {
	{ "identical-1MiB", 1ULL << 20 },
	{ "identical-1GiB", 1ULL << 30 },
};

/*
 * Keys of each way (present, absent) of a case.  What could answer
 * differently is an offset into the mapping, and 256 Ki random keys
 * reach every 4 KiB page of the 1 GiB filter with odds 1 - e^-1 each
 * (160,000 of its 262,144 pages), as 1 Mi reached 98 %: the test found
 * the same in a quarter of the time.  With 1 Mi, the identical and
 * no-syscall cases took 57 s of the test's 71 s on 6.12 under TCG
 * (2-vCPU VM, AMD EPYC host, 2026-12-03, ec60a47 with a debug-kernel
 * run alongside).
 */
#define KEYS	(1U << 18)

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

static const char *identical_in(const struct vt_type *t, const void *arg)
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
	 * The filter, the kernel and 2 x KEYS keys (15 MiB with their
	 * bitmaps and key arrays), with room to spare: 1.5 GiB for the 1 GiB one,
	 * which passed in a 3 GiB VM (MemTotal 2.9 GiB).
	 */
	if (have < need)
		return vt_skip("MemTotal %llu MiB, a %llu MiB filter needs "
			       "%llu MiB (run with KBLOOM_VM_MEM=3G)",
			       (unsigned long long)(have >> 20),
			       (unsigned long long)(sz->bytes >> 20),
			       (unsigned long long)(need >> 20));
	t0 = vt_now_s();
	EXPECT_OK(vt_create_typed("map-same", t->type, KEYS, sz->bytes * 8,
				  0, SEED));
	fd = vt_open("map-same", O_RDWR);
	EXPECT(fd >= 0, "open: %s", vt_errno_name(errno));
	if (keyset_make(&in, "in", 0, KEYS) ||
	    keyset_make(&out, "out", 0, KEYS)) {
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
	       a.t_ioctl, 100.0 * a.hits_map / KEYS);
	if (p.diff || a.diff)
		msg = vt_fail("%u present and %u absent keys answered "
			      "differently", p.diff, a.diff);
	else if (p.hits_map != KEYS || p.hits_ioctl != KEYS)
		msg = vt_fail("false negatives: mapped %ld, ioctl %ld of %u",
			      KEYS - p.hits_map, KEYS - p.hits_ioctl,
			      KEYS);
	return vt_done(fd, "map-same", msg);
}

static const char *identical(const struct vt_type *t, const void *arg)
{
	const struct size_case *sz = arg;
	const char *msg;
	uint64_t saved;

	if (vt_room_for(sz->bytes, &saved))
		return vt_fail("max_filter_bytes: %s", vt_errno_name(errno));
	msg = identical_in(t, arg);
	vt_param_set("max_filter_bytes", saved);
	return msg;
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
	if (!h)
		map_live(m);
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

/*
 * Without CONFIG_SECCOMP prctl(PR_GET_SECCOMP) fails with EINVAL (its stub
 * in linux/seccomp.h) and strict mode cannot be entered: the checks
 * without system calls cannot be shown, so they are skipped, not passed.
 */
static const char *seccomp_missing(void)
{
	errno = 0;
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0)
		return NULL;
	if (errno == EINVAL)
		return vt_skip("kernel without CONFIG_SECCOMP "
			       "(prctl(PR_GET_SECCOMP): EINVAL)");
	return vt_fail("prctl(PR_GET_SECCOMP): %s", vt_errno_name(errno));
}

static const char *no_syscalls(const struct vt_type *t, const void *arg)
{
	const struct strict_way *way = arg;
	const uint32_t n = KEYS;
	struct keyset s = { 0 }, added = { 0 };
	uint64_t calls0, ioctls0, calls1, ioctls1, got[2] = { ~0ULL, ~0ULL };
	const char *msg = NULL;
	int fd, pipefd[2], status, ret;
	struct map m = { 0 };
	struct kbl *h = NULL;
	long hits;
	pid_t pid;

	EXPECT_NULL(seccomp_missing());
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
			      WEXITSTATUS(status) == 2 ?
			      " (prctl(PR_SET_SECCOMP) failed)" :
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
	bad[VT_IMAGE_HDR] ^= 1;
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
				   VT_IMAGE_HDR, len);
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

static const struct {
	const char *name;
	mcase_fn fn;
	uint32_t need;
} plain[] = {
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
	for (i = 0; i < ARRAY_SIZE(seq_ops); i++)
		run_variants(seq_ops[i].name, seq_case, &seq_ops[i], 0);
	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		run_variants(sizes[i].name, identical, &sizes[i], 0);
	vt_summary(SUITE);
	return vt_failed ? 1 : 0;
}
