/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libkbloom's private image arithmetic, shared with kbloomctl (which links
 * libkbloom.a) and the device-free test_image.c: hidden in libkbloom.so,
 * so no program comes to depend on it.  The format is the uapi header's.
 */
#ifndef LIBKBLOOM_IMAGE_H
#define LIBKBLOOM_IMAGE_H

#include <stddef.h>
#include <stdint.h>
#include <linux/kbloom.h>

#define KBL_HIDDEN	__attribute__((visibility("hidden")))

/*
 * The length of the image whose header is hdr, from the header alone:
 * header_bytes + nblocks * 64 + 4, for version 3 and version 4 (a
 * scalable filter's).  0 when the header cannot describe an image of
 * either version: another version, a header_bytes that is not the
 * version's (for version 4, not 1 to KBLOOM_SUBFILTERS_MAX whole
 * sub-filter descriptors), or a length past 2^64 - 1.
 */
KBL_HIDDEN uint64_t kbl_image_length(const struct kbloom_image_header *hdr);

/*
 * The sub-filters a version 4 header's header_bytes counts, or 0 when it
 * is not a valid version 4 header_bytes.
 */
KBL_HIDDEN uint32_t kbl_image_subfilters(const struct kbloom_image_header *hdr);

/*
 * kbl_load()'s verdict on an input the module took without complaint:
 * head holds its first head_len bytes (up to a whole header) and total
 * counts all of it.  -ENOEXEC when too little of it to be a kbloom image
 * arrived, -ENODATA when it ended before the length its header gives, 0
 * when it is whole, or when its header gives no length this library knows
 * (the module, which took it, knows better).
 */
KBL_HIDDEN int kbl_image_input_end(const void *head, size_t head_len,
				   uint64_t total);

#endif /* LIBKBLOOM_IMAGE_H */
