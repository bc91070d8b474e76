/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kbloom for the rest of the kernel: other modules look a filter up, take a
 * reference, and check or add keys; userspace fills, saves and inspects the
 * same filter through /dev/kbloom/<name> and sysfs.  BPF programs get the
 * same operations as kfuncs (kmod/kbloom_bpf.c, listed at the end).
 *
 * The symbols are exported GPL-only in the KBLOOM namespace, which a
 * module imports with
 *
 *	KBLOOM_IMPORT_NS();
 *
 * on every kernel: MODULE_IMPORT_NS(KBLOOM) before 6.13, which made the
 * namespace a string, MODULE_IMPORT_NS("KBLOOM") since; both are this.
 *
 * Not <linux/kbloom.h>: this tree's userspace builds put include/ on their
 * path before include/uapi/, where <linux/kbloom.h> is the ioctl ABI.
 *
 * References.  kbloom_filter_get() and kbloom_filter_get_id() return a
 * counted reference, dropped with kbloom_filter_put().  A reference keeps
 * the filter's memory, and the kbloom module, alive: while any is held,
 * rmmod kbloom fails with EAGAIN (the module's refcnt in sysfs counts
 * them).  After the filter is destroyed (KBLOOM_CTL_DESTROY) its name and
 * id are free again and every check or add through an old reference
 * returns -ENODEV, as the filter's open files do; the memory goes at the
 * last put.
 *
 * Context.
 *  - get, get_id, put, check, check_keys, id: any context, softirq and
 *    hard interrupts included, under rcu_read_lock(), a spinlock or a raw
 *    spinlock, on every kernel; none of them sleeps or takes a sleeping
 *    lock.  put (and bpf_kbloom_release()) may also be called in NMI
 *    context, as a BPF program on a perf event is.  A put that drops the
 *    last reference anywhere but sleepable process context frees nothing
 *    there: it queues an irq_work (NMI-safe), which queues a work item
 *    that does the freeing, so no context's rules on the allocator,
 *    vfree() or sleeping locks (PREEMPT_RT's included) are broken.
 *  - add, add_keys: they take a spinlock_t of the filter with bottom
 *    halves disabled; where that is not allowed they return -EDEADLK and
 *    change nothing.  On PREEMPT_RT spinlock_t and bottom halves off are
 *    sleeping locks and softirqs run in tasks, so the contexts differ:
 *
 *	caller's context		without PREEMPT_RT	PREEMPT_RT
 *	process, rcu_read_lock()	adds			adds
 *	softirq, bottom halves off	adds			adds
 *	a spinlock_t held		adds			adds
 *	preempt_disable(), a raw	adds			-EDEADLK
 *	  spinlock_t held
 *	interrupts disabled		-EDEADLK		-EDEADLK
 *	hard interrupt, NMI		-EDEADLK		-EDEADLK
 *
 *    spin_lock_irqsave() leaves interrupts on under PREEMPT_RT, so there
 *    it is a spinlock_t held.  XDP and tc programs run in softirq context
 *    and add on both.
 *
 * Answers.  A check is lock-free and sees every add that returned before
 * it began.  While userspace rewrites the whole filter (CLEAR, INTERSECT,
 * an image write) a check still finds every key present both before and
 * after; keys the rewrite adds appear as it proceeds.  The rewrite takes
 * each block's add lock while it rewrites the block, so an add racing it
 * lands wholly before or wholly after: after an image load returns every
 * key of the image is found, and the racing add may be kept or not; after
 * a CLEAR it may be kept or not, and no key whose add returned before the
 * CLEAR began is left; MERGE and rotations keep it (a rotation in the
 * live generations); INTERSECT keeps it whole or intersects it whole.
 *
 * Scalable filters (KBLOOM_CTL_CREATE with an expansion): checks and
 * check_keys answer for all sub-filters.  add never allocates: a key new
 * to the filter when its newest sub-filter is full returns -EAGAIN,
 * changes nothing, and has a kernel worker grow the filter soon after,
 * so that the same add then succeeds; once a growth failed it returns
 * that errno instead (-E2BIG at the module's caps or the filter's last
 * sub-filter, -ENOMEM); such adds ask the worker to try again at most
 * once per backoff (10 ms doubling to 1 s while growths fail), so a
 * raised cap lets the filter grow within a second, and never at the
 * filter's last sub-filter (until a CLEAR or a load).  A key already in
 * the filter is
 * always taken.  add_keys returns -EOPNOTSUPP (after -EINVAL for its
 * keys) and changes nothing: a batch that stopped at the first full
 * sub-filter could not say where; add the keys one by one.
 *
 * Errors: -EINVAL for a name that is not 1-31 of [A-Za-z0-9._-], a key of
 * 0 or more than KBLOOM_KEY_MAX bytes (nothing of the batch is done), a
 * NULL filter; -ENOENT for no filter of that name or id; -ENODEV for a
 * destroyed filter; -EDEADLK as above; -EAGAIN, -E2BIG, -ENOMEM and
 * -EOPNOTSUPP from scalable filters, as above.
 */
#ifndef _LINUX_KBLOOM_API_H
#define _LINUX_KBLOOM_API_H

#include <linux/module.h>
#include <linux/types.h>
#include <uapi/linux/kbloom.h>

/* What MODULE_IMPORT_NS() of the KBLOOM namespace expands to, everywhere. */
#define KBLOOM_IMPORT_NS()	MODULE_INFO(import_ns, "KBLOOM")

struct kbloom_filter;

/* One key of a batch. */
struct kbloom_key {
	const void *data;
	u32 len;
};

/* A reference, or ERR_PTR(-EINVAL / -ENOENT). */
struct kbloom_filter *kbloom_filter_get(const char *name);
/* By the id in /sys/class/kbloom/<name>/id: no name compare, no walk. */
struct kbloom_filter *kbloom_filter_get_id(u32 id);
void kbloom_filter_put(struct kbloom_filter *f);
/* The filter's id, unique among filters since the module was loaded. */
u32 kbloom_filter_id(const struct kbloom_filter *f);

/* 1: maybe present, 0: absent, or a negative errno. */
int kbloom_filter_check(struct kbloom_filter *f, const void *key, u32 len);
/*
 * 1: the key set a new bit (took a counter from 0), 0: it did not; a
 * scalable filter's -EAGAIN: retry after its growth, as above.
 */
int kbloom_filter_add(struct kbloom_filter *f, const void *key, u32 len);

/*
 * n keys (up to INT_MAX); bit i of results (n bits, may be NULL) is set
 * for key i when the single-key call would answer 1.  Returns the number
 * of bits set, or a negative errno before any key was done.  Their keys
 * count in add_calls, check_calls and the rest as any key does.
 */
int kbloom_filter_check_keys(struct kbloom_filter *f,
			     const struct kbloom_key *keys, u32 n,
			     unsigned long *results);
int kbloom_filter_add_keys(struct kbloom_filter *f,
			   const struct kbloom_key *keys, u32 n,
			   unsigned long *results);

/*
 * BPF kfuncs, registered for XDP, tc (SCHED_CLS), tracing and LSM
 * (BPF_PROG_TYPE_TRACING, _LSM) and SYSCALL programs; bpf_kbloom_add not
 * for tracing and LSM, which may run where adds must not.  BPF programs
 * call them, not C: they are declared here so that the compiler checks
 * their definitions against the contract.  Declare them in a BPF program
 * with __ksym, and struct kbloom_filter with a body (an empty one will
 * do): libbpf 1.1 does not match a forward declaration with the kernel's
 * struct.
 *
 * acquire: KF_ACQUIRE | KF_RET_NULL, NULL when no live filter has that id.
 * acquire_name: the same by name, the bytes up to the first NUL or
 * name__sz.  release: KF_RELEASE.  check and add: KF_TRUSTED_ARGS (the
 * filter an acquire returned), answering as kbloom_filter_check() and
 * _add().  The verifier proves that key__sz bytes at key are readable (a
 * constant, or a bounded register); a program it cannot prove that of is
 * rejected at load.  A program holds an acquired filter for one run at
 * most (the verifier makes it release or store what it acquired).
 *
 * Across runs, a map may keep the reference: struct kbloom_filter has a
 * destructor kfunc (bpf_kbloom_release_dtor(), called by the kernel, not
 * by programs), so a map value may hold a referenced kptr to it, moved
 * in and out with bpf_kptr_xchg().  The field's tag is "kptr_ref"
 * (libbpf's __kptr_ref) on 6.1 and 6.2, "kptr" (__kptr) from 6.3.  A
 * wrong tag still makes a map, but the verifier refuses the program's
 * bpf_kptr_xchg(): 6.1 reads "kptr" as an unreferenced kptr, 6.12 drops
 * the field of a tag it does not know.  The tag must be in the BTF the
 * map is created with: clang 14 leaves it out of an object's BTF.
 * A program that checks per packet with no write to a line other CPUs
 * write keeps one slot per CPU (BPF_MAP_TYPE_PERCPU_ARRAY), per packet:
 *
 *	f = bpf_kptr_xchg(&slot->f, NULL);
 *	if (!f)
 *		f = bpf_kbloom_acquire(id);	(NULL: no such filter)
 *	ret = bpf_kbloom_check(f, key, len);
 *	if (ret < 0)
 *		bpf_kbloom_release(f);		(-ENODEV: destroyed, drop it)
 *	else if ((f = bpf_kptr_xchg(&slot->f, f)))
 *		bpf_kbloom_release(f);		(a preempting program's)
 *
 * After the filter is destroyed, its node, sysfs directory, name and id
 * go at once, as with any reference; checks through the slot's reference
 * return -ENODEV, and its memory stays until the program drops the
 * reference or the map (or its element) is freed, when the destructor
 * drops it.  A map whose value type holds this kptr pins the kbloom
 * module for as long as the map exists, whatever it holds: rmmod kbloom
 * fails with EAGAIN until it is freed.  A slot caches the filter of one
 * id: a program that changes the id it checks must empty the slot.
 *
 * The module needs BTF for this (the build says whether it made some);
 * without it the module loads, logs that the kfuncs are not available,
 * and programs calling them fail to load.
 *
 * Permissions.  Neither the in-kernel API nor the kfuncs judge a filter's
 * node mode: they have no caller to judge (a packet's program runs in
 * whatever task the packet arrives in), and the module or program that
 * calls them was trusted when it was loaded.  For BPF that trust is
 * CAP_BPF: with it alone a process loads SYSCALL programs (and, on kernels
 * that give them kfuncs, socket filter and cgroup skb programs) and runs
 * them on demand with BPF_PROG_RUN, so it may check and add to any filter
 * whatever its mode, as root may.  Registering only the checks for
 * SYSCALL programs would not change that (a socket filter's test run adds
 * the same way) and would still let CAP_BPF read a 0600 filter; so
 * CAP_BPF is documented as trusted like root for filters.  A system that
 * must narrow it does so where programs are loaded (a BPF LSM, BPF
 * tokens), not per filter.
 */
struct kbloom_filter *bpf_kbloom_acquire(u32 id);
struct kbloom_filter *bpf_kbloom_acquire_name(const char *name, u32 name__sz);
void bpf_kbloom_release(struct kbloom_filter *f);
void bpf_kbloom_release_dtor(void *f);
int bpf_kbloom_check(struct kbloom_filter *f, const void *key, u32 key__sz);
int bpf_kbloom_add(struct kbloom_filter *f, const void *key, u32 key__sz);

#endif /* _LINUX_KBLOOM_API_H */
