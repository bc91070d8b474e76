/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CRC32C (reflected 0x82F63B78, init ~0, final inversion), bitwise: the
 * reference the module's images must match, written from the format's
 * description rather than from the module, so that both cannot be wrong in
 * the same way.  One copy for the VM programs and the host fuzzers.
 */
#ifndef KBLOOM_TEST_CRC32C_H
#define KBLOOM_TEST_CRC32C_H

#include <stddef.h>
#include <stdint.h>

static inline uint32_t crc32c_ref(const uint8_t *p, size_t len)
{
	uint32_t crc = ~0U;
	int b;

	while (len--) {
		crc ^= *p++;
		for (b = 0; b < 8; b++)
			crc = (crc >> 1) ^ (0x82F63B78U & -(crc & 1));
	}
	return ~crc;
}

#endif
