// SPDX-License-Identifier: GPL-2.0
/*
 * One character device per filter, /dev/kbloom/<name>: its lifetime, its
 * open files and its ioctls (ADD, CHECK and DELETE live in kbloom_batch.c,
 * read() and write() in kbloom_image_io.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/kdev_t.h>
#include <linux/lockdep.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/uaccess.h>
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
static int kbloom_dev_lock_live(struct kbloom_dev *kd)
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

static long kbloom_dev_get_info(struct kbloom_dev *kd, void __user *uarg)
{
	struct kbloom_info info;
	int err;

	err = kbloom_dev_fill_info(kd, &info, true);
	if (err)
		return err;
	if (copy_to_user(uarg, &info, sizeof(info)))
		return -EFAULT;
	return 0;
}

static void kbloom_add_saturating(u64 *sum, u64 add)
{
	if (check_add_overflow(*sum, add, sum))
		*sum = U64_MAX;
}

/*
 * The entry of uid, taking a free one for a new uid while there is one,
 * else the shared last entry.  Caller holds kd->report_lock.
 */
static struct kbloom_reporter *kbloom_reporter_of(struct kbloom_dev *kd,
						  kuid_t uid)
{
	unsigned int i;

	for (i = 0; i < kd->nr_reporters; i++)
		if (uid_eq(kd->reporters[i].uid, uid))
			return &kd->reporters[i];
	if (kd->nr_reporters == KBLOOM_REPORTERS)
		return &kd->reporters[KBLOOM_REPORTERS];
	kd->reporters[i].uid = uid;
	kd->nr_reporters++;
	return &kd->reporters[i];
}

/*
 * Readers may report: that is what the feedback is for.  What keeps one
 * of them from making observed_fp_ppb read what it likes is a bound on a
 * single report (KBLOOM_REPORT_MAX answers, far more than a batch of
 * checks can answer: 2^16 keys per CHECK) and the per-uid sums in sysfs
 * "reporters", which show who moved the figure.
 */
static long kbloom_dev_report(struct kbloom_dev *kd, void __user *uarg)
{
	struct kbloom_reporter *who;
	struct kbloom_report rep;
	u64 answers;
	size_t i;
	int err;

	if (copy_from_user(&rep, uarg, sizeof(rep)))
		return -EFAULT;
	if (rep.flags || rep.pad)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(rep.reserved); i++)
		if (rep.reserved[i])
			return -EINVAL;
	if (check_add_overflow(rep.false_positives, rep.true_positives,
			       &answers) ||
	    check_add_overflow(answers, rep.true_negatives, &answers) ||
	    answers > KBLOOM_REPORT_MAX)
		return -EINVAL;
	err = kbloom_dev_lock_live(kd);
	if (err)
		return err;
	/* An empty report changes no sum and takes no reporter's entry. */
	if (answers) {
		spin_lock(&kd->report_lock);
		kbloom_add_saturating(&kd->reported_fp, rep.false_positives);
		kbloom_add_saturating(&kd->reported_tp, rep.true_positives);
		kbloom_add_saturating(&kd->reported_tn, rep.true_negatives);
		who = kbloom_reporter_of(kd, current_fsuid());
		kbloom_add_saturating(&who->fp, rep.false_positives);
		kbloom_add_saturating(&who->tp, rep.true_positives);
		kbloom_add_saturating(&who->tn, rep.true_negatives);
		spin_unlock(&kd->report_lock);
	}
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

/*
 * sysfs "reporters": "uid fp tp tn" per reporting uid (in the initial
 * user namespace), in order of first report, then "other fp tp tn" when
 * uids beyond the first KBLOOM_REPORTERS reported.  At most 9 lines of
 * under 80 bytes: well inside the page.  A table, not one value: it is
 * the administrator's account of who moved observed_fp_ppb, and it names
 * other users, so it is root's alone, whatever the filter's mode.
 */
static ssize_t reporters_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	struct kbloom_dev *kd = to_kbloom_dev(dev);
	struct kbloom_reporter r[KBLOOM_REPORTERS + 1];
	const struct kbloom_reporter *other = &r[KBLOOM_REPORTERS];
	unsigned int n, i;
	int len = 0;

	spin_lock(&kd->report_lock);
	memcpy(r, kd->reporters, sizeof(r));
	n = kd->nr_reporters;
	spin_unlock(&kd->report_lock);
	for (i = 0; i < n; i++)
		len += sysfs_emit_at(buf, len, "%u %llu %llu %llu\n",
				     from_kuid_munged(&init_user_ns, r[i].uid),
				     r[i].fp, r[i].tp, r[i].tn);
	if (other->fp || other->tp || other->tn)
		len += sysfs_emit_at(buf, len, "other %llu %llu %llu\n",
				     other->fp, other->tp, other->tn);
	return len;
}
static DEVICE_ATTR_ADMIN_RO(reporters);

static struct attribute *kbloom_report_attrs[] = {
	&dev_attr_reporters.attr,
	NULL,
};

