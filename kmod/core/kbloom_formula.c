// SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later
/*
 * The false-positive rate of the core's scheme, in integer arithmetic.
 *
 * A key's k probes behave as k independent uniform cells of its block of c
 * cells (c = 512 bits, or 128 counters; kbloom_probe.h explains why that
 * holds), so a block holding i keys has had k * i uniform draws, and a
 * query whose probes cover S distinct cells is a false positive when all S
 * are among them.  By inclusion-exclusion over the query's cells, with one
 * key leaving j given cells all clear with probability (1 - j/c)^k, and
 * with Poisson block loads of mean lambda = n / nblocks (so E[q^load] =
 * exp(-lambda (1 - q))):
 *
 *	FP(lambda, k) = sum_{j=0..k} (-1)^j E[C(S, j)]
 *				* exp(-lambda * (1 - (1 - j/c)^k)).
 *
 * This is exactly E[(X/c)^k] for X the non-zero cells of the query's block,
 * the rate kbloom_get_stats() reports for the current cells.  A counter is
 * non-zero exactly when a bit in its place would be set (with only adds,
 * or deletes of keys that were added, since a counter at its maximum stays
 * non-zero), so one formula serves both types.  The textbook blocked
 * formula (Putze, Sanders, Singler; anchors section 1) replaces that by
 * (E[X]/c)^k and is a little optimistic.  The host tests check this
 * against measurement and against a floating-point occupancy computation.
 *
 * The alternating sum cancels terms up to C(16, 8) ~ 2^14 times larger than
 * the result, so every term is carried with 2^-48 absolute precision or
 * better: the result is good to well under 0.001 ppb.
 *
 * A window filter (KBLOOM_TYPE_WINDOW) keeps g generations in the planes
 * of one array: a key block of 512 cells, each cell a mask with one bit
 * per plane, so each generation is a 512-cell blocked filter of its own
 * over the same key blocks, and a query probes the same k cells in every
 * generation.  That sharing is why its rate is not 1 - (1 - p)^g of the
 * one-generation rate p: given the query's S distinct cells, the
 * generations hold independent Poisson loads of independent keys, so each
 * has all S cells set with chance
 *
 *	F(S) = sum_{j=0..S} (-1)^j C(S, j) exp(-lambda * (1 - (1 - j/512)^k))
 *
 * (the inclusion-exclusion above, for a given S), and
 *
 *	FP = sum_s P(S = s) * (1 - (1 - F(s))^live).
 *
 * 1 - (1 - x)^g is concave, so this is below 1 - (1 - p)^g (Jensen):
 * by 0.01 to 0.04 % of the rate at 1 % for 2 to 16 generations (the host
 * tests print it).  F(s) cancels as the sum above does (C(16, 8) at most),
 * and g of them add, so its exponents are carried to 2^-58, its terms to
 * 2^-48: within 0.01 ppb of the exact rate for up to 63 generations.
 */
#include "kbloom_formula.h"

#ifdef __KERNEL__
#include <linux/bits.h>
#include <linux/math64.h>
#include <linux/string.h>
#endif

#define FX62_ONE	BIT_ULL(62)
#define FX48_ONE	BIT_ULL(48)
/* ln 2 * 2^62, rounded. */
#define LN2_FX62	3196577161300663915ULL
/* exp(-44) * 2^62 < 0.5: the result rounds to 0 from here on. */
#define EXP_ZERO_FX48	(44ULL << 48)
#define EXP_ZERO_FX58	(44ULL << 58)
#define FX63_ONE	BIT_ULL(63)
/* Keys per block beyond which every k gives a rate of 1 at ppb precision. */
#define LAMBDA_SATURATED	BIT_ULL(14)

/*
 * exp(-x) for x >= 0 given with 58 fractional bits (below 2^64 by the
 * bound of 44); 62 fractional bits out.
 */
static u64 exp_neg_fx58(u64 x58)
{
	u64 halvings, r62, term, pos, neg, result;
	unsigned int m;

	if (x58 >= EXP_ZERO_FX58)
		return 0;
	/*
	 * x = halvings * ln 2 + r with 0 <= r < ln 2, so exp(-x) is
	 * 2^-halvings * exp(-r).  x * 2^62 does not fit in 64 bits but r * 2^62
	 * does, so the subtraction is exact modulo 2^64; the estimate of
	 * halvings may be one off, which the sign and size of r reveal.
	 */
	halvings = div64_u64(x58, LN2_FX62 >> 4);
	r62 = (x58 << 4) - halvings * LN2_FX62;
	if (r62 >> 63) {
		halvings--;
		r62 += LN2_FX62;
	} else if (r62 >= LN2_FX62) {
		halvings++;
		r62 -= LN2_FX62;
	}
	pos = FX62_ONE;
	neg = 0;
	term = FX62_ONE;
	for (m = 1; term; m++) {
		term = div_u64(mul_u64_u64_shr(term, r62, 62), m);
		if (m & 1)
			neg += term;
		else
			pos += term;
	}
	result = pos - neg;
	if (halvings)
		result = (result + (1ULL << (halvings - 1))) >> halvings;
	return result;
}

