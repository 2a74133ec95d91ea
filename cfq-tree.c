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
	u64 now = cfq_clock(cfqd);
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

/*
 * The disk has busy queues again: a new busy period unless the gap was
 * short (a sequential reader's queue leaves the tree between its
 * requests at every slice end).
 */
static void cfq_note_busy(struct cfq_data *cfqd, u64 now)
{
	if (now - cfqd->idle_since > CFQ_BOOST_AFTER)
		cfqd->busy_since = now;
}

void cfq_add_cfqq_rr(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	cfq_log_cfqq(cfqd, cfqq, "add_to_rr");
	cfq_boost_update(cfqd, cfqq, cfq_clock(cfqd));
	cfqq->on_rr = 1;
	cfqq->cfqg->nr_boosted += cfqq->boosted;
	if (!cfqd->busy_queues++)
		cfq_note_busy(cfqd, cfq_clock(cfqd));
	if (cfqq->sync)
		cfqd->busy_sync_queues++;
	/*
	 * An IDLE queue that starts waiting now is not starved yet: count
	 * its wait from here.
	 */
	if (cfq_class_idle(cfqq) && !cfqq->cfqg->service_tree_idle.count)
		cfqd->idle_class_served = cfq_clock(cfqd);
	cfq_service_tree_add(cfqd, cfqq, false);
}

void cfq_del_cfqq_rr(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	cfq_log_cfqq(cfqd, cfqq, "del_from_rr");
	cfqq->on_rr = 0;
	cfqq->cfqg->nr_boosted -= cfqq->boosted;
	cfq_prio_tree_add(cfqq);
	if (!RB_EMPTY_NODE(&cfqq->rb_node)) {
		cfq_st_erase(cfqq);
		cfq_group_notify_queue_del(cfqd, cfqq->cfqg);
	}
	if (!--cfqd->busy_queues) {
		cfqd->idle_since = cfq_clock(cfqd);
		/* no boosting without busy queues: that time is nobody's */
		cfqd->boost_inflight_at = 0;
	}
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
 * What a turn's start adds to the group's charge for the @used ns of its
 * slice: what its first request cost of the time from the queue's
 * activation to its first completion (the slice starts there). Why: that
 * first request is the group's service like the others of its turn.
 * Left uncharged, it favoured the group with the shorter turns: with 4
 * direct 128 KiB readers per group (B1d, weights 100:200, 6.12), slices
 * of 50 and 25 ms were charged 2:1, but each turn's first request took
 * another 8-10 ms, so the groups held the disk 58.8 and 35.3 ms a turn
 * and read 1.73:1. Charging the whole stretch from activation instead
 * made it 2.0 there, but charges the seek to the queue's data too, which
 * is the switch's cost, not the group's: a sequential reader's turn then
 * pays 8-10 ms of seek for a few ms of transfer, and the lighter of three
 * groups (100:200:400, 64 KiB sequential readers) read less than half of
 * the middle one's (2.31-2.57). So the first request is charged the time
 * its sectors take at the rate the queue kept in its slice
 * (cfq_first_charge()): all of a direct reader's 8-10 ms, as its slice
 * runs at that rate too, but of a sequential reader's seek and 64 KiB
 * only the 0.4 ms the transfer takes at 174 MB/s on hddsim. Measured
 * (B1d defaults, 12 s runs) at N = 1 / 2 / 4 / 8 readers per group:
 * 6.12 1.98 / 1.98 / 1.96 / 2.18, from 1.89 / 1.83 / 1.74 / 1.76; 6.1
 * 1.94 / 2.02 / 1.94 / 2.17; 7.3 1.94 / 1.94 / 1.96 / 2.28. At N = 8 the
 * charges were 1:1.98, but the lighter group's slices sat at the
 * low_latency floor, a third of its turns served a single read and it
 * read less per charged ms (13.4 KiB against 14.7 on 6.12): the floor
 * that mends it is in cfq_scale_slice().
 */
static u64 cfq_turn_start_usage(struct cfq_queue *cfqq, u64 used, u64 now)
{
	if (cfqq->slice_new || cfqq->slice_start >= now ||
	    cfqq->slice_start < cfqq->dispatch_start)
		return 0;
	return cfq_first_charge(cfqq->slice_start - cfqq->dispatch_start,
				cfqq->first_sectors, used,
				cfqq->turn_sectors - cfqq->first_sectors);
}

static void cfq_boost_turn_served(struct cfq_data *cfqd,
				  struct cfq_group *cfqg, bool boosted, u64 used);
static u64 cfq_boosted_time(struct cfq_data *cfqd, struct cfq_queue *cfqq,
			    u64 now);

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
	u64 slice_used = cfq_slice_usage(cfqq, now);
	u64 used = slice_used + cfq_turn_start_usage(cfqq, slice_used, now);
	u64 charge = used;

	cfq_check_charge_mode(cfqd);
	if (cfq_iops_mode(cfqd))
		charge = cfqq->slice_dispatch;
	else if (!cfqq->sync && cfqg->nr_cfqq <= nr_async)
		/* async alone in its group: charge the whole slice */
		charge = max(cfqq->allocated_slice, used);
	if (cfqq->boosted) {
		charge = div_u64(charge * CFQ_BOOST_PARTS_OTHERS,
				 CFQ_BOOST_PARTS_BOOSTED);
		cfqg_stats_boost_time(cfqg, used);
	}
	if (cfqq_class(cfqq) == BE_WORKLOAD)
		cfq_boost_turn_served(cfqd, cfqg, cfqq->boosted,
				      cfqq->boosted ?
				      cfq_boosted_time(cfqd, cfqq, now) :
				      slice_used);
	if (!cfqq->boosted)
		cfqd->boost_inflight_at = 0;

	if (cfqg_on_st(cfqg)) {
		u64 scaled = cfqg_scale_charge(charge, cfqg->vfraction);

		cfqg_st_erase(cfqd, cfqg);
		cfqg->vdisktime += scaled;
		cfqg_st_insert(cfqd, cfqg);
	}
	cfqg_stats_time(cfqg, used);
	cfq_log_cfqq(cfqd, cfqq, "served: used=%llu charge=%llu vfr=%u iops=%d boost=%u",
		     used, charge, cfqg->vfraction, cfq_iops_mode(cfqd),
		     cfqq->boosted);

	if (cfqd->workload_expires > now) {
		cfqg->saved_wl_slice = cfqd->workload_expires - now;
		cfqg->saved_wl_type = cfqd->serving_wl_type;
		cfqg->saved_wl_class = cfqd->serving_wl_class;
	} else {
		cfqg->saved_wl_slice = 0;
	}
}

