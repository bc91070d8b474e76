// SPDX-License-Identifier: GPL-2.0
/*
 * sysfs: /sys/class/kbloom/<name>/ holds the geometry and every statistic
 * of a filter, one value per file; /sys/class/kbloom/ itself holds the
 * module-wide totals.  Documented in Documentation/ABI/testing/
 * sysfs-class-kbloom.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "kbloom_internal.h"

/*
 * The geometry and the id never change after create, but for the memory
 * of a scalable filter, which grows (kbloom_scalable_nblocks() reads it under
 * RCU): read them without the lock.
 */
#define KBLOOM_GEOMETRY_ATTR(_name, _value)				\
static ssize_t _name##_show(struct device *dev,				\
			    struct device_attribute *attr, char *buf)	\
{									\
	const struct kbloom_dev *kd = to_kbloom_dev(dev);		\
									\
	return sysfs_emit(buf, "%llu\n", (unsigned long long)(_value));	\
}

KBLOOM_GEOMETRY_ATTR(capacity, kd->filter.geo.capacity)
static DEVICE_ATTR_RO(capacity);
KBLOOM_GEOMETRY_ATTR(nblocks, kbloom_scalable_nblocks(kd))
static DEVICE_ATTR_RO(nblocks);
KBLOOM_GEOMETRY_ATTR(bits, kbloom_scalable_nblocks(kd) * KBLOOM_BLOCK_BITS)
static DEVICE_ATTR_RO(bits);
KBLOOM_GEOMETRY_ATTR(bytes, READ_ONCE(kd->bytes))
static DEVICE_ATTR_RO(bytes);
KBLOOM_GEOMETRY_ATTR(held_bytes, READ_ONCE(kd->held))
static DEVICE_ATTR_RO(held_bytes);
/* A scalable filter's; 0 for a filter of fixed size. */
KBLOOM_GEOMETRY_ATTR(expansion,
		     kd->scalable ? kd->scalable->chain.params.expansion : 0)
static DEVICE_ATTR_RO(expansion);
KBLOOM_GEOMETRY_ATTR(subfilters, kbloom_scalable_subfilters(kd))
static DEVICE_ATTR_RO(subfilters);
KBLOOM_GEOMETRY_ATTR(k, kd->filter.geo.k)
static DEVICE_ATTR_RO(k);
KBLOOM_GEOMETRY_ATTR(type, kd->filter.geo.type)
static DEVICE_ATTR_RO(type);
KBLOOM_GEOMETRY_ATTR(fp_target_ppb, kd->filter.geo.fp_target_ppb)
static DEVICE_ATTR_RO(fp_target_ppb);
/* What other modules and BPF programs acquire the filter by. */
KBLOOM_GEOMETRY_ATTR(id, kd->id)
static DEVICE_ATTR_RO(id);
/* A window's settings, fixed at create; 0 for the other types. */
KBLOOM_GEOMETRY_ATTR(generations, kd->filter.geo.generations)
static DEVICE_ATTR_RO(generations);
KBLOOM_GEOMETRY_ATTR(rotate_ms, kd->win.rotate_ms)
static DEVICE_ATTR_RO(rotate_ms);
KBLOOM_GEOMETRY_ATTR(rotate_every, kd->win.rotate_every)
static DEVICE_ATTR_RO(rotate_every);
/* Knowing the seed lets one craft colliding keys: root only. */
KBLOOM_GEOMETRY_ATTR(seed, kd->filter.geo.seed)
static DEVICE_ATTR_ADMIN_RO(seed);

#define KBLOOM_IOCTLS_ATTR(_name, _op)					\
static ssize_t _name##_show(struct device *dev,				\
			    struct device_attribute *attr, char *buf)	\
{									\
	struct kbloom_dev *kd = to_kbloom_dev(dev);			\
									\
	return sysfs_emit(buf, "%lld\n",				\
			  atomic64_read(&kd->batch_ioctls[_op]));	\
}									\
static DEVICE_ATTR_RO(_name)

