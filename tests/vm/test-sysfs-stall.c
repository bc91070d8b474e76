// SPDX-License-Identifier: GPL-2.0
/*
 * A reader of a big filter's cell statistics stalls nobody.  Those sysfs
 * files are world-readable and a read after a change walks every cell (2
 * to 3 s per GiB in Debian's kernel under qemu), so no lock that a writer
 * or the registry needs may be held across the walk.  One run, twice with
 * the same load: a process adds a key and reads fill_ppb over and over,
 * of another filter of the same size (the control: the same CPU and
 * memory load, no lock in common), then of the filter under test:
 *   clear          a CLEAR issued 100 ms into a walk starts rewriting
 *                  the cells (the mapping's sequence turns odd) within a
 *                  quarter of a walk; it used to wait for the walk's end.
 *                  How long the CLEAR takes is printed, not judged: the
 *                  walk slows it as any memory-bound neighbour would;
 *   destroy        destroying the filter 100 ms into a walk makes the
 *                  reader's read fail (ENODEV) and returns, and a third
 *                  process creating and destroying small filters all the
 *                  while sees none of its calls take half a walk or more
 *                  (the registry lock used to be held while the destroy
 *                  waited for the walk).
 * The times and their ratios to the control are printed.
 */
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "vmtest.h"

#define SUITE		"sysfs-stall"
#define BIG		"st-big"
#define OTHER		"st-other"
#define SMALL		"st-small"
#define BIG_BITS	(4ULL << 30)	/* 512 MiB each: both fit the VM */
#define SEED		0x57a11ULL
#define INTO_WALK_NS	100000000ULL	/* 100 ms */

struct stall_shared {
	volatile int stop;
	volatile uint64_t walk_begin_ns;	/* 0 while not walking */
	volatile uint64_t walk_ns;		/* the last whole walk */
	volatile int reader_errno;		/* what ended the reader */
	volatile uint64_t reader_reads;
	volatile uint64_t small_max_ns;		/* the slowest call */
	volatile uint64_t small_calls;
	volatile int small_errno;
	volatile uint64_t clear_issued_ns;	/* before the CLEAR ioctl */
	volatile uint64_t clear_started_ns;	/* sequence seen odd */
};

static struct stall_shared *sh;
static const char *reader_target;	/* the filter the reader walks */

/* Adds a fresh key, then reads fill_ppb (a walk), until told or refused. */
static void reader(void)
{
	uint64_t i = 0, v;
	int fd = vt_open(reader_target, O_RDWR);

	if (fd < 0) {
		sh->reader_errno = errno;
		_exit(0);
	}
	while (!sh->stop) {
		uint64_t t0;

		if (vt_add_prefix(fd, "r", i++, 1) < 0) {
			sh->reader_errno = errno;
			break;
		}
		t0 = vt_now_ns();
		sh->walk_begin_ns = t0;
		if (vt_sysfs_u64(reader_target, "fill_ppb", &v)) {
			sh->reader_errno = errno;
			sh->walk_begin_ns = 0;
			break;
		}
		sh->walk_begin_ns = 0;
		sh->walk_ns = vt_now_ns() - t0;
		sh->reader_reads++;
	}
	close(fd);
	_exit(0);
}

/* Creates and destroys a small filter, timing each call. */
static void small_churn(void)
{
	while (!sh->stop) {
		uint64_t t0 = vt_now_ns(), t1, t2;

		if (vt_create(SMALL, 1000, 10000000U, 0)) {
			sh->small_errno = errno;
			break;
		}
		t1 = vt_now_ns();
		if (vt_destroy(SMALL)) {
			sh->small_errno = errno;
			break;
		}
		t2 = vt_now_ns();
		if (t1 - t0 > sh->small_max_ns)
			sh->small_max_ns = t1 - t0;
		if (t2 - t1 > sh->small_max_ns)
			sh->small_max_ns = t2 - t1;
		sh->small_calls += 2;
	}
	_exit(0);
}

/* Watches the big filter's mapping for its sequence to turn odd. */
static void clear_watch(void)
{
	const struct kbloom_map_header *h;
	int fd = vt_open(BIG, O_RDONLY);

	h = fd < 0 ? MAP_FAILED : mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED)
		_exit(1);
	while (!sh->stop) {
		if (sh->clear_issued_ns &&
		    (__atomic_load_n(&h->sequence, __ATOMIC_ACQUIRE) & 1)) {
			sh->clear_started_ns = vt_now_ns();
			break;
		}
	}
	_exit(0);
}

static pid_t spawn(void (*fn)(void))
{
	pid_t pid = fork();

	if (!pid)
		fn();
	return pid;
}

