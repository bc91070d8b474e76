/* SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later */
/*
 * xxh64 of a key under 32 bytes, inline.  Such a key never reaches the
 * four-lane loop of the kernel's xxh64() (lib/xxhash.c), only its tail:
 * whole 8-byte words, then one 4-byte word, then single bytes, and the
 * final avalanche, as the XXH64 specification defines them.  The values
 * are xxh64()'s, bit for bit (kunit/ops.c compares them at every length
 * and alignment under many seeds); only the call goes.  Calling xxh64()
 * for an 8-byte key cost 66 instructions, about 24 of them the call, the
 * length tests for long inputs and their spills (callgrind; 901b5a2,
 * 2026-12-02).  Longer keys still call it.
 */
#ifndef KBLOOM_HASH_H
#define KBLOOM_HASH_H

#ifdef __KERNEL__
#include <linux/bitops.h>
#include <linux/types.h>
#include <linux/xxhash.h>
#include "kbloom_core_compat.h"
#else
#include "kbloom_kernel_shim.h"
#endif

/* The specification's five primes. */
#define KBLOOM_XXH_P1	0x9e3779b185ebca87ULL
#define KBLOOM_XXH_P2	0xc2b2ae3d27d4eb4fULL
#define KBLOOM_XXH_P3	0x165667b19e3779f9ULL
#define KBLOOM_XXH_P4	0x85ebca77c2b2ae63ULL
#define KBLOOM_XXH_P5	0x27d4eb2f165667c5ULL

/* Under this length the inline path applies: one lane, no stripes. */
#define KBLOOM_XXH_SHORT	32

/*
 * The specification's final avalanche, a bijection of u64; scalable
 * filters (kbloom_chain.c) also derive sub-filters' seeds and hashes by it.
 */
static __always_inline u64 kbloom_xxh64_avalanche(u64 h)
{
	h ^= h >> 33;
	h *= KBLOOM_XXH_P2;
	h ^= h >> 29;
	h *= KBLOOM_XXH_P3;
	return h ^ (h >> 32);
}

static __always_inline u64 kbloom_xxh64_short(const void *key, u32 len,
					      u64 seed)
{
	const u8 *p = key;
	u64 h = seed + KBLOOM_XXH_P5 + len;
	u32 left;

	/* Counting down what is left costs fewer instructions than an end. */
	for (left = len; left >= 8; left -= 8, p += 8) {
		u64 k = get_unaligned_le64(p) * KBLOOM_XXH_P2;

		k = rol64(k, 31) * KBLOOM_XXH_P1;
		h = rol64(h ^ k, 27) * KBLOOM_XXH_P1 + KBLOOM_XXH_P4;
	}
	if (left & 4) {
		h ^= (u64)get_unaligned_le32(p) * KBLOOM_XXH_P1;
		h = rol64(h, 23) * KBLOOM_XXH_P2 + KBLOOM_XXH_P3;
		p += 4;
	}
	for (left &= 3; left; left--, p++)
		h = rol64(h ^ (*p * KBLOOM_XXH_P5), 11) * KBLOOM_XXH_P1;
	return kbloom_xxh64_avalanche(h);
}

/* xxh64(key, len, seed), with short keys hashed inline. */
static __always_inline u64 kbloom_xxh64(const void *key, u32 len, u64 seed)
{
	if (len < KBLOOM_XXH_SHORT)
		return kbloom_xxh64_short(key, len, seed);
	return xxh64(key, len, seed);
}

#endif /* KBLOOM_HASH_H */
