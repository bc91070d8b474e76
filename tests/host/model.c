// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <stdlib.h>
#include "model.h"

#define BLOCK_BITS	512
#define K_MAX	16
#define LOADS	1150	/* MODEL_LAMBDA_MAX + 20 sqrt(MODEL_LAMBDA_MAX) + 50 */

/* Caches per cell count: [0] for 512 cells, [1] for 128. */
static unsigned int cache_slot(unsigned int cells)
{
	return cells == MODEL_CELLS_COUNTING;
}

/* all_set[slot][k][i]: E[(X/cells)^k] for a block holding i keys. */
static double *all_set[2][K_MAX + 1];

static void build_occupancy(unsigned int k, unsigned int cells)
{
	static double dist[BLOCK_BITS + 1];
	double *f = malloc(sizeof(double) * LOADS);
	int x, i, c = (int)cells;
	unsigned int d;

	for (x = 0; x <= c; x++)
		dist[x] = 0;
	dist[0] = 1;
	for (i = 0; i < LOADS; i++) {
		double s = 0;

		for (x = 0; x <= c; x++)
			s += dist[x] * pow((double)x / c, k);
		f[i] = s;
		/* the block's next key: k more uniform draws */
		for (d = 0; d < k; d++) {
			for (x = c; x > 0; x--)
				dist[x] = dist[x] * x / c +
					  dist[x - 1] * (c - x + 1) / c;
			dist[0] = 0;
		}
	}
	all_set[cache_slot(cells)][k] = f;
}

/* Sum over Poisson(lambda) loads i of f(i), from the mode outwards. */
static double poisson_mix(double lambda, const double *f, int nf)
{
	int mode = (int)lambda, i;
	double pm = exp(-lambda + mode * log(lambda > 0 ? lambda : 1) -
			lgamma(mode + 1.0));
	double p, s = 0;

	if (lambda <= 0)
		return f[0];
	for (i = mode, p = pm; i < nf && p > 1e-300; i++) {
		s += p * f[i];
		p *= lambda / (i + 1);
	}
	for (i = mode - 1, p = pm * mode / lambda; i >= 0 && p > 1e-300; i--) {
		s += p * f[i];
		p *= i / lambda;
	}
	return s;
}

double model_fp_scheme_cells(double lambda, unsigned int k,
			     unsigned int cells)
{
	if (!all_set[cache_slot(cells)][k])
		build_occupancy(k, cells);
	return poisson_mix(lambda, all_set[cache_slot(cells)][k], LOADS);
}

/* Sum over Binomial(n, 1/blocks) loads i of f(i), from the mode outwards. */
static double binomial_mix(double n, double blocks, const double *f, int nf)
{
	double q = 1 / blocks, odds = q / (1 - q);
	int mode = (int)((n + 1) * q), i;
	double pm, p, s = 0;

	if (blocks <= 1)
		return n < nf ? f[(int)n] : 1;
	pm = exp(lgamma(n + 1) - lgamma(mode + 1.0) - lgamma(n - mode + 1) +
		 mode * log(q) + (n - mode) * log1p(-q));
	for (i = mode, p = pm; i <= n && i < nf && p > 1e-300; i++) {
		s += p * f[i];
		p *= (n - i) / (i + 1) * odds;
	}
	for (i = mode - 1, p = mode ? pm * mode / (n - mode + 1) / odds : 0;
	     i >= 0 && p > 1e-300; i--) {
		s += p * f[i];
		p *= i / (n - i + 1) / odds;
	}
	return s;
}

double model_fp_scheme_blocks(double n, double blocks, unsigned int k,
			      unsigned int cells)
{
	if (!all_set[cache_slot(cells)][k])
		build_occupancy(k, cells);
	return binomial_mix(n, blocks, all_set[cache_slot(cells)][k], LOADS);
}

double model_fp_scheme(double lambda, unsigned int k)
{
	return model_fp_scheme_cells(lambda, k, MODEL_CELLS_BITS);
}

double model_fp_textbook_cells(double lambda, unsigned int k,
			       unsigned int cells)
{
	static double f[2][K_MAX + 1][LOADS];
	static int ready[2][K_MAX + 1];
	unsigned int slot = cache_slot(cells);
	int i;

	if (!ready[slot][k]) {
		for (i = 0; i < LOADS; i++)
			f[slot][k][i] = pow(1 - pow(1 - 1.0 / cells,
						    (double)k * i), k);
		ready[slot][k] = 1;
	}
	return poisson_mix(lambda, f[slot][k], LOADS);
}

double model_fp_textbook(double lambda, unsigned int k)
{
	return model_fp_textbook_cells(lambda, k, MODEL_CELLS_BITS);
}

double model_fp_closed_cells(double lambda, unsigned int k,
			     unsigned int cells)
{
	long double p[K_MAX + 1] = { 1 }, s = 0;
	unsigned int j, t, n;

	/* p[n]: chance that the query's k probes cover n distinct cells */
	for (t = 0; t < k; t++) {
		for (n = t + 1; n > 0; n--)
			p[n] = p[n] * n / cells +
			       p[n - 1] * (cells - n + 1) / cells;
		p[0] = 0;
	}
	for (j = 0; j <= k; j++) {
		long double weight = 0, binom;

		/* E[C(S, j)] */
		for (n = j; n <= k; n++) {
			binom = 1;
			for (t = 0; t < j; t++)
				binom = binom * (n - t) / (t + 1);
			weight += p[n] * binom;
		}
		s += (j & 1 ? -weight : weight) *
		     expl(-lambda * (1 - powl(1 - (long double)j / cells, k)));
	}
	return (double)s;
}

