/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The batch request over a key set: the keys' bytes back to back, their
 * lengths, and optionally where the answers go.  vmtest.h's vt_keys and
 * stress.h's st_keys hold the same four fields, so one macro fills a
 * struct kbloom_batch from either.
 */
#ifndef KBLOOM_TEST_BATCH_OF_H
#define KBLOOM_TEST_BATCH_OF_H

#include <stdint.h>
#include <string.h>

#define KB_BATCH_OF(b, k, res)						\
	do {								\
		memset((b), 0, sizeof(*(b)));				\
		(b)->keys = (uintptr_t)(k)->bytes;			\
		(b)->lens = (uintptr_t)(k)->lens;			\
		(b)->keys_len = (k)->keys_len;				\
		(b)->count = (k)->count;				\
		(b)->results = (uintptr_t)(res);			\
	} while (0)

#endif
