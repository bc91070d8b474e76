/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF objects, built from the bpf/NAME.bpf.c sources into $(BPF_OUT) by
 * tests/vm/Makefile, embedded in the static programs that load them with
 * bpf_object__open_mem() (the VM has no files but the initramfs, and a
 * program that carries its objects cannot load stale ones).  The
 * assembler finds them through -Wa,-I$(BPF_OUT).  For each NAME.bpf.o:
 * kbloom_bpf_NAME and kbloom_bpf_NAME_end (see bpf/loader.h).
 */
	.macro	kbloom_bpf_object name
	.section .rodata.kbloom_bpf,"a"
	.balign	8
	.globl	kbloom_bpf_\name
kbloom_bpf_\name:
	.incbin	"\name\().bpf.o"
	.globl	kbloom_bpf_\name\()_end
kbloom_bpf_\name\()_end:
	.endm

	kbloom_bpf_object test
	kbloom_bpf_object reject
	kbloom_bpf_object types
	kbloom_bpf_object bench

	.section .note.GNU-stack,"",@progbits
