# SPDX-License-Identifier: GPL-2.0
# test-scalable-map checks through libkbloom's mappings (userspace/), whose
# checks run the filter core inside it, and races a reader thread.
test-scalable-map_LDLIBS := $(LIBKBLOOM) -lxxhash -lpthread