/*
 * Start-up boost
 *
 * What: a sync queue of the BE class that a process starts while the
 * disk has been busy for CFQ_BOOST_AFTER (100 ms) is boosted for its first
 * startup_boost ms (4 s; 0 turns it off, as does low_latency=0) and its
 * first 64 MiB (CFQ_BOOST_SECTORS, bfq's bound on the service a
 * weight-raised queue may get is about as much). While
 * boosted queues and others are busy in one group, the boosted ones get
 * 9 parts of the group's time and the others 2 (CFQ_BOOST_PARTS_*), in
 * a round of three times the group's slice (900 ms alone): the two sides
 * take turns by the time they use, 9/11 of the round for the boosted
 * queues (736 ms), then 2/11 for the others (cfq_boost_turn()). Inside the
 * group, neither side's turn is cut by the other's requests
 * (cfq_boost_holds_turn()), and a head-order switch (cfq_nearer_queue())
 * stays on the side whose turn it is. Across groups, the time a boosted
 * queue uses is charged to its group at 2/9, so its group gets 4.5
 * times its weight's share: weights still order the groups without
 * boosted queues, and the boost is the same factor whatever the weights
 * are.
 *
 * Why: an application that starts reads its files with a new process (or
 * several), while a copy or a backup may be reading sequentially. With
 * CFQ's split, the two workloads take turns of equal time, and the
 * start-up takes twice as long as on an idle disk, more with more
 * readers (B2: 2.13x with one). bfq raises a new queue's weight 30 times,
 * which starts the application at once but leaves the reader 0.5 % of
 * its throughput; a fixed 9:2 split keeps the reader moving (2/11 of
 * the time, whatever the number of new processes) and bounds what a
 * process can gain: a process is new once, and a boost ends with its
 * time, so a long-running seeky reader or a program that restarts often
 * gains at most its first seconds, at most 9/11 of the disk. Why 9:2:
 * a start-up begins and ends in a boosted turn, so over its span the
 * reader gets less than its part of the round, and its turn also pays
 * the seek back to its data. With 6:1 the reader kept 13.3 % of its
 * throughput (B2 under 1 reader, 6.12), with 5:1 14.7 % on 7.3; with
 * 9:2 16.2 %, for a start-up 1.2 % longer (7.3, cfq alone in the
 * boot: 2235 against 2209 ms). The 64 MiB
 * bound ends the boost of a sequential reader within a fraction of a
 * second (at 170 MB/s), so a copy that started just before the
 * application does not share its boost. A queue that starts on an idle
 * disk, or within 100 ms of it becoming busy, is not boosted: it has
 * nobody to be protected from, and processes that start together (a
 * fio with 10 readers) are not newcomers to each other. Without that
 * rule, 10 readers started together were all boosted, for as long as
 * the application: it started 37.5x slower than on an idle disk (6.12).
 *
 * Measured: see Documentation/cfq-iosched.rst (B2).
 */