/* A scalable filter's growths that failed; 0 for a filter of fixed size. */
static ssize_t grow_failures_show(struct device *dev,
				  struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n",
			  kbloom_scalable_grow_failures(to_kbloom_dev(dev)));
}
static DEVICE_ATTR_RO(grow_failures);

KBLOOM_IOCTLS_ATTR(add_ioctls, KBLOOM_BATCH_ADD);
KBLOOM_IOCTLS_ATTR(check_ioctls, KBLOOM_BATCH_CHECK);
KBLOOM_IOCTLS_ATTR(delete_ioctls, KBLOOM_BATCH_DELETE);

static int kbloom_sysfs_info(struct device *dev, struct kbloom_info *info,
			     bool cells)
{
	return kbloom_dev_fill_info(to_kbloom_dev(dev), info, cells);
}

/* A statistic: a field of struct kbloom_info, filled per read. */
struct kbloom_stat_attr {
	struct device_attribute dev_attr;
	size_t offset;
	bool wide;		/* __u64, else __u32 */
	/*
	 * Computed from the cells: the read shares the filter's last walk
	 * of them while they have not changed, else walks them
	 * (kbloom_stats_cache.c).  Every other statistic costs the same on
	 * any size of filter: the counts summed over CPUs, nothing more.
	 */
	bool cells;
};

/* One consistent snapshot per read, as GET_INFO gives. */
static ssize_t kbloom_stat_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	const struct kbloom_stat_attr *stat =
		container_of(attr, struct kbloom_stat_attr, dev_attr);
	struct kbloom_info info;
	const void *field = (const u8 *)&info + stat->offset;
	int err = kbloom_sysfs_info(dev, &info, stat->cells);

	if (err)
		return err;
	if (stat->wide)
		return sysfs_emit(buf, "%llu\n",
				  (unsigned long long)*(const u64 *)field);
	return sysfs_emit(buf, "%u\n", *(const u32 *)field);
}

/*
 * A window's rotation state, read under its rotate_lock (so between
 * rotations) and kd->lock shared; 0 for the other types, which rotate
 * never.
 */
static ssize_t kbloom_window_show(struct device *dev, char *buf,
				  u64 (*value)(struct kbloom_dev *kd))
{
	struct kbloom_dev *kd = to_kbloom_dev(dev);
	u64 v = 0;
	int err;

	err = kbloom_window_lock(kd);
	if (err)
		return err;
	down_read(&kd->lock);
	if (kd->dead)
		err = -ENODEV;
	else if (kbloom_is_window(kd))
		v = value(kd);
	up_read(&kd->lock);
	kbloom_window_unlock(kd);
	return err ? err : sysfs_emit(buf, "%llu\n", (unsigned long long)v);
}

static u64 kbloom_rotations_of(struct kbloom_dev *kd)
{
	return kd->filter.win.rotations;
}

static ssize_t rotations_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	return kbloom_window_show(dev, buf, kbloom_rotations_of);
}
static DEVICE_ATTR_RO(rotations);

static ssize_t next_rotation_ms_show(struct device *dev,
				     struct device_attribute *attr, char *buf)
{
	return kbloom_window_show(dev, buf, kbloom_window_next_ms);
}
static DEVICE_ATTR_RO(next_rotation_ms);

/*
 * Per generation, newest first, space-separated: an array of one type,
 * which sysfs allows.  At most 63 values of up to 20 digits: inside the
 * page.
 */
static ssize_t kbloom_generations_show(struct device *dev, char *buf,
				       size_t offset, bool wide, bool cells)
{
	struct kbloom_dev *kd = to_kbloom_dev(dev);
	struct kbloom_generation *gen;
	u32 g = kd->filter.geo.generations, i;
	int err, len = 0;

	if (!kbloom_is_window(kd))
		return sysfs_emit(buf, "0\n");
	/* 2.5 KiB: too much for the stack of a sysfs read. */
	gen = kcalloc(KBLOOM_GENERATIONS_MAX, sizeof(*gen), GFP_KERNEL);
	if (!gen)
		return -ENOMEM;
	err = kbloom_stats_cache_generations_lock(kd, gen, cells);
	if (err)
		goto free_gen;
	up_read(&kd->lock);
	kbloom_window_unlock(kd);
	for (i = 0; i < g; i++) {
		const void *field = (const u8 *)&gen[i] + offset;
		unsigned long long v = wide ? *(const u64 *)field :
					      *(const u32 *)field;

		len += sysfs_emit_at(buf, len, "%s%llu", i ? " " : "", v);
	}
	len += sysfs_emit_at(buf, len, "\n");
	err = len;
free_gen:
	kfree(gen);
	return err;
}

