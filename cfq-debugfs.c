// SPDX-License-Identifier: GPL-2.0
/*
 * cfq's state in debugfs, /sys/kernel/debug/block/<dev>/sched/, as
 * mq-deadline and kyber show theirs: read-only files for a person who
 * asks why the disk serves what it serves.
 *
 *   state          the device: busy queues and groups, requests queued
 *                  and in the driver, what cfq is waiting for and for how
 *                  much longer, the workload being served, what it learnt
 *                  about the device (hw_tag)
 *   active         the queue holding the disk: pid, class and level,
 *                  workload, slice used and left, requests, boost
 *   service_trees  each busy group's service trees (class x workload)
 *                  and their queues in service order, with their keys
 *   groups         each busy group in vdisktime order, and the root:
 *                  cgroup, weights, vdisktime, share, busy queues
 *
 * Each file is printed under cfqd->lock, so it is one consistent snapshot;
 * the lock is held only while the text is formatted into seq_file's
 * buffer (if it overflows, seq_file allocates a larger one outside the
 * show and calls it again). A list prints at most CFQ_DEBUGFS_MAX entries
 * and then how many it left out, and service_trees at most
 * CFQ_DEBUGFS_QUEUES queues in all, so a file stays small, and the time
 * under the lock short, with thousands of queues and groups. A read
 * prints only while cfq is the disk's scheduler, which keeps cfqd alive
 * (cfq_debugfs_show()).
 */
#include <linux/cgroup.h>
#include <linux/seq_file.h>

#include "cfq.h"

#define CFQ_DEBUGFS_MAX		64	/* entries printed per list */
#define CFQ_DEBUGFS_QUEUES	256	/* queues printed per service_trees */

static const char *const cfq_class_name[CFQ_PRIO_NR] = {
	[BE_WORKLOAD] = "be", [RT_WORKLOAD] = "rt", [IDLE_WORKLOAD] = "idle",
};

static const char *const cfq_type_name[] = {
	[ASYNC_WORKLOAD] = "async",
	[SYNC_NOIDLE_WORKLOAD] = "sync-noidle",
	[SYNC_WORKLOAD] = "sync",
};

static const char *const cfq_wait_name[] = {
	[CFQ_WAIT_NONE] = "none",
	[CFQ_WAIT_QUEUE] = "queue",
	[CFQ_WAIT_GROUP] = "group",
	[CFQ_WAIT_IDLE_CLASS] = "idle_class",
};

static const char *const cfq_hw_tag_name[] = {
	[CFQ_HW_UNKNOWN] = "unknown",
	[CFQ_HW_NO_QUEUEING] = "no_queueing",
	[CFQ_HW_QUEUEING] = "queueing",
};

/* @ns as milliseconds with three decimals */
static void cfq_seq_ms(struct seq_file *m, const char *name, s64 ns)
{
	u64 abs = ns < 0 ? -ns : ns;

	seq_printf(m, " %s %s%llu.%03llu", name, ns < 0 ? "-" : "",
		   div_u64(abs, NSEC_PER_MSEC),
		   div_u64(abs % NSEC_PER_MSEC, NSEC_PER_USEC));
}

/* the cgroup of @cfqg, as a path below the cgroup root */
static void cfq_seq_cgroup(struct seq_file *m, struct cfq_group *cfqg)
{
	struct blkcg_gq *blkg = pd_to_blkg(&cfqg->pd);
	char path[128];

	if (cgroup_path(blkg->blkcg->css.cgroup, path, sizeof(path)) < 0)
		strscpy(path, "?", sizeof(path));
	seq_printf(m, "%s", path);
}

/*
 * Print a file with @print under cfqd->lock, if cfq is still @data's
 * scheduler: since 6.16 a switch detaches cfq before it removes its files
 * (cfq_debugfs_lock() says how that is excluded), and a read in between
 * gets -ENODEV.
 */
static int cfq_debugfs_show(void *data, struct seq_file *m,
			    void (*print)(struct cfq_data *, struct seq_file *))
{
	struct request_queue *q = data;
	struct elevator_queue *eq;
	struct cfq_data *cfqd;
	int ret;

	ret = cfq_debugfs_lock(q);
	if (ret)
		return ret;
	eq = q->elevator;
	if (!eq || eq->type->queue_debugfs_attrs != cfq_queue_debugfs_attrs) {
		ret = -ENODEV;
		goto out;
	}
	cfqd = eq->elevator_data;
	spin_lock_irq(&cfqd->lock);
	print(cfqd, m);
	spin_unlock_irq(&cfqd->lock);
out:
	cfq_debugfs_unlock(q);
	return ret;
}

