// SPDX-License-Identifier: GPL-2.0
/*
 * The fuzzer's BPF operations (fuzz/kapi.c has the in-kernel API and
 * runs both sides; fuzz-ioctl.c the rest): kbloom's kfuncs through the
 * programs of bpf/test.bpf.c, on the pool filters that the other
 * operations create, destroy, clear, load and intersect meanwhile.
 *
 * When kbloom has BTF, each worker loads its own bpf/test.bpf.o (its
 * counters are the object's globals) and runs its XDP and tc programs on
 * pool filters by id and by name, on good filters, on stale, impossible
 * and bad ones; test_run must succeed, the verdict must be one the
 * program gives for what its counters say it met (NULL from acquire only
 * where no live filter can be, errors only ENODEV and only where a filter
 * can have been destroyed).  The keys a program adds to its worker's good
 * filter must then be found by CHECK and by programs.
 *
 * Under fault injection (-F) the allocations that fail are the kernel's
 * and libbpf's (test_run's data and skb; a load's BTF and maps, not its
 * program: see __wrap_syscall()).
 */
#include <stdarg.h>
#include <linux/pkt_cls.h>

#include "../fuzz-ioctl.h"
#include "../bpf/loader.h"

#define KF_BPF_GOOD_MAX	8000	/* keys a worker adds through tc_learn */
#define KF_BPF_SET	0x6b660000ULL	/* + worker: its BPF keys' set */

/*
 * What the run has (set before fork()), and why not; kf_bpf_off (-B)
 * leaves BPF out of the run, for a kernel built without it.
 */
bool kf_bpf, kf_bpf_failed, kf_bpf_off;
const char *kf_bpf_why = "";

/*
 * The programs of bpf/test.bpf.c the workers run: 0.17 to 0.24 s each to
 * load on the debug kernel under TCG, measured on a 2-vCPU AMD EPYC VM
 * (d6fc9e7, 2026-12-01).  Not tc_hold (1.4 s: its 8192 checks are as
 * many passes of the verifier) nor syscall_add (6.1 s, for its loop of
 * 1024 adds); test-bpf runs those.
 */
static const char *const kf_progs[] = {
	"xdp_by_id", "xdp_by_name", "tc_by_id", "tc_learn", NULL,
};

/* What a program's acquire may meet. */
enum kf_target {
	KF_T_POOL,	/* a pool filter, or nothing: they come and go */
	KF_T_GOOD,	/* a good filter: always there */
	KF_T_NONE,	/* a stale or impossible id, a bad name: nothing */
};

static void kf_target_name(struct kbt_globals *g, const char *name,
			   size_t len)
{
	memset(g->filter_name, 0, sizeof(g->filter_name));
	memcpy(g->filter_name, name,
	       len < sizeof(g->filter_name) ? len : sizeof(g->filter_name));
}

/* The keys tc_learn adds to this worker's good filter. */
static void kf_bpf_key(struct worker *w, uint8_t *key, uint64_t i)
{
	kb_key(key, KF_BPF_SET + w->id, i);
}

/*
 * One packet through a program that acquires by id or by name: test_run
 * succeeds, and the verdict is what the program gives for what its
 * counters say happened (one acquire; one check or add).  known: the key
 * is in the filter, which must then be found.
 */
