// SPDX-License-Identifier: GPL-2.0
/*
 * One program for each type kmod/kbloom_bpf.c registers kfuncs for beyond
 * those test.bpf.c covers: each acquires the filter of g.filter_id, checks
 * g.key, adds g.add_key where the type has the write set, and releases.
 * None loads by default ("?"): on a kernel without a type's kfunc hook
 * the verifier must refuse it, so test-bpf loads them one at a time.  The
 * netfilter program's section is a stand-in (libbpf 1.1 has none for
 * netfilter): test-bpf sets its type before the load.
 */
#include <stdbool.h>
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

#include "kbloom_kfuncs.h"
#include "test_shared.h"

char _license[] SEC("license") = "GPL";

struct kbt_types_globals g;

static __always_inline void probe(bool add)
{
	struct kbloom_filter *f = bpf_kbloom_acquire(g.filter_id);

	if (!f) {
		__sync_fetch_and_add(&g.nulls, 1);
		return;
	}
	g.check = bpf_kbloom_check(f, g.key, KBT_KEY_BYTES);
	if (add)
		g.add = bpf_kbloom_add(f, g.add_key, KBT_KEY_BYTES);
	bpf_kbloom_release(f);
	__sync_fetch_and_add(&g.runs, 1);
}

/* A program of section sec that probes, then returns ret. */
#define KBT_TYPE_PROG(name, sec, add, ret)				\
	SEC("?" sec)							\
	int name(void *ctx)						\
	{								\
		probe(add);						\
		return ret;						\
	}

/* cgroup_skb may return only 0 (drop) or 1 (pass). */
KBT_TYPE_PROG(cgroup_skb_probe, "cgroup_skb/ingress", true, 1)
KBT_TYPE_PROG(sched_act_probe, "action", true, TC_ACT_OK)
KBT_TYPE_PROG(sk_skb_probe, "sk_skb", true, SK_PASS)
KBT_TYPE_PROG(socket_probe, "socket", true, 0)
KBT_TYPE_PROG(lwt_in_probe, "lwt_in", true, BPF_OK)
/* NF_ACCEPT; loaded as BPF_PROG_TYPE_NETFILTER */
KBT_TYPE_PROG(netfilter_probe, "socket", true, 1)
/* kprobes have the read set: the first loads where kprobes have kfuncs. */
KBT_TYPE_PROG(kprobe_probe, "kprobe/bpf_fentry_test1", false, 0)
KBT_TYPE_PROG(kprobe_add, "kprobe/bpf_fentry_test1", true, 0)
