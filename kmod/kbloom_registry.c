// SPDX-License-Identifier: GPL-2.0
/*
 * The registry of named filters and the caps, the bottom of the driver:
 * which names are taken, the published filters by id for lookups from any
 * context, how many filters there are and the bytes they and the image
 * buffers hold against max_filters and max_total_bytes.  It calls nothing
 * of the driver's; kbloom_control.c creates and destroys filters with it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/string.h>
#include <linux/xarray.h>

#include "kbloom_internal.h"

/* Serialises create and destroy; adds and checks never take it. */
static DEFINE_MUTEX(kbloom_registry_mutex);
static LIST_HEAD(kbloom_registry);
/* Filters with a name, and bytes of bits held (destroyed but open too). */
atomic_t kbloom_nr_filters = ATOMIC_INIT(0);
atomic64_t kbloom_total_bytes = ATOMIC64_INIT(0);

/*
 * Published filters by id, for other modules and BPF programs
 * (kbloom_kapi.c), which look up from any context, where the registry's
 * mutex cannot be taken: they read it under RCU.  Ids go round cyclically,
 * like minors, so that a stale id finds nothing rather than a filter
 * created a moment later.  Writers hold kbloom_registry_mutex too.
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

struct kbloom_dev *kbloom_registry_find(const char *name)
{
	struct kbloom_dev *kd;

	lockdep_assert_held(&kbloom_registry_mutex);
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

void kbloom_registry_lock(void)
{
	mutex_lock(&kbloom_registry_mutex);
}

void kbloom_registry_unlock(void)
{
	mutex_unlock(&kbloom_registry_mutex);
}

/* Before the node appears, so that sysfs "id" is right from the start. */
int kbloom_registry_add_id(struct kbloom_dev *kd)
{
	int err;

	lockdep_assert_held(&kbloom_registry_mutex);
	err = xa_alloc_cyclic(&kbloom_ids, &kd->id, kd, XA_LIMIT(1, INT_MAX),
			      &kbloom_next_id, GFP_KERNEL);
	return err < 0 ? err : 0;
}

void kbloom_registry_del_id(struct kbloom_dev *kd)
{
	lockdep_assert_held(&kbloom_registry_mutex);
	xa_erase(&kbloom_ids, kd->id);
}

/* Its name taken, counted against max_filters. */
void kbloom_registry_add(struct kbloom_dev *kd)
{
	lockdep_assert_held(&kbloom_registry_mutex);
	list_add_tail(&kd->registry_node, &kbloom_registry);
	atomic_inc(&kbloom_nr_filters);
}

/*
 * The first step of a destroy (kbloom_control.c): the filter leaves the
 * lookups and the count, but its name stays taken until
 * kbloom_registry_del().
 */
void kbloom_registry_hide(struct kbloom_dev *kd)
{
	lockdep_assert_held(&kbloom_registry_mutex);
	kd->dying = true;
	xa_erase(&kbloom_ids, kd->id);
	atomic_dec(&kbloom_nr_filters);
}

void kbloom_registry_del(struct kbloom_dev *kd)
{
	mutex_lock(&kbloom_registry_mutex);
	list_del(&kd->registry_node);
	mutex_unlock(&kbloom_registry_mutex);
}

/* Any filter still named, or NULL: for the destroys at module exit. */
struct kbloom_dev *kbloom_registry_first(void)
{
	lockdep_assert_held(&kbloom_registry_mutex);
	return list_first_entry_or_null(&kbloom_registry, struct kbloom_dev,
					registry_node);
}

/*
 * Bytes that open files hold for images being restored (each a whole
 * image, up to its filter's size: kbloom_image_io.c).  They count against
 * max_total_bytes with the filters', or N files restoring at once would
 * hold N filters' worth outside the cap.
 */
static atomic64_t kbloom_buffer_bytes = ATOMIC64_INIT(0);

/* Room for bytes more under max_total_bytes, which may have been lowered. */
bool kbloom_total_allows(u64 bytes)
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
