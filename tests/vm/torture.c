// SPDX-License-Identifier: GPL-2.0
/*
 * Concurrency torture with ground truth.  Writers add known keys to one
 * shared filter ("tt-main") and publish, in shared memory, how many of
 * their adds have completed; readers check published keys and must always
 * find them.  Meanwhile chaos processes merge main into their own filters
 * and their filters into main, save main (read()) and restore the image
 * into their filters (write()), intersect, clear, save and restore their
 * own, destroy and recreate them, and read statistics.  The run is made
 * once for each filter type of vmtest.h's vt_types[] (or for -T TYPE
 * only), its verdicts named torture/CASE/TYPE, and on a scalable main
 * (below); where the type deletes
 * (counting), writers also add and delete "churn" keys of their own, each
 * added once and deleted once.  Main is only ever added
 * to or merged into (and, counting, loses only churn keys), so:
 *   - every key published before a check began is found (no false
 *     negatives), in main and in every copy of main a chaos process made;
 *   - a churn key deleted right after its add is found and removed;
 *   - main's count of set bits never falls (types that do not delete);
 *   - no call takes longer than the hang limit (no deadlock).
 * Mapped readers (-m) check the same published keys through a read-only
 * mapping of main with the module's own core (kbloom_lookup), under the
 * header's sequence count: a check that saw one state of main (s1 even,
 * s1 == s2) and missed a published key is a false negative; one that did
 * not is retried and counted.  To make the sequence move under them,
 * chaos also rewrites main in place without changing what it holds: it
 * intersects main with an own filter loaded with an image of all ones.
 * Chaos processes map their own filters too and check their copies of
 * main through the mappings, also after destroying them: a destroyed
 * filter's mapping keeps its cells and says KBLOOM_MAP_DEAD.  (A
 * scalable main's mappings: below.)
 *
 * Kernel readers check the same published keys from inside the kernel,
 * where kbloom_api.h promises that a check sees every add that returned
 * before it began, and every key present both before and after a rewrite
 * of the whole filter (the intersects above).  In-kernel API readers (-K)
 * go through the companion module (loaded from /kmod/ for the run): take
 * a reference to main by name or by id, check a window with
 * kbloom_filter_check() or _check_keys() in process, rcu, spinlock,
 * softirq, irqoff or hardirq context, and put it from process, softirq or
 * hardirq context; the companion's key prefix makes its keys the
 * writers'.  BPF readers (-B, when kbloom has BTF) send each key of a
 * window as an XDP packet through bpf/test.bpf.c's xdp_var_len, which
 * acquires main by id and checks the key: the verdict must be XDP_DROP.
 * The companion is one global state: its readers take turns (flock).
 *
 * Then, for each type that grows (VT_GROWS), a run on a scalable main,
 * its verdicts named torture/CASE/scalable-TYPE: main is created with
 * expansion 2, rate 1 % and a fixed seed, its first capacity 1/4096 of
 * the ioctl writers' keys, so that it grows at least 10 times while the
 * keys go in (the run fails "growth" with fewer than 11 sub-filters at
 * the end, or with a sub-filter but the newest short of its capacity:
 * it grew before it was full).  Besides the ioctl writers, two more
 * write, each with a writer slot of its own, its keys checked by every
 * reader as the ioctl writers' are: a kernel writer, the companion's
 * adder thread (kbloom_filter_add(), waiting out EAGAIN while the worker
 * grows main), paced by adder-limit as the ioctl writers are paced, which
 * publishes the adder's done; and a BPF writer, each key a packet through
 * bpf/test.bpf.c's tc_learn_var_len (bpf_kbloom_add()), published once
 * the verdict says it went in and sent again while the add is refused
 * with EAGAIN.  They run when the kernel readers of their kind can (-K 0
 * and -B 0 leave them out too).  Chaos does what a scalable filter
 * allows: its own filters are scalable and compatible with main (or not:
 * another capacity, expansion, type or seed, or a fixed filter, and
 * every merge and load is EXDEV); it merges both ways, saves main and
 * loads the image (version 4) into an own filter, CLEARs its own (back
 * to one sub-filter), loads an older image of main into an own filter
 * that has more sub-filters than it (the load frees them), and finds
 * INTERSECT refused (EOPNOTSUPP); main's sub-filters never fall.
 * Nothing clears or loads into main: test-scalable.c races those with
 * the kernel adder.  Nor is main rewritten in place (INTERSECT is
 * refused): its mapped readers see it grow, not its sequence move.
 * Every mapping of a scalable filter (main's mapped readers', the final
 * mapped check's, chaos's of its own, which chaos checks succeed with a
 * header of version KBLOOM_MAP_VERSION_CHAIN) is read as a chain of the
 * module's core (stress-map.h: kbloom_chain_lookup() on sub-filters
 * whose words are the mapped ones) and covers the sub-filters present
 * when it was made.  Before each check the reader looks whether it is
 * behind (the header's subfilters no longer the ones it mapped, or its
 * sequence moved since: a CLEAR or load of own freed sub-filters whose
 * untouched pages would fault) and, if so, maps again before touching
 * any cells (counted: main mapped again, own filters mapped again).  A
 * check judged is one through a mapping current throughout, sequence
 * even and unchanged and subfilters unchanged from before its first key
 * to after its last: then a published key missed is a false negative;
 * a check that saw either move is retried (counted), never judged.  A
 * fault reading a current mapping fails "mappings": nothing clears or
 * loads main, and only its chaos process writes an own filter.  Before
 * destroying an own filter chaos maps it again if it is behind, and
 * after, finds the mapping still current, dead, and holding the copy.
 *
 * Usage: torture [-s SEED] [-w WRITERS] [-r READERS] [-m MAPPED_READERS]
 *                [-c CHAOS] [-K KAPI_READERS] [-B BPF_READERS]
 *                [-t SECONDS] [-H HANG_SECONDS] [-k KEYS_PER_WRITER]
 *                [-T TYPE] [-S]
 * By default the writers add one key per 10 cells of main in all; one
 * reader of each kernel kind runs when the machine has what it needs
 * (else SKIP says why).  -T TYPE runs one type (scalable-bits, say), -S
 * the scalable runs alone.
 * Prints counts of everything done, then PASS:/FAIL: lines.
 */
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <linux/pkt_cls.h>

#include "stress-map.h"
#include "vmtest.h"
#include "bpf/loader.h"

#define MAX_WRITERS	8
/* Writer slots: the ioctl writers, then a scalable run's kernel and BPF. */
#define MAX_SLOTS	(MAX_WRITERS + 2)
#define MAX_PROCS	34
#define MAIN_NAME	"tt-main"
#define MAIN_BITS	(1 << 23)	/* memory: 1 MiB */
#define MAIN_K		7
#define MAIN_SEED	0x70170170ULL
#define OWN_FILTERS	3	/* per chaos process: "tt-c<i>-<j>" */
#define BATCH_KEYS	256
#define CHECK_KEYS	4096
#define IMAGE_BYTES	(MAIN_BITS / 8 + 4096)
#define KAPI_LOCK_FILE	"/tmp/tt-kapi.lock"
#define BPF_WINDOW	64	/* keys a BPF reader checks in a row */
/*
 * A scalable main: capacity from the key budget, so that the ioctl
 * writers' keys alone fill 12 sub-filters (2^12 - 1 first capacities):
 * a quarter of them makes the 11 the run asserts (10 growths).
 */
#define SC_EXPANSION	2
#define SC_FP_PPB	10000000U	/* 1 %: a lost key shows 99 times in 100 */
#define SC_FILL_SUBS	12
#define SC_MIN_SUBS	11
enum count {
	C_ADD_CALLS, C_KEYS_ADDED, C_CHECK_CALLS, C_KEYS_CHECKED, C_MERGE_IN,
	C_MERGE_OUT, C_INTERSECT, C_SAVE, C_SAVE_STALE, C_RESTORE, C_CLEAR,
	C_DESTROY, C_CREATE, C_SELF_RESTORE, C_INFO, C_REOPEN, C_COPY_KEYS,
	C_CHURN, C_MAP_CHECKS, C_MAP_KEYS, C_MAP_RETRIES, C_MAIN_REWRITE,
	C_OWN_MAP_KEYS, C_DEAD_MAP_KEYS, C_REMAP, C_KAPI_CHECKS, C_KAPI_KEYS,
	C_KAPI_IRQ, C_BPF_KEYS, C_KERNEL_ADDED, C_KERNEL_WAITS, C_BPF_ADDED,
	C_BPF_EAGAIN, C_TRUNCATE, C_INTERSECT_REFUSED, C_MAIN_REMAPS,
	C_OWN_REMAPS, C_MERGE_REFUSED, NR_COUNTS
};
static const char *const count_names[NR_COUNTS] = {
	"add calls", "keys added", "check calls", "keys checked",
	"merges main->own", "merges own->main", "intersects", "saves of main",
	"saves cut short (ESTALE)", "restores main->own", "clears", "destroys",
	"creates", "own save+restore", "info reads", "reopens of main",
	"keys checked in copies", "churn keys added+deleted",
	"mapped checks of main", "keys checked through a mapping",
	"mapped checks retried (moved)", "main rewritten in place",
	"copy keys checked mapped", "copy keys in dead mappings",
	"own filters re-mapped", "in-kernel API checks of main",
	"keys checked through the API",
	"... in softirq, irqoff or hardirq", "keys checked by BPF programs",
	"keys added by the in-kernel API", "... adds that waited (EAGAIN)",
	"keys added by a BPF program", "... packets refused (EAGAIN), resent",
	"loads truncating own", "intersects refused (scalable)",
	"main mapped again (behind)", "own filters mapped again (behind)",
	"merges refused (counting scalable)",
};

