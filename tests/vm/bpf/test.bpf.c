// SPDX-License-Identifier: GPL-2.0
/*
 * The programs tests/vm/test-bpf.c runs with BPF_PROG_TEST_RUN: XDP and tc
 * programs that judge a packet by its IPv6 source address in a kbloom
 * filter, tc programs that add it (tc_learn_var_len for tests/vm/torture.c),
 * a SYSCALL program that adds keys from its globals, and a tracing program
 * that checks (which must load: the module registers check, not add, for
 * tracing).  The layout and the verdicts are in test_shared.h.
 */
#include <stdbool.h>
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "kbloom_kfuncs.h"
#include "test_shared.h"

#define ENODEV 19

char _license[] SEC("license") = "GPL";

struct kbt_globals g;

static __always_inline void count_error(int ret)
{
	__sync_fetch_and_add(&g.errors, 1);
	if (ret == -ENODEV)
		__sync_fetch_and_add(&g.enodev, 1);
	g.last_error = ret;
}

/*
 * The answer of a check of the key at data + KBT_PKT_KEY_OFF in the filter
 * of g.filter_id (by_name: of g.filter_name), or 2 for a packet too short
 * to hold a key, or -1 for no such filter or an error.  data and data_end
 * are the context's (XDP's and tc's alike); len is a constant or a
 * register bounded to 1..KBT_KEY_BYTES.
 */
static __always_inline int judge(__u32 data_off, __u32 end_off, __u32 len,
				 bool by_name)
{
	void *data = (void *)(long)data_off;
	void *data_end = (void *)(long)end_off;
	__u8 *key = data + KBT_PKT_KEY_OFF;
	struct kbloom_filter *f;
	int ret;

	if ((void *)(key + KBT_KEY_BYTES) > data_end)
		return 2;
	if (by_name)
		f = bpf_kbloom_acquire_name(g.filter_name,
					    sizeof(g.filter_name));
	else
		f = bpf_kbloom_acquire(g.filter_id);
	if (!f) {
		__sync_fetch_and_add(&g.nulls, 1);
		return -1;
	}
	__sync_fetch_and_add(&g.checks, 1);
	ret = bpf_kbloom_check(f, key, len);
	bpf_kbloom_release(f);
	if (ret < 0) {
		count_error(ret);
		return -1;
	}
	return ret;
}

/*
 * The key of an skb's packet in *key and a reference to the filter of
 * g.filter_id; NULL when the packet is too short to hold a key (*verdict
 * TC_ACT_OK) or there is no such filter (counted; TC_ACT_UNSPEC).
 */
static __always_inline struct kbloom_filter *
tc_acquire(struct __sk_buff *skb, __u8 **key, int *verdict)
{
	void *data_end = (void *)(long)skb->data_end;
	struct kbloom_filter *f;

	*key = (void *)(long)skb->data + KBT_PKT_KEY_OFF;
	*verdict = TC_ACT_OK;
	if ((void *)(*key + KBT_KEY_BYTES) > data_end)
		return NULL;
	f = bpf_kbloom_acquire(g.filter_id);
	if (!f) {
		__sync_fetch_and_add(&g.nulls, 1);
		*verdict = TC_ACT_UNSPEC;
	}
	return f;
}

static __always_inline int xdp_verdict(int answer)
{
	return answer == 1 ? XDP_DROP : answer == 0 || answer == 2 ? XDP_PASS
								  : XDP_ABORTED;
}

static __always_inline int tc_verdict(int answer)
{
	return answer == 1 ? TC_ACT_SHOT : answer == 0 || answer == 2 ?
	       TC_ACT_OK : TC_ACT_UNSPEC;
}

SEC("xdp")
int xdp_by_id(struct xdp_md *ctx)
{
	return xdp_verdict(judge(ctx->data, ctx->data_end, KBT_KEY_BYTES, false));
}

SEC("xdp")
int xdp_by_name(struct xdp_md *ctx)
{
	return xdp_verdict(judge(ctx->data, ctx->data_end, KBT_KEY_BYTES, true));
}

/* The first key_len bytes of the address: a size known only at run time. */
SEC("xdp")
int xdp_var_len(struct xdp_md *ctx)
{
	__u32 len = g.key_len;

	if (len < 1 || len > KBT_KEY_BYTES)
		return XDP_ABORTED;
	return xdp_verdict(judge(ctx->data, ctx->data_end, len, false));
}

