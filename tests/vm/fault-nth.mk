# SPDX-License-Identifier: GPL-2.0
# fault-nth checks keys through a mapping with the module's filter core
# (see tests/vm/Makefile).
fault-nth_SRCS := $(KBLOOM_CORE)
fault-nth_LDLIBS := -lxxhash -lm
