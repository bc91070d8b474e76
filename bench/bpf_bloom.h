/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's BPF bloom filter map (kernel/bpf/bloom_filter.c), driven from
 * userspace through raw bpf(2): BPF_MAP_UPDATE_ELEM adds the value,
 * BPF_MAP_LOOKUP_ELEM checks it (ENOENT: absent).  Header-only so the host
 * benchmark and the static VM benchmark share it.
 *
 * The kernel sizes the map itself: bits = (max_entries * k / 5) * 7 rounded
 * up to a power of two (7/5 standing for 1/ln 2).  bpf_bloom_shape() picks
 * the power of two nearest the wanted bits and the max_entries that makes
 * the kernel choose exactly it, and returns those bits so that the report
 * can show the bits per key the map really used.
 */
#ifndef KBLOOM_BENCH_BPF_BLOOM_H
#define KBLOOM_BENCH_BPF_BLOOM_H

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>

struct bpf_bloom_shape {
	uint32_t max_entries;
	uint32_t k;
	uint64_t bits;
};

/* Integer only, so that the static VM program needs no libm. */
static inline void bpf_bloom_shape(struct bpf_bloom_shape *s, uint64_t n,
				   uint32_t bits_per_key)
{
	uint64_t want = n * bits_per_key, k;
	unsigned int lg = 6;

	/* The power of two nearest want: 2^lg <= want < 2^(lg + 1) ... */
	while (lg < 31 && (2ULL << lg) <= want)
		lg++;
	/* ... then up when want >= 2^lg * sqrt(2) (more would need 2^32). */
	if (lg < 31 && want * want >= (2ULL << (2 * lg)))
		lg++;
	s->bits = 1ULL << lg;
	/* k = round(ln 2 * bits / n) */
	k = (s->bits * 693147 / (n ? n : 1) + 500000) / 1000000;
	s->k = k < 1 ? 1 : k > 15 ? 15 : (uint32_t)k;
	/* (max_entries * k / 5) * 7 <= bits, and > bits / 2 */
	s->max_entries = (uint32_t)(s->bits * 5 / 7 / s->k);
	if (!s->max_entries)
		s->max_entries = 1;
}

static inline long bpf_bloom_sys(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

/* Returns the map fd, or -errno. */
static inline int bpf_bloom_create(uint32_t value_size,
				   const struct bpf_bloom_shape *s)
{
	union bpf_attr attr;
	long fd;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_BLOOM_FILTER;
	attr.key_size = 0;
	attr.value_size = value_size;
	attr.max_entries = s->max_entries;
	attr.map_extra = s->k;
	fd = bpf_bloom_sys(BPF_MAP_CREATE, &attr);
	return fd < 0 ? -errno : (int)fd;
}

static inline int bpf_bloom_add(int fd, const void *key)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = fd;
	attr.value = (uintptr_t)key;
	attr.flags = BPF_ANY;
	return bpf_bloom_sys(BPF_MAP_UPDATE_ELEM, &attr) ? -errno : 0;
}

/* 1: maybe present, 0: absent, -errno on error. */
static inline int bpf_bloom_check(int fd, const void *key)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = fd;
	attr.value = (uintptr_t)key;
	if (!bpf_bloom_sys(BPF_MAP_LOOKUP_ELEM, &attr))
		return 1;
	return errno == ENOENT ? 0 : -errno;
}

#endif /* KBLOOM_BENCH_BPF_BLOOM_H */
