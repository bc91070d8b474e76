// SPDX-License-Identifier: GPL-2.0
/*
 * Filter images through read() and write() (format in the uapi header).
 *
 * read() streams from offset 0 through the core's cursor, a bounce buffer
 * at a time, taking the filter lock shared only while copying words out:
 * adds and deletes go on meanwhile and a key added before the read began
 * (and not deleted) is in the image.  An operation that clears cells of
 * keys still present (clear, intersect, load) during the stream would
 * splice two filters together, so it ends the stream with -ESTALE instead,
 * unless nothing was handed out yet.  A delete takes only its own key out,
 * as if it had run before or after the words it touches were copied.  A
 * rotation of a window retires a generation the image's header calls live
 * and clears it: it ends the stream too.  Each step of a window's stream
 * holds its rotate_lock, so a rotation runs wholly between two steps, and
 * the step after it sees the count of rotations moved on.
 *
 * write() stages the header (with its window part), checks it against the
 * filter, then stages the rest in a buffer sized from this filter's own
 * geometry, never from the caller's numbers.  The final byte loads the
 * whole image at once.
 *
 * A scalable filter's image (version 4, kbloom_chain_image.c) streams the
 * sub-filters there were at offset 0; those stay while the stream does,
 * since only CLEAR and a load free sub-filters, and both end it.  Its
 * write() stages the header and its window and chain parts first: the
 * sub-filters they count and the chain's own schedule say how long the
 * image is (an image of more sub-filters than the schedule has is
 * refused there), and the descriptors are judged with the rest at the
 * final byte.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "kbloom_internal.h"

#define KBLOOM_IO_BUF_BYTES	(64 * 1024)
#define KBLOOM_HEADER_BYTES	sizeof(struct kbloom_image_header)

/* kvmalloc() refuses sizes over INT_MAX; vmalloc() takes any. */
static void *kbloom_image_alloc(size_t bytes)
{
	const gfp_t gfp = GFP_KERNEL_ACCOUNT | __GFP_NOWARN;

	if (bytes > INT_MAX)
		return __vmalloc(bytes, gfp);
	return kvmalloc(bytes, gfp);
}

/*
 * The whole image is staged before it is checked and applied, so an open
 * file restoring holds up to its filter's size: charged against
 * max_total_bytes (E2BIG past it, as a create would be), and given back
 * when the buffer goes.
 */
static int kbloom_image_alloc_staging(struct kbloom_file *kf, size_t bytes)
{
	int err = kbloom_buffer_charge(bytes);

	if (err)
		return err;
	kf->staging = kbloom_image_alloc(bytes);
	if (!kf->staging) {
		kbloom_buffer_uncharge(bytes);
		return -ENOMEM;
	}
	return 0;
}

static void kbloom_image_free_staging(struct kbloom_file *kf)
{
	if (!kf->staging)
		return;
	kvfree(kf->staging);
	kf->staging = NULL;
	kbloom_buffer_uncharge(kf->write_bytes);
}

static void kbloom_image_stop_write(struct kbloom_file *kf)
{
	kbloom_image_free_staging(kf);
	kf->staged = 0;
	kf->write_bytes = 0;
}

void kbloom_image_release(struct kbloom_file *kf)
{
	kbloom_image_stop_write(kf);
	kvfree(kf->io_buf);
	kf->io_buf = NULL;
}

/*
 * Only rewinding to 0 and asking for the position are supported; on a
 * destroyed filter neither is, as for every other call.
 */
loff_t kbloom_image_llseek(struct file *file, loff_t offset, int whence)
{
	struct kbloom_file *kf = file->private_data;

	if (READ_ONCE(kf->kd->dead))
		return -ENODEV;
	switch (whence) {
	case SEEK_SET:
		if (offset)
			return -ESPIPE;
		file->f_pos = 0;
		return 0;
	case SEEK_CUR:
		if (offset)
			return -ESPIPE;
		return file->f_pos;
	default:
		return -ESPIPE;
	}
}

/*
 * The cursor at offset 0, under rotate_lock (a window's) and kd->lock.
 * The core leaves a window's time since its last rotation to us: the
 * rotations are ours to time.
 */
static void kbloom_image_begin(struct kbloom_file *kf)
{
	struct kbloom_dev *kd = kf->kd;
	struct kbloom_counts counts;

	if (kd->scalable) {
		kbloom_counts_read(&kd->filter, &counts);
		kbloom_chain_image_start(&kd->scalable->chain, &counts,
					 &kf->cursor);
	} else {
		kbloom_image_start(&kd->filter, &kf->cursor);
	}
	kf->read_generation = kbloom_map_sequence(kd);
	if (kbloom_is_window(kd)) {
		kf->cursor.win.elapsed_ms =
			cpu_to_le64(kbloom_window_elapsed_ms(kd));
		kf->read_rotations = kd->filter.win.rotations;
	}
}