/* Has the disk been busy (short gaps aside) for CFQ_BOOST_AFTER? */
static bool cfq_busy_a_while(struct cfq_data *cfqd, u64 now)
{
	if (!cfqd->busy_queues && now - cfqd->idle_since > CFQ_BOOST_AFTER)
		return false;
	return now - cfqd->busy_since >= CFQ_BOOST_AFTER;
}

void cfq_boost_start(struct cfq_data *cfqd, struct cfq_queue *cfqq, u64 now)
{
	if (!cfqd->cfq_latency || !cfqd->cfq_startup_boost ||
	    !cfq_busy_a_while(cfqd, now))
		return;
	cfqq->boosted = 1;
	cfqq->boost_end = now + cfqd->cfq_startup_boost;
	cfqq->boost_left = CFQ_BOOST_SECTORS;
}

/* End @cfqq's boost once its time is over, or boosting is turned off. */
void cfq_boost_update(struct cfq_data *cfqd, struct cfq_queue *cfqq, u64 now)
{
	if (!cfqq->boosted)
		return;
	if (cfqd->cfq_latency && cfqd->cfq_startup_boost &&
	    cfqq_class(cfqq) == BE_WORKLOAD && cfqq->boost_left &&
	    cfq_key_before(now, cfqq->boost_end))
		return;
	cfqq->boosted = 0;
	if (cfqq->on_rr)
		cfqq->cfqg->nr_boosted--;
	cfq_log_cfqq(cfqd, cfqq, "boost end");
}

/*
 * The round of a group that is boosting: CFQ_BOOST_ROUND (3) times its
 * slice, so the seeks between the boosted queues and the others cost
 * less of it; 9/11 of it for the boosted side (@boosted), 2/11 left for
 * the others. Measured on B2 (cfq alone in the boot, start-up ms under
 * 1 / 5 / 10 readers and the launcher's), rounds of 2 slices against 3:
 * 6.1 2230 / 2177 / 2247 / 2041 against 2201 / 2144 / 2204 / 1915;
 * 6.12 2228 / 2241 / 2353 / 2224 against 2214 / 2221 / 2313 / 2192;
 * 7.3 2235 / 2231 / 2243 / 2057 against 2207 / 2239 / 2217 / 2064;
 * the readers' MB/s within 2.5 of each other.
 */
