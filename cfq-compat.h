/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one place where cfq deals with the differences between the block
 * layer APIs of the kernels it is built for: Debian 12's 6.1, Debian 13's
 * 6.12 and trixie-backports' 7.3 (scripts/kernels.conf). A difference is
 * told apart by a feature macro where the kernel has one, else by the
 * version it came in; the .c files see one API.
 */
#ifndef _CFQ_COMPAT_H
#define _CFQ_COMPAT_H

#include <linux/hrtimer.h>
#include <linux/sbitmap.h>
#include <linux/version.h>

#include "blk-mq.h"
#include "blk-wbt.h"
#include "blk-cgroup.h"
#include "elevator.h"

/* The one version test: is the kernel @major.@minor or later? */
#define CFQ_KERNEL_SINCE(major, minor) \
	(LINUX_VERSION_CODE >= KERNEL_VERSION(major, minor, 0))

#ifndef CONFIG_BLK_CGROUP
#error "cfq needs a kernel with CONFIG_BLK_CGROUP (every Debian kernel has it)"
#endif

/*
 * The block layer's clock (6.9): in a task with a plug, the time of the
 * plug's first read, kept until the plug is flushed or the task is
 * scheduled; else ktime_get_ns(). Before 6.9 there is only the latter.
 */
static inline u64 cfq_blk_time_ns(void)
{
#if CFQ_KERNEL_SINCE(6, 9)
	return blk_time_get_ns();
#else
	return ktime_get_ns();
#endif
}

/* implemented in cfq-iosched.c, wrapped below as the elevator ops */
void cfq_insert_requests(struct blk_mq_hw_ctx *hctx,
				struct list_head *list, bool at_head);
void cfq_depth_updated(struct request_queue *q);
int cfq_init_sched(struct request_queue *q, struct elevator_queue *eq);

/*
 * init_sched() gets the elevator_queue the core allocated since 6.16, and
 * the core drops it when init fails; before, the scheduler allocated it.
 */
#if CFQ_KERNEL_SINCE(6, 16)
#define cfq_init_sched_op cfq_init_sched
#else
static inline int cfq_init_sched_op(struct request_queue *q,
				    struct elevator_type *e)
{
	struct elevator_queue *eq = elevator_alloc(q, e);
	int ret;

	if (!eq)
		return -ENOMEM;
	ret = cfq_init_sched(q, eq);
	if (ret)
		kobject_put(&eq->kobj);
	return ret;
}
#endif

/* depth_updated() is told the request_queue since 6.17, a hctx before */
#if CFQ_KERNEL_SINCE(6, 17)
#define cfq_depth_updated_op cfq_depth_updated
#else
static inline void cfq_depth_updated_op(struct blk_mq_hw_ctx *hctx)
{
	cfq_depth_updated(hctx->queue);
}
#endif

/*
 * For the KUnit test module (tests/modules/kunit-core/cfq_kunit_compat.h):
 * __kunit_test_suites_init() is told whether to run the suites since 6.13.
 */
#if CFQ_KERNEL_SINCE(6, 13)
#define cfq_kunit_suites_init(suites, n) \
	__kunit_test_suites_init(suites, n, true)
#else
#define cfq_kunit_suites_init(suites, n) __kunit_test_suites_init(suites, n)
#endif

