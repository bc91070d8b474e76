/* SPDX-License-Identifier: GPL-2.0 */
/* The memory limit: independent random 8-byte loads over a filter's array. */
#ifndef KBLOOM_BENCH_LIMIT_H
#define KBLOOM_BENCH_LIMIT_H

#include "bench.h"

u64 *limit_indices(u64 count, u64 nwords, u64 seed);
double limit_load(const u64 *words, const u64 *idx, u64 count);

#endif /* KBLOOM_BENCH_LIMIT_H */