/*
 * KBT_HOLD_CHECKS checks of the packet's key on one reference, so that a
 * destroy is likely to land while the program holds the filter: the
 * checks after it get -ENODEV (once destroyed, always).  The verdict and
 * the error counted are the last check's; the loop has no branch, so the
 * verifier walks it once per iteration.  tc, not XDP: an XDP test_run of
 * more than one repeat swaps the XDP dispatcher's program twice, which
 * waits for RCU and so takes most of the time of a short run.
 */
SEC("tc")
int tc_hold(struct __sk_buff *skb)
{
	struct kbloom_filter *f;
	int i, ret = 0;
	__u8 *key;

	f = tc_acquire(skb, &key, &ret);
	if (!f)
		return ret;
	ret = 0;
	g.holding = 1;
	for (i = 0; i < KBT_HOLD_CHECKS; i++)
		ret = bpf_kbloom_check(f, key, KBT_KEY_BYTES);
	g.holding = 0;
	bpf_kbloom_release(f);
	__sync_fetch_and_add(&g.checks, KBT_HOLD_CHECKS);
	if (ret < 0) {
		count_error(ret);
		return TC_ACT_UNSPEC;
	}
	return tc_verdict(ret);
}

SEC("tc")
int tc_by_id(struct __sk_buff *skb)
{
	return tc_verdict(judge(skb->data, skb->data_end, KBT_KEY_BYTES, false));
}

/* Adds the packet's key: OK when added, UNSPEC on no filter or an error. */
SEC("tc")
int tc_learn(struct __sk_buff *skb)
{
	struct kbloom_filter *f;
	__u8 *key;
	int ret;

	f = tc_acquire(skb, &key, &ret);
	if (!f)
		return ret;
	ret = bpf_kbloom_add(f, key, KBT_KEY_BYTES);
	bpf_kbloom_release(f);
	if (ret < 0) {
		count_error(ret);
		return TC_ACT_UNSPEC;
	}
	if (ret)
		__sync_fetch_and_add(&g.added_new, 1);
	return TC_ACT_OK;
}

/*
 * tc_learn of the first g.key_len bytes of the address, so that a key
 * written by a program is the same key "TAG-i" as the ioctl writers' and
 * the companion's (torture.c's BPF writer): OK when added, UNSPEC on no
 * filter or an error (g.last_error: -EAGAIN while a scalable filter
 * waits for its growth, for the caller to send the packet again).
 */
SEC("tc")
int tc_learn_var_len(struct __sk_buff *skb)
{
	struct kbloom_filter *f;
	__u32 len = g.key_len;
	__u8 *key;
	int ret;

	if (len < 1 || len > KBT_KEY_BYTES)
		return TC_ACT_UNSPEC;
	f = tc_acquire(skb, &key, &ret);
	if (!f)
		return ret;
	ret = bpf_kbloom_add(f, key, len);
	bpf_kbloom_release(f);
	if (ret < 0) {
		count_error(ret);
		return TC_ACT_UNSPEC;
	}
	if (ret)
		__sync_fetch_and_add(&g.added_new, 1);
	return TC_ACT_OK;
}

/* Adds g.add_keys[0, n) to filter ctx->id; g.add_ret[i] is each answer. */
SEC("syscall")
int syscall_add(struct kbt_add_ctx *ctx)
{
	struct kbloom_filter *f;
	__u32 i, n = ctx->n;

	ctx->new_bits = 0;
	ctx->error = 0;
	f = bpf_kbloom_acquire(ctx->id);
	if (!f)
		return -1;
	for (i = 0; i < KBT_ADD_MAX && i < n; i++) {
		int ret = bpf_kbloom_add(f, g.add_keys[i], KBT_KEY_BYTES);

		g.add_ret[i] = ret;
		if (ret > 0)
			ctx->new_bits++;
		if (ret < 0 && !ctx->error)
			ctx->error = ret;
	}
	bpf_kbloom_release(f);
	return 0;
}

/*
 * Loaded, never attached: proves a tracing program may acquire, check and
 * release, so that reject.bpf.c's tracing add fails for the add alone.
 * fentry programs must return 0.
 */
SEC("?fentry/bpf_fentry_test1")
int BPF_PROG(trace_check, int a)
{
	struct kbloom_filter *f = bpf_kbloom_acquire(g.filter_id);

	if (!f)
		return 0;
	g.last_error = bpf_kbloom_check(f, &a, sizeof(a));
	bpf_kbloom_release(f);
	return 0;
}
