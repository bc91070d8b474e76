// SPDX-License-Identifier: GPL-2.0
/*
 * tests/vm/bench-bpf.c's programs: KBB_RUN checks per test_run of the keys
 * g.keys[first, first + KBB_RUN), through kbloom's kfunc, through
 * bpf_map_peek_elem() on a BPF bloom filter map, and through neither (the
 * loop alone, to see what the check itself costs), plus a filler that
 * pushes a window of keys into the bloom map.  XDP programs, run on a
 * dummy packet (see test_shared.h for why not SYSCALL ones).  The loop is
 * the same in all of them; the answers are summed without branches, so
 * that the verifier walks the loop once per iteration and nothing else.
 *
 * The hot_* programs treat each key as a packet of its own, as an XDP
 * program sees them: hot_acquire acquires, checks and releases per key;
 * hot_kptr keeps its reference in a per-CPU map slot between packets
 * (the pattern of include/linux/kbloom_api.h's end), so a packet writes
 * only its own CPU's slot; hot_peek is the bloom map's check per key.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "kbloom_kfuncs.h"
#include "test_shared.h"

char _license[] SEC("license") = "GPL";

struct kbb_globals g;

/* The loader sets max_entries and map_extra (the hashes) before load. */
struct {
	__uint(type, BPF_MAP_TYPE_BLOOM_FILTER);
	__uint(value_size, KBT_KEY_BYTES);
	__uint(max_entries, 1);
	__uint(map_extra, 1);
} bloom SEC(".maps");

/*
 * hot_kptr's reference, one slot per CPU; the kernel drops it when the map
 * is freed.  The loader makes this map itself (kb_slot_map() in
 * loader.h), with BTF in which f is a pointer to struct kbloom_filter
 * tagged as a referenced kptr, the tag this kernel takes and clang 14
 * would leave out; the verifier goes by that BTF.  Here f is only its
 * eight bytes: a pointer to the struct would make clang describe the
 * struct by a forward declaration, for the kfuncs' prototypes too, which
 * libbpf then finds incompatible with the module's struct.
 */
struct kbb_slot {
	__u64 f;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct kbb_slot);
	__uint(max_entries, 1);
} slots SEC(".maps");

#define KEY(i)	g.keys[(first + (i)) & (KBB_KEYS - 1)]

static __always_inline struct kbb_cpu *this_cpu(void)
{
	return &g.cpu[bpf_get_smp_processor_id() & (KBB_CPUS - 1)];
}

static __always_inline int done(struct kbb_cpu *c, __u32 hits, int err)
{
	c->hits = hits;
	c->error = err < 0 ? err : 0;
	return XDP_PASS;
}

/*
 * 1 for a key the bloom map may hold, 0 for an absent one.  peek returns
 * 0 or -ENOENT as an int: the verifier makes it a direct call of the
 * map's peek, whose upper 32 bits of the return are not sign-extended (as
 * a long, every absent key read as present here).
 */
static __always_inline __u32 peek_found(const void *key)
{
	int ret = bpf_map_peek_elem(&bloom, (void *)key);

	return 1 + (ret >> 31);
}

SEC("xdp")
int check_kfunc(struct xdp_md *ctx)
{
	struct kbb_cpu *c = this_cpu();
	__u32 i, first = c->first, hits = 0;
	struct kbloom_filter *f;
	int err = 0;

	f = bpf_kbloom_acquire(g.filter_id);
	if (!f)
		return done(c, 0, KBB_NO_FILTER);
	for (i = 0; i < KBB_RUN; i++) {
		int ret = bpf_kbloom_check(f, KEY(i), KBT_KEY_BYTES);

		/* 1 or 0; an error (negative) shows in err. */
		hits += ret;
		err |= ret;
	}
	bpf_kbloom_release(f);
	return done(c, hits, err);
}

SEC("xdp")
int check_map(struct xdp_md *ctx)
{
	struct kbb_cpu *c = this_cpu();
	__u32 i, first = c->first, hits = 0;

	for (i = 0; i < KBB_RUN; i++)
		hits += peek_found(KEY(i));
	return done(c, hits, 0);
}

