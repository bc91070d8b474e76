/* SPDX-License-Identifier: GPL-2.0 */
/* Instructions per operation under callgrind: stable on a noisy machine. */
#ifndef KBLOOM_BENCH_CALLGRIND_H
#define KBLOOM_BENCH_CALLGRIND_H

#include "bench.h"

int callgrind_child(const char *workload, u64 n);
void callgrind_measure(const char *workdir, u64 n);

#endif /* KBLOOM_BENCH_CALLGRIND_H */
