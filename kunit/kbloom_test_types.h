/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The filter types the unit tests run over, and what a test may expect of
 * each: one table for the KUnit suites (kbloom_test.h) and for the host-only
 * sweeps of tests/host, which include it too.  A case that holds for every
 * type runs once per row; a new type is one more row.
 */
#ifndef KBLOOM_TEST_TYPES_H
#define KBLOOM_TEST_TYPES_H

#include "kbloom_core.h"

struct kbloom_test_type {
	const char *name;
	u32 type;
	u32 cell_bits;		/* width of one cell */
	bool deletes;		/* kbloom_delete() removes keys */
	u32 generations;	/* windows: g; 0 for the other types */
	u32 golden_crc;		/* of kbloom_test_golden()'s image */
	/*
	 * Bits of memory per key for the host's rate sweeps against the exact
	 * model, 0-ended: the range each type is sized for in practice.
	 */
	u32 budgets[9];
};

static const struct kbloom_test_type kbloom_test_types[] = {
	{ "bits", KBLOOM_TYPE_BITS, 1, false, 0, 0xddf85a40U,
	  { 6, 8, 10, 12, 16, 20 } },
	{ "counting", KBLOOM_TYPE_COUNTING, 4, true, 0, 0x4394b06eU,
	  { 8, 10, 12, 16, 32, 40, 48, 64 } },
	/*
	 * g = 4: cells of P = 8 planes.  Its budgets count memory per key of
	 * one generation, so 48 is what 6 bits per key of a bits filter
	 * have in cells.
	 */
	{ "window", KBLOOM_TYPE_WINDOW, 8, false, 4, 0x57ab1019U,
	  { 48, 64, 80, 96, 128, 160 } },
};

/* Cells of a 64-byte block, numbered over the whole array in the uapi's order. */
static inline u32 kbloom_test_block_cells(const struct kbloom_test_type *t)
{
	return KBLOOM_BLOCK_BITS / t->cell_bits;
}

/* 64-byte blocks of a key block: a window's P, else 1. */
static inline u32 kbloom_test_key_block(const struct kbloom_test_type *t)
{
	return t->generations ? 1U << kbloom_plane_order(t->generations) : 1;
}

#endif
