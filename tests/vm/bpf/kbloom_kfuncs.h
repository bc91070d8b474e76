/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kbloom's kfuncs as a BPF program declares them (the contract is the end
 * of include/linux/kbloom_api.h).  libbpf resolves each __ksym against the
 * kbloom module's BTF at load and checks that these prototypes match the
 * module's.  It compares the kind of a pointed-to type but not its
 * members, and a forward declaration is another kind than the module's
 * struct ("func_proto [8] incompatible with kernel"), so struct
 * kbloom_filter is defined, empty: programs never look inside, and the
 * verifier goes by the module's BTF id.  No "extern": a function
 * declaration is one anyway, and clang gives these extern linkage in BTF.
 */
#ifndef KBLOOM_TEST_BPF_KFUNCS_H
#define KBLOOM_TEST_BPF_KFUNCS_H

#include <linux/types.h>
#include <bpf/bpf_helpers.h>

struct kbloom_filter {
};

/* A reference, or NULL when no live filter has that id (name). */
struct kbloom_filter *bpf_kbloom_acquire(__u32 id) __ksym;
struct kbloom_filter *bpf_kbloom_acquire_name(const char *name,
					      __u32 name__sz) __ksym;
void bpf_kbloom_release(struct kbloom_filter *f) __ksym;
/* 1: maybe present (check) / set a new bit (add), 0: not, or -errno. */
int bpf_kbloom_check(struct kbloom_filter *f, const void *key,
		     __u32 key__sz) __ksym;
int bpf_kbloom_add(struct kbloom_filter *f, const void *key,
		   __u32 key__sz) __ksym;

#endif /* KBLOOM_TEST_BPF_KFUNCS_H */
