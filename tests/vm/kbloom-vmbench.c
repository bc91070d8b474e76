// SPDX-License-Identifier: GPL-2.0
/*
 * `make bench-vm`, inside the VM: kbloom through the real device (batched
 * ADD/CHECK ioctls of 1, 64 and 4096 keys), the kernel's BPF bloom map at
 * one bpf(2) call per key, kbloom's filter core compiled into this
 * program, and checks through the device's read-only mapping (the core's
 * kbloom_lookup on the mapped cells under the sequence count, and
 * libkbloom's kbl_check_one() after kbl_map()), all in the same guest on
 * the same keys.  qemu's absolute times
 * mean little, so what counts is the ratios, printed against their
 * targets (ratios[] below).  Every figure is the median of interleaved
 * repeats.
 *
 * Usage: kbloom-vmbench [N [REPEATS]]   (default 1000000 keys, 9 repeats)
 *        kbloom-vmbench window [MIB [REPEATS]]   (window filters, below)
 * Prints a table, the ratios, PASS:/FAIL: lines for its sanity checks, and
 * one "BENCHJSON: {...}" line per measurement (where = vm) for the host.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "../../include/kbloom.h"
#include "../../bench/bpf_bloom.h"
#include "stress-map.h"
#include "vmtest.h"

#define VB_NAME		"vmbench"
#define VB_CONTROL	"/dev/kbloom-control"
#define VB_NODE		"/dev/kbloom/" VB_NAME
#define VB_KEY_BYTES	8
#define VB_BITS_PER_KEY	10
#define VB_SEED		0x766d62656e6368ULL
#define VB_MAX_REPEATS	9
#define VB_BIG_BATCH	4096

static const u32 ioctl_batches[] = { 1, 64, VB_BIG_BATCH };

struct vb_row {
	const char *impl;
	const char *op;
	u32 batch;
	u64 ops;		/* operations per timed repeat */
	double ns[VB_MAX_REPEATS];
	double median;
};

enum {
	ROW_CORE_ADD, ROW_CORE_ADD_BATCH, ROW_CORE_CHECK, ROW_CORE_CHECK_BATCH,
	ROW_IOCTL_ADD_1, ROW_IOCTL_ADD_64, ROW_IOCTL_ADD_4096,
	ROW_IOCTL_CHECK_1, ROW_IOCTL_CHECK_64, ROW_IOCTL_CHECK_4096,
	ROW_BPF_ADD, ROW_BPF_CHECK, ROW_CORE_LOOKUP, ROW_MAP_CHECK,
	ROW_MAP_CHECK_BATCH, ROW_LIB_CHECK, ROW_COUNT
};

static struct vb_row rows[ROW_COUNT] = {
	[ROW_CORE_ADD] = { "kbloom", "add", 1 },
	[ROW_CORE_ADD_BATCH] = { "kbloom", "add_batch", VB_BIG_BATCH },
	[ROW_CORE_CHECK] = { "kbloom", "check", 1 },
	[ROW_CORE_CHECK_BATCH] = { "kbloom", "check_batch", VB_BIG_BATCH },
	[ROW_IOCTL_ADD_1] = { "kbloom-ioctl", "add", 1 },
	[ROW_IOCTL_ADD_64] = { "kbloom-ioctl", "add", 64 },
	[ROW_IOCTL_ADD_4096] = { "kbloom-ioctl", "add", VB_BIG_BATCH },
	[ROW_IOCTL_CHECK_1] = { "kbloom-ioctl", "check", 1 },
	[ROW_IOCTL_CHECK_64] = { "kbloom-ioctl", "check", 64 },
	[ROW_IOCTL_CHECK_4096] = { "kbloom-ioctl", "check", VB_BIG_BATCH },
	[ROW_BPF_ADD] = { "bpf-map", "add", 1 },
	[ROW_BPF_CHECK] = { "bpf-map", "check", 1 },
	[ROW_CORE_LOOKUP] = { "kbloom", "lookup", 1 },
	[ROW_MAP_CHECK] = { "kbloom-mapped", "check", 1 },
	[ROW_MAP_CHECK_BATCH] = { "kbloom-mapped", "check_batch", VB_BIG_BATCH },
	[ROW_LIB_CHECK] = { "libkbloom-map", "check", 1 },
};

/* Keeps the compiler from discarding results nobody else reads. */
static void keep(u64 v)
{
	__asm__ __volatile__("" : : "r"(v));
}

static u64 rand64(u64 *state)
{
	u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p) {
		fprintf(stderr, "kbloom-vmbench: out of memory\n");
		exit(2);
	}
	return p;
}

static void check(int ok, const char *name, const char *why)
{
	vt_report("vmbench", name, ok ? NULL : why);
}

/* The keys: n added ones, then queries, half of them never added. */
struct vb_keys {
	u8 *added;		/* n keys */
	u8 *queries;		/* q keys, shuffled */
	u8 *present;		/* query i was added */
	u32 *lens;		/* all VB_KEY_BYTES, for the ioctls */
	struct kbloom_key *kv;	/* the queries, for the core's batch API */
	struct kbloom_key *add_kv;
	u64 n, q;
};

static void keys_make(struct vb_keys *k, u64 n, u64 q)
{
	u64 i, state = 1, *w;

	k->n = n;
	k->q = q;
	k->added = xcalloc(n, VB_KEY_BYTES);
	k->queries = xcalloc(q, VB_KEY_BYTES);
	k->present = xcalloc(q, 1);
	k->lens = xcalloc(n > q ? n : q, sizeof(u32));
	k->kv = xcalloc(q, sizeof(*k->kv));
	k->add_kv = xcalloc(n, sizeof(*k->add_kv));
	w = (u64 *)k->added;
	for (i = 0; i < n; i++)
		w[i] = rand64(&state);
	w = (u64 *)k->queries;
	for (i = 0; i < q; i++) {
		/* Even slots: added keys spread over the set; odd: fresh. */
		k->present[i] = !(i & 1);
		w[i] = k->present[i] ? ((u64 *)k->added)[(i / 2) * (n / (q / 2))]
				     : rand64(&state);
	}
	for (i = q; i > 1; i--) {
		u64 j = rand64(&state) % i, t = w[i - 1];
		u8 p = k->present[i - 1];

		w[i - 1] = w[j];
		w[j] = t;
		k->present[i - 1] = k->present[j];
		k->present[j] = p;
	}
	for (i = 0; i < (n > q ? n : q); i++)
		k->lens[i] = VB_KEY_BYTES;
	for (i = 0; i < q; i++) {
		k->kv[i].data = k->queries + i * VB_KEY_BYTES;
		k->kv[i].len = VB_KEY_BYTES;
	}
	for (i = 0; i < n; i++) {
		k->add_kv[i].data = k->added + i * VB_KEY_BYTES;
		k->add_kv[i].len = VB_KEY_BYTES;
	}
}

