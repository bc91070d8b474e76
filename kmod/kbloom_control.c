// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/kbloom-control: creating a filter checks the request, the caps and
 * the name (kbloom_registry.c), then publishes the filter's node; destroy
 * unpublishes it while open files keep the object alive.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/random.h>
#include <linux/uaccess.h>

#include "kbloom_internal.h"

/*
 * A window's capacity is the keys of its g - 1 guaranteed generations;
 * given rotate_every and no capacity, that is (g - 1) * rotate_every.
 */
static int kbloom_create_capacity(const struct kbloom_create *req,
				  u64 *capacity)
{
	*capacity = req->capacity;
	if (req->type != KBLOOM_TYPE_WINDOW || *capacity || !req->rotate_every)
		return 0;
	if (check_mul_overflow((u64)req->generations - 1, req->rotate_every,
			       capacity))
		return -EINVAL;
	return 0;
}

/* Exactly one way of sizing: by rate, by bits, or by bits per key. */
/*
 * A scalable filter's sub-filter 0, which the caps judge at create: sized
 * by capacity and fp_ppb alone (the schedule sizes every sub-filter by
 * rate), of a type that can grow (bits or counting).
 */
static int kbloom_create_scalable(const struct kbloom_create *req,
				  struct kbloom_geometry *geo)
{
	struct kbloom_chain_params cp = {
		.capacity = req->capacity,
		.type = req->type,
		.fp_ppb = req->fp_ppb,
		.expansion = req->expansion,
	};

	if (req->type == KBLOOM_TYPE_WINDOW || !req->fp_ppb || req->k)
		return -EINVAL;
	if (req->flags & KBLOOM_CREATE_SEED)
		cp.seed = req->seed;
	else
		cp.seed = get_random_u64();
	return kbloom_chain_sub_geometry(geo, &cp, 0);
}

static int kbloom_create_geometry(const struct kbloom_create *req,
				  struct kbloom_geometry *geo)
{
	int ways = !!req->fp_ppb + !!req->bits + !!req->bits_per_key;
	u64 capacity;
	int err;

	if (ways != 1)
		return -EINVAL;
	if (req->expansion)
		return kbloom_create_scalable(req, geo);
	err = kbloom_create_capacity(req, &capacity);
	if (err)
		return err;
	if (req->fp_ppb) {
		if (!capacity || req->k)
			return -EINVAL;
		err = kbloom_geometry_from_rate_gen(geo, req->type,
						    req->generations, capacity,
						    req->fp_ppb);
	} else if (req->bits) {
		err = kbloom_geometry_from_bits_gen(geo, req->type,
						    req->generations, req->bits,
						    req->k, capacity);
	} else {
		if (!capacity)
			return -EINVAL;
		err = kbloom_geometry_from_bits_per_key_gen(geo, req->type,
							    req->generations,
							    capacity,
							    req->bits_per_key,
							    req->k);
	}
	if (err)
		return err;
	if (req->flags & KBLOOM_CREATE_SEED)
		geo->seed = req->seed;
	else
		geo->seed = get_random_u64();
	return kbloom_geometry_validate(geo);
}

/*
 * The window fields, each rejection on its own: generations in range for
 * a window and 0 for the other types, as rotate_ms and rotate_every are
 * (0 for a window means no timer, no count).
 */
static int kbloom_create_check_window(const struct kbloom_create *req)
{
	if (req->type != KBLOOM_TYPE_WINDOW) {
		if (req->generations)
			return -EINVAL;
		if (req->rotate_ms)
			return -EINVAL;
		if (req->rotate_every)
			return -EINVAL;
		return 0;
	}
	if (req->generations < KBLOOM_GENERATIONS_MIN)
		return -EINVAL;
	if (req->generations > KBLOOM_GENERATIONS_MAX)
		return -EINVAL;
	if (req->rotate_ms && req->rotate_ms < KBLOOM_ROTATE_MS_MIN)
		return -EINVAL;
	if (req->rotate_ms > KBLOOM_ROTATE_MS_MAX)
		return -EINVAL;
	if (req->rotate_every > KBLOOM_ROTATE_EVERY_MAX)
		return -EINVAL;
	return 0;
}

static int kbloom_create_check(const struct kbloom_create *req)
{
	size_t i;
	int err;

	if (req->flags & ~KBLOOM_CREATE_FLAGS)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(req->reserved); i++)
		if (req->reserved[i])
			return -EINVAL;
	if (req->expansion > KBLOOM_EXPANSION_MAX)
		return -EINVAL;
	/* A seed without its flag is a caller's mistake, not a request. */
	if (req->seed && !(req->flags & KBLOOM_CREATE_SEED))
		return -EINVAL;
	if (req->type != KBLOOM_TYPE_BITS &&
	    req->type != KBLOOM_TYPE_COUNTING &&
	    req->type != KBLOOM_TYPE_WINDOW)
		return -EINVAL;
	err = kbloom_create_check_window(req);
	if (err)
		return err;
	if (req->node_mode & ~0777U)
		return -EINVAL;
	if (!kbloom_name_valid(req->name))
		return -EINVAL;
	return 0;
}

