# SPDX-License-Identifier: GPL-2.0
# kbloom-vmbench measures the module's filter core in userspace beside the
# device and checks through the mapping, with the core and with libkbloom,
# so it links both (see tests/vm/Makefile).
kbloom-vmbench_SRCS := $(KBLOOM_CORE)
kbloom-vmbench_LDLIBS := $(LIBKBLOOM) -lxxhash -lm