static void cfq_state_print(struct cfq_data *cfqd, struct seq_file *m)
{
	u64 now = ktime_get_ns();

	seq_printf(m, "busy_queues %u\nbusy_sync_queues %u\nbusy_groups %u\n",
		   cfqd->busy_queues, cfqd->busy_sync_queues,
		   cfqd->nr_busy_groups);
	seq_printf(m, "rq_queued %d\nrq_in_driver %d\nrq_in_flight async %d sync %d\n",
		   cfqd->rq_queued, cfqd->rq_in_driver,
		   cfqd->rq_in_flight[0], cfqd->rq_in_flight[1]);
	seq_printf(m, "oom_requests %llu\n", cfqd->oom_requests);
	seq_printf(m, "dispatch_list %s\n",
		   list_empty(&cfqd->dispatch) ? "empty" : "not empty");
	seq_printf(m, "wait %s", cfq_wait_name[cfqd->wait]);
	if (cfqd->wait != CFQ_WAIT_NONE && hrtimer_active(&cfqd->idle_slice_timer))
		cfq_seq_ms(m, "timer_ms",
			   ktime_to_ns(hrtimer_get_remaining(&cfqd->idle_slice_timer)));
	seq_puts(m, "\n");
	seq_printf(m, "serving %s %s", cfq_class_name[cfqd->serving_wl_class],
		   cfq_type_name[cfqd->serving_wl_type]);
	cfq_seq_ms(m, "workload_left_ms", cfqd->workload_expires - now);
	seq_puts(m, "\n");
	seq_printf(m, "hw_tag %s est_depth %d samples %u\n",
		   cfq_hw_tag_name[cfqd->hw_tag], cfqd->hw_tag_est_depth,
		   cfqd->hw_tag_samples);
	seq_printf(m, "charge %s\nmin_vdisktime %llu\nlast_position %llu\n",
		   cfqd->vdisk_iops ? "iops" : "time", cfqd->min_vdisktime,
		   (unsigned long long)cfqd->last_position);
	seq_puts(m, "busy_for");
	cfq_seq_ms(m, "ms", cfqd->busy_queues ? now - cfqd->busy_since : 0);
	seq_puts(m, "\n");
}

/* one line of @cfqq: who it is and where it stands */
static void cfq_seq_cfqq(struct seq_file *m, struct cfq_queue *cfqq, u64 now)
{
	seq_printf(m, "pid %d %s %s/%u %s queued %d/%d dispatched %d",
		   cfqq->pid, cfqq->sync ? "sync" : "async",
		   cfq_class_name[cfqq_class(cfqq)], cfqq->ioprio,
		   cfq_type_name[cfqq_type(cfqq)],
		   cfqq->queued[0], cfqq->queued[1], cfqq->dispatched);
	if (cfqq->coop)
		seq_puts(m, " coop");
	if (cfqq->boosted) {
		cfq_seq_ms(m, "boost_left_ms", cfqq->boost_end - now);
		seq_printf(m, " boost_left_sectors %llu",
			   (unsigned long long)cfqq->boost_left);
	}
}

static void cfq_active_print(struct cfq_data *cfqd, struct seq_file *m)
{
	struct cfq_queue *cfqq;
	u64 now = ktime_get_ns();

	cfqq = cfqd->active_queue;
	if (!cfqq) {
		seq_puts(m, "none\n");
		return;
	}
	cfq_seq_cfqq(m, cfqq, now);
	seq_puts(m, "\ngroup ");
	cfq_seq_cgroup(m, cfqq->cfqg);
	seq_puts(m, "\nslice");
	if (cfqq->slice_new) {
		seq_puts(m, " not_started");
	} else {
		cfq_seq_ms(m, "used_ms", now - cfqq->slice_start);
		cfq_seq_ms(m, "left_ms", cfqq->slice_end - now);
	}
	cfq_seq_ms(m, "allocated_ms", cfqq->allocated_slice);
	seq_printf(m, " dispatched %u\n", cfqq->slice_dispatch);
	seq_printf(m, "idle_window %u seeky %u", cfqq->idle_window,
		   CFQQ_SEEKY(cfqq));
	cfq_seq_ms(m, "think_ms", cfqq->ttime.ttime_mean);
	seq_puts(m, "\n");
}

/*
 * The queues of @st in service order, keys relative to now: at most
 * CFQ_DEBUGFS_MAX, and no more than *@budget, which it decrements.
 */