static u64 cfq_boost_part(u64 group_slice, bool boosted)
{
	return div_u64(CFQ_BOOST_ROUND * group_slice *
		       (boosted ? CFQ_BOOST_PARTS_BOOSTED : CFQ_BOOST_PARTS_OTHERS),
		       CFQ_BOOST_PARTS_BOOSTED + CFQ_BOOST_PARTS_OTHERS);
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
 * Whose turn it is in @cfqg while it is boosting (@class BE): the boosted
 * queues' until they have used the boosted part of a round (9/11), then
 * the others' until they have used the rest, and so on; a round starts
 * with the boosted side. A boosted queue's time here is the time it held
 * the disk, from its activation (or its requests' dispatch, see
 * cfq_boosted_time()) to its expiry, the seek to its data included; an
 * other queue's is its charge (cfq_slice_usage(), from its
 * first completion), so the seeks away from the start-up and back are
 * the start-up's cost. Why turns by the time used:
 *  - the turns were by workload type before, and a workload goes on,
 *    queue after queue, until its slice is over: with the start-up in
 *    one tree and five readers in another, two readers were served 50 ms
 *    each between two boosted turns, and with all of them in one tree,
 *    keys chose and four were (B2 under 5 readers on 6.12: 1.68x the idle
 *    start-up, the readers a third of the disk);
 *  - counting served queues instead (one other queue per round) failed
 *    the other way: an other queue that does not use its turn (B2's fio
 *    readers, after waiting through a boosted turn, let the idle window
 *    run out after their first request) gave the turn back, and the
 *    readers got one request a round (1.3 % of the disk). Now the rest
 *    of the others' part goes to the next other queue;
 *  - counting a queue's time from its first completion, as its charge
 *    does, left out the seeks: B2's six launcher processes, taking turns
 *    of a fraction of a millisecond after a seek each, had not used the
 *    boosted part when the start-up was over, and the reader never got
 *    its turn (0.6 MB/s, 6.12). Counting the others' seeks too left ten
 *    readers, each a seek away, 14.4 MB/s (8 % of the disk; now 22.3).
 */
static enum cfq_boost_turn cfq_boost_turn(struct cfq_group *cfqg,
					  enum wl_class_t class)
{
	if (class != BE_WORKLOAD || !cfq_group_boosting(cfqg))
		return CFQ_TURN_ANY;
	return cfqg->boost_turn == CFQ_TURN_OTHERS ? CFQ_TURN_OTHERS :
						     CFQ_TURN_BOOSTED;
}

/*
 * The time boosted @cfqq held the disk, expiring now: from its
 * activation, or from the expiry just before it if that was a boosted
 * queue's with requests in flight (they were served in this queue's
 * time).
 * Why: a boosted queue is not idled for while another boosted queue has
 * requests waiting (cfq_should_idle()), so B2's launcher processes
 * expire right after each dispatch; counted from their activations
 * alone, their turn took 0.1 ms a request, never ended, and the reader
 * was served twice in the 1.9 s of the start-up (6.1, 6.6 % of its
 * throughput).
 */
static u64 cfq_boosted_time(struct cfq_data *cfqd, struct cfq_queue *cfqq,
			    u64 now)
{
	u64 from = cfqq->dispatch_start;

	if (cfqd->boost_inflight_at && cfqd->boost_inflight_at < from)
		from = cfqd->boost_inflight_at;
	cfqd->boost_inflight_at = cfqq->dispatched ? now : 0;
	return now - from;
}

/* What is left of @side's part of the round in @cfqg. */
static u64 cfq_boost_turn_left(struct cfq_data *cfqd, struct cfq_group *cfqg,
			       enum cfq_boost_turn side)
{
	u64 part = cfq_boost_part(cfq_group_slice(cfqd, cfqg),
				  side == CFQ_TURN_BOOSTED);
	u64 used = cfqg->boost_turn == side ? cfqg->boost_turn_used : 0;

	return used < part ? part - used : 0;
}

/*
 * A BE queue of @cfqg (@boosted or not) was served @used ns: count it to
 * its side's turn, and pass the turn on once that side's part is used. A
 * queue served out of its side's turn (a preemption, or nobody of the
 * other side could be found) does not count; a group not boosting starts
 * the next round afresh.
 */
static void cfq_boost_turn_served(struct cfq_data *cfqd,
				  struct cfq_group *cfqg, bool boosted, u64 used)
{
	enum cfq_boost_turn side = boosted ? CFQ_TURN_BOOSTED : CFQ_TURN_OTHERS;

	if (!cfq_group_boosting(cfqg)) {
		cfqg->boost_turn = CFQ_TURN_ANY;
		cfqg->boost_turn_used = 0;
		return;
	}
	if (cfqg->boost_turn == CFQ_TURN_ANY)
		cfqg->boost_turn = CFQ_TURN_BOOSTED;
	if (cfqg->boost_turn != side)
		return;
	if (used < cfq_boost_turn_left(cfqd, cfqg, side)) {
		cfqg->boost_turn_used += used;
		return;
	}
	cfqg->boost_turn = boosted ? CFQ_TURN_OTHERS : CFQ_TURN_BOOSTED;
	cfqg->boost_turn_used = 0;
}

