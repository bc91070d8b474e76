// SPDX-License-Identifier: GPL-2.0
/*
 * BPF kfuncs: XDP, tc, tracing, LSM and SYSCALL programs acquire a filter
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

noinline struct kbloom_filter *bpf_kbloom_acquire(u32 id)
{
	struct kbloom_dev *kd = kbloom_dev_get_id(id);

	return kd ? &kd->filter : NULL;
}

noinline struct kbloom_filter *bpf_kbloom_acquire_name(const char *name,
							u32 name__sz)
{
	struct kbloom_dev *kd = kbloom_kapi_get_name(name, name__sz);

	return IS_ERR(kd) ? NULL : &kd->filter;
}

noinline void bpf_kbloom_release(struct kbloom_filter *f)
{
	put_device(&container_of(f, struct kbloom_dev, filter)->dev);
}

noinline int bpf_kbloom_check(struct kbloom_filter *f, const void *key,
			      u32 key__sz)
{
	return kbloom_kapi_check(f, key, key__sz);
}

noinline int bpf_kbloom_add(struct kbloom_filter *f, const void *key,
			    u32 key__sz)
{
	return kbloom_kapi_add(f, key, key__sz);
}

/*
 * KF_TRUSTED_ARGS: the filter must be the one an acquire returned, not a
 * pointer a program found by walking some other kernel struct.
 */
BTF_SET8_START(kbloom_read_kfuncs)
BTF_ID_FLAGS(func, bpf_kbloom_acquire, KF_ACQUIRE | KF_RET_NULL)
BTF_ID_FLAGS(func, bpf_kbloom_acquire_name, KF_ACQUIRE | KF_RET_NULL)
BTF_ID_FLAGS(func, bpf_kbloom_release, KF_RELEASE)
BTF_ID_FLAGS(func, bpf_kbloom_check, KF_TRUSTED_ARGS)
BTF_SET8_END(kbloom_read_kfuncs)

BTF_SET8_START(kbloom_write_kfuncs)
BTF_ID_FLAGS(func, bpf_kbloom_acquire, KF_ACQUIRE | KF_RET_NULL)
BTF_ID_FLAGS(func, bpf_kbloom_acquire_name, KF_ACQUIRE | KF_RET_NULL)
BTF_ID_FLAGS(func, bpf_kbloom_release, KF_RELEASE)
BTF_ID_FLAGS(func, bpf_kbloom_check, KF_TRUSTED_ARGS)
BTF_ID_FLAGS(func, bpf_kbloom_add, KF_TRUSTED_ARGS)
BTF_SET8_END(kbloom_write_kfuncs)

static const struct btf_kfunc_id_set kbloom_read_set = {
	.owner = THIS_MODULE,
	.set = &kbloom_read_kfuncs,
};

static const struct btf_kfunc_id_set kbloom_write_set = {
	.owner = THIS_MODULE,
	.set = &kbloom_write_kfuncs,
};

/*
 * Tracing programs may run in hard interrupts and NMIs, where an add could
 * only fail: they get checks alone.  BPF_PROG_TYPE_LSM is not listed: 6.1
 * gives it the tracing programs' hook, and a module registering a second
 * set for one hook gets -EINVAL and a WARN.
 */
static const struct {
	enum bpf_prog_type type;
	const struct btf_kfunc_id_set *set;
} kbloom_kfunc_hooks[] = {
	{ BPF_PROG_TYPE_XDP, &kbloom_write_set },
	{ BPF_PROG_TYPE_SCHED_CLS, &kbloom_write_set },
	{ BPF_PROG_TYPE_SYSCALL, &kbloom_write_set },
	{ BPF_PROG_TYPE_TRACING, &kbloom_read_set },
};

int kbloom_bpf_register(void)
{
	size_t i;
	int err;

	/*
	 * Without the module's own BTF the kernel registers nothing and says
	 * little, and programs then fail to load with "kernel function
	 * bpf_kbloom_check is not found": say why here.
	 */
	if (!THIS_MODULE->btf_data_size) {
		pr_warn("built without BTF: BPF programs cannot call kbloom's kfuncs (build with pahole, a vmlinux and resolve_btfids; see README)\n");
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(kbloom_kfunc_hooks); i++) {
		err = register_btf_kfunc_id_set(kbloom_kfunc_hooks[i].type,
						kbloom_kfunc_hooks[i].set);
		if (err) {
			pr_err("registering kfuncs for BPF program type %d: %d\n",
			       kbloom_kfunc_hooks[i].type, err);
			return err;
		}
	}
	return 0;
}

#else

int kbloom_bpf_register(void)
{
	pr_info("kernel without BPF or module BTF: no kfuncs\n");
	return 0;
}

#endif
