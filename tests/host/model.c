// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <stdlib.h>
#include "model.h"

#define CELLS	512
#define K_MAX	16
#define LOADS	1150	/* MODEL_LAMBDA_MAX + 20 sqrt(MODEL_LAMBDA_MAX) + 50 */

/* all_set[k][i]: E[(X/512)^k] for a block holding i keys. */
static double *all_set[K_MAX + 1];

static void build_occupancy(unsigned int k)
{
	static double dist[CELLS + 1];
	int x, i;
	unsigned int d;

	all_set[k] = malloc(sizeof(double) * LOADS);
	for (x = 0; x <= CELLS; x++)
		dist[x] = 0;
	dist[0] = 1;
	for (i = 0; i < LOADS; i++) {
		double s = 0;

		for (x = 0; x <= CELLS; x++)
			s += dist[x] * pow((double)x / CELLS, k);
		all_set[k][i] = s;
		/* the block's next key: k more uniform draws */
		for (d = 0; d < k; d++) {
			for (x = CELLS; x > 0; x--)
				dist[x] = dist[x] * x / CELLS +
					  dist[x - 1] * (CELLS - x + 1) / CELLS;
			dist[0] = 0;
		}
	}
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

double model_fp_scheme(double lambda, unsigned int k)
{
	if (!all_set[k])
		build_occupancy(k);
	return poisson_mix(lambda, all_set[k], LOADS);
}

double model_fp_textbook(double lambda, unsigned int k)
{
	static double f[K_MAX + 1][LOADS];
	static int ready[K_MAX + 1];
	int i;

	if (!ready[k]) {
		for (i = 0; i < LOADS; i++)
			f[k][i] = pow(1 - pow(1 - 1.0 / CELLS, (double)k * i),
				      k);
		ready[k] = 1;
	}
	return poisson_mix(lambda, f[k], LOADS);
}

double model_fp_closed(double lambda, unsigned int k)
{
	long double p[K_MAX + 1] = { 1 }, s = 0;
	unsigned int j, t, n;

	/* p[n]: chance that the query's k probes cover n distinct cells */
	for (t = 0; t < k; t++) {
		for (n = t + 1; n > 0; n--)
			p[n] = p[n] * n / CELLS +
			       p[n - 1] * (CELLS - n + 1) / CELLS;
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
		     expl(-lambda * (1 - powl(1 - (long double)j / CELLS, k)));
	}
	return (double)s;
}

double model_min_bits_per_key(double p, unsigned int *best_k)
{
	double best = INFINITY;
	unsigned int k;

	for (k = 1; k <= K_MAX; k++) {
		double lo = 1e-3, hi = MODEL_LAMBDA_MAX;
		int it;

		if (model_fp_scheme(lo, k) > p)
			continue;
		/* the largest load per block that still meets p */
		for (it = 0; it < 100; it++) {
			double mid = (lo + hi) / 2;

			if (model_fp_scheme(mid, k) <= p)
				lo = mid;
			else
				hi = mid;
		}
		if (CELLS / lo < best) {
			best = CELLS / lo;
			if (best_k)
				*best_k = k;
		}
	}
	return best;
}
