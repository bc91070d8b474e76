# SPDX-License-Identifier: GPL-2.0
# test-image-io compares the device's images with the filter core's, so it
# links the core itself (see tests/vm/Makefile).
test-image-io_SRCS := $(KBLOOM_CORE)
test-image-io_LDLIBS := -lxxhash -lm