static void reap(pid_t pid)
{
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

/* Waits until the reader is INTO_WALK_NS into a walk; false after 60 s. */
static bool into_walk(void)
{
	uint64_t give_up = vt_now_ns() + 60000000000ULL;

	while (vt_now_ns() < give_up) {
		uint64_t b = sh->walk_begin_ns;

		if (b && sh->walk_ns && vt_now_ns() - b >= INTO_WALK_NS)
			return true;
		usleep(1000);
	}
	return false;
}

struct stall_run {
	uint64_t clear_ns, clear_start_ns, destroy_ns, small_max_ns;
	uint64_t small_calls, walk_ns;
	int reader_errno;
};

/*
 * One run: CLEAR then destroy of the big filter while the reader walks
 * it (on_big) or the other filter.
 */
static const char *run(bool on_big, struct stall_run *r)
{
	pid_t rd = -1, sm = -1, wt = -1;
	const char *err = NULL;
	int fd, other = -1;
	uint64_t t0;

	memset((void *)sh, 0, sizeof(*sh));
	memset(r, 0, sizeof(*r));
	fd = vt_fresh(BIG, KBLOOM_TYPE_BITS, 0, BIG_BITS, 7, SEED);
	if (!on_big)
		other = vt_fresh(OTHER, KBLOOM_TYPE_BITS, 0, BIG_BITS, 7, SEED);
	if (fd < 0 || (!on_big && other < 0)) {
		err = vt_fail("create two 512 MiB filters: %s",
			      vt_errno_name(errno));
		goto out;
	}
	if (vt_add_prefix(fd, "k", 0, 50000) < 0) {
		err = vt_fail("add: %s", vt_errno_name(errno));
		goto out;
	}
	reader_target = on_big ? BIG : OTHER;
	rd = spawn(reader);
	if (!into_walk()) {
		err = vt_fail("the reader never walked (errno %s)",
			      vt_errno_name(sh->reader_errno));
		goto out;
	}
	wt = spawn(clear_watch);
	usleep(1000);
	t0 = vt_now_ns();
	sh->clear_issued_ns = t0;
	if (ioctl(fd, KBLOOM_IOC_CLEAR, 0)) {
		err = vt_fail("CLEAR: %s", vt_errno_name(errno));
		goto out;
	}
	r->clear_ns = vt_now_ns() - t0;
	reap(wt);
	wt = -1;
	if (!sh->clear_started_ns) {
		err = vt_fail("the mapping never showed the CLEAR");
		goto out;
	}
	r->clear_start_ns = sh->clear_started_ns - t0;
	sm = spawn(small_churn);
	usleep(300000);
	if (!into_walk()) {
		err = vt_fail("the reader stopped walking (errno %s)",
			      vt_errno_name(sh->reader_errno));
		goto out;
	}
	t0 = vt_now_ns();
	if (vt_destroy(BIG)) {
		err = vt_fail("destroy %s: %s", BIG, vt_errno_name(errno));
		goto out;
	}
	r->destroy_ns = vt_now_ns() - t0;
	usleep(300000);
out:
	sh->stop = 1;
	reap(rd);
	reap(sm);
	reap(wt);
	if (fd >= 0)
		close(fd);
	if (other >= 0)
		close(other);
	vt_destroy(BIG);
	vt_destroy(OTHER);
	vt_destroy(SMALL);
	r->small_max_ns = sh->small_max_ns;
	r->small_calls = sh->small_calls;
	r->walk_ns = sh->walk_ns;
	r->reader_errno = sh->reader_errno;
	if (!err && sh->small_errno)
		err = vt_fail("small filters: %s",
			      vt_errno_name(sh->small_errno));
	return err;
}

static double ms(uint64_t ns)
{
	return ns / 1e6;
}

int main(void)
{
	struct stall_run base, rd;
	const char *err;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	err = run(false, &base);
	if (!err)
		err = run(true, &rd);
	if (err) {
		vt_report(SUITE, "runs", err);
		vt_summary(SUITE);
		return 1;
	}
	printf("%s: 512 MiB walk %.0f ms; CLEAR began rewriting after %.1f ms and took %.1f ms walking the other filter, %.1f and %.1f ms walking this one; destroy %.1f ms, %.1f ms; small filters' slowest call %.1f ms (%llu calls), %.1f ms (%llu calls, %.2fx)\n",
	       SUITE, ms(rd.walk_ns), ms(base.clear_start_ns),
	       ms(base.clear_ns), ms(rd.clear_start_ns), ms(rd.clear_ns),
	       ms(base.destroy_ns), ms(rd.destroy_ns), ms(base.small_max_ns),
	       (unsigned long long)base.small_calls, ms(rd.small_max_ns),
	       (unsigned long long)rd.small_calls,
	       (double)rd.small_max_ns / base.small_max_ns);
	vt_report(SUITE, "clear_not_behind_walk",
		  rd.clear_start_ns < rd.walk_ns / 4 ? NULL :
		  vt_fail("CLEAR issued 100 ms into a %.0f ms walk of its filter began rewriting after %.1f ms (%.1f ms beside a walk of another): it waited for the walk",
			  ms(rd.walk_ns), ms(rd.clear_start_ns),
			  ms(base.clear_start_ns)));
	vt_report(SUITE, "destroy_ends_reader",
		  rd.reader_errno == ENODEV || rd.reader_errno == ENOENT ?
		  NULL : vt_fail("the reader ended with %s, wanted ENODEV or ENOENT",
				 vt_errno_name(rd.reader_errno)));
	vt_report(SUITE, "registry_not_behind_walk",
		  rd.small_max_ns < rd.walk_ns / 2 ? NULL :
		  vt_fail("a create or destroy of a small filter took %.1f ms while %s was destroyed during a %.0f ms walk (%.1f ms when another filter was walked)",
			  ms(rd.small_max_ns), BIG, ms(rd.walk_ns),
			  ms(base.small_max_ns)));
	vt_summary(SUITE);
	return vt_failed ? 1 : 0;
}
