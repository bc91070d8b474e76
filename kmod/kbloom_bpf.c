// SPDX-License-Identifier: GPL-2.0
/*
 * BPF kfuncs: XDP, tc, tracing, LSM, SYSCALL and (where the kernel hooks
 * them) cgroup, socket, LWT, netfilter and kprobe programs acquire a filter
 * by id or name, check keys, add them where that is safe, and release it.
 * The contract is at the end of include/linux/kbloom_api.h.
 *
 * A program that calls them holds a reference to this module for as long
 * as it is loaded (the verifier keeps one per module whose kfuncs it
 * calls), so an acquired filter needs no module reference of its own: the
 * acquire is a lookup and one atomic increment, cheap enough per packet.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/err.h>
#include <linux/kbloom_api.h>
#include <linux/module.h>

#include "kbloom_internal.h"

#if IS_ENABLED(CONFIG_BPF_SYSCALL) && IS_ENABLED(CONFIG_DEBUG_INFO_BTF_MODULES)

__bpf_kfunc struct kbloom_filter *bpf_kbloom_acquire(u32 id)
{
	struct kbloom_dev *kd = kbloom_dev_get_id(id);

	return kd ? &kd->filter : NULL;
}

__bpf_kfunc struct kbloom_filter *
bpf_kbloom_acquire_name(const char *name, u32 name__sz)
{
	struct kbloom_dev *kd = kbloom_kapi_get_name(name, name__sz);

	return IS_ERR(kd) ? NULL : &kd->filter;
}

__bpf_kfunc void bpf_kbloom_release(struct kbloom_filter *f)
{
	kbloom_dev_put(container_of(f, struct kbloom_dev, filter));
}

/*
 * A reference a BPF map keeps as a kptr (bpf_kptr_xchg()) is dropped
 * through this when the map, or the element holding it, goes.  void *,
 * not the filter: the kernel calls it through void (*)(void *), and kCFI
 * checks an indirect call against the type it calls through; the BTF
 * check of the destructor (btf_check_dtor_kfuncs()) takes any pointer.
 * Its caller may be any context bpf_kbloom_release() allows.  6.1 calls
 * it for every slot of a map it frees, the empty ones too, with NULL
 * (bpf_map_free_kptrs()); 6.12 only for the slots that hold a reference.
 */
__bpf_kfunc void bpf_kbloom_release_dtor(void *f)
{
	if (f)
		bpf_kbloom_release(f);
}

CFI_NOSEAL(bpf_kbloom_release_dtor);

__bpf_kfunc int bpf_kbloom_check(struct kbloom_filter *f, const void *key,
				 u32 key__sz)
{
	return kbloom_kapi_check(f, key, key__sz);
}

__bpf_kfunc int bpf_kbloom_add(struct kbloom_filter *f, const void *key,
			       u32 key__sz)
{
	return kbloom_kapi_add(f, key, key__sz);
}

/*
 * KF_TRUSTED_ARGS: the filter must be the one an acquire returned, not a
 * pointer a program found by walking some other kernel struct.
 */
BTF_KFUNCS_START(kbloom_read_kfuncs)
BTF_ID_FLAGS(func, bpf_kbloom_acquire, KF_ACQUIRE | KF_RET_NULL)
BTF_ID_FLAGS(func, bpf_kbloom_acquire_name, KF_ACQUIRE | KF_RET_NULL)
BTF_ID_FLAGS(func, bpf_kbloom_release, KF_RELEASE)
BTF_ID_FLAGS(func, bpf_kbloom_check, KF_TRUSTED_ARGS)
BTF_KFUNCS_END(kbloom_read_kfuncs)

BTF_KFUNCS_START(kbloom_write_kfuncs)
BTF_ID_FLAGS(func, bpf_kbloom_acquire, KF_ACQUIRE | KF_RET_NULL)
BTF_ID_FLAGS(func, bpf_kbloom_acquire_name, KF_ACQUIRE | KF_RET_NULL)
BTF_ID_FLAGS(func, bpf_kbloom_release, KF_RELEASE)
BTF_ID_FLAGS(func, bpf_kbloom_check, KF_TRUSTED_ARGS)
BTF_ID_FLAGS(func, bpf_kbloom_add, KF_TRUSTED_ARGS)
BTF_KFUNCS_END(kbloom_write_kfuncs)

static const struct btf_kfunc_id_set kbloom_read_set = {
	.owner = THIS_MODULE,
	.set = &kbloom_read_kfuncs,
};

static const struct btf_kfunc_id_set kbloom_write_set = {
	.owner = THIS_MODULE,
	.set = &kbloom_write_kfuncs,
};

BTF_ID_LIST(kbloom_dtor_ids)
BTF_ID(struct, kbloom_filter)
BTF_ID(func, bpf_kbloom_release_dtor)

/*
 * The destructor makes struct kbloom_filter a type a map may hold a
 * referenced kptr to: without it the kernel refuses such a map (-ENOENT
 * from btf_find_dtor_kfunc() at its creation).  The kernel copies the
 * table.  A module may register destructors only once.
 */
