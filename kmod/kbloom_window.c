// SPDX-License-Identifier: GPL-2.0
/*
 * Rotations of window filters: by time (a delayed work, re-armed rotate_ms
 * after every rotation, whatever caused it), by count (the core calls
 * f->win.due when an add takes the current generation to rotate_every;
 * that may be in softirq, XDP or a kfunc, so the hook only queues a work;
 * an ADD ioctl, in process context, rotates itself at the key that fills
 * the generation: kbloom_batch.c) and by hand (KBLOOM_IOC_ROTATE).  The
 * core's kbloom_window_rotate() does the rotation itself; this file
 * decides when, and keeps rotations of one filter in a row.
 *
 * Locking.  rotate_lock serialises the rotations of a filter; a rotation
 * then holds kd->lock shared, so that adds and checks go on while the
 * retired plane is cleared, and clear, merge, intersect and image load,
 * which hold it exclusive, never overlap one.  rotate_lock comes before
 * kd->lock, always.
 *
 * Lifetime.  The works hold no reference to the filter: destroy and the
 * last put (kbloom_dev.c) both call kbloom_window_stop(), which sets
 * stopping under rotate_lock, so no rotation that starts afterwards arms
 * the timer, and then cancels both works synchronously.  A count work
 * queued after the stop at destroy, by an add racing it through an old
 * reference, finds stopping set and does nothing; the stop at the last
 * put, when no reference is left to add with, cancels it before the
 * memory goes.  rmmod destroys every filter first and drains the
 * workqueue last (kbloom_main.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>

#include "kbloom_internal.h"

/*
 * Unbound: a rotation clears a plane of up to 1 GiB of cells, with
 * cond_resched(), and has no reason to stay on the CPU that armed it.
 */
static struct workqueue_struct *kbloom_window_wq;

int kbloom_window_setup(void)
{
	kbloom_window_wq = alloc_workqueue("kbloom_rotate", WQ_UNBOUND, 0);
	return kbloom_window_wq ? 0 : -ENOMEM;
}

void kbloom_window_teardown(void)
{
	destroy_workqueue(kbloom_window_wq);
}

bool kbloom_is_window(const struct kbloom_dev *kd)
{
	return kd->filter.geo.type == KBLOOM_TYPE_WINDOW;
}

static struct kbloom_dev *kbloom_of_filter(struct kbloom_filter *f)
{
	return container_of(f, struct kbloom_dev, filter);
}

/*
 * The core's count hook, from the adder's context: any but NMI and hard
 * interrupts (kbloom_kapi.c refuses adds there), possibly with bottom
 * halves off.  queue_work() is safe in all of those.  The adder holds a
 * reference, so kd is alive here.
 */
static void kbloom_window_due(struct kbloom_filter *f)
{
	struct kbloom_dev *kd = kbloom_of_filter(f);

	if (!READ_ONCE(kd->win.stopping))
		queue_work(kbloom_window_wq, &kd->win.count_work);
}

/*
 * Milliseconds to jiffies, rounded up as msecs_to_jiffies() rounds, for
 * any period up to KBLOOM_ROTATE_MS_MAX (2^31 ms; HZ is at most a few
 * thousand, so ms * HZ stays far below 2^64).  msecs_to_jiffies() takes
 * an unsigned int and reads 2^31 ms and more as "forever"
 * (MAX_JIFFY_OFFSET): a window made with the largest period was armed
 * 2^62 jiffies out and never rotated by time.
 */
static u64 kbloom_ms_to_jiffies64(u64 ms)
{
	return div_u64(ms * HZ + MSEC_PER_SEC - 1, MSEC_PER_SEC);
}

/*
 * Caller holds rotate_lock; not after destroy.  A delay a timer cannot
 * hold (32-bit jiffies end at MAX_JIFFY_OFFSET, about 12 days at HZ
 * 1000) waits as long as it can, and the timer's work waits again for
 * the rest; so does a timer the wheel fires early because it reaches
 * beyond its last level (about 12 days at HZ 1000, 49 at HZ 250).
 */
static void kbloom_window_arm_jiffies(struct kbloom_dev *kd, u64 delay)
{
	lockdep_assert_held(&kd->win.rotate_lock);
	if (kd->win.rotate_ms && !kd->win.stopping)
		mod_delayed_work(kbloom_window_wq, &kd->win.timer,
				 min_t(u64, delay, MAX_JIFFY_OFFSET));
}

static void kbloom_window_arm(struct kbloom_dev *kd, u64 delay_ms)
{
	kbloom_window_arm_jiffies(kd, kbloom_ms_to_jiffies64(delay_ms));
}

