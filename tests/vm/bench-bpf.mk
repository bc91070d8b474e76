# SPDX-License-Identifier: GPL-2.0
# bench-bpf loads bpf/bench.bpf.c's programs (embedded through
# bpf/objects.S) with static libbpf; its formulas need libm (see
# tests/vm/Makefile); its two-CPU rows run threads.
bench-bpf_SRCS := bpf/objects.S
bench-bpf_DEPS := $(BPF_OBJS)
bench-bpf_CFLAGS := $(BPF_EMBED_CFLAGS)
bench-bpf_LDLIBS := $(LIBBPF) -lm -lpthread