/* _cells: computed from the cells, which the add counts are not. */
#define KBLOOM_GEN_ATTR(_name, _field, _wide, _cells)			\
static ssize_t _name##_show(struct device *dev,				\
			    struct device_attribute *attr, char *buf)	\
{									\
	return kbloom_generations_show(dev, buf,			\
			offsetof(struct kbloom_generation, _field),	\
			_wide, _cells);					\
}									\
static DEVICE_ATTR_RO(_name)

KBLOOM_GEN_ATTR(gen_add_calls, add_calls, true, false);
KBLOOM_GEN_ATTR(gen_est_keys, est_keys, true, true);
KBLOOM_GEN_ATTR(gen_fill_ppb, fill_ppb, false, true);

#define KBLOOM_STAT_ATTR(_field, _wide, _cells)				\
	struct kbloom_stat_attr kbloom_stat_##_field = {		\
		.dev_attr = {						\
			.attr = { .name = #_field, .mode = 0444 },	\
			.show = kbloom_stat_show,			\
		},							\
		.offset = offsetof(struct kbloom_info, _field),		\
		.wide = _wide,						\
		.cells = _cells,					\
	}

static KBLOOM_STAT_ATTR(add_calls, true, false);
static KBLOOM_STAT_ATTR(add_new, true, false);
static KBLOOM_STAT_ATTR(check_calls, true, false);
static KBLOOM_STAT_ATTR(check_hits, true, false);
static KBLOOM_STAT_ATTR(delete_calls, true, false);
static KBLOOM_STAT_ATTR(delete_hits, true, false);
static KBLOOM_STAT_ATTR(bits_set, true, true);
static KBLOOM_STAT_ATTR(est_keys, true, true);
static KBLOOM_STAT_ATTR(reported_fp, true, false);
static KBLOOM_STAT_ATTR(reported_tp, true, false);
static KBLOOM_STAT_ATTR(reported_tn, true, false);
static KBLOOM_STAT_ATTR(fill_ppb, false, true);
static KBLOOM_STAT_ATTR(fp_design_ppb, false, false);
static KBLOOM_STAT_ATTR(fp_now_ppb, false, true);
static KBLOOM_STAT_ATTR(observed_fp_ppb, false, false);
static KBLOOM_STAT_ATTR(saturated, false, true);
static KBLOOM_STAT_ATTR(mappings, true, false);

/*
 * The filter's shape, fixed at create (a scalable filter's memory and
 * sub-filters grow), is everyone's to read, as a file's size is
 * (kbloomctl list shows it for every filter); the seed is root's.
 */
static struct attribute *kbloom_geometry_attrs[] = {
	&dev_attr_id.attr,
	&dev_attr_capacity.attr,
	&dev_attr_nblocks.attr,
	&dev_attr_bits.attr,
	&dev_attr_bytes.attr,
	&dev_attr_held_bytes.attr,
	&dev_attr_k.attr,
	&dev_attr_type.attr,
	&dev_attr_seed.attr,
	&dev_attr_fp_target_ppb.attr,
	&kbloom_stat_fp_design_ppb.dev_attr.attr,
	&dev_attr_generations.attr,
	&dev_attr_rotate_ms.attr,
	&dev_attr_rotate_every.attr,
	&dev_attr_expansion.attr,
	&dev_attr_subfilters.attr,
	NULL
};

