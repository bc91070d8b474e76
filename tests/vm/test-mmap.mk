# SPDX-License-Identifier: GPL-2.0
# test-mmap checks through the mapping with the module's filter core, the
# code libkbloom runs on a mapping, so it links the core itself (see
# tests/vm/Makefile).
test-mmap_SRCS := $(KBLOOM_CORE)
test-mmap_LDLIBS := -lxxhash -lm
