// SPDX-License-Identifier: GPL-2.0
/*
 * What no filter touching one cache line per key can beat: one random load
 * per key.  The loads go to the filter's own word array (the same pages,
 * page size and alignment the core allocated, already faulted in), at
 * random indices computed beforehand; they are independent, so the CPU
 * overlaps their misses just as a batched check overlaps its block loads.
 */
#include <stdio.h>
#include <stdlib.h>

#include "limit.h"

u64 *limit_indices(u64 count, u64 nwords, u64 seed)
{
	u64 *idx = malloc(count * sizeof(*idx)), i, state = seed;

	if (!idx) {
		fprintf(stderr, "bench: out of memory for load indices\n");
		exit(2);
	}
	for (i = 0; i < count; i++)
		idx[i] = bench_rand64(&state) % nwords;
	return idx;
}

double limit_load(const u64 *words, const u64 *idx, u64 count)
{
	u64 i, t0, t1, sum0 = 0, sum1 = 0;

	t0 = bench_now_ns();
	/* Two sums so even the adds do not form one long chain. */
	for (i = 0; i + 1 < count; i += 2) {
		sum0 += words[idx[i]];
		sum1 += words[idx[i + 1]];
	}
	if (i < count)
		sum0 += words[idx[i]];
	t1 = bench_now_ns();
	bench_keep(sum0 + sum1);
	return (double)(t1 - t0) / count;
}
