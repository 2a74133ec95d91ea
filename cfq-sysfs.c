// SPDX-License-Identifier: GPL-2.0
/*
 * CFQ tunables in /sys/block/<dev>/queue/iosched/.
 *
 * Names, units and defaults are those of CFQ in Linux 4.20, plus
 * sliding_window and startup_boost. Unlike 4.20, a write that is not a plain decimal number
 * in range fails with -EINVAL and leaves the value alone instead of being
 * clamped. Times are kept in ns; the "_us" files are the same values in
 * microseconds. Writes take effect at the next scheduling decision.
 */
#include <linux/kernel.h>
#include <linux/sysfs.h>

#include "cfq.h"

void cfq_init_tunables(struct cfq_data *cfqd)
{
	cfqd->cfq_quantum = CFQ_QUANTUM;
	cfqd->cfq_fifo_expire[0] = CFQ_FIFO_EXPIRE_ASYNC;
	cfqd->cfq_fifo_expire[1] = CFQ_FIFO_EXPIRE_SYNC;
	cfqd->cfq_back_max = CFQ_BACK_SEEK_MAX;
	cfqd->cfq_back_penalty = CFQ_BACK_SEEK_PENALTY;
	cfqd->cfq_slice[0] = CFQ_SLICE_ASYNC;
	cfqd->cfq_slice[1] = CFQ_SLICE_SYNC;
	cfqd->cfq_slice_async_rq = CFQ_SLICE_ASYNC_RQ;
	/* idling does not pay off where seeks are free */
	cfqd->cfq_slice_idle = cfq_queue_nonrot(cfqd->queue) ? 0 :
			       CFQ_SLICE_IDLE;
	cfqd->cfq_group_idle = CFQ_GROUP_IDLE;
	cfqd->cfq_latency = 1;
	cfqd->cfq_target_latency = CFQ_TARGET_LATENCY;
	cfqd->cfq_sliding_window = 1;
	cfqd->cfq_startup_boost = CFQ_STARTUP_BOOST;
}

static ssize_t cfq_var_show(u64 val, char *page)
{
	return sysfs_emit(page, "%llu\n", val);
}

/* Parse a decimal in [min, max]; anything else is -EINVAL. */
static int cfq_var_store(const char *page, unsigned int min, unsigned int max,
			 unsigned int *val)
{
	if (kstrtouint(page, 10, val) || *val < min || *val > max)
		return -EINVAL;
	return 0;
}

#define SHOW_FUNCTION(__NAME, __VAR, __DIV)				\
static ssize_t cfq_##__NAME##_show(struct elevator_queue *e, char *page)	\
{									\
	struct cfq_data *cfqd = e->elevator_data;			\
									\
	return cfq_var_show(div_u64(__VAR, __DIV), page);		\
}
SHOW_FUNCTION(quantum, cfqd->cfq_quantum, 1);
SHOW_FUNCTION(fifo_expire_sync, cfqd->cfq_fifo_expire[1], NSEC_PER_MSEC);
SHOW_FUNCTION(fifo_expire_async, cfqd->cfq_fifo_expire[0], NSEC_PER_MSEC);
SHOW_FUNCTION(back_seek_max, cfqd->cfq_back_max, 1);
SHOW_FUNCTION(back_seek_penalty, cfqd->cfq_back_penalty, 1);
SHOW_FUNCTION(slice_idle, cfqd->cfq_slice_idle, NSEC_PER_MSEC);
SHOW_FUNCTION(group_idle, cfqd->cfq_group_idle, NSEC_PER_MSEC);
SHOW_FUNCTION(slice_sync, cfqd->cfq_slice[1], NSEC_PER_MSEC);
SHOW_FUNCTION(slice_async, cfqd->cfq_slice[0], NSEC_PER_MSEC);
SHOW_FUNCTION(slice_async_rq, cfqd->cfq_slice_async_rq, 1);
SHOW_FUNCTION(low_latency, cfqd->cfq_latency, 1);
SHOW_FUNCTION(target_latency, cfqd->cfq_target_latency, NSEC_PER_MSEC);
SHOW_FUNCTION(sliding_window, cfqd->cfq_sliding_window, 1);
SHOW_FUNCTION(startup_boost, cfqd->cfq_startup_boost, NSEC_PER_MSEC);
SHOW_FUNCTION(slice_idle_us, cfqd->cfq_slice_idle, NSEC_PER_USEC);
SHOW_FUNCTION(group_idle_us, cfqd->cfq_group_idle, NSEC_PER_USEC);
SHOW_FUNCTION(slice_sync_us, cfqd->cfq_slice[1], NSEC_PER_USEC);
SHOW_FUNCTION(slice_async_us, cfqd->cfq_slice[0], NSEC_PER_USEC);
SHOW_FUNCTION(target_latency_us, cfqd->cfq_target_latency, NSEC_PER_USEC);
#undef SHOW_FUNCTION