static const struct attribute_group kbloom_report_group = {
	.attrs = kbloom_report_attrs,
};

/* The device's own groups, beside its type's statistics (kbloom_sysfs.c). */
const struct attribute_group *kbloom_report_groups[] = {
	&kbloom_report_group,
	NULL,
};

static long kbloom_dev_clear(struct kbloom_dev *kd, unsigned long arg)
{
	int err = 0;

	if (arg)
		return -EINVAL;
	if (kd->scalable)
		return kbloom_scalable_clear(kd);
	down_write(&kd->lock);
	if (kd->dead) {
		err = -ENODEV;
	} else {
		kbloom_map_rewrite_begin(kd);
		kbloom_clear(&kd->filter);
		kbloom_map_rewrite_end(kd);
		kbloom_dev_reset_reports(kd);
	}
	up_write(&kd->lock);
	return err;
}

/* The type first (EOPNOTSUPP), then the argument, as the header orders. */
static long kbloom_dev_rotate(struct kbloom_dev *kd, unsigned long arg)
{
	if (!kbloom_is_window(kd))
		return -EOPNOTSUPP;
	if (arg)
		return -EINVAL;
	return kbloom_window_rotate_now(kd);
}

/*
 * The settings and the rotations are read under rotate_lock, with the
 * generations by age of the same rotation (walked before the lock is
 * taken: kbloom_stats_cache_generations_lock()).
 */
static long kbloom_dev_get_window(struct kbloom_dev *kd, void __user *uarg)
{
	struct kbloom_window_info *info;
	int err;

	if (!kbloom_is_window(kd))
		return -EOPNOTSUPP;
	/* 2.6 KiB: too much for the stack of an ioctl. */
	info = kzalloc(sizeof(*info), GFP_KERNEL);
	if (!info)
		return -ENOMEM;
	err = kbloom_stats_cache_generations_lock(kd, info->gen, true);
	if (!err) {
		kbloom_window_fill_info(kd, info);
		up_read(&kd->lock);
		kbloom_window_unlock(kd);
	}
	if (!err && copy_to_user(uarg, info, sizeof(*info)))
		err = -EFAULT;
	kfree(info);
	return err;
}

/*
 * This filter exclusive, the other shared.  Two filters are always locked
 * in address order, so concurrent a<-b and b<-a cannot deadlock.
 */
static void kbloom_dev_lock_pair(struct kbloom_dev *kd,
				 struct kbloom_dev *other)
{
	if (kd == other) {
		down_write(&kd->lock);
	} else if (kd < other) {
		down_write(&kd->lock);
		down_read_nested(&other->lock, SINGLE_DEPTH_NESTING);
	} else {
		down_read(&other->lock);
		down_write_nested(&kd->lock, SINGLE_DEPTH_NESTING);
	}
}

static void kbloom_dev_unlock_pair(struct kbloom_dev *kd,
				   struct kbloom_dev *other)
{
	if (kd != other)
		up_read(&other->lock);
	up_write(&kd->lock);
}

static long kbloom_dev_combine(struct kbloom_dev *kd, void __user *uarg,
			       bool merge)
{
	struct kbloom_other req;
	struct kbloom_dev *other;
	struct fd f;
	size_t i;
	int err;

	if (copy_from_user(&req, uarg, sizeof(req)))
		return -EFAULT;
	if (req.flags)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(req.reserved); i++)
		if (req.reserved[i])
			return -EINVAL;
	f = fdget(req.fd);
	if (!fd_file(f))
		return -EBADF;
	/* Only our own files carry a struct kbloom_file. */
	if (fd_file(f)->f_op != &kbloom_dev_fops ||
	    !(fd_file(f)->f_mode & FMODE_READ)) {
		err = -EBADF;
		goto put_file;
	}
	other = ((struct kbloom_file *)fd_file(f)->private_data)->kd;

	/*
	 * The other filter is only held shared, as its rotations hold it: a
	 * window's generations are matched by age, which a rotation of the
	 * other during the walk would shift.  This filter's own rotations
	 * wait for its lock held exclusive.
	 */
	if (other != kd) {
		err = kbloom_window_lock(other);
		if (err)
			goto put_file;
	}
	kbloom_dev_lock_pair(kd, other);
	if (kd->dead || other->dead) {
		err = -ENODEV;
	} else if (!merge && (kd->scalable || other->scalable)) {
		/* A common key can sit in sub-filters of different index. */
		err = -EOPNOTSUPP;
	} else if (kd->scalable || other->scalable) {
		err = kbloom_scalable_merge(kd, other);
		if (!err)
			kbloom_stats_cache_merged(kd);
	} else if (merge) {
		/*
		 * A merge only adds to cells: a read across it is sound.  With
		 * itself (kd == other) the core changes nothing, for both
		 * types: the union of a filter's keys with the same keys.
		 * Adding a counting filter's counters to themselves would
		 * count every key twice, so that one DELETE per ADD would
		 * leave every key present; a copy's counters are added, as
		 * its keys were added to it separately.
		 */
		err = kbloom_merge(&kd->filter, &other->filter);
		if (!err)
			kbloom_stats_cache_merged(kd);
	} else if (!kbloom_compatible(&kd->filter, &other->filter)) {
		err = -EXDEV;
	} else {
		kbloom_map_rewrite_begin(kd);
		err = kbloom_intersect(&kd->filter, &other->filter);
		kbloom_map_rewrite_end(kd);
	}
	kbloom_dev_unlock_pair(kd, other);
	if (other != kd)
		kbloom_window_unlock(other);