/*
 * When the timer's next rotation is due: a period after the last
 * rotation of any kind (or the start, or an image's time).  Caller holds
 * rotate_lock, which every writer of last and of the timer holds.
 */
static u64 kbloom_window_due_at(struct kbloom_dev *kd)
{
	lockdep_assert_held(&kd->win.rotate_lock);
	return kd->win.last + kbloom_ms_to_jiffies64(kd->win.rotate_ms);
}

/*
 * One rotation, holding rotate_lock.  The timer is re-armed from when the
 * retired plane is empty, which is after its keys left live: so rotations
 * by time are at least rotate_ms apart, which the guarantee needs.
 */
static int kbloom_window_rotate_locked(struct kbloom_dev *kd)
{
	int err;

	lockdep_assert_held(&kd->win.rotate_lock);
	if (kd->win.stopping)
		return -ENODEV;
	down_read(&kd->lock);
	if (kd->dead) {
		up_read(&kd->lock);
		return -ENODEV;
	}
	err = kbloom_window_rotate(&kd->filter);
	if (!err) {
		WRITE_ONCE(kd->map->rotations, kd->filter.win.rotations);
		kd->win.last = get_jiffies_64();
		/* The new live (and the clear) before the cache's key. */
		smp_wmb();
		WRITE_ONCE(kd->win.done, kd->win.done + 1);
	}
	up_read(&kd->lock);
	if (!err)
		kbloom_window_arm(kd, kd->win.rotate_ms);
	return err;
}

int kbloom_window_rotate_now(struct kbloom_dev *kd)
{
	int err;

	if (!kbloom_is_window(kd))
		return -EOPNOTSUPP;
	err = mutex_lock_killable(&kd->win.rotate_lock);
	if (err)
		return err;
	err = kbloom_window_rotate_locked(kd);
	mutex_unlock(&kd->win.rotate_lock);
	return err;
}

/*
 * A timer that fired before the period's end (see
 * kbloom_window_arm_jiffies()) waits again for the rest.
 */
static void kbloom_window_timer_fn(struct work_struct *work)
{
	struct kbloom_dev *kd = container_of(to_delayed_work(work),
					     struct kbloom_dev, win.timer);
	u64 due, now;

	mutex_lock(&kd->win.rotate_lock);
	due = kbloom_window_due_at(kd);
	now = get_jiffies_64();
	if (time_before64(now, due))
		kbloom_window_arm_jiffies(kd, due - now);
	else
		kbloom_window_rotate_locked(kd);
	mutex_unlock(&kd->win.rotate_lock);
}

/*
 * Keys the current generation takes before it holds rotate_every: 0 when
 * it is full, U64_MAX when the filter does not rotate by count.
 */
u64 kbloom_window_room(struct kbloom_dev *kd)
{
	const struct kbloom_window *w = &kd->filter.win;
	u64 every = kd->win.rotate_every, adds;

	if (!every)
		return U64_MAX;
	adds = kbloom_window_adds(w, READ_ONCE(w->cur));
	return adds < every ? every - adds : 0;
}

/*
 * Only while the current generation still holds rotate_every adds: a
 * rotation by time or by hand since the hook ran started a new one,
 * which calls the hook again when its own adds get there.  Rotating
 * anyway would cut short the time the guarantee promises.
 */
static int kbloom_window_count_locked(struct kbloom_dev *kd)
{
	if (!kbloom_window_room(kd))
		return kbloom_window_rotate_locked(kd);
	return 0;
}

static void kbloom_window_count_fn(struct work_struct *work)
{
	struct kbloom_dev *kd = container_of(work, struct kbloom_dev,
					     win.count_work);

	mutex_lock(&kd->win.rotate_lock);
	kbloom_window_count_locked(kd);
	mutex_unlock(&kd->win.rotate_lock);
}

/*
 * The ADD ioctl's rotation by count (kbloom_batch.c), when the current
 * generation is full: as the work item would, which then finds nothing
 * to do, and neither does this if a rotation came first.
 */
int kbloom_window_rotate_full(struct kbloom_dev *kd)
{
	int err = mutex_lock_killable(&kd->win.rotate_lock);

	if (err)
		return err;
	err = kbloom_window_count_locked(kd);
	mutex_unlock(&kd->win.rotate_lock);
	return err;
}

/* Before the filter can be reached: nothing runs concurrently. */
void kbloom_window_init(struct kbloom_dev *kd, const struct kbloom_create *req)
{
	struct kbloom_window_state *ws = &kd->win;

	mutex_init(&ws->rotate_lock);
	INIT_DELAYED_WORK(&ws->timer, kbloom_window_timer_fn);
	INIT_WORK(&ws->count_work, kbloom_window_count_fn);
	ws->last = get_jiffies_64();
	if (!kbloom_is_window(kd))
		return;
	ws->rotate_ms = req->rotate_ms;
	ws->rotate_every = req->rotate_every;
	kd->filter.win.every = req->rotate_every;
	if (req->rotate_every)
		kd->filter.win.due = kbloom_window_due;
}

