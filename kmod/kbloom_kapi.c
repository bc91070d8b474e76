// SPDX-License-Identifier: GPL-2.0
/*
 * The in-kernel API of include/linux/kbloom_api.h: other modules take a
 * reference to a filter that userspace fills and check or add keys from
 * any context the header allows.  The BPF kfuncs (kbloom_bpf.c) are the
 * same operations.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/hardirq.h>
#include <linux/irqflags.h>
#include <linux/kbloom_api.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/string.h>

#include "kbloom_internal.h"

static struct kbloom_dev *kbloom_of(const struct kbloom_filter *f)
{
	return container_of(f, struct kbloom_dev, filter);
}

struct kbloom_dev *kbloom_kapi_get_name(const char *name, size_t size)
{
	char padded[KBLOOM_NAME_MAX] = {};
	size_t len;

	if (!name)
		return ERR_PTR(-EINVAL);
	/* The registry compares NUL-padded names; a C string is not one. */
	len = strnlen(name, min_t(size_t, size, KBLOOM_NAME_MAX));
	if (len == KBLOOM_NAME_MAX)
		return ERR_PTR(-EINVAL);
	memcpy(padded, name, len);
	if (!kbloom_name_valid(padded))
		return ERR_PTR(-EINVAL);
	return kbloom_dev_get_name(padded) ?: ERR_PTR(-ENOENT);
}

/*
 * Writers take a stripe's spinlock_t with bottom halves off
 * (kbloom_core.h).  Without PREEMPT_RT the lock spins, which a hard
 * interrupt or NMI must not do on a lock its CPU may hold, nor anyone with
 * interrupts off (local_bh_enable() would run softirqs there); a caller's
 * spinlock or preempt_disable() is fine.  On PREEMPT_RT the stripe lock
 * and local_bh_disable()'s per-CPU lock are sleeping locks, so adds need
 * a context that may block on them: not a raw spinlock, preempt_disable()
 * or interrupts off either.  Softirq context is a preemptible task there
 * and qualifies, as do a spinlock_t held and rcu_read_lock().
 *
 * The stripes stay spinlock_t on PREEMPT_RT rather than raw_spinlock_t:
 * that would allow adds in no further context, as local_bh_disable() must
 * not be called from a hard interrupt or with interrupts off there either
 * (kernel/softirq.c warns), and the walks of CLEAR, MERGE, INTERSECT and
 * window rotations (combine() in kbloom_rewrite.c) would hold each stripe
 * with preemption off, where a spinlock_t lets a task of higher priority
 * in.
 */
static bool kbloom_kapi_may_write(void)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		return kbloom_rt_may_block();
	return !in_hardirq() && !in_nmi() && !irqs_disabled();
}

static int kbloom_kapi_usable(const struct kbloom_filter *f)
{
	if (!f)
		return -EINVAL;
	/* Set at destroy; the cells stay until the last reference. */
	if (READ_ONCE(kbloom_of(f)->dead))
		return -ENODEV;
	return 0;
}

static bool kbloom_kapi_key_valid(const void *key, u32 len)
{
	return key && len && len <= KBLOOM_KEY_MAX;
}

/* What a single-key check or add must pass, in the errno order of both. */
static int kbloom_kapi_one(const struct kbloom_filter *f, const void *key,
			   u32 len)
{
	int err = kbloom_kapi_usable(f);

	if (err)
		return err;
	return kbloom_kapi_key_valid(key, len) ? 0 : -EINVAL;
}

int kbloom_kapi_check(struct kbloom_filter *f, const void *key, u32 len)
{
	int err = kbloom_kapi_one(f, key, len);

	if (err)
		return err;
	if (kbloom_of(f)->scalable)
		return kbloom_scalable_kapi_check(kbloom_of(f), key, len);
	return kbloom_check(f, key, len);
}

int kbloom_kapi_add(struct kbloom_filter *f, const void *key, u32 len)
{
	int err = kbloom_kapi_one(f, key, len);

	if (err)
		return err;
	if (!kbloom_kapi_may_write())
		return -EDEADLK;
	if (kbloom_of(f)->scalable)
		return kbloom_scalable_kapi_add(kbloom_of(f), key, len);
	return kbloom_add(f, key, len);
}

struct kbloom_filter *kbloom_filter_get(const char *name)
{
	struct kbloom_dev *kd = kbloom_kapi_get_name(name, KBLOOM_NAME_MAX);

