# SPDX-License-Identifier: GPL-2.0
# torture's mapped readers check keys with the module's filter core on the
# mapped cells, so it links the core itself; its BPF readers load
# bpf/test.bpf.o, embedded by bpf/objects.S, with static libbpf (see
# tests/vm/Makefile).
torture_SRCS := bpf/objects.S $(KBLOOM_CORE)
torture_DEPS := $(BPF_OBJS)
torture_CFLAGS := $(BPF_EMBED_CFLAGS)
torture_LDLIBS := $(LIBBPF) -lxxhash -lm
