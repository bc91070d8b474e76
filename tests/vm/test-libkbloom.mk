# SPDX-License-Identifier: GPL-2.0
# test-libkbloom drives the device through libkbloom (userspace/).
test-libkbloom_LDLIBS := $(LIBKBLOOM)
