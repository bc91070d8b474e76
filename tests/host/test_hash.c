// SPDX-License-Identifier: GPL-2.0
/*
 * Hashing and placement: the compat layer computes the kernel's functions,
 * the bits are cache-line aligned, and every key touches exactly the one
 * block that fastrange over its full 64-bit hash names.
 */
#include <math.h>
#include <string.h>
#include "harness.h"

#define SUITE "hash"

static void test_known_answers(void)
{
	struct kbloom_filter f;
	u32 crc;

	expect(xxh64("abc", 3, 0) == 0x44bc2cf5ad770999ULL, SUITE,
	       "xxh64_abc", "got %#llx",
	       (unsigned long long)xxh64("abc", 3, 0));
	crc = ~__crc32c_le(~0U, (const unsigned char *)"123456789", 9);
	expect(crc == 0xe3069283U, SUITE, "crc32c_check_value",
	       "got %#x, want 0xe3069283", crc);
	/* Chained updates equal one pass: the cursor relies on it. */
	crc = __crc32c_le(~0U, (const unsigned char *)"1234", 4);
	crc = ~__crc32c_le(crc, (const unsigned char *)"56789", 5);
	expect(crc == 0xe3069283U, SUITE, "crc32c_chained", "got %#x", crc);

	make_filter(&f, 4, 7, 0);
	expect(kbloom_hash(&f, "abc", 3) == 0x44bc2cf5ad770999ULL, SUITE,
	       "filter_hash_seed0", "got %#llx",
	       (unsigned long long)kbloom_hash(&f, "abc", 3));
	kbloom_filter_free(&f);
	make_filter(&f, 4, 7, 0x1234567890abcdefULL);
	expect(kbloom_hash(&f, "abc", 3) ==
	       XXH64("abc", 3, 0x1234567890abcdefULL), SUITE,
	       "filter_hash_uses_seed", "got %#llx",
	       (unsigned long long)kbloom_hash(&f, "abc", 3));
	kbloom_filter_free(&f);
}

static void test_alignment(void)
{
	static const u64 sizes[] = { 1, 2, 3, 7, 1000, 12345 };
	unsigned int i, bad = 0;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		struct kbloom_filter f;
		u64 b, w, nonzero = 0;

		make_filter(&f, sizes[i], 7, i);
		/* Page-aligned, so that the cells can be mapped whole. */
		bad += ((uintptr_t)f.words % PAGE_SIZE) != 0;
		for (b = 0; b < sizes[i]; b++)
			for (w = 0; w < 8; w++)
				nonzero += f.words[b * 8 + w] != 0;
		bad += nonzero != 0;
		kbloom_filter_free(&f);
	}
	expect(!bad, SUITE, "cells_page_aligned_and_zeroed",
	       "%u problems over %zu sizes", bad, ARRAY_SIZE(sizes));
}

/*
 * Diff the whole array around each add: the changed words must lie in one
 * block, the one (h * nblocks) >> 64 names, with at most k new bits, and
 * add() must say whether anything changed.
 */
static void test_one_block_per_key(void)
{
	const u64 nblocks = 97, keys = 20000;
	const u32 k = 9;
	struct kbloom_filter f;
	u64 *before = malloc(nblocks * 64);
	u64 i, w, wrong_block = 0, spread = 0, too_many = 0, lied = 0;
	u64 blocks_used = 0;
	u8 *touched = calloc(nblocks, 1);

	make_filter(&f, nblocks, k, 5);
	for (i = 0; i < keys; i++) {
		char key[32];
		u32 len = snprintf(key, sizeof(key), "key-%llu",
				   (unsigned long long)i);
		u64 h = XXH64(key, len, 5);
		u64 expect_block = (u64)(((unsigned __int128)h * nblocks) >> 64);
		u64 first = U64_MAX, last = 0, new_bits = 0;
		bool set_new;

		memcpy(before, f.words, nblocks * 64);
		set_new = kbloom_add(&f, key, len);
		for (w = 0; w < nblocks * 8; w++) {
			if (before[w] == f.words[w])
				continue;
			if (first == U64_MAX)
				first = w;
			last = w;
			new_bits += __builtin_popcountll(before[w] ^ f.words[w]);
			too_many += (before[w] & ~f.words[w]) != 0;
		}
		if (first != U64_MAX) {
			spread += first / 8 != last / 8;
			wrong_block += first / 8 != expect_block;
		}
		too_many += new_bits > k;
		lied += set_new != (new_bits > 0);
		if (!touched[expect_block]++)
			blocks_used++;
	}
	expect(!spread && !wrong_block, SUITE, "one_block_per_key",
	       "%llu keys spread over blocks, %llu in the wrong block",
	       (unsigned long long)spread, (unsigned long long)wrong_block);
	expect(!too_many, SUITE, "at_most_k_bits_per_key",
	       "%llu keys set more than k bits or cleared bits",
	       (unsigned long long)too_many);
	expect(!lied, SUITE, "add_reports_new_bits",
	       "%llu adds misreported whether they set a bit",
	       (unsigned long long)lied);
	expect(blocks_used == nblocks, SUITE, "all_blocks_reachable",
	       "%llu of %llu blocks used", (unsigned long long)blocks_used,
	       (unsigned long long)nblocks);
	kbloom_filter_free(&f);
	free(before);
	free(touched);
}

/*
 * Cells within a block are uniform: chi-square over 512 cells of the cells
 * one key sets, key after key.  A key's probes may repeat a cell, so each
 * cell is set by a key with chance 1 - (511/512)^k.
 */
static void test_cells_uniform(void)
{
	const u64 keys = 200000;
	const u32 k = 8;
	u64 counts[512] = { 0 }, i, w;
	double chi = 0, expected = keys * (1 - pow(511.0 / 512, k));
	struct kbloom_filter f;
	unsigned int c;

	make_filter(&f, 1, k, 3);
	for (i = 0; i < keys; i++) {
		u64 v = mix64(i);

		kbloom_clear(&f);
		kbloom_add(&f, &v, sizeof(v));
		for (w = 0; w < 8; w++)
			for (c = 0; c < 64; c++)
				counts[w * 64 + c] += f.words[w] >> c & 1;
	}
	kbloom_filter_free(&f);
	for (c = 0; c < 512; c++)
		chi += (counts[c] - expected) * (counts[c] - expected) /
		       expected;
	/* 511 degrees of freedom: mean 511, sd 32; 5 sd either way. */
	expect(chi > 511 - 5 * 32 && chi < 511 + 5 * 32, SUITE,
	       "cells_uniform", "chi-square %.1f over 511 dof", chi);
}

int main(void)
{
	test_known_answers();
	test_alignment();
	test_one_block_per_key();
	test_cells_uniform();
	return harness_exit();
}