enum fail_kind {
	F_FALSE_NEG, F_COPY, F_DELETE, F_ERRNO, F_MONOTONIC, F_MAPPING,
	F_KERNEL, F_KWRITERS, F_GROWTH, F_CRASH, F_HANG, NR_FAIL_KINDS
};
static const char *const fail_names[NR_FAIL_KINDS] = {
	"no-false-negatives", "copies-complete", "deletes-exact", "errnos",
	"main-monotonic", "mappings", "kernel-readers", "kernel-writers",
	"growth", "no-crash", "no-deadlock",
};

struct shared {
	volatile uint64_t published[MAX_SLOTS];	/* adds completed */
	uint64_t counts[MAX_PROCS][NR_COUNTS];
	volatile uint64_t op_started_ms[MAX_PROCS];
	volatile const char *op_name[MAX_PROCS];
	uint64_t fails[NR_FAIL_KINDS];
	char fail_msg[NR_FAIL_KINDS][240];
	volatile int stop;
	uint64_t start_ms, run_ms;
	uint32_t main_id;	/* sysfs id of main, for the kernel readers */
	volatile int kwriter_waits;	/* the kernel writer's turn is next */
};

static struct shared *sh;
static int nwriters = 2, nreaders = 2, nmapped = 1, nchaos = 3;
static int nkapi = -1, nbpf = -1;	/* -1: one, if the machine can */
/* A scalable run's writers through the companion's adder and tc_learn. */
static int nkwriters, nbwriters;
static int nslots;			/* writers of every kind */
static const struct vt_type *main_t;	/* the type of this run */
static bool scalable;			/* main grows: "scalable-<type>" */
static char run_name[32];		/* the CASE's TYPE in verdicts */
static uint64_t sc_capacity;		/* a scalable main's first */

/* Whether main's type deletes (vt_types[]' capability VT_DELETES). */
static bool main_deletes(void)
{
	return main_t->caps & VT_DELETES;
}
static uint64_t max_keys;

struct proc {
	int id;
	struct st_rng rng;
	char *keybuf;
	uint32_t *lens;
	uint64_t *results;
	uint8_t *image;
	size_t image_cap;	/* bytes at image: a scalable main grows */
	/* A scalable run's older image of main, and main's keys in it. */
	uint8_t *old_image;
	size_t old_len;
	uint64_t old_upto[MAX_SLOTS];
};

