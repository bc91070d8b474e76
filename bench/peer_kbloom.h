/* SPDX-License-Identifier: GPL-2.0 */
/* kbloom's filter core, driven the way the benchmark times every peer. */
#ifndef KBLOOM_BENCH_PEER_KBLOOM_H
#define KBLOOM_BENCH_PEER_KBLOOM_H

#include "bench.h"

int kbloom_peer_init(struct kbloom_filter *f, u64 n, u32 bits_per_key,
		     u64 seed);
double kbloom_peer_bits_per_key(const struct kbloom_filter *f, u64 n);
double kbloom_peer_fp_theory(const struct kbloom_filter *f, u64 n);
double kbloom_peer_add_keys(struct kbloom_filter *f, const struct key_set *ks,
			    u64 first, u64 n);
double kbloom_peer_add(struct kbloom_filter *f, const struct key_set *ks,
		       u64 n);
double kbloom_peer_add_batch(struct kbloom_filter *f,
			     const struct kbloom_key *kv, u64 n);
void kbloom_peer_copy(struct kbloom_filter *dst,
		      const struct kbloom_filter *src);
u64 kbloom_peer_digest(const struct kbloom_filter *f);
double kbloom_peer_check(struct kbloom_filter *f, const struct query_set *qs);
double kbloom_peer_check_batch(struct kbloom_filter *f,
			       const struct query_set *qs, u32 batch);
u64 kbloom_peer_missing(struct kbloom_filter *f, const struct key_set *ks,
			u64 n);
u64 kbloom_peer_answers(struct kbloom_filter *f, const struct query_set *qs,
			struct answers *single, struct answers *batched);

#endif /* KBLOOM_BENCH_PEER_KBLOOM_H */
