# SPDX-License-Identifier: GPL-2.0
# kbloom-vmbench measures the module's filter core in userspace beside the
# device, so it links the core itself (see tests/vm/Makefile).
kbloom-vmbench_SRCS := $(KBLOOM_CORE)
kbloom-vmbench_LDLIBS := -lxxhash -lm
