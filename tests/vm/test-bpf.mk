# SPDX-License-Identifier: GPL-2.0
# test-bpf loads the BPF objects of bpf/ (embedded through bpf/objects.S)
# with static libbpf and runs them with BPF_PROG_TEST_RUN; its lifetime
# case runs programs from threads (see tests/vm/Makefile).
test-bpf_SRCS := bpf/objects.S
test-bpf_DEPS := $(BPF_OBJS)
test-bpf_CFLAGS := $(BPF_EMBED_CFLAGS)
test-bpf_LDLIBS := $(LIBBPF) -lpthread
