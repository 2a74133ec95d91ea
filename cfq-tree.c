// SPDX-License-Identifier: GPL-2.0
/*
 * cfq's service trees: who is next, and what being served costs.
 *
 * Two levels of trees, both rb-trees of virtual times (cfq-tree.h has the
 * primitives):
 *  - the group service tree of the device (cfq_data->grp_st) holds the
 *    groups with busy queues, ordered by vdisktime. The leftmost group is
 *    served next. When one of its queues expires, the group is charged
 *    the time the queue used (time mode), or the requests it dispatched
 *    (IOPS mode: slice_idle = 0 on a device that queues, where a queue's
 *    time says nothing about what it cost), divided by the group's share
 *    of the device. A group with twice the share so advances half as fast
 *    and is served twice as often. Shares are hierarchical (CFQ 4.20's
 *    vfraction): a group's share is its weight among its active siblings
 *    times its parent's share, and the queues of a cgroup's own tasks
 *    compete with its child cgroups with the cgroup's leaf_weight.
 *    Configured weights are applied when a group (re)enters the tree,
 *    which for a busy group is at each of its expiries.
 *  - inside the group chosen, one service tree per (class, workload type)
 *    holds its busy queues, ordered by a key that makes them take turns.
 *    The choice walks them: the class (RT, BE, IDLE, strictly), the
 *    workload type that waited longest, for a workload slice in
 *    proportion to its busy queues, and the first queue of that tree.
 *
 * This file keeps the trees, the keys, vdisktime and the charge, the
 * shares that size slices, and that choice. cfq-dispatch.c decides when a
 * queue's turn ends and calls in here; cfq-group.c owns the groups'
 * lifetime, weights and cgroup files. Everything runs under cfqd->lock.
 */
#include <linux/blkdev.h>
#include <linux/jiffies.h>
#include <linux/rbtree.h>

#include "cfq-tree.h"

/*
 * The group service tree
 */
static bool cfqg_on_st(struct cfq_group *cfqg)
{
	return !RB_EMPTY_NODE(&cfqg->rb_node);
}

/*
 * Activate @cfqg's leaf (its own queues) and, up the tree, every ancestor
 * that had nothing active below it, then compute the leaf's share of the
 * device: its leaf weight among its active children, times its weight
 * among its parent's active children, and so on up to the root. Pending
 * weights are applied here, where they are not part of any sum.
 */
static void cfqg_activate(struct cfq_group *cfqg)
{
	unsigned int vfr = 1 << CFQ_SERVICE_SHIFT;
	struct cfq_group *pos = cfqg, *parent;
	bool propagate;

	cfqg->leaf_weight = max(READ_ONCE(cfqg->new_leaf_weight), 1U);
	propagate = !cfqg->nr_active++;
	cfqg->children_weight += cfqg->leaf_weight;
	vfr = vfr * cfqg->leaf_weight / cfqg->children_weight;

	while ((parent = pos->parent)) {
		if (propagate) {
			pos->weight = max(READ_ONCE(pos->new_weight), 1U);
			propagate = !parent->nr_active++;
			parent->children_weight += pos->weight;
		}
		vfr = vfr * pos->weight / parent->children_weight;
		pos = parent;
	}
	cfqg->vfraction = max(vfr, 1U);
}

/* Undo cfqg_activate(): the leaf and every ancestor left with nothing. */
static void cfqg_deactivate(struct cfq_group *cfqg)
{
	struct cfq_group *pos = cfqg, *parent;

	cfqg->children_weight -= cfqg->leaf_weight;
	cfqg->vfraction = 0;
	if (--cfqg->nr_active)
		return;
	while ((parent = pos->parent)) {
		parent->children_weight -= pos->weight;
		if (--parent->nr_active)
			break;
		pos = parent;
	}
}

static void cfqg_st_insert(struct cfq_data *cfqd, struct cfq_group *cfqg)
{
	rb_add_cached(&cfqg->rb_node, &cfqd->grp_st, cfqg_st_less);
	cfqd->nr_busy_groups++;
	cfqg_activate(cfqg);
}

