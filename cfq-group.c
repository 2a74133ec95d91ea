// SPDX-License-Identifier: GPL-2.0
/*
 * CFQ groups: the unit that owns service trees, shares the device and
 * remembers where its workload was interrupted.
 *
 * Only the root group exists so far: one cfq_group per device holding
 * every queue. Group selection, the group's slice (its share of
 * target_latency, vfraction) and the saved workload context already go
 * through this file so that per-cgroup groups with weights and vdisktime
 * can be added here without touching the queue scheduler.
 */
#include <linux/slab.h>

#include "cfq.h"

int cfq_init_root_group(struct cfq_data *cfqd)
{
	struct cfq_group *cfqg;
	int i, j;

	cfqg = kzalloc_node(sizeof(*cfqg), GFP_KERNEL, cfqd->queue->node);
	if (!cfqg)
		return -ENOMEM;

	for (i = 0; i < 2; i++)
		for (j = 0; j < 3; j++)
			cfqg->service_trees[i][j] = CFQ_RB_ROOT;
	cfqg->service_tree_idle = CFQ_RB_ROOT;
	/* the root group alone owns the whole device */
	cfqg->vfraction = 1 << CFQ_SERVICE_SHIFT;
	cfqd->root_group = cfqg;
	return 0;
}

/* Drop the shared async queues and free the group; nothing is queued. */
void cfq_exit_root_group(struct cfq_data *cfqd)
{
	struct cfq_group *cfqg = cfqd->root_group;
	int i, j;

	for (i = 0; i < 2; i++)
		for (j = 0; j < IOPRIO_NR_LEVELS; j++)
			if (cfqg->async_cfqq[i][j])
				cfq_put_queue(cfqg->async_cfqq[i][j]);
	if (cfqg->async_idle_cfqq)
		cfq_put_queue(cfqg->async_idle_cfqq);
	kfree(cfqg);
	cfqd->root_group = NULL;
}

struct cfq_rb_root *cfq_st_for(struct cfq_group *cfqg, enum wl_class_t class,
			       enum wl_type_t type)
{
	if (class == IDLE_WORKLOAD)
		return &cfqg->service_tree_idle;
	return &cfqg->service_trees[class][type];
}

unsigned int cfq_group_busy_queues_wl(struct cfq_group *cfqg,
				      enum wl_class_t class)
{
	if (class == IDLE_WORKLOAD)
		return cfqg->service_tree_idle.count;
	return cfqg->service_trees[class][ASYNC_WORKLOAD].count +
	       cfqg->service_trees[class][SYNC_NOIDLE_WORKLOAD].count +
	       cfqg->service_trees[class][SYNC_WORKLOAD].count;
}

/*
 * Smoothed number of busy queues of a class, for slice scaling: it follows
 * a rise at once (3/4 weight on the larger value) and decays slowly, so a
 * short lull does not hand out long slices that hurt latency right after.
 */
unsigned int cfq_group_get_avg_queues(struct cfq_group *cfqg, bool rt)
{
	unsigned int busy = cfq_group_busy_queues_wl(cfqg, rt ? RT_WORKLOAD :
							      BE_WORKLOAD);
	unsigned int *avg = &cfqg->busy_queues_avg[rt];
	unsigned int lo = min(*avg, busy), hi = max(*avg, busy);

	*avg = ((CFQ_HIST_DIVISOR - 1) * hi + lo + CFQ_HIST_DIVISOR / 2) /
	       CFQ_HIST_DIVISOR;
	return *avg;
}

/* The group's share of target_latency. */
u64 cfq_group_slice(struct cfq_data *cfqd, struct cfq_group *cfqg)
{
	return mul_u64_u64_div_u64(cfqd->cfq_target_latency, cfqg->vfraction,
				   1 << CFQ_SERVICE_SHIFT);
}

void cfq_group_notify_queue_add(struct cfq_data *cfqd, struct cfq_group *cfqg)
{
	cfqg->nr_cfqq++;
}

/* A group whose last queue leaves forgets its interrupted workload. */
void cfq_group_notify_queue_del(struct cfq_data *cfqd, struct cfq_group *cfqg)
{
	if (--cfqg->nr_cfqq == 0)
		cfqg->saved_wl_slice = 0;
}

/*
 * The active queue of @cfqg expired: remember how much of the workload
 * slice is left, so the group resumes the same workload next time.
 */
void cfq_group_served(struct cfq_data *cfqd, struct cfq_group *cfqg, u64 now)
{
	if (cfqd->workload_expires > now) {
		cfqg->saved_wl_slice = cfqd->workload_expires - now;
		cfqg->saved_wl_type = cfqd->serving_wl_type;
		cfqg->saved_wl_class = cfqd->serving_wl_class;
	} else {
		cfqg->saved_wl_slice = 0;
	}
}

struct cfq_group *cfq_get_next_cfqg(struct cfq_data *cfqd)
{
	return cfqd->root_group->nr_cfqq ? cfqd->root_group : NULL;
}

/* Resume the saved workload of @cfqg, or force a fresh choice. */
void cfq_group_restore_workload(struct cfq_data *cfqd, struct cfq_group *cfqg,
				u64 now)
{
	if (cfqg->saved_wl_slice) {
		cfqd->workload_expires = now + cfqg->saved_wl_slice;
		cfqd->serving_wl_type = cfqg->saved_wl_type;
		cfqd->serving_wl_class = cfqg->saved_wl_class;
	} else {
		cfqd->workload_expires = now - 1;
	}
}

/* Where the shared async queue of (class, level) is kept. */
struct cfq_queue **cfq_async_queue_slot(struct cfq_group *cfqg,
					int ioprio_class, int level)
{
	switch (ioprio_class) {
	case IOPRIO_CLASS_RT:
		return &cfqg->async_cfqq[0][level];
	case IOPRIO_CLASS_IDLE:
		return &cfqg->async_idle_cfqq;
	default:
		return &cfqg->async_cfqq[1][level];
	}
}