static bool kf_bpf_packet(struct worker *w, enum op op, const char *prog,
			  const uint8_t *key, enum kf_target t, bool known)
{
	struct kbt_globals *g = w->kern.g;
	uint64_t nulls = g->nulls, errors = g->errors, enodev = g->enodev;
	bool xdp = prog[0] == 'x', learn = !strcmp(prog, "tc_learn");
	uint8_t pkt[KBT_PKT_BYTES];
	uint32_t bad, hit, miss;
	uint64_t dn, de;
	long ret;

	kb_packet(pkt, key);
	ret = kb_run_pkt(kb_prog_fd(w->kern.obj, prog), pkt, sizeof(pkt), 1);
	if (ret < 0) {
		outcome(w, op, (int)-ret, ALLOW(0), "test_run");
		return false;
	}
	outcome(w, op, 0, ALLOW(0), "test_run");
	w->st->kern.bpf_runs++;
	dn = g->nulls - nulls;
	de = g->errors - errors;
	/* test_run's retval is a u32: TC_ACT_UNSPEC (-1) is 0xffffffff. */
	bad = xdp ? XDP_ABORTED : (uint32_t)TC_ACT_UNSPEC;
	hit = xdp ? XDP_DROP : learn ? TC_ACT_OK : TC_ACT_SHOT;
	miss = xdp ? XDP_PASS : TC_ACT_OK;
	/*
	 * Errors are ENODEV, but for tc_learn's adds to a pool filter, which
	 * may be scalable: those wait for growth (EAGAIN) or stop at a cap.
	 */
	if (dn + de > 1 ||
	    (g->enodev - enodev != de && !(learn && t == KF_T_POOL)) ||
	    (dn + de ? ret != bad : ret != hit && ret != miss)) {
		/* As a signed verdict: "-1", not "4294967295". */
		ret = (int32_t)ret;
		record_fail(w, F_RESULT, "worker %d %s: %s gave %ld after %llu NULL acquires and %llu errors",
			    w->id, op_names[op], prog, ret,
			    (unsigned long long)dn, (unsigned long long)de);
		return false;
	}
	if (dn) {
		w->st->kern.bpf_nulls++;
		if (t == KF_T_GOOD)
			record_fail(w, F_ERRNO, "worker %d %s: %s: acquire gave NULL for a good filter",
				    w->id, op_names[op], prog);
	} else if (t == KF_T_NONE) {
		record_fail(w, F_ERRNO, "worker %d %s: %s: acquire found a filter for a stale or impossible id or a bad name",
			    w->id, op_names[op], prog);
	}
	if (de) {
		w->st->kern.bpf_enodev++;
		outcome(w, op, (int)-g->last_error,
			t != KF_T_POOL ? ALLOW(0) :
			learn ? ALLOW(ENODEV, EAGAIN, E2BIG, ENOMEM) :
			ALLOW(ENODEV),
			learn ? "bpf_kbloom_add()" : "bpf_kbloom_check()");
	}
	if (known && ret != hit)
		record_fail(w, F_FALSE_NEG, "worker %d %s: %s: a key added to its good filter judged absent (%ld)",
			    w->id, op_names[op], prog, ret);
	return !dn && !de;
}

/*
 * Programs on pool filters by id (read from sysfs now, or made up) and by
 * name, on good filters, on stale and impossible ids and bad names, with
 * random keys or keys known to be in this worker's good filter.
 */
void do_bpf_run(struct worker *w)
{
	static const char *const by_id[] = {
		"xdp_by_id", "tc_by_id", "tc_learn",
	};
	enum op op = OP_bpf_run;
	struct kbt_globals *g = w->kern.g;
	uint64_t r = st_below(&w->rng, 10);
	enum kf_target t = KF_T_POOL;
	uint8_t key[KBT_KEY_BYTES];
	bool name = false, known = false, other = false;
	char buf[80];
	uint32_t id = 0;

	if (!g)
		return;
	if (r < 4) {
		pool_name(buf, st_below(&w->rng, POOL));
		id = kf_sysfs_id(w, op, buf);
		if (!id)
			id = kf_random_id(w);
	} else if (r < 6) {
		pool_name(buf, st_below(&w->rng, POOL));
		kf_target_name(g, buf, strlen(buf));
		name = true;
	} else if (r == 6) {
		t = KF_T_GOOD;
		id = kf_good_id(w->id);
		if (st_one_in(&w->rng, 2)) {
			kf_target_name(g, w->good_name, strlen(w->good_name));
			name = true;
		}
		known = w->kern.bpf_added && st_one_in(&w->rng, 2);
	} else if (r == 7) {
		t = KF_T_NONE;
		id = w->kern.nstale && st_one_in(&w->rng, 2) ?
		     w->kern.stale[st_below(&w->rng, w->kern.nstale)] :
		     st_one_in(&w->rng, 3) ? 0 :
		     KF_INT_MAX + 1 + st_below(&w->rng, KF_INT_MAX);
	} else if (r == 8) {
		/* Bad characters, or all 32 bytes without a NUL. */
		t = KF_T_NONE;
		name = true;
		if (st_one_in(&w->rng, 2)) {
			kf_bad_name(w, buf, sizeof(buf));
			kf_target_name(g, buf, strlen(buf));
		} else {
			memset(g->filter_name, 'n', sizeof(g->filter_name));
		}
	} else {
		/* Another worker's good filter (checked, never added to). */
		t = KF_T_GOOD;
		other = true;
		id = kf_good_id(st_below(&w->rng, MAX_PROCS));
		if (!id) {
			t = KF_T_NONE;
			id = KF_INT_MAX + 1;
		}
	}
	g->filter_id = id;
	if (known)
		kf_bpf_key(w, key, st_below(&w->rng, w->kern.bpf_added));
	else
		kb_key(key, st_next(&w->rng), st_next(&w->rng));
	kf_bpf_packet(w, op, name ? "xdp_by_name" :
		      by_id[st_below(&w->rng, known || other ? 2 : 3)], key, t,
		      known);
}