static void fail(enum fail_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void fail(enum fail_kind kind, const char *fmt, ...)
{
	va_list ap;

	if (__atomic_fetch_add(&sh->fails[kind], 1, __ATOMIC_RELAXED))
		return;
	va_start(ap, fmt);
	vsnprintf(sh->fail_msg[kind], sizeof(sh->fail_msg[kind]), fmt, ap);
	va_end(ap);
}

static void count(struct proc *p, enum count c, uint64_t n)
{
	sh->counts[p->id][c] += n;
}

static void begin(struct proc *p, const char *what)
{
	sh->op_name[p->id] = what;
	sh->op_started_ms[p->id] = st_now_ms();
}

static void end(struct proc *p)
{
	sh->op_started_ms[p->id] = 0;
}

static void writer_tag(char *tag, int w)
{
	snprintf(tag, 16, "w%d", w);
}

static uint64_t published(int w)
{
	return __atomic_load_n(&sh->published[w], __ATOMIC_ACQUIRE);
}

/*
 * Checks keys [first, first + n) of writer w in fd's filter; returns how
 * many were missing (-1 on an errno, which is itself a failure).
 */
static long check_keys(struct proc *p, int fd, int w, uint64_t first,
		       uint32_t n, enum fail_kind kind, const char *where)
{
	struct st_keys k = { p->keybuf, p->lens, 0, 0 };
	uint32_t hits = 0, i;
	char tag[16];
	int e;

	writer_tag(tag, w);
	st_keys_fill(&k, tag, first, n);
	e = st_batch(fd, KBLOOM_IOC_CHECK, &k, p->results, &hits);
	if (e) {
		fail(F_ERRNO, "%s: check: %s", where, st_errname(e));
		return -1;
	}
	count(p, kind == F_COPY ? C_COPY_KEYS : C_KEYS_CHECKED, n);
	count(p, C_CHECK_CALLS, 1);
	if (hits == n)
		return 0;
	for (i = 0; i < n; i++)
		if (!(p->results[i / 64] >> (i % 64) & 1))
			break;
	fail(kind, "%s: %u of %u published keys missing, first %s-%llu",
	     where, n - hits, n, tag, (unsigned long long)(first + i));
	return n - hits;
}

/*
 * A random window of a random writer's keys published up to upto[w]:
 * often the newest ones, else anywhere.  false when it published none.
 */
static bool pick_window(struct proc *p, const uint64_t *upto, int *w,
			uint64_t *first, uint64_t *n)
{
	*w = st_below(&p->rng, nslots);
	if (!upto[*w])
		return false;
	*first = st_one_in(&p->rng, 2) && upto[*w] > BATCH_KEYS ?
		 upto[*w] - BATCH_KEYS : st_below(&p->rng, upto[*w]);
	*n = upto[*w] - *first;
	if (*n > CHECK_KEYS)
		*n = CHECK_KEYS;
	return true;
}

static void check_some(struct proc *p, int fd, const uint64_t *upto,
		       enum fail_kind kind, const char *where)
{
	uint64_t first, n;
	int w;

	if (pick_window(p, upto, &w, &first, &n))
		check_keys(p, fd, w, first, n, kind, where);
}

static void check_all(struct proc *p, int fd, const uint64_t *upto,
		      enum fail_kind kind, const char *where)
{
	uint64_t first;
	int w;

	for (w = 0; w < nslots; w++)
		for (first = 0; first < upto[w]; first += CHECK_KEYS) {
			uint64_t n = upto[w] - first;

			if (check_keys(p, fd, w, first,
				       n > CHECK_KEYS ? CHECK_KEYS : n, kind,
				       where))
				return;
		}
}

/* One st_map_check(), run by st_guarded() on a scalable filter's mapping. */
struct mapped_check {
	const struct st_map *m;
	const struct st_keys *k;
	uint32_t missing, at;
	bool judged;
};

static void mapped_check_fn(void *arg)
{
	struct mapped_check *c = arg;

	c->judged = st_map_check(c->m, c->k, &c->missing, &c->at);
}

/*
 * check_keys() through a mapping: how many were missing, -1 when the
 * check did not see one state of the filter (to be retried, not judged),
 * or -2 when reading the mapping faulted.  A scalable filter's check
 * reads cells only through a mapping that covered the whole filter when
 * it began (st_map_chain_check()), and those pages are all present while
 * nothing clears or loads the filter meanwhile, which is so for main and
 * for a chaos process's own (only it writes them): a SIGBUS there is the
 * module's fault, caught to say where.
 */
static long check_keys_mapped(struct proc *p, const struct st_map *m, int w,
			      uint64_t first, uint32_t n, enum fail_kind kind,
			      const char *where)
{
	struct st_keys k = { p->keybuf, p->lens, 0, 0 };
	struct mapped_check c = { m, &k, 0, 0, false };
	char tag[16];
	int sig = 0;

	writer_tag(tag, w);
	st_keys_fill(&k, tag, first, n);
	if (m->chain.subs)
		sig = st_guarded(mapped_check_fn, &c);
	else
		mapped_check_fn(&c);
	if (sig) {
		fail(F_MAPPING, "%s: %s reading a mapping of %u sub-filters (sequence %llu when mapped, now %llu; %u sub-filters now)",
		     where, sigabbrev_np(sig), m->chain.nsubs,
		     (unsigned long long)m->seq0,
		     (unsigned long long)m->hdr->sequence,
		     m->hdr->subfilters);
		return -2;
	}
	if (!c.judged) {
		count(p, C_MAP_RETRIES, 1);
		return -1;
	}
	count(p, kind == F_COPY ? C_OWN_MAP_KEYS : C_MAP_KEYS, n);
	count(p, C_MAP_CHECKS, kind != F_COPY);
	if (c.missing && m->chain.subs)
		fail(kind, "%s: %u of %u published keys missing through a current mapping of %u sub-filters (sequence %llu), first %s-%llu",
		     where, c.missing, n, m->chain.nsubs,
		     (unsigned long long)m->seq0, tag,
		     (unsigned long long)(first + c.at));
	else if (c.missing)
		fail(kind, "%s: %u of %u published keys missing through the mapping (sequence %llu), first %s-%llu",
		     where, c.missing, n, (unsigned long long)m->hdr->sequence,
		     tag, (unsigned long long)(first + c.at));
	return c.missing;
}

/*
 * A scalable filter's mapping that no longer covers the filter (grown,
 * cleared or loaded since) is made again through fd before a check
 * touches it; fd < 0 for a destroyed filter's, which cannot be.  False
 * when it is behind and stays so.
 */
static bool map_current(struct proc *p, struct st_map *m, int fd,
			enum fail_kind kind, const char *where)
{
	int e;

	if (!st_map_behind(m))
		return true;
	if (fd < 0)
		return false;
	e = st_map_remap(fd, m);
	if (e) {
		fail(F_MAPPING, "%s: map again: %s", where, st_errname(e));
		return false;
	}
	count(p, kind == F_COPY ? C_OWN_REMAPS : C_MAIN_REMAPS, 1);
	return true;
}

/*
 * check_keys_mapped() until judged: a check that saw the filter move is
 * retried, after mapping it again (through fd) if it is now behind.
 */
static void check_keys_mapped_retry(struct proc *p, struct st_map *m, int fd,
				    int w, uint64_t first, uint32_t n,
				    enum fail_kind kind, const char *where)
{
	int tries;

	for (tries = 0; tries < 100; tries++)
		if (!map_current(p, m, fd, kind, where) ||
		    check_keys_mapped(p, m, w, first, n, kind, where) != -1)
			return;
}

/* check_some() through a mapping; a window retried until judged. */
static void check_some_mapped(struct proc *p, struct st_map *m, int fd,
			      const uint64_t *upto, enum fail_kind kind,
			      const char *where)
{
	uint64_t first, n;
	int w;

	if (pick_window(p, upto, &w, &first, &n))
		check_keys_mapped_retry(p, m, fd, w, first, n, kind, where);
}

static void snapshot(uint64_t *upto)
{
	int w;

	for (w = 0; w < nslots; w++)
		upto[w] = published(w);
}

static int open_main(int flags)
{
	int fd = st_open(MAIN_NAME, flags);

	if (fd < 0)
		fail(F_ERRNO, "open %s: %s", MAIN_NAME, st_errname(errno));
	return fd;
}

/* ---- writers and readers ---- */

/*
 * Counting main: add n churn keys of writer w and delete them again; every
 * one must be found present and removed.
 */
static void churn(struct proc *p, int fd, int w, uint64_t first, uint32_t n)
{
	struct st_keys k = { p->keybuf, p->lens, 0, 0 };
	uint32_t hits = 0;
	char tag[16];
	int e;

	snprintf(tag, sizeof(tag), "x%d", w);
	st_keys_fill(&k, tag, first, n);
	begin(p, "churn add");
	e = st_batch(fd, KBLOOM_IOC_ADD, &k, NULL, NULL);
	end(p);
	if (e) {
		fail(F_ERRNO, "writer %d: churn add: %s", w, st_errname(e));
		return;
	}
	begin(p, "churn delete");
	e = st_batch(fd, KBLOOM_IOC_DELETE, &k, NULL, &hits);
	end(p);
	if (e)
		fail(F_ERRNO, "writer %d: delete: %s", w, st_errname(e));
	else if (hits != n)
		fail(F_DELETE, "writer %d: delete removed %u of %u keys just added",
		     w, hits, n);
	count(p, C_CHURN, n);
}

static void writer(struct proc *p, int w)
{
	struct st_keys k = { p->keybuf, p->lens, 0, 0 };
	int fd = open_main(O_RDWR);
	uint64_t churned = 0;
	char tag[16];
	int e;

	if (fd < 0)
		return;
	writer_tag(tag, w);
	while (!sh->stop && published(w) < max_keys) {
		uint64_t first = published(w);
		uint32_t n = 1 + st_below(&p->rng, BATCH_KEYS);
		uint64_t due = max_keys * (st_now_ms() - sh->start_ms) /
			       sh->run_ms;

		/* Spread the keys over the whole run, so adds race it all. */
		if (first > due) {
			usleep(2000);
			continue;
		}

		st_keys_fill(&k, tag, first, n);
		begin(p, "add");
		e = st_batch(fd, KBLOOM_IOC_ADD, &k, NULL, NULL);
		end(p);
		if (e) {
			fail(F_ERRNO, "writer %d: add: %s", w, st_errname(e));
			break;
		}
		count(p, C_ADD_CALLS, 1);
		count(p, C_KEYS_ADDED, n);
		/* Only now may anyone expect these keys. */
		__atomic_store_n(&sh->published[w], first + n,
				 __ATOMIC_RELEASE);
		if (main_deletes() && st_one_in(&p->rng, 2)) {
			churn(p, fd, w, churned, n);
			churned += n;
		}
	}
	close(fd);
}

static void reader(struct proc *p)
{
	uint64_t upto[MAX_SLOTS];
	int fd = open_main(O_RDONLY);

	if (fd < 0)
		return;
	while (!sh->stop) {
		snapshot(upto);
		begin(p, "check");
		check_some(p, fd, upto, F_FALSE_NEG, "reader");
		end(p);
	}
	close(fd);
}

/* Maps fd's filter whole; the header must describe it. */
static bool map_filter(int fd, struct st_map *m, const char *name)
{
	int e = st_map_open(fd, m);

	if (e)
		fail(F_MAPPING, "mmap %s: %s", name, st_errname(e));
	return !e;
}

/*
 * A fixed main's mapping is main for good; a scalable main's covers the
 * sub-filters it had when mapped, so the reader keeps main open to map
 * it again whenever it grew (map_current()).
 */
static void mapped_reader(struct proc *p)
{
	uint64_t upto[MAX_SLOTS];
	struct st_map m;
	int fd = open_main(O_RDONLY);
	bool ok;

	if (fd < 0)
		return;
	ok = map_filter(fd, &m, MAIN_NAME);
	if (!scalable) {
		close(fd);	/* the mapping holds the file */
		fd = -1;
	}
	if (!ok)
		goto out;
	while (!sh->stop) {
		snapshot(upto);
		begin(p, "mapped check");
		check_some_mapped(p, &m, fd, upto, F_FALSE_NEG,
				  "mapped reader");
		end(p);
	}
	st_map_close(&m);
out:
	if (fd >= 0)
		close(fd);
}

/* ---- kernel readers ---- */

/*
 * One round of an in-kernel API reader, the companion to itself: hold
 * main, check a window of published keys of writer w in ctx, put.
 */
static void kapi_round(struct proc *p, int cmd_fd, int res_fd)
{
	uint64_t upto[MAX_SLOTS], first, n;
	long long yes, keys, errors, id;
	char res[600], want[64];
	int w, ctx, e;
	bool batch;

	snapshot(upto);
	if (!pick_window(p, upto, &w, &first, &n)) {
		usleep(2000);
		return;
	}
	ctx = st_below(&p->rng, ST_KAPI_NR_CTX);
	batch = st_one_in(&p->rng, 2);
	e = st_one_in(&p->rng, 2) ?
	    st_kapi_cmd(cmd_fd, res_fd, res, sizeof(res), "hold %s", MAIN_NAME) :
	    st_kapi_cmd(cmd_fd, res_fd, res, sizeof(res), "hold-id %u",
			sh->main_id);
	if (e || !st_kapi_has(res, "ret=0") || !st_kapi_num(res, "id", &id) ||
	    id != sh->main_id) {
		fail(F_KERNEL, "kapi reader: hold main (id %u): %s: '%s'",
		     sh->main_id, st_errname(e), res);
		return;
	}
	e = st_kapi_cmd(cmd_fd, res_fd, res, sizeof(res), "prefix w%d", w);
	snprintf(want, sizeof(want), "ret=0 prefix=w%d", w);
	if (e || strcmp(res, want))
		fail(F_KERNEL, "kapi reader: prefix w%d: %s: '%s'", w,
		     st_errname(e), res);
	e = st_kapi_cmd(cmd_fd, res_fd, res, sizeof(res), "%s %s %llu %llu",
			batch ? "check-keys" : "check", st_kapi_ctx(ctx),
			(unsigned long long)first, (unsigned long long)n);
	if (e || !st_kapi_num(res, "keys", &keys) ||
	    !st_kapi_num(res, "yes", &yes) ||
	    !st_kapi_num(res, "errors", &errors) || keys != (long long)n ||
	    errors || !st_kapi_has(res, "badret=0 ctx=ok")) {
		fail(F_KERNEL, "kapi reader: %s in %s: %s: '%s'",
		     batch ? "check-keys" : "check", st_kapi_ctx(ctx),
		     st_errname(e), res);
	} else {
		count(p, C_KAPI_CHECKS, 1);
		count(p, C_KAPI_KEYS, n);
		count(p, C_KAPI_IRQ, ctx >= ST_KAPI_SOFTIRQ ? n : 0);
		if (yes != keys)
			fail(F_FALSE_NEG, "kapi reader: %s in %s context: %lld of %llu published keys missing, in w%d-%llu..%llu",
			     batch ? "kbloom_filter_check_keys()" :
			     "kbloom_filter_check()", st_kapi_ctx(ctx),
			     keys - yes, (unsigned long long)n, w,
			     (unsigned long long)first,
			     (unsigned long long)(first + n - 1));
	}
	e = st_kapi_cmd(cmd_fd, res_fd, res, sizeof(res), "%s",
			st_kapi_put(st_below(&p->rng, 3)));
	if (e || !st_kapi_has(res, "ret=0 ctx=ok"))
		fail(F_KERNEL, "kapi reader: put: %s: '%s'", st_errname(e), res);
}

static void kapi_reader(struct proc *p)
{
	int cmd_fd, res_fd, lock_fd = open(KAPI_LOCK_FILE, O_RDWR | O_CLOEXEC);

	if (st_kapi_open(&cmd_fd, &res_fd) || lock_fd < 0) {
		fail(F_KERNEL, "kapi reader: open the companion's parameters or %s: %s",
		     KAPI_LOCK_FILE, st_errname(errno));
		return;
	}
	while (!sh->stop) {
		flock(lock_fd, LOCK_EX);
		begin(p, "in-kernel API check");
		kapi_round(p, cmd_fd, res_fd);
		end(p);
		flock(lock_fd, LOCK_UN);
		/* flock() is not fair: the kernel writer's turn first. */
		while (sh->kwriter_waits && !sh->stop)
			usleep(500);
	}
	close(cmd_fd);
	close(res_fd);
	close(lock_fd);
}

/*
 * A BPF reader: each key of a window of published keys in an IPv6
 * packet's source address (zero-padded; xdp_var_len checks its first
 * key_len bytes), through xdp_var_len on main by id: XDP_DROP every time.
 */
static void bpf_reader(struct proc *p)
{
	uint64_t upto[MAX_SLOTS], first, n, i, nulls, errors;
	/*
	 * xdp_var_len alone: the verifier's passes over the others (tc_hold's
	 * 8192 checks above all) take seconds on the debug kernel.
	 */
	static const char *const progs[] = { "xdp_var_len", NULL };
	uint8_t key[KBT_KEY_BYTES], pkt[KBT_PKT_BYTES];
	struct kbt_globals *g = NULL;
	struct bpf_object *obj = NULL;
	long ret;
	int w, prog, err, len;

	err = kb_load_test(&obj, &g, progs);
	if (err) {
		fail(F_KERNEL, "bpf reader: load bpf/test.bpf.o: %s: %s",
		     st_errname(err), kb_libbpf_last());
		return;
	}
	prog = kb_prog_fd(obj, "xdp_var_len");
	g->filter_id = sh->main_id;
	while (!sh->stop) {
		snapshot(upto);
		if (!pick_window(p, upto, &w, &first, &n)) {
			usleep(2000);
			continue;
		}
		if (n > BPF_WINDOW)
			n = BPF_WINDOW;
		begin(p, "BPF check");
		for (i = first; i < first + n; i++) {
			memset(key, 0, sizeof(key));
			len = snprintf((char *)key, sizeof(key), "w%d-%llu", w,
				       (unsigned long long)i);
			g->key_len = len;
			kb_packet(pkt, key);
			nulls = g->nulls;
			errors = g->errors;
			ret = kb_run_pkt(prog, pkt, sizeof(pkt), 1);
			if (ret < 0 || g->nulls != nulls || g->errors != errors) {
				fail(F_KERNEL, "bpf reader: xdp_var_len on main: test_run %s, %llu NULL acquires, %llu errors (last %lld)",
				     ret < 0 ? st_errname(-ret) : "ok",
				     (unsigned long long)(g->nulls - nulls),
				     (unsigned long long)(g->errors - errors),
				     (long long)g->last_error);
				break;
			}
			if (ret != XDP_DROP) {
				fail(F_FALSE_NEG, "bpf reader: xdp_var_len judged published key w%d-%llu absent (verdict %ld)",
				     w, (unsigned long long)i, ret);
				break;
			}
			count(p, C_BPF_KEYS, 1);
		}
		end(p);
	}
	kb_close_test(obj, g);
}

/* ---- a scalable main's kernel writers ---- */

/* Keys a writer of max_keys should have added by now. */
static uint64_t due_keys(void)
{
	uint64_t due = max_keys * (st_now_ms() - sh->start_ms) / sh->run_ms;

	return due < max_keys ? due : max_keys;
}

/*
 * One command to the companion's adder, in turn with the in-kernel API
 * readers (the companion answers the last command of anyone); 0 or the
 * errno, the answer in res.
 */
static int adder_cmd(struct proc *p, int cmd_fd, int res_fd, int lock_fd,
		     char *res, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));

