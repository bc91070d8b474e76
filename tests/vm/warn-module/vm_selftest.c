// SPDX-License-Identifier: GPL-2.0
/*
 * Harness self-test module for scripts/test-harness.  It misbehaves only
 * when asked, so one module proves both directions: loaded plainly it must
 * leave a clean kernel log and unload; with warn=1 pin=1 scripts/vm-run must
 * report the WARNING and the failed rmmod.
 */
#include <linux/bug.h>
#include <linux/module.h>

static bool warn;
module_param(warn, bool, 0444);
MODULE_PARM_DESC(warn, "Hit a WARN_ON() while loading");

static bool pin;
module_param(pin, bool, 0444);
MODULE_PARM_DESC(pin, "Hold a reference to this module so rmmod fails");

static int __init vm_selftest_init(void)
{
	WARN_ON(warn);
	if (pin)
		__module_get(THIS_MODULE);
	return 0;
}
module_init(vm_selftest_init);

static void __exit vm_selftest_exit(void)
{
}
module_exit(vm_selftest_exit);

MODULE_DESCRIPTION("kbloom VM harness self-test: WARN and pin on request");
MODULE_LICENSE("GPL");
