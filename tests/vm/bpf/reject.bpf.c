// SPDX-License-Identifier: GPL-2.0
/*
 * Programs the verifier must refuse, one mistake each; test-bpf loads them
 * one at a time (the "?" sections are not loaded by default) and matches
 * the verifier log against the reason.  Each is the smallest change from
 * a program of test.bpf.c that loads.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "kbloom_kfuncs.h"
#include "test_shared.h"

char _license[] SEC("license") = "GPL";

struct kbt_reject_globals g;

/*
 * A slot for a kept reference, as bench.bpf.c's: test-bpf makes the map
 * with kb_slot_map() (loader.h), whose BTF tags f as a referenced kptr.
 */
struct kbr_slot {
	__u64 f;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct kbr_slot);
	__uint(max_entries, 1);
} slots SEC(".maps");

/* A key size read from a global: nothing bounds it. */
SEC("?xdp")
int size_unbounded(struct xdp_md *ctx)
{
	__u8 key[KBT_KEY_BYTES] = {};
	struct kbloom_filter *f;
	int ret;

	f = bpf_kbloom_acquire(g.filter_id);
	if (!f)
		return XDP_ABORTED;
	ret = bpf_kbloom_check(f, key, g.len);
	bpf_kbloom_release(f);
	return ret == 1 ? XDP_DROP : XDP_PASS;
}

/* The key in the packet, with no test against data_end. */
SEC("?xdp")
int key_unchecked(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	struct kbloom_filter *f;
	int ret;

	f = bpf_kbloom_acquire(g.filter_id);
	if (!f)
		return XDP_ABORTED;
	ret = bpf_kbloom_check(f, data + KBT_PKT_KEY_OFF, KBT_KEY_BYTES);
	bpf_kbloom_release(f);
	return ret == 1 ? XDP_DROP : XDP_PASS;
}

/* The reference is never released on the path that finds the key. */
SEC("?xdp")
int leak(struct xdp_md *ctx)
{
	__u8 key[KBT_KEY_BYTES] = {};
	struct kbloom_filter *f;

	f = bpf_kbloom_acquire(g.filter_id);
	if (!f)
		return XDP_ABORTED;
	if (bpf_kbloom_check(f, key, sizeof(key)) == 1)
		return XDP_DROP;
	bpf_kbloom_release(f);
	return XDP_PASS;
}

/* A check through the pointer after its release. */
SEC("?xdp")
int use_after_release(struct xdp_md *ctx)
{
	__u8 key[KBT_KEY_BYTES] = {};
	struct kbloom_filter *f;

	f = bpf_kbloom_acquire(g.filter_id);
	if (!f)
		return XDP_ABORTED;
	bpf_kbloom_release(f);
	return bpf_kbloom_check(f, key, sizeof(key)) == 1 ? XDP_DROP
							    : XDP_PASS;
}

/* acquire may return NULL; this passes it on unchecked. */
SEC("?xdp")
int null_unchecked(struct xdp_md *ctx)
{
	__u8 key[KBT_KEY_BYTES] = {};
	struct kbloom_filter *f;
	int ret;

	f = bpf_kbloom_acquire(g.filter_id);
	ret = bpf_kbloom_check(f, key, sizeof(key));
	if (f)
		bpf_kbloom_release(f);
	return ret == 1 ? XDP_DROP : XDP_PASS;
}

/*
 * A reference taken out of its slot is neither put back nor released on
 * the path that checks (bench.bpf.c's hot_kptr puts it back).
 */
SEC("?xdp")
int kptr_leak(struct xdp_md *ctx)
{
	__u8 key[KBT_KEY_BYTES] = {};
	struct kbloom_filter *f;
	struct kbr_slot *s;
	__u32 zero = 0;

	s = bpf_map_lookup_elem(&slots, &zero);
	if (!s)
		return XDP_ABORTED;
	f = bpf_kptr_xchg(&s->f, NULL);
	if (!f)
		return XDP_PASS;
	return bpf_kbloom_check(f, key, sizeof(key)) == 1 ? XDP_DROP
							    : XDP_PASS;
}

/*
 * A check through the pointer after it went back into the slot: the map
 * owns that reference now, and another packet may take and drop it.
 */
SEC("?xdp")
int kptr_use_after_put(struct xdp_md *ctx)
{
	__u8 key[KBT_KEY_BYTES] = {};
	struct kbloom_filter *f, *old;
	struct kbr_slot *s;
	__u32 zero = 0;

	s = bpf_map_lookup_elem(&slots, &zero);
	if (!s)
		return XDP_ABORTED;
	f = bpf_kbloom_acquire(g.filter_id);
	if (!f)
		return XDP_ABORTED;
	old = bpf_kptr_xchg(&s->f, f);
	if (old)
		bpf_kbloom_release(old);
	return bpf_kbloom_check(f, key, sizeof(key)) == 1 ? XDP_DROP
							    : XDP_PASS;
}

/* add is not registered for tracing (test.bpf.c's trace_check loads). */
SEC("?fentry/bpf_fentry_test1")
int BPF_PROG(trace_add, int a)
{
	struct kbloom_filter *f = bpf_kbloom_acquire(g.filter_id);

	if (!f)
		return 0;
	g.len = bpf_kbloom_add(f, &a, sizeof(a));
	bpf_kbloom_release(f);
	return 0;
}
