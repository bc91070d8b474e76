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

/*
 * The same for a filter of exactly n keys in a given number of blocks:
 * its loads binomial, not Poisson.  A filter of a few blocks (a chain's
 * small first sub-filters) has loads that vary less than Poisson's, and a
 * lower rate: 0.744 % measured against 0.853 % by Poisson loads for a
 * chain of 993 sub-filters of 200 keys each (test_chain).
 */
double model_fp_scheme_blocks(double n, double blocks, unsigned int k,
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

/*
 * Window filters (KBLOOM_TYPE_WINDOW): live generations of 512-cell key
 * blocks, each with Poisson(lambda) keys, a query probing the same k cells
 * in all of them.  model_fp_window() by occupancy: a block's set cells
 * after its keys' draws are a uniform subset of their number x, so the
 * query's s distinct cells are all set with chance C(x, s) / C(512, s);
 * mixed over loads that is F(s), and the window answers "maybe" with
 * chance 1 - (1 - F(s))^live.  model_fp_window_closed() is the closed form
 * kbloom_formula.c uses (inclusion-exclusion per s), in long double.
 * model_fp_window_independent() is 1 - (1 - p)^live of one generation's p,
 * what treating the generations' answers as independent would say.
 */
double model_fp_window(double lambda, unsigned int k, unsigned int live);
double model_fp_window_closed(double lambda, unsigned int k,
			      unsigned int live);
double model_fp_window_independent(double lambda, unsigned int k,
				   unsigned int live);

/*
 * The fewest bytes of memory per key of the window (its g - 1 full
 * generations) any k needs so that g live generations, each holding a
 * g - 1'th of them, answer at rate p: key blocks of P = 2^plane_order
 * lines (P the least power of two above g).  *best_k gets that k.
 */
double model_window_bytes_per_key(double p, unsigned int g,
				  unsigned int *best_k);
unsigned int model_window_planes(unsigned int g);

#endif /* KBLOOM_HOST_MODEL_H */