static int kbloom_bpf_register_dtor(void)
{
	const struct btf_id_dtor_kfunc dtors[] = {
		{
			.btf_id = kbloom_dtor_ids[0],
			.kfunc_btf_id = kbloom_dtor_ids[1],
		},
	};

	return register_btf_id_dtor_kfuncs(dtors, ARRAY_SIZE(dtors),
					   THIS_MODULE);
}

/*
 * One program type for each kfunc hook a kernel may have.  The kernel
 * maps program types to hooks (kernel/bpf/btf.c): on 6.1 TRACING serves
 * LSM programs as well, and the types from CGROUP_SKB down have no hook,
 * so their registration fails; 6.4 gave cgroup, tc action, sk_skb, socket
 * filter, LWT and netfilter programs hooks of their own, 6.10 kprobes.  A
 * second registration for a hook this module already filled is refused
 * with a WARN, so no two types listed here may share a hook on any kernel
 * (LSM, tracepoint and perf_event programs share TRACING's on 6.1 and
 * 6.12 and are not listed).
 *
 * Tracing and kprobe programs may run in hard interrupts and NMIs, where
 * an add could only fail: they get checks alone.  SYSCALL programs, which
 * a process with CAP_BPF alone runs on demand, add too: the kfuncs do not
 * judge node modes, and CAP_BPF is trusted like root for filters (why:
 * "Permissions" in include/linux/kbloom_api.h).
 */
static const struct {
	enum bpf_prog_type type;
	const char *name;
	const struct btf_kfunc_id_set *set;
} kbloom_kfunc_hooks[] = {
	{ BPF_PROG_TYPE_XDP, "xdp", &kbloom_write_set },
	{ BPF_PROG_TYPE_SCHED_CLS, "tc", &kbloom_write_set },
	{ BPF_PROG_TYPE_SYSCALL, "syscall", &kbloom_write_set },
	{ BPF_PROG_TYPE_TRACING, "tracing and lsm", &kbloom_read_set },
	{ BPF_PROG_TYPE_CGROUP_SKB, "cgroup", &kbloom_write_set },
	{ BPF_PROG_TYPE_SCHED_ACT, "tc action", &kbloom_write_set },
	{ BPF_PROG_TYPE_SK_SKB, "sk_skb", &kbloom_write_set },
	{ BPF_PROG_TYPE_SOCKET_FILTER, "socket filter", &kbloom_write_set },
	{ BPF_PROG_TYPE_LWT_IN, "lwt", &kbloom_write_set },
#ifdef KBLOOM_HAVE_BPF_PROG_TYPE_NETFILTER
	{ BPF_PROG_TYPE_NETFILTER, "netfilter", &kbloom_write_set },
#endif
	{ BPF_PROG_TYPE_KPROBE, "kprobe", &kbloom_read_set },
};

/*
 * Registers every hook this kernel has and returns how many it took.  A
 * kernel without a hook for a type refuses it with -EINVAL and drops
 * every set this module registered before (btf_free_kfunc_set_tab()), so
 * after a refusal the hooks taken so far are registered again, without
 * the refused type: at most one pass per hook.
 */
static unsigned int kbloom_bpf_register_hooks(unsigned long *refused)
{
	unsigned int taken;
	size_t i;
	int err;

again:
	taken = 0;
	for (i = 0; i < ARRAY_SIZE(kbloom_kfunc_hooks); i++) {
		if (test_bit(i, refused))
			continue;
		err = register_btf_kfunc_id_set(kbloom_kfunc_hooks[i].type,
						kbloom_kfunc_hooks[i].set);
		if (err) {
			pr_info("no kfuncs for %s programs: this kernel refused them (%d)\n",
				kbloom_kfunc_hooks[i].name, err);
			__set_bit(i, refused);
			if (taken)
				goto again;
			continue;
		}
		taken++;
	}
	return taken;
}

void kbloom_bpf_register(void)
{
	DECLARE_BITMAP(refused, ARRAY_SIZE(kbloom_kfunc_hooks)) = { 0 };
	unsigned int taken;
	int err;

	/*
	 * Without the module's own BTF the kernel registers nothing and says
	 * little, and programs then fail to load with "kernel function
	 * bpf_kbloom_check is not found": say why here.
	 */
	if (!THIS_MODULE->btf_data_size) {
		pr_warn("built without BTF: BPF programs cannot call kbloom's kfuncs (build with pahole, a vmlinux and resolve_btfids; see Documentation/admin-guide/kbloom.rst)\n");
		return;
	}
	taken = kbloom_bpf_register_hooks(refused);
	/*
	 * The module works without kfuncs: a kernel that takes none of them
	 * costs BPF programs their access, never the module its load.
	 */
	if (!taken) {
		pr_warn("no BPF program type took kbloom's kfuncs\n");
		return;
	}
	pr_info("kfuncs registered for %u BPF program hooks\n", taken);
	/* Programs still acquire per run without it: log, load on. */
	err = kbloom_bpf_register_dtor();
	if (err)
		pr_warn("no destructor registered (%d): BPF maps cannot keep filter references as kptrs\n",
			err);
}

#else

void kbloom_bpf_register(void)
{
	pr_info("kernel without BPF or module BTF: no kfuncs\n");
}

#endif