static void cfqg_st_erase(struct cfq_data *cfqd, struct cfq_group *cfqg)
{
	cfqg_deactivate(cfqg);
	rb_erase_cached(&cfqg->rb_node, &cfqd->grp_st);
	RB_CLEAR_NODE(&cfqg->rb_node);
	cfqd->nr_busy_groups--;
}

/*
 * Groups entering and leaving the tree
 */

/*
 * IOPS mode: with idling off on a device that queues (or might: an
 * unknown hw_tag counts as queueing, as in CFQ), queues are switched as
 * soon as they run dry and overlap in the device, so groups are charged
 * by requests dispatched instead of time.
 */
static bool cfq_iops_mode(struct cfq_data *cfqd)
{
	return !cfqd->cfq_slice_idle && cfq_hw_may_queue(cfqd);
}

/*
 * Time and IOPS mode charge in different units (ns and requests), so
 * virtual times from before a switch (slice_idle written, hw_tag learnt)
 * mean nothing after it: a group a few slices ahead in ns would wait
 * for millions of requests. Restart every group at the minimum; groups
 * off the tree are reset when they come back (vdisk_gen).
 */
static void cfq_check_charge_mode(struct cfq_data *cfqd)
{
	bool iops = cfq_iops_mode(cfqd);
	struct rb_root_cached old = cfqd->grp_st;
	struct rb_node *n;

	if (iops == cfqd->vdisk_iops)
		return;
	cfqd->vdisk_iops = iops;
	cfqd->vdisk_gen++;
	cfqd->grp_st = RB_ROOT_CACHED;
	while ((n = rb_first_cached(&old))) {
		struct cfq_group *cfqg = rb_entry(n, struct cfq_group, rb_node);

		rb_erase_cached(n, &old);
		cfqg->vdisktime = cfqd->min_vdisktime;
		cfqg->vdisk_gen = cfqd->vdisk_gen;
		/* reinsert keeping the activation counts as they are */
		cfqg_deactivate(cfqg);
		cfqd->nr_busy_groups--;
		cfqg_st_insert(cfqd, cfqg);
	}
}

/*
 * The first busy queue of @cfqg: the group enters the tree. It keeps the
 * virtual time it had, unless that lies behind the tree's minimum: then
 * it starts at the minimum. So a group that was idle for a while gets
 * the next turn but no burst to catch up on the time it did not use, and
 * one that was served ahead of its share does not get a fresh start by
 * going idle briefly. (CFQ 4.20 put every returning group behind the
 * last one, with an unscaled delay; that loses a group's turn whenever
 * its queues run dry between two requests.)
 */
static void cfq_group_notify_queue_add(struct cfq_data *cfqd, struct cfq_group *cfqg)
{
	if (cfqg->nr_cfqq++)
		return;
	if (cfqg->vdisk_gen != cfqd->vdisk_gen ||
	    cfq_key_before(cfqg->vdisktime, cfqd->min_vdisktime))
		cfqg->vdisktime = cfqd->min_vdisktime;
	cfqg->vdisk_gen = cfqd->vdisk_gen;
	cfqg_st_insert(cfqd, cfqg);
}

/* The last busy queue left: the group leaves the tree. */
static void cfq_group_notify_queue_del(struct cfq_data *cfqd, struct cfq_group *cfqg)
{
	if (--cfqg->nr_cfqq)
		return;
	cfqg->saved_wl_slice = 0;
	if (cfqg_on_st(cfqg)) {
		cfqg_st_erase(cfqd, cfqg);
		cfqg_stats_dequeue(cfqg);
	}
}

/*
 * Queue service trees
 */

static struct cfq_rb_root *cfq_st_for(struct cfq_group *cfqg,
				      enum wl_class_t class,
				      enum wl_type_t type)
{
	if (class == IDLE_WORKLOAD)
		return &cfqg->service_tree_idle;
	return &cfqg->service_trees[class][type];
}

