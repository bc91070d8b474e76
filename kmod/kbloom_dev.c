// SPDX-License-Identifier: GPL-2.0
/*
 * The filter object behind each /dev/kbloom/<name>: its character device
 * and minor, its allocation and its parts (cells, mapping, statistics
 * cache, window, scalable chain), its publication and removal, its last
 * put from any context, and what GET_INFO and sysfs read of it.  Its
 * node's file operations are in kbloom_fops.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/kdev_t.h>
#include <linux/lockdep.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uidgid.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "kbloom_internal.h"

#define KBLOOM_MINORS	BIT(16)

static dev_t kbloom_devt;
/*
 * Minors are handed out cyclically, never lowest-free: an open that looked
 * up /dev/kbloom/A just before A was destroyed must find no device (-ENXIO)
 * or the dead A (-ENODEV), not a filter created a moment later that would
 * otherwise get A's minor.  Maps minor -> struct kbloom_dev.
 */
static DEFINE_XARRAY_ALLOC(kbloom_minors);
static u32 kbloom_next_minor;

static struct class kbloom_class = {
	.name = "kbloom",
	.class_groups = kbloom_class_groups,
};

/* /dev/kbloom/<name>, owned by the creator with the requested mode. */
static char *kbloom_devnode(kbloom_devnode_const struct device *dev,
			    umode_t *mode, kuid_t *uid, kgid_t *gid)
{
	const struct kbloom_dev *kd = container_of(dev, struct kbloom_dev, dev);

	if (mode)
		*mode = kd->mode;
	if (uid)
		*uid = kd->uid;
	if (gid)
		*gid = kd->gid;
	/*
	 * If this returned NULL the device core would fall back to the bare
	 * name: create would make /dev/<name> and destroy would leave
	 * /dev/kbloom/<name> behind, pointing at a minor the next filter may
	 * get.  So the few bytes are not allowed to fail.
	 */
	return kasprintf(GFP_KERNEL | __GFP_NOFAIL, "kbloom/%s",
			 dev_name(dev));
}

/*
 * The last puts that came where freeing may not sleep, as work items;
 * drained before the module's code goes away.  kbloom_puts_pending counts
 * those handed on and not yet put, so that teardown waits for the ones
 * still on their way through an irq_work.
 */
static struct workqueue_struct *kbloom_free_wq;
static atomic_t kbloom_puts_pending = ATOMIC_INIT(0);

static void kbloom_dev_free(struct kbloom_dev *kd)
{
	/* No reference is left to queue a rotation with: none will run. */
	kbloom_window_stop(kd);
	xa_erase(&kbloom_minors, MINOR(kd->dev.devt));
	kbloom_map_free(kd);
	kbloom_stats_cache_free(&kd->stats_cache);
	kbloom_scalable_free(kd);
	kbloom_filter_free(&kd->filter);
	atomic64_sub(kd->held, &kbloom_total_bytes);
	/* A lookup by id or name may still be looking at the refcount. */
	kfree_rcu(kd, rcu);
}

/*
 * The last reference is gone: no open file, no registry entry, no in-kernel
 * or BPF user.  Every last put_device() comes from process context where
 * sleeping is allowed (kbloom_dev_put() sees to it for the in-kernel and
 * BPF users; files and the registry put only from syscalls), so vfree()
 * and the minors' lock are taken here.
 */
static void kbloom_dev_release(struct device *dev)
{
	might_sleep();
	kbloom_dev_free(to_kbloom_dev(dev));
}

static void kbloom_dev_put_work(struct work_struct *work)
{
	put_device(&container_of(work, struct kbloom_dev, put_work)->dev);
	/* kd may be gone now; the count is not its own. */
	if (atomic_dec_and_test(&kbloom_puts_pending))
		wake_up_var(&kbloom_puts_pending);
}

/* Hard interrupt context, even on PREEMPT_RT: queue_work() is fine here. */
static void kbloom_dev_put_irq(struct irq_work *work)
{
	queue_work(kbloom_free_wq,
		   &container_of(work, struct kbloom_dev, put_irq)->put_work);
}

/*
 * The last put_device() runs the release, and before it kobject_cleanup()
 * frees with kfree() what the driver core keeps of the device (its private
 * part, its name).  Neither may run in NMI (a BPF tracing program on a
 * perf event releases there; the allocator's locks and queue_work() are
 * not NMI-safe), nor where sleeping is forbidden (vfree(), the minors'
 * lock), nor on PREEMPT_RT anywhere the allocator's sleeping locks may not
 * be taken (a hard interrupt, a raw spinlock, preempt_disable(),
 * interrupts off: Documentation/locking/locktypes.rst).  So a put outside
 * sleepable process context is done in place only when it is not the
 * last; the last is handed to an irq_work, which NMI may queue, and from
 * there to a work item, before anything is freed.  Only the holder of the
 * last reference hands it on; a lookup that takes the count from 1 back
 * to 2 meanwhile (kbloom_registry.c) makes its own put the last, and the
 * irq_work and the work item have run or are running by then, so neither
 * is ever queued twice at once.  preemptible() is false in softirq, hard
 * interrupt and NMI context, under a spinlock and with bottom halves off;
 * rcu_preempt_depth() covers rcu_read_lock() of a preemptible RCU, which
 * leaves the preempt count alone.
 */
