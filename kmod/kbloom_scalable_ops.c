// SPDX-License-Identifier: GPL-2.0
/*
 * The operations of a scalable filter (include/uapi/linux/kbloom.h,
 * "Scalable filters"; its state is kbloom_scalable.c's): adds, checks and
 * deletes across the chain, its growth within the caps, CLEAR, image
 * loads, MERGE and GET_SUBFILTER.
 *
 * Growth.  The core says -EAGAIN, and changes nothing, for a new key when
 * the newest sub-filter holds its capacity.  An ADD ioctl, in process
 * context under kd->lock shared, then grows the chain itself and adds the
 * key again.  An add from the in-kernel API or BPF may run in atomic
 * context, where the allocator may not be called: it answers -EAGAIN (or
 * the last growth's error, once one failed) and queues grow_work, which
 * grows the chain from a worker under kd->lock shared, charging the
 * creator's memory cgroup as the create did.  After a failed growth the
 * next is asked for no sooner than KBLOOM_GROW_BACKOFF_MIN later, twice
 * that after two failures in a row, up to KBLOOM_GROW_BACKOFF_MAX: an
 * adder at packet rate against a cap would otherwise run the worker back
 * to back.  At the schedule's end none is asked for at all.  Either way
 * one grower runs at a time (grow_lock) and grows only a chain still
 * full, so racing adders that all found it full grow it once.  A full
 * chain never takes a new key past its capacity, whoever adds: the rate
 * stays under the bound while growth is pending, and an in-kernel adder
 * retries.
 *
 * Memory.  A growth charges the next sub-filter's bytes to the filter
 * (max_filter_bytes: all its sub-filters together) and to the module's
 * total (max_total_bytes) before allocating, and its pages to the memory
 * cgroup of the adder (the ioctl's caller) or of the creator (the
 * worker); any of them says no and the chain stays as it is.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/memcontrol.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include "kbloom_internal.h"
#include "kbloom_internal.h"

/* Growths for adds that may not sleep; drained before the module goes. */
static struct workqueue_struct *kbloom_grow_wq;

/*
 * The wait after a failed growth before adds that may not sleep ask for
 * another: a raised cap is seen within the longest of them.
 */
#define KBLOOM_GROW_BACKOFF_MIN	(HZ / 100)
#define KBLOOM_GROW_BACKOFF_MAX	HZ

/* Before the devices, after the control node is gone. */
int kbloom_scalable_setup(void)
{
	kbloom_grow_wq = alloc_workqueue("kbloom_grow", WQ_UNBOUND, 0);
	return kbloom_grow_wq ? 0 : -ENOMEM;
}

void kbloom_scalable_teardown(void)
{
	destroy_workqueue(kbloom_grow_wq);
}

/*
 * The next sub-filter, within the caps; under grow_lock, with growers
 * and CLEAR kept out by kd->lock.
 */
static int kbloom_scalable_grow_one(struct kbloom_dev *kd)
{
	struct kbloom_scalable *s = kd->scalable;
	u64 cap = READ_ONCE(kbloom_max_filter_bytes), held;
	struct kbloom_geometry geo;
	int err;

	lockdep_assert_held(&s->grow_lock);
	err = kbloom_chain_sub_geometry(&geo, &s->chain.params, s->chain.nsubs);
	if (err) {
		/* The schedule's end: no later growth can succeed either. */
		WRITE_ONCE(s->grow_ended, true);
		return err;
	}
	held = kbloom_chain_sub_held(&geo);
	if (kd->held > cap || held > cap - kd->held)
		return -E2BIG;
	err = kbloom_total_charge(held);
	if (err)
		return err;
	err = kbloom_chain_grow_prepare(&s->chain);
	if (err) {
		atomic64_sub(held, &kbloom_total_bytes);
		return err;
	}
	/* Mapped readers see it before any add can reach it. */
	kbloom_map_sub_added(kd, s->chain.nsubs);
	kbloom_chain_grow_publish(&s->chain);
	WRITE_ONCE(kd->bytes, kd->bytes + kbloom_geometry_bytes(&geo));
	WRITE_ONCE(kd->held, kd->held + held);
	return 0;
}

