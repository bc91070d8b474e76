// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom: named Bloom filters in kernel memory.  Module setup, the memory
 * caps and the optional filter created at load time, e.g.
 *
 *	insmod kbloom.ko default_capacity=1000000 default_fp=1%
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/uidgid.h>

#include "kbloom_internal.h"

unsigned long long kbloom_max_filter_bytes = 1ULL << 30;
module_param_named(max_filter_bytes, kbloom_max_filter_bytes, ullong, 0644);
MODULE_PARM_DESC(max_filter_bytes,
		 "Largest filter, in bytes it holds (default 1 GiB)");

unsigned long long kbloom_max_total_bytes = 4ULL << 30;
module_param_named(max_total_bytes, kbloom_max_total_bytes, ullong, 0644);
MODULE_PARM_DESC(max_total_bytes,
		 "Bytes held by all filters together (default 4 GiB)");

unsigned int kbloom_max_filters = 1024;
module_param_named(max_filters, kbloom_max_filters, uint, 0644);
MODULE_PARM_DESC(max_filters, "Most filters that may exist (default 1024)");

static char *default_name = "default";
module_param(default_name, charp, 0444);
MODULE_PARM_DESC(default_name,
		 "Name of the filter made at load time (default \"default\")");

static unsigned long long default_capacity;
module_param(default_capacity, ullong, 0444);
MODULE_PARM_DESC(default_capacity,
		 "Keys of the filter created at load time; 0 creates none");

static char *default_fp = "1%";
module_param(default_fp, charp, 0444);
MODULE_PARM_DESC(default_fp,
		 "Its false-positive rate: 1%, 0.05%... or ppb (default 1%)");

static unsigned int default_mode = 0600;
module_param(default_mode, uint, 0444);
MODULE_PARM_DESC(default_mode,
		 "Permission bits of its node, owned by root (default 0600)");

/*
 * Parses "1%", "0.05%" (up to seven decimals, the resolution of a ppb) or
 * a plain integer number of parts per billion, in integer math.
 */
static int kbloom_parse_rate(const char *s, u32 *ppb)
{
	const u64 ppb_per_percent = KBLOOM_PPB / 100;
	size_t len = strlen(s);
	u64 whole = 0, frac = 0, scale, rate;
	unsigned int frac_digits = 0;
	bool percent = len && s[len - 1] == '%';
	bool seen_point = false, seen_digit = false;

	if (percent)
		len--;
	for (; len; s++, len--) {
		if (*s == '.' && percent && !seen_point) {
			seen_point = true;
			continue;
		}
		if (*s < '0' || *s > '9')
			return -EINVAL;
		seen_digit = true;
		if (seen_point) {
			if (++frac_digits > 7)
				return -EINVAL;
			frac = frac * 10 + (*s - '0');
		} else {
			if (whole > KBLOOM_PPB)
				return -EINVAL;
			whole = whole * 10 + (*s - '0');
		}
	}
	if (!seen_digit)
		return -EINVAL;
	if (percent) {
		for (scale = ppb_per_percent; frac_digits; frac_digits--)
			scale /= 10;
		if (whole > 100)
			return -EINVAL;
		rate = whole * ppb_per_percent + frac * scale;
	} else {
		rate = whole;
	}
	if (!rate || rate >= KBLOOM_PPB)
		return -EINVAL;
	*ppb = rate;
	return 0;
}

static int kbloom_create_default(void)
{
	struct kbloom_create req = {};
	u32 fp_ppb;
	int err;

	if (!default_capacity)
		return 0;
	err = kbloom_parse_rate(default_fp, &fp_ppb);
	if (err) {
		pr_err("default_fp=%s: want e.g. 1%% or 10000000 (ppb)\n",
		       default_fp);
		return err;
	}
	if (strscpy(req.name, default_name, sizeof(req.name)) < 0) {
		pr_err("default_name is too long\n");
		return -EINVAL;
	}
	req.capacity = default_capacity;
	req.fp_ppb = fp_ppb;
	req.node_mode = default_mode;
	req.type = KBLOOM_TYPE_BITS;
	err = kbloom_create(&req, GLOBAL_ROOT_UID, GLOBAL_ROOT_GID);
	if (err)
		pr_err("cannot create the default filter \"%s\": %d\n",
		       default_name, err);
	return err;
}

static int __init kbloom_init(void)
{
	int err;

	/* First: kfuncs cannot be unregistered, only go with the module. */
	kbloom_bpf_register();
	/* Before the devices: a filter's last put cancels its rotations. */
	err = kbloom_window_setup();
	if (err)
		return err;
	err = kbloom_scalable_setup();
	if (err)
		goto teardown_window;
	err = kbloom_dev_setup();
	if (err)
		goto teardown_scale;
	err = kbloom_control_register();
	if (err)
		goto teardown_dev;
	err = kbloom_create_default();
	if (err)
		goto deregister_control;
	return 0;

deregister_control:
	kbloom_control_deregister();
teardown_dev:
	kbloom_dev_teardown();
teardown_scale:
	kbloom_scalable_teardown();
teardown_window:
	kbloom_window_teardown();
	return err;
}

static void __exit kbloom_exit(void)
{
	kbloom_destroy_all();
	kbloom_control_deregister();
	/* A growth's work may hold a filter's last reference. */
	kbloom_scalable_teardown();
	kbloom_dev_teardown();
	/* Every filter is freed by now, its rotations cancelled with it. */
	kbloom_window_teardown();
}

module_init(kbloom_init);
module_exit(kbloom_exit);

MODULE_DESCRIPTION("Named Bloom filters shared through character devices");
MODULE_AUTHOR("The kbloom authors");
MODULE_LICENSE("GPL");
/* From the top-level VERSION file, through Kbuild's ccflags. */
MODULE_VERSION(KBLOOM_VERSION);
