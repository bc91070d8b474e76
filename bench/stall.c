// SPDX-License-Identifier: GPL-2.0
/*
 * What misses to memory cost a core beyond the wait for their data:
 * `make -C bench stall`.  One loop, run twice per repeat: per key, a fixed
 * computation much like a check's probes (12 multiply steps, each reading
 * a word of one 64-byte block that stays in L1, and the address of a
 * random line of an array the size of a 100 M-key filter), and in the
 * second run also a prefetch of that line, 32 keys ahead as the core's
 * batches do.  The line prefetched is never read, so nothing waits for it:
 * if the machine overlapped its misses with computation, both runs would
 * take the same time.  What the second costs more is what each key of a
 * batched check out of cache pays on top of its computation however well
 * its prefetches are placed (bench/README.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define STALL_AHEAD	32
#define STALL_STEPS	12
#define STALL_KEYS	10000000ULL
#define STALL_REPEATS	5
/* 10 bits per key for 100 M keys, in 64-byte lines. */
#define STALL_LINES	(100000000ULL * 10 / 512)

static double stall_run(const u64 *lines, const u64 *block, bool prefetch)
{
	const u64 *ahead[STALL_AHEAD];
	u64 i, t0, sum = 0, keys = 1, where = 2;
	u32 j;

	/*
	 * Both runs draw the same keys and compute the same lines; only the
	 * prefetch instruction differs.
	 */
	for (i = 0; i < STALL_AHEAD; i++)
		ahead[i] = lines + (bench_rand64(&where) % STALL_LINES) * 8;
	t0 = bench_now_ns();
	for (i = 0; i < STALL_KEYS; i++) {
		const u64 **slot = &ahead[i % STALL_AHEAD];
		u64 x = bench_rand64(&keys), all = 1;

		if (prefetch)
			__builtin_prefetch(*slot);
		*slot = lines + (bench_rand64(&where) % STALL_LINES) * 8;
		for (j = 0; j < STALL_STEPS; j++) {
			x = x * 0x9e3779b97f4a7c15ULL + j;
			all &= block[x >> 61] >> (x >> 58);
		}
		sum += all;
	}
	bench_keep(sum);
	return (double)(bench_now_ns() - t0) / STALL_KEYS;
}

int main(void)
{
	double alone[STALL_REPEATS], with[STALL_REPEATS], ratio[STALL_REPEATS];
	u64 block[8] __attribute__((aligned(64))); /* one line */
	u64 *lines = malloc(STALL_LINES * 64);
	int r;

	if (!lines) {
		fprintf(stderr, "stall: out of memory for %llu MiB\n",
			STALL_LINES * 64 >> 20);
		return 2;
	}
	/* Faulted in, so the runs time misses and not page faults. */
	memset(lines, 0x5a, STALL_LINES * 64);
	memset(block, 0xff, sizeof(block));
	for (r = 0; r < STALL_REPEATS; r++) {
		alone[r] = stall_run(lines, block, false);
		with[r] = stall_run(lines, block, true);
		ratio[r] = with[r] / alone[r];
	}
	printf("%-44s%6.2f ns per key\n", "computation alone:",
	       median(alone, STALL_REPEATS));
	printf("with a prefetch per key of a %llu MiB array: %6.2f ns per key\n",
	       STALL_LINES * 64 >> 20, median(with, STALL_REPEATS));
	printf("ratio %.2f (medians of %d interleaved repeats; the lines"
	       " prefetched are never read)\n", median(ratio, STALL_REPEATS),
	       STALL_REPEATS);
	free(lines);
	return 0;
}