/*
 * The same for x with 48 fractional bits, the bits formula's: what it
 * computed before windows needed more, to the bit.
 */
static u64 exp_neg_fx(u64 x48)
{
	if (x48 >= EXP_ZERO_FX48)
		return 0;
	return exp_neg_fx58(x48 << 10);
}

/*
 * P(S = s), scaled by 2^62: distinct cells among k uniform draws of
 * 2^cells_order.
 */
static void distinct_cells_dist(u32 k, u32 cells_order, u64 *p62)
{
	u32 cells = 1U << cells_order, t, s;

	memset(p62, 0, sizeof(*p62) * (KBLOOM_K_MAX + 1));
	p62[0] = FX62_ONE;
	for (t = 0; t < k; t++) {
		/* draw t + 1 repeats one of s cells or finds a new one */
		for (s = t + 1; s > 0; s--)
			p62[s] = mul_u64_u64_shr(p62[s], s, cells_order) +
				 mul_u64_u64_shr(p62[s - 1], cells - (s - 1),
						 cells_order);
		p62[0] = 0;
	}
}

void kbloom_fp_model_init_cells(struct kbloom_fp_model *m, u32 k,
				u32 cells_order)
{
	u32 j, s, t;

	m->k = k;
	for (j = 0; j <= k; j++) {
		/* 1 - j/cells is exact at this scale */
		u64 cell_clear62 = FX62_ONE -
				   ((u64)j << (62 - cells_order));
		u64 clear62 = FX62_ONE;

		/* 1 - j/cells at 2^63, each product rounded: for miss64 */
		u64 cell_clear63 = FX63_ONE - ((u64)j << (63 - cells_order));
		u64 clear63 = FX63_ONE;

		for (t = 0; t < k; t++) {
			clear62 = mul_u64_u64_shr(clear62, cell_clear62, 62);
			/* j = 0 is 1 * 1: the one product that would overflow */
			if (j)
				clear63 = (mul_u64_u64_shr(clear63, cell_clear63,
							   62) + 1) >> 1;
		}
		m->miss62[j] = FX62_ONE - clear62;
		m->miss64[j] = (FX63_ONE - clear63) << 1;
		m->weight48[j] = 0;
	}
	distinct_cells_dist(k, cells_order, m->distinct62);
	for (s = 1; s <= k; s++) {
		u64 binom = 1;

		for (j = 0; j <= s; j++) {
			m->weight48[j] += mul_u64_u64_shr(m->distinct62[s],
							  binom, 14);
			binom = binom * (s - j) / (j + 1);
		}
	}
}

/*
 * The mean keys per block, n / nblocks, with 32 fractional bits; false when
 * it is so high (or there are no blocks) that every rate is 1.
 */
static bool lambda_fx32(u64 n, u64 nblocks, u64 *lambda32)
{
	u64 whole, rem;

	if (!nblocks)
		return false;
	whole = div64_u64(n, nblocks);
	if (whole >= LAMBDA_SATURATED)
		return false;
	rem = n - whole * nblocks;
	/* Only past KBLOOM_MAX_BLOCKS does the remainder need scaling down. */
	while (rem >> 32) {
		rem >>= 1;
		nblocks >>= 1;
	}
	*lambda32 = (whole << 32) + div64_u64(rem << 32, nblocks);
	return true;
}

/* exp(-lambda * miss(j)), 62 fractional bits: P(j given cells all clear). */
static u64 clear_fx62(const struct kbloom_fp_model *m, u64 lambda32, u32 j)
{
	return exp_neg_fx(mul_u64_u64_shr(lambda32, m->miss62[j], 46));
}

u64 kbloom_fp_model_ppb16(const struct kbloom_fp_model *m, u64 n,
			  u64 nblocks)
{
	u64 lambda32, pos, neg, fp48;
	u32 j, k = m->k;

	if (!lambda_fx32(n, nblocks, &lambda32))
		return KBLOOM_PPB16_ONE;

	pos = 0;
	neg = 0;
	for (j = 0; j <= k; j++) {
		u64 term48 = mul_u64_u64_shr(clear_fx62(m, lambda32, j),
					     m->weight48[j], 62);

		if (j & 1)
			neg += term48;
		else
			pos += term48;
	}
	fp48 = pos > neg ? pos - neg : 0;
	if (fp48 > FX48_ONE)
		fp48 = FX48_ONE;
	return mul_u64_u64_shr(fp48, KBLOOM_PPB16_ONE, 48);
}