/*
 * Does @active keep the disk against @new, a queue of its group on the
 * other side of a boost? Yes while it is @active's side's turn, both
 * ways. Else a boosted queue's metadata request (a new process's path
 * lookups and inode reads), which preempts, cut the others' turn short;
 * the boosted queue was then served out of its turn and not counted, and
 * the others' turn came back right after it, a seek away. Measured on
 * 6.12 (B2, cfq alone in the boot): the launcher under a reader 2219 ms
 * without this rule, 2134 ms with it; under 10 readers 2374 and 2314 ms;
 * the readers' MB/s within 1.6 of each other.
 */
bool cfq_boost_holds_turn(struct cfq_queue *active, struct cfq_queue *new)
{
	enum cfq_boost_turn side = active->boosted ? CFQ_TURN_BOOSTED :
						     CFQ_TURN_OTHERS;

	return active->cfqg == new->cfqg && active->boosted != new->boosted &&
	       cfqq_class(active) == BE_WORKLOAD &&
	       cfq_boost_turn(active->cfqg, BE_WORKLOAD) == side;
}

/*
 * The slice of @cfqq: its ioprio level's, and with low_latency scaled so
 * the class's (smoothed) busy queues of the group all fit in the group's
 * share of target_latency.
 */
u64 cfq_cfqq_slice(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	u64 slice = cfq_prio_slice(cfqd->cfq_slice[cfqq->sync], cfqq->ioprio);
	u64 group_slice;
	unsigned int busy;

	if (!cfqd->cfq_latency)
		return slice;
	busy = cfq_group_get_avg_queues(cfqq->cfqg, cfq_class_rt(cfqq));
	group_slice = cfq_group_slice(cfqd, cfqq->cfqg);
	slice = cfq_scale_slice(slice, cfqd->cfq_slice[1], cfqd->cfq_slice_idle,
				busy, group_slice);
	if (cfq_group_boosting(cfqq->cfqg))
		slice = max_t(u64, cfq_boost_turn_left(cfqd, cfqq->cfqg,
				cfqq->boosted ? CFQ_TURN_BOOSTED : CFQ_TURN_OTHERS),
			      CFQ_MIN_TT);
	return slice;
}

/*
 * The choice of the next queue: group, class, workload type
 */

/*
 * The first queue of @st whose turn it is (@turn), among the first
 * CFQ_NEAR_SCAN; NULL if none.
 */
static struct cfq_queue *cfq_st_first_turn(struct cfq_rb_root *st,
					   enum cfq_boost_turn turn)
{
	unsigned int scanned = 0;
	struct cfq_queue *cfqq;
	struct rb_node *n;

	if (turn == CFQ_TURN_ANY)
		return cfq_st_first(st);
	for (n = rb_first_cached(&st->rb); n && scanned++ < CFQ_NEAR_SCAN;
	     n = rb_next(n)) {
		cfqq = rb_entry(n, struct cfq_queue, rb_node);
		if (cfqq->boosted == (turn == CFQ_TURN_BOOSTED))
			return cfqq;
	}
	return NULL;
}

/* Are all of @cfqg's busy queues of the IDLE class? */
static bool cfqg_idle_only(struct cfq_group *cfqg)
{
	return !cfq_group_busy_queues_wl(cfqg, RT_WORKLOAD) &&
	       !cfq_group_busy_queues_wl(cfqg, BE_WORKLOAD);
}

/*
 * The group with the least virtual time, except that a group whose busy
 * queues are all IDLE class waits while another group has RT or BE work:
 * the IDLE class means "when nothing else wants the disk" across groups
 * too, as it does inside one. Why: systemd puts each service in a cgroup
 * of its own, so a service with IOSchedulingClass=idle is alone in its
 * group, and with classes applied only inside a group (CFQ 4.20, bfq) it
 * got its group's full share beside the others. Its bound is the one
 * inside a group: once IDLE has waited CFQ_IDLE_STARVE, the leftmost
 * group is served even if it is IDLE only (a waiting IDLE-only group
 * soon is the leftmost: it does not advance while the others do). The
 * walk passes only IDLE-only groups, none in the common case. Measured:
 * see Documentation/cfq-iosched.rst (ionice across cgroups). The minimum
 * vdisktime follows the group chosen.
 */
static struct cfq_group *cfq_get_next_cfqg(struct cfq_data *cfqd, u64 now)
{
	struct rb_node *n = rb_first_cached(&cfqd->grp_st);
	struct cfq_group *cfqg, *first;

