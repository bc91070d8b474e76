# SPDX-License-Identifier: GPL-2.0
# test-scalable sizes sub-filters with the module's filter core (the
# schedule and plan of kmod/core/kbloom_chain.c) compiled in, and races
# threads (see tests/vm/Makefile).
test-scalable_SRCS := $(KBLOOM_CORE)
test-scalable_LDLIBS := -lxxhash -lm -lpthread
