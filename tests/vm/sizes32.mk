# SPDX-License-Identifier: GPL-2.0
# sizes32 is the core's geometry and image sizing built for 32-bit x86
# (gcc-multilib, which scripts/deps installs), so that size_t is 32 bits.
sizes32_SRCS := ../../kmod/core/kbloom_geometry.c ../../kmod/core/kbloom_formula.c
sizes32_CFLAGS := -m32