/* Whether the cells changed under the stream in a way it cannot show. */
static bool kbloom_image_stale(struct kbloom_file *kf)
{
	struct kbloom_dev *kd = kf->kd;

	if (kbloom_map_sequence(kd) != kf->read_generation)
		return true;
	return kbloom_is_window(kd) &&
	       kd->filter.win.rotations != kf->read_rotations;
}

/* Takes rotate_lock (a window's) and kd->lock shared, for a live filter. */
static int kbloom_image_lock(struct kbloom_dev *kd)
{
	int err = kbloom_window_lock(kd);

	if (err)
		return err;
	down_read(&kd->lock);
	if (kd->dead) {
		up_read(&kd->lock);
		kbloom_window_unlock(kd);
		return -ENODEV;
	}
	return 0;
}

static void kbloom_image_unlock(struct kbloom_dev *kd)
{
	up_read(&kd->lock);
	kbloom_window_unlock(kd);
}

static int kbloom_image_start_read(struct kbloom_file *kf)
{
	int err = kbloom_image_lock(kf->kd);

	if (err)
		return err;
	kbloom_image_begin(kf);
	kbloom_image_unlock(kf->kd);
	kf->reading = true;
	return 0;
}

/* Up to len bytes of the stream into kf->io_buf; 0 at its end. */
static ssize_t kbloom_image_emit_locked(struct kbloom_file *kf, size_t len)
{
	struct kbloom_dev *kd = kf->kd;
	ssize_t ret;

	ret = kbloom_image_lock(kd);
	if (ret)
		return ret;
	if (kbloom_image_stale(kf)) {
		if (kf->cursor.pos) {
			ret = -ESTALE;
			goto unlock;
		}
		/* Nothing handed out yet: start over from the new cells. */
		kbloom_image_begin(kf);
	}
	if (kd->scalable)
		ret = kbloom_chain_image_emit(&kd->scalable->chain, &kf->cursor,
					      kf->io_buf, len);
	else
		ret = kbloom_image_emit(&kd->filter, &kf->cursor, kf->io_buf,
					len);
unlock:
	kbloom_image_unlock(kd);
	return ret;
}

