// SPDX-License-Identifier: GPL-2.0
/*
 * cfq's state in debugfs, /sys/kernel/debug/block/<disk>/sched/, beside
 * the block layer's own files (as mq-deadline and kyber have theirs):
 *  - state: what cfq waits for, the active queue and its slice, the
 *    workload being served, the device counters and what cfq learnt of
 *    the device (hw_tag);
 *  - groups: the busy groups in service order with their weights, share
 *    and vdisktime, and under each its non-empty service trees with their
 *    queues in key order.
 * Read-only. Each file is printed under cfqd->lock, so what it shows is
 * one consistent moment; the lists are cut at CFQ_DEBUGFS_MAX entries so
 * a read holds the lock for a bounded time whatever the number of queues.
 * Only built with CONFIG_BLK_DEBUG_FS (Debian's kernels have it).
 */
#include <linux/cgroup.h>
#include <linux/seq_file.h>

#include "cfq.h"

#define CFQ_DEBUGFS_MAX	16	/* groups, and queues per tree, listed */

static const char *const cfq_class_name[] = {
	[BE_WORKLOAD] = "be", [RT_WORKLOAD] = "rt", [IDLE_WORKLOAD] = "idle",
};

static const char *const cfq_type_name[] = {
	[ASYNC_WORKLOAD] = "async",
	[SYNC_NOIDLE_WORKLOAD] = "sync_noidle",
	[SYNC_WORKLOAD] = "sync",
};

static const char *const cfq_hw_tag_name[] = {
	[CFQ_HW_UNKNOWN] = "unknown",
	[CFQ_HW_NO_QUEUEING] = "no_queueing",
	[CFQ_HW_QUEUEING] = "queueing",
};

/* ns from @now to @t, in us, signed */
static long long cfq_us_from(u64 t, u64 now)
{
	return div_s64((s64)(t - now), NSEC_PER_USEC);
}

static void cfq_show_queue(struct seq_file *m, struct cfq_queue *cfqq)
{
	seq_printf(m, "cfq%d%c class=%s type=%s prio=%u queued=%d dispatched=%d idle_window=%u seeky=%d",
		   cfqq->pid, cfqq->sync ? 'S' : 'A',
		   cfq_class_name[cfqq_class(cfqq)],
		   cfq_type_name[cfqq_type(cfqq)], cfqq->ioprio,
		   cfqq->queued[0] + cfqq->queued[1], cfqq->dispatched,
		   cfqq->idle_window, CFQQ_SEEKY(cfqq));
}

static int cfq_state_show(void *data, struct seq_file *m)
{
	struct request_queue *q = data;
	struct cfq_data *cfqd = q->elevator->elevator_data;
	u64 now = ktime_get_ns();
	struct cfq_queue *cfqq;

	spin_lock_irq(&cfqd->lock);
	seq_printf(m, "wait=%s\n", cfq_wait_name(cfqd->wait));
	cfqq = cfqd->active_queue;
	if (cfqq) {
		seq_puts(m, "active=");
		cfq_show_queue(m, cfqq);
		if (cfqq->slice_new)
			seq_puts(m, " slice=not_started\n");
		else
			seq_printf(m, " slice_left_us=%lld\n",
				   cfq_us_from(cfqq->slice_end, now));
	} else {
		seq_puts(m, "active=none\n");
	}
	seq_printf(m, "serving=%s/%s workload_left_us=%lld\n",
		   cfq_class_name[cfqd->serving_wl_class],
		   cfq_type_name[cfqd->serving_wl_type],
		   cfq_us_from(cfqd->workload_expires, now));
	seq_printf(m, "busy_queues=%u busy_sync_queues=%u busy_groups=%u\n",
		   cfqd->busy_queues, cfqd->busy_sync_queues,
		   cfqd->nr_busy_groups);
	seq_printf(m, "queued=%d in_driver=%d in_flight_async=%d in_flight_sync=%d\n",
		   cfqd->rq_queued, cfqd->rq_in_driver, cfqd->rq_in_flight[0],
		   cfqd->rq_in_flight[1]);
	seq_printf(m, "hw_tag=%s hw_tag_est_depth=%d charge=%s\n",
		   cfq_hw_tag_name[cfqd->hw_tag], cfqd->hw_tag_est_depth,
		   cfqd->vdisk_iops ? "iops" : "time");
	spin_unlock_irq(&cfqd->lock);
	return 0;
}

static void cfq_show_tree(struct seq_file *m, struct cfq_rb_root *st,
			  const char *name, u64 now)
{
	struct rb_node *n;
	int shown = 0;

	if (!st->count)
		return;
	seq_printf(m, "  %s: %u\n", name, st->count);
	for (n = rb_first_cached(&st->rb); n && shown < CFQ_DEBUGFS_MAX;
	     n = rb_next(n), shown++) {
		struct cfq_queue *cfqq = rb_entry(n, struct cfq_queue, rb_node);

		seq_puts(m, "    ");
		cfq_show_queue(m, cfqq);
		seq_printf(m, " key_us=%lld\n", cfq_us_from(cfqq->rb_key, now));
	}
	if (st->count > shown)
		seq_printf(m, "    ... %u more\n", st->count - shown);
}

static void cfq_show_group(struct seq_file *m, struct cfq_data *cfqd,
			   struct cfq_group *cfqg, u64 now)
{
	char name[32];
	int c, t;

	seq_printf(m, "group cgroup_id=%llu weight=%u leaf_weight=%u share=%u/%u vdisktime=+%llu busy=%u dispatched=%d%s\n",
		   cfqg->cgroup_id, cfqg->weight, cfqg->leaf_weight,
		   cfqg->vfraction, 1U << CFQ_SERVICE_SHIFT,
		   cfqg->vdisktime - cfqd->min_vdisktime, cfqg->nr_cfqq,
		   cfqg->dispatched, cfqg->online ? "" : " offline");
	for (c = BE_WORKLOAD; c <= RT_WORKLOAD; c++)
		for (t = ASYNC_WORKLOAD; t <= SYNC_WORKLOAD; t++) {
			snprintf(name, sizeof(name), "%s/%s", cfq_class_name[c],
				 cfq_type_name[t]);
			cfq_show_tree(m, &cfqg->service_trees[c][t], name, now);
		}
	cfq_show_tree(m, &cfqg->service_tree_idle, "idle", now);
}

static int cfq_groups_show(void *data, struct seq_file *m)
{
	struct request_queue *q = data;
	struct cfq_data *cfqd = q->elevator->elevator_data;
	u64 now = ktime_get_ns();
	struct rb_node *n;
	int shown = 0;

	spin_lock_irq(&cfqd->lock);
	for (n = rb_first_cached(&cfqd->grp_st); n && shown < CFQ_DEBUGFS_MAX;
	     n = rb_next(n), shown++)
		cfq_show_group(m, cfqd, rb_entry(n, struct cfq_group, rb_node),
			       now);
	if (cfqd->nr_busy_groups > shown)
		seq_printf(m, "... %u more groups\n",
			   cfqd->nr_busy_groups - shown);
	spin_unlock_irq(&cfqd->lock);
	return 0;
}

const struct blk_mq_debugfs_attr cfq_queue_debugfs_attrs[] = {
	{"state", 0400, cfq_state_show},
	{"groups", 0400, cfq_groups_show},
	{},
};
