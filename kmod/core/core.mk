# SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later
# The filter core's sources, relative to kmod/core/.  One list, used by the
# module, KUnit, the host tests and the benchmark so they cannot drift.
KBLOOM_CORE_SRCS := kbloom_core.c kbloom_pipeline.c kbloom_rewrite.c \
		    kbloom_formula.c kbloom_geometry.c \
		    kbloom_stats.c kbloom_image.c kbloom_chain.c \
		    kbloom_chain_image.c

# In a kernel build (the module's Kbuild, KUnit's): the one probe the core
# itself needs.  <asm/unaligned.h> moved to <linux/unaligned.h> in 6.12;
# the header's presence in the kernel's tree decides, in kbuild rather than
# by __has_include(), which sparse does not know.
KBLOOM_CORE_CFLAGS := $(if $(wildcard $(srctree)/include/linux/unaligned.h),\
			 -DKBLOOM_HAVE_LINUX_UNALIGNED_H)
