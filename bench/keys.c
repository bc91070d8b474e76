// SPDX-License-Identifier: GPL-2.0
/*
 * Random keys, generated once and handed unchanged to every implementation
 * so each one hashes exactly the same bytes.  splitmix64 streams: fast,
 * deterministic from a seed, and 64-bit random so that at 100 M keys an
 * "absent" key collides with an added one with probability ~1e-4 overall.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

u64 bench_rand64(u64 *state)
{
	u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void *bench_xmalloc(size_t bytes)
{
	void *p = malloc(bytes ? bytes : 1);

	if (!p) {
		fprintf(stderr, "bench: out of memory (%zu bytes)\n", bytes);
		exit(2);
	}
	return p;
}

void keys_generate(struct key_set *ks, u64 n, u32 kb, u64 seed)
{
	u64 state = seed, i, words = n * kb / 8;
	u64 *w;

	ks->bytes = bench_xmalloc(n * kb);
	ks->n = n;
	ks->kb = kb;
	/* kb is a multiple of 8: fill word by word. */
	w = (u64 *)ks->bytes;
	for (i = 0; i < words; i++)
		w[i] = bench_rand64(&state);
}

void keys_free(struct key_set *ks)
{
	free(ks->bytes);
	ks->bytes = NULL;
	ks->n = 0;
}

/* The first n keys of ks as the batch API takes them. */
struct kbloom_key *keys_kv(const struct key_set *ks, u64 n)
{
	struct kbloom_key *kv = bench_xmalloc(bench_max(n, 1) * sizeof(*kv));
	u64 i;

	for (i = 0; i < n; i++) {
		kv[i].data = key_at(ks, i);
		kv[i].len = ks->kb;
	}
	return kv;
}

void queries_build(struct query_set *qs, const struct key_set *added,
		   u64 nadded, u64 npresent, const struct key_set *absent,
		   u64 nabsent, u64 seed)
{
	u64 total = npresent + nabsent, i, state = seed;
	u64 *order = bench_xmalloc(total * sizeof(*order));
	u32 kb = added->kb;
	u64 stride = npresent ? nadded / npresent : 1;

	qs->keys.bytes = bench_xmalloc(total * kb);
	qs->keys.n = total;
	qs->keys.kb = kb;
	qs->present = bench_xmalloc(total);
	qs->kv = bench_xmalloc(total * sizeof(*qs->kv));
	qs->npresent = npresent;
	qs->nabsent = nabsent;

	for (i = 0; i < total; i++)
		order[i] = i;
	for (i = total; i > 1; i--) {
		u64 j = bench_rand64(&state) % i, t = order[i - 1];

		order[i - 1] = order[j];
		order[j] = t;
	}
	/* Slot order[i] receives query i: present ones first, spread out. */
	for (i = 0; i < total; i++) {
		u64 slot = order[i];
		const u8 *src = i < npresent ? key_at(added, i * stride)
					     : key_at(absent, i - npresent);

		memcpy(qs->keys.bytes + slot * kb, src, kb);
		qs->present[slot] = i < npresent;
	}
	for (i = 0; i < total; i++) {
		qs->kv[i].data = key_at(&qs->keys, i);
		qs->kv[i].len = kb;
	}
	free(order);
}

void queries_free(struct query_set *qs)
{
	free(qs->keys.bytes);
	free(qs->present);
	free(qs->kv);
	memset(qs, 0, sizeof(*qs));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double median(const double *v, int n)
{
	double s[BENCH_MAX_REPEATS];

	if (n <= 0)
		return NAN;
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	return n & 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}
