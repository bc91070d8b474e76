# SPDX-License-Identifier: GPL-2.0
# test-libkbloom drives the device through libkbloom (userspace/), whose
# mapped checks run the filter core inside it (which needs libxxhash).
test-libkbloom_LDLIBS := $(LIBKBLOOM) -lxxhash