void cfq_service_tree_add(struct cfq_data *cfqd, struct cfq_queue *cfqq,
			  bool add_front)
{
	struct cfq_rb_root *st = cfq_st_for(cfqq->cfqg, cfqq_class(cfqq),
					    cfqq_type(cfqq));
	u64 now = ktime_get_ns();
	struct cfq_queue *first;
	struct rb_node *last;
	bool new = RB_EMPTY_NODE(&cfqq->rb_node);
	u64 key;

	if (cfq_class_idle(cfqq)) {
		/* IDLE queues queue up behind each other, well spaced */
		last = rb_last(&st->rb.rb_root);
		if (last && last != &cfqq->rb_node)
			key = rb_entry(last, struct cfq_queue, rb_node)->rb_key;
		else
			key = now;
		key += CFQ_IDLE_DELAY;
	} else if (add_front) {
		/* a preempting queue goes before everything else */
		first = cfq_st_first(st);
		key = (first ? first->rb_key : now) - CFQ_PREEMPT_LEAD;
	} else {
		key = cfq_st_key(now, cfqq->cfqg->nr_cfqq + new,
				 cfq_prio_slice(cfqd->cfq_slice[1], 0),
				 cfq_prio_slice(cfqd->cfq_slice[cfqq->sync],
						cfqq->ioprio),
				 cfqq->slice_resid);
		cfqq->slice_resid = 0;
	}

	if (!new) {
		if (key == cfqq->rb_key && cfqq->service_tree == st)
			return;
		cfq_st_erase(cfqq);
	}
	cfq_st_insert(st, cfqq, key);
	if (new)
		cfq_group_notify_queue_add(cfqd, cfqq->cfqg);
}

void cfq_add_cfqq_rr(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	cfq_log_cfqq(cfqd, cfqq, "add_to_rr");
	cfqq->on_rr = 1;
	cfqd->busy_queues++;
	if (cfqq->sync)
		cfqd->busy_sync_queues++;
	/*
	 * An IDLE queue that starts waiting now is not starved yet: count
	 * its wait from here.
	 */
	if (cfq_class_idle(cfqq) && !cfqq->cfqg->service_tree_idle.count)
		cfqd->idle_class_served = ktime_get_ns();
	cfq_service_tree_add(cfqd, cfqq, false);
}

void cfq_del_cfqq_rr(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	cfq_log_cfqq(cfqd, cfqq, "del_from_rr");
	cfqq->on_rr = 0;
	cfq_prio_tree_add(cfqq);
	if (!RB_EMPTY_NODE(&cfqq->rb_node)) {
		cfq_st_erase(cfqq);
		cfq_group_notify_queue_del(cfqd, cfqq->cfqg);
	}
	cfqd->busy_queues--;
	if (cfqq->sync)
		cfqd->busy_sync_queues--;
}

/*
 * Charging a group for its expired queue
 */

/*
 * Virtual time a group advances for @charge (ns, or requests in IOPS
 * mode) at share @vfraction (of 1 << CFQ_SERVICE_SHIFT): charge / share,
 * kept in fixed point with CFQ_SERVICE_SHIFT fractional bits as CFQ did.
 * Without them an IOPS-mode charge of one request came out as 4096 / 2730
 * = 1 for a weight-200 group against a weight-100 one's 4096 / 1365 = 3,
 * and such a group got three times the other's requests, not two
 * (measured 2.9 with 8 psync random readers per group on the NCQ disk).
 */
static u64 cfqg_scale_charge(u64 charge, unsigned int vfraction)
{
	charge = min_t(u64, charge, U64_MAX >> (2 * CFQ_SERVICE_SHIFT));
	return div_u64(charge << (2 * CFQ_SERVICE_SHIFT), max(vfraction, 1U));
}

/*
 * Disk time the expiring queue used: from its first completion (the
 * slice start) to now, at most its slice; a queue whose slice never
 * started is charged from its activation, at least a jiffy, so seeking
 * for a queue that never completed anything is not free.
 */
static u64 cfq_slice_usage(struct cfq_queue *cfqq, u64 now)
{
	u64 used;

	if (cfqq->slice_new || cfqq->slice_start >= now)
		return max_t(u64, now - cfqq->dispatch_start,
			     jiffies_to_nsecs(1));
	used = now - cfqq->slice_start;
	return min(used, cfqq->allocated_slice);
}

/*
 * The active queue @cfqq of @cfqg expired: charge the group and remember
 * how much of the workload slice is left, so the group resumes the same
 * workload next time.
 */
