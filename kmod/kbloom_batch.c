// SPDX-License-Identifier: GPL-2.0
/*
 * KBLOOM_IOC_ADD, KBLOOM_IOC_CHECK and KBLOOM_IOC_DELETE: up to
 * KBLOOM_BATCH_MAX keys per call, copied from userspace through a
 * fixed-size buffer, never through one sized by the caller.
 *
 * Every length is validated before any key is touched, and the result
 * bitmap is zeroed up front, so a malformed batch or a bad results pointer
 * fails with the filter unchanged.  The keys go in runs, each under the
 * filter lock on its own, so that a large batch never holds off a destroy
 * or a rewrite: an error between runs (a keys pointer that faults part
 * way, the filter destroyed, a fatal signal while a window rotates, the
 * lengths changed by another thread) leaves the runs before it applied.
 * Undoing them is not possible (an add cannot tell the cells it set from
 * the ones that were set), so the call says how far it got: done, in the
 * batch struct, counts the keys that took effect, on every return.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "kbloom_internal.h"

struct kbloom_batch_buf {
	u32 lens[KBLOOM_CHUNK_KEYS];
	struct kbloom_key keys[KBLOOM_CHUNK_KEYS];
	DECLARE_BITMAP(step_answers, KBLOOM_CHUNK_KEYS);
	DECLARE_BITMAP(group_answers, KBLOOM_CHUNK_KEYS);
	u64 out[KBLOOM_CHUNK_KEYS / 64];
	u8 bytes[KBLOOM_CHUNK_BYTES];
};

struct kbloom_batch_call {
	struct kbloom_dev *kd;
	struct kbloom_batch_buf *buf;
	const u8 __user *keys;
	const u32 __user *lens;
	u64 __user *results;
	u64 keys_len;
	u64 key_offset;		/* bytes of keys consumed so far */
	u32 count;
	u32 hits;
	u32 done;		/* keys [0, done) took effect */
	enum kbloom_batch_op op;
};

