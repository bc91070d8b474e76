/* SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later */
/*
 * The differences between kernels that the filter core meets, decided as
 * kbloom_compat.h decides the driver's (which includes this): by what the
 * kernel's headers offer, never by a version number.  The core's kernel
 * builds (the module, KUnit) read this; its userspace builds read
 * kmod/core/kbloom_kernel_shim.h in its place.
 */
#ifndef KBLOOM_CORE_COMPAT_H
#define KBLOOM_CORE_COMPAT_H

#ifndef __KERNEL__
/* Userspace builds of the core use kmod/core/kbloom_kernel_shim.h. */
#error "kbloom_core_compat.h is for kernel builds only"
#endif

/* get_unaligned_le64() and friends: <asm/unaligned.h> until 6.12. */
#ifdef KBLOOM_HAVE_LINUX_UNALIGNED_H
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/*
 * The raw CRC32C update (no inversion at either end), which images end
 * with: crc32c() of <linux/crc32.h> since 6.14, whose CRC library rework
 * brought CRC32C_OPTIMIZATION with it and took __crc32c_le() away in
 * 6.15.  Before, crc32c() was libcrc32c's (<linux/crc32c.h>), a module
 * of its own through the crypto API, which kbloom must not need.
 */
#include <linux/crc32.h>
#ifdef CRC32C_OPTIMIZATION
#define kbloom_crc32c(crc, p, len)	crc32c(crc, p, len)
#else
#define kbloom_crc32c(crc, p, len)	__crc32c_le(crc, p, len)
#endif

#endif /* KBLOOM_CORE_COMPAT_H */