void cfq_group_served(struct cfq_data *cfqd, struct cfq_group *cfqg,
		      struct cfq_queue *cfqq, u64 now)
{
	unsigned int nr_async = cfqg->service_trees[RT_WORKLOAD][ASYNC_WORKLOAD].count +
				cfqg->service_trees[BE_WORKLOAD][ASYNC_WORKLOAD].count;
	u64 used = cfq_slice_usage(cfqq, now), charge = used;

	cfq_check_charge_mode(cfqd);
	if (cfq_iops_mode(cfqd))
		charge = cfqq->slice_dispatch;
	else if (!cfqq->sync && cfqg->nr_cfqq <= nr_async)
		/* async alone in its group: charge the whole slice */
		charge = max(cfqq->allocated_slice, used);

	if (cfqg_on_st(cfqg)) {
		u64 scaled = cfqg_scale_charge(charge, cfqg->vfraction);

		cfqg_st_erase(cfqd, cfqg);
		cfqg->vdisktime += scaled;
		cfqg_st_insert(cfqd, cfqg);
	}
	cfqg_stats_time(cfqg, used);
	cfq_log_cfqq(cfqd, cfqq, "served: used=%llu charge=%llu vfr=%u iops=%d",
		     used, charge, cfqg->vfraction, cfq_iops_mode(cfqd));

	if (cfqd->workload_expires > now) {
		cfqg->saved_wl_slice = cfqd->workload_expires - now;
		cfqg->saved_wl_type = cfqd->serving_wl_type;
		cfqg->saved_wl_class = cfqd->serving_wl_class;
	} else {
		cfqg->saved_wl_slice = 0;
	}
}

/*
 * Shares: the sizes of slices
 */

