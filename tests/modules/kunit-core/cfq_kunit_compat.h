/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Register KUnit suites on kernels with CONFIG_KUNIT and on kernels without
 * it, where kunit.ko is built from tests/modules/kunit-core.
 *
 * With CONFIG_KUNIT this is kunit_test_suites(): the module loader hands the
 * suites to KUnit. Without it nothing reads the .kunit_test_suites section,
 * so the module runs its suites itself from module_init. Use it once per
 * module, instead of kunit_test_suites() and instead of module_init/exit:
 *
 *	CFQ_KUNIT_SUITES(&cfq_weight_suite, &cfq_tree_suite);
 *	MODULE_LICENSE("GPL");
 */
#ifndef _CFQ_KUNIT_COMPAT_H
#define _CFQ_KUNIT_COMPAT_H

#include <kunit/test.h>
#include <linux/init.h>
#include <linux/module.h>

#include "cfq-compat.h"		/* cfq_kunit_suites_init() */

#if IS_ENABLED(CONFIG_KUNIT)
#define CFQ_KUNIT_SUITES(...) kunit_test_suites(__VA_ARGS__)
#else
#define CFQ_KUNIT_SUITES(...) __cfq_kunit_suites(cfq_kunit, __VA_ARGS__)

#define __cfq_kunit_suites(prefix, ...)					\
	static struct kunit_suite *prefix##_suites[] = { __VA_ARGS__ };	\
									\
	static int __init prefix##_init(void)				\
	{								\
		return cfq_kunit_suites_init(prefix##_suites,		\
					     ARRAY_SIZE(prefix##_suites)); \
	}								\
	module_init(prefix##_init);					\
									\
	static void __exit prefix##_exit(void)				\
	{								\
		__kunit_test_suites_exit(prefix##_suites,		\
					 ARRAY_SIZE(prefix##_suites));	\
	}								\
	module_exit(prefix##_exit)
#endif

#endif /* _CFQ_KUNIT_COMPAT_H */