double model_fp_closed(double lambda, unsigned int k)
{
	return model_fp_closed_cells(lambda, k, MODEL_CELLS_BITS);
}

/* A rate of the model: of a load lambda, k probes and one more parameter. */
typedef double (*model_rate)(double lambda, unsigned int k, unsigned int arg);

/*
 * The least memory per key that meets p with the best k: memory / lambda
 * at the largest load per block lambda whose rate is at most p (rates
 * grow with the load), memory being what one block's keys cost.
 */
static double model_min_memory_per_key(model_rate rate, unsigned int arg,
				       double p, double memory,
				       unsigned int *best_k)
{
	double best = INFINITY;
	unsigned int k;

	for (k = 1; k <= K_MAX; k++) {
		double lo = 1e-3, hi = MODEL_LAMBDA_MAX;
		int it;

		if (rate(lo, k, arg) > p)
			continue;
		for (it = 0; it < 100; it++) {
			double mid = (lo + hi) / 2;

			if (rate(mid, k, arg) <= p)
				lo = mid;
			else
				hi = mid;
		}
		if (memory / lo < best) {
			best = memory / lo;
			if (best_k)
				*best_k = k;
		}
	}
	return best;
}

double model_min_bits_per_key_cells(double p, unsigned int cells,
				    unsigned int *best_k)
{
	return model_min_memory_per_key(model_fp_scheme_cells, cells, p,
					BLOCK_BITS, best_k);
}

double model_min_bits_per_key(double p, unsigned int *best_k)
{
	return model_min_bits_per_key_cells(p, MODEL_CELLS_BITS, best_k);
}

/*
 * given[k][i][s]: for a block holding i keys (k draws each), the chance
 * that s given cells are all set, E[C(X, s) / C(512, s)] over the block's
 * set cells X.
 */
static double *given[K_MAX + 1];

static void build_given(unsigned int k)
{
	static double dist[BLOCK_BITS + 1];
	double *g = calloc((size_t)LOADS * (K_MAX + 1), sizeof(double));
	int x, i, c = BLOCK_BITS;
	unsigned int d, s;

	for (x = 0; x <= c; x++)
		dist[x] = 0;
	dist[0] = 1;
	for (i = 0; i < LOADS; i++) {
		for (x = 0; x <= c; x++) {
			double ratio = 1;

			if (dist[x] < 1e-300)
				continue;
			g[i * (K_MAX + 1)] += dist[x];
			for (s = 1; s <= k; s++) {
				ratio *= (double)(x - (int)s + 1) /
					 (c - (int)s + 1);
				if (ratio <= 0)
					break;
				g[i * (K_MAX + 1) + s] += dist[x] * ratio;
			}
		}
		for (d = 0; d < k; d++) {
			for (x = c; x > 0; x--)
				dist[x] = dist[x] * x / c +
					  dist[x - 1] * (c - x + 1) / c;
			dist[0] = 0;
		}
	}
	given[k] = g;
}

/* P(S = s): distinct cells among k uniform draws of 512. */
static void distinct_dist(unsigned int k, double *p)
{
	unsigned int t, n;

	for (n = 0; n <= K_MAX; n++)
		p[n] = 0;
	p[0] = 1;
	for (t = 0; t < k; t++) {
		for (n = t + 1; n > 0; n--)
			p[n] = p[n] * n / BLOCK_BITS +
			       p[n - 1] * (BLOCK_BITS - n + 1) / BLOCK_BITS;
		p[0] = 0;
	}
}

double model_fp_window(double lambda, unsigned int k, unsigned int live)
{
	double p[K_MAX + 1], f[LOADS], fp = 0;
	unsigned int s;
	int i;

	if (!given[k])
		build_given(k);
	distinct_dist(k, p);
	for (s = 1; s <= k; s++) {
		double all;

		for (i = 0; i < LOADS; i++)
			f[i] = given[k][i * (K_MAX + 1) + s];
		all = poisson_mix(lambda, f, LOADS);
		fp += p[s] * -expm1(live * log1p(-all));
	}
	return fp;
}

double model_fp_window_closed(double lambda, unsigned int k,
			      unsigned int live)
{
	double pd[K_MAX + 1];
	long double fp = 0;
	unsigned int s, j;

	distinct_dist(k, pd);
	for (s = 1; s <= k; s++) {
		long double all = 0, binom = 1;

		for (j = 0; j <= s; j++) {
			long double e = expl(-lambda *
					     (1 - powl(1 - (long double)j /
						       BLOCK_BITS, k)));

			all += (j & 1 ? -binom : binom) * e;
			binom = binom * (s - j) / (j + 1);
		}
		if (all < 0)
			all = 0;
		fp += pd[s] * -expm1l(live * log1pl(-all));
	}
	return (double)fp;
}

double model_fp_window_independent(double lambda, unsigned int k,
				   unsigned int live)
{
	return -expm1(live * log1p(-model_fp_scheme(lambda, k)));
}

unsigned int model_window_planes(unsigned int g)
{
	unsigned int planes = 1;

	while (planes < g + 1)
		planes *= 2;
	return planes;
}

double model_window_bytes_per_key(double p, unsigned int g,
				  unsigned int *best_k)
{
	/* A key block is P lines; the window holds g - 1 loads of it. */
	return model_min_memory_per_key(model_fp_window, g, p,
					64.0 * model_window_planes(g) / (g - 1),
					best_k);
}
