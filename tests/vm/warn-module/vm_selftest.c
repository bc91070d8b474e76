// SPDX-License-Identifier: GPL-2.0
/*
 * Harness self-test module for scripts/test-harness.  It misbehaves only
 * when asked, so one module proves both directions: loaded plainly it must
 * leave a clean kernel log and unload; with warn=1 pin=1 scripts/vm-run must
 * report the WARNING and the failed rmmod, and with spam=N (N lines of log)
 * that the log wrapped past the start of the run.
 */
#include <linux/bug.h>
#include <linux/module.h>

static bool warn;
module_param(warn, bool, 0444);
MODULE_PARM_DESC(warn, "Hit a WARN_ON() while loading");

static bool pin;
module_param(pin, bool, 0444);
MODULE_PARM_DESC(pin, "Hold a reference to this module so rmmod fails");

static unsigned int spam;
module_param(spam, uint, 0444);
MODULE_PARM_DESC(spam, "Lines of filler to print while loading");

static int __init vm_selftest_init(void)
{
	unsigned int i;

	for (i = 0; i < spam; i++)
		pr_info("vm_selftest: filler line %u of %u, printed to overflow the kernel log\n",
			i, spam);
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
