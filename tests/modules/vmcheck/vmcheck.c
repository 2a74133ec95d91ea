// SPDX-License-Identifier: GPL-2.0
/*
 * vmcheck: proves that the test harness notices a kernel warning and
 * stops a guest whose kernel hit a BUG.
 *
 * Loading it with warn=1 triggers one WARN, with bug=1 a BUG (modprobe is
 * killed); the harness self-test expects scripts/vm to fail those runs,
 * and to stop the second guest soon. Loaded without parameters it does
 * nothing.
 */
#include <linux/module.h>
#include <linux/bug.h>

static bool warn;
module_param(warn, bool, 0444);
MODULE_PARM_DESC(warn, "trigger a kernel WARNING at load");

static bool bug;
module_param(bug, bool, 0444);
MODULE_PARM_DESC(bug, "trigger a kernel BUG at load");

static int __init vmcheck_init(void)
{
	WARN(warn, "vmcheck: deliberate warning for the harness self-test\n");
	BUG_ON(bug);
	return 0;
}

static void __exit vmcheck_exit(void)
{
}

module_init(vmcheck_init);
module_exit(vmcheck_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("cfq test harness self-check");