static int adder_cmd(struct proc *p, int cmd_fd, int res_fd, int lock_fd,
		     char *res, size_t size, const char *fmt, ...)
{
	char cmd[128];
	va_list ap;
	int e;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	sh->kwriter_waits = 1;
	flock(lock_fd, LOCK_EX);
	sh->kwriter_waits = 0;
	/* A literal: the parent prints it from its own address space. */
	begin(p, "kernel writer: adder command");
	e = st_kapi_cmd(cmd_fd, res_fd, res, size, "%s", cmd);
	end(p);
	flock(lock_fd, LOCK_UN);
	if (!e && !st_kapi_has(res, "ret=0"))
		e = EPROTO;
	return e;
}

/*
 * The kernel writer: the companion's adder thread adds keys w<slot>-0, ...
 * to main through kbloom_filter_add(), waiting out EAGAIN while the
 * worker grows main; adder-limit paces it as the ioctl writers are paced,
 * and its done (keys whose add returned) is what it publishes.
 */
static void kernel_writer(struct proc *p, int slot)
{
	int cmd_fd, res_fd, lock_fd = open(KAPI_LOCK_FILE, O_RDWR | O_CLOEXEC);
	/* The adder stops at whole batches of 64 keys. */
	uint64_t most = max_keys / 64 * 64;
	long long done = 0, bad = -1, waits = 0;
	char res[256];
	int e;

	if (st_kapi_open(&cmd_fd, &res_fd) || lock_fd < 0) {
		fail(F_KWRITERS, "kernel writer: open the companion's parameters or %s: %s",
		     KAPI_LOCK_FILE, st_errname(errno));
		return;
	}
	e = adder_cmd(p, cmd_fd, res_fd, lock_fd, res, sizeof(res),
		      "adder-start %s w%d 0", MAIN_NAME, slot);
	if (e) {
		fail(F_KWRITERS, "kernel writer: adder-start: %s: '%s'",
		     st_errname(e), res);
		goto out;
	}
	while (!sh->stop && published(slot) < most) {
		e = adder_cmd(p, cmd_fd, res_fd, lock_fd, res, sizeof(res),
			      "adder-limit %llu",
			      (unsigned long long)due_keys());
		if (e || !st_kapi_num(res, "done", &done)) {
			fail(F_KWRITERS, "kernel writer: adder-limit: %s: '%s'",
			     st_errname(e), res);
			break;
		}
		/* Only now may anyone expect keys below done. */
		__atomic_store_n(&sh->published[slot], done, __ATOMIC_RELEASE);
		usleep(5000);
	}
	e = adder_cmd(p, cmd_fd, res_fd, lock_fd, res, sizeof(res),
		      "adder-stop");
	if (e || !st_kapi_num(res, "done", &done) ||
	    !st_kapi_num(res, "bad", &bad) ||
	    !st_kapi_num(res, "waits", &waits)) {
		fail(F_KWRITERS, "kernel writer: adder-stop: %s: '%s'",
		     st_errname(e), res);
		goto out;
	}
	/* Every add returned 1 or 0 (EAGAIN was waited out). */
	if (bad)
		fail(F_KWRITERS, "kernel writer: %lld kbloom_filter_add() calls failed: '%s'",
		     bad, res);
	__atomic_store_n(&sh->published[slot], done, __ATOMIC_RELEASE);
	count(p, C_KERNEL_ADDED, done);
	count(p, C_KERNEL_WAITS, waits);
out:
	close(cmd_fd);
	close(res_fd);
	close(lock_fd);
}

/*
 * The BPF writer: each key w<slot>-i as a packet through tc_learn_var_len,
 * which adds it with bpf_kbloom_add(); published once its verdict says it
 * went in.  A packet refused with EAGAIN (main full, its growth pending)
 * is sent again: the worker grows main for the next one.
 */
static void bpf_writer(struct proc *p, int slot)
{
	static const char *const progs[] = { "tc_learn_var_len", NULL };
	uint8_t key[KBT_KEY_BYTES], pkt[KBT_PKT_BYTES];
	struct kbt_globals *g = NULL;
	struct bpf_object *obj = NULL;
	uint64_t next = 0;
	int prog, err;
	long ret;

	err = kb_load_test(&obj, &g, progs);
	if (err) {
		fail(F_KWRITERS, "bpf writer: load bpf/test.bpf.o: %s: %s",
		     st_errname(err), kb_libbpf_last());
		return;
	}
	prog = kb_prog_fd(obj, "tc_learn_var_len");
	g->filter_id = sh->main_id;
	while (!sh->stop && next < max_keys) {
		if (next >= due_keys()) {
			usleep(2000);
			continue;
		}
		memset(key, 0, sizeof(key));
		g->key_len = snprintf((char *)key, sizeof(key), "w%d-%llu",
				      slot, (unsigned long long)next);
		kb_packet(pkt, key);
		begin(p, "BPF add");
		for (;;) {
			ret = kb_run_pkt(prog, pkt, sizeof(pkt), 1);
			if (ret != (uint32_t)TC_ACT_UNSPEC ||
			    g->last_error != -EAGAIN || sh->stop)
				break;
			count(p, C_BPF_EAGAIN, 1);
			usleep(100);
		}
		end(p);
		if (ret == (uint32_t)TC_ACT_UNSPEC && g->last_error == -EAGAIN)
			break;	/* stopped while main waited to grow */
		if (ret != TC_ACT_OK) {
			fail(F_KWRITERS, "bpf writer: tc_learn_var_len of w%d-%llu: test_run %s, verdict %ld, last error %lld",
			     slot, (unsigned long long)next,
			     ret < 0 ? st_errname(-ret) : "ok", ret,
			     (long long)g->last_error);
			break;
		}
		count(p, C_BPF_ADDED, 1);
		/* Only now may anyone expect it. */
		__atomic_store_n(&sh->published[slot], ++next,
				 __ATOMIC_RELEASE);
	}
	kb_close_test(obj, g);
}

/* ---- chaos ---- */

struct own {
	char name[KBLOOM_NAME_MAX];
	int fd;			/* -1 when destroyed */
	bool main_geometry;	/* compatible with main */
	bool scalable;		/* made with an expansion */
	bool no_merge;		/* counting and scalable: takes no merge */
	bool has_copy;		/* holds main's keys up to copy[] */
	uint64_t copy[MAX_SLOTS];
	struct st_map map;	/* the filter mapped, base NULL if not */
};

/*
 * A scalable filter: with main's capacity, rate, expansion, type and seed
 * it is compatible with a scalable main (merges, images); 0 or an errno.
 */
static int create_scalable(const char *name, const struct vt_type *t,
			   uint64_t capacity, uint32_t expansion,
			   uint64_t seed)
{
	struct kbloom_create req;

	memset(&req, 0, sizeof(req));
	memcpy(req.name, name, strnlen(name, sizeof(req.name) - 1));
	req.type = t->type;
	req.capacity = capacity;
	req.fp_ppb = SC_FP_PPB;
	req.expansion = expansion;
	req.flags = KBLOOM_CREATE_SEED;
	req.seed = seed;
	return st_ctl(st_open_ctl(), KBLOOM_CTL_CREATE, &req);
}

/* A scalable main's sub-filters now, or 0 with the errno failed. */
static uint32_t subfilters_of(int fd, const char *name)
{
	struct kbloom_info info;

	if (!ioctl(fd, KBLOOM_IOC_GET_INFO, &info))
		return info.subfilters;
	fail(F_ERRNO, "info %s: %s", name, st_errname(errno));
	return 0;
}