/* One ADD or CHECK ioctl per `batch` keys; returns ns per key or -errno. */
static double ioctl_pass(int fd, unsigned long cmd, const u8 *keys,
			 const u32 *lens, u64 count, u32 batch, u64 *results)
{
	u64 i, t0 = vt_now_ns(), hits = 0;

	for (i = 0; i < count; i += batch) {
		u32 m = count - i < batch ? (u32)(count - i) : batch;
		struct kbloom_batch b = {
			.keys = (uintptr_t)(keys + i * VB_KEY_BYTES),
			.lens = (uintptr_t)lens,
			.results = (uintptr_t)(results ? results + i / 64 : 0),
			.keys_len = (u64)m * VB_KEY_BYTES,
			.count = m,
		};

		if (ioctl(fd, cmd, &b))
			return -errno;
		hits += b.hits;
	}
	keep(hits);
	return (double)(vt_now_ns() - t0) / count;
}

static int device_create(u64 n, struct kbloom_info *info)
{
	struct kbloom_create c = {
		.capacity = n,
		.bits_per_key = VB_BITS_PER_KEY,
		.seed = VB_SEED,
		.flags = KBLOOM_CREATE_SEED,
	};
	int ctl, fd;

	snprintf(c.name, sizeof(c.name), "%s", VB_NAME);
	ctl = open(VB_CONTROL, O_RDWR);
	if (ctl < 0)
		return -errno;
	if (ioctl(ctl, KBLOOM_CTL_CREATE, &c)) {
		int err = -errno;

		close(ctl);
		return err;
	}
	close(ctl);
	fd = open(VB_NODE, O_RDWR);
	if (fd < 0)
		return -errno;
	memset(info, 0, sizeof(*info));
	if (ioctl(fd, KBLOOM_IOC_GET_INFO, info)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

static void device_destroy(void)
{
	struct kbloom_name nm;
	int ctl = open(VB_CONTROL, O_RDWR);

	memset(&nm, 0, sizeof(nm));
	snprintf(nm.name, sizeof(nm.name), "%s", VB_NAME);
	if (ctl >= 0) {
		ioctl(ctl, KBLOOM_CTL_DESTROY, &nm);
		close(ctl);
	}
}

static double core_add(struct kbloom_filter *f, const struct vb_keys *k)
{
	u64 i, t0, fresh = 0;

	kbloom_clear(f);
	t0 = vt_now_ns();
	for (i = 0; i < k->n; i++)
		fresh += kbloom_add(f, k->added + i * VB_KEY_BYTES,
				    VB_KEY_BYTES);
	keep(fresh);
	return (double)(vt_now_ns() - t0) / k->n;
}

static double core_batch(struct kbloom_filter *f, const struct kbloom_key *kv,
			 u64 count, bool add)
{
	unsigned long results[BITS_TO_LONGS(VB_BIG_BATCH)];
	u64 i, t0, hits = 0;

	if (add)
		kbloom_clear(f);
	t0 = vt_now_ns();
	for (i = 0; i < count; i += VB_BIG_BATCH) {
		u32 m = count - i < VB_BIG_BATCH ? (u32)(count - i)
						 : VB_BIG_BATCH;

		hits += add ? kbloom_add_batch(f, kv + i, m, results)
			    : kbloom_check_batch(f, kv + i, m, results);
	}
	keep(hits);
	return (double)(vt_now_ns() - t0) / count;
}

static double core_check(struct kbloom_filter *f, const struct vb_keys *k)
{
	u64 i, t0 = vt_now_ns(), hits = 0;

	for (i = 0; i < k->q; i++)
		hits += kbloom_check(f, k->queries + i * VB_KEY_BYTES,
				     VB_KEY_BYTES);
	keep(hits);
	return (double)(vt_now_ns() - t0) / k->q;
}

/* The core's uncounted lookup, as mapped readers run it, on our filter. */
static double core_lookup(const struct kbloom_filter *f,
			  const struct vb_keys *k)
{
	u64 i, t0 = vt_now_ns(), hits = 0;

	for (i = 0; i < k->q; i++)
		hits += kbloom_lookup(f, k->queries + i * VB_KEY_BYTES,
				      VB_KEY_BYTES);
	keep(hits);
	return (double)(vt_now_ns() - t0) / k->q;
}

/*
 * One key at a time through the mapping, each under the reader's side of
 * the sequence count as libkbloom does it (a retry would take the ioctl;
 * none is expected here, nothing rewrites the filter).  res gets the
 * answers.
 */
static double map_check(const struct st_map *m, const struct vb_keys *k,
			u8 *res, u64 *retries)
{
	u64 i, t0 = vt_now_ns();

	for (i = 0; i < k->q; i++) {
		u64 s1 = st_map_seq_begin(m);

		res[i] = kbloom_lookup(&m->f, k->queries + i * VB_KEY_BYTES,
				       VB_KEY_BYTES);
		*retries += !st_map_seq_consistent(m, s1);
	}
	return (double)(vt_now_ns() - t0) / k->q;
}

/* kbloom_lookup_batch through the mapping, 4096 keys per sequence check. */
static double map_check_batch(const struct st_map *m,
			      const struct vb_keys *k, u64 *retries)
{
	unsigned long results[BITS_TO_LONGS(VB_BIG_BATCH)];
	u64 i, t0 = vt_now_ns(), hits = 0;

	for (i = 0; i < k->q; i += VB_BIG_BATCH) {
		u32 n = k->q - i < VB_BIG_BATCH ? (u32)(k->q - i)
						: VB_BIG_BATCH;
		u64 s1 = st_map_seq_begin(m);

		hits += kbloom_lookup_batch(&m->f, k->kv + i, n, results);
		*retries += !st_map_seq_consistent(m, s1);
	}
	keep(hits);
	return (double)(vt_now_ns() - t0) / k->q;
}

/* libkbloom's one-key check on a mapped handle; -errno on an error. */
static double lib_check(struct kbl *h, const struct vb_keys *k, u8 *res)
{
	u64 i, t0 = vt_now_ns();

	for (i = 0; i < k->q; i++) {
		int r = kbl_check_one(h, k->queries + i * VB_KEY_BYTES,
				      VB_KEY_BYTES);

		if (r < 0)
			return r;
		res[i] = r;
	}
	return (double)(vt_now_ns() - t0) / k->q;
}

static double bpf_pass(int fd, const u8 *keys, u64 count, bool add)
{
	u64 i, t0 = vt_now_ns();

	for (i = 0; i < count; i++) {
		const u8 *key = keys + i * VB_KEY_BYTES;

		if (add ? bpf_bloom_add(fd, key) != 0
			: bpf_bloom_check(fd, key) < 0)
			return -errno;
	}
	return (double)(vt_now_ns() - t0) / count;
}

/* extra: more "key":value members, each with a leading comma, or "". */
static void json_row_with(const struct vb_row *r, u64 n, double bpk, u32 k,
			  int repeats, const char *target, const char *extra)
{
	int i;

	printf("BENCHJSON: {\"impl\":\"%s\",\"where\":\"vm\",\"op\":\"%s\","
	       "\"n\":%llu,\"key_bytes\":%d,\"bits_per_key\":%.4f,"
	       "\"bits_per_key_target\":%s,\"k\":%u,\"batch\":%u,"
	       "\"ns_per_op\":%.3f,\"ns_repeats\":[", r->impl, r->op,
	       (unsigned long long)n, VB_KEY_BYTES, bpk, target, k,
	       r->batch, r->median);
	for (i = 0; i < repeats; i++)
		printf("%s%.3f", i ? "," : "", r->ns[i]);
	printf("],\"fp_measured\":null,\"fp_theory\":null,\"repeats\":%d,"
	       "\"ops_timed\":%llu%s}\n", repeats, (unsigned long long)r->ops,
	       extra);
}

static void json_row(const struct vb_row *r, u64 n, double bpk, u32 k,
		     int repeats)
{
	char target[16];

	snprintf(target, sizeof(target), "%d", VB_BITS_PER_KEY);
	json_row_with(r, n, bpk, k, repeats, target, "");
}

static void ratio(const char *what, double r, double target, bool at_most)
{
	printf("   %-50s %8.2fx", what, r);
	if (target > 0) {
		bool met = at_most ? r <= target : r >= target;

		printf("  target %s %.1fx: %s", at_most ? "<=" : ">=", target,
		       met ? "met" : "NOT MET");
		if (!met)
			printf(" (%.0f%% %s)", at_most ?
			       100 * (r / target - 1) :
			       100 * (1 - r / target),
			       at_most ? "over" : "short");
	}
	printf("\n");
}

/*
 * `kbloom-vmbench window [MIB [REPEATS]]`: the window filters' target,
 * "batched check throughput during continuous rotations at least 0.5x
 * that without, in the same VM run".  A window filter of g = 8
 * generations and about MIB MiB (64 by default), sized by the core
 * compiled into this program for 1 % over its window and created with
 * that capacity and rate, is filled
 * to its worst moment (8 generations of capacity / 7 keys, with ROTATE
 * between them).  Then interleaved repeats time CHECK ioctls of 4096 keys
 * and kbloom_lookup_batch() on the read-only mapping (4096 keys per read
 * of the header's live mask), each for a fixed time, first with nothing
 * else running, then while a second process rotates: ROTATE, then ADDs of
 * the retired generation's keys into the new current one, so the filter
 * the checks see stays full (a window left to empty would make checks
 * cheaper, and the ratio flattering); under emulation a refill of a
 * generation takes seconds, so that process rotates only a few times.
 * Last, the same with the second process rotating back to back with no
 * refill: the window empties within 8 rotations, so both sides of that
 * ratio are timed on the emptied window.  Between them, a filled window
 * and rotations at the rate a ROTATE goes.
 */
#define VW_NAME		"vmbench-window"
#define VW_NODE		"/dev/kbloom/" VW_NAME
#define VW_G		8
#define VW_FP_PPB	10000000	/* 1 % */
#define VW_SEED		0x766d77696e646f77ULL

/* What the rotating process and the checking one share. */
struct vw_shared {
	int stop;
	int err;
	u32 next;		/* the set the next rotation retires */
	u64 rotations;
	u64 busy_ns;
};

struct vw {
	int fd;
	u64 per_gen;
	u8 *keys;		/* VW_G sets of per_gen keys */
	u32 *lens;		/* VB_BIG_BATCH of VB_KEY_BYTES */
	u8 *queries;		/* q, half from sets 1 .. 7, half absent */
	u8 *present;
	struct kbloom_key *kv;
	u64 *dev_results;
	u64 q;
	/* the mapping */
	u8 *base;
	size_t len;
	const struct kbloom_map_header *hdr;
	struct kbloom_filter mf;
	struct vw_shared *sh;
};

static int vw_add_set(const struct vw *w, int fd, u32 j)
{
	double ns = ioctl_pass(fd, KBLOOM_IOC_ADD,
			       w->keys + (u64)j * w->per_gen * VB_KEY_BYTES,
			       w->lens, w->per_gen, VB_BIG_BATCH, NULL);

	return ns < 0 ? (int)ns : 0;
}

/* Empty, then set j into the generation of age 7 - j: the worst moment. */
static int vw_fill(const struct vw *w)
{
	u32 j;
	int err;

	if (ioctl(w->fd, KBLOOM_IOC_CLEAR, 0))
		return -errno;
	for (j = 0; j < VW_G; j++) {
		if (j && ioctl(w->fd, KBLOOM_IOC_ROTATE, 0))
			return -errno;
		err = vw_add_set(w, w->fd, j);
		if (err)
			return err;
	}
	return 0;
}

/* The second process: its own open file, as another program would. */
static void vw_rotator(const struct vw *w, bool refill)
{
	struct vw_shared *sh = w->sh;
	u64 t0 = vt_now_ns();
	int fd = open(VW_NODE, O_RDWR);

	if (fd < 0) {
		sh->err = errno;
		_exit(1);
	}
	while (!__atomic_load_n(&sh->stop, __ATOMIC_ACQUIRE)) {
		if (ioctl(fd, KBLOOM_IOC_ROTATE, 0)) {
			sh->err = errno;
			break;
		}
		__atomic_fetch_add(&sh->rotations, 1, __ATOMIC_RELAXED);
		if (refill) {
			int err = vw_add_set(w, fd, sh->next);

			if (err) {
				sh->err = -err;
				break;
			}
			sh->next = (sh->next + 1) % VW_G;
		}
	}
	sh->busy_ns = vt_now_ns() - t0;
	close(fd);
	_exit(0);
}

static pid_t vw_rotator_start(const struct vw *w, bool refill)
{
	pid_t pid;

	/* next carries over: each rotator goes on where the last stopped. */
	w->sh->stop = 0;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	pid = fork();
	if (pid == 0)
		vw_rotator(w, refill);
	return pid;
}

static void vw_rotator_stop(const struct vw *w, pid_t pid)
{
	int status;

	__atomic_store_n(&w->sh->stop, 1, __ATOMIC_RELEASE);
	if (pid > 0)
		waitpid(pid, &status, 0);
}

/* CHECK ioctls of 4096 keys over the queries for budget_ns; ns per key. */
static double vw_ioctl_for(const struct vw *w, u64 budget_ns)
{
	u64 t0 = vt_now_ns(), done = 0, t;

	do {
		if (ioctl_pass(w->fd, KBLOOM_IOC_CHECK, w->queries, w->lens,
			       w->q, VB_BIG_BATCH, w->dev_results) < 0)
			return -1;
		done += w->q;
		t = vt_now_ns() - t0;
	} while (t < budget_ns);
	return (double)t / done;
}

/*
 * The mapping's reader: live read once per batch (acquire), as the uapi
 * says a reader does, into the private struct the core's lookup reads;
 * the sequence moves only for CLEAR, INTERSECT and image loads, which
 * nothing runs here (counted, and must stay 0).
 */
static u64 vw_map_pass(struct vw *w, u8 *res, u64 *retries)
{
	unsigned long results[BITS_TO_LONGS(VB_BIG_BATCH)];
	u64 i, hits = 0;

	for (i = 0; i < w->q; i += VB_BIG_BATCH) {
		u32 n = w->q - i < VB_BIG_BATCH ? (u32)(w->q - i)
						: VB_BIG_BATCH;
		u64 s1 = __atomic_load_n(&w->hdr->sequence, __ATOMIC_ACQUIRE);
		u32 b;

		w->mf.win.live = __atomic_load_n(&w->hdr->live,
						 __ATOMIC_ACQUIRE);
		hits += kbloom_lookup_batch(&w->mf, w->kv + i, n, results);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		*retries += (s1 & 1) ||
			    __atomic_load_n(&w->hdr->sequence,
					    __ATOMIC_RELAXED) != s1;
		for (b = 0; res && b < n; b++)
			res[i + b] = test_bit(b, results);
	}
	return hits;
}

static double vw_map_for(struct vw *w, u64 budget_ns, u64 *retries)
{
	u64 t0 = vt_now_ns(), done = 0, t;

	do {
		keep(vw_map_pass(w, NULL, retries));
		done += w->q;
		t = vt_now_ns() - t0;
	} while (t < budget_ns);
	return (double)t / done;
}

static int vw_map(struct vw *w, const struct kbloom_info *info)
{
	const struct kbloom_map_header *h;
	void *p;

	w->len = (1 + (info->nblocks * 64 + 4095) / 4096) * 4096;
	p = mmap(NULL, w->len, PROT_READ, MAP_SHARED, w->fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	h = p;
	w->base = p;
	w->hdr = h;
	if (h->magic != KBLOOM_MAP_MAGIC || h->type != KBLOOM_TYPE_WINDOW ||
	    h->generations != VW_G || h->nblocks != info->nblocks)
		return -EPROTO;
	memset(&w->mf, 0, sizeof(w->mf));
	kbloom_geometry_of_map(&w->mf.geo, h);
	w->mf.words = (u64 *)(w->base + h->cells_offset);
	return kbloom_geometry_validate(&w->mf.geo);
}

/* Capacity of a g = 8 window at 1 % in about mib MiB, by the core's sizing. */
static u64 vw_capacity(u64 mib, struct kbloom_geometry *geo)
{
	u64 want = mib << 20, cap = want / 4;
	int i;

	for (i = 0; i < 3; i++) {
		if (kbloom_geometry_from_rate_gen(geo, KBLOOM_TYPE_WINDOW, VW_G,
						  cap, VW_FP_PPB))
			return 0;
		cap = (u64)((double)cap * want / kbloom_geometry_bytes(geo));
	}
	if (kbloom_geometry_from_rate_gen(geo, KBLOOM_TYPE_WINDOW, VW_G, cap,
					  VW_FP_PPB))
		return 0;
	return cap;
}

enum {
	VW_IOCTL, VW_MAP, VW_IOCTL_ROT, VW_MAP_ROT, VW_IOCTL_EMPTY,
	VW_MAP_EMPTY, VW_IOCTL_BARE, VW_MAP_BARE, VW_ROWS
};

static struct vb_row vw_rows[VW_ROWS] = {
	[VW_IOCTL] = { "kbloom-window-ioctl", "check", VB_BIG_BATCH },
	[VW_MAP] = { "kbloom-window-mapped", "check_batch", VB_BIG_BATCH },
	[VW_IOCTL_ROT] = { "kbloom-window-ioctl", "check_rotating",
			   VB_BIG_BATCH },
	[VW_MAP_ROT] = { "kbloom-window-mapped", "check_batch_rotating",
			 VB_BIG_BATCH },
	[VW_IOCTL_EMPTY] = { "kbloom-window-ioctl", "check_emptied",
			     VB_BIG_BATCH },
	[VW_MAP_EMPTY] = { "kbloom-window-mapped", "check_batch_emptied",
			   VB_BIG_BATCH },
	[VW_IOCTL_BARE] = { "kbloom-window-ioctl", "check_rotating_bare",
			    VB_BIG_BATCH },
	[VW_MAP_BARE] = { "kbloom-window-mapped",
			  "check_batch_rotating_bare", VB_BIG_BATCH },
};

/*
 * The median over repeats of without / with, each pair timed back to
 * back: steadier than the ratio of the medians when the host's load
 * drifts across repeats.
 */
static double vw_pair_ratio(int without, int with, int repeats)
{
	double v[VB_MAX_REPEATS];
	int r;

	for (r = 0; r < repeats; r++)
		v[r] = vw_rows[without].ns[r] / vw_rows[with].ns[r];
	return vt_median(v, repeats);
}

static void vw_destroy(void)
{
	struct kbloom_name nm;
	int ctl = open(VB_CONTROL, O_RDWR);

	memset(&nm, 0, sizeof(nm));
	snprintf(nm.name, sizeof(nm.name), "%s", VW_NAME);
	if (ctl >= 0) {
		ioctl(ctl, KBLOOM_CTL_DESTROY, &nm);
		close(ctl);
	}
}

static int vw_create(u64 cap, struct kbloom_info *info)
{
	struct kbloom_create c = {
		.capacity = cap,
		.fp_ppb = VW_FP_PPB,
		.seed = VW_SEED,
		.flags = KBLOOM_CREATE_SEED,
		.type = KBLOOM_TYPE_WINDOW,
		.generations = VW_G,
	};
	int ctl, fd, err = 0;

	snprintf(c.name, sizeof(c.name), "%s", VW_NAME);
	ctl = open(VB_CONTROL, O_RDWR);
	if (ctl < 0)
		return -errno;
	if (ioctl(ctl, KBLOOM_CTL_CREATE, &c))
		err = -errno;
	close(ctl);
	if (err)
		return err;
	fd = open(VW_NODE, O_RDWR);
	if (fd < 0)
		return -errno;
	memset(info, 0, sizeof(*info));
	if (ioctl(fd, KBLOOM_IOC_GET_INFO, info)) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

/* The private core filter, filled as vw_fill() fills the device. */
static int vw_core_fill(struct kbloom_filter *f, const struct vw *w)
{
	unsigned long results[BITS_TO_LONGS(VB_BIG_BATCH)];
	u64 i;
	u32 j;

	for (j = 0; j < VW_G; j++) {
		const u8 *set = w->keys + (u64)j * w->per_gen * VB_KEY_BYTES;

		if (j && kbloom_window_rotate(f))
			return -EINVAL;
		for (i = 0; i < w->per_gen; i += VB_BIG_BATCH) {
			u32 m = w->per_gen - i < VB_BIG_BATCH ?
				(u32)(w->per_gen - i) : VB_BIG_BATCH;
			struct kbloom_key kv[VB_BIG_BATCH];
			u32 b;

			for (b = 0; b < m; b++) {
				kv[b].data = set + (i + b) * VB_KEY_BYTES;
				kv[b].len = VB_KEY_BYTES;
			}
			kbloom_add_batch(f, kv, m, results);
		}
	}
	return 0;
}

static int window_main(int argc, char **argv)
{
	u64 mib = argc > 2 ? strtoull(argv[2], NULL, 0) : 64;
	int repeats = argc > 3 ? atoi(argv[3]) : 5;
	u64 budget = 2000000000ULL, rot = 0, rot_ns = 0, bare = 0;
	u64 retries = 0, i, cap, missing = 0, differ = 0, core_differ = 0;
	unsigned long core_results[BITS_TO_LONGS(VB_BIG_BATCH)];
	struct kbloom_geometry geo;
	struct kbloom_filter cf;
	struct kbloom_info info;
	struct vw w = { 0 };
	char extra[64];
	u8 *map_res;
	u64 state = 7;
	int r, j, err;
	pid_t pid;

	if (!mib || repeats < 1 || repeats > VB_MAX_REPEATS) {
		fprintf(stderr, "usage: %s window [MIB [REPEATS 1-%d]]\n",
			argv[0], VB_MAX_REPEATS);
		return 2;
	}
	cap = vw_capacity(mib, &geo);
	if (!cap) {
		check(0, "window-sizing", "from_rate_gen failed");
		return 1;
	}
	geo.seed = VW_SEED;
	err = kbloom_filter_init(&cf, &geo);
	if (err) {
		check(0, "window-core-init", strerror(-err));
		return 1;
	}
	vw_destroy();
	w.fd = vw_create(cap, &info);
	if (w.fd < 0) {
		check(0, "window-create", strerror(-w.fd));
		return 1;
	}
	w.per_gen = (cap + VW_G - 2) / (VW_G - 1);
	w.q = 262144;
	w.keys = xcalloc(w.per_gen * VW_G, VB_KEY_BYTES);
	w.lens = xcalloc(VB_BIG_BATCH, sizeof(u32));
	w.queries = xcalloc(w.q, VB_KEY_BYTES);
	w.present = xcalloc(w.q, 1);
	w.kv = xcalloc(w.q, sizeof(*w.kv));
	w.dev_results = xcalloc(BITS_TO_LONGS(w.q), sizeof(u64));
	map_res = xcalloc(w.q, 1);
	for (i = 0; i < w.per_gen * VW_G; i++)
		((u64 *)w.keys)[i] = rand64(&state);
	for (i = 0; i < VB_BIG_BATCH; i++)
		w.lens[i] = VB_KEY_BYTES;
	/* Even queries: keys of sets 1 .. 7 (the window), spread; odd: new. */
	for (i = 0; i < w.q; i++) {
		u64 span = w.per_gen * (VW_G - 1);

		w.present[i] = !(i & 1);
		((u64 *)w.queries)[i] = w.present[i] ?
			((u64 *)w.keys)[w.per_gen + (i / 2) * (span / (w.q / 2))] :
			rand64(&state);
		w.kv[i].data = w.queries + i * VB_KEY_BYTES;
		w.kv[i].len = VB_KEY_BYTES;
	}
	w.sh = mmap(NULL, sizeof(*w.sh), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (w.sh == MAP_FAILED) {
		check(0, "window-shared", strerror(errno));
		return 1;
	}
	memset(w.sh, 0, sizeof(*w.sh));
	err = vw_map(&w, &info);
	if (err) {
		check(0, "window-map", strerror(-err));
		return 1;
	}
	printf("kbloom-vmbench window: g = %d, capacity %llu window keys "
	       "(%llu per generation, %llu at the worst moment), 1 %%: "
	       "device %llu blocks (%.1f MiB), k %u; core %llu blocks, k %u; "
	       "%d repeats of %.1f s per figure, %llu queries (half absent) "
	       "per pass\n", VW_G, (unsigned long long)cap,
	       (unsigned long long)w.per_gen,
	       (unsigned long long)w.per_gen * VW_G,
	       (unsigned long long)info.nblocks, info.nblocks / 16384.0,
	       info.k, (unsigned long long)cf.geo.nblocks, cf.geo.k, repeats,
	       budget / 1e9, (unsigned long long)w.q);
	fflush(stdout);
	{
		u64 t0 = vt_now_ns();

		err = vw_fill(&w);
		if (err) {
			check(0, "window-fill", strerror(-err));
			return 1;
		}
		printf("  filled through ADD ioctls (4096 keys each) in %.1f s\n",
		       (vt_now_ns() - t0) / 1e9);
		w.sh->next = 0;	/* vw_fill() left set 0 the oldest */
	}
	vw_core_fill(&cf, &w);

	/* The device answers what the core answers; the mapping too. */
	if (ioctl_pass(w.fd, KBLOOM_IOC_CHECK, w.queries, w.lens, w.q,
		       VB_BIG_BATCH, w.dev_results) < 0) {
		check(0, "window-check", strerror(errno));
		return 1;
	}
	vw_map_pass(&w, map_res, &retries);
	for (i = 0; i < w.q; i += VB_BIG_BATCH) {
		u32 m = w.q - i < VB_BIG_BATCH ? (u32)(w.q - i) : VB_BIG_BATCH;
		u32 b;

		kbloom_check_batch(&cf, w.kv + i, m, core_results);
		for (b = 0; b < m; b++) {
			bool dev = (w.dev_results[(i + b) / 64] >>
				    ((i + b) % 64)) & 1;

			missing += w.present[i + b] && !dev;
			differ += map_res[i + b] != dev;
			core_differ += test_bit(b, core_results) != dev;
		}
	}
	check(missing == 0, "window-ioctl-no-false-negatives",
	      "window keys reported absent by CHECK");
	check(differ == 0, "window-mapped-matches-ioctl",
	      "the mapping answered otherwise than CHECK");
	if (info.nblocks == cf.geo.nblocks && info.k == cf.geo.k)
		check(core_differ == 0, "window-ioctl-matches-core",
		      "device and core answered differently");
	else
		check(0, "window-geometry-matches-core",
		      "the device sized the window otherwise than the core");

	for (j = 0; j < VW_ROWS; j++)
		vw_rows[j].ops = w.q;
	for (r = 0; r < repeats; r++) {
		u64 before = w.sh->rotations;

		vw_rows[VW_IOCTL].ns[r] = vw_ioctl_for(&w, budget);
		vw_rows[VW_MAP].ns[r] = vw_map_for(&w, budget, &retries);
		pid = vw_rotator_start(&w, true);
		if (pid < 0) {
			check(0, "window-fork", strerror(errno));
			return 1;
		}
		vw_rows[VW_IOCTL_ROT].ns[r] = vw_ioctl_for(&w, budget);
		vw_rows[VW_MAP_ROT].ns[r] = vw_map_for(&w, budget, &retries);
		vw_rotator_stop(&w, pid);
		rot += w.sh->rotations - before;
		rot_ns += w.sh->busy_ns;
		printf("  repeat %d/%d: ioctl %.1f mapped %.1f | rotating: "
		       "ioctl %.1f mapped %.1f ns/key (%llu rotations)\n",
		       r + 1, repeats, vw_rows[VW_IOCTL].ns[r],
		       vw_rows[VW_MAP].ns[r], vw_rows[VW_IOCTL_ROT].ns[r],
		       vw_rows[VW_MAP_ROT].ns[r],
		       (unsigned long long)(w.sh->rotations - before));
		fflush(stdout);
		if (w.sh->err) {
			check(0, "window-rotator", strerror(w.sh->err));
			return 1;
		}
	}
	/*
	 * The rotator stopped after a refill: every set is live again, so
	 * every key of the 8 sets must be found.
	 */
	missing = 0;
	for (j = 0; j < VW_G; j++) {
		u64 *res = xcalloc(BITS_TO_LONGS(w.per_gen), sizeof(u64));
		u64 hits = 0;

		if (ioctl_pass(w.fd, KBLOOM_IOC_CHECK,
			       w.keys + (u64)j * w.per_gen * VB_KEY_BYTES,
			       w.lens, w.per_gen, VB_BIG_BATCH, res) < 0) {
			check(0, "window-check", strerror(errno));
			return 1;
		}
		for (i = 0; i < w.per_gen; i++)
			hits += (res[i / 64] >> (i % 64)) & 1;
		missing += w.per_gen - hits;
		free(res);
	}
	check(missing == 0, "window-no-false-negatives-after-rotations",
	      "keys lost after rotations with concurrent checks");

	/* For information: back-to-back rotations empty the window. */
	pid = vw_rotator_start(&w, false);
	while (pid > 0 && __atomic_load_n(&w.sh->rotations, __ATOMIC_RELAXED) <
	       rot + VW_G)
		usleep(10000);
	vw_rotator_stop(&w, pid);
	for (r = 0; r < repeats; r++) {
		u64 before = w.sh->rotations;

		vw_rows[VW_IOCTL_EMPTY].ns[r] = vw_ioctl_for(&w, budget / 2);
		vw_rows[VW_MAP_EMPTY].ns[r] = vw_map_for(&w, budget / 2,
							 &retries);
		pid = vw_rotator_start(&w, false);
		vw_rows[VW_IOCTL_BARE].ns[r] = vw_ioctl_for(&w, budget / 2);
		vw_rows[VW_MAP_BARE].ns[r] = vw_map_for(&w, budget / 2,
							&retries);
		vw_rotator_stop(&w, pid);
		bare += w.sh->rotations - before;
		printf("  repeat %d/%d, emptied: ioctl %.1f mapped %.1f | "
		       "rotating back to back: ioctl %.1f mapped %.1f ns/key "
		       "(%llu rotations)\n", r + 1, repeats,
		       vw_rows[VW_IOCTL_EMPTY].ns[r], vw_rows[VW_MAP_EMPTY].ns[r],
		       vw_rows[VW_IOCTL_BARE].ns[r], vw_rows[VW_MAP_BARE].ns[r],
		       (unsigned long long)(w.sh->rotations - before));
		fflush(stdout);
	}
	check(retries == 0, "window-mapped-no-retries",
	      "the sequence moved though only ROTATE and ADD ran");

	for (j = 0; j < VW_ROWS; j++)
		vw_rows[j].median = vt_median(vw_rows[j].ns, repeats);
	printf("\nWindow filter in the VM: median ns per key (4096 keys per "
	       "call or per read of live)\n");
	for (j = 0; j < VW_ROWS; j++)
		printf(" %-21s %-26s %10.1f\n", vw_rows[j].impl, vw_rows[j].op,
		       vw_rows[j].median);
	printf("\nBatched check throughput with / without continuous "
	       "rotations (%llu rotations in %.1f s: %.2f/s, each a ROTATE "
	       "and the refill of the retired generation)\n",
	       (unsigned long long)rot, rot_ns / 1e9,
	       rot_ns ? rot * 1e9 / rot_ns : 0.0);
	ratio("CHECK ioctl, 4096 keys", vw_rows[VW_IOCTL].median /
	      vw_rows[VW_IOCTL_ROT].median, 0.5, false);
	ratio("mapped kbloom_lookup_batch, 4096 keys",
	      vw_rows[VW_MAP].median / vw_rows[VW_MAP_ROT].median, 0.5,
	      false);
	ratio("  the same, median of each repeat's own ratio: ioctl",
	      vw_pair_ratio(VW_IOCTL, VW_IOCTL_ROT, repeats), 0, false);
	ratio("  mapped", vw_pair_ratio(VW_MAP, VW_MAP_ROT, repeats), 0,
	      false);
	printf(" ROTATEs back to back, no refill, both sides on the window "
	       "they emptied (%llu rotations in %.1f s)\n",
	       (unsigned long long)bare, repeats * budget / 1e9);
	ratio("CHECK ioctl, 4096 keys (emptied window)",
	      vw_rows[VW_IOCTL_EMPTY].median / vw_rows[VW_IOCTL_BARE].median,
	      0.5, false);
	ratio("mapped lookup_batch (emptied window)",
	      vw_rows[VW_MAP_EMPTY].median / vw_rows[VW_MAP_BARE].median, 0.5,
	      false);
	ratio("  the same, median of each repeat's own ratio: ioctl",
	      vw_pair_ratio(VW_IOCTL_EMPTY, VW_IOCTL_BARE, repeats), 0, false);
	ratio("  mapped", vw_pair_ratio(VW_MAP_EMPTY, VW_MAP_BARE, repeats), 0,
	      false);
	printf(" (qemu's two vCPUs share the host's CPUs with everything "
	       "else: when the host is busy, the rotating process's vCPU takes "
	       "host time from the checking one, which no layout can help)\n");
	printf("\n");
	snprintf(extra, sizeof(extra), ",\"generations\":%d,\"fp_target\":%g",
		 VW_G, VW_FP_PPB / 1e9);
	for (j = 0; j < VW_ROWS; j++)
		json_row_with(&vw_rows[j], cap,
			      8.0 * info.nblocks * KBLOOM_BLOCK_BYTES / cap,
			      info.k, repeats, "null", extra);

	munmap(w.base, w.len);
	close(w.fd);
	vw_destroy();
	kbloom_filter_free(&cf);
	return vt_failed ? 1 : 0;
}

/*
 * The ratios printed after the table: numerator and denominator rows, and a
 * target where the issue set one.
 */
static const struct bench_ratio {
	const char *what;
	int num, den;
	double target;		/* 0: none */
	bool at_most, needs_bpf, starts_mapping;
} ratios[] = {
	{ "check: bpf-map / ioctl at 4096 keys per call",
	  ROW_BPF_CHECK, ROW_IOCTL_CHECK_4096, 20, false, true, false },
	{ "add: bpf-map / ioctl at 4096 keys per call",
	  ROW_BPF_ADD, ROW_IOCTL_ADD_4096, 20, false, true, false },
	{ "check: bpf-map / ioctl at 1 key per call",
	  ROW_BPF_CHECK, ROW_IOCTL_CHECK_1, 0, false, true, false },
	{ "check: ioctl at 4096 / core check_batch in the VM",
	  ROW_IOCTL_CHECK_4096, ROW_CORE_CHECK_BATCH, 1.3, true, false, false },
	{ "add: ioctl at 4096 / core add_batch in the VM",
	  ROW_IOCTL_ADD_4096, ROW_CORE_ADD_BATCH, 1.3, true, false, false },
	{ "check: ioctl at 64 / core check_batch",
	  ROW_IOCTL_CHECK_64, ROW_CORE_CHECK_BATCH, 0, false, false, false },
	{ "check: ioctl at 1 / core check",
	  ROW_IOCTL_CHECK_1, ROW_CORE_CHECK, 0, false, false, false },
	{ "check: core single / core check_batch",
	  ROW_CORE_CHECK, ROW_CORE_CHECK_BATCH, 0, false, false, false },
	{ "check: ioctl at 1 key / mapped",
	  ROW_IOCTL_CHECK_1, ROW_MAP_CHECK, 0, false, false, true },
	{ "check: ioctl at 1 key / kbl_check_one mapped",
	  ROW_IOCTL_CHECK_1, ROW_LIB_CHECK, 0, false, false, false },
	{ "check: mapped / core check (private)",
	  ROW_MAP_CHECK, ROW_CORE_CHECK, 1.2, true, false, false },
	{ "check: kbl_check_one mapped / core check (private)",
	  ROW_LIB_CHECK, ROW_CORE_CHECK, 1.2, true, false, false },
	{ "check: mapped / core lookup (private, uncounted)",
	  ROW_MAP_CHECK, ROW_CORE_LOOKUP, 0, false, false, false },
	{ "check: ioctl at 4096 / mapped lookup_batch",
	  ROW_IOCTL_CHECK_4096, ROW_MAP_CHECK_BATCH, 0, false, false, false },
	{ "check: mapped lookup_batch / core check_batch",
	  ROW_MAP_CHECK_BATCH, ROW_CORE_CHECK_BATCH, 0, false, false, false },
};

int main(int argc, char **argv)
{
	u64 n = argc > 1 ? strtoull(argv[1], NULL, 0) : 1000000;
	int repeats = argc > 2 ? atoi(argv[2]) : 9;
	u64 q = 2 * (n / 2 < 131072 ? n / 2 : 131072);
	u64 sample1 = q < 50000 ? q : 50000, sample64 = q;
	struct kbloom_geometry geo;
	struct kbloom_filter f;
	struct kbloom_info info;
	struct bpf_bloom_shape shape;
	struct vb_keys k;
	u64 *dev_results, i, differ = 0, missing = 0;
	unsigned long core_results[BITS_TO_LONGS(VB_BIG_BATCH)];
	u64 map_retries = 0, map_differ = 0, lib_differ = 0;
	u8 *map_res, *lib_res;
	struct st_map map;
	struct kbl *lib;
	int fd, bpf_fd, r, j, err;
	bool bpf = true;

	if (argc > 1 && !strcmp(argv[1], "window"))
		return window_main(argc, argv);
	if (n < 1024 || repeats < 1 || repeats > VB_MAX_REPEATS) {
		fprintf(stderr, "usage: %s [N >= 1024 [REPEATS 1-%d]]\n",
			argv[0], VB_MAX_REPEATS);
		return 2;
	}
	keys_make(&k, n, q);
	dev_results = xcalloc(BITS_TO_LONGS(n > q ? n : q), sizeof(u64));
	map_res = xcalloc(q, 1);
	lib_res = xcalloc(q, 1);

	err = kbloom_geometry_from_bits_per_key(&geo, n, VB_BITS_PER_KEY, 0);
	if (!err) {
		geo.seed = VB_SEED;
		geo.type = KBLOOM_TYPE_BITS;
		err = kbloom_filter_init(&f, &geo);
	}
	if (err) {
		check(0, "core-init", strerror(-err));
		return 1;
	}
	fd = device_create(n, &info);
	if (fd < 0) {
		check(0, "device-create", strerror(-fd));
		return 1;
	}
	err = st_map_open(fd, &map);
	if (err) {
		check(0, "map", strerror(err));
		return 1;
	}
	err = kbl_open(VB_NAME, O_RDONLY, &lib);
	if (!err)
		err = kbl_map(lib);
	if (err) {
		check(0, "kbl-map", strerror(-err));
		return 1;
	}
	printf("kbloom-vmbench: n = %llu keys of %d bytes, %d bits/key, "
	       "%d repeats, %llu check queries (half absent)\n",
	       (unsigned long long)n, VB_KEY_BYTES, VB_BITS_PER_KEY, repeats,
	       (unsigned long long)q);
	printf("  core: %llu blocks, k %u; device: %llu blocks, k %u\n",
	       (unsigned long long)f.geo.nblocks, f.geo.k,
	       (unsigned long long)info.nblocks, info.k);

	bpf_bloom_shape(&shape, n, VB_BITS_PER_KEY);
	bpf_fd = bpf_bloom_create(VB_KEY_BYTES, &shape);
	if (bpf_fd < 0) {
		printf("bpf-map: skipped: BPF_MAP_CREATE failed: %s\n",
		       strerror(-bpf_fd));
		bpf = false;
	} else {
		u64 t0 = vt_now_ns(), deadline = t0 + 60ULL * 1000000000ULL;

		/* The whole set if it fits in a minute; else what did. */
		for (i = 0; i < n; i++) {
			if ((i & 1023) == 0 && vt_now_ns() > deadline)
				break;
			if (bpf_bloom_add(bpf_fd, k.added + i * VB_KEY_BYTES))
				break;
		}
		printf("  bpf-map: %llu bits, k %u, filled with %llu of %llu "
		       "keys in %.1f s; timed on %llu calls per repeat\n",
		       (unsigned long long)shape.bits, shape.k,
		       (unsigned long long)i, (unsigned long long)n,
		       (vt_now_ns() - t0) / 1e9, (unsigned long long)sample1);
	}
	fflush(stdout);

	rows[ROW_CORE_ADD].ops = n;
	rows[ROW_CORE_ADD_BATCH].ops = n;
	rows[ROW_CORE_CHECK].ops = q;
	rows[ROW_CORE_CHECK_BATCH].ops = q;
	rows[ROW_IOCTL_ADD_1].ops = sample1;
	rows[ROW_IOCTL_ADD_64].ops = sample64 < n ? sample64 : n;
	rows[ROW_IOCTL_ADD_4096].ops = n;
	rows[ROW_IOCTL_CHECK_1].ops = sample1;
	rows[ROW_IOCTL_CHECK_64].ops = sample64;
	rows[ROW_IOCTL_CHECK_4096].ops = q;
	rows[ROW_BPF_ADD].ops = sample1;
	rows[ROW_BPF_CHECK].ops = sample1;
	rows[ROW_CORE_LOOKUP].ops = q;
	rows[ROW_MAP_CHECK].ops = q;
	rows[ROW_MAP_CHECK_BATCH].ops = q;
	rows[ROW_LIB_CHECK].ops = q;

	for (r = 0; r < repeats; r++) {
		double *ns;

		rows[ROW_CORE_ADD].ns[r] = core_add(&f, &k);
		rows[ROW_CORE_ADD_BATCH].ns[r] = core_batch(&f, k.add_kv, n,
							    true);
		rows[ROW_CORE_CHECK].ns[r] = core_check(&f, &k);
		rows[ROW_CORE_CHECK_BATCH].ns[r] = core_batch(&f, k.kv, q,
							      false);
		rows[ROW_CORE_LOOKUP].ns[r] = core_lookup(&f, &k);

		/* Adds into an emptied filter, the full one last. */
		for (j = 0; j < 3; j++) {
			u32 b = ioctl_batches[j];

			if (ioctl(fd, KBLOOM_IOC_CLEAR, 0)) {
				check(0, "ioctl-clear", strerror(errno));
				return 1;
			}
			ns = &rows[ROW_IOCTL_ADD_1 + j].ns[r];
			*ns = ioctl_pass(fd, KBLOOM_IOC_ADD, k.added, k.lens,
					 rows[ROW_IOCTL_ADD_1 + j].ops, b,
					 NULL);
			if (*ns < 0) {
				check(0, "ioctl-add", strerror((int)-*ns));
				return 1;
			}
		}
		for (j = 0; j < 3; j++) {
			u32 b = ioctl_batches[j];

			ns = &rows[ROW_IOCTL_CHECK_1 + j].ns[r];
			*ns = ioctl_pass(fd, KBLOOM_IOC_CHECK, k.queries,
					 k.lens, rows[ROW_IOCTL_CHECK_1 + j].ops,
					 b, dev_results);
			if (*ns < 0) {
				check(0, "ioctl-check", strerror((int)-*ns));
				return 1;
			}
		}
		/* The device now holds all n keys, as the core does. */
		rows[ROW_MAP_CHECK].ns[r] = map_check(&map, &k, map_res,
						      &map_retries);
		rows[ROW_MAP_CHECK_BATCH].ns[r] = map_check_batch(&map, &k,
								  &map_retries);
		ns = &rows[ROW_LIB_CHECK].ns[r];
		*ns = lib_check(lib, &k, lib_res);
		if (*ns < 0) {
			check(0, "kbl-check-one", strerror((int)-*ns));
			return 1;
		}
		if (bpf) {
			rows[ROW_BPF_ADD].ns[r] = bpf_pass(bpf_fd, k.added,
							   sample1, true);
			rows[ROW_BPF_CHECK].ns[r] = bpf_pass(bpf_fd, k.queries,
							     sample1, false);
		}
		printf("  repeat %d/%d done\n", r + 1, repeats);
		fflush(stdout);
	}

	/*
	 * Same geometry and seed, so the device must answer exactly what the
	 * core in this program answers.  dev_results holds the last CHECK
	 * pass (4096 keys per call) over all q queries.
	 */
	for (i = 0; i < q; i += VB_BIG_BATCH) {
		u32 m = q - i < VB_BIG_BATCH ? (u32)(q - i) : VB_BIG_BATCH;
		u32 b;

		kbloom_check_batch(&f, k.kv + i, m, core_results);
		for (b = 0; b < m; b++) {
			bool dev = (dev_results[(i + b) / 64] >>
				    ((i + b) % 64)) & 1;
			bool core = test_bit(b, core_results);

			differ += dev != core;
			missing += k.present[i + b] && !dev;
			map_differ += map_res[i + b] != dev;
			lib_differ += lib_res[i + b] != dev;
		}
	}
	check(missing == 0, "ioctl-no-false-negatives",
	      "added keys reported absent by the device");
	if (info.nblocks == f.geo.nblocks && info.k == f.geo.k)
		check(differ == 0, "ioctl-matches-core",
		      "device and core answered differently");
	else
		printf("note: device geometry differs from the core's; "
		       "answers not compared\n");

	check(map_differ == 0, "mapped-matches-ioctl",
	      "checks through the mapping answered otherwise than CHECK");
	check(lib_differ == 0, "kbl-check-one-matches-ioctl",
	      "kbl_check_one() on the mapped handle answered otherwise than CHECK");
	check(map_retries == 0, "mapped-no-retries",
	      "the sequence moved with nothing rewriting the filter");
	check(kbl_mapped(lib) == 1, "kbl-mapped", "the handle is not mapped");

	for (j = 0; j < ROW_COUNT; j++)
		rows[j].median = vt_median(rows[j].ns, repeats);

	printf("\nMedian ns per key in the VM (qemu: only the ratios below "
	       "mean anything)\n");
	printf(" %-13s %-12s %6s %10s %10s\n", "impl", "op", "batch",
	       "ns/key", "keys/pass");
	for (j = 0; j < ROW_COUNT; j++) {
		if (!bpf && (j == ROW_BPF_ADD || j == ROW_BPF_CHECK))
			continue;
		printf(" %-13s %-12s %6u %10.1f %10llu\n", rows[j].impl,
		       rows[j].op, rows[j].batch, rows[j].median,
		       (unsigned long long)rows[j].ops);
	}

	printf("\nRatios in the VM\n");
	for (j = 0; j < (int)ARRAY_SIZE(ratios); j++) {
		const struct bench_ratio *r = &ratios[j];

		if (r->needs_bpf && !bpf)
			continue;
		if (r->starts_mapping)
			printf("\nThe mapping (one key per check unless batched)\n");
		ratio(r->what, rows[r->num].median / rows[r->den].median,
		      r->target, r->at_most);
	}

	printf("\n");
	for (j = 0; j < ROW_COUNT; j++) {
		bool is_bpf = j == ROW_BPF_ADD || j == ROW_BPF_CHECK;

		if (is_bpf && !bpf)
			continue;
		json_row(&rows[j], n,
			 is_bpf ? (double)shape.bits / n :
				  (double)f.geo.nblocks * KBLOOM_BLOCK_BITS / n,
			 is_bpf ? shape.k : f.geo.k, repeats);
	}

	if (bpf)
		close(bpf_fd);
	kbl_close(lib);
	st_map_close(&map);
	close(fd);
	device_destroy();
	kbloom_filter_free(&f);
	return vt_failed ? 1 : 0;
}
