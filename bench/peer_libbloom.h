/* SPDX-License-Identifier: GPL-2.0 */
/* libbloom (Debian libbloom-dev): a standard, unblocked Bloom filter. */
#ifndef KBLOOM_BENCH_PEER_LIBBLOOM_H
#define KBLOOM_BENCH_PEER_LIBBLOOM_H

#include <bloom.h>

#include "bench.h"

int libbloom_peer_init(struct bloom *b, u64 n, u32 bits_per_key);
double libbloom_peer_bits_per_key(const struct bloom *b, u64 n);
double libbloom_peer_fp_theory(const struct bloom *b, u64 n);
double libbloom_peer_add(struct bloom *b, const struct key_set *ks, u64 n);
double libbloom_peer_check(struct bloom *b, const struct query_set *qs);
u64 libbloom_peer_answers(struct bloom *b, const struct query_set *qs,
			  struct answers *a);

#endif /* KBLOOM_BENCH_PEER_LIBBLOOM_H */