	if (IS_ERR(kd))
		return ERR_CAST(kd);
	/* Ours is running, so the count is not 0: no try needed. */
	__module_get(THIS_MODULE);
	return &kd->filter;
}
EXPORT_SYMBOL_NS_GPL(kbloom_filter_get, KBLOOM_NS);

struct kbloom_filter *kbloom_filter_get_id(u32 id)
{
	struct kbloom_dev *kd = kbloom_dev_get_id(id);

	if (!kd)
		return ERR_PTR(-ENOENT);
	__module_get(THIS_MODULE);
	return &kd->filter;
}
EXPORT_SYMBOL_NS_GPL(kbloom_filter_get_id, KBLOOM_NS);

/*
 * The caller is a module that links against these symbols, so kbloom
 * cannot go away between the module_put() and our return.
 */
void kbloom_filter_put(struct kbloom_filter *f)
{
	if (!f)
		return;
	kbloom_dev_put(kbloom_of(f));
	module_put(THIS_MODULE);
}
EXPORT_SYMBOL_NS_GPL(kbloom_filter_put, KBLOOM_NS);

u32 kbloom_filter_id(const struct kbloom_filter *f)
{
	return f ? kbloom_of(f)->id : 0;
}
EXPORT_SYMBOL_NS_GPL(kbloom_filter_id, KBLOOM_NS);

int kbloom_filter_check(struct kbloom_filter *f, const void *key, u32 len)
{
	return kbloom_kapi_check(f, key, len);
}
EXPORT_SYMBOL_NS_GPL(kbloom_filter_check, KBLOOM_NS);

int kbloom_filter_add(struct kbloom_filter *f, const void *key, u32 len)
{
	return kbloom_kapi_add(f, key, len);
}
EXPORT_SYMBOL_NS_GPL(kbloom_filter_add, KBLOOM_NS);

/* All or nothing: every key is judged before the first is done. */
static int kbloom_kapi_keys_valid(const struct kbloom_key *keys, u32 n)
{
	u32 i;

	if (n > INT_MAX || (n && !keys))
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (!kbloom_kapi_key_valid(keys[i].data, keys[i].len))
			return -EINVAL;
	return 0;
}

/*
 * In steps of KBLOOM_CHUNK_KEYS (a multiple of BITS_PER_LONG, so each
 * step's results start on a word), as the ioctls do: a batch of adds runs
 * with bottom halves off, and a step bounds for how long.
 */
static int kbloom_kapi_keys(struct kbloom_filter *f,
			    const struct kbloom_key *keys, u32 n,
			    unsigned long *results, bool add)
{
	u32 done, step, hits = 0;
	int err;

	err = kbloom_kapi_usable(f);
	if (err)
		return err;
	err = kbloom_kapi_keys_valid(keys, n);
	if (err)
		return err;
	/* Adds that stop part way could not say where (kbloom_api.h). */
	if (add && kbloom_of(f)->scalable)
		return -EOPNOTSUPP;
	if (add && !kbloom_kapi_may_write())
		return -EDEADLK;
	for (done = 0; done < n; done += step) {
		unsigned long *res = results ?
				     results + done / BITS_PER_LONG : NULL;

		step = min_t(u32, n - done, KBLOOM_CHUNK_KEYS);
		if (add)
			hits += kbloom_add_batch(f, keys + done, step, res);
		else if (kbloom_of(f)->scalable)
			hits += kbloom_scalable_kapi_check_keys(kbloom_of(f),
								keys + done,
								step, res);
		else
			hits += kbloom_check_batch(f, keys + done, step, res);
	}
	return hits;
}

int kbloom_filter_check_keys(struct kbloom_filter *f,
			     const struct kbloom_key *keys, u32 n,
			     unsigned long *results)
{
	return kbloom_kapi_keys(f, keys, n, results, false);
}
EXPORT_SYMBOL_NS_GPL(kbloom_filter_check_keys, KBLOOM_NS);

int kbloom_filter_add_keys(struct kbloom_filter *f,
			   const struct kbloom_key *keys, u32 n,
			   unsigned long *results)
{
	return kbloom_kapi_keys(f, keys, n, results, true);
}
EXPORT_SYMBOL_NS_GPL(kbloom_filter_add_keys, KBLOOM_NS);
