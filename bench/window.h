/* SPDX-License-Identifier: GPL-2.0 */
/* Window filters in the host benchmark (window.c). */
#ifndef KBLOOM_BENCH_WINDOW_H
#define KBLOOM_BENCH_WINDOW_H

#include "bench.h"

/* Bytes per window key: ours by g and rate, APBF's, Bitcoin's. */
void window_memory_table(void);
/* Speed at n window keys, g = 8, beside a bits filter of the same keys. */
void window_run(u64 n, int repeats, bool quick);
/* The summary of every window_run(), with its ratios. */
void window_report(void);

#endif /* KBLOOM_BENCH_WINDOW_H */