/* The value is stored as __VAR = input * __MUL under the scheduler lock. */
#define STORE_FUNCTION(__NAME, __VAR, MIN, MAX, __MUL)			\
static ssize_t cfq_##__NAME##_store(struct elevator_queue *e,		\
				    const char *page, size_t count)	\
{									\
	struct cfq_data *cfqd = e->elevator_data;			\
	unsigned int __data;						\
	int ret;							\
									\
	ret = cfq_var_store(page, MIN, MAX, &__data);			\
	if (ret)							\
		return ret;						\
	spin_lock_irq(&cfqd->lock);					\
	__VAR = (u64)__data * (__MUL);					\
	spin_unlock_irq(&cfqd->lock);					\
	return count;							\
}
STORE_FUNCTION(quantum, cfqd->cfq_quantum, 1, UINT_MAX, 1);
STORE_FUNCTION(fifo_expire_sync, cfqd->cfq_fifo_expire[1], 1, UINT_MAX, NSEC_PER_MSEC);
STORE_FUNCTION(fifo_expire_async, cfqd->cfq_fifo_expire[0], 1, UINT_MAX, NSEC_PER_MSEC);
STORE_FUNCTION(back_seek_max, cfqd->cfq_back_max, 0, UINT_MAX, 1);
STORE_FUNCTION(back_seek_penalty, cfqd->cfq_back_penalty, 1, UINT_MAX, 1);
STORE_FUNCTION(slice_idle, cfqd->cfq_slice_idle, 0, UINT_MAX, NSEC_PER_MSEC);
STORE_FUNCTION(group_idle, cfqd->cfq_group_idle, 0, UINT_MAX, NSEC_PER_MSEC);
STORE_FUNCTION(slice_sync, cfqd->cfq_slice[1], 1, UINT_MAX, NSEC_PER_MSEC);
STORE_FUNCTION(slice_async, cfqd->cfq_slice[0], 1, UINT_MAX, NSEC_PER_MSEC);
STORE_FUNCTION(slice_async_rq, cfqd->cfq_slice_async_rq, 1, UINT_MAX, 1);
STORE_FUNCTION(low_latency, cfqd->cfq_latency, 0, 1, 1);
STORE_FUNCTION(target_latency, cfqd->cfq_target_latency, 1, UINT_MAX, NSEC_PER_MSEC);
STORE_FUNCTION(sliding_window, cfqd->cfq_sliding_window, 0, 1, 1);
STORE_FUNCTION(startup_boost, cfqd->cfq_startup_boost, 0, UINT_MAX, NSEC_PER_MSEC);
STORE_FUNCTION(slice_idle_us, cfqd->cfq_slice_idle, 0, UINT_MAX, NSEC_PER_USEC);
STORE_FUNCTION(group_idle_us, cfqd->cfq_group_idle, 0, UINT_MAX, NSEC_PER_USEC);
STORE_FUNCTION(slice_sync_us, cfqd->cfq_slice[1], 1, UINT_MAX, NSEC_PER_USEC);
STORE_FUNCTION(slice_async_us, cfqd->cfq_slice[0], 1, UINT_MAX, NSEC_PER_USEC);
STORE_FUNCTION(target_latency_us, cfqd->cfq_target_latency, 1, UINT_MAX, NSEC_PER_USEC);
#undef STORE_FUNCTION

#define CFQ_ATTR(name) \
	__ATTR(name, 0644, cfq_##name##_show, cfq_##name##_store)

struct elv_fs_entry cfq_attrs[] = {
	CFQ_ATTR(quantum),
	CFQ_ATTR(fifo_expire_sync),
	CFQ_ATTR(fifo_expire_async),
	CFQ_ATTR(back_seek_max),
	CFQ_ATTR(back_seek_penalty),
	CFQ_ATTR(slice_sync),
	CFQ_ATTR(slice_sync_us),
	CFQ_ATTR(slice_async),
	CFQ_ATTR(slice_async_us),
	CFQ_ATTR(slice_async_rq),
	CFQ_ATTR(slice_idle),
	CFQ_ATTR(slice_idle_us),
	CFQ_ATTR(group_idle),
	CFQ_ATTR(group_idle_us),
	CFQ_ATTR(low_latency),
	CFQ_ATTR(target_latency),
	CFQ_ATTR(target_latency_us),
	CFQ_ATTR(sliding_window),
	CFQ_ATTR(startup_boost),
	__ATTR_NULL
};