void kbloom_dev_put(struct kbloom_dev *kd)
{
	if (preemptible() && !rcu_preempt_depth() && !is_idle_task(current)) {
		put_device(&kd->dev);
	} else if (!refcount_dec_not_one(&kd->dev.kobj.kref.refcount)) {
		atomic_inc(&kbloom_puts_pending);
		irq_work_queue(&kd->put_irq);
	}
}

static const struct device_type kbloom_dev_type = {
	.name = "kbloom",
	.groups = kbloom_dev_groups,
	.devnode = kbloom_devnode,
	.release = kbloom_dev_release,
};

u64 kbloom_dev_held(const struct kbloom_geometry *geo,
		    const struct kbloom_create *req)
{
	u64 held = kmalloc_size_roundup(sizeof(struct kbloom_dev)) +
		   kbloom_stats_cache_held(geo);

	if (req->expansion)
		return held + kbloom_scalable_held(req, geo);
	return held + kbloom_filter_held(geo) + kbloom_map_held(0);
}

/*
 * Allocates the filter and its minor and initialises its device; from here
 * put_device() undoes everything.
 */
struct kbloom_dev *kbloom_dev_alloc(const char *name,
				    const struct kbloom_geometry *geo,
				    const struct kbloom_create *req,
				    umode_t mode, kuid_t uid, kgid_t gid)
{
	struct kbloom_dev *kd;
	u32 minor;
	int err;

	kd = kzalloc(sizeof(*kd), GFP_KERNEL_ACCOUNT);
	if (!kd)
		return ERR_PTR(-ENOMEM);
	if (req->expansion)
		err = kbloom_scalable_init(kd, req, geo);
	else
		err = kbloom_filter_init(&kd->filter, geo);
	if (err)
		goto free_kd;
	err = kbloom_map_init(kd);
	if (err)
		goto free_filter;
	err = xa_alloc_cyclic(&kbloom_minors, &minor, kd,
			      XA_LIMIT(0, KBLOOM_MINORS - 1),
			      &kbloom_next_minor, GFP_KERNEL);
	if (err < 0) {
		/* -EBUSY means every minor is taken. */
		if (err == -EBUSY)
			err = -ENOSPC;
		goto free_map;
	}

	init_rwsem(&kd->lock);
	kd->put_irq = IRQ_WORK_INIT_HARD(kbloom_dev_put_irq);
	INIT_WORK(&kd->put_work, kbloom_dev_put_work);
	spin_lock_init(&kd->report_lock);
	kbloom_stats_cache_init(&kd->stats_cache);
	kbloom_window_init(kd, req);
	strscpy(kd->name, name, sizeof(kd->name));
	kd->bytes = kbloom_geometry_bytes(geo);
	kd->held = kbloom_dev_held(geo, req);
	kd->mode = mode;
	kd->uid = uid;
	kd->gid = gid;
	atomic64_add(kd->held, &kbloom_total_bytes);

	device_initialize(&kd->dev);
	kd->dev.class = &kbloom_class;
	kd->dev.type = &kbloom_dev_type;
	kd->dev.groups = kbloom_report_groups;
	kd->dev.devt = MKDEV(MAJOR(kbloom_devt), minor);
	err = dev_set_name(&kd->dev, "%s", kd->name);
	if (err) {
		put_device(&kd->dev);
		return ERR_PTR(err);
	}
	cdev_init(&kd->cdev, &kbloom_dev_fops);
	kd->cdev.owner = THIS_MODULE;
	return kd;

free_map:
	kbloom_map_free(kd);
free_filter:
	kbloom_scalable_free(kd);
	kbloom_filter_free(&kd->filter);
free_kd:
	kfree(kd);
	return ERR_PTR(err);
}

/* Publishes the node and its sysfs directory (attributes come with it). */
int kbloom_dev_add(struct kbloom_dev *kd)
{
	return cdev_device_add(&kd->cdev, &kd->dev);
}

/*
 * Marks the filter dead, so every open file sees -ENODEV from now on, and
 * removes its node; the caller then drops the registry's reference.  A
 * statistics walk in progress is told to stop first: removing the node
 * waits for sysfs reads to return.
 */
void kbloom_dev_remove(struct kbloom_dev *kd)
{
	WRITE_ONCE(kd->filter.walks_stop, true);
	down_write(&kd->lock);
	if (kd->scalable)
		kbloom_scalable_stop_walks(kd);
	WRITE_ONCE(kd->dead, true);
	kbloom_map_mark_dead(kd);
	up_write(&kd->lock);
	/* Not under kd->lock: a rotation being waited for takes it. */
	kbloom_window_stop(kd);
	cdev_device_del(&kd->cdev, &kd->dev);
}