static unsigned int cfq_group_busy_queues_wl(struct cfq_group *cfqg,
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
static unsigned int cfq_group_get_avg_queues(struct cfq_group *cfqg, bool rt)
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
static u64 cfq_group_slice(struct cfq_data *cfqd, struct cfq_group *cfqg)
{
	return mul_u64_u64_div_u64(cfqd->cfq_target_latency,
				   max(cfqg->vfraction, 1U),
				   1 << CFQ_SERVICE_SHIFT);
}

/*
 * The slice of @cfqq: its ioprio level's, and with low_latency scaled so
 * the class's (smoothed) busy queues of the group all fit in the group's
 * share of target_latency.
 */
u64 cfq_cfqq_slice(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	u64 slice = cfq_prio_slice(cfqd->cfq_slice[cfqq->sync], cfqq->ioprio);
	unsigned int busy;

	if (!cfqd->cfq_latency)
		return slice;
	busy = cfq_group_get_avg_queues(cfqq->cfqg, cfq_class_rt(cfqq));
	return cfq_scale_slice(slice, cfqd->cfq_slice[1], cfqd->cfq_slice_idle,
			       busy, cfq_group_slice(cfqd, cfqq->cfqg));
}

/*
 * The choice of the next queue: group, class, workload type
 */

/* The group with the least virtual time; the minimum follows it. */
static struct cfq_group *cfq_get_next_cfqg(struct cfq_data *cfqd)
{
	struct rb_node *n = rb_first_cached(&cfqd->grp_st);
	struct cfq_group *cfqg;

	if (!n)
		return NULL;
	cfqg = rb_entry(n, struct cfq_group, rb_node);
	if (cfq_key_before(cfqd->min_vdisktime, cfqg->vdisktime))
		cfqd->min_vdisktime = cfqg->vdisktime;
	return cfqg;
}

/* Resume the saved workload of @cfqg, or force a fresh choice. */
static void cfq_group_restore_workload(struct cfq_data *cfqd,
				       struct cfq_group *cfqg, u64 now)
{
	if (cfqg->saved_wl_slice) {
		cfqd->workload_expires = now + cfqg->saved_wl_slice;
		cfqd->serving_wl_type = cfqg->saved_wl_type;
		cfqd->serving_wl_class = cfqg->saved_wl_class;
	} else {
		cfqd->workload_expires = now - 1;
	}
}

/*
 * The IDLE class gets the disk only when nothing else wants it, but at
 * least one request every CFQ_IDLE_STARVE so it is never starved forever.
 */
static enum wl_class_t cfq_choose_wl_class(struct cfq_data *cfqd,
					   struct cfq_group *cfqg, u64 now)
{
	if (cfqg->service_tree_idle.count &&
	    now - cfqd->idle_class_served > CFQ_IDLE_STARVE)
		return IDLE_WORKLOAD;
	if (cfq_group_busy_queues_wl(cfqg, RT_WORKLOAD))
		return RT_WORKLOAD;
	if (cfq_group_busy_queues_wl(cfqg, BE_WORKLOAD))
		return BE_WORKLOAD;
	return IDLE_WORKLOAD;
}

/* The type whose first queue has waited longest (smallest key). */
static enum wl_type_t cfq_choose_wl_type(struct cfq_group *cfqg,
					 enum wl_class_t class)
{
	enum wl_type_t type, best = SYNC_NOIDLE_WORKLOAD;
	struct cfq_queue *first;
	u64 key = 0;
	bool found = false;

	for (type = ASYNC_WORKLOAD; type <= SYNC_WORKLOAD; type++) {
		first = cfq_st_first(cfq_st_for(cfqg, class, type));
		if (first && (!found || cfq_key_before(first->rb_key, key))) {
			best = type;
			key = first->rb_key;
			found = true;
		}
	}
	return best;
}

/*
 * Workload slice: the group's slice split by the share of the class's busy
 * queues in the chosen tree. Async gets at most its share of all busy
 * queues, scaled down by slice_async/slice_sync; sync types get at least
 * two idle windows so idling can pay off.
 */
static u64 cfq_workload_slice(struct cfq_data *cfqd, struct cfq_group *cfqg,
			      unsigned int count)
{
	enum wl_class_t class = cfqd->serving_wl_class;
	unsigned int busy = max(cfq_group_busy_queues_wl(cfqg, class),
				cfqg->busy_queues_avg[class]);
	u64 group_slice = cfq_group_slice(cfqd, cfqg);
	u64 slice = div_u64(group_slice * count, max(busy, 1U));

	if (cfqd->serving_wl_type == ASYNC_WORKLOAD) {
		u64 async_max = div_u64(cfqd->cfq_target_latency * count,
					max(cfqd->busy_queues, 1U));

		slice = min(slice, async_max);
		slice = mul_u64_u64_div_u64(slice, cfqd->cfq_slice[0],
					    cfqd->cfq_slice[1]);
	} else {
		slice = max(slice, 2 * cfqd->cfq_slice_idle);
	}
	return max_t(u64, slice, CFQ_MIN_TT);
}

static void cfq_choose_wl(struct cfq_data *cfqd, struct cfq_group *cfqg,
			  u64 now)
{
	enum wl_class_t prev_class = cfqd->serving_wl_class;
	struct cfq_rb_root *st;

	cfqd->serving_wl_class = cfq_choose_wl_class(cfqd, cfqg, now);
	if (cfqd->serving_wl_class == IDLE_WORKLOAD) {
		cfqd->workload_expires = now + CFQ_MIN_TT / 2;
		return;
	}

	st = cfq_st_for(cfqg, cfqd->serving_wl_class, cfqd->serving_wl_type);
	if (prev_class == cfqd->serving_wl_class && st->count &&
	    now <= cfqd->workload_expires)
		return;

	cfqd->serving_wl_type = cfq_choose_wl_type(cfqg, cfqd->serving_wl_class);
	st = cfq_st_for(cfqg, cfqd->serving_wl_class, cfqd->serving_wl_type);
	cfqd->workload_expires = now + cfq_workload_slice(cfqd, cfqg, st->count);
}

/*
 * The queue to serve next: the first of the tree that the group with the
 * least vdisktime serves now (resuming the workload it was switched out
 * of, else choosing class and type afresh). Sets the serving workload;
 * NULL when no queue is busy.
 */
struct cfq_queue *cfq_choose_queue(struct cfq_data *cfqd, u64 now)
{
	struct cfq_group *cfqg = cfq_get_next_cfqg(cfqd);

	if (!cfqg)
		return NULL;
	cfq_group_restore_workload(cfqd, cfqg, now);
	cfq_choose_wl(cfqd, cfqg, now);
	return cfq_st_first(cfq_st_for(cfqg, cfqd->serving_wl_class,
				       cfqd->serving_wl_type));
}