/* The filter is published: its first period starts now. */
void kbloom_window_start(struct kbloom_dev *kd)
{
	if (!kbloom_is_window(kd))
		return;
	mutex_lock(&kd->win.rotate_lock);
	kd->win.last = get_jiffies_64();
	kbloom_window_arm(kd, kd->win.rotate_ms);
	mutex_unlock(&kd->win.rotate_lock);
}

/*
 * Idempotent; process context, holding no lock of the filter (a rotation
 * being waited for takes rotate_lock and kd->lock).
 */
void kbloom_window_stop(struct kbloom_dev *kd)
{
	if (!kbloom_is_window(kd))
		return;
	mutex_lock(&kd->win.rotate_lock);
	kd->win.stopping = true;
	mutex_unlock(&kd->win.rotate_lock);
	cancel_delayed_work_sync(&kd->win.timer);
	cancel_work_sync(&kd->win.count_work);
}

int kbloom_window_lock(struct kbloom_dev *kd)
{
	if (!kbloom_is_window(kd))
		return 0;
	return mutex_lock_killable(&kd->win.rotate_lock);
}

void kbloom_window_unlock(struct kbloom_dev *kd)
{
	if (kbloom_is_window(kd))
		mutex_unlock(&kd->win.rotate_lock);
}

/*
 * Since the last rotation (or create), for an image; caller holds
 * rotate_lock.  Without a timer there is no next rotation for it to place,
 * so it is 0: the image of an unchanged filter is then the same bytes at
 * every read, as for the other types, and one loaded into a filter with a
 * timer waits a whole period, never less than the guarantee allows.
 */
u64 kbloom_window_elapsed_ms(struct kbloom_dev *kd)
{
	lockdep_assert_held(&kd->win.rotate_lock);
	if (!kd->win.rotate_ms)
		return 0;
	return jiffies64_to_msecs(get_jiffies_64() - kd->win.last);
}

/*
 * An image was loaded (caller holds rotate_lock and kd->lock exclusive):
 * its last rotation was elapsed_ms before it was saved, so the timer's
 * next one comes rotate_ms after that, at once if that has passed (an
 * image of a window without a timer says 0: a whole period).  A
 * current generation that already holds rotate_every adds gets its
 * rotation by count now: the hook fires only when adds cross the mark.
 */
void kbloom_window_loaded(struct kbloom_dev *kd, u64 elapsed_ms)
{
	struct kbloom_window *w = &kd->filter.win;
	u64 rotate_ms = kd->win.rotate_ms;

	lockdep_assert_held(&kd->win.rotate_lock);
	WRITE_ONCE(kd->map->rotations, w->rotations);
	if (rotate_ms) {
		elapsed_ms = min(elapsed_ms, rotate_ms);
		kd->win.last = get_jiffies_64() -
			       kbloom_ms_to_jiffies64(elapsed_ms);
		kbloom_window_arm(kd, rotate_ms - elapsed_ms);
	}
	if (kd->win.rotate_every && !kd->win.stopping &&
	    kbloom_window_adds(w, w->cur) >= kd->win.rotate_every)
		queue_work(kbloom_window_wq, &kd->win.count_work);
}

/*
 * Until the timer's next rotation: 0 without a timer, and while one is
 * running (the work is no longer pending) or overdue.  Counted from when
 * it is due, as the timer's work counts, not from the timer's expiry: a
 * wait the timer takes in two parts reads whole.  Caller holds
 * rotate_lock.
 */
u64 kbloom_window_next_ms(struct kbloom_dev *kd)
{
	u64 due, now = get_jiffies_64();

	if (!kd->win.rotate_ms || !delayed_work_pending(&kd->win.timer))
		return 0;
	due = kbloom_window_due_at(kd);
	if (!time_after64(due, now))
		return 0;
	return jiffies64_to_msecs(due - now);
}

void kbloom_window_fill_info(struct kbloom_dev *kd,
			     struct kbloom_window_info *info)
{
	const struct kbloom_geometry *geo = &kd->filter.geo;

	lockdep_assert_held(&kd->win.rotate_lock);
	lockdep_assert_held_read(&kd->lock);
	info->generations = geo->generations;
	info->plane_order = geo->plane_order;
	info->rotate_ms = kd->win.rotate_ms;
	info->rotate_every = kd->win.rotate_every;
	info->rotations = kd->filter.win.rotations;
	info->next_rotation_ms = kbloom_window_next_ms(kd);
}
