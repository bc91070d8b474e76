// SPDX-License-Identifier: GPL-2.0
/*
 * A multi-process fuzzer of kbloom's whole user interface: several forked
 * workers issue random and mutated ioctls, reads, writes, seeks, mmaps and
 * sysfs reads on the control node and on filter nodes, create and destroy
 * filters under each other's feet, open and close nodes, and try to unload
 * the module while they hold it.
 *
 * It is an oracle, not just a load: every call's errno must be one the ABI
 * allows for what was passed (EFAULT only for a bad pointer, EINVAL only
 * for a bad field, exactly the documented image errnos, ...).  Each worker
 * also owns a "good" filter that nobody else can reach; every key it added
 * must be found again at any time (no false negatives), through merges,
 * image restores and rejected images.  A call that does not return within
 * the hang limit is a failure.  With -F the workers run under the kernel's
 * fault injection (the caller sets up failslab / fail_page_alloc with
 * task-filter); ENOMEM is then allowed everywhere, and at the end each
 * worker, with injection off, checks that its filters still work.
 *
 * This file is the driver: the workers' loop, the parent, the counts.
 * The operations and the oracles are in fuzz/, one concept a file: the
 * errno oracle and the good filters (oracle.c), what operations pass
 * (args.c), the control node (control.c), filter nodes (filter.c),
 * images (image.c), mappings (mmap.c: mmap, partial munmap, mprotect,
 * mremap, reads of mapped pages, checks of the good filter's keys
 * through its mapping), and the in-kernel API (through the companion
 * module, which the fuzzer loads from KO and unloads at the end) and the
 * BPF kfuncs (programs run with BPF_PROG_TEST_RUN, when kbloom has BTF)
 * in fuzz/kapi.c and fuzz/bpf.c.
 *
 * Usage: fuzz-ioctl [-s SEED] [-p PROCS] [-n OPS] [-t SECONDS] [-m MIN_OPS]
 *                   [-H HANG_SECONDS] [-F] [-N SUITE] [-K KO] [-B]
 * OPS is per process; the run also stops after SECONDS.  Everything a worker
 * does follows from SEED and its index, so a failure can be replayed.  KO
 * is the companion module, /kmod/kbloom_kapi_test.ko by default ("" for
 * none: its operations are then skipped, and said so).  -B leaves the BPF
 * kfuncs out, for a kernel built without BPF (make check's debug kernel),
 * where they would otherwise be a SKIP.
 * Prints per-operation counts with the errnos seen, then PASS:/FAIL: lines.
 */
#include <getopt.h>
#include <signal.h>
#include <sys/wait.h>

#include "fuzz-ioctl.h"

const char *const op_names[NR_SLOTS] = { OPS(OP_NAME) "final" };
/* fz_kernel_init() sets those of the operations the kernel lacks to 0. */
static unsigned int op_weights[NR_OPS] = { OPS(OP_WEIGHT) };
const char *const fail_names[NR_FAIL_KINDS] = {
	"errno-classes", "no-false-negatives", "results", "unload-refused",
	"usable-after", "no-hang", "mapped-reads",
};

static struct wstats *stats;
static int nprocs = 4;

/* ---- a worker ---- */

static enum op pick_op(struct worker *w)
{
	static unsigned int total;
	unsigned int r, i;

	if (!total)
		for (i = 0; i < NR_OPS; i++)
			total += op_weights[i];
	r = st_below(&w->rng, total);
	for (i = 0; r >= op_weights[i]; i++)
		r -= op_weights[i];
	return i;
}

static void run_op(struct worker *w, enum op op)
{
	switch (op) {
	case OP_create: do_create(w); break;
	case OP_create_bad: do_create_bad(w); break;
	case OP_create_badptr: do_create_badptr(w); break;
	case OP_destroy: do_destroy(w); break;
	case OP_destroy_bad: do_destroy_bad(w); break;
	case OP_ctl_random: do_ctl_random(w); break;
	case OP_ctl_rw: do_ctl_rw(w); break;
	case OP_open: do_open(w); break;
	case OP_close: do_close(w); break;
	case OP_add: case OP_check: case OP_delete:
		do_add_check(w, op);
		break;
	case OP_batch_bad: do_batch_bad(w); break;
	case OP_batch_badptr: do_batch_badptr(w); break;
	case OP_clear: do_clear(w); break;
	case OP_merge: case OP_intersect: do_combine(w, op); break;
	case OP_combine_bad: do_combine_bad(w); break;
	case OP_info: do_info(w); break;
	case OP_info_badptr: do_info_badptr(w); break;
	case OP_subfilter: do_subfilter(w); break;
	case OP_report: case OP_report_bad: do_report(w, op); break;
	case OP_read: do_read(w); break;
	case OP_read_bad: do_read_bad(w); break;
	case OP_write: case OP_write_mutated: do_write(w, op); break;
	case OP_seek: do_seek(w); break;
	case OP_dev_random: do_dev_random(w); break;
	case OP_sysfs: do_sysfs(w); break;
	case OP_unload: do_unload(w); break;
	case OP_good_add: do_good_add(w); break;
	case OP_good_check: good_verify_window(w, OP_good_check); break;
	case OP_good_restore: do_good_restore(w); break;
	case OP_good_bad_image: do_good_bad_image(w); break;
	case OP_good_merge: do_good_merge(w); break;
	case OP_good_delete: do_good_delete(w); break;
	case OP_rotate: do_rotate(w); break;
	case OP_window_info: do_window_info(w); break;
#define OP_CASE(name, weight) case OP_##name: do_##name(w); break;
	FZ_MAP_OPS(OP_CASE)
	FZ_KERNEL_OPS(OP_CASE)
	default: break;
	}
}

