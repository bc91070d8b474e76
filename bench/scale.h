/* SPDX-License-Identifier: GPL-2.0 */
/* Scalable filters in the host benchmark (scale.c). */
#ifndef KBLOOM_BENCH_SCALE_H
#define KBLOOM_BENCH_SCALE_H

#include "bench.h"

/* Bytes per key at 10x and 100x: ours, sized right, RedisBloom's. */
void scale_memory_table(void);
/* Check times of a chain grown to growth times first, beside one filter. */
void scale_run(u64 first, u32 growth, int repeats);

#endif /* KBLOOM_BENCH_SCALE_H */
