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

#define KEY(i)	g.keys[(first + (i)) & (KBB_KEYS - 1)]

SEC("xdp")
int check_kfunc(struct xdp_md *ctx)
{
	__u32 i, first = g.first, hits = 0;
	struct kbloom_filter *f;
	int err = 0;

	f = bpf_kbloom_acquire(g.filter_id);
	if (!f) {
		g.error = -1;
		return XDP_PASS;
	}
	for (i = 0; i < KBB_RUN; i++) {
		int ret = bpf_kbloom_check(f, KEY(i), KBT_KEY_BYTES);

		/* 1 or 0; an error (negative) shows in err. */
		hits += ret;
		err |= ret;
	}
	bpf_kbloom_release(f);
	g.hits = hits;
	g.error = err < 0 ? err : 0;
	return XDP_PASS;
}

SEC("xdp")
int check_map(struct xdp_md *ctx)
{
	__u32 i, first = g.first, hits = 0;

	for (i = 0; i < KBB_RUN; i++) {
		/*
		 * 0: may be present, -ENOENT: absent.  An int: the verifier
		 * makes this a direct call of the map's peek, whose upper 32
		 * bits of the return are not sign-extended (as a long, every
		 * absent key read as present here).
		 */
		int ret = bpf_map_peek_elem(&bloom, KEY(i));

		hits += 1 + (ret >> 31);
	}
	g.hits = hits;
	g.error = 0;
	return XDP_PASS;
}

/* The same loop and loads with no check: what the two above share. */
SEC("xdp")
int check_none(struct xdp_md *ctx)
{
	__u32 i, first = g.first, hits = 0;

	for (i = 0; i < KBB_RUN; i++)
		hits += KEY(i)[0] & 1;
	g.hits = hits;
	g.error = 0;
	return XDP_PASS;
}

SEC("xdp")
int fill_map(struct xdp_md *ctx)
{
	__u32 i, first = g.first;
	int err = 0;

	for (i = 0; i < KBB_RUN; i++)
		err |= bpf_map_push_elem(&bloom, KEY(i), BPF_ANY);
	g.hits = 0;
	g.error = err;
	return XDP_PASS;
}