static void own_create(struct proc *p, struct own *o)
{
	uint64_t bits = MAIN_BITS, seed = MAIN_SEED;
	uint64_t capacity = sc_capacity;
	uint32_t expansion = SC_EXPANSION;
	const struct vt_type *t = main_t;
	int e;

	o->main_geometry = !st_one_in(&p->rng, 4);
	o->scalable = scalable;
	if (!o->main_geometry) {
		/* Whole window key blocks (8 lines) for every type. */
		bits = 4096 * (1 + st_below(&p->rng, 512));
		seed = st_next(&p->rng);
		t = &vt_types[st_below(&p->rng, ARRAY_SIZE(vt_types))];
		/*
		 * Beside a scalable main, half of the others are scalable
		 * but for one of the five things a merge or load compares.
		 */
		o->scalable = scalable && (t->caps & VT_GROWS) &&
			      st_one_in(&p->rng, 2);
		if (o->scalable) {
			t = main_t;
			seed = MAIN_SEED;
			switch (st_below(&p->rng, 4)) {
			case 0: capacity++; break;
			case 1: expansion++; break;
			case 2: t = vt_type_of(main_t->type ==
					      KBLOOM_TYPE_BITS ?
					      KBLOOM_TYPE_COUNTING :
					      KBLOOM_TYPE_BITS); break;
			default: seed++; break;
			}
		}
	}
	o->no_merge = o->scalable && t->type == KBLOOM_TYPE_COUNTING;
	begin(p, "create");
	e = o->scalable ? create_scalable(o->name, t, capacity, expansion,
					  seed) :
	    st_create_gen(st_open_ctl(), o->name, t->type, t->generations,
			  bits, MAIN_K, seed);
	end(p);
	o->has_copy = false;
	o->fd = -1;
	memset(&o->map, 0, sizeof(o->map));
	if (e) {
		fail(F_ERRNO, "create %s: %s", o->name, st_errname(e));
		return;
	}
	count(p, C_CREATE, 1);
	o->fd = st_open(o->name, O_RDWR);
	if (o->fd < 0) {
		fail(F_ERRNO, "open %s: %s", o->name, st_errname(errno));
		return;
	}
	/* Scalable or not, the filter maps, with the header of its kind. */
	if (!map_filter(o->fd, &o->map, o->name))
		return;
	count(p, C_REMAP, 1);
	if (o->map.hdr->version != (o->scalable ? KBLOOM_MAP_VERSION_CHAIN :
				    KBLOOM_MAP_VERSION))
		fail(F_MAPPING, "mmap of %s %s: header version %u",
		     o->scalable ? "scalable" : "fixed", o->name,
		     o->map.hdr->version);
}

static void own_destroy(struct proc *p, struct own *o)
{
	struct kbloom_info info;
	int e;

	/*
	 * A mapping that is behind (own grew, was cleared or loaded) is made
	 * again first: after destroy it can no longer be (mmap() is ENODEV),
	 * and only a current one can be judged.
	 */
	if (o->map.base && o->has_copy)
		map_current(p, &o->map, o->fd, F_COPY, o->name);
	begin(p, "destroy");
	e = st_destroy(st_open_ctl(), o->name);
	end(p);
	if (e) {
		fail(F_ERRNO, "destroy %s: %s", o->name, st_errname(e));
		return;
	}
	count(p, C_DESTROY, 1);
	/*
	 * The mapping outlives the filter with its last cells: the copy of
	 * main is still all there, and the header says the filter is dead.
	 * Destroy moves neither the sequence nor the sub-filters: a scalable
	 * filter's mapping current before it stays so.
	 */
	if (o->map.base) {
		if (!st_map_dead(&o->map))
			fail(F_MAPPING, "%s destroyed, its mapping lacks KBLOOM_MAP_DEAD",
			     o->name);
		if (o->has_copy && st_map_behind(&o->map)) {
			fail(F_MAPPING, "%s destroyed, its mapping moved: sequence %llu (mapped at %llu), %u sub-filters (mapped %u)",
			     o->name,
			     (unsigned long long)o->map.hdr->sequence,
			     (unsigned long long)o->map.seq0,
			     o->map.hdr->subfilters, o->map.chain.nsubs);
		} else if (o->has_copy) {
			uint64_t before = sh->counts[p->id][C_OWN_MAP_KEYS];

			check_some_mapped(p, &o->map, -1, o->copy, F_COPY,
					  "dead mapping");
			count(p, C_DEAD_MAP_KEYS,
			      sh->counts[p->id][C_OWN_MAP_KEYS] - before);
		}
		st_map_close(&o->map);
	}
	/* The open file outlives the filter, but only for close(). */
	if (o->fd >= 0) {
		e = ioctl(o->fd, KBLOOM_IOC_GET_INFO, &info) ? errno : 0;
		if (e != ENODEV)
			fail(F_ERRNO, "get_info after destroy: %s, want ENODEV",
			     st_errname(e));
		close(o->fd);
	}
	o->fd = -1;
	o->has_copy = false;
}

/* Verifies an own filter still holds the main keys it was given. */
static void own_verify(struct proc *p, struct own *o, const char *after)
{
	char where[64];

	if (!o->has_copy || o->fd < 0)
		return;
	snprintf(where, sizeof(where), "%s after %s", o->name, after);
	check_some(p, o->fd, o->copy, F_COPY, where);
	snprintf(where, sizeof(where), "%s mapped, after %s", o->name, after);
	/* Mapped again first if own grew, was cleared or loaded since. */
	if (o->map.base)
		check_some_mapped(p, &o->map, o->fd, o->copy, F_COPY, where);
}

static int combine(int dst, int src, unsigned long cmd)
{
	struct kbloom_other other;

	memset(&other, 0, sizeof(other));
	other.fd = src;
	return ioctl(dst, cmd, &other) ? errno : 0;
}

/*
 * Reads main's whole image into p->image, to the end of the stream (a
 * scalable main's grows: p->image with it); 0, or ESTALE when a merge
 * into main rewrote it mid-stream (the stream then has to start over).
 */
static int save_main(struct proc *p, int main_fd, size_t *len)
{
	size_t have = 0;
	ssize_t n;

	if (lseek(main_fd, 0, SEEK_SET))
		return errno;
	do {
		size_t chunk = 1 + st_below(&p->rng, 64 << 10);

		if (have == p->image_cap) {
			uint8_t *more = realloc(p->image, 2 * p->image_cap);

			if (!more)
				return ENOMEM;
			p->image = more;
			p->image_cap *= 2;
		}
		if (chunk > p->image_cap - have)
			chunk = p->image_cap - have;
		n = read(main_fd, p->image + have, chunk);
		if (n < 0)
			return errno;
		have += n;
	} while (n > 0);
	*len = have;
	return 0;
}

static int write_image(struct proc *p, int fd, const uint8_t *img,
		       size_t len)
{
	size_t done = 0;
	ssize_t n;

	if (lseek(fd, 0, SEEK_SET))
		return errno;
	while (done < len) {
		size_t chunk = 1 + st_below(&p->rng, 64 << 10);

		n = write(fd, img + done,
			  chunk < len - done ? chunk : len - done);
		if (n <= 0)
			return n < 0 ? errno : EIO;
		done += n;
	}
	return 0;
}

static int write_all(struct proc *p, int fd, size_t len)
{
	return write_image(p, fd, p->image, len);
}

/*
 * The sub-filters of a whole image of main in img, or 0 when it is not
 * one: a fixed main's is its geometry's length, a scalable main's is of
 * version 4 and as long as its header says.
 */
static uint32_t image_of_main(const uint8_t *img, size_t len)
{
	const struct kbloom_image_header *h = (const void *)img;
	struct kbloom_image_chain ch;

	if (!scalable)
		return len == st_image_bytes(MAIN_BITS / 512);
	if (len < ST_IMAGE_HDR + sizeof(ch) ||
	    le16toh(h->version) != KBLOOM_IMAGE_VERSION_CHAIN ||
	    len != le16toh(h->header_bytes) + le64toh(h->nblocks) * 64 + 4)
		return 0;
	memcpy(&ch, img + ST_IMAGE_HDR, sizeof(ch));
	return le32toh(ch.subfilters);
}

/*
 * The ones of an image: every cell byte 0xff (counting: counters at 15),
 * or for a window every live plane's bit of every cell (the image holds
 * live planes only; another bit would be refused).
 */
static void image_all_ones(uint8_t *img, size_t len)
{
	size_t at, cells = VT_IMAGE_HDR;
	uint64_t live, word = 0;
	uint32_t b, planes;

	if (!main_t->generations) {
		memset(img + cells, 0xff, len - cells - 4);
		return;
	}
	memcpy(&live, img + sizeof(struct kbloom_image_header) +
	       offsetof(struct kbloom_image_window, live), 8);
	live = le64toh(live);
	planes = 1U << kbloom_plane_order(main_t->generations);
	for (b = 0; b < 64; b += planes)
		word |= live << b;
	word = htole64(word);
	for (at = cells; at + 8 <= len - 4; at += 8)
		memcpy(img + at, &word, 8);
}

/*
 * Main &= all ones: main is rewritten in place, its sequence odd meanwhile,
 * and holds exactly what it held.  Own (main's geometry) gets the ones
 * from an image of itself (image_all_ones(); intersect keeps the lower
 * counter, and a window's generations are ANDed by age).
 */
static void rewrite_main(struct proc *p, int main_fd, struct own *o)
{
	size_t len;
	uint32_t crc;
	int e;

	if (!o->main_geometry)
		return own_verify(p, o, "nothing");
	begin(p, "rewrite main");
	e = save_main(p, o->fd, &len);
	if (!e && len != st_image_bytes(MAIN_BITS / 512))
		e = EIO;
	if (!e) {
		image_all_ones(p->image, len);
		crc = crc32c_ref(p->image, len - 4);
		memcpy(p->image + len - 4, &crc, 4);
		e = write_all(p, o->fd, len);
	}
	if (!e)
		e = combine(main_fd, o->fd, KBLOOM_IOC_INTERSECT);
	end(p);
	if (e) {
		fail(F_ERRNO, "rewrite main through %s: %s", o->name,
		     st_errname(e));
		return;
	}
	o->has_copy = false;
	count(p, C_MAIN_REWRITE, 1);
}

