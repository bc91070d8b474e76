/* SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later */
/*
 * The false-positive model of the core's probing scheme, in fixed point, so
 * the kernel can size filters and report design rates without an FPU.
 * Private to the core; the public entry points are kbloom_formula_fp_ppb()
 * and kbloom_formula_fp_ppb_window().
 */
#ifndef KBLOOM_FORMULA_H
#define KBLOOM_FORMULA_H

#include "kbloom_core.h"

/* Fixed-point ppb with 16 fractional bits: fine enough to size at 1 ppb. */
#define KBLOOM_PPB16_ONE	((u64)KBLOOM_PPB << 16)

struct kbloom_fp_model {
	u32 k;
	/*
	 * miss62[j]: chance, scaled by 2^62, that one key's k probes hit at
	 * least one of j given cells of its block.
	 */
	u64 miss62[KBLOOM_K_MAX + 1];
	/* the same scaled by 2^64, each product rounded: windows' (.c) */
	u64 miss64[KBLOOM_K_MAX + 1];
	/*
	 * weight48[j]: E[C(S, j)], scaled by 2^48, where S is the number of
	 * distinct cells among a query's k probes.
	 */
	u64 weight48[KBLOOM_K_MAX + 1];
	/* distinct62[s]: P(S = s), scaled by 2^62 */
	u64 distinct62[KBLOOM_K_MAX + 1];
};

/*
 * Sizing for a target rate designs for 1/128 more keys than asked (each
 * generation's, for a window); kbloom_geometry.c says why.  A window's
 * statistics call a generation over its share past that slack.
 */
#define KBLOOM_SIZING_SLACK		128

/* A window's cells hold at most 64 planes, 2^6. */
#define KBLOOM_WINDOW_PLANE_ORDER_MAX	6

/* For blocks of 2^cells_order cells; kbloom_fp_model_init() for 512. */
void kbloom_fp_model_init_cells(struct kbloom_fp_model *m, u32 k,
				u32 cells_order);
void kbloom_fp_model_init(struct kbloom_fp_model *m, u32 k);
u64 kbloom_fp_model_ppb16(const struct kbloom_fp_model *m, u64 n,
			  u64 nblocks);
/*
 * The rate of a window whose live generations (0 .. 64) each hold n keys
 * over keyblocks key blocks of 512 cells, m made for 512 cells
 * (kbloom_fp_model_init()); kbloom_formula.c derives it.
 */
u64 kbloom_fp_model_window_ppb16(const struct kbloom_fp_model *m, u64 n,
				 u64 keyblocks, u32 live);

/*
 * kbloom_geometry_from_rate_gen() for a target in ppb with 16 fractional
 * bits (1 .. KBLOOM_PPB16_ONE - 1): the same errors, and fp_target_ppb
 * gets the target rounded up to whole ppb.
 */
int kbloom_geometry_from_rate_ppb16(struct kbloom_geometry *geo, u32 type,
				    u32 generations, u64 capacity,
				    u64 target_ppb16);

#endif /* KBLOOM_FORMULA_H */
