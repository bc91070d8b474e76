/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Little-endian fields of a filter image, read at any alignment: shared by
 * the VM tests (vmtest.h) and the host fuzzers (fuzz_common.h), which both
 * take images apart byte by byte.
 */
#ifndef KBLOOM_TESTS_LE_BYTES_H
#define KBLOOM_TESTS_LE_BYTES_H

#include <stdint.h>

static inline uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static inline uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

#endif