/* Grows the chain if it is still full; kd->lock held shared, kd live. */
static int kbloom_scalable_grow(struct kbloom_dev *kd)
{
	struct kbloom_scalable *s = kd->scalable;
	int err = 0;

	mutex_lock(&s->grow_lock);
	if (kbloom_chain_full(&s->chain)) {
		err = kbloom_scalable_grow_one(kd);
		WRITE_ONCE(s->grow_err, err);
		if (err)
			atomic64_inc(&s->grow_failures);
		s->grow_backoff = err ? clamp(s->grow_backoff * 2,
					      KBLOOM_GROW_BACKOFF_MIN,
					      KBLOOM_GROW_BACKOFF_MAX) : 0;
		WRITE_ONCE(s->grow_next, jiffies + s->grow_backoff);
	}
	mutex_unlock(&s->grow_lock);
	return err;
}

/*
 * Up to subs sub-filters, for a merge or a load that needs them; other
 * growers and CLEAR are kept out by kd->lock.  The sub-filters grown
 * before a failure stay, empty.
 */
static int kbloom_scalable_grow_to(struct kbloom_dev *kd, u32 subs)
{
	struct kbloom_scalable *s = kd->scalable;
	int err = 0;

	mutex_lock(&s->grow_lock);
	while (!err && s->chain.nsubs < subs)
		err = kbloom_scalable_grow_one(kd);
	mutex_unlock(&s->grow_lock);
	return err;
}

/* The work holds a reference to kd, taken where it was queued. */
void kbloom_scalable_grow_work(struct work_struct *work)
{
	struct kbloom_scalable *s = container_of(work, struct kbloom_scalable,
						 grow_work);
	struct kbloom_dev *kd = s->kd;
	struct mem_cgroup *old;

	down_read(&kd->lock);
	if (!kd->dead) {
		old = set_active_memcg(s->memcg);
		kbloom_scalable_grow(kd);
		set_active_memcg(old);
	}
	up_read(&kd->lock);
	put_device(&kd->dev);
}

/*
 * From an add that may not sleep (any context the core's adds allow, so
 * not NMI): a reference for the work, unless it is queued already.
 */
static void kbloom_scalable_want_growth(struct kbloom_dev *kd)
{
	struct kbloom_scalable *s = kd->scalable;

	/* Not at the schedule's end, nor while backing off a failure. */
	if (READ_ONCE(s->grow_ended) ||
	    (READ_ONCE(s->grow_err) &&
	     time_before(jiffies, READ_ONCE(s->grow_next))))
		return;
	get_device(&kd->dev);
	if (!queue_work(kbloom_grow_wq, &kd->scalable->grow_work))
		kbloom_dev_put(kd);
}

u32 kbloom_scalable_add(struct kbloom_dev *kd, const struct kbloom_key *keys,
			u32 n, unsigned long *answers, u32 *hits, int *err)
{
	struct kbloom_chain *c = &kd->scalable->chain;
	u32 i = 0, new = 0;
	int ret;

	/* It may grow the chain: kd->lock keeps CLEAR and loads out. */
	lockdep_assert_held_read(&kd->lock);
	*err = 0;
	bitmap_zero(answers, n);
	while (i < n) {
		ret = kbloom_chain_add(c, keys[i].data, keys[i].len);
		if (ret == -EAGAIN) {
			ret = kbloom_scalable_grow(kd);
			if (ret) {
				*err = ret;
				break;
			}
			continue;	/* the same key, into the new one */
		}
		if (ret) {
			__set_bit(i, answers);
			new++;
		}
		i++;
	}
	this_cpu_add(kd->filter.counts->add_calls, i);
	this_cpu_add(kd->filter.counts->add_new, new);
	*hits = new;
	return i;
}

