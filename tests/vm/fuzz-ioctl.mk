# SPDX-License-Identifier: GPL-2.0
# fuzz-ioctl.c is the driver; its oracles and operations live in fuzz/, a
# file a concept (a subdirectory, since every tests/vm/*.c is a program of
# its own).  It checks keys through a mapping
# with the module's filter core, and loads bpf/test.bpf.o, embedded by
# bpf/objects.S, with static libbpf (see tests/vm/Makefile).
fuzz-ioctl_SRCS := fuzz/oracle.c fuzz/args.c fuzz/control.c fuzz/filter.c \
	fuzz/image.c fuzz/mmap.c fuzz/kapi.c fuzz/bpf.c bpf/objects.S \
	$(KBLOOM_CORE)
fuzz-ioctl_DEPS := $(BPF_OBJS)
fuzz-ioctl_CFLAGS := $(BPF_EMBED_CFLAGS)
# --wrap=syscall: fuzz/bpf.c sees libbpf's system calls (why: there).
fuzz-ioctl_LDLIBS := -Wl,--wrap=syscall $(LIBBPF) -lxxhash -lm
