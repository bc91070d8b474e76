// SPDX-License-Identifier: GPL-2.0
/*
 * "xxh64 + one load" with XXH64 inlined (libxxhash's own source through
 * XXH_INLINE_ALL, the same values): the floor for a core that inlines the
 * hash for short keys instead of calling it.
 */
#define FLOOR_INLINE 1
#include "floor.c"
