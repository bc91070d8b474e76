// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF map costs one system call per key (~1-2 us on a 2-vCPU AMD
 * EPYC VM, bd9a4e2, 2026-11-30), so filling it with 100 M keys would take
 * minutes.  It is therefore filled within a time budget (completely at
 * 1 M and 10 M keys there) and timed on a sample of operations on the
 * full-size map: with one set_bit or test_bit per probe, its per-key cost
 * does not depend on how full it is, except that a
 * lookup of an absent key stops at the first clear bit, which makes a
 * partly filled map look faster, never slower.  The false-positive rate is
 * measured only on a completely filled map.
 */
#include <stdio.h>

#include "peer_bpf.h"

int bpf_peer_init(struct bpf_peer *p, u64 n, u32 key_bytes,
		  u32 bits_per_key)
{
	int fd;

	memset(p, 0, sizeof(*p));
	p->fd = -1;
	p->n = n;
	bpf_bloom_shape(&p->shape, n, bits_per_key);
	fd = bpf_bloom_create(key_bytes, &p->shape);
	if (fd < 0)
		return fd;
	p->fd = fd;
	return 0;
}

void bpf_peer_free(struct bpf_peer *p)
{
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
}

double bpf_peer_bits_per_key(const struct bpf_peer *p)
{
	return (double)p->shape.bits / p->n;
}

double bpf_peer_fp_theory(const struct bpf_peer *p)
{
	return fp_standard(p->shape.bits, p->n, p->shape.k);
}

/*
 * First the present keys among the sample's queries (so that "present"
 * means present even in a partly filled map), then keys in order until all
 * are in or the budget is spent.
 */
int bpf_peer_fill(struct bpf_peer *p, const struct key_set *ks,
		  const struct query_set *qs, u64 sample, double budget_s)
{
	double budget_ns = budget_s * 1e9;
	u64 i, start, deadline = bench_now_ns() + (u64)budget_ns;
	int err;

	for (i = 0; i < sample && i < qs->keys.n; i++) {
		if (!qs->present[i])
			continue;
		err = bpf_bloom_add(p->fd, key_at(&qs->keys, i));
		if (err)
			return err;
	}
	p->sample_added = true;
	start = bench_now_ns();
	for (i = p->filled; i < p->n; i++) {
		if ((i & 1023) == 0 && i) {
			u64 now = bench_now_ns();

			/*
			 * A map that cannot be filled in the budget only
			 * serves for timing: stop as soon as that is clear.
			 */
			if (now > deadline ||
			    (i == 65536 &&
			     (double)(now - start) / i * p->n > budget_ns))
				break;
		}
		err = bpf_bloom_add(p->fd, key_at(ks, i));
		if (err)
			return err;
	}
	p->filled = i;
	return 0;
}

double bpf_peer_add(struct bpf_peer *p, const struct key_set *ks, u64 sample)
{
	u64 i, t0, t1;

	sample = bench_min(sample, p->n);
	t0 = bench_now_ns();
	for (i = 0; i < sample; i++)
		if (bpf_bloom_add(p->fd, key_at(ks, i)))
			return NAN;
	t1 = bench_now_ns();
	return (double)(t1 - t0) / sample;
}

double bpf_peer_check(struct bpf_peer *p, const struct query_set *qs,
		      u64 sample)
{
	u64 i, t0, t1;

	sample = bench_min(sample, qs->keys.n);
	t0 = bench_now_ns();
	for (i = 0; i < sample; i++)
		if (bpf_bloom_check(p->fd, key_at(&qs->keys, i)) < 0)
			return NAN;
	t1 = bench_now_ns();
	return (double)(t1 - t0) / sample;
}

/* Answers for the first `sample` queries; 0 or -errno. */
int bpf_peer_answers(struct bpf_peer *p, const struct query_set *qs,
		     u64 sample, struct answers *a)
{
	u64 i;

	memset(a, 0, sizeof(*a));
	sample = bench_min(sample, qs->keys.n);
	for (i = 0; i < sample; i++) {
		int maybe = bpf_bloom_check(p->fd, key_at(&qs->keys, i));

		if (maybe < 0)
			return maybe;
		if (qs->present[i]) {
			a->false_negatives += !maybe;
		} else {
			a->absent++;
			a->false_positives += maybe;
		}
	}
	return 0;
}
