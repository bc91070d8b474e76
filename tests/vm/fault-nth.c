// SPDX-License-Identifier: GPL-2.0
/*
 * Every allocation failure, one at a time.  For each kind of call, fail
 * its 1st allocation, then its 2nd, and so on (the kernel's per-task
 * /proc/thread-self/fail-nth, with failslab and fail_page_alloc set to
 * honour GFP_KERNEL), until the call runs without reaching the fault.
 * After every failure:
 *   - the call failed with ENOMEM, or succeeded having survived the fault;
 *   - the filter's node is where it belongs: /dev/kbloom/<name> exists
 *     exactly when /sys/class/kbloom/<name> does, with its device number,
 *     and there is no /dev/<name>;
 *   - a filter the call failed on is unchanged and still works.
 * The number of allocation points of each call is measured, never assumed
 * (create's grew by the mapping's header page, for one).  Window filters
 * have their own: a window's create (its rotation state and works), ROTATE
 * (nothing rotated on a failure, one rotation on success) and GET_WINDOW.
 * So do scalable filters: their create, the ADD that grows one (ENOMEM
 * at the key that needed the growth, nothing else changed, and the ADD
 * again finishes), the MERGE that grows one first, GET_SUBFILTER, and the
 * load of an image that grows one.
 * Growth by the worker, for adds from the kernel, is not swept: fail-nth
 * is per task.
 * One kind of call is mmap() of a node plus a read of every mapped page:
 * the mapping (vma, maple tree) and the page tables its faults need.  A
 * page fault that cannot allocate is retried by the kernel (VM_FAULT_OOM);
 * a SIGBUS instead would be caught here and counted, and is a failure.
 * The caller checks kmemleak afterwards.  Needs a kernel with
 * CONFIG_FAULT_INJECTION, FAILSLAB and FAIL_PAGE_ALLOC (the debug kernel);
 * it mounts debugfs if needed and tells failslab and fail_page_alloc not to
 * ignore sleeping allocations, which is all fail-nth needs.
 *
 * Usage: fault-nth [-m MAX_N]   prints PASS:/FAIL: fault-nth/<call> lines
 */
#include <getopt.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "stress-map.h"

#define NAME		"fn-x"
#define BITS		(1 << 16)
#define NKEYS		100
#define WNAME		"fn-w"
#define SNAME		"fn-s"
#define SNAME2		"fn-s2"
/* Scalable filters of first capacity SCAP: NKEYS keys grow them. */
#define SCAP		10
#define WINDOW_GENERATIONS	4

static int max_n = 400;
static int failed;
static char first_fail[256];
static int fail_fd = -1;
static char keybuf[NKEYS * 24];
static uint32_t lens[NKEYS];
static uint8_t image[BITS / 8 + 4096], image2[BITS / 8 + 4096];

