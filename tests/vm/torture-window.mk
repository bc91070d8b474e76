# SPDX-License-Identifier: GPL-2.0
# torture-window's mapped readers check keys with the module's filter core
# on the mapped cells, so it links the core itself (see tests/vm/Makefile).
torture-window_SRCS := $(KBLOOM_CORE)
torture-window_LDLIBS := -lxxhash -lm