	if (!n)
		return NULL;
	first = cfqg = rb_entry(n, struct cfq_group, rb_node);
	if (cfqg_idle_only(first) &&
	    now - cfqd->idle_class_served <= CFQ_IDLE_STARVE) {
		while (cfqg_idle_only(cfqg) && (n = rb_next(n)))
			cfqg = rb_entry(n, struct cfq_group, rb_node);
		if (cfqg_idle_only(cfqg))
			cfqg = first;
	}
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

/*
 * The type whose first queue has waited longest (smallest key), among
 * the trees with a queue whose turn it is (@turn, start-up boost).
 */
static enum wl_type_t cfq_choose_wl_type(struct cfq_group *cfqg,
					 enum wl_class_t class,
					 enum cfq_boost_turn turn)
{
	enum wl_type_t type, best = SYNC_NOIDLE_WORKLOAD;
	struct cfq_queue *first;
	u64 key = 0;
	int pass;

	/* a turn nobody can take (beyond the scan): any queue */
	for (pass = 0; pass < 2; pass++, turn = CFQ_TURN_ANY) {
		bool found = false;

		for (type = ASYNC_WORKLOAD; type <= SYNC_WORKLOAD; type++) {
			first = cfq_st_first_turn(cfq_st_for(cfqg, class, type),
						  turn);
			if (!first)
				continue;
			if (!found || cfq_key_before(first->rb_key, key)) {
				best = type;
				key = first->rb_key;
				found = true;
			}
		}
		if (found)
			break;
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
			      struct cfq_rb_root *st, enum cfq_boost_turn turn)
{
	enum wl_class_t class = cfqd->serving_wl_class;
	unsigned int count = st->count;
	unsigned int now_busy = cfq_group_busy_queues_wl(cfqg, class);
	unsigned int busy = max(now_busy, cfqg->busy_queues_avg[class]);
	u64 group_slice = cfq_group_slice(cfqd, cfqg);
	u64 slice = div_u64(group_slice * count, max(busy, 1U));

	if (turn != CFQ_TURN_ANY)
		slice = cfq_boost_turn_left(cfqd, cfqg, turn);

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

/*
 * Choose the class and workload type @cfqg serves next, for whose @turn
 * it is. A workload in progress goes on, except while the group is
 * boosting: then each queue's turn is chosen afresh.
 */
static void cfq_choose_wl(struct cfq_data *cfqd, struct cfq_group *cfqg,
			  u64 now, enum cfq_boost_turn *turn)
{
	enum wl_class_t prev_class = cfqd->serving_wl_class;
	struct cfq_rb_root *st;

	cfqd->serving_wl_class = cfq_choose_wl_class(cfqd, cfqg, now);
	*turn = cfq_boost_turn(cfqg, cfqd->serving_wl_class);
	if (cfqd->serving_wl_class == IDLE_WORKLOAD) {
		cfqd->workload_expires = now + CFQ_MIN_TT / 2;
		return;
	}

	st = cfq_st_for(cfqg, cfqd->serving_wl_class, cfqd->serving_wl_type);
	if (prev_class == cfqd->serving_wl_class && st->count &&
	    now <= cfqd->workload_expires && *turn == CFQ_TURN_ANY)
		return;

	cfqd->serving_wl_type = cfq_choose_wl_type(cfqg, cfqd->serving_wl_class,
						   *turn);
	st = cfq_st_for(cfqg, cfqd->serving_wl_class, cfqd->serving_wl_type);
	cfqd->workload_expires = now + cfq_workload_slice(cfqd, cfqg, st, *turn);
}

/*
 * The queue to serve next: the first of the tree that the group with the
 * least vdisktime serves now (resuming the workload it was switched out
 * of, else choosing class and type afresh). Sets the serving workload;
 * NULL when no queue is busy.
 */
struct cfq_queue *cfq_choose_queue(struct cfq_data *cfqd, u64 now)
{
	struct cfq_group *cfqg = cfq_get_next_cfqg(cfqd, now);
	enum cfq_boost_turn turn;
	struct cfq_rb_root *st;