static void problem(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static int knob(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ok;

	ok = fd >= 0 && write(fd, value, strlen(value)) == (ssize_t)strlen(value);
	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

/* fail-nth only counts allocations these filters let through. */
static int setup_knobs(void)
{
	static const char *const knobs[][2] = {
		{ "failslab/ignore-gfp-wait", "N" },
		{ "failslab/verbose", "0" },
		{ "fail_page_alloc/ignore-gfp-wait", "N" },
		{ "fail_page_alloc/ignore-gfp-highmem", "N" },
		{ "fail_page_alloc/min-order", "0" },
		{ "fail_page_alloc/verbose", "0" },
	};
	char path[128];
	size_t i;

	if (access("/sys/kernel/debug/failslab", F_OK))
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	for (i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++) {
		snprintf(path, sizeof(path), "/sys/kernel/debug/%s",
			 knobs[i][0]);
		if (knob(path, knobs[i][1]))
			return -1;
	}
	return 0;
}

static void problem(const char *fmt, ...)
{
	va_list ap;

	if (!failed++) {
		va_start(ap, fmt);
		vsnprintf(first_fail, sizeof(first_fail), fmt, ap);
		va_end(ap);
	}
}

/* Arms the fault for the nth injection point from now on (0: disarm). */
static void arm(int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%d", n);

	if (pwrite(fail_fd, buf, len, 0) != len) {
		perror("fail-nth");
		exit(2);
	}
}

/* True when the armed fault was not reached; disarms it. */
static bool unreached(void)
{
	char buf[16] = "";
	bool left;

	if (pread(fail_fd, buf, sizeof(buf) - 1, 0) <= 0) {
		perror("fail-nth");
		exit(2);
	}
	left = atoi(buf) != 0;
	arm(0);
	return left;
}

/* The node and the sysfs directory agree, and nothing is misplaced. */
static void check_node(const char *call, int n)
{
	char sys[128];
	struct stat st;
	unsigned int maj, min;
	bool has_sys, has_node;
	FILE *f;

	snprintf(sys, sizeof(sys), "/sys/class/kbloom/%s/dev", NAME);
	has_sys = !access(sys, F_OK);
	has_node = !stat("/dev/kbloom/" NAME, &st);
	if (!access("/dev/" NAME, F_OK)) {
		problem("%s, fault %d: a node at /dev/%s, outside /dev/kbloom",
			call, n, NAME);
		unlink("/dev/" NAME);
	}
	if (has_node && !has_sys) {
		problem("%s, fault %d: /dev/kbloom/%s left behind with no filter (device %u:%u)",
			call, n, NAME, major(st.st_rdev), minor(st.st_rdev));
		/* Else every later step would trip over it. */
		unlink("/dev/kbloom/" NAME);
		return;
	}
	if (has_sys && !has_node) {
		problem("%s, fault %d: filter %s has no node", call, n, NAME);
		return;
	}
	if (!has_sys)
		return;
	f = fopen(sys, "r");
	if (!f || fscanf(f, "%u:%u", &maj, &min) != 2 ||
	    makedev(maj, min) != st.st_rdev)
		problem("%s, fault %d: node %s does not match sysfs", call, n,
			NAME);
	if (f)
		fclose(f);
}

static struct st_keys keys(const char *tag)
{
	struct st_keys k = { keybuf, lens, 0, 0 };

	st_keys_fill(&k, tag, 0, NKEYS);
	return k;
}

/* A fresh filter NAME holding the keys "base-*", opened read-write. */
static int fresh(void)
{
	struct st_keys k = keys("base");
	int fd;

	st_destroy(st_open_ctl(), NAME);
	if (st_create_bits(st_open_ctl(), NAME, BITS, 7, 5))
		return -1;
	fd = st_open(NAME, O_RDWR);
	if (fd >= 0 && st_batch(fd, KBLOOM_IOC_ADD, &k, NULL, NULL)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* All of keys tag-* found in fd's filter. */
static bool has_keys(int fd, const char *tag)
{
	struct st_keys k = keys(tag);
	uint32_t hits = 0;

	return !st_batch(fd, KBLOOM_IOC_CHECK, &k, NULL, &hits) &&
	       hits == NKEYS;
}

static ssize_t read_all(int fd, uint8_t *buf, size_t cap)
{
	size_t have = 0;
	ssize_t n;

	if (lseek(fd, 0, SEEK_SET))
		return -1;
	while ((n = read(fd, buf + have, cap - have)) > 0)
		have += n;
	return n < 0 ? -1 : (ssize_t)have;
}

/*
 * One sweep.  step(n) arms the nth fault around the call and checks the
 * outcome; it returns true once a call ran without reaching the fault.
 */
static int sweeps_failed;

static void sweep(const char *call, bool (*step)(int n))
{
	int n;

	failed = 0;
	for (n = 1; n <= max_n; n++)
		if (step(n))
			break;
	if (n > max_n)
		problem("%s: still failing at fault %d", call, max_n);
	if (!failed) {
		printf("PASS: fault-nth/%s (%d allocation points)\n", call,
		       n - 1);
		return;
	}
	printf("FAIL: fault-nth/%s: %d problems; first: %s\n", call, failed,
	       first_fail);
	sweeps_failed++;
}

/*
 * CREATE of a bits filter, or (window) of a window with a timer and a
 * count, whose rotation state, works and mapping header's window fields
 * are set up as it is made: on failure no node is left; on success the
 * filter takes keys (and a window rotates and still finds them).
 */
static bool create_typed_step(int n, const char *what, bool window)
{
	struct kbloom_create req;
	bool done;
	int e, fd;

	st_destroy(st_open_ctl(), NAME);
	memset(&req, 0, sizeof(req));
	strcpy(req.name, NAME);
	req.bits = BITS;
	req.node_mode = 0644;
	if (window) {
		req.type = KBLOOM_TYPE_WINDOW;
		req.generations = WINDOW_GENERATIONS;
		req.rotate_ms = 1000;
		req.rotate_every = 3 * NKEYS;
	}
	arm(n);
	e = st_ctl(st_open_ctl(), KBLOOM_CTL_CREATE, &req);
	done = unreached();
	if (e && e != ENOMEM)
		problem("%s, fault %d: %s", what, n, st_errname(e));
	check_node(what, n);
	if (!e) {
		struct st_keys k = keys("base");

		fd = st_open(NAME, O_RDWR);
		if (fd < 0 || st_batch(fd, KBLOOM_IOC_ADD, &k, NULL, NULL) ||
		    !has_keys(fd, "base") ||
		    (window && (ioctl(fd, KBLOOM_IOC_ROTATE, 0) ||
				!has_keys(fd, "base"))))
			problem("%s, fault %d: filter unusable: %s", what, n,
				st_errname(errno));
		if (fd >= 0)
			close(fd);
	}
	st_destroy(st_open_ctl(), NAME);
	return done && !e;
}

static bool create_step(int n)
{
	return create_typed_step(n, "create", false);
}

static bool create_window_step(int n)
{
	return create_typed_step(n, "create window", true);
}

/*
 * A scalable filter name (capacity SCAP at 1 %, expansion 2, a fixed
 * seed), holding the keys "base-*" when fill, opened read-write; its
 * first ADD's batch buffer is allocated here, before any fault.
 */
static int scalable_fresh(const char *name, bool fill)
{
	struct kbloom_create req;
	struct st_keys k = keys("base");
	int fd;

	st_destroy(st_open_ctl(), name);
	memset(&req, 0, sizeof(req));
	strcpy(req.name, name);
	req.capacity = SCAP;
	req.fp_ppb = 10000000;
	req.expansion = 2;
	req.flags = KBLOOM_CREATE_SEED;
	req.seed = 0x6661756c74ULL;
	if (st_ctl(st_open_ctl(), KBLOOM_CTL_CREATE, &req))
		return -1;
	fd = st_open(name, O_RDWR);
	if (fd >= 0 && fill && st_batch(fd, KBLOOM_IOC_ADD, &k, NULL, NULL)) {
		close(fd);
		return -1;
	}
	return fd;
}

static bool info_of(int fd, struct kbloom_info *info)
{
	return !ioctl(fd, KBLOOM_IOC_GET_INFO, info);
}

static uint64_t total_bytes(void)
{
	unsigned long long v = 0;
	FILE *f = fopen("/sys/class/kbloom/total_bytes", "r");

	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

/* CREATE of a scalable filter: its chain, counts and growth state. */
static bool create_scalable_step(int n)
{
	struct kbloom_info info;
	bool done;
	int fd;

	st_destroy(st_open_ctl(), SNAME);
	arm(n);
	fd = scalable_fresh(SNAME, false);
	done = unreached();
	if (fd < 0 && errno != ENOMEM)
		problem("create scalable, fault %d: %s", n, st_errname(errno));
	if (fd >= 0) {
		struct st_keys k = keys("base");

		if (st_batch(fd, KBLOOM_IOC_ADD, &k, NULL, NULL) ||
		    !has_keys(fd, "base") || !info_of(fd, &info) ||
		    info.subfilters < 2)
			problem("create scalable, fault %d: filter unusable: %s",
				n, st_errname(errno));
		close(fd);
	}
	st_destroy(st_open_ctl(), SNAME);
	return done && fd >= 0;
}

/*
 * An ADD that grows a scalable filter (NKEYS new keys into one that holds
 * NKEYS, so its newest sub-filter fills): on ENOMEM the keys before done
 * are in, the others not counted, the sub-filters, bytes and the
 * module's total are as they were, the statistics agree, and the same
 * ADD again without a fault finishes it; on success every key is found.
 */
static bool grow_step(int n)
{
	struct kbloom_info before, after;
	struct kbloom_batch b;
	struct st_keys k;
	uint64_t total;
	bool done;
	int fd = scalable_fresh(SNAME, true), e;

	if (fd < 0 || !info_of(fd, &before)) {
		problem("grow: setup: %s", st_errname(errno));
		return true;
	}
	/* After the fill: the keys share one buffer. */
	k = keys("more");
	total = total_bytes();
	st_batch_of(&b, &k, NULL);
	arm(n);
	e = ioctl(fd, KBLOOM_IOC_ADD, &b) ? errno : 0;
	done = unreached();
	if (e && e != ENOMEM)
		problem("grow, fault %d: %s", n, st_errname(e));
	if (!info_of(fd, &after))
		problem("grow, fault %d: get_info: %s", n, st_errname(errno));
	else if (e && (after.subfilters != before.subfilters ||
		       after.bytes != before.bytes || total_bytes() != total ||
		       after.add_calls != before.add_calls + b.done ||
		       !after.saturated))
		problem("grow, fault %d: after ENOMEM at key %llu: %u sub-filters (%u), %llu bytes (%llu), total %llu (%llu), saturated %u",
			n, (unsigned long long)b.done, after.subfilters,
			before.subfilters, (unsigned long long)after.bytes,
			(unsigned long long)before.bytes,
			(unsigned long long)total_bytes(),
			(unsigned long long)total, after.saturated);
	else if (!e && after.subfilters <= before.subfilters)
		problem("grow, fault %d: %u sub-filters, %u before", n,
			after.subfilters, before.subfilters);
	k = keys("more");
	if (e && (st_batch(fd, KBLOOM_IOC_ADD, &k, NULL, NULL) ||
		  !info_of(fd, &after) || after.saturated))
		problem("grow, fault %d: the ADD again: %s, saturated %u", n,
			st_errname(errno), after.saturated);
	if (!has_keys(fd, "base") || !has_keys(fd, "more"))
		problem("grow, fault %d: keys missing", n);
	close(fd);
	return done && !e;
}

/*
 * MERGE into a scalable filter of one that has more sub-filters: it grows
 * first; on ENOMEM its keys are as they were.
 */
static bool merge_scalable_step(int n)
{
	struct kbloom_other other = { 0 };
	bool done;
	int fd = scalable_fresh(SNAME, false), src = scalable_fresh(SNAME2, true);
	int e;

	if (fd < 0 || src < 0) {
		problem("merge scalable: setup: %s", st_errname(errno));
		return true;
	}
	other.fd = src;
	arm(n);
	e = ioctl(fd, KBLOOM_IOC_MERGE, &other) ? errno : 0;
	done = unreached();
	if (e && e != ENOMEM)
		problem("merge scalable, fault %d: %s", n, st_errname(e));
	if (!e && !has_keys(fd, "base"))
		problem("merge scalable, fault %d: merged keys missing", n);
	close(src);
	close(fd);
	st_destroy(st_open_ctl(), SNAME2);
	return done && !e;
}

/*
 * GET_SUBFILTER: the statistics walk keeps each sub-filter's cells in
 * memory allocated at its first walk; without it, the answer comes from
 * a walk of the one sub-filter.
 */
static bool subfilter_step(int n)
{
	struct kbloom_subfilter sf;
	bool done;
	int fd = scalable_fresh(SNAME, true), e;

	if (fd < 0) {
		problem("get_subfilter: setup: %s", st_errname(errno));
		return true;
	}
	memset(&sf, 0, sizeof(sf));
	sf.index = 1;
	arm(n);
	e = ioctl(fd, KBLOOM_IOC_GET_SUBFILTER, &sf) ? errno : 0;
	done = unreached();
	if (e && e != ENOMEM)
		problem("get_subfilter, fault %d: %s", n, st_errname(e));
	if (!e && (sf.capacity != 2 * SCAP || !sf.keys || !sf.bits_set))
		problem("get_subfilter, fault %d: capacity %llu keys %llu set %llu",
			n, (unsigned long long)sf.capacity,
			(unsigned long long)sf.keys,
			(unsigned long long)sf.bits_set);
	close(fd);
	return done && !e;
}

/*
 * A scalable filter's image (version 4) loaded into one that must grow to
 * its sub-filters: the staging buffer, then each growth.  On ENOMEM the
 * filter's keys and counts are as they were (the empty sub-filters it
 * grew may stay); on success it holds the image, its own image then the
 * same bytes.
 */
static bool load_scalable_step(int n)
{
	struct kbloom_info before, after;
	int fd = scalable_fresh(SNAME, false), src = scalable_fresh(SNAME2, true);
	ssize_t len, len2 = -1;
	struct st_keys k;
	bool done;
	int e = 0;

	/* Twice the keys of fd: sub-filters fd has to grow.  One buffer. */
	if (fd >= 0 && src >= 0) {
		k = keys("more");
		e = st_batch(src, KBLOOM_IOC_ADD, &k, NULL, NULL);
		k = keys("own");
		e = e ?: st_batch(fd, KBLOOM_IOC_ADD, &k, NULL, NULL);
	}
	if (fd < 0 || src < 0 || e || !info_of(fd, &before)) {
		problem("load scalable: setup: %s", st_errname(errno));
		return true;
	}
	len = read_all(src, image, sizeof(image));
	if (len <= 0 || lseek(fd, 0, SEEK_SET)) {
		problem("load scalable: read: %s", st_errname(errno));
		return true;
	}
	arm(n);
	e = write(fd, image, len) == len ? 0 : errno;
	done = unreached();
	if (e && e != ENOMEM)
		problem("load scalable, fault %d: %s", n, st_errname(e));
	if (!info_of(fd, &after))
		problem("load scalable, fault %d: get_info: %s", n,
			st_errname(errno));
	else if (e && (after.add_new != before.add_new ||
		       after.subfilters < before.subfilters ||
		       !has_keys(fd, "own")))
		problem("load scalable, fault %d: after ENOMEM: add_new %llu (%llu), %u sub-filters (%u), own keys %s",
			n, (unsigned long long)after.add_new,
			(unsigned long long)before.add_new, after.subfilters,
			before.subfilters, has_keys(fd, "own") ? "found" : "lost");
	if (!e)
		len2 = read_all(fd, image2, sizeof(image2));
	if (!e && (len2 != len || memcmp(image, image2, len) ||
		   !has_keys(fd, "base") || !has_keys(fd, "more")))
		problem("load scalable, fault %d: the loaded filter differs from its image",
			n);
	close(src);
	close(fd);
	st_destroy(st_open_ctl(), SNAME2);
	return done && !e;
}

/* A window of its own for the ROTATE and GET_WINDOW sweeps. */
static int window_fd;

static uint64_t rotations_of(int fd)
{
	struct kbloom_window_info wi;

	return ioctl(fd, KBLOOM_IOC_GET_WINDOW, &wi) ? ~0ULL : wi.rotations;
}

/*
 * ROTATE: on failure nothing rotated, on success one rotation; the keys
 * added just before are found either way (they are at most one
 * generation old).
 */
static bool rotate_step(int n)
{
	struct st_keys k = keys("base");
	uint64_t before;
	bool done;
	int e;

	if (st_batch(window_fd, KBLOOM_IOC_ADD, &k, NULL, NULL)) {
		problem("rotate: setup: %s", st_errname(errno));
		return true;
	}
	before = rotations_of(window_fd);
	arm(n);
	e = ioctl(window_fd, KBLOOM_IOC_ROTATE, 0) ? errno : 0;
	done = unreached();
	if (e && e != ENOMEM)
		problem("rotate, fault %d: %s", n, st_errname(e));
	if (rotations_of(window_fd) != before + !e)
		problem("rotate, fault %d: %llu rotations after %llu and %s", n,
			(unsigned long long)rotations_of(window_fd),
			(unsigned long long)before, st_errname(e));
	if (!has_keys(window_fd, "base"))
		problem("rotate, fault %d: keys missing", n);
	return done && !e;
}

static bool get_window_step(int n)
{
	struct kbloom_window_info wi;
	bool done;
	int e;

	arm(n);
	e = ioctl(window_fd, KBLOOM_IOC_GET_WINDOW, &wi) ? errno : 0;
	done = unreached();
	if (e && e != ENOMEM)
		problem("get_window, fault %d: %s", n, st_errname(e));
	if (!e && wi.generations != WINDOW_GENERATIONS)
		problem("get_window, fault %d: %u generations", n,
			wi.generations);
	return done && !e;
}

static bool destroy_step(int n)
{
	bool done;
	int fd = fresh(), e;

	if (fd < 0) {
		problem("destroy: setup: %s", st_errname(errno));
		return true;
	}
	close(fd);
	arm(n);
	e = st_destroy(st_open_ctl(), NAME);
	done = unreached();
	if (e)
		problem("destroy, fault %d: %s", n, st_errname(e));
	check_node("destroy", n);
	return done;
}

static bool open_step(int n)
{
	bool done;
	int fd, e;

	arm(n);
	fd = st_open(NAME, O_RDWR);
	e = fd < 0 ? errno : 0;
	done = unreached();
	if (e && e != ENOMEM)
		problem("open, fault %d: %s", n, st_errname(e));
	if (!e) {
		if (!has_keys(fd, "base"))
			problem("open, fault %d: keys missing", n);
		close(fd);
	}
	return done && !e;
}

/* A file of NAME kept open by the sweeps that only look at it. */
static int step_fd;

/* The first ADD on a file allocates its batch buffer. */
static bool add_step(int n)
{
	struct st_keys k = keys("more");
	bool done;
	int fd = st_open(NAME, O_RDWR), e;

	arm(n);
	e = st_batch(fd, KBLOOM_IOC_ADD, &k, NULL, NULL);
	done = unreached();
	if (e && e != ENOMEM)
		problem("add, fault %d: %s", n, st_errname(e));
	if (!has_keys(fd, "base") || (!e && !has_keys(fd, "more")))
		problem("add, fault %d: keys missing", n);
	close(fd);
	return done && !e;
}

static bool read_step(int n)
{
	ssize_t len, want = read_all(step_fd, image2, sizeof(image2));
	bool done;
	int fd = st_open(NAME, O_RDONLY), e;

	arm(n);
	len = read_all(fd, image, sizeof(image));
	e = len < 0 ? errno : 0;
	done = unreached();
	if (e && e != ENOMEM)
		problem("read, fault %d: %s", n, st_errname(e));
	if (!e && (len != want || memcmp(image, image2, len)))
		problem("read, fault %d: image differs", n);
	close(fd);
	return done && !e;
}

/*
 * Load an image of other keys: on failure the filter keeps its own keys
 * (and only them), on success it holds the image's.
 */
static bool write_step(int n)
{
	ssize_t len, got;
	bool done;
	int fd, e;

	struct st_keys k;

	/* The image: NAME after a clear and the keys "other-*". */
	fd = fresh();
	k = keys("other");	/* after fresh(), which uses the buffers */
	if (fd < 0 || ioctl(fd, KBLOOM_IOC_CLEAR, 0) ||
	    st_batch(fd, KBLOOM_IOC_ADD, &k, NULL, NULL)) {
		problem("write: setup: %s", st_errname(errno));
		return true;
	}
	len = read_all(fd, image2, sizeof(image2));
	close(fd);
	fd = fresh();
	arm(n);
	got = len < 0 ? -1 : lseek(fd, 0, SEEK_SET) ? -1 :
	      write(fd, image2, len);
	e = got < 0 ? errno : got != len ? EIO : 0;
	done = unreached();
	if (e && e != ENOMEM)
		problem("write, fault %d: %s", n, st_errname(e));
	if (e ? !has_keys(fd, "base") : !has_keys(fd, "other"))
		problem("write, fault %d: wrong keys after %s", n,
			st_errname(e));
	close(fd);
	return done && !e;
}

static bool info_step(int n)
{
	struct kbloom_info info;
	bool done;
	int e;

	arm(n);
	e = ioctl(step_fd, KBLOOM_IOC_GET_INFO, &info) ? errno : 0;
	done = unreached();
	if (e && e != ENOMEM)
		problem("get_info, fault %d: %s", n, st_errname(e));
	return done && !e;
}

static bool sysfs_step(int n)
{
	char buf[32];
	bool done;
	int fd = open("/sys/class/kbloom/" NAME "/fill_ppb", O_RDONLY), e;
	ssize_t got;

	arm(n);
	got = fd < 0 ? -1 : pread(fd, buf, sizeof(buf), 0);
	e = got < 0 ? errno : 0;
	done = unreached();
	if (e && e != ENOMEM)
		problem("sysfs read, fault %d: %s", n, st_errname(e));
	if (fd >= 0)
		close(fd);
	return done && !e;
}

static int map_signals;

struct touch {
	const uint8_t *p;
	size_t len;
};

/* One word of every page of a struct touch. */
static void touch_fn(void *arg)
{
	static volatile uint64_t sink;
	const struct touch *t = arg;
	size_t at;

	for (at = 0; at < t->len; at += ST_PAGE)
		sink += *(volatile const uint64_t *)(t->p + at);
}

static uint64_t mappings_of(int fd)
{
	struct kbloom_info info;

	return ioctl(fd, KBLOOM_IOC_GET_INFO, &info) ? ~0ULL : info.mappings;
}

/*
 * mmap() of the whole filter and a read of each page (header, cells),
 * then the keys through the mapping with the core; munmap() must leave
 * the filter counting no mapping.
 */
static bool map_step(int n)
{
	size_t len = st_map_pages(BITS / 512) * ST_PAGE;
	struct st_keys k = keys("base");
	uint32_t missing = 0, first;
	struct st_map m;
	const char *bad;
	uint8_t *p;
	bool done;
	int e, sig;

	arm(n);
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, step_fd, 0);
	e = p == MAP_FAILED ? errno : 0;
	sig = e ? 0 : st_guarded(touch_fn, &(struct touch){ p, len });
	done = unreached();
	if (e && e != ENOMEM)
		problem("mmap, fault %d: %s", n, st_errname(e));
	if (sig) {
		map_signals++;
		problem("mmap, fault %d: %s reading the mapped pages", n,
			sigabbrev_np(sig));
	}
	if (e)
		return false;
	bad = st_map_header_problem((const void *)p, len);
	if (bad)
		problem("mmap, fault %d: header: %s", n, bad);
	munmap(p, len);
	/* The keys, through a fresh mapping, fault injection off. */
	e = st_map_open(step_fd, &m);
	if (e || mappings_of(step_fd) != 1 ||
	    !st_map_check(&m, &k, &missing, &first) || missing)
		problem("mmap, fault %d: after: map %s, %llu mappings, %u keys missing",
			n, st_errname(e), (unsigned long long)mappings_of(step_fd),
			missing);
	st_map_close(&m);
	if (mappings_of(step_fd))
		problem("mmap, fault %d: %llu mappings left after munmap", n,
			(unsigned long long)mappings_of(step_fd));
	return done;
}

int main(int argc, char **argv)
{
	char path[64];
	int c;

	while ((c = getopt(argc, argv, "m:")) != -1) {
		if (c != 'm') {
			fprintf(stderr, "usage: fault-nth [-m MAX_N]\n");
			return 2;
		}
		max_n = atoi(optarg);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (setup_knobs()) {
		printf("FAIL: fault-nth/setup: no failslab/fail_page_alloc in debugfs: %s\n",
		       st_errname(errno));
		return 1;
	}
	snprintf(path, sizeof(path), "/proc/self/task/%d/fail-nth", gettid());
	fail_fd = open(path, O_RDWR | O_CLOEXEC);
	if (fail_fd < 0 || st_open_ctl() < 0) {
		printf("FAIL: fault-nth/setup: %s: %s\n",
		       fail_fd < 0 ? path : ST_CONTROL, st_errname(errno));
		return 1;
	}

	sweep("create", create_step);
	sweep("create-window", create_window_step);
	sweep("destroy", destroy_step);
	sweep("create-scalable", create_scalable_step);
	sweep("grow", grow_step);
	sweep("merge-scalable", merge_scalable_step);
	sweep("get-subfilter", subfilter_step);
	sweep("load-scalable", load_scalable_step);
	st_destroy(st_open_ctl(), SNAME);
	st_destroy(st_open_ctl(), WNAME);
	if (!st_create_gen(st_open_ctl(), WNAME, KBLOOM_TYPE_WINDOW,
			   WINDOW_GENERATIONS, BITS, 7, 5))
		window_fd = st_open(WNAME, O_RDWR);
	else
		window_fd = -1;
	if (window_fd < 0) {
		printf("FAIL: fault-nth/setup: window: %s\n",
		       st_errname(errno));
		return 1;
	}
	sweep("rotate", rotate_step);
	sweep("get-window", get_window_step);
	close(window_fd);
	st_destroy(st_open_ctl(), WNAME);
	step_fd = fresh();
	if (step_fd < 0) {
		printf("FAIL: fault-nth/setup: %s\n", st_errname(errno));
		return 1;
	}
	sweep("open", open_step);
	sweep("first-add", add_step);
	sweep("read-image", read_step);
	sweep("get-info", info_step);
	sweep("sysfs-read", sysfs_step);
	st_guard_signals();
	sweep("mmap-and-fault", map_step);
	printf("fault-nth: %d SIGBUS or SIGSEGV while reading mapped pages\n",
	       map_signals);
	close(step_fd);
	sweep("write-image", write_step);
	st_destroy(st_open_ctl(), NAME);
	return sweeps_failed ? 1 : 0;
}