/*
 * A scalable main's older image (p->old_image) loaded into own, which
 * has more sub-filters than the image: own first gets main merged in, so
 * that it has main's sub-filters now.  The load frees own's sub-filters
 * past the image's, and own then holds exactly the image's keys.
 */
static void load_older_image(struct proc *p, int main_fd, struct own *o)
{
	uint32_t subs, before, after;
	int e;

	if (!o->main_geometry || !p->old_len)
		return own_verify(p, o, "nothing");
	subs = image_of_main(p->old_image, p->old_len);
	begin(p, "load an older image");
	before = subfilters_of(o->fd, o->name);
	if (before && before <= subs) {
		/*
		 * Main's sub-filters now: merged in, or for a counting one,
		 * which takes no merge, main's image now loaded.
		 */
		if (o->no_merge) {
			size_t len;

			e = save_main(p, main_fd, &len);
			if (!e)
				e = write_all(p, o->fd, len);
		} else {
			e = combine(o->fd, main_fd, KBLOOM_IOC_MERGE);
		}
		if (e && e != ESTALE)
			fail(F_ERRNO, "main's sub-filters into %s: %s",
			     o->name, st_errname(e));
		before = subfilters_of(o->fd, o->name);
	}
	e = write_image(p, o->fd, p->old_image, p->old_len);
	after = e ? 0 : subfilters_of(o->fd, o->name);
	end(p);
	if (e) {
		fail(F_ERRNO, "load an older image of main into %s: %s",
		     o->name, st_errname(e));
		o->has_copy = false;
		return;
	}
	if (after != subs)
		fail(F_ERRNO, "%s of %u sub-filters loaded an image of %u: now %u",
		     o->name, before, subs, after);
	count(p, C_RESTORE, 1);
	count(p, C_TRUNCATE, before > subs);
	memcpy(o->copy, p->old_upto, sizeof(o->copy));
	o->has_copy = true;
	own_verify(p, o, "a truncating load");
}

/*
 * The outcome e of a merge, intersect or image load between main and own:
 * refused (EXDEV) exactly when own has not main's geometry, else done.
 * what formats own's name and the errno.  True when it was done.
 */
static bool combined(const struct own *o, int e, const char *what)
{
	if (e != (o->main_geometry ? 0 : EXDEV)) {
		fail(F_ERRNO, what, o->name, st_errname(e));
		return false;
	}
	return !e;
}

/* A counting scalable main takes no merge (EOPNOTSUPP), as own may not. */
static bool main_no_merge(void)
{
	return scalable && main_t->type == KBLOOM_TYPE_COUNTING;
}

/*
 * The outcome e of a merge into main (into_main) or into own: refused
 * with EOPNOTSUPP, before anything else, by a counting scalable filter,
 * else as combined() says.  True when it was done.
 */
static bool merged(struct proc *p, const struct own *o, int e,
		   bool into_main, const char *what)
{
	if (into_main ? main_no_merge() : o->no_merge) {
		if (e != EOPNOTSUPP)
			fail(F_ERRNO, what, o->name, st_errname(e));
		else
			count(p, C_MERGE_REFUSED, 1);
		return false;
	}
	return combined(o, e, what);
}

static void chaos_step(struct proc *p, int main_fd, struct own *own)
{
	struct own *o = &own[st_below(&p->rng, OWN_FILTERS)];
	uint64_t upto[MAX_SLOTS];
	struct kbloom_info info;
	size_t len;
	int e;

	if (o->fd < 0) {
		own_create(p, o);
		return;
	}
	switch (st_below(&p->rng, 11)) {
	case 0:
		/* Own |= main: keys published before the merge are copied. */
		snapshot(upto);
		begin(p, "merge main into own");
		e = combine(o->fd, main_fd, KBLOOM_IOC_MERGE);
		end(p);
		if (!merged(p, o, e, false, "merge main into %s: %s"))
			break;
		count(p, C_MERGE_IN, 1);
		if (!o->has_copy)
			memcpy(o->copy, upto, sizeof(upto));
		o->has_copy = true;
		own_verify(p, o, "merge");
		break;
	case 1:
		/* Main |= own: main only gains. */
		begin(p, "merge own into main");
		e = combine(main_fd, o->fd, KBLOOM_IOC_MERGE);
		end(p);
		if (merged(p, o, e, true, "merge %s into main: %s"))
			count(p, C_MERGE_OUT, 1);
		break;
	case 2:
		/* Own &= main: what own had of main survives. */
		begin(p, "intersect own with main");
		e = combine(o->fd, main_fd, KBLOOM_IOC_INTERSECT);
		end(p);
		if (scalable) {
			/* Never with a scalable filter on either side. */
			if (e != EOPNOTSUPP)
				fail(F_ERRNO, "intersect %s with scalable main: %s, want EOPNOTSUPP",
				     o->name, st_errname(e));
			count(p, C_INTERSECT_REFUSED, 1);
		} else if (combined(o, e, "intersect %s: %s")) {
			count(p, C_INTERSECT, 1);
		}
		own_verify(p, o, "intersect");
		break;
	case 3:
		/* Save main, restore it into own. */
		snapshot(upto);
		begin(p, "save main");
		e = save_main(p, main_fd, &len);
		end(p);
		if (e == ESTALE) {
			count(p, C_SAVE_STALE, 1);
			break;
		}
		if (e || !image_of_main(p->image, len)) {
			fail(F_ERRNO, "save main: %s, %zu bytes", st_errname(e),
			     e ? 0 : len);
			break;
		}
		count(p, C_SAVE, 1);
		/* Kept for a later truncating load, while main grows. */
		if (scalable && (!p->old_len || st_one_in(&p->rng, 4))) {
			uint8_t *old = realloc(p->old_image, len);

			if (old) {
				memcpy(old, p->image, len);
				p->old_image = old;
				p->old_len = len;
				memcpy(p->old_upto, upto, sizeof(upto));
			}
		}
		begin(p, "restore main into own");
		e = write_all(p, o->fd, len);
		end(p);
		if (!combined(o, e, "restore main into %s: %s"))
			break;
		count(p, C_RESTORE, 1);
		/* A load replaces: own now holds exactly main's snapshot. */
		memcpy(o->copy, upto, sizeof(upto));
		o->has_copy = true;
		own_verify(p, o, "restore");
		break;
	case 4:
		begin(p, "clear own");
		e = ioctl(o->fd, KBLOOM_IOC_CLEAR, 0) ? errno : 0;
		if (!e)
			e = ioctl(o->fd, KBLOOM_IOC_GET_INFO, &info) ? errno : 0;
		end(p);
		if (e) {
			fail(F_ERRNO, "clear %s: %s", o->name, st_errname(e));
			break;
		}
		/*
		 * Only this process writes to its own filters; a scalable
		 * one is back to sub-filter 0 when CLEAR returns.
		 */
		if (info.bits_set || info.add_calls ||
		    info.subfilters != o->scalable)
			fail(F_ERRNO, "%s not empty after clear: %llu bits, %u sub-filters",
			     o->name, (unsigned long long)info.bits_set,
			     info.subfilters);
		count(p, C_CLEAR, 1);
		o->has_copy = false;
		break;
	case 5:
		own_destroy(p, o);
		own_create(p, o);
		break;
	case 6:
		/* Own filter through save and restore into itself. */
		begin(p, "own save+restore");
		e = save_main(p, o->fd, &len);
		if (!e)
			e = write_all(p, o->fd, len);
		end(p);
		if (e) {
			fail(F_ERRNO, "save+restore %s: %s", o->name,
			     st_errname(e));
			break;
		}
		count(p, C_SELF_RESTORE, 1);
		own_verify(p, o, "own save+restore");
		break;
	case 7: {
		/*
		 * Main's bits never fall: nothing may remove from it; nor do
		 * a scalable main's sub-filters.
		 */
		static uint64_t last_bits;
		static uint32_t last_subs;

		begin(p, "info main");
		e = ioctl(main_fd, KBLOOM_IOC_GET_INFO, &info) ? errno : 0;
		end(p);
		if (e) {
			fail(F_ERRNO, "info main: %s", st_errname(e));
			break;
		}
		if (!main_deletes() && info.bits_set < last_bits)
			fail(F_MONOTONIC, "main bits fell from %llu to %llu",
			     (unsigned long long)last_bits,
			     (unsigned long long)info.bits_set);
		last_bits = info.bits_set;
		if (info.subfilters < last_subs)
			fail(F_MONOTONIC, "main's sub-filters fell from %u to %u",
			     last_subs, info.subfilters);
		last_subs = info.subfilters;
		count(p, C_INFO, 1);
		break;
	}
	case 8: {
		/* Files of main come and go while everything runs. */
		int fd;

		begin(p, "reopen main");
		fd = open_main(st_one_in(&p->rng, 2) ? O_RDONLY : O_RDWR);
		if (fd >= 0) {
			snapshot(upto);
			check_some(p, fd, upto, F_FALSE_NEG, "new file of main");
			close(fd);
		}
		end(p);
		count(p, C_REOPEN, 1);
		break;
	}
	case 9:
		/*
		 * A scalable main cannot be intersected; nothing else may
		 * rewrite it in place and keep its keys.
		 */
		if (scalable)
			load_older_image(p, main_fd, o);
		else
			rewrite_main(p, main_fd, o);
		break;
	default:
		own_verify(p, o, "nothing");
		break;
	}
}

static void chaos(struct proc *p, int c)
{
	struct own own[OWN_FILTERS];
	int main_fd = open_main(O_RDWR), j;

	if (main_fd < 0)
		return;
	for (j = 0; j < OWN_FILTERS; j++) {
		snprintf(own[j].name, sizeof(own[j].name), "tt-c%d-%d", c, j);
		st_destroy(st_open_ctl(), own[j].name);
		own_create(p, &own[j]);
	}
	while (!sh->stop)
		chaos_step(p, main_fd, own);
	for (j = 0; j < OWN_FILTERS; j++)
		if (own[j].fd >= 0)
			own_destroy(p, &own[j]);
	close(main_fd);
}