	if (!cfqg)
		return NULL;
	cfq_group_restore_workload(cfqd, cfqg, now);
	cfq_choose_wl(cfqd, cfqg, now, &turn);
	st = cfq_st_for(cfqg, cfqd->serving_wl_class, cfqd->serving_wl_type);
	return cfq_st_first_turn(st, turn) ?: cfq_st_first(st);
}

/*
 * The active queue's next request is a seek from the head, in a case the
 * head order below works for: sync, rotational, sliding_window set.
 */
static bool cfq_head_order_seek(struct cfq_data *cfqd, struct cfq_queue *cur)
{
	return cfqd->cfq_sliding_window && cur->sync && cur->service_tree &&
	       !cfq_queue_nonrot(cfqd->queue) &&
	       cfq_dist(blk_rq_pos(cur->next_rq), cfqd->last_position) >
	       CFQQ_SEEK_THR;
}

/*
 * Head order across queues (with sliding_window=1): the active sync queue
 * has been served this turn and its next request would move the head
 * more than CFQQ_SEEK_THR; a busy queue of its tree (same group, class
 * and workload type) and ioprio level whose request is nearer the head is
 * served in its place. The request compared is the one the queue would
 * dispatch if activated now (the window's pick at the current head, not
 * its cached next_rq: that was chosen where the head was at its last
 * turn). This is the 2005 window applied to queues: with many processes
 * each reading short runs at random places (a thread pool of a database
 * or a mail server), each run is served whole, and the seek between runs
 * goes to the nearest waiting run instead of the one whose turn it
 * happens to be.
 *
 * Fairness: only the first CFQ_NEAR_SCAN queues of the tree, those that
 * waited longest, are candidates; the queue left behind keeps its place
 * on the tree and is charged only the time it used; only inside the
 * workload slice in progress, like cooperators; and a queue that has
 * waited on the tree for more than target_latency past its key is served
 * first. Rotational disks only: elsewhere there is no seek to save.
 *
 * Measured: see Documentation/cfq-iosched.rst (B4).
 */
struct cfq_queue *cfq_nearer_queue(struct cfq_data *cfqd,
				   struct cfq_queue *cur, u64 now)
{
	sector_t head = cfqd->last_position, best, start;
	struct cfq_rb_root *st = cur->service_tree;
	struct cfq_queue *cfqq, *nearest = NULL;
	unsigned int scanned = 0;
	struct request *rq;
	struct rb_node *n;

	if (now > cfqd->workload_expires || !cfq_head_order_seek(cfqd, cur))
		return NULL;
	best = cfq_dist(blk_rq_pos(cur->next_rq), head);

	start = cfq_window_start(head, cfqd->cfq_back_max);
	for (n = rb_first_cached(&st->rb); n && scanned < CFQ_NEAR_SCAN;
	     n = rb_next(n)) {
		cfqq = rb_entry(n, struct cfq_queue, rb_node);
		if (cfqq == cur || !cfqq->next_rq ||
		    cfqq->ioprio != cur->ioprio || cfqq->boosted != cur->boosted)
			continue;
		if (!scanned++ &&
		    cfq_key_before(cfqq->rb_key + cfqd->cfq_target_latency, now))
			return cfqq;
		rq = cfq_window_pick(&cfqq->sort_list, start);
		if (cfq_dist(blk_rq_pos(rq), head) < best) {
			best = cfq_dist(blk_rq_pos(rq), head);
			nearest = cfqq;
		}
	}
	return nearest;
}

/*
 * The workload slice is over, and with it the head order (which is only
 * used inside it): the active queue would sweep its own requests until
 * its slice ends, far apart when each holds a few random requests. It
 * gives the disk back at its next seek instead, when another queue is
 * busy; the next turn is chosen afresh (group, workload, queue) and the
 * head order resumes in the new workload slice.
 * Measured (B4w on 6.12): the tail of each workload slice was 10-12
 * dispatches of one queue, 539 of 1347 dispatches in 8 s with a mean seek
 * of 315609 sectors against 125887 for the head order's; with this rule,
 * 3307 -> 3480 reads in 20 s (mq-deadline 3430, bfq 3407), mean seek
 * 217098 -> 144037 sectors.
 */
bool cfq_seek_ends_turn(struct cfq_data *cfqd, struct cfq_queue *cur, u64 now)
{
	return now > cfqd->workload_expires && cfqd->busy_queues > 1 &&
	       cfq_head_order_seek(cfqd, cur);
}
