# SPDX-License-Identifier: GPL-2.0
# test-window checks the mapping with the module's filter core (the code
# libkbloom runs on a mapping) compiled in (see tests/vm/Makefile).
test-window_SRCS := $(KBLOOM_CORE)
test-window_LDLIBS := -lxxhash -lm
