// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/kbloom-control and the name registry: creating a filter checks the
 * request, the caps and the name, then publishes the filter's node; destroy
 * unpublishes it while open files keep the object alive.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>

#include "kbloom_internal.h"

/* Serialises create and destroy; adds and checks never take it. */
static DEFINE_MUTEX(kbloom_registry_lock);
static LIST_HEAD(kbloom_registry);
/* Filters with a name, and bytes of bits held (destroyed but open too). */
atomic_t kbloom_nr_filters = ATOMIC_INIT(0);
atomic64_t kbloom_total_bytes = ATOMIC64_INIT(0);

/*
 * Published filters by id, for other modules and BPF programs
 * (kbloom_kapi.c), which look up from any context, where the registry's
 * mutex cannot be taken: they read it under RCU.  Ids go round cyclically,
 * like minors, so that a stale id finds nothing rather than a filter
 * created a moment later.  Writers hold kbloom_registry_lock too.
 */
static DEFINE_XARRAY_ALLOC1(kbloom_ids);
static u32 kbloom_next_id;

static bool kbloom_name_char_valid(char c)
{
	/* ASCII only: the kernel's isalnum() accepts Latin-1 letters. */
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

/* 1..31 allowed characters, NUL-padded; "." and ".." are not files. */
bool kbloom_name_valid(const char *name)
{
	size_t len = strnlen(name, KBLOOM_NAME_MAX);
	size_t i;

	if (!len || len == KBLOOM_NAME_MAX)
		return false;
	for (i = 0; i < len; i++)
		if (!kbloom_name_char_valid(name[i]))
			return false;
	for (; i < KBLOOM_NAME_MAX; i++)
		if (name[i])
			return false;
	return strcmp(name, ".") && strcmp(name, "..");
}

static struct kbloom_dev *kbloom_find(const char *name)
{
	struct kbloom_dev *kd;

	lockdep_assert_held(&kbloom_registry_lock);
	list_for_each_entry(kd, &kbloom_registry, registry_node)
		if (!strcmp(kd->name, name))
			return kd;
	return NULL;
}

/*
 * Under RCU the filter may be on its way out: its last put has run or is
 * running, and its struct is freed only after a grace period
 * (kbloom_dev.c), so the reference count can still be looked at.
 */
static struct kbloom_dev *kbloom_dev_tryget(struct kbloom_dev *kd)
{
	if (!kd || !kobject_get_unless_zero(&kd->dev.kobj))
		return NULL;
	return kd;
}

struct kbloom_dev *kbloom_dev_get_id(u32 id)
{
	struct kbloom_dev *kd;

	rcu_read_lock();
	kd = kbloom_dev_tryget(xa_load(&kbloom_ids, id));
	rcu_read_unlock();
	return kd;
}

/*
 * A walk of the published filters: at most max_filters (1024 by default)
 * name compares, fine for a lookup made once per user; a BPF program that
 * looks up per packet should do it by id.
 */
struct kbloom_dev *kbloom_dev_get_name(const char *name)
{
	struct kbloom_dev *kd, *found = NULL;
	unsigned long id;

	rcu_read_lock();
	xa_for_each(&kbloom_ids, id, kd) {
		if (!strncmp(kd->name, name, KBLOOM_NAME_MAX)) {
			found = kbloom_dev_tryget(kd);
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

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

/*
 * Bytes that open files hold for images being restored (each a whole
 * image, up to its filter's size: kbloom_image_io.c).  They count against
 * max_total_bytes with the filters', or N files restoring at once would
 * hold N filters' worth outside the cap.
 */
static atomic64_t kbloom_buffer_bytes = ATOMIC64_INIT(0);

/* Room for bytes more under max_total_bytes, which may have been lowered. */
static bool kbloom_total_allows(u64 bytes)
{
	u64 cap = READ_ONCE(kbloom_max_total_bytes);
	u64 held = atomic64_read(&kbloom_total_bytes) +
		   atomic64_read(&kbloom_buffer_bytes);

	return held <= cap && bytes <= cap - held;
}

/*
 * Charged first and checked after, so that two files racing for the last
 * room cannot both get it; one that finds itself over gives it back.
 * Filters (both sums are at most 2^37 * 1024 filters each) and buffers
 * cannot overflow the sum.
 */
int kbloom_buffer_charge(u64 bytes)
{
	u64 cap = READ_ONCE(kbloom_max_total_bytes);
	u64 held = atomic64_add_return(bytes, &kbloom_buffer_bytes) +
		   atomic64_read(&kbloom_total_bytes);

	if (held > cap) {
		atomic64_sub(bytes, &kbloom_buffer_bytes);
		return -E2BIG;
	}
	return 0;
}

void kbloom_buffer_uncharge(u64 bytes)
{
	atomic64_sub(bytes, &kbloom_buffer_bytes);
}

/* As a buffer's, for the sub-filter a scalable filter grows by. */
int kbloom_total_charge(u64 bytes)
{
	u64 cap = READ_ONCE(kbloom_max_total_bytes);
	u64 held = atomic64_add_return(bytes, &kbloom_total_bytes) +
		   atomic64_read(&kbloom_buffer_bytes);

	if (held > cap) {
		atomic64_sub(bytes, &kbloom_total_bytes);
		return -E2BIG;
	}
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

	mutex_lock(&kbloom_registry_lock);
	if (kbloom_name_reserved(req->name) || kbloom_find(req->name)) {
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
	/* Before the node appears, so that sysfs "id" is right from the start. */
	err = xa_alloc_cyclic(&kbloom_ids, &kd->id, kd, XA_LIMIT(1, INT_MAX),
			      &kbloom_next_id, GFP_KERNEL);
	if (err < 0) {
		put_device(&kd->dev);
		goto unlock;
	}
	err = kbloom_dev_add(kd);
	if (err) {
		xa_erase(&kbloom_ids, kd->id);
		/* A lookup may have got it meanwhile: it must answer -ENODEV. */
		WRITE_ONCE(kd->dead, true);
		put_device(&kd->dev);
		goto unlock;
	}
	list_add_tail(&kd->registry_node, &kbloom_registry);
	atomic_inc(&kbloom_nr_filters);
	kbloom_window_start(kd);
unlock:
	mutex_unlock(&kbloom_registry_lock);
	return err;
}

/*
 * Destroy in three steps, so that the registry lock, which every create
 * and destroy takes, is never held while one filter is waited for: its
 * in-flight ioctls (kd->lock), a rotation, sysfs reads (removing the node
 * waits for them).  First, under the lock, the filter leaves the lookups
 * (the id, the count) but keeps its place in the registry, marked dying,
 * so that its name stays taken (EEXIST) until its node is gone: a create
 * of the same name cannot collide with the old node.  Then, without the
 * lock, it is removed.  Last, under the lock again, it leaves the
 * registry, and the registry's reference is dropped.
 */
static void kbloom_unpublish_begin(struct kbloom_dev *kd)
{
	lockdep_assert_held(&kbloom_registry_lock);
	kd->dying = true;
	xa_erase(&kbloom_ids, kd->id);
	atomic_dec(&kbloom_nr_filters);
}

static void kbloom_unpublish_end(struct kbloom_dev *kd)
{
	kbloom_dev_remove(kd);
	mutex_lock(&kbloom_registry_lock);
	list_del(&kd->registry_node);
	mutex_unlock(&kbloom_registry_lock);
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

	mutex_lock(&kbloom_registry_lock);
	kd = kbloom_find(name);
	if (!kd || kd->dying)
		err = -ENOENT;
	else if (!kbloom_may_destroy(kd))
		err = -EACCES;
	else
		kbloom_unpublish_begin(kd);
	mutex_unlock(&kbloom_registry_lock);
	if (!err)
		kbloom_unpublish_end(kd);
	return err;
}

/* At module exit: no file of the control node is open, none races. */
void kbloom_destroy_all(void)
{
	struct kbloom_dev *kd;

	for (;;) {
		mutex_lock(&kbloom_registry_lock);
		kd = list_first_entry_or_null(&kbloom_registry,
					      struct kbloom_dev,
					      registry_node);
		if (kd)
			kbloom_unpublish_begin(kd);
		mutex_unlock(&kbloom_registry_lock);
		if (!kd)
			return;
		kbloom_unpublish_end(kd);
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
