/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Floating-point models of a blocked Bloom filter with 512 cells per block
 * (one bit each) or 128 (4-bit counters, non-zero or not), written
 * independently of the core's integer code so the two can check each
 * other.  lambda is the mean number of keys per block (n / nblocks).  The
 * functions without _cells are those of the 512-cell bits type.
 */
#ifndef KBLOOM_HOST_MODEL_H
#define KBLOOM_HOST_MODEL_H

#define MODEL_CELLS_BITS	512
#define MODEL_CELLS_COUNTING	128

/*
 * Putze-Sanders-Singler (anchors section 1): (1 - (1 - 1/cells)^(k i))^k
 * over Poisson block loads.  Its probes are drawn with replacement, as the
 * core's are (a key's probes can repeat a cell), but it raises a block's
 * mean fill to the k-th power where the rate is the mean of the fill's
 * k-th power, so it is slightly optimistic (Jensen): at 10 bits per key,
 * k 6, 0.957 % against 0.966 % from model_fp_scheme() and 0.969 %
 * measured; for counters at 40 bits per key, 1.303 % against 1.347 % and
 * 1.33 to 1.35 % measured (test_fp prints all three for every budget).
 */
double model_fp_textbook(double lambda, unsigned int k);
double model_fp_textbook_cells(double lambda, unsigned int k,
			       unsigned int cells);

/*
 * The core's scheme, k independent uniform probes per key, by direct
 * computation: the distribution of a block's set cells after its i keys'
 * k * i draws (occupancy), the chance (x/cells)^k that a query's probes
 * all hit set cells, mixed over Poisson block loads.  Valid for lambda up
 * to MODEL_LAMBDA_MAX.
 */
#define MODEL_LAMBDA_MAX 600.0
double model_fp_scheme(double lambda, unsigned int k);
double model_fp_scheme_cells(double lambda, unsigned int k,
			     unsigned int cells);

/* The same quantity from the closed form kbloom_formula.c uses. */
double model_fp_closed(double lambda, unsigned int k);
double model_fp_closed_cells(double lambda, unsigned int k,
			     unsigned int cells);

/*
 * The fewest bits of memory per key any k (1..16) needs to reach rate p
 * under model_fp_scheme_cells() (a block is 512 bits whatever its cells);
 * *best_k gets that k.
 */
double model_min_bits_per_key(double p, unsigned int *best_k);
double model_min_bits_per_key_cells(double p, unsigned int cells,
				    unsigned int *best_k);

#endif /* KBLOOM_HOST_MODEL_H */