static struct kbloom_batch_buf *kbloom_batch_buf_alloc(void)
{
	return kvmalloc(sizeof(struct kbloom_batch_buf),
			GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
}

void kbloom_batch_buf_free(struct kbloom_batch_buf *buf)
{
	kvfree(buf);
}

/*
 * The open file's buffer when no other thread is using it, else a
 * private one: one file shared by many threads still works.
 */
static struct kbloom_batch_buf *kbloom_batch_buf_get(struct kbloom_file *kf,
						     bool *borrowed)
{
	if (mutex_trylock(&kf->batch_lock)) {
		if (!kf->batch_buf)
			kf->batch_buf = kbloom_batch_buf_alloc();
		if (kf->batch_buf) {
			*borrowed = true;
			return kf->batch_buf;
		}
		mutex_unlock(&kf->batch_lock);
		return NULL;
	}
	*borrowed = false;
	return kbloom_batch_buf_alloc();
}

static void kbloom_batch_buf_put(struct kbloom_file *kf,
				 struct kbloom_batch_buf *buf, bool borrowed)
{
	if (borrowed)
		mutex_unlock(&kf->batch_lock);
	else
		kbloom_batch_buf_free(buf);
}

static int kbloom_batch_check(const struct kbloom_batch *b)
{
	/* done is output only: what it holds on input is overwritten. */
	if (b->flags || b->pad || b->reserved[0])
		return -EINVAL;
	if (!b->count || b->count > KBLOOM_BATCH_MAX)
		return -EINVAL;
	if (b->keys_len < b->count ||
	    b->keys_len > (u64)b->count * KBLOOM_KEY_MAX)
		return -EINVAL;
	return 0;
}

/* Copies the lengths of keys [first, first + n) and checks each. */
static int kbloom_batch_copy_lens(struct kbloom_batch_call *call, u32 first,
				  u32 n)
{
	u32 i;

	if (copy_from_user(call->buf->lens, call->lens + first,
			   n * sizeof(u32)))
		return -EFAULT;
	for (i = 0; i < n; i++)
		if (!call->buf->lens[i] || call->buf->lens[i] > KBLOOM_KEY_MAX)
			return -EINVAL;
	return 0;
}

/* First pass: every length valid and their sum exactly keys_len. */
static int kbloom_batch_check_lens(struct kbloom_batch_call *call)
{
	u64 sum = 0;
	u32 first, n, i;
	int err;

	for (first = 0; first < call->count; first += n) {
		n = min_t(u32, call->count - first, KBLOOM_CHUNK_KEYS);
		err = kbloom_batch_copy_lens(call, first, n);
		if (err)
			return err;
		for (i = 0; i < n; i++)
			sum += call->buf->lens[i];
	}
	return sum == call->keys_len ? 0 : -EINVAL;
}

/*
 * A scalable filter's keys [0, n), under kd->lock shared: all of them but
 * for an ADD that could not grow the filter, which stops at that key with
 * *err set.  Returns the keys done.
 */
static u32 kbloom_batch_run_scalable(struct kbloom_batch_call *call,
				     const struct kbloom_key *keys, u32 n,
				     int *err)
{
	struct kbloom_batch_buf *buf = call->buf;
	struct kbloom_dev *kd = call->kd;
	u32 hits = 0;

	*err = 0;
	switch (call->op) {
	case KBLOOM_BATCH_ADD:
		n = kbloom_scalable_add(kd, keys, n, buf->step_answers, &hits,
					err);
		break;
	case KBLOOM_BATCH_CHECK:
		hits = kbloom_scalable_check(kd, keys, n, buf->step_answers);
		break;
	case KBLOOM_BATCH_DELETE:
		hits = kbloom_scalable_delete(kd, keys, n, buf->step_answers);
		break;
	}
	call->hits += hits;
	return n;
}

/* Runs keys [first, first + n) of the current group under kd->lock. */
static int kbloom_batch_run(struct kbloom_batch_call *call, u32 first, u32 n)
{
	struct kbloom_batch_buf *buf = call->buf;
	struct kbloom_dev *kd = call->kd;
	unsigned int bit;
	int err = 0;

	down_read(&kd->lock);
	if (kd->dead) {
		up_read(&kd->lock);
		return -ENODEV;
	}
	if (kd->scalable) {
		n = kbloom_batch_run_scalable(call, buf->keys + first, n, &err);
	} else {
		switch (call->op) {
		case KBLOOM_BATCH_ADD:
			call->hits += kbloom_add_batch(&kd->filter,
						       buf->keys + first, n,
						       buf->step_answers);
			break;
		case KBLOOM_BATCH_CHECK:
			call->hits += kbloom_check_batch(&kd->filter,
							 buf->keys + first, n,
							 buf->step_answers);
			break;
		case KBLOOM_BATCH_DELETE:
			call->hits += kbloom_delete_batch(&kd->filter,
							  buf->keys + first, n,
							  buf->step_answers);
			break;
		}
	}
	up_read(&kd->lock);
	call->done += n;

	for_each_set_bit(bit, buf->step_answers, n)
		__set_bit(first + bit, buf->group_answers);
	return err;
}

/*
 * Runs keys [first, last) of the current group, all in buf->bytes.  The
 * adds of a window rotating by count go in runs that end at the key which
 * fills the current generation, and a full generation is rotated at once
 * (here, in process context, rather than by the work item the core's
 * hook queues, which then finds nothing to do), so that one ADD of many
 * keys still makes generations of rotate_every keys each, and a full one
 * is rotated by the time the ioctl returns.  A generation found full
 * (filled by adds from the kernel, whose rotations are left to the work
 * item) is rotated before any key goes in.
 */
static int kbloom_batch_step(struct kbloom_batch_call *call, u32 first,
			     u32 last, u32 bytes)
{
	struct kbloom_batch_buf *buf = call->buf;
	struct kbloom_dev *kd = call->kd;
	u32 i, n, offset = 0;
	u64 room;
	int err;

	if (bytes > call->keys_len - call->key_offset)
		return -EINVAL;	/* lengths changed since pass one */
	if (copy_from_user(buf->bytes, call->keys + call->key_offset, bytes))
		return -EFAULT;
	call->key_offset += bytes;
	for (i = first; i < last; i++) {
		buf->keys[i].data = buf->bytes + offset;
		buf->keys[i].len = buf->lens[i];
		offset += buf->lens[i];
	}

	for (i = first; i < last; i += n) {
		room = call->op == KBLOOM_BATCH_ADD ?
		       kbloom_window_room(kd) : U64_MAX;
		if (!room) {
			/* Outside kd->lock: rotate_lock comes first. */
			err = kbloom_window_rotate_full(kd);
			if (err)
				return err;
			n = 0;
			continue;
		}
		n = min_t(u64, last - i, room);
		err = kbloom_batch_run(call, i, n);
		if (err)
			return err;
		/* Filled by this run: rotated before the ioctl goes on. */
		if (n == room) {
			err = kbloom_window_rotate_full(kd);
			if (err)
				return err;
		}
	}
	return 0;
}

/* Keys [group, group + n): n <= KBLOOM_CHUNK_KEYS, group a multiple of 64. */
static int kbloom_batch_group(struct kbloom_batch_call *call, u32 group,
			      u32 n)
{
	struct kbloom_batch_buf *buf = call->buf;
	u32 first, last, bytes;
	int err;

	err = kbloom_batch_copy_lens(call, group, n);
	if (err)
		return err;
	bitmap_zero(buf->group_answers, KBLOOM_CHUNK_KEYS);
	for (first = 0; first < n; first = last) {
		bytes = 0;
		for (last = first; last < n; last++) {
			if (bytes + buf->lens[last] > KBLOOM_CHUNK_BYTES)
				break;
			bytes += buf->lens[last];
		}
		err = kbloom_batch_step(call, first, last, bytes);
		if (err)
			return err;
	}
	if (!call->results)
		return 0;
	bitmap_to_arr64(buf->out, buf->group_answers, n);
	if (copy_to_user(call->results + group / 64, buf->out,
			 DIV_ROUND_UP(n, 64) * sizeof(u64)))
		return -EFAULT;
	return 0;
}

long kbloom_batch_ioctl(struct kbloom_file *kf,
			struct kbloom_batch __user *ubatch,
			enum kbloom_batch_op op)
{
	struct kbloom_batch_call call = { .kd = kf->kd, .op = op };
	struct kbloom_batch b;
	bool borrowed;
	u32 group, n;
	int err;