static void cfq_seq_st(struct seq_file *m, struct cfq_rb_root *st,
		       const char *class, const char *type, u64 now,
		       unsigned int *budget)
{
	unsigned int n = 0, max = min(*budget, CFQ_DEBUGFS_MAX);
	struct rb_node *node;

	if (!st->count)
		return;
	seq_printf(m, "  %s %s: %u queues\n", class, type, st->count);
	for (node = rb_first_cached(&st->rb); node; node = rb_next(node)) {
		struct cfq_queue *cfqq = rb_entry(node, struct cfq_queue, rb_node);

		if (n == max) {
			seq_printf(m, "    ... %u more\n", st->count - n);
			break;
		}
		n++;
		(*budget)--;
		seq_puts(m, "   ");
		cfq_seq_ms(m, "key_ms", cfqq->rb_key - now);
		seq_puts(m, " ");
		cfq_seq_cfqq(m, cfqq, now);
		seq_puts(m, "\n");
	}
}

static void cfq_seq_group_trees(struct seq_file *m, struct cfq_group *cfqg,
				u64 now, unsigned int *budget)
{
	int class, type;

	seq_puts(m, "group ");
	cfq_seq_cgroup(m, cfqg);
	seq_printf(m, ": %u busy queues\n", cfqg->nr_cfqq);
	for (class = RT_WORKLOAD; class >= BE_WORKLOAD; class--)
		for (type = SYNC_WORKLOAD; type >= ASYNC_WORKLOAD; type--)
			cfq_seq_st(m, &cfqg->service_trees[class][type],
				   cfq_class_name[class], cfq_type_name[type],
				   now, budget);
	cfq_seq_st(m, &cfqg->service_tree_idle, "idle", "any", now, budget);
}

static void cfq_service_trees_print(struct cfq_data *cfqd, struct seq_file *m)
{
	unsigned int n = 0, budget = CFQ_DEBUGFS_QUEUES;
	u64 now = ktime_get_ns();
	struct rb_node *node;

	for (node = rb_first_cached(&cfqd->grp_st); node; node = rb_next(node)) {
		if (n == CFQ_DEBUGFS_MAX || !budget) {
			seq_printf(m, "... %u more groups\n",
				   cfqd->nr_busy_groups - n);
			break;
		}
		n++;
		cfq_seq_group_trees(m, rb_entry(node, struct cfq_group, rb_node),
				    now, &budget);
	}
	if (!n)
		seq_puts(m, "no busy queue\n");
}

static void cfq_seq_group(struct seq_file *m, struct cfq_data *cfqd,
			  struct cfq_group *cfqg)
{
	cfq_seq_cgroup(m, cfqg);
	seq_printf(m, " weight %u leaf_weight %u vdisktime %+lld share %u/%u busy_queues %u boosted %u dispatched %d writes %u%s\n",
		   cfqg->weight, cfqg->leaf_weight,
		   (s64)(cfqg->vdisktime - cfqd->min_vdisktime),
		   cfqg->vfraction, 1U << CFQ_SERVICE_SHIFT,
		   cfqg->nr_cfqq, cfqg->nr_boosted, cfqg->dispatched,
		   cfqg->nr_writes,
		   cfqd->active_queue && cfqd->active_queue->cfqg == cfqg ?
		   " active" : "");
}

static void cfq_groups_print(struct cfq_data *cfqd, struct seq_file *m)
{
	struct cfq_group *root = cfqd->root_group;
	unsigned int n = 0;
	struct rb_node *node;
	bool root_busy = false;

	for (node = rb_first_cached(&cfqd->grp_st); node; node = rb_next(node)) {
		struct cfq_group *cfqg = rb_entry(node, struct cfq_group, rb_node);

		if (++n > CFQ_DEBUGFS_MAX) {
			seq_printf(m, "... %u more groups\n",
				   cfqd->nr_busy_groups - CFQ_DEBUGFS_MAX);
			break;
		}
		root_busy |= cfqg == root;
		cfq_seq_group(m, cfqd, cfqg);
	}
	if (!root_busy)
		cfq_seq_group(m, cfqd, root);
}

#define CFQ_DEBUGFS_SHOW(name)						\
static int cfq_##name##_show(void *data, struct seq_file *m)		\
{									\
	return cfq_debugfs_show(data, m, cfq_##name##_print);		\
}

CFQ_DEBUGFS_SHOW(state)
CFQ_DEBUGFS_SHOW(active)
CFQ_DEBUGFS_SHOW(service_trees)
CFQ_DEBUGFS_SHOW(groups)

const struct blk_mq_debugfs_attr cfq_queue_debugfs_attrs[] = {
	{ "state", 0400, cfq_state_show },
	{ "active", 0400, cfq_active_show },
	{ "service_trees", 0400, cfq_service_trees_show },
	{ "groups", 0400, cfq_groups_show },
	{},
};
