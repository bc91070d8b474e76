# SPDX-License-Identifier: GPL-2.0
# test-counting compares the device's images with the filter core's, so it
# links the core itself (see tests/vm/Makefile).
test-counting_SRCS := $(KBLOOM_CORE)
test-counting_LDLIBS := -lxxhash -lm