	if (copy_from_user(&b, ubatch, sizeof(b)))
		return -EFAULT;
	err = kbloom_batch_check(&b);
	if (err)
		goto out;
	call.keys = u64_to_user_ptr(b.keys);
	call.lens = u64_to_user_ptr(b.lens);
	call.results = u64_to_user_ptr(b.results);
	call.keys_len = b.keys_len;
	call.count = b.count;

	call.buf = kbloom_batch_buf_get(kf, &borrowed);
	if (!call.buf) {
		err = -ENOMEM;
		goto out;
	}
	err = kbloom_batch_check_lens(&call);
	if (err)
		goto put_buf;
	if (call.results &&
	    clear_user(call.results,
		       DIV_ROUND_UP(call.count, 64) * sizeof(u64))) {
		err = -EFAULT;
		goto put_buf;
	}
	for (group = 0; group < call.count; group += n) {
		n = min_t(u32, call.count - group, KBLOOM_CHUNK_KEYS);
		err = kbloom_batch_group(&call, group, n);
		if (err)
			goto put_buf;
	}
	if (call.key_offset != call.keys_len)
		err = -EINVAL;	/* lengths changed since pass one */
	else if (put_user(call.hits, &ubatch->hits))
		err = -EFAULT;
	else
		atomic64_inc(&call.kd->batch_ioctls[op]);
put_buf:
	kbloom_batch_buf_put(kf, call.buf, borrowed);
out:
	/* After a failure the failure is what the caller hears, not this. */
	if (put_user((u64)call.done, &ubatch->done) && !err)
		err = -EFAULT;
	return err;
}