static ssize_t kbloom_image_read_locked(struct kbloom_file *kf,
					char __user *buf, size_t count,
					loff_t *ppos)
{
	size_t done = 0;
	ssize_t got;
	int err;

	if (*ppos == 0) {
		err = kbloom_image_start_read(kf);
		if (err)
			return err;
	} else if (!kf->reading || *ppos != kf->cursor.pos) {
		return -ESPIPE;
	}
	if (!kf->io_buf) {
		kf->io_buf = kvmalloc(KBLOOM_IO_BUF_BYTES,
				      GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
		if (!kf->io_buf)
			return -ENOMEM;
	}
	while (done < count) {
		got = kbloom_image_emit_locked(kf, min_t(size_t, count - done,
							 KBLOOM_IO_BUF_BYTES));
		/* A failure stays until a read from 0; the next call sees it */
		if (got < 0 && !done)
			return got;
		if (got <= 0)
			break;
		if (copy_to_user(buf + done, kf->io_buf, got)) {
			/* The cursor moved past what the caller received. */
			kf->reading = false;
			return -EFAULT;
		}
		done += got;
		if (fatal_signal_pending(current))
			break;
	}
	*ppos = kf->cursor.pos;
	return done;
}

ssize_t kbloom_image_read(struct file *file, char __user *buf, size_t count,
			  loff_t *ppos)
{
	struct kbloom_file *kf = file->private_data;
	ssize_t ret;

	if (READ_ONCE(kf->kd->dead))
		return -ENODEV;
	ret = mutex_lock_interruptible(&kf->io_lock);
	if (ret)
		return ret;
	ret = kbloom_image_read_locked(kf, buf, count, ppos);
	mutex_unlock(&kf->io_lock);
	return ret;
}

/* A window image's time since its last rotation. */
static u64 kbloom_image_elapsed_ms(const void *img)
{
	return get_unaligned_le64((const u8 *)img + KBLOOM_HEADER_BYTES +
				  offsetof(struct kbloom_image_window,
					   elapsed_ms));
}

/*
 * rotate_lock first: no rotation of a window runs during the load (it
 * would also wait for kd->lock), and the timer is re-armed from the
 * image's state before the next one can start.
 */
static int kbloom_image_load_staged(struct kbloom_file *kf)
{
	struct kbloom_dev *kd = kf->kd;
	/* Read now, used only once validate passed it. */
	u64 elapsed_ms = kbloom_is_window(kd) ?
			 kbloom_image_elapsed_ms(kf->staging) : 0;
	struct kbloom_chain_sub *retired = NULL;
	u32 subs = 0;
	int err;

	/*
	 * A scalable filter's image is judged from the chain's parameters
	 * alone, which never change: here, not under kd->lock, as it sizes
	 * every sub-filter it names (up to KBLOOM_SUBFILTERS_MAX).
	 */
	if (kd->scalable && !READ_ONCE(kd->dead)) {
		err = kbloom_chain_image_validate(&kd->scalable->chain,
						  kf->staging, kf->staged,
						  &subs);
		if (err)
			return err;
	}
	err = kbloom_window_lock(kd);
	if (err)
		return err;
	down_write(&kd->lock);
	if (kd->dead) {
		err = -ENODEV;
	} else if (kd->scalable) {
		err = kbloom_scalable_load(kd, kf->staging, subs, &retired);
	} else {
		err = kbloom_image_validate(&kd->filter, kf->staging,
					    kf->staged);
		if (!err) {
			kbloom_map_rewrite_begin(kd);
			kbloom_image_apply(&kd->filter, kf->staging);
			kbloom_map_rewrite_end(kd);
			kbloom_dev_reset_reports(kd);
			if (kbloom_is_window(kd))
				kbloom_window_loaded(kd, elapsed_ms);
		}
	}
	up_write(&kd->lock);
	kbloom_window_unlock(kd);
	kbloom_scalable_retire(kd, retired);
	return err;
}

/*
 * The magic and the version of a header of which only the first staged
 * bytes arrived, judged by the core's own check: the missing bytes are
 * taken from this filter's own header, which passes it.  So a bad byte of
 * either is ENOEXEC or EPROTO as soon as it arrives; the other fields
 * (EINVAL, EXDEV) wait for the whole header.
 */
static int kbloom_image_check_prefix(struct kbloom_file *kf)
{
	struct kbloom_dev *kd = kf->kd;
	struct kbloom_image_cursor own;
	u32 subs;
	u64 bytes;
	int err;

	if (kd->scalable) {
		/* The rest of the check reads no sub-filter past the first. */
		memset(&own.hdr, 0, sizeof(own.hdr));
		own.hdr.magic = cpu_to_le32(KBLOOM_IMAGE_MAGIC);
		own.hdr.version = cpu_to_le16(KBLOOM_IMAGE_VERSION_CHAIN);
		memcpy(&own.hdr, kf->write_header.bytes, kf->staged);
		err = kbloom_chain_image_check_header(&kd->scalable->chain,
						      &own.hdr,
						      KBLOOM_HEADER_BYTES,
						      &subs, &bytes);
	} else {
		kbloom_image_start(&kd->filter, &own);
		memcpy(&own.hdr, kf->write_header.bytes, kf->staged);
		err = kbloom_image_check_header(&kd->filter, &own.hdr,
						KBLOOM_HEADER_BYTES);
	}
	return err == -ENOEXEC || err == -EPROTO ? err : 0;
}

/*
 * A scalable filter's header, whole: its image's length follows from it
 * and the chain's schedule (kbloom_chain_image_check_header()).
 */
static int kbloom_image_stage_chain(struct kbloom_file *kf)
{
	u64 bytes;
	u32 subs;
	int err;

	err = kbloom_chain_image_check_header(&kf->kd->scalable->chain,
					      kf->write_header.bytes,
					      kf->staged, &subs, &bytes);
	if (err)
		return err;
	/*
	 * Cells the filter's cap would refuse at the load: refused before
	 * they are staged, so that a header alone cannot hold memory past
	 * max_filter_bytes (and the module's total, which every create and
	 * growth then misses) for as long as its file stays open.
	 */
	if (le64_to_cpu(kf->write_header.hdr.nblocks) >
	    div64_u64(READ_ONCE(kbloom_max_filter_bytes), KBLOOM_BLOCK_BYTES))
		return -E2BIG;
	/* Where size_t is 32 bits, an image it cannot count. */
	if (bytes != (size_t)bytes)
		return -E2BIG;
	err = kbloom_image_alloc_staging(kf, bytes);
	if (err)
		return err;
	kf->write_bytes = bytes;
	memcpy(kf->staging, kf->write_header.bytes, kf->staged);
	return 0;
}

/*
 * Stages header bytes of buf, the window part included, and returns how
 * many it took.  The header is checked once its first
 * sizeof(struct kbloom_image_header) bytes are in, and the window part
 * once it is whole; then the image's buffer is allocated.
 */
static ssize_t kbloom_image_write_header(struct kbloom_file *kf,
					 const char __user *buf, size_t count)
{
	const struct kbloom_filter *f = &kf->kd->filter;
	size_t want = kf->kd->scalable ? KBLOOM_CHAIN_IMAGE_HEAD :
		      KBLOOM_HEADER_BYTES + sizeof(struct kbloom_image_window);
	size_t n = min(count, want - kf->staged);
	u64 bytes;
	u32 subs;
	int err;

	if (copy_from_user(kf->write_header.bytes + kf->staged, buf, n))
		return -EFAULT;
	kf->staged += n;
	if (kf->staged < KBLOOM_HEADER_BYTES) {
		err = kbloom_image_check_prefix(kf);
		return err ? err : n;
	}
	if (kf->kd->scalable) {
		/* Whole: staging judges it, and sizes the sub-filters once. */
		if (kf->staged == want) {
			err = kbloom_image_stage_chain(kf);
			return err ? err : n;
		}
		/* Judged as far as it goes: EXDEV as soon as it shows. */
		err = kbloom_chain_image_check_header(&kf->kd->scalable->chain,
						      kf->write_header.bytes,
						      kf->staged, &subs,
						      &bytes);
		return err && err != -ENODATA ? err : n;
	}
	/* The geometry is fixed for the filter's life: no lock needed. */
	err = kbloom_image_check_header(f, kf->write_header.bytes,
					KBLOOM_HEADER_BYTES);
	if (err)
		return err;
	if (kf->staged < want)
		return n;
	err = kbloom_image_check_window(f, kf->write_header.bytes, kf->staged);
	if (err)
		return err;
	err = kbloom_image_alloc_staging(kf, kbloom_image_bytes(&f->geo));
	if (err)
		return err;
	kf->write_bytes = kbloom_image_bytes(&f->geo);
	memcpy(kf->staging, kf->write_header.bytes, kf->staged);
	return n;
}

static ssize_t kbloom_image_write_locked(struct file *file,
					 const char __user *buf, size_t count,
					 loff_t *ppos)
{
	struct kbloom_file *kf = file->private_data;
	size_t done = 0;
	ssize_t n;
	int err;

	if (*ppos == 0)
		kbloom_image_stop_write(kf);
	else if (*ppos != kf->staged)
		return -ESPIPE;
	if (!count)
		return 0;
	/* write_bytes is known once the whole header passed. */
	while (!kf->write_bytes && done < count) {
		n = kbloom_image_write_header(kf, buf + done, count - done);
		if (n < 0) {
			err = n;
			goto reject;
		}
		done += n;
	}
	if (done < count) {
		if (count - done > kf->write_bytes - kf->staged) {
			err = -EMSGSIZE;
			goto reject;
		}
		if (copy_from_user(kf->staging + kf->staged, buf + done,
				   count - done)) {
			err = -EFAULT;
			goto reject;
		}
		kf->staged += count - done;
		done = count;
	}
	if (kf->write_bytes && kf->staged == kf->write_bytes) {
		err = kbloom_image_load_staged(kf);
		/* Keep staged == write_bytes: more bytes are -EMSGSIZE. */
		kbloom_image_free_staging(kf);
		if (err)
			goto reject;
	}
	*ppos += done;
	return done;

reject:
	/*
	 * A rejected image is dropped whole: the next image starts with a
	 * write at offset 0, any other offset being ESPIPE.  No offset moves:
	 * the VFS hands write() and pwrite() alike a copy of the position and
	 * stores it back only on success, so file->f_pos is not ours to
	 * touch (pwrite() must leave it as it was).
	 */
	kbloom_image_stop_write(kf);
	return err;
}

ssize_t kbloom_image_write(struct file *file, const char __user *buf,
			   size_t count, loff_t *ppos)
{
	struct kbloom_file *kf = file->private_data;
	ssize_t ret;

	if (READ_ONCE(kf->kd->dead))
		return -ENODEV;
	ret = mutex_lock_interruptible(&kf->io_lock);
	if (ret)
		return ret;
	ret = kbloom_image_write_locked(file, buf, count, ppos);
	mutex_unlock(&kf->io_lock);
	return ret;
}

/*
 * The last close() of a file holding part of an image reports it as
 * truncated.  flush runs at every close() of a descriptor, but a dup(), a
 * child's inherited copy or one passed over a socket shares the open file
 * and its stream: the file lives on and its writer may still finish the
 * image, so a close that leaves another reference says nothing.  Two
 * closes racing for the last two references may both see the other's and
 * report nothing; the staged bytes are freed at release either way.
 */
int kbloom_image_flush(struct file *file, fl_owner_t id)
{
	struct kbloom_file *kf = file->private_data;
	int err = 0;

	if (file_count(file) > 1)
		return 0;
	mutex_lock(&kf->io_lock);
	if (kf->staged && (!kf->write_bytes || kf->staged < kf->write_bytes))
		err = -ENODATA;
	mutex_unlock(&kf->io_lock);
	return err;
}