u32 kbloom_scalable_check(struct kbloom_dev *kd, const struct kbloom_key *keys,
			  u32 n, unsigned long *answers)
{
	u32 hits;

	/* The chain's readers: the ioctl's kd->lock, or the API's RCU. */
	RCU_LOCKDEP_WARN(!rcu_read_lock_held() && !lockdep_is_held(&kd->lock),
			 "kbloom: a scalable filter read unprotected");
	hits = kbloom_chain_lookup_batch(&kd->scalable->chain, keys, n,
					 answers);

	this_cpu_add(kd->filter.counts->check_calls, n);
	this_cpu_add(kd->filter.counts->check_hits, hits);
	return hits;
}

u32 kbloom_scalable_delete(struct kbloom_dev *kd, const struct kbloom_key *keys,
			   u32 n, unsigned long *answers)
{
	struct kbloom_chain *c = &kd->scalable->chain;
	u32 i, hits = 0;

	lockdep_assert_held_read(&kd->lock);
	bitmap_zero(answers, n);
	for (i = 0; i < n; i++)
		if (kbloom_chain_delete(c, keys[i].data, keys[i].len)) {
			__set_bit(i, answers);
			hits++;
		}
	this_cpu_add(kd->filter.counts->delete_calls, n);
	this_cpu_add(kd->filter.counts->delete_hits, hits);
	return hits;
}

int kbloom_scalable_kapi_check(struct kbloom_dev *kd, const void *key, u32 len)
{
	bool hit;

	rcu_read_lock();
	hit = kbloom_chain_lookup(&kd->scalable->chain, key, len);
	rcu_read_unlock();
	this_cpu_inc(kd->filter.counts->check_calls);
	if (hit)
		this_cpu_inc(kd->filter.counts->check_hits);
	return hit;
}

int kbloom_scalable_kapi_check_keys(struct kbloom_dev *kd,
				    const struct kbloom_key *keys, u32 n,
				    unsigned long *answers)
{
	u32 hits;

	rcu_read_lock();
	hits = kbloom_scalable_check(kd, keys, n, answers);
	rcu_read_unlock();
	return hits;
}

int kbloom_scalable_kapi_add(struct kbloom_dev *kd, const void *key, u32 len)
{
	int ret;

	rcu_read_lock();
	ret = kbloom_chain_add(&kd->scalable->chain, key, len);
	rcu_read_unlock();
	if (ret == -EAGAIN) {
		kbloom_scalable_want_growth(kd);
		return READ_ONCE(kd->scalable->grow_err) ?: -EAGAIN;
	}
	this_cpu_inc(kd->filter.counts->add_calls);
	if (ret)
		this_cpu_inc(kd->filter.counts->add_new);
	return ret;
}

int kbloom_scalable_clear(struct kbloom_dev *kd)
{
	struct kbloom_scalable *s = kd->scalable;
	struct kbloom_chain_sub *retired;
	struct kbloom_counts zero = {};

	down_write(&kd->lock);
	if (kd->dead) {
		up_write(&kd->lock);
		return -ENODEV;
	}
	kbloom_map_rewrite_begin(kd);
	retired = kbloom_scalable_truncate(kd, 1);
	kbloom_clear(&kbloom_chain_sub(&s->chain, 0)->f);
	atomic64_set(&kbloom_chain_sub(&s->chain, 0)->keys, 0);
	kbloom_counts_set(&kd->filter, &zero);
	kbloom_map_rewrite_end(kd);
	kbloom_dev_reset_reports(kd);
	up_write(&kd->lock);
	kbloom_scalable_retire(kd, retired);
	return 0;
}

/*
 * A version 4 image of subs sub-filters that kbloom_chain_image_validate()
 * passed (from the chain's parameters alone, before the lock: it sizes
 * every sub-filter), under kd->lock exclusive (no ioctl
 * reads, adds or grows meanwhile; in-kernel and BPF adds run on, each
 * landing wholly before or after the rewrite of its block, as for a
 * filter of fixed size).  Growth first, within the caps, as ADD's: when
 * it fails the image is rejected and the chain keeps the empty
 * sub-filters it grew, as a merge's does (its keys and answers are
 * unchanged; taking them away again could drop a key an in-kernel add
 * has put there meanwhile).  Sub-filters past the image's are detached
 * into *retired, for kbloom_scalable_retire() once kd->lock is dropped.
 */