/* The worker calling libbpf, for __wrap_syscall(). */
static struct worker *kf_self;

/*
 * Every syscall() of this program and of libbpf comes here
 * (fuzz-ioctl.mk links with -Wl,--wrap=syscall).  Under fault injection
 * BPF_PROG_LOAD runs with it paused: 6.1's bpf_prog_alloc() and the
 * verifier take memory with __vmalloc() and no __GFP_NOWARN, so a failure
 * injected there prints a stack trace (warn_alloc()), which
 * scripts/vm-run rightly counts against the run (seen once in the first
 * phase-3 run, d6fc9e7, 2026-12-01).  The rest of a load, vmlinux's and
 * the modules' BTF, the object's BTF and its maps, stays under injection.
 */
long __real_syscall(long nr, ...);
long __wrap_syscall(long nr, ...);

long __wrap_syscall(long nr, ...)
{
	bool pause;
	long a[6], ret;
	va_list ap;
	int i, e;

	/* As glibc's syscall() does: six arguments, used or not. */
	va_start(ap, nr);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	pause = kf_self && nr == __NR_bpf && a[0] == BPF_PROG_LOAD;
	if (pause)
		fz_fault_pause(kf_self, true);
	ret = __real_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	if (pause) {
		e = errno;
		fz_fault_pause(kf_self, false);
		errno = e;
	}
	return ret;
}

/*
 * One program of a fresh object loaded and the object closed: under -F
 * allocations fail in libbpf and in the kernel for the object's BTF, the
 * modules' BTF and the maps (not for the program itself, see above).
 */
void do_bpf_load(struct worker *w)
{
	const char *progs[2] = { kf_progs[st_below(&w->rng, 4)], NULL };
	struct bpf_object *obj;
	char what[300];
	int e;

	/*
	 * 0.1 s a load on Debian's kernel, 0.3 s on the debug kernel (libbpf
	 * reads vmlinux's BTF each time): one call in 16, but every one
	 * under injection.
	 */
	if (!w->fault && !st_one_in(&w->rng, 16))
		return;
	e = kb_load_test(&obj, NULL, progs);
	snprintf(what, sizeof(what), "load %s of bpf/test.bpf.o (libbpf: %s)",
		 progs[0], e ? kb_libbpf_last() : "ok");
	/*
	 * Under injection, besides ENOMEM: ESRCH, libbpf's "failed to find
	 * valid kernel BTF" when the read of /sys/kernel/btf/vmlinux failed
	 * for want of memory ("Error loading vmlinux BTF" first); ENOSPC,
	 * shmem's answer when it cannot allocate the inode of the shared
	 * anonymous mapping libbpf keeps a map's contents in ("failed to
	 * alloc map 'test.bss' content buffer").  And EINVAL when the
	 * kfunc externs could not be resolved because the modules' BTF
	 * could not be read for want of memory ("failed to get BTF object #N
	 * FD: -12", then "not found in kernel or module BTFs"): libbpf 1.1's
	 * bpf_object__resolve_externs() returns EINVAL for any failure there.
	 * Counted as the ENOMEM it was, and only with both in libbpf's
	 * words, so any other EINVAL still fails.
	 */
	if (w->fault && e == EINVAL && strstr(kb_libbpf_said, ": -12\n") &&
	    strstr(kb_libbpf_said, "not found in kernel or module BTFs"))
		e = ENOMEM;
	outcome(w, OP_bpf_load, e, w->fault ? ALLOW(0, ESRCH, ENOSPC) :
		ALLOW(0), what);
	if (e)
		return;
	w->st->kern.bpf_loads++;
	kb_close_test(obj, NULL);
}

