// SPDX-License-Identifier: GPL-2.0
/* Class attributes' show() takes a const class and attribute (6.4). */
#include <linux/device.h>

ssize_t kbloom_probe(const struct class *class,
		     const struct class_attribute *attr, char *buf);

ssize_t kbloom_probe(const struct class *class,
		     const struct class_attribute *attr, char *buf)
{
	return 0;
}

struct class_attribute kbloom_probe_attr = {
	.show = kbloom_probe,
};