put_file:
	fdput(f);
	return err;
}

static long kbloom_dev_ioctl(struct file *file, unsigned int cmd,
			     unsigned long arg)
{
	struct kbloom_file *kf = file->private_data;
	struct kbloom_dev *kd = kf->kd;
	void __user *uarg = (void __user *)arg;
	fmode_t need;

	switch (cmd) {
	case KBLOOM_IOC_ADD:
	case KBLOOM_IOC_DELETE:
	case KBLOOM_IOC_CLEAR:
	case KBLOOM_IOC_MERGE:
	case KBLOOM_IOC_INTERSECT:
	case KBLOOM_IOC_ROTATE:
		need = FMODE_WRITE;
		break;
	case KBLOOM_IOC_CHECK:
	case KBLOOM_IOC_GET_INFO:
	case KBLOOM_IOC_REPORT:
	case KBLOOM_IOC_GET_WINDOW:
	case KBLOOM_IOC_GET_SUBFILTER:
		need = FMODE_READ;
		break;
	default:
		/* The kernel's rule: unknown stays ENOTTY, dead or not. */
		return -ENOTTY;
	}
	/*
	 * The order the header states: ENOTTY, EBADF (access), ENODEV,
	 * EOPNOTSUPP (type), then the argument.  Dead is checked again
	 * under the lock; this makes every call fail alike.
	 */
	if (!(file->f_mode & need))
		return -EBADF;
	if (READ_ONCE(kd->dead))
		return -ENODEV;

	switch (cmd) {
	case KBLOOM_IOC_ADD:
		return kbloom_batch_ioctl(kf, uarg, KBLOOM_BATCH_ADD);
	case KBLOOM_IOC_CHECK:
		return kbloom_batch_ioctl(kf, uarg, KBLOOM_BATCH_CHECK);
	case KBLOOM_IOC_DELETE:
		/* The type never changes: no lock needed to ask. */
		if (kbloom_delete_supported(&kd->filter))
			return -EOPNOTSUPP;
		return kbloom_batch_ioctl(kf, uarg, KBLOOM_BATCH_DELETE);
	case KBLOOM_IOC_CLEAR:
		return kbloom_dev_clear(kd, arg);
	case KBLOOM_IOC_MERGE:
		return kbloom_dev_combine(kd, uarg, true);
	case KBLOOM_IOC_INTERSECT:
		return kbloom_dev_combine(kd, uarg, false);
	case KBLOOM_IOC_GET_INFO:
		return kbloom_dev_get_info(kd, uarg);
	case KBLOOM_IOC_ROTATE:
		return kbloom_dev_rotate(kd, arg);
	case KBLOOM_IOC_GET_WINDOW:
		return kbloom_dev_get_window(kd, uarg);
	case KBLOOM_IOC_GET_SUBFILTER:
		return kbloom_scalable_get_subfilter(kd, uarg);
	default:
		return kbloom_dev_report(kd, uarg);
	}
}

static int kbloom_dev_open(struct inode *inode, struct file *file)
{
	struct kbloom_dev *kd = container_of(inode->i_cdev, struct kbloom_dev,
					     cdev);
	struct kbloom_file *kf;

	if (READ_ONCE(kd->dead))
		return -ENODEV;
	kf = kzalloc(sizeof(*kf), GFP_KERNEL_ACCOUNT);
	if (!kf)
		return -ENOMEM;
	get_device(&kd->dev);
	kf->kd = kd;
	mutex_init(&kf->batch_lock);
	mutex_init(&kf->io_lock);
	file->private_data = kf;
	return 0;
}

static int kbloom_dev_release_file(struct inode *inode, struct file *file)
{
	struct kbloom_file *kf = file->private_data;

	kbloom_image_release(kf);
	kbloom_batch_buf_free(kf->batch_buf);
	mutex_destroy(&kf->io_lock);
	mutex_destroy(&kf->batch_lock);
	put_device(&kf->kd->dev);
	kfree(kf);
	return 0;
}

const struct file_operations kbloom_dev_fops = {
	.owner = THIS_MODULE,
	.open = kbloom_dev_open,
	.release = kbloom_dev_release_file,
	.read = kbloom_image_read,
	.write = kbloom_image_write,
	.flush = kbloom_image_flush,
	.llseek = kbloom_image_llseek,
	.mmap = kbloom_dev_mmap,
	.unlocked_ioctl = kbloom_dev_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

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
