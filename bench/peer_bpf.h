/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel's BPF bloom filter map, one bpf(2) call per key. */
#ifndef KBLOOM_BENCH_PEER_BPF_H
#define KBLOOM_BENCH_PEER_BPF_H

#include "bench.h"
#include "bpf_bloom.h"

struct bpf_peer {
	int fd;
	struct bpf_bloom_shape shape;
	u64 n;			/* keys the map is sized for */
	u64 filled;		/* keys [0, filled) have been added */
	bool sample_added;	/* the present keys of the timed sample are in */
};

int bpf_peer_init(struct bpf_peer *p, u64 n, u32 key_bytes,
		  u32 bits_per_key);
void bpf_peer_free(struct bpf_peer *p);
double bpf_peer_bits_per_key(const struct bpf_peer *p);
double bpf_peer_fp_theory(const struct bpf_peer *p);
int bpf_peer_fill(struct bpf_peer *p, const struct key_set *ks,
		  const struct query_set *qs, u64 sample, double budget_s);
double bpf_peer_add(struct bpf_peer *p, const struct key_set *ks, u64 sample);
double bpf_peer_check(struct bpf_peer *p, const struct query_set *qs,
		      u64 sample);
int bpf_peer_answers(struct bpf_peer *p, const struct query_set *qs,
		     u64 sample, struct answers *a);

#endif /* KBLOOM_BENCH_PEER_BPF_H */