/* hrtimer_setup() since 6.13; hrtimer_init() is gone in 6.16 */
static inline void cfq_hrtimer_setup(struct hrtimer *timer,
				     enum hrtimer_restart (*fn)(struct hrtimer *))
{
#if CFQ_KERNEL_SINCE(6, 13)
	hrtimer_setup(timer, fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
#else
	hrtimer_init(timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	timer->function = fn;
#endif
}

/*
 * What keeps q->elevator from changing under a reader of cfq's debugfs
 * files. Since 6.16 an elevator switch runs exit_sched() and sets
 * q->elevator (to NULL or to the next scheduler) under q->elevator_lock,
 * and only then, with that lock dropped, removes the old scheduler's
 * debugfs files: a reader takes the lock, as the block layer's own
 * debugfs files do, and then finds whether cfq is still attached. Before
 * 6.16 the files were removed, under q->sysfs_lock, before exit_sched():
 * q->elevator is cfq's for as long as a file can be read, and a reader
 * must not take sysfs_lock (the removal waits for readers under it).
 */
#if CFQ_KERNEL_SINCE(6, 16)
static inline int cfq_debugfs_lock(struct request_queue *q)
{
	return mutex_lock_interruptible(&q->elevator_lock);
}

static inline void cfq_debugfs_unlock(struct request_queue *q)
{
	mutex_unlock(&q->elevator_lock);
}
#else
static inline int cfq_debugfs_lock(struct request_queue *q)
{
	return 0;
}

static inline void cfq_debugfs_unlock(struct request_queue *q)
{
}
#endif

/* blk_queue_nonrot() became its inverse, blk_queue_rot(), after 6.12 */
#ifdef blk_queue_nonrot
#define cfq_queue_nonrot(q)	blk_queue_nonrot(q)
#else
#define cfq_queue_nonrot(q)	(!blk_queue_rot(q))
#endif

/*
 * Told apart by a feature, not a version: RQF_USE_SCHED arrived (6.5) with
 * the blk_insert_t insert flags and the gendisk-based wbt and blkcg calls.
 */
#ifdef RQF_USE_SCHED

/* insert_requests() gets flags instead of a bool since 6.5 */
static inline void cfq_insert_requests_op(struct blk_mq_hw_ctx *hctx,
					  struct list_head *list,
					  blk_insert_t flags)
{
	cfq_insert_requests(hctx, list, flags & BLK_MQ_INSERT_AT_HEAD);
}

/* Requests that went through prepare_request() */
static inline bool cfq_rq_prepared(struct request *rq)
{
	return rq->rq_flags & RQF_USE_SCHED;
}

/* shallow_depth counts tags of the whole bitmap */
static inline unsigned int cfq_shallow_depth(struct blk_mq_hw_ctx *hctx,
					     unsigned int depth)
{
	return depth;
}

/*
 * wbt works on the gendisk; a flag keeps it off while cfq is attached: the
 * elevator's until 6.15, the queue's QUEUE_FLAG_DISABLE_WBT_DEF since 6.16
 */
#ifdef ELEVATOR_FLAG_DISABLE_WBT
static inline void cfq_wbt_disable(struct elevator_queue *eq,
				   struct request_queue *q)
{
	set_bit(ELEVATOR_FLAG_DISABLE_WBT, &eq->flags);
	wbt_disable_default(q->disk);
}

static inline void cfq_wbt_enable(struct elevator_queue *eq,
				  struct request_queue *q)
{
	clear_bit(ELEVATOR_FLAG_DISABLE_WBT, &eq->flags);
	wbt_enable_default(q->disk);
}
#else
static inline void cfq_wbt_disable(struct elevator_queue *eq,
				   struct request_queue *q)
{
	blk_queue_flag_set(QUEUE_FLAG_DISABLE_WBT_DEF, q);
	wbt_disable_default(q->disk);
}

static inline void cfq_wbt_enable(struct elevator_queue *eq,
				  struct request_queue *q)
{
	blk_queue_flag_clear(QUEUE_FLAG_DISABLE_WBT_DEF, q);
	wbt_enable_default(q->disk);
}
#endif

/* blkcg policies are switched on and off per disk since 6.5 */
static inline int cfq_activate_policy(struct request_queue *q,
				      const struct blkcg_policy *pol)
{
	return blkcg_activate_policy(q->disk, pol);
}

static inline void cfq_deactivate_policy(struct request_queue *q,
					 const struct blkcg_policy *pol)
{
	blkcg_deactivate_policy(q->disk, pol);
}

/* pd_alloc_fn() takes the disk first since 6.5 */
#define CFQ_PD_ALLOC_FN(name)						\
	struct blkg_policy_data *name(struct gendisk *disk,		\
				      struct blkcg *blkcg, gfp_t gfp)
#define CFQ_PD_ALLOC_NODE	(disk->node_id)

/*
 * MAJ:MIN parsing: blkg_conf_init/prep/exit since 6.5; since 7.2 the
 * caller opens the disk first (blkg_conf_open_bdev) and undoes the two
 * steps apart (blkg_conf_unprep, blkg_conf_close_bdev). cfq_conf_finish()
 * must follow every cfq_conf_prep(), successful or not.
 */
#if CFQ_KERNEL_SINCE(7, 2)
static inline int cfq_conf_prep(struct blkcg *blkcg,
				const struct blkcg_policy *pol, char *input,
				struct blkg_conf_ctx *ctx)
{
	int ret;

	blkg_conf_init(ctx, input);
	ret = blkg_conf_open_bdev(ctx);
	return ret ?: blkg_conf_prep(blkcg, pol, ctx);
}

static inline void cfq_conf_finish(struct blkg_conf_ctx *ctx)
{
	if (ctx->blkg)
		blkg_conf_unprep(ctx);
	if (ctx->bdev)
		blkg_conf_close_bdev(ctx);
}
#else
static inline int cfq_conf_prep(struct blkcg *blkcg,
				const struct blkcg_policy *pol, char *input,
				struct blkg_conf_ctx *ctx)
{
	blkg_conf_init(ctx, input);
	return blkg_conf_prep(blkcg, pol, ctx);
}

static inline void cfq_conf_finish(struct blkg_conf_ctx *ctx)
{
	blkg_conf_exit(ctx);
}
#endif

#else /* 6.1 */

#include "blk-mq-tag.h"

#define cfq_insert_requests_op cfq_insert_requests

static inline bool cfq_rq_prepared(struct request *rq)
{
	return rq->rq_flags & RQF_ELVPRIV;
}

/* shallow_depth counts tags per sbitmap word: scale like mq-deadline */
static inline unsigned int cfq_shallow_depth(struct blk_mq_hw_ctx *hctx,
					     unsigned int depth)
{
	struct sbitmap_queue *bt = &hctx->sched_tags->bitmap_tags;
	unsigned int nrr = hctx->queue->nr_requests;

	return max(((depth << bt->sb.shift) + nrr - 1) / nrr, 1U);
}

static inline void cfq_wbt_disable(struct elevator_queue *eq,
				   struct request_queue *q)
{
	wbt_disable_default(q);
}

static inline void cfq_wbt_enable(struct elevator_queue *eq,
				  struct request_queue *q)
{
	wbt_enable_default(q);
}

static inline int cfq_activate_policy(struct request_queue *q,
				      const struct blkcg_policy *pol)
{
	return blkcg_activate_policy(q, pol);
}

static inline void cfq_deactivate_policy(struct request_queue *q,
					 const struct blkcg_policy *pol)
{
	blkcg_deactivate_policy(q, pol);
}

#define CFQ_PD_ALLOC_FN(name)						\
	struct blkg_policy_data *name(gfp_t gfp, struct request_queue *q, \
				      struct blkcg *blkcg)
#define CFQ_PD_ALLOC_NODE	(q->node)

/* 6.1's blkg_conf_prep() cleans up after itself when it fails */
static inline int cfq_conf_prep(struct blkcg *blkcg,
				const struct blkcg_policy *pol, char *input,
				struct blkg_conf_ctx *ctx)
{
	memset(ctx, 0, sizeof(*ctx));
	return blkg_conf_prep(blkcg, pol, input, ctx);
}

static inline void cfq_conf_finish(struct blkg_conf_ctx *ctx)
{
	if (ctx->blkg)
		blkg_conf_finish(ctx);
}

#endif

#endif /* _CFQ_COMPAT_H */