/* ---- the parent ---- */

static int pid_index(const pid_t *pids, int n, pid_t pid)
{
	int i;

	for (i = 0; i < n; i++)
		if (pids[i] == pid)
			return i;
	return -1;
}

static void setup_proc(struct proc *p, int id, uint64_t seed)
{
	p->id = id;
	p->rng.s = seed * 0x9e3779b97f4a7c15ULL + id + 1;
	p->keybuf = malloc(CHECK_KEYS * 32);
	p->lens = malloc(CHECK_KEYS * sizeof(uint32_t));
	p->results = malloc(CHECK_KEYS / 8);
	p->image_cap = IMAGE_BYTES;
	p->image = malloc(p->image_cap);
	p->old_image = NULL;
	p->old_len = 0;
	/*
	 * Faults in a scalable filter's mapping are caught (st_guarded()) to
	 * say where; elsewhere the handler dies of the signal as before.
	 */
	st_guard_signals();
	if (!p->keybuf || !p->lens || !p->results || !p->image) {
		perror("malloc");
		exit(2);
	}
}

/*
 * How many kernel readers of each kind run: -1 (the default) is one when
 * the machine can, 0 with *why set when not; the companion is loaded for
 * the run (*loaded) unless it already was.  What was asked for and
 * cannot be is a failure.
 */
static void kernel_readers(bool *loaded, const char **kapi_why,
			   const char **bpf_why)
{
	int e, fd;

	*loaded = false;
	*kapi_why = *bpf_why = NULL;
	if (nkapi) {
		e = st_kapi_load(ST_KAPI_KO, loaded);
		if (e == ENOENT && nkapi < 0) {
			*kapi_why = "no " ST_KAPI_KO ": make module builds it beside kbloom.ko";
			nkapi = 0;
		} else if (e) {
			fail(F_KERNEL, "load %s: %s", ST_KAPI_KO, st_errname(e));
			nkapi = 0;
		} else {
			fd = open(KAPI_LOCK_FILE, O_RDWR | O_CREAT | O_CLOEXEC,
				  0600);
			if (fd >= 0)
				close(fd);
			if (nkapi < 0)
				nkapi = 1;
		}
	}
	if (nbpf) {
		*bpf_why = kb_btf_missing();
		if (*bpf_why && nbpf > 0) {
			fail(F_KERNEL, "-B %d: %s", nbpf, *bpf_why);
			*bpf_why = NULL;
		}
		nbpf = kb_btf_missing() ? 0 : nbpf < 0 ? 1 : nbpf;
		if (nbpf)
			kb_libbpf_init();
	}
}

/*
 * One torture run on a main of type main_t; the number of failures, or -1
 * when it hung (its processes killed: no other run should follow).
 */
/* Whether every kind of operation the run has processes for completed. */
static bool covered(const uint64_t *sums)
{
	return sums[C_KEYS_CHECKED] && sums[C_KEYS_ADDED] &&
	       (!main_deletes() || sums[C_CHURN]) &&
	       (!nmapped || (sums[C_MAP_KEYS] &&
			     (!scalable || sums[C_MAIN_REMAPS]))) &&
	       (!nkapi || (sums[C_KAPI_KEYS] && sums[C_KAPI_IRQ])) &&
	       (!nbpf || sums[C_BPF_KEYS]) &&
	       (!nkwriters || published(nwriters)) &&
	       (!nbwriters || published(nwriters + nkwriters)) &&
	       (!nchaos || ((main_no_merge() ? sums[C_MERGE_REFUSED] :
			     sums[C_MERGE_IN]) && sums[C_RESTORE] &&
			    sums[C_COPY_KEYS] && sums[C_DESTROY] &&
			    sums[C_OWN_MAP_KEYS] &&
			    (scalable ?
			     (main_no_merge() || sums[C_MERGE_OUT]) &&
			     sums[C_CLEAR] &&
			     sums[C_TRUNCATE] && sums[C_OWN_REMAPS] :
			     sums[C_MAIN_REWRITE])));
}

/* A scalable main's sub-filters now; 0 when it cannot say. */
static uint32_t main_subs(void)
{
	struct kbloom_info info;
	int fd = st_open(MAIN_NAME, O_RDONLY);

	memset(&info, 0, sizeof(info));
	if (fd < 0)
		return 0;
	if (ioctl(fd, KBLOOM_IOC_GET_INFO, &info))
		info.subfilters = 0;
	close(fd);
	return info.subfilters;
}

/*
 * A scalable main at the end: at least SC_MIN_SUBS sub-filters, each
 * but the newest holding its capacity of new keys (it grew only when
 * full); *subs gets how many.
 */
static void judge_growth(int main_fd, uint32_t *subs, uint64_t *bytes)
{
	struct kbloom_subfilter sf;
	struct kbloom_info info;
	uint32_t i;

	*subs = 0;
	*bytes = 0;
	if (ioctl(main_fd, KBLOOM_IOC_GET_INFO, &info)) {
		fail(F_GROWTH, "info main: %s", st_errname(errno));
		return;
	}
	*subs = info.subfilters;
	*bytes = info.bytes;
	if (info.subfilters < SC_MIN_SUBS)
		fail(F_GROWTH, "main grew to %u sub-filters, want at least %u",
		     info.subfilters, SC_MIN_SUBS);
	for (i = 0; i + 1 < info.subfilters; i++) {
		memset(&sf, 0, sizeof(sf));
		sf.index = i;
		if (ioctl(main_fd, KBLOOM_IOC_GET_SUBFILTER, &sf)) {
			fail(F_GROWTH, "sub-filter %u of %u: %s", i,
			     info.subfilters, st_errname(errno));
			return;
		}
		if (sf.keys < sf.capacity)
			fail(F_GROWTH, "sub-filter %u of %u took %llu new keys of its %llu before the next grew",
			     i, info.subfilters, (unsigned long long)sf.keys,
			     (unsigned long long)sf.capacity);
	}
}

/* The counts of every process so far, into sums. */
static void sum_counts(uint64_t *sums, int nprocs)
{
	int i, k;

	memset(sums, 0, NR_COUNTS * sizeof(*sums));
	for (i = 0; i <= nprocs; i++)
		for (k = 0; k < NR_COUNTS; k++)
			sums[k] += __atomic_load_n(&sh->counts[i][k], __ATOMIC_RELAXED);
}

