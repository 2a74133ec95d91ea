// SPDX-License-Identifier: GPL-2.0
/*
 * planted: deliberate bugs that the debug kernel's checkers must catch.
 *
 * uaf=1 frees a slab object and then reads it (KASAN: slab-use-after-free);
 * abba=1 takes two mutexes in one order and then in the other (lockdep:
 * possible circular locking dependency). Loaded without parameters it does
 * nothing. Temporary: it only proves that a debug-kernel run fails on such
 * reports, and is removed again once that is shown.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/mutex.h>
#include <linux/compiler.h>

static bool uaf;
module_param(uaf, bool, 0444);
MODULE_PARM_DESC(uaf, "read a slab object after freeing it");

static bool abba;
module_param(abba, bool, 0444);
MODULE_PARM_DESC(abba, "take two mutexes in both orders");

static DEFINE_MUTEX(planted_a);
static DEFINE_MUTEX(planted_b);

static noinline void planted_uaf(void)
{
	char *p = kmalloc(64, GFP_KERNEL);

	if (!p)
		return;
	p[0] = 'x';
	kfree(p);
	/* keep the compiler from proving anything about p */
	OPTIMIZER_HIDE_VAR(p);
	pr_info("planted: read after free gives %d\n", READ_ONCE(p[0]));
}

static noinline void planted_abba(void)
{
	mutex_lock(&planted_a);
	mutex_lock(&planted_b);
	mutex_unlock(&planted_b);
	mutex_unlock(&planted_a);

	mutex_lock(&planted_b);
	mutex_lock(&planted_a);
	mutex_unlock(&planted_a);
	mutex_unlock(&planted_b);
}

static int __init planted_init(void)
{
	if (uaf)
		planted_uaf();
	if (abba)
		planted_abba();
	return 0;
}

static void __exit planted_exit(void)
{
}

module_init(planted_init);
module_exit(planted_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("cfq debug-kernel self-check: planted use-after-free and ABBA locking");
