# SPDX-License-Identifier: GPL-2.0
# test-mmap maps a filter with the module's filter core (the code
# libkbloom runs on a mapping) compiled in (see tests/vm/Makefile).
test-mmap_SRCS := $(KBLOOM_CORE)
test-mmap_LDLIBS := -lxxhash -lm