/* Its BPF keys [first, first + n) by CHECK: all there. */
static void kf_bpf_verify(struct worker *w, enum op op, uint64_t first,
			  uint32_t n)
{
	struct st_keys k = { w->keybuf, w->lens, (uint64_t)n * KBT_KEY_BYTES,
			     n };
	uint32_t hits = 0, i;
	int e;

	if (!n)
		return;
	for (i = 0; i < n; i++) {
		kf_bpf_key(w, (uint8_t *)w->keybuf + (size_t)i * KBT_KEY_BYTES,
			   first + i);
		w->lens[i] = KBT_KEY_BYTES;
	}
	e = st_batch(w->good_fd, KBLOOM_IOC_CHECK, &k, NULL, &hits);
	if (outcome(w, op, e, ALLOW(0), "check keys a program added"))
		return;
	w->st->kern.bpf_good_checked += n;
	if (hits != n)
		record_fail(w, F_FALSE_NEG, "worker %d after %s: CHECK found %u of %u keys tc_learn added, from %llu",
			    w->id, op_names[op], hits, n,
			    (unsigned long long)first);
}

/*
 * The good filter through BPF: keys a tc program adds (tc_learn, one a
 * packet) are then found by CHECK and judged present by the XDP and tc
 * programs.
 */
void do_good_bpf(struct worker *w)
{
	enum op op = OP_good_bpf;
	struct kbt_globals *g = w->kern.g;
	uint32_t n = 1 + st_below(&w->rng, 32), i;
	uint8_t key[KBT_KEY_BYTES];
	uint64_t first;

	if (!g)
		return;
	g->filter_id = kf_good_id(w->id);
	for (i = 0; i < n && w->kern.bpf_added < KF_BPF_GOOD_MAX; i++) {
		kf_bpf_key(w, key, w->kern.bpf_added);
		/* Counted only when added; else the next op adds it again. */
		if (!kf_bpf_packet(w, op, "tc_learn", key, KF_T_GOOD, false))
			break;
		w->kern.bpf_added++;
		w->st->kern.bpf_good_added++;
	}
	if (!w->kern.bpf_added)
		return;
	first = st_below(&w->rng, w->kern.bpf_added);
	kf_bpf_verify(w, op, first, w->kern.bpf_added - first > 512 ? 512 :
		      w->kern.bpf_added - first);
	kf_bpf_key(w, key, first);
	kf_bpf_packet(w, op, st_one_in(&w->rng, 2) ? "xdp_by_id" : "tc_by_id",
		      key, KF_T_GOOD, true);
}

/* ---- for fz_kernel_*() (fuzz/kapi.c) ---- */

/* Before fault injection: the worker's own BPF object. */
void kf_bpf_setup(struct worker *w)
{
	int e;

	if (!kf_bpf)
		return;
	kf_self = w;
	e = kb_load_test(&w->kern.obj, &w->kern.g, kf_progs);
	if (e)
		record_fail(w, F_USABLE, "worker %d: load bpf/test.bpf.o: %s: %s",
			    w->id, st_errname(e), kb_libbpf_last());
}

/*
 * With fault injection off: every good key added through BPF, by CHECK
 * and by a program; then the object goes.
 */
void kf_bpf_final(struct worker *w)
{
	uint64_t first, added = w->kern.bpf_added;
	uint8_t key[KBT_KEY_BYTES];
	uint32_t n;

	for (first = 0; first < added; first += 4096)
		kf_bpf_verify(w, OP_final, first,
			      added - first > 4096 ? 4096 : added - first);
	if (w->kern.g) {
		w->kern.g->filter_id = kf_good_id(w->id);
		for (n = 0; n < added && n < 64; n++) {
			kf_bpf_key(w, key, n);
			kf_bpf_packet(w, OP_final, "xdp_by_id", key, KF_T_GOOD,
				      true);
		}
		kb_close_test(w->kern.obj, w->kern.g);
		w->kern.g = NULL;
	}
}

/*
 * In the parent: a BPF object loaded once to see that it loads (kf_bpf);
 * the milliseconds that took.
 */
uint64_t kf_bpf_init(const char *suite)
{
	struct bpf_object *obj;
	uint64_t t0 = 0;
	int e;

	kf_bpf_why = kf_bpf_off ? "left out of this run (-B)" :
		     kb_btf_missing();
	if (!kf_bpf_why) {
		kb_libbpf_init();
		t0 = st_now_ms();
		e = kb_load_test(&obj, NULL, kf_progs);
		t0 = st_now_ms() - t0;
		if (e) {
			printf("FAIL: %s/bpf: load bpf/test.bpf.o: %s: %s\n",
			       suite, st_errname(e), kb_libbpf_last());
			kf_bpf_failed = true;
			kf_bpf_why = "bpf/test.bpf.o did not load";
		} else {
			kb_close_test(obj, NULL);
			kf_bpf = true;
		}
	}
	return t0;
}
