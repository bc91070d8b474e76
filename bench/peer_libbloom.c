// SPDX-License-Identifier: GPL-2.0
/*
 * libbloom sizes itself from (entries, error) with bits per key
 * -ln(error) / ln(2)^2, so asking for error = exp(-c * ln(2)^2) gives c bits
 * per key; it picks k = ceil(c * ln 2).  Its fields `bits` and `hashes` say
 * what it really chose, and those are what the report shows.
 */
#include <stdio.h>

#include "peer_libbloom.h"

int libbloom_peer_init(struct bloom *b, u64 n, u32 bits_per_key)
{
	double error = exp(-(double)bits_per_key * M_LN2 * M_LN2);

	/* libbloom keeps sizes in int: 100 M keys * 16 bits still fit. */
	if (n > (u64)INT32_MAX || (double)n * bits_per_key > INT32_MAX)
		return -E2BIG;
	if (bloom_init(b, (int)n, error))
		return -EINVAL;
	return 0;
}

double libbloom_peer_bits_per_key(const struct bloom *b, u64 n)
{
	return (double)b->bits / n;
}

double libbloom_peer_fp_theory(const struct bloom *b, u64 n)
{
	return fp_standard(b->bits, n, b->hashes);
}

double libbloom_peer_add(struct bloom *b, const struct key_set *ks, u64 n)
{
	u64 i, t0, t1, seen = 0;

	bloom_reset(b);
	t0 = bench_now_ns();
	for (i = 0; i < n; i++)
		seen += bloom_add(b, key_at(ks, i), (int)ks->kb);
	t1 = bench_now_ns();
	bench_keep(seen);
	return (double)(t1 - t0) / n;
}

double libbloom_peer_check(struct bloom *b, const struct query_set *qs)
{
	u64 i, t0, t1, hits = 0, q = qs->keys.n;

	t0 = bench_now_ns();
	for (i = 0; i < q; i++)
		hits += bloom_check(b, key_at(&qs->keys, i), (int)qs->keys.kb);
	t1 = bench_now_ns();
	bench_keep(hits);
	return (double)(t1 - t0) / q;
}

/* Returns the false negatives (must be 0: else we misuse the library). */
u64 libbloom_peer_answers(struct bloom *b, const struct query_set *qs,
			  struct answers *a)
{
	u64 i;

	memset(a, 0, sizeof(*a));
	for (i = 0; i < qs->keys.n; i++) {
		bool maybe = bloom_check(b, key_at(&qs->keys, i),
					 (int)qs->keys.kb) == 1;

		if (qs->present[i]) {
			a->false_negatives += !maybe;
		} else {
			a->absent++;
			a->false_positives += maybe;
		}
	}
	return a->false_negatives;
}
