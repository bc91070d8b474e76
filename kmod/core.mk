# SPDX-License-Identifier: GPL-2.0
# The filter core's sources, relative to kmod/.  One list, used by the
# module, KUnit, the host tests and the benchmark so they cannot drift.
KBLOOM_CORE_SRCS := kbloom_core.c kbloom_formula.c kbloom_geometry.c \
		    kbloom_stats.c kbloom_image.c
