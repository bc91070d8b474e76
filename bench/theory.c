// SPDX-License-Identifier: GPL-2.0
/*
 * The false-positive rates each measurement is judged against.  kbloom's
 * comes from the core itself (kbloom_formula_fp_ppb: the blocked-512
 * formula of anchors §1 for the probe scheme the core really uses); the
 * unblocked peers get the textbook formula for their actual bits and k.
 */
#include "bench.h"

double fp_standard(double bits, double n, u32 k)
{
	return pow(1.0 - exp(-(double)k * n / bits), k);
}

double fp_blocked_core(u64 nblocks, u64 n, u32 k)
{
	return kbloom_formula_fp_ppb(nblocks, n, k) / 1e9;
}