/* The same loop and loads with no check: what the two above share. */
SEC("xdp")
int check_none(struct xdp_md *ctx)
{
	struct kbb_cpu *c = this_cpu();
	__u32 i, first = c->first, hits = 0;

	for (i = 0; i < KBB_RUN; i++)
		hits += KEY(i)[0] & 1;
	return done(c, hits, 0);
}

SEC("xdp")
int fill_map(struct xdp_md *ctx)
{
	struct kbb_cpu *c = this_cpu();
	__u32 i, first = c->first;
	int err = 0;

	for (i = 0; i < KBB_RUN; i++)
		err |= bpf_map_push_elem(&bloom, KEY(i), BPF_ANY);
	return done(c, 0, err);
}

/*
 * The hot_* programs run their packets through bpf_loop(), whose callback
 * the verifier walks once; walked per iteration, as an open loop is,
 * hot_kptr's branches per packet took 6.1's verifier past its limit
 * (E2BIG) at 512 packets a run.  The verifier inlines the helper into a
 * plain loop calling the callback (inline_bpf_loop()), the same for all
 * three programs.
 */
struct hot_run {
	struct kbb_cpu *c;
	struct kbb_slot *s;
	__u32 first, id, hits;
	int err;
	__u64 acquires;
};

/* Per packet: acquire, check, release; two atomics on shared lines. */
static long hot_acquire_one(__u32 i, void *arg)
{
	struct hot_run *r = arg;
	__u32 first = r->first;
	struct kbloom_filter *f = bpf_kbloom_acquire(r->id);
	int ret;

	if (!f) {
		r->err = KBB_NO_FILTER;
		return 1;
	}
	ret = bpf_kbloom_check(f, KEY(i), KBT_KEY_BYTES);
	bpf_kbloom_release(f);
	if (ret < 0) {
		r->err = ret;
		return 1;
	}
	r->hits += ret;
	return 0;
}

/*
 * Per packet: take this CPU's reference out of its slot (acquiring one
 * if the slot is empty), check, and put it back; only this CPU's slot is
 * written.  A check that fails (-ENODEV: the filter was destroyed) drops
 * the reference, so the next packet acquires by id again: NULL once the
 * filter is gone, a new filter if the id is changed.  Whatever the slot
 * got meanwhile (a program of this CPU that preempted this one) is
 * released when the reference goes back.
 */
static long hot_kptr_one(__u32 i, void *arg)
{
	struct hot_run *r = arg;
	__u32 first = r->first;
	struct kbloom_filter *f;
	int ret;

	f = bpf_kptr_xchg(&r->s->f, NULL);
	if (!f) {
		f = bpf_kbloom_acquire(r->id);
		if (!f) {
			r->err = KBB_NO_FILTER;
			return 1;
		}
		r->acquires++;
	}
	ret = bpf_kbloom_check(f, KEY(i), KBT_KEY_BYTES);
	if (ret < 0) {
		bpf_kbloom_release(f);
		r->c->drops++;
		r->err = ret;
		return 1;
	}
	r->hits += ret;
	f = bpf_kptr_xchg(&r->s->f, f);
	if (f)
		bpf_kbloom_release(f);
	return 0;
}

/* Per packet: the bloom map's peek, which takes no reference at all. */
static long hot_peek_one(__u32 i, void *arg)
{
	struct hot_run *r = arg;
	__u32 first = r->first;

	r->hits += peek_found(KEY(i));
	return 0;
}

static __always_inline int hot(void *one)
{
	struct kbb_cpu *c = this_cpu();
	struct hot_run r = { .c = c, .first = c->first, .id = g.filter_id };
	__u32 zero = 0;

	r.s = bpf_map_lookup_elem(&slots, &zero);
	if (!r.s)
		return done(c, 0, KBB_NO_FILTER);
	bpf_loop(KBB_RUN, one, &r, 0);
	c->acquires += r.acquires;
	return done(c, r.hits, r.err);
}

SEC("xdp")
int hot_acquire(struct xdp_md *ctx)
{
	return hot(hot_acquire_one);
}

SEC("xdp")
int hot_kptr(struct xdp_md *ctx)
{
	return hot(hot_kptr_one);
}

SEC("xdp")
int hot_peek(struct xdp_md *ctx)
{
	return hot(hot_peek_one);
}