/* part / (part + other) in ppb, for sums that may have saturated. */
static u32 kbloom_ratio_ppb(u64 part, u64 other)
{
	u64 sum;

	while (check_add_overflow(part, other, &sum)) {
		part >>= 1;
		other >>= 1;
	}
	if (!sum)
		return 0;
	return mul_u64_u64_div_u64(part, KBLOOM_PPB, sum);
}

/* Takes kd->lock shared and fails with -ENODEV once the filter is dead. */
int kbloom_dev_lock_live(struct kbloom_dev *kd)
{
	down_read(&kd->lock);
	if (kd->dead) {
		up_read(&kd->lock);
		return -ENODEV;
	}
	return 0;
}

int kbloom_dev_fill_info(struct kbloom_dev *kd, struct kbloom_info *info,
			 bool cells)
{
	const struct kbloom_geometry *geo = &kd->filter.geo;
	struct kbloom_cell_stats cs = {};
	struct kbloom_counts counts;
	struct kbloom_stats st;
	int err;

	memset(info, 0, sizeof(*info));
	/*
	 * The walk, if any, holds no lock that writers need (see there), and
	 * is of the sub-filters the filter has under the lock.
	 */
	if (cells) {
		err = kbloom_stats_cache_get_lock(kd, &counts, &cs);
		if (err)
			return err;
	} else {
		err = kbloom_dev_lock_live(kd);
		if (err)
			return err;
		kbloom_counts_read(&kd->filter, &counts);
	}
	kbloom_stats_combine(&kd->filter, &counts, &cs, &st);
	strscpy(info->name, kd->name, sizeof(info->name));
	info->capacity = geo->capacity;
	info->nblocks = geo->nblocks;
	info->bits = geo->nblocks * KBLOOM_BLOCK_BITS;
	info->bytes = READ_ONCE(kd->bytes);
	info->held_bytes = READ_ONCE(kd->held);
	info->seed = geo->seed;
	info->add_calls = st.add_calls;
	info->add_new = st.add_new;
	info->check_calls = st.check_calls;
	info->check_hits = st.check_hits;
	info->delete_calls = st.delete_calls;
	info->delete_hits = st.delete_hits;
	info->bits_set = st.bits_set;
	info->est_keys = st.est_keys;
	spin_lock(&kd->report_lock);
	info->reported_fp = kd->reported_fp;
	info->reported_tp = kd->reported_tp;
	info->reported_tn = kd->reported_tn;
	spin_unlock(&kd->report_lock);
	info->k = geo->k;
	info->type = geo->type;
	info->fp_target_ppb = geo->fp_target_ppb;
	info->fp_design_ppb = st.fp_design_ppb;
	info->fp_now_ppb = st.fp_now_ppb;
	info->fill_ppb = st.fill_ppb;
	info->observed_fp_ppb = kbloom_ratio_ppb(info->reported_fp,
						 info->reported_tn);
	info->saturated = cells ? st.saturated : 0;
	info->node_mode = kd->mode;
	info->mappings = atomic_read(&kd->mappings);
	if (kd->scalable)
		kbloom_scalable_fill_info(kd, info, cells);
	up_read(&kd->lock);
	return 0;
}

void kbloom_dev_reset_reports(struct kbloom_dev *kd)
{
	spin_lock(&kd->report_lock);
	kd->reported_fp = 0;
	kd->reported_tp = 0;
	kd->reported_tn = 0;
	memset(kd->reporters, 0, sizeof(kd->reporters));
	kd->nr_reporters = 0;
	spin_unlock(&kd->report_lock);
}

int kbloom_dev_setup(void)
{
	int err;

	/*
	 * Unbound, as the module's other queues: a free has no CPU to stay
	 * on, and kernels from 7.x warn at a queue that does not say.
	 */
	kbloom_free_wq = alloc_workqueue("kbloom_free", WQ_UNBOUND, 0);
	if (!kbloom_free_wq)
		return -ENOMEM;
	err = alloc_chrdev_region(&kbloom_devt, 0, KBLOOM_MINORS, "kbloom");
	if (err)
		goto destroy_wq;
	err = class_register(&kbloom_class);
	if (err)
		goto unregister_region;
	return 0;

unregister_region:
	unregister_chrdev_region(kbloom_devt, KBLOOM_MINORS);
destroy_wq:
	destroy_workqueue(kbloom_free_wq);
	return err;
}

void kbloom_dev_teardown(void)
{
	/*
	 * Frees a last put left behind still erase minors: before the end.
	 * A put handed to an irq_work has not reached the queue yet.
	 */
	wait_var_event(&kbloom_puts_pending,
		       !atomic_read(&kbloom_puts_pending));
	destroy_workqueue(kbloom_free_wq);
	class_unregister(&kbloom_class);
	unregister_chrdev_region(kbloom_devt, KBLOOM_MINORS);
	xa_destroy(&kbloom_minors);
}