u64 kbloom_fp_model_window_ppb16(const struct kbloom_fp_model *m, u64 n,
				 u64 keyblocks, u32 live)
{
	u64 lambda32, clear62[KBLOOM_K_MAX + 1], fp62 = 0;
	u32 j, s, t, k = m->k;

	if (!live)
		return 0;
	if (!lambda_fx32(n, keyblocks, &lambda32))
		return KBLOOM_PPB16_ONE;
	/*
	 * Each generation's F(s) cancels terms up to 2^13 times larger, and
	 * g of them add up: x = lambda * miss to 2^-48, as the bits formula
	 * has it, made its rate swing by half at 1 ppb with k = 16 and 48
	 * generations (tests/fuzz found it).  miss64, rounded, and x to
	 * 2^-58 keep each term to about 2^-56.
	 */
	for (j = 0; j <= k; j++) {
		u64 x48 = mul_u64_u64_shr(lambda32, m->miss62[j], 46);

		clear62[j] = x48 >= EXP_ZERO_FX48 ? 0 :
			     exp_neg_fx58(mul_u64_u64_shr(lambda32,
							  m->miss64[j], 38));
	}

	for (s = 1; s <= k; s++) {
		u64 binom = 1, pos = 0, neg = 0, all48, none62 = FX62_ONE, c62;

		if (!m->distinct62[s])
			continue;
		/*
		 * F(s) with 48 fractional bits: C(s, j) <= 2^14 times a
		 * 62-bit term, and the even terms sum below 2^15 * 2^48.
		 */
		for (j = 0; j <= s; j++) {
			u64 term48 = mul_u64_u64_shr(clear62[j], binom, 14);

			if (j & 1)
				neg += term48;
			else
				pos += term48;
			binom = binom * (s - j) / (j + 1);
		}
		all48 = pos > neg ? pos - neg : 0;
		if (all48 > FX48_ONE)
			all48 = FX48_ONE;
		/* (1 - F)^live: no generation has all s cells */
		c62 = FX62_ONE - (all48 << 14);
		for (t = 0; t < live; t++)
			none62 = mul_u64_u64_shr(none62, c62, 62);
		fp62 += mul_u64_u64_shr(m->distinct62[s], FX62_ONE - none62,
					62);
	}
	if (fp62 > FX62_ONE)
		fp62 = FX62_ONE;
	return mul_u64_u64_shr(fp62, KBLOOM_PPB16_ONE, 62);
}

void kbloom_fp_model_init(struct kbloom_fp_model *m, u32 k)
{
	kbloom_fp_model_init_cells(m, k, kbloom_cells_order(KBLOOM_TYPE_BITS));
}

/*
 * A window's rate depends on its generations and plane order, which this
 * does not take: for KBLOOM_TYPE_WINDOW it gives KBLOOM_PPB, as for any
 * type it cannot answer for, and kbloom_formula_fp_ppb_window() is the
 * window's.
 */
u32 kbloom_formula_fp_ppb_type(u32 type, u64 nblocks, u64 n, u32 k)
{
	struct kbloom_fp_model m;

	if (k < KBLOOM_K_MIN || k > KBLOOM_K_MAX ||
	    (type != KBLOOM_TYPE_BITS && type != KBLOOM_TYPE_COUNTING))
		return KBLOOM_PPB;
	kbloom_fp_model_init_cells(&m, k, kbloom_cells_order(type));
	return (u32)((kbloom_fp_model_ppb16(&m, n, nblocks) + 0x8000) >> 16);
}

u32 kbloom_formula_fp_ppb(u64 nblocks, u64 n, u32 k)
{
	return kbloom_formula_fp_ppb_type(KBLOOM_TYPE_BITS, nblocks, n, k);
}

/*
 * KBLOOM_PPB for k out of range, more planes than a 64-bit cell holds, or
 * more live generations than planes; 0 with none live.
 */
u32 kbloom_formula_fp_ppb_window(u64 nblocks, u32 plane_order, u64 n,
				 u32 k, u32 live)
{
	struct kbloom_fp_model m;

	if (k < KBLOOM_K_MIN || k > KBLOOM_K_MAX ||
	    plane_order > KBLOOM_WINDOW_PLANE_ORDER_MAX ||
	    live > (1U << plane_order))
		return KBLOOM_PPB;
	kbloom_fp_model_init(&m, k);
	return (u32)((kbloom_fp_model_window_ppb16(&m, n,
						   nblocks >> plane_order,
						   live) + 0x8000) >> 16);
}
