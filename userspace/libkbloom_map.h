/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libkbloom's private interface to a mapped filter (libkbloom_map.c):
 * the header check, the mapping's life, and checks that answer from the
 * mapped cells through the module's own core.  libkbloom.c keeps the
 * handle and the ioctls; it sees a mapping only through these calls, so
 * it never includes the core's kernel-flavoured headers.
 *
 * The check calls return 1 / 0 (one key) or 0 (a chunk), -ENODEV when
 * the filter was destroyed, or -EAGAIN when the filter was being rewritten
 * (CLEAR, INTERSECT, image load) during the check: the caller then asks
 * the module with an ioctl, which waits for the rewrite to end.
 */
#ifndef LIBKBLOOM_MAP_H
#define LIBKBLOOM_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/kbloom.h>

struct kbl_map;

/*
 * Keys one mapped check handles at a time: the struct kbloom_key array
 * lives on the stack (4 KiB) and a chunk's keys can never exceed one
 * ioctl (256 * KBLOOM_KEY_MAX = 1 MiB < KBL_CHUNK_BYTES), so an
 * inconsistent chunk falls back to exactly one ioctl.
 */
#define KBL_MAP_CHUNK	256

/*
 * 0 when hdr (of a mapping len bytes long, len >= header_bytes) describes
 * a filter this library can check, else -EPROTO.  page_size is this
 * machine's.
 */
int kbl_map_header_check(const struct kbloom_map_header *hdr, size_t len,
			 size_t page_size);

/* mmap()s fd's filter whole, read-only; 0 or -errno (see kbl_map()). */
int kbl_map_open(int fd, struct kbl_map **out);
/*
 * The same over memory the caller holds (base page-aligned, len bytes),
 * laid out as the module lays out a mapping: what kbl_map_open() does
 * after mmap(), so the host tests can run it without the device.
 */
int kbl_map_attach(const void *base, size_t len, struct kbl_map **out);
/* Unmaps (when kbl_map_open() mapped it) and frees. */
void kbl_map_close(struct kbl_map *m);
/*
 * A scalable filter's mapping that no longer covers the whole filter: it
 * grew past it, or a CLEAR or load freed sub-filters since it was made.
 * Its checks say -EAGAIN until it is mapped again.
 */
bool kbl_map_stale(const struct kbl_map *m);

const struct kbloom_map_header *kbl_map_hdr(const struct kbl_map *m);

/* One key of 1..KBLOOM_KEY_MAX bytes; no system call, no allocation. */
int kbl_map_check_one(const struct kbl_map *m, const void *key, size_t len);
/*
 * n (1..KBL_MAP_CHUNK) keys, packed (data, lens) or by pointer (keys,
 * lens); bits receives (n + 63) / 64 words, *hits the keys that may be
 * present.  Lengths must have been validated.
 */
int kbl_map_check_packed(const struct kbl_map *m, const char *data,
			 const uint32_t *lens, size_t n, uint64_t *bits,
			 uint64_t *hits);
int kbl_map_check_ptrs(const struct kbl_map *m, const void *const *keys,
		       const size_t *lens, size_t n, uint64_t *bits,
		       uint64_t *hits);

#endif /* LIBKBLOOM_MAP_H */
