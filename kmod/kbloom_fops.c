// SPDX-License-Identifier: GPL-2.0
/*
 * The file operations of a filter's node, /dev/kbloom/<name>: open and
 * release, and the ioctls, in the order the uapi header checks them
 * (ENOTTY, EBADF, ENODEV, EOPNOTSUPP, then the argument).  ADD, CHECK and
 * DELETE run in kbloom_batch.c, read() and write() in kbloom_image_io.c,
 * mmap() in kbloom_mmap.c; the filter object is kbloom_dev.c's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/uidgid.h>

#include "kbloom_internal.h"

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