/* What the filter holds and how it is used. */
static struct attribute *kbloom_stats_attrs[] = {
	&kbloom_stat_add_calls.dev_attr.attr,
	&kbloom_stat_add_new.dev_attr.attr,
	&kbloom_stat_check_calls.dev_attr.attr,
	&kbloom_stat_check_hits.dev_attr.attr,
	&kbloom_stat_delete_calls.dev_attr.attr,
	&kbloom_stat_delete_hits.dev_attr.attr,
	&kbloom_stat_bits_set.dev_attr.attr,
	&kbloom_stat_fill_ppb.dev_attr.attr,
	&kbloom_stat_est_keys.dev_attr.attr,
	&kbloom_stat_fp_now_ppb.dev_attr.attr,
	&kbloom_stat_observed_fp_ppb.dev_attr.attr,
	&kbloom_stat_reported_fp.dev_attr.attr,
	&kbloom_stat_reported_tp.dev_attr.attr,
	&kbloom_stat_reported_tn.dev_attr.attr,
	&kbloom_stat_saturated.dev_attr.attr,
	&dev_attr_add_ioctls.attr,
	&dev_attr_check_ioctls.attr,
	&dev_attr_delete_ioctls.attr,
	&kbloom_stat_mappings.dev_attr.attr,
	&dev_attr_grow_failures.attr,
	&dev_attr_rotations.attr,
	&dev_attr_next_rotation_ms.attr,
	&dev_attr_gen_add_calls.attr,
	&dev_attr_gen_est_keys.attr,
	&dev_attr_gen_fill_ppb.attr,
	NULL
};

/*
 * The statistics tell what a filter holds (est_keys, fill) and how it is
 * used (check_hits answers other users' lookups), which its node's mode
 * keeps from those who may not read it.  sysfs files are root's, so they
 * cannot follow the node's owner and group; they follow its other class:
 * readable by all when everyone may read the node, by root alone
 * otherwise.  The owner and group of such a filter read the same numbers
 * through GET_INFO and GET_WINDOW, which the node's mode governs.  The
 * mode given at create decides, as it decides the node's: a udev rule
 * that changes the node afterwards does not change these.
 */
static umode_t kbloom_stats_visible(struct kobject *kobj,
				    struct attribute *attr, int n)
{
	const struct kbloom_dev *kd = to_kbloom_dev(kobj_to_dev(kobj));

	return kd->mode & 0004 ? 0444 : 0400;
}

static const struct attribute_group kbloom_geometry_group = {
	.attrs = kbloom_geometry_attrs,
};

static const struct attribute_group kbloom_stats_group = {
	.attrs = kbloom_stats_attrs,
	.is_visible = kbloom_stats_visible,
};

const struct attribute_group *kbloom_dev_groups[] = {
	&kbloom_geometry_group,
	&kbloom_stats_group,
	NULL
};

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

/* The device's own groups, beside its type's statistics above. */
const struct attribute_group *kbloom_report_groups[] = {
	&kbloom_report_group,
	NULL,
};

static ssize_t total_filters_show(kbloom_class_attr_const struct class *class,
				  kbloom_class_attr_const struct class_attribute *attr,
				  char *buf)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&kbloom_nr_filters));
}
static CLASS_ATTR_RO(total_filters);

static ssize_t total_bytes_show(kbloom_class_attr_const struct class *class,
				kbloom_class_attr_const struct class_attribute *attr,
				char *buf)
{
	return sysfs_emit(buf, "%lld\n", atomic64_read(&kbloom_total_bytes));
}
static CLASS_ATTR_RO(total_bytes);

static struct attribute *kbloom_class_attrs[] = {
	&class_attr_total_filters.attr,
	&class_attr_total_bytes.attr,
	NULL
};

static const struct attribute_group kbloom_class_group = {
	.attrs = kbloom_class_attrs,
};

const struct attribute_group *kbloom_class_groups[] = {
	&kbloom_class_group,
	NULL
};

/* Filters appear beside the totals in /sys/class/kbloom/. */
bool kbloom_name_reserved(const char *name)
{
	struct attribute **attr;

	for (attr = kbloom_class_attrs; *attr; attr++)
		if (!strcmp((*attr)->name, name))
			return true;
	return false;
}