int kbloom_scalable_load(struct kbloom_dev *kd, const void *img, u32 subs,
			 struct kbloom_chain_sub **retired)
{
	struct kbloom_scalable *s = kd->scalable;
	struct kbloom_counts counts;
	int err;

	lockdep_assert_held_write(&kd->lock);
	err = kbloom_scalable_grow_to(kd, subs);
	if (err)
		return err;
	kbloom_map_rewrite_begin(kd);
	*retired = kbloom_scalable_truncate(kd, subs);
	kbloom_chain_image_apply(&s->chain, img, &counts);
	kbloom_counts_set(&kd->filter, &counts);
	kbloom_map_rewrite_end(kd);
	kbloom_dev_reset_reports(kd);
	return 0;
}

int kbloom_scalable_merge(struct kbloom_dev *kd, struct kbloom_dev *other)
{
	struct kbloom_scalable *s = kd->scalable;
	const struct kbloom_chain *src;
	u32 n;
	int err;

	/* Before EXDEV: a counting one takes no merge from any filter. */
	if (s) {
		err = kbloom_chain_merge_supported(&s->chain);
		if (err)
			return err;
	}
	if (!s || !other->scalable)
		return -EXDEV;
	src = &other->scalable->chain;
	if (!kbloom_chain_compatible(&s->chain, src))
		return -EXDEV;
	/* src's sub-filters now: those that grow meanwhile are not merged. */
	n = kbloom_chain_subs(src);
	err = kbloom_scalable_grow_to(kd, n);
	return err ?: kbloom_chain_merge_subs(&s->chain, src, n);
}

/*
 * Sub-filter sf->index from the cache's walk, or, when it grew since that
 * walk (or the walk had no memory to keep each sub-filter's part), from a
 * walk of that sub-filter alone; under stats_cache.lock, which keeps it.
 */
static int kbloom_scalable_subfilter(struct kbloom_dev *kd,
				     struct kbloom_subfilter *sf)
{
	struct kbloom_stats_cache *sc = &kd->stats_cache;
	struct kbloom_scalable *s = kd->scalable;
	struct kbloom_chain_sub_stats st;
	struct kbloom_cell_stats cells;
	struct kbloom_counts counts;
	int err;

	err = kbloom_stats_cache_get(kd, &counts, &cells);
	if (err)
		return err;
	if (mutex_lock_killable(&sc->lock))
		return -EINTR;
	if (sf->index >= kbloom_chain_subs(&s->chain)) {
		mutex_unlock(&sc->lock);
		return -ERANGE;
	}
	kbloom_chain_sub_stats(&s->chain, sf->index,
			       sf->index < s->walked ? &s->cells[sf->index] :
			       NULL, &st);
	mutex_unlock(&sc->lock);
	sf->capacity = st.capacity;
	sf->keys = st.keys;
	sf->nblocks = st.nblocks;
	sf->bytes = st.bytes;
	sf->seed = st.seed;
	sf->bits_set = st.bits_set;
	sf->est_keys = st.est_keys;
	sf->k = st.k;
	sf->fp_target_ppb = st.fp_target_ppb;
	sf->fp_now_ppb = st.fp_now_ppb;
	sf->fill_ppb = st.fill_ppb;
	/* A walk that destroy cut short answers nothing. */
	return READ_ONCE(kd->filter.walks_stop) ? -ENODEV : 0;
}

long kbloom_scalable_get_subfilter(struct kbloom_dev *kd, void __user *uarg)
{
	struct kbloom_subfilter sf;
	u32 index;
	size_t i;
	int err;

	if (!kd->scalable)
		return -EOPNOTSUPP;
	if (copy_from_user(&sf, uarg, sizeof(sf)))
		return -EFAULT;
	if (sf.flags)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(sf.reserved); i++)
		if (sf.reserved[i])
			return -EINVAL;
	index = sf.index;
	memset(&sf, 0, sizeof(sf));
	sf.index = index;
	err = kbloom_scalable_subfilter(kd, &sf);
	if (err)
		return err;
	if (copy_to_user(uarg, &sf, sizeof(sf)))
		return -EFAULT;
	return 0;
}
