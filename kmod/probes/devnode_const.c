// SPDX-License-Identifier: GPL-2.0
/* struct device_type's devnode() takes a const struct device (6.2). */
#include <linux/device.h>

char *kbloom_probe(const struct device *dev, umode_t *mode, kuid_t *uid,
		   kgid_t *gid);

char *kbloom_probe(const struct device *dev, umode_t *mode, kuid_t *uid,
		   kgid_t *gid)
{
	return NULL;
}

const struct device_type kbloom_probe_type = {
	.devnode = kbloom_probe,
};