static void *map_or_die(size_t bytes, int prot)
{
	void *p = mmap(NULL, bytes, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	return p;
}

static void worker_setup(struct worker *w)
{
	uint8_t *pages;
	int i;

	w->keybuf = map_or_die(KEYBUF_BYTES, PROT_READ | PROT_WRITE);
	w->lens = map_or_die(MAX_KEYS * 4, PROT_READ | PROT_WRITE);
	w->results = map_or_die(MAX_KEYS / 8 + 64, PROT_READ | PROT_WRITE);
	w->iobuf = map_or_die(IMAGE_CAP + 8192, PROT_READ | PROT_WRITE);
	for (i = 0; i < MAX_IMAGES; i++)
		w->img[i] = map_or_die(IMAGE_CAP + 8192, PROT_READ | PROT_WRITE);
	pages = map_or_die(4 * PAGE, PROT_READ | PROT_WRITE);
	memset(pages, 0, 4 * PAGE);
	w->guard = pages + PAGE;
	w->noaccess = pages + 2 * PAGE;
	w->rdonly = pages + 3 * PAGE;
	mprotect(w->guard, PAGE, PROT_NONE);
	mprotect(w->noaccess, PAGE, PROT_NONE);
	mprotect(w->rdonly, PAGE, PROT_READ);
}

/* With injection off: the good filter and a fresh one must both work. */
static void final_checks(struct worker *w)
{
	struct st_keys k = { w->keybuf, w->lens, 0, 0 };
	char name[KBLOOM_NAME_MAX], tag[16];
	uint32_t hits = 0;
	size_t len;
	int fd, e;

	w->fault = false;
	good_verify_all(w, OP_final);
	snprintf(tag, sizeof(tag), "g%d", w->id);
	st_keys_fill(&k, tag, w->good_added, 64);
	if (st_batch(w->good_fd, KBLOOM_IOC_ADD, &k, NULL, NULL) ||
	    st_batch(w->good_fd, KBLOOM_IOC_CHECK, &k, NULL, &hits) ||
	    hits != 64)
		record_fail(w, F_USABLE, "worker %d: good filter: add/check after the run: %s, %u of 64",
			    w->id, st_errname(errno), hits);
	else
		w->good_added += 64;
	e = read_image(w, OP_final, w->good_fd, ALLOW(0), &len);
	if (!e && image_sane(w, OP_final, w->iobuf, len))
		e = write_image(w, OP_final, w->good_fd, w->iobuf, len, ALLOW(0));
	if (e)
		record_fail(w, F_USABLE, "worker %d: good filter: save/restore after the run: %s",
			    w->id, st_errname(e));
	good_verify_all(w, OP_final);

	snprintf(name, sizeof(name), "fzfinal-%d", w->id);
	e = st_create_bits(w->ctl, name, 4096, 5, 7);
	fd = e ? -1 : st_open(name, O_RDWR);
	st_keys_fill(&k, "final", 0, 100);
	if (e || fd < 0 || st_batch(fd, KBLOOM_IOC_ADD, &k, NULL, NULL) ||
	    st_batch(fd, KBLOOM_IOC_CHECK, &k, NULL, &hits) || hits != 100)
		record_fail(w, F_USABLE, "worker %d: fresh filter after the run: %s",
			    w->id, st_errname(e ? e : errno));
	if (fd >= 0)
		close(fd);
	st_destroy(w->ctl, name);
}

/*
 * Turns fault injection for this process on or off through a file opened
 * before it was on: opening a /proc file needs allocations that may then
 * fail.  Writing it does not allocate; turning off is retried until it
 * reads back off.
 */
static int make_it_fail(int fd, int on)
{
	char now = 0;
	int tries;

	for (tries = 0; tries < 100; tries++) {
		if (pwrite(fd, on ? "1" : "0", 1, 0) == 1 &&
		    pread(fd, &now, 1, 0) == 1 && now == (on ? '1' : '0'))
			return 0;
	}
	return -1;
}

/*
 * Fault injection off for a moment (pause) and on again, around what is
 * no part of the test, such as the lock of fuzz/kapi.c's turns.  Not
 * before it is on, nor after the run turned it off.
 */
void fz_fault_pause(struct worker *w, bool pause)
{
	if (w->fault && w->fail_fd >= 0 && make_it_fail(w->fail_fd, !pause))
		record_fail(w, F_USABLE, "worker %d: cannot turn fault injection %s",
			    w->id, pause ? "off" : "on");
}

/* Maps the stack the run will need, so mlockall() covers it. */
static void __attribute__((noinline)) touch_stack(void)
{
	volatile char pad[256 << 10];

	memset((char *)pad, 0, sizeof(pad));
}

static void worker_main(struct worker *w, uint64_t seed, uint64_t max_ops,
			uint64_t deadline_ms, int shared_fd)
{
	int i;
	uint64_t n;

	w->rng.s = seed * 0x9e3779b97f4a7c15ULL + w->id + 1;
	worker_setup(w);
	w->ctl = open(ST_CONTROL, O_RDWR | O_CLOEXEC);
	w->ctl_ro = open(ST_CONTROL, O_RDONLY | O_CLOEXEC);
	snprintf(w->good_name, sizeof(w->good_name), "fzgood-%d", w->id);
	w->good_fd = st_open(w->good_name, O_RDWR);
	if (w->ctl < 0 || w->ctl_ro < 0 || w->good_fd < 0) {
		record_fail(w, F_USABLE, "worker %d: setup: %s", w->id,
			    st_errname(errno));
		return;
	}
	w->fds[w->nfds++] = (struct pool_fd){
		shared_fd, SHARED_SLOT, O_RDWR, KBLOOM_TYPE_BITS, true,
		st_map_pages(TEMPLATE_BITS / 512), 0 };
	fz_map_setup(w);
	w->fail_fd = -1;
	fz_kernel_setup(w);
	if (w->fault) {
		/* No page fault of ours may need an allocation that fails. */
		touch_stack();
		w->fail_fd = open("/proc/self/make-it-fail", O_RDWR | O_CLOEXEC);
		if (w->fail_fd < 0 || mlockall(MCL_CURRENT | MCL_FUTURE) ||
		    make_it_fail(w->fail_fd, 1)) {
			record_fail(w, F_USABLE, "worker %d: fault setup: %s",
				    w->id, st_errname(errno));
			return;
		}
	}
	for (n = 0; n < max_ops && st_now_ms() < deadline_ms; n++) {
		enum op op = pick_op(w);

		w->st->cur_op = op;
		w->st->op_started_ms = st_now_ms();
		run_op(w, op);
		w->st->op_started_ms = 0;
		w->st->ops[op]++;
	}
	if (w->fault && make_it_fail(w->fail_fd, 0))
		record_fail(w, F_USABLE, "worker %d: cannot turn fault injection off",
			    w->id);
	w->st->cur_op = OP_final;
	w->st->op_started_ms = st_now_ms();
	final_checks(w);
	fz_map_final(w);
	fz_kernel_final(w);
	w->st->op_started_ms = 0;
	for (i = 0; i < w->nfds; i++)
		close(w->fds[i].fd);
	close(w->good_fd);
	w->st->finished = 1;
}

/* ---- the parent ---- */

static void print_counts(double secs)
{
	uint64_t total = 0, syscalls = 0, keys = 0, checked = 0, refused = 0;
	uint64_t loaded = 0, rejected = 0, other = 0;
	int op, p, e;

	printf("%-16s %10s  outcomes\n", "operation", "count");
	for (op = 0; op < NR_SLOTS; op++) {
		uint64_t count = 0;
		char line[1024] = "";
		size_t at = 0;

		for (p = 0; p < nprocs; p++)
			count += stats[p].ops[op];
		total += op < NR_OPS ? count : 0;
		for (e = 0; e <= NR_ERRNO; e++) {
			uint64_t c = 0;

			for (p = 0; p < nprocs; p++)
				c += stats[p].errs[op][e];
			if (c && at < sizeof(line) - 40)
				at += snprintf(line + at, sizeof(line) - at,
					       " %s=%llu",
					       e == NR_ERRNO ? "other" :
					       st_errname(e),
					       (unsigned long long)c);
		}
		printf("%-16s %10llu %s\n", op_names[op],
		       (unsigned long long)count, line);
	}
	for (p = 0; p < nprocs; p++) {
		syscalls += stats[p].syscalls;
		keys += stats[p].good_keys;
		checked += stats[p].good_checked;
		refused += stats[p].unload_refused;
		loaded += stats[p].images_loaded;
		rejected += stats[p].images_rejected;
		other += stats[p].opened_other;
	}
	printf("total: %llu operations (%llu checked calls) by %d processes in %.1f s\n",
	       (unsigned long long)total, (unsigned long long)syscalls, nprocs,
	       secs);
	printf("good keys: %llu added, %llu look-ups; images loaded %llu, damaged images refused %llu; unload refused %llu times\n",
	       (unsigned long long)keys, (unsigned long long)checked,
	       (unsigned long long)loaded, (unsigned long long)rejected,
	       (unsigned long long)refused);
	printf("opens that reached a filter created after the path's was destroyed (reused minor): %llu\n",
	       (unsigned long long)other);
	fz_map_print(stats, nprocs);
	fz_kernel_print(stats, nprocs);
}

static uint64_t total_ops(void)
{
	uint64_t total = 0;
	int op, p;

	for (p = 0; p < nprocs; p++)
		for (op = 0; op < NR_OPS; op++)
			total += stats[p].ops[op];
	return total;
}

static void usage(void)
{
	fprintf(stderr, "usage: fuzz-ioctl [-s SEED] [-p PROCS] [-n OPS] [-t SECONDS] [-m MIN_OPS] [-H HANG_SECONDS] [-F] [-N SUITE] [-K KO] [-B]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	uint64_t seed = 1, max_ops = 10000, min_ops = 0, start, deadline;
	unsigned int seconds = 60, hang_s = 60;
	const char *suite = "fuzz-ioctl", *ko = "/kmod/kbloom_kapi_test.ko";
	pid_t pids[MAX_PROCS];
	bool fault = false, hung = false;
	int c, p, ctl, good_fds[MAX_PROCS], kind, failed = 0, alive, shared_fd;

	while ((c = getopt(argc, argv, "s:p:n:t:m:H:FN:K:B")) != -1) {
		switch (c) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'p': nprocs = atoi(optarg); break;
		case 'n': max_ops = strtoull(optarg, NULL, 0); break;
		case 't': seconds = atoi(optarg); break;
		case 'm': min_ops = strtoull(optarg, NULL, 0); break;
		case 'H': hang_s = atoi(optarg); break;
		case 'F': fault = true; break;
		case 'N': suite = optarg; break;
		case 'K': ko = optarg; break;
		case 'B': kf_bpf_off = true; break;
		default: usage();
		}
	}
	if (nprocs < 1 || nprocs > MAX_PROCS || !seconds || !hang_s)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("%s: seed %llu, %d processes, up to %llu operations each, %u s%s\n",
	       suite, (unsigned long long)seed, nprocs,
	       (unsigned long long)max_ops, seconds,
	       fault ? ", under fault injection" : "");

	stats = st_shared(sizeof(*stats) * nprocs);
	ctl = open(ST_CONTROL, O_RDWR | O_CLOEXEC);
	if (ctl < 0) {
		printf("FAIL: %s/setup: open %s: %s\n", suite, ST_CONTROL,
		       st_errname(errno));
		return 1;
	}
	/* Leftovers of an earlier, killed run. */
	for (p = 0; p < POOL; p++) {
		char name[KBLOOM_NAME_MAX];

		pool_name(name, p);
		st_destroy(ctl, name);
	}
	for (p = 0; p < MAX_PROCS; p++) {
		char name[KBLOOM_NAME_MAX];

		snprintf(name, sizeof(name), "fzside-%d", p);
		st_destroy(ctl, name);
		snprintf(name, sizeof(name), "fzfinal-%d", p);
		st_destroy(ctl, name);
	}
	c = st_create_bits(ctl, "fz-shared", TEMPLATE_BITS, TEMPLATE_K,
			   TEMPLATE_SEED);
	shared_fd = c ? -1 : st_open("fz-shared", O_RDWR);
	if (shared_fd < 0) {
		printf("FAIL: %s/setup: create fz-shared: %s\n", suite,
		       st_errname(c ? c : errno));
		return 1;
	}
	for (p = 0; p < nprocs; p++) {
		char name[KBLOOM_NAME_MAX];
		int e;

		snprintf(name, sizeof(name), "fzgood-%d", p);
		st_destroy(ctl, name);
		e = st_create_type(ctl, name, GOOD_TYPE(p), GOOD_BITS(p), GOOD_K,
				   GOOD_SEED + p);
		/* Held for the whole run, so unloading is always refused. */
		good_fds[p] = e ? -1 : st_open(name, O_RDONLY);
		if (good_fds[p] < 0) {
			printf("FAIL: %s/setup: create %s: %s\n", suite, name,
			       st_errname(e ? e : errno));
			return 1;
		}
	}

	fz_kernel_init(suite, ko, nprocs, op_weights);

	start = st_now_ms();
	deadline = start + seconds * 1000ULL;
	fflush(NULL);
	for (p = 0; p < nprocs; p++) {
		pids[p] = fork();
		if (pids[p] < 0) {
			perror("fork");
			return 2;
		}
		if (!pids[p]) {
			struct worker w = { .id = p, .fault = fault,
					    .st = &stats[p] };

			worker_main(&w, seed, max_ops, deadline, shared_fd);
			_exit(0);
		}
	}

	/* Watch for calls that never return. */
	for (alive = nprocs; alive;) {
		uint64_t now = st_now_ms();

		while (waitpid(-1, NULL, WNOHANG) > 0)
			alive--;
		for (p = 0; p < nprocs && !hung; p++) {
			uint64_t began = stats[p].op_started_ms;

			if (began && now > began + hang_s * 1000ULL) {
				printf("FAIL: %s/no-hang: worker %d stuck in %s for %llu s\n",
				       suite, p, op_names[stats[p].cur_op],
				       (unsigned long long)(now - began) / 1000);
				hung = true;
			}
		}
		if (now > deadline + (hang_s + 120) * 1000ULL && !hung) {
			printf("FAIL: %s/no-hang: workers still running %u s past the deadline\n",
			       suite, hang_s + 120);
			hung = true;
		}
		if (hung) {
			for (p = 0; p < nprocs; p++)
				kill(pids[p], SIGKILL);
			break;
		}
		usleep(100000);
	}

	print_counts((st_now_ms() - start) / 1000.0);
	for (kind = 0; kind < NR_FAIL_KINDS; kind++) {
		uint64_t n = 0;
		const char *msg = NULL;

		for (p = 0; p < nprocs; p++) {
			n += stats[p].fails[kind];
			if (!msg && stats[p].fails[kind])
				msg = stats[p].fail_msg[kind];
		}
		if (kind == F_HANG) {
			if (hung)
				failed++;
			else
				printf("PASS: %s/%s\n", suite, fail_names[kind]);
			continue;
		}
		if (n) {
			printf("FAIL: %s/%s: %llu times; first: %s\n", suite,
			       fail_names[kind], (unsigned long long)n, msg);
			failed++;
		} else {
			printf("PASS: %s/%s\n", suite, fail_names[kind]);
		}
	}
	for (p = 0; p < nprocs; p++)
		if (!stats[p].finished && !hung) {
			printf("FAIL: %s/workers: worker %d did not finish\n",
			       suite, p);
			failed++;
			break;
		}
	if (fault) {
		uint64_t enomem = 0;
		int op;

		for (p = 0; p < nprocs; p++)
			for (op = 0; op < NR_SLOTS; op++)
				enomem += stats[p].errs[op][ENOMEM];
		/* Else the injection was not live and this proved nothing. */
		if (enomem) {
			printf("PASS: %s/faults-injected (%llu calls failed with ENOMEM)\n",
			       suite, (unsigned long long)enomem);
		} else {
			printf("FAIL: %s/faults-injected: no call failed with ENOMEM\n",
			       suite);
			failed++;
		}
	}
	if (!hung)
		failed += fz_kernel_finish(suite, stats, nprocs);
	if (total_ops() < min_ops) {
		printf("FAIL: %s/operations: %llu, wanted at least %llu\n",
		       suite, (unsigned long long)total_ops(),
		       (unsigned long long)min_ops);
		failed++;
	} else {
		printf("PASS: %s/operations (%llu across %d processes)\n",
		       suite, (unsigned long long)total_ops(), nprocs);
	}

	if (!hung) {
		for (p = 0; p < nprocs; p++) {
			char name[KBLOOM_NAME_MAX];

			close(good_fds[p]);
			if (!p)
				close(shared_fd);
			snprintf(name, sizeof(name), "fzgood-%d", p);
			st_destroy(ctl, name);
		}
		for (p = 0; p < POOL; p++) {
			char name[KBLOOM_NAME_MAX];

			pool_name(name, p);
			st_destroy(ctl, name);
		}
	}
	close(ctl);
	return failed ? 1 : 0;
}
