# SPDX-License-Identifier: GPL-2.0
# fuzz-ioctl's mapping operations live in fuzz/mmap.c (a subdirectory,
# since every tests/vm/*.c is a program of its own) and check keys through
# a mapping with the module's filter core (see tests/vm/Makefile).
fuzz-ioctl_SRCS := fuzz/mmap.c $(KBLOOM_CORE)
fuzz-ioctl_LDLIBS := -lxxhash -lm