int kbloom_create(const struct kbloom_create *req, kuid_t uid, kgid_t gid)
{
	struct kbloom_geometry geo;
	struct kbloom_dev *kd;
	umode_t mode;
	u64 held;
	int err;

	err = kbloom_create_check(req);
	if (err)
		return err;
	err = kbloom_create_geometry(req, &geo);
	if (err)
		return err;
	/* The caps count all the filter holds, not only its cells. */
	held = kbloom_dev_held(&geo, req);
	if (held > READ_ONCE(kbloom_max_filter_bytes))
		return -E2BIG;
	mode = req->node_mode ? req->node_mode : 0600;

	kbloom_registry_lock();
	if (kbloom_name_reserved(req->name) ||
	    kbloom_registry_find(req->name)) {
		err = -EEXIST;
		goto unlock;
	}
	if (atomic_read(&kbloom_nr_filters) >= READ_ONCE(kbloom_max_filters)) {
		err = -ENOSPC;
		goto unlock;
	}
	if (!kbloom_total_allows(held)) {
		err = -E2BIG;
		goto unlock;
	}
	kd = kbloom_dev_alloc(req->name, &geo, req, mode, uid, gid);
	if (IS_ERR(kd)) {
		err = PTR_ERR(kd);
		goto unlock;
	}
	err = kbloom_registry_add_id(kd);
	if (err) {
		put_device(&kd->dev);
		goto unlock;
	}
	err = kbloom_dev_add(kd);
	if (err) {
		kbloom_registry_del_id(kd);
		/* A lookup may have got it meanwhile: it must answer -ENODEV. */
		WRITE_ONCE(kd->dead, true);
		put_device(&kd->dev);
		goto unlock;
	}
	kbloom_registry_add(kd);
	kbloom_window_start(kd);
unlock:
	kbloom_registry_unlock();
	return err;
}

/*
 * Destroy in three steps, so that the registry lock, which every create
 * and destroy takes, is never held while one filter is waited for: its
 * in-flight ioctls (kd->lock), a rotation, sysfs reads (removing the node
 * waits for them).  First, under the lock, the filter leaves the lookups
 * (the id, the count: kbloom_registry_hide()) but keeps its place in the
 * registry, marked dying,
 * so that its name stays taken (EEXIST) until its node is gone: a create
 * of the same name cannot collide with the old node.  Then, without the
 * lock, it is removed.  Last, under the lock again, it leaves the
 * registry, and the registry's reference is dropped.
 */
static void kbloom_unpublish(struct kbloom_dev *kd)
{
	kbloom_dev_remove(kd);
	kbloom_registry_del(kd);
	put_device(&kd->dev);
}

/*
 * Write access to the control node changes the set of filters, but
 * removing one also needs the right to that filter: its owner (the fsuid
 * it was created with), write permission on its node by the mode, uid and
 * gid given at create (the usual owner, group, other classes, so a group
 * member is judged by the group bits alone), or CAP_SYS_ADMIN.  Otherwise
 * a group-writable control node, as the udev rule suggests, would let any
 * member destroy another's 0600 filter.
 */
static bool kbloom_may_destroy(const struct kbloom_dev *kd)
{
	kuid_t fsuid = current_fsuid();
	umode_t mode = kd->mode;

	if (uid_eq(fsuid, kd->uid))
		return true;
	if (in_group_p(kd->gid))
		mode >>= 3;
	if (mode & 0002)
		return true;
	return capable(CAP_SYS_ADMIN);
}

int kbloom_destroy(const char *name)
{
	struct kbloom_dev *kd;
	int err = 0;

	kbloom_registry_lock();
	kd = kbloom_registry_find(name);
	if (!kd || kd->dying)
		err = -ENOENT;
	else if (!kbloom_may_destroy(kd))
		err = -EACCES;
	else
		kbloom_registry_hide(kd);
	kbloom_registry_unlock();
	if (!err)
		kbloom_unpublish(kd);
	return err;
}

/* At module exit: no file of the control node is open, none races. */
void kbloom_destroy_all(void)
{
	struct kbloom_dev *kd;

	for (;;) {
		kbloom_registry_lock();
		kd = kbloom_registry_first();
		if (kd)
			kbloom_registry_hide(kd);
		kbloom_registry_unlock();
		if (!kd)
			return;
		kbloom_unpublish(kd);
	}
}

static long kbloom_control_create(void __user *uarg)
{
	struct kbloom_create req;

	if (copy_from_user(&req, uarg, sizeof(req)))
		return -EFAULT;
	return kbloom_create(&req, current_fsuid(), current_fsgid());
}

static long kbloom_control_destroy(void __user *uarg)
{
	struct kbloom_name req;
	size_t i;

	if (copy_from_user(&req, uarg, sizeof(req)))
		return -EFAULT;
	for (i = 0; i < ARRAY_SIZE(req.reserved); i++)
		if (req.reserved[i])
			return -EINVAL;
	if (!kbloom_name_valid(req.name))
		return -EINVAL;
	return kbloom_destroy(req.name);
}

static long kbloom_control_ioctl(struct file *file, unsigned int cmd,
				 unsigned long arg)
{
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case KBLOOM_CTL_CREATE:
	case KBLOOM_CTL_DESTROY:
		break;
	default:
		return -ENOTTY;
	}
	/* Changing the set of filters is a write to the control node. */
	if (!(file->f_mode & FMODE_WRITE))
		return -EBADF;
	if (cmd == KBLOOM_CTL_CREATE)
		return kbloom_control_create(uarg);
	return kbloom_control_destroy(uarg);
}

static const struct file_operations kbloom_control_fops = {
	.owner = THIS_MODULE,
	.open = nonseekable_open,
	.unlocked_ioctl = kbloom_control_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

static struct miscdevice kbloom_control_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "kbloom-control",
	.fops = &kbloom_control_fops,
	.mode = 0600,
};

int kbloom_control_register(void)
{
	return misc_register(&kbloom_control_dev);
}

void kbloom_control_deregister(void)
{
	misc_deregister(&kbloom_control_dev);
}