static int run(uint64_t seed, unsigned int seconds, unsigned int hang_s,
	       uint64_t keys_per_writer)
{
	const char *kapi_why, *bpf_why, *tn = run_name;
	bool kapi_loaded;
	uint64_t sums[NR_COUNTS] = { 0 }, upto[MAX_SLOTS], start, bytes = 0;
	uint32_t subs = 0;
	pid_t pids[MAX_PROCS], pid;
	int i, nprocs, ctl, main_fd, failed = 0, alive, e, status;
	bool hung = false;
	struct proc self;

	sh = st_shared(sizeof(*sh));
	/* Ten cells per key: few enough false positives to see a loss. */
	max_keys = keys_per_writer ? keys_per_writer :
		   (uint64_t)MAIN_BITS / vt_cell_bits(main_t) / 10 / nwriters;
	ctl = st_open_ctl();
	if (ctl < 0) {
		printf("FAIL: torture/setup/%s: open %s: %s\n", tn, ST_CONTROL,
		       st_errname(errno));
		return 1;
	}
	st_destroy(ctl, MAIN_NAME);
	/* Filled by the ioctl writers' keys alone to SC_FILL_SUBS. */
	sc_capacity = (nwriters * max_keys) >> SC_FILL_SUBS ?: 1;
	if (scalable)
		e = create_scalable(MAIN_NAME, main_t, sc_capacity,
				    SC_EXPANSION, MAIN_SEED);
	else
		e = st_create_gen(ctl, MAIN_NAME, main_t->type,
				  main_t->generations, MAIN_BITS, MAIN_K,
				  MAIN_SEED);
	if (e) {
		printf("FAIL: torture/setup/%s: create %s: %s\n", tn, MAIN_NAME,
		       st_errname(e));
		return 1;
	}
	sh->main_id = st_filter_id(MAIN_NAME, NULL);
	kernel_readers(&kapi_loaded, &kapi_why, &bpf_why);
	/* What lets kernel readers run lets a scalable main's writers. */
	nkwriters = scalable && nkapi;
	nbwriters = scalable && nbpf;
	nslots = nwriters + nkwriters + nbwriters;
	nprocs = nwriters + nreaders + nmapped + nchaos + nkapi + nbpf +
		 nkwriters + nbwriters;
	if (scalable)
		printf("torture: seed %llu, %s main (capacity %llu, expansion %d, rate %u ppb), %d ioctl writers, %d in-kernel API writers, %d BPF writers, of %llu keys each, %d readers, %d mapped readers, %d in-kernel API readers, %d BPF readers, %d chaos, %u s\n",
		       (unsigned long long)seed, tn,
		       (unsigned long long)sc_capacity, SC_EXPANSION,
		       SC_FP_PPB, nwriters, nkwriters, nbwriters,
		       (unsigned long long)max_keys, nreaders, nmapped, nkapi,
		       nbpf, nchaos, seconds);
	else
		printf("torture: seed %llu, %s main, %d writers of %llu keys, %d readers, %d mapped readers, %d in-kernel API readers, %d BPF readers, %d chaos, %u s\n",
		       (unsigned long long)seed, tn, nwriters,
		       (unsigned long long)max_keys, nreaders, nmapped, nkapi,
		       nbpf, nchaos, seconds);

	fflush(NULL);
	start = st_now_ms();
	sh->start_ms = start;
	sh->run_ms = seconds * 1000ULL;
	for (i = 0; i < nprocs; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			perror("fork");
			sh->stop = 1;
			return -1;
		}
		if (!pids[i]) {
			struct proc p;

			setup_proc(&p, i, seed);
			if (i < nwriters)
				writer(&p, i);
			else if (i < nwriters + nreaders)
				reader(&p);
			else if (i < nwriters + nreaders + nmapped)
				mapped_reader(&p);
			else if (i < nwriters + nreaders + nmapped + nkapi)
				kapi_reader(&p);
			else if (i < nwriters + nreaders + nmapped + nkapi + nbpf)
				bpf_reader(&p);
			else if (i < nwriters + nreaders + nmapped + nkapi +
				     nbpf + nkwriters)
				kernel_writer(&p, nwriters);
			else if (i < nwriters + nreaders + nmapped + nkapi +
				     nbpf + nkwriters + nbwriters)
				bpf_writer(&p, nwriters + nkwriters);
			else
				chaos(&p, i - nwriters - nreaders - nmapped -
					  nkapi - nbpf - nkwriters - nbwriters);
			_exit(0);
		}
	}

	for (alive = nprocs; alive;) {
		uint64_t now = st_now_ms();

		while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
			alive--;
			/* A mapped read that faulted, say, kills its process. */
			if (WIFSIGNALED(status))
				fail(F_CRASH, "process %d killed by %s", pid_index(pids, nprocs, pid),
				     sigabbrev_np(WTERMSIG(status)));
		}
		/*
		 * Past its time the run stops once every kind of operation
		 * has completed at least once and a scalable main has grown
		 * as far as judge_growth() asks; on a starved VM (four qemus
		 * on two cores, a debug kernel) a chaos operation can take
		 * longer than the whole run, and on the data-race kernel 8 s
		 * of writers grew a scalable main to 10 sub-filters of the
		 * 11 (2026-12-07).  At most four times as long.
		 */
		if (now > start + seconds * 1000ULL && !sh->stop) {
			sum_counts(sums, nprocs);
			if ((covered(sums) &&
			     (!scalable || main_subs() >= SC_MIN_SUBS)) ||
			    now > start + 4 * seconds * 1000ULL)
				sh->stop = 1;
		}
		for (i = 0; i < nprocs && !hung; i++) {
			uint64_t began = sh->op_started_ms[i];

			if (began && now > began + hang_s * 1000ULL) {
				printf("FAIL: torture/no-deadlock/%s: process %d stuck in %s for %llu s\n",
				       tn, i, sh->op_name[i],
				       (unsigned long long)(now - began) / 1000);
				hung = true;
			}
		}
		if (hung) {
			for (i = 0; i < nprocs; i++)
				kill(pids[i], SIGKILL);
			break;
		}
		usleep(100000);
	}

	/* Every key any writer published, checked once more at the end. */
	setup_proc(&self, nprocs, seed);
	main_fd = hung ? -1 : open_main(O_RDONLY);
	if (main_fd >= 0) {
		struct st_map m;

		snapshot(upto);
		check_all(&self, main_fd, upto, F_FALSE_NEG, "final check");
		if (scalable)
			judge_growth(main_fd, &subs, &bytes);
		if (map_filter(main_fd, &m, MAIN_NAME)) {
			int w;

			for (w = 0; w < nslots; w++)
				for (i = 0; (uint64_t)i < upto[w]; i += CHECK_KEYS)
					check_keys_mapped_retry(&self, &m, main_fd,
								w, i,
								upto[w] - i > CHECK_KEYS ?
								CHECK_KEYS : upto[w] - i,
								F_FALSE_NEG,
								"final mapped check");
			/*
			 * Mapped again up to the last growth (the worker's
			 * may come after judge_growth()): all of main.
			 */
			if (scalable &&
			    (!map_current(&self, &m, main_fd, F_FALSE_NEG,
					  "final mapping") ||
			     m.chain.nsubs < subs))
				fail(F_MAPPING, "final mapping of main covers %u of its %u sub-filters",
				     m.chain.nsubs, subs);
			st_map_close(&m);
		}
		close(main_fd);
	}

	sum_counts(sums, nprocs);
	printf("torture: ran %.1f s\n", (st_now_ms() - start) / 1000.0);
	/* What only a scalable run does is left out of the others'. */
	for (i = 0; i < (scalable ? NR_COUNTS : C_KERNEL_ADDED); i++)
		printf("  %-34s %llu\n", count_names[i],
		       (unsigned long long)sums[i]);
	if (scalable) {
		for (i = 0; i < nslots; i++)
			printf("  keys published by %-15s %llu\n",
			       i < nwriters ? "an ioctl writer" :
			       i < nwriters + nkwriters ? "the kernel" :
			       "BPF", (unsigned long long)upto[i]);
		printf("  main grew to %u sub-filters (%u growths), %llu bytes\n",
		       subs, subs ? subs - 1 : 0, (unsigned long long)bytes);
	}
	for (i = 0; i < NR_FAIL_KINDS; i++) {
		/* No kernel reader ran: the SKIP lines below say why. */
		if (i == F_KERNEL && !nkapi && !nbpf && !sh->fails[i])
			continue;
		if (i == F_KWRITERS && !nkwriters && !nbwriters &&
		    !sh->fails[i])
			continue;
		/* Growth is a scalable main's. */
		if (i == F_GROWTH && !scalable)
			continue;
		if (i == F_HANG) {
			if (hung)
				failed++;
			else
				printf("PASS: torture/%s/%s\n", fail_names[i],
				       tn);
			continue;
		}
		if (sh->fails[i]) {
			printf("FAIL: torture/%s/%s: %llu times; first: %s\n",
			       fail_names[i], tn,
			       (unsigned long long)sh->fails[i], sh->fail_msg[i]);
			failed++;
		} else {
			printf("PASS: torture/%s/%s\n", fail_names[i], tn);
		}
	}
	/* A torture that never got to do its work proves nothing. */
	if (!covered(sums)) {
		printf("FAIL: torture/coverage/%s: some kind of operation never completed\n",
		       tn);
		failed++;
	} else {
		printf("PASS: torture/coverage/%s\n", tn);
	}
	if (kapi_why)
		printf("SKIP: torture/kapi-readers/%s: %s\n", tn, kapi_why);
	if (kapi_why && scalable)
		printf("SKIP: torture/kernel-writer/%s: %s\n", tn, kapi_why);
	if (bpf_why)
		printf("SKIP: torture/bpf-readers/%s: %s\n", tn, bpf_why);
	if (bpf_why && scalable)
		printf("SKIP: torture/bpf-writer/%s: %s\n", tn, bpf_why);
	/* Its readers put what they held; it must go as it came. */
	e = kapi_loaded && !hung ? st_kapi_unload() : 0;
	if (e) {
		printf("FAIL: torture/kernel-readers/%s: rmmod %s: %s\n", tn,
		       ST_KAPI_MODULE, st_errname(e));
		failed++;
	}
	/* ctl stays open: st_open_ctl() keeps it for the next run. */
	if (!hung)
		st_destroy(ctl, MAIN_NAME);
	return hung ? -1 : failed;
}

int main(int argc, char **argv)
{
	unsigned int seconds = 60, hang_s = 60;
	uint64_t seed = 1, keys = 0;
	const char *only = NULL;
	int c, kapi, bpf, nprocs, failed = 0, ran = 0, n, pass;
	bool only_scalable = false;

	while ((c = getopt(argc, argv, "s:w:r:m:c:K:B:t:H:k:T:S")) != -1) {
		switch (c) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'w': nwriters = atoi(optarg); break;
		case 'r': nreaders = atoi(optarg); break;
		case 'm': nmapped = atoi(optarg); break;
		case 'c': nchaos = atoi(optarg); break;
		case 'K': nkapi = atoi(optarg); break;
		case 'B': nbpf = atoi(optarg); break;
		case 't': seconds = atoi(optarg); break;
		case 'H': hang_s = atoi(optarg); break;
		case 'k': keys = strtoull(optarg, NULL, 0); break;
		case 'T': only = optarg; break;
		case 'S': only_scalable = true; break;
		default:
			fprintf(stderr, "usage: torture [-s SEED] [-w WRITERS] [-r READERS] [-m MAPPED_READERS] [-c CHAOS] [-K KAPI_READERS] [-B BPF_READERS] [-t SECONDS] [-H HANG_SECONDS] [-k KEYS_PER_WRITER] [-T TYPE] [-S]\n");
			return 2;
		}
	}
	/* As many kernel readers as there may be, and a scalable run's writers. */
	nprocs = nwriters + nreaders + nmapped + nchaos +
		 (nkapi < 0 ? 1 : nkapi) + (nbpf < 0 ? 1 : nbpf) + 2;
	if (nwriters < 1 || nwriters > MAX_WRITERS || nreaders < 0 ||
	    nmapped < 0 || nchaos < 0 || nkapi < -1 || nbpf < -1 ||
	    nprocs + 1 > MAX_PROCS || !seconds || !hang_s) {
		fprintf(stderr, "torture: bad process counts or times\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	/*
	 * Each run decides its kernel readers afresh (kernel_readers()).
	 * Every type first, then every type that grows with a scalable main.
	 */
	kapi = nkapi;
	bpf = nbpf;
	for (pass = only_scalable; pass < 2; pass++) {
		scalable = pass;
		for (main_t = vt_types;
		     main_t < vt_types + ARRAY_SIZE(vt_types); main_t++) {
			if (scalable && !(main_t->caps & VT_GROWS))
				continue;
			snprintf(run_name, sizeof(run_name), "%s%s",
				 scalable ? "scalable-" : "", main_t->name);
			if (only && strcmp(only, run_name))
				continue;
			nkapi = kapi;
			nbpf = bpf;
			n = run(seed, seconds, hang_s, keys);
			ran++;
			if (n < 0)
				return 1;
			failed += n;
		}
	}
	if (!ran) {
		fprintf(stderr, "torture: no filter type %s\n", only);
		return 2;
	}
	return failed ? 1 : 0;
}
