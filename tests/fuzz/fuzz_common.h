/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the libFuzzer targets.  The CRC is tests/vm/stress.h's
 * crc32c_ref(), written from the format's description (standard CRC32C),
 * not taken from the core, so a target that fixes up an image's CRC also
 * checks that the core and the documented format agree.
 */
#ifndef KBLOOM_FUZZ_COMMON_H
#define KBLOOM_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kbloom_core.h"
#include "../vm/le_bytes.h"
#include "../vm/stress.h"

/* A broken invariant: say which, then crash so libFuzzer keeps the input. */
#define fuzz_assert(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "invariant failed: %s: ", #cond); \
			fprintf(stderr, __VA_ARGS__);			\
			fputc('\n', stderr);				\
			abort();					\
		}							\
	} while (0)

static inline void fuzz_put_le32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static inline void fuzz_put_le64(uint8_t *p, uint64_t v)
{
	fuzz_put_le32(p, v);
	fuzz_put_le32(p + 4, v >> 32);
}

#endif /* KBLOOM_FUZZ_COMMON_H */
