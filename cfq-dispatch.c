// SPDX-License-Identifier: GPL-2.0
/*
 * cfq's dispatch side: which queue gets the disk, for how long, and what
 * it may send to the driver. Read top to bottom it follows a slice:
 *  - the slice length (ioprio level, low_latency scaling);
 *  - activation of a queue and the end of its turn (expiry);
 *  - the next queue, which cfq-tree.c chooses (class, workload type,
 *    queue), and the IDLE-class grace;
 *  - idling: whether to wait for the active queue's next request, and
 *    the idle hrtimer that ends the wait;
 *  - dispatch: keep or expire the active queue, its FIFO, its limits,
 *    and the move of a request to the driver;
 *  - completion: the slice starts at the first one, and the last one of
 *    an empty sync queue arms the idle timer.
 * Everything runs under cfqd->lock (see cfq.h).
 */
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>

#include "cfq.h"

/*
 * Re-run the hardware queues from kblockd: safe under the lock, in irq.
 * Not blk_mq_run_hw_queues(): on 6.12 it takes q->queue_lock when it
 * finds nothing to run, and the block layer nests q->queue_lock ->
 * ioc->lock -> cfqd->lock (ioc_find_get_icq(), ioc_clear_queue() ->
 * cfq_exit_icq()), so cfqd->lock -> q->queue_lock would close a circle
 * (lockdep reports it).
 */
void cfq_kick_dispatch(struct cfq_data *cfqd)
{
	cfq_log(cfqd, "schedule dispatch");
	blk_mq_delay_run_hw_queues(cfqd->queue, 0);
}

/*
 * Idle timer. cfqd->wait is the logical state: it is cleared when a wait
 * is cancelled even if the callback could not be stopped, so a late
 * callback does nothing, and has_work() reports no work while cfq waits.
 */
static const char *const cfq_wait_name[] = {
	[CFQ_WAIT_NONE] = "none",
	[CFQ_WAIT_QUEUE] = "queue",
	[CFQ_WAIT_GROUP] = "group",
	[CFQ_WAIT_IDLE_CLASS] = "idle_class",
};

static void cfq_arm_idle_timer(struct cfq_data *cfqd, enum cfq_wait wait,
			       u64 ns)
{
	WRITE_ONCE(cfqd->wait, wait);
	hrtimer_start(&cfqd->idle_slice_timer, ns_to_ktime(ns),
		      HRTIMER_MODE_REL);
}

void cfq_cancel_idle_timer(struct cfq_data *cfqd)
{
	if (cfqd->wait == CFQ_WAIT_NONE)
		return;
	WRITE_ONCE(cfqd->wait, CFQ_WAIT_NONE);
	hrtimer_try_to_cancel(&cfqd->idle_slice_timer);
	cfqg_stats_idle_end(cfqd, cfq_clock(cfqd));
}

/*
 * A slice starts at the first completion of the queue, not when it is
 * activated: the seek to the queue's data is not charged to its slice.
 */
static void cfq_set_prio_slice(struct cfq_data *cfqd, struct cfq_queue *cfqq,
			       u64 now)
{
	u64 slice = cfq_cfqq_slice(cfqd, cfqq);

	cfqq->slice_start = now;
	cfqq->slice_end = now + slice;
	cfqq->allocated_slice = slice;
	cfqq->first_sectors = cfqq->turn_sectors;
	cfqq->slice_new = 0;
	cfq_log_cfqq(cfqd, cfqq, "set_slice=%llu", slice);
}

bool cfq_slice_used(struct cfq_queue *cfqq, u64 now)
{
	return !cfqq->slice_new && now >= cfqq->slice_end;
}

/* Will the slice be over before the requests in flight complete? */
static bool cfq_slice_used_soon(struct cfq_data *cfqd, struct cfq_queue *cfqq,
				u64 now)
{
	return cfqq->slice_new ||
	       now + cfqd->cfq_slice_idle * cfqq->dispatched > cfqq->slice_end;
}

/*
 * FIFO: a request that waited longer than fifo_expire is served next, even
 * out of sector order. The check runs at every dispatch of the active
 * queue but forces at most one request per slice, so an old request
 * cannot turn the slice into a seek storm; later ones wait for the sweep
 * or the next slice.
 */
static struct request *cfq_check_fifo(struct cfq_queue *cfqq, u64 now)
{
	struct request *rq;

	if (cfqq->fifo_expire || list_empty(&cfqq->fifo))
		return NULL;
	rq = rq_entry_fifo(cfqq->fifo.next);
	if (now < rq->fifo_time)
		return NULL;
	cfqq->fifo_expire = 1;
	return rq;
}

/*
 * Queue activation and expiry
 */
static void cfq_set_active_queue(struct cfq_data *cfqd, struct cfq_queue *cfqq,
				 u64 now)
{
	cfq_log_cfqq(cfqd, cfqq, "set_active wl_class:%d wl_type:%d",
		     cfqd->serving_wl_class, cfqd->serving_wl_type);
	cfq_boost_update(cfqd, cfqq, now);
	cfqq->dispatch_start = now;
	cfqq->slice_start = 0;
	cfqq->slice_end = 0;
	cfqq->allocated_slice = 0;
	cfqq->slice_dispatch = 0;
	cfqq->turn_sectors = 0;
	cfqq->first_sectors = 0;
	cfqq->must_dispatch = 0;
	cfqq->fifo_expire = 0;
	cfqq->wait_busy = 0;
	cfqq->slice_new = 1;
	cfq_cancel_idle_timer(cfqd);
	/* the head moved while others were served: resume the sweep there */
	if (cfqd->cfq_sliding_window)
		cfq_update_next_rq(cfqd, cfqq, NULL);
	cfqd->active_queue = cfqq;
}

/*
 * End the active queue's turn. With @timed_out (preemption, or the slice
 * ran out at a completion) the unused part of the slice is credited to the
 * queue's next service-tree key.
 */
void cfq_slice_expired(struct cfq_data *cfqd, bool timed_out)
{
	struct cfq_queue *cfqq = cfqd->active_queue;
	u64 now = cfq_clock(cfqd);

	if (!cfqq)
		return;
	cfq_log_cfqq(cfqd, cfqq, "slice expired t=%d", timed_out);
	cfq_cancel_idle_timer(cfqd);

	if (timed_out) {
		if (cfqq->slice_new)
			cfqq->slice_resid = cfq_cfqq_slice(cfqd, cfqq);
		else
			cfqq->slice_resid = cfqq->slice_end - now;
		cfq_log_cfqq(cfqd, cfqq, "resid=%lld", cfqq->slice_resid);
	}
	cfq_group_served(cfqd, cfqq->cfqg, cfqq, now);

	cfqd->active_queue = NULL;
	if (cfqq->on_rr) {
		if (RB_EMPTY_ROOT(&cfqq->sort_list))
			cfq_del_cfqq_rr(cfqd, cfqq);
		else
			cfq_service_tree_add(cfqd, cfqq, false);
	}
}

/*
 * The next queue (chosen in cfq-tree.c)
 */

/*
 * IDLE-class grace: serve IDLE only once the other classes have been quiet
 * for CFQ_IDLE_GRACE; until then wait on the idle timer. Returns true if
 * cfq must wait.
 */
static bool cfq_idle_class_wait(struct cfq_data *cfqd, u64 now)
{
	u64 quiet_at = cfqd->last_nonidle + CFQ_IDLE_GRACE;

	if (now - cfqd->idle_class_served > CFQ_IDLE_STARVE || now >= quiet_at)
		return false;
	if (cfqd->wait == CFQ_WAIT_NONE) {
		cfq_log(cfqd, "arm_idle: %llu %s", quiet_at - now,
			cfq_wait_name[CFQ_WAIT_IDLE_CLASS]);
		cfq_arm_idle_timer(cfqd, CFQ_WAIT_IDLE_CLASS, quiet_at - now);
	}
	return true;
}

/* Pick the next queue to serve and make it active. */
static struct cfq_queue *cfq_set_next_queue(struct cfq_data *cfqd, u64 now)
{
	struct cfq_queue *cfqq = cfq_choose_queue(cfqd, now);

	if (!cfqq)
		return NULL;
	if (cfqd->serving_wl_class == IDLE_WORKLOAD &&
	    cfq_idle_class_wait(cfqd, now))
		return NULL;
	cfq_set_active_queue(cfqd, cfqq, now);
	return cfqq;
}

/*
 * Idling
 */

/*
 * Should cfq wait for @cfqq's next request when it runs dry? Yes if the
 * queue has an idle window (a sequential reader with short think time),
 * except on devices that queue internally and do not seek. Otherwise
 * idle once per sync-noidle tree: when the last seeky sync queue of the
 * tree empties, so seeky readers as a group are not swamped by others.
 */
bool cfq_should_idle(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	struct cfq_rb_root *st = cfqq->service_tree;

	if (!cfqd->cfq_slice_idle || cfq_class_idle(cfqq) || !st)
		return false;
	/*
	 * The last busy boosted queue of a group that is boosting is idled
	 * for even if seeky: a start-up of several processes, each reading
	 * a file at a time, leaves its tree empty between files, and each
	 * time the others got a turn (B2's launcher on 6.1: 9.85x the idle
	 * start-up, the reader served 5.5 s of its 9.7). While another
	 * boosted queue has requests waiting, the usual rules apply: the
	 * turn stays with the boosted side (cfq_boost_turn()), so a seeky
	 * one is left for the next boosted queue at once instead of after
	 * an idle window. B2's launcher under a reader, cfq alone in the
	 * boot, with this rule, cfq_boosted_time() and the 9:2 split (in
	 * rounds of 2 slices; cfq_boost_part() for 3): 6.1
	 * 2102 -> 2041 ms, the reader 28.4 -> 31.9 MB/s; 7.3 2182 -> 2057
	 * ms, 26.4 -> 31.1 MB/s (the split alone makes a start-up about
	 * 1 % longer).
	 */
	if (cfqq->boosted && cfq_group_boosting(cfqq->cfqg) &&
	    cfqq->cfqg->nr_boosted == 1)
		return true;
	if (cfqq->idle_window &&
	    !(cfq_queue_nonrot(cfqd->queue) && cfq_hw_may_queue(cfqd)))
		return true;
	return st->count == 1 && cfqq->sync &&
	       !cfq_ttime_big(&st->ttime, cfqd->cfq_slice_idle);
}

/*
 * group_idle: @cfqq is the last busy queue of its group and other groups
 * wait. Rather than hand the disk to another group as soon as the group's
 * requests are all in flight, wait up to group_idle for the group's next
 * request, from any of its queues: a group whose processes each run dry
 * between requests (slice_idle = 0, or seeky queues that are not idled
 * for one by one) keeps its share that way. Not if the group as a whole
 * thinks longer than group_idle. With a single busy group there is no
 * one to protect it from, so no idling (CFQ idled there too).
 */
static bool cfq_group_idle_ok(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	struct cfq_group *cfqg = cfqq->cfqg;

	return cfqd->cfq_group_idle && cfqg->nr_cfqq == 1 &&
	       cfqd->nr_busy_groups > 1 &&
	       !cfq_ttime_big(&cfqg->ttime, cfqd->cfq_group_idle);
}

/*
 * Wait busy: the active queue is its group's only one, it just ran dry
 * and its slice is (about) over (within its think time, or within a jiffy:
 * the timer cannot wait shorter). Expiring now would take the group off
 * the group tree until the process's next request, and the next group
 * would be picked with this one missing: a group with a single
 * sequential reader would then never be ahead of anyone and weights
 * would mean nothing. So stretch the slice by one idle window: if the
 * next request comes, the queue is expired with it queued and the group
 * is charged while it stays on the tree. Not when the group's think time
 * is longer than the window: it would not come back in time anyway.
 * Measured: tests/cases/cfq-group-weights.sh, one sequential reader per
 * group at weights 100:200, asserts the 2:1 split it gives.
 */
static bool cfq_should_wait_busy(struct cfq_data *cfqd, struct cfq_queue *cfqq,
				 u64 now)
{
	struct cfq_group *cfqg = cfqq->cfqg;
	u64 idle = cfqd->cfq_slice_idle ?: cfqd->cfq_group_idle;

	if (!idle || cfqg->nr_cfqq > 1 || cfqd->nr_busy_groups < 2 ||
	    !RB_EMPTY_ROOT(&cfqq->sort_list) || !cfqq->sync ||
	    cfq_ttime_big(&cfqg->ttime, idle))
		return false;
	if (cfq_slice_used(cfqq, now))
		return true;
	if (cfqq->ttime.ttime_samples > CFQ_TTIME_VALID &&
	    cfqq->slice_end - now < cfqq->ttime.ttime_mean)
		return true;
	return cfqq->slice_end - now <= jiffies_to_nsecs(1);
}

/*
 * The active sync queue has run dry and everything it dispatched has
 * completed: arm the idle timer, unless the process is gone or its think
 * time is longer than what is left of the slice.
 */
static void cfq_arm_slice_timer(struct cfq_data *cfqd, u64 now)
{
	struct cfq_queue *cfqq = cfqd->active_queue;
	enum cfq_wait wait = CFQ_WAIT_QUEUE;
	u64 idle = cfqd->cfq_slice_idle;

	if (cfqd->wait != CFQ_WAIT_NONE)
		return;
	if (!cfq_should_idle(cfqd, cfqq)) {
		/* the group's last completion arms it */
		if (!cfq_group_idle_ok(cfqd, cfqq) || cfqq->cfqg->dispatched)
			return;
		wait = CFQ_WAIT_GROUP;
		idle = cfqd->cfq_group_idle;
	} else if (cfqq->dispatched || cfqq->exited) {
		return;
	} else if (cfqq->ttime.ttime_samples > CFQ_TTIME_VALID &&
		   cfqq->slice_end - now < cfqq->ttime.ttime_mean) {
		cfq_log_cfqq(cfqd, cfqq, "Not idling. think_time:%llu",
			     cfqq->ttime.ttime_mean);
		return;
	}
	cfq_arm_idle_timer(cfqd, wait, idle);
	cfqg_stats_idle_start(cfqd, cfqq->cfqg, now);
	cfq_log_cfqq(cfqd, cfqq, "arm_idle: %llu %s", idle,
		     cfq_wait_name[wait]);
}

enum hrtimer_restart cfq_idle_slice_timer(struct hrtimer *timer)
{
	struct cfq_data *cfqd = container_of(timer, struct cfq_data,
					     idle_slice_timer);
	struct cfq_queue *cfqq = NULL;
	unsigned long flags;

	spin_lock_irqsave(&cfqd->lock, flags);
	if (cfqd->wait == CFQ_WAIT_NONE)
		goto out;
	if (cfq_wait_for_active(cfqd))
		cfqq = cfqd->active_queue;
	WRITE_ONCE(cfqd->wait, CFQ_WAIT_NONE);
	cfqg_stats_idle_end(cfqd, cfq_clock(cfqd));
	if (cfqq) {
		cfq_log_cfqq(cfqd, cfqq, "idle timer fired");
		/* the process did not come back in time: end its turn */
		if (RB_EMPTY_ROOT(&cfqq->sort_list)) {
			cfqq->deep = 0;
			cfq_slice_expired(cfqd, false);
		}
	}
	cfq_schedule_dispatch(cfqd);
out:
	spin_unlock_irqrestore(&cfqd->lock, flags);
	return HRTIMER_NORESTART;
}

/*
 * Selection and dispatch
 */

/*
 * A seeky queue keeps its idle window only as a deep one (it had 4+
 * requests queued, cfq_update_idle_window()). If it runs dry in the first
 * half of its slice, the device serves it faster than it refills: its
 * depth does not last, and idling for it would leave the disk idle between
 * seeks. Drop deep and the window (CFQ 4.20).
 */
static void cfq_check_shallow(struct cfq_queue *cfqq, u64 now)
{
	if (CFQQ_SEEKY(cfqq) && cfqq->idle_window &&
	    (cfqq->slice_new ||
	     cfqq->slice_end - now > now - cfqq->slice_start)) {
		cfqq->deep = 0;
		cfqq->idle_window = 0;
	}
}

/* Keep the active queue, or expire it and activate the next one. */
static struct cfq_queue *cfq_select_queue(struct cfq_data *cfqd, u64 now)
{
	struct cfq_queue *cfqq = cfqd->active_queue, *new_cfqq;

	if (!cfqq)
		return cfq_set_next_queue(cfqd, now);

	if (cfq_slice_used(cfqq, now) && !cfqq->must_dispatch) {
		/*
		 * The slice ran out with the group's last requests in
		 * flight: wait for them, and their completion will wait
		 * busy (as in CFQ 4.20). Expiring now takes the group off
		 * the tree until its process's next request, and the
		 * other group is chosen with it missing. B1d (one direct
		 * reader per group, 100:200, 6.12): each group left the
		 * tree 5-7 times in 4 s, split 1.61; now 2 times, 1.85.
		 */
		if (cfqq->dispatched && cfq_should_wait_busy(cfqd, cfqq, now))
			return NULL;
		goto expire;
	}
	/* the group is backlogged again: charge it while it is on the tree */
	if (cfqq->wait_busy && !RB_EMPTY_ROOT(&cfqq->sort_list))
		goto expire;

	/*
	 * The active queue ran dry or would seek, and another queue's next
	 * request starts where the active queue's last dispatch ended: serve
	 * that one now and merge the two (cfq-coop.c).
	 */
	if (cfqq->slice_dispatch && (RB_EMPTY_ROOT(&cfqq->sort_list) ||
	    blk_rq_pos(cfqq->next_rq) != cfqd->last_position)) {
		new_cfqq = cfq_close_cooperator(cfqd, cfqq, now);
		if (new_cfqq) {
			cfq_log_cfqq(cfqd, cfqq, "close cooperator cfq%d",
				     new_cfqq->pid);
			if (!cfqq->new_cfqq)
				cfq_setup_merge(cfqd, cfqq, new_cfqq);
			cfq_slice_expired(cfqd, false);
			cfq_set_active_queue(cfqd, new_cfqq, now);
			return new_cfqq;
		}
	}
	/*
	 * Its next request is far away: another queue's may be nearer
	 * (cfq-tree.c). A queue taken for where its request is serves that
	 * request, not one its FIFO would force: with several requests per
	 * queue waiting longer than fifo_expire_sync (B4w), every switch
	 * would otherwise be followed by a dispatch of the oldest request,
	 * wherever it lies (measured on 6.12: 2448 runs, mean seek 865177
	 * sectors, against 2668 and 616455 without the head order). Both
	 * rules need another busy queue: alone, a queue skips their calls
	 * (B5 QD1, 6.12: +0.2% IOPS, about the spread between builds).
	 */
	if (cfqq->slice_dispatch && cfqq->next_rq && cfqd->busy_queues > 1) {
		new_cfqq = cfq_nearer_queue(cfqd, cfqq, now);
		if (new_cfqq) {
			cfq_log_cfqq(cfqd, cfqq, "nearer queue cfq%d",
				     new_cfqq->pid);
			cfq_slice_expired(cfqd, false);
			cfq_set_active_queue(cfqd, new_cfqq, now);
			new_cfqq->fifo_expire = 1;
			return new_cfqq;
		}
		if (cfq_seek_ends_turn(cfqd, cfqq, now)) {
			cfq_log_cfqq(cfqd, cfqq, "seek after workload slice");
			goto expire;
		}
	}
	if (!RB_EMPTY_ROOT(&cfqq->sort_list))
		return cfqq;
	if (cfqd->wait != CFQ_WAIT_NONE)
		return NULL;

	cfq_check_shallow(cfqq, now);
	/* wait for the requests in flight: their completion may arm idling */
	if (cfqq->dispatched && cfq_should_idle(cfqd, cfqq))
		return NULL;
	if (cfqq->cfqg->dispatched && cfq_group_idle_ok(cfqd, cfqq))
		return NULL;
expire:
	cfq_slice_expired(cfqd, false);
	return cfq_set_next_queue(cfqd, now);
}

/*
 * Dispatch limits of the active queue (CFQ 4.20's rules):
 *  - a sync queue that idles waits until the async requests in flight
 *    have drained, and async waits while sync requests are in flight:
 *    a write in the drive's cache between two reads of a sequential
 *    reader costs it a seek and a rotation, and writes complete late;
 *  - a queue gets quantum/2 requests in the driver (IDLE class: one).
 *    Why not more: what is in the driver can no longer be reordered or
 *    preempted, so the next queue's first request waits behind all of
 *    it. Beyond that, up to quantum while the slice is young enough for
 *    those requests to complete inside it, and no limit when the queue
 *    is the only busy one, or the only busy sync queue (promote_sync:
 *    nobody but async writers waits for the disk, and they wait anyway);
 *  - with low_latency, async depth ramps up by one per slice_sync since
 *    a sync request last waited longer than fifo_expire_sync, so a burst
 *    of write-back right after a delayed read cannot fill the device.
 * Measured here: B3 (bench/) keeps a sync reader at 122 MB/s with 1-100
 * buffered writers on 6.12, where mq-deadline leaves it 0.5 MB/s; the
 * limits share that with the write-depth limits (cfq_limit_depth()).
 */
static bool cfq_may_dispatch(struct cfq_data *cfqd, struct cfq_queue *cfqq,
			     u64 now)
{
	unsigned int max_dispatch;

	if (cfqq->must_dispatch)
		return true;
	if (cfqd->rq_in_flight[0] && cfq_should_idle(cfqd, cfqq))
		return false;
	if (cfqd->rq_in_flight[1] && !cfqq->sync)
		return false;

	max_dispatch = cfq_class_idle(cfqq) ? 1 :
		       max(cfqd->cfq_quantum / 2, 1U);
	if (cfqq->dispatched >= max_dispatch) {
		bool promote_sync = cfqq->sync && cfqd->busy_sync_queues == 1;

		if (cfq_class_idle(cfqq))
			return false;
		if (cfqd->busy_queues > 1 && !promote_sync &&
		    cfq_slice_used_soon(cfqd, cfqq, now))
			return false;
		if (cfqd->busy_queues == 1 || promote_sync)
			max_dispatch = UINT_MAX;
		else
			max_dispatch = cfqd->cfq_quantum;
	}

	if (!cfqq->sync && cfqd->cfq_latency) {
		u64 depth = div64_u64(now - cfqd->last_delayed_sync,
				      cfqd->cfq_slice[1]);

		if (!depth && !cfqq->dispatched)
			depth = 1;
		if (depth < max_dispatch)
			max_dispatch = depth;
	}
	return cfqq->dispatched < max_dispatch;
}

/* Move @rq from @cfqq to the driver. */
static void cfq_dispatch_insert(struct cfq_data *cfqd, struct cfq_queue *cfqq,
				struct request *rq, u64 now)
{
	bool was_next = cfqq->next_rq == rq;

	cfq_remove_request(cfqd->queue, rq);
	cfqq->dispatched++;
	cfqq->cfqg->dispatched++;
	cfqq->slice_dispatch++;
	cfqq->turn_sectors += blk_rq_sectors(rq);
	cfqg_stats_dispatch(cfqq->cfqg, rq, now);
	cfqq->must_dispatch = 0;
	cfqd->rq_in_flight[cfqq->sync]++;
	cfqd->rq_in_driver++;
	cfqd->last_position = blk_rq_pos(rq) + blk_rq_sectors(rq);
	if (cfqq->boosted) {
		cfqq->boost_left -= min_t(sector_t, cfqq->boost_left,
					  blk_rq_sectors(rq));
		cfq_boost_update(cfqd, cfqq, now);
	}
	/*
	 * A FIFO dispatch moved the head away from the cached next request:
	 * the sweep goes on from the new head, not back to the old one.
	 */
	if (!was_next && cfqd->cfq_sliding_window)
		cfq_update_next_rq(cfqd, cfqq, NULL);
	if (cfq_class_idle(cfqq))
		cfqd->idle_class_served = now;
	rq->rq_flags |= RQF_STARTED;
	cfq_log_cfqq(cfqd, cfqq, "dispatch %llu+%u",
		     (unsigned long long)blk_rq_pos(rq), blk_rq_sectors(rq));
}

static struct request *cfq_dispatch_one(struct cfq_data *cfqd)
{
	u64 now = cfq_clock(cfqd);
	struct cfq_queue *cfqq;
	struct request *rq;

	if (!cfqd->busy_queues)
		return NULL;
	cfqq = cfq_select_queue(cfqd, now);
	if (!cfqq)
		return NULL;

	rq = cfq_check_fifo(cfqq, now);
	if (rq) {
		cfq_log_cfqq(cfqd, cfqq, "fifo=%llu",
			     (unsigned long long)blk_rq_pos(rq));
		cfqq->must_dispatch = 1;
	}
	if (!cfq_may_dispatch(cfqd, cfqq, now))
		return NULL;
	if (!rq)
		rq = cfqq->next_rq;
	cfq_dispatch_insert(cfqd, cfqq, rq, now);

	/*
	 * Async queues get a request budget instead of a time slice, and an
	 * IDLE queue gives the disk back after each request, when others
	 * are waiting.
	 */
	if (cfqd->busy_queues > 1 &&
	    ((!cfqq->sync && cfqq->slice_dispatch >=
	      cfq_prio_to_maxrq(cfqd->cfq_slice_async_rq, cfqq->ioprio)) ||
	     cfq_class_idle(cfqq)))
		cfq_slice_expired(cfqd, false);
	return rq;
}

struct request *cfq_dispatch_request(struct blk_mq_hw_ctx *hctx)
{
	struct cfq_data *cfqd = hctx->queue->elevator->elevator_data;
	struct request *rq;

	spin_lock_irq(&cfqd->lock);
	rq = list_first_entry_or_null(&cfqd->dispatch, struct request,
				      queuelist);
	if (rq)
		list_del_init(&rq->queuelist);
	else
		rq = cfq_dispatch_one(cfqd);
	/* whoever lifts the reason for holding back must re-run the queue */
	cfqd->declined = !rq && cfqd->rq_queued;
	spin_unlock_irq(&cfqd->lock);
	return rq;
}

bool cfq_has_work(struct blk_mq_hw_ctx *hctx)
{
	struct cfq_data *cfqd = hctx->queue->elevator->elevator_data;

	if (!list_empty_careful(&cfqd->dispatch))
		return true;
	/* while idling, the timer or a new request restarts dispatch */
	return READ_ONCE(cfqd->rq_queued) &&
	       READ_ONCE(cfqd->wait) == CFQ_WAIT_NONE;
}

/*
 * Completion
 */

/*
 * Does the device queue internally (NCQ)? It decides whether per-queue
 * idling is worth it on a non-rotational device and whether groups are
 * charged by time or by requests (IOPS mode). Learnt from the depth the
 * driver takes: a sample counts only while more than CFQ_HW_QUEUE_MIN (5)
 * requests were queued or in the driver, so a light load says nothing, and
 * not while an idling queue keeps the depth low itself. After
 * CFQ_HW_TAG_SAMPLES (50) such samples the device queues if it ever held
 * 5 at once. Both numbers are CFQ's: 5 is above what a single process
 * with read-ahead keeps in flight, 50 completions take well under a second
 * on any disk. Until then the device counts as queueing (CFQ_HW_UNKNOWN);
 * once proven, it stays so.
 */
static void cfq_update_hw_tag(struct cfq_data *cfqd)
{
	struct cfq_queue *cfqq = cfqd->active_queue;

	cfqd->hw_tag_est_depth = max(cfqd->hw_tag_est_depth,
				     cfqd->rq_in_driver);
	if (cfqd->hw_tag == CFQ_HW_QUEUEING)
		return;
	if (cfqd->rq_queued <= CFQ_HW_QUEUE_MIN &&
	    cfqd->rq_in_driver <= CFQ_HW_QUEUE_MIN)
		return;
	/* cfq itself keeps the depth low while an idling queue is served */
	if (cfqq && cfqq->idle_window &&
	    cfqq->dispatched + cfqq->queued[0] + cfqq->queued[1] <
	    CFQ_HW_QUEUE_MIN && cfqd->rq_in_driver < CFQ_HW_QUEUE_MIN)
		return;
	if (cfqd->hw_tag_samples++ < CFQ_HW_TAG_SAMPLES)
		return;
	cfqd->hw_tag = cfqd->hw_tag_est_depth >= CFQ_HW_QUEUE_MIN ?
		       CFQ_HW_QUEUEING : CFQ_HW_NO_QUEUEING;
}

void cfq_completed_request(struct cfq_data *cfqd, struct cfq_queue *cfqq,
			   struct request *rq)
{
	bool sync = cfqq->sync;
	u64 now = cfq_clock(cfqd);

	cfq_update_hw_tag(cfqd);
	cfqd->rq_in_driver--;
	cfqq->dispatched--;
	cfqq->cfqg->dispatched--;
	cfqq->cfqg->ttime.last_end_request = now;
	cfqd->rq_in_flight[sync]--;
	if (!cfq_class_idle(cfqq))
		cfqd->last_nonidle = now;

	if (sync) {
		cfqq->ttime.last_end_request = now;
		if (cfqq->service_tree)
			cfqq->service_tree->ttime.last_end_request = now;
		/* a sync request waited long: async must slow down */
		if (rq->start_time_ns + cfqd->cfq_fifo_expire[1] <= now)
			cfqd->last_delayed_sync = now;
	}

	if (cfqq == cfqd->active_queue) {
		if (cfqq->slice_new)
			cfq_set_prio_slice(cfqd, cfqq, now);
		/* its first test, here: it fails at every lone completion */
		if (cfqd->nr_busy_groups > 1 &&
		    cfq_should_wait_busy(cfqd, cfqq, now)) {
			cfqq->slice_end = now + (cfqd->cfq_slice_idle ?:
						 cfqd->cfq_group_idle);
			cfqq->wait_busy = 1;
			cfq_log_cfqq(cfqd, cfqq, "will busy wait");
		}
		if (cfq_slice_used(cfqq, now) || cfq_class_idle(cfqq))
			cfq_slice_expired(cfqd, true);
		else if (sync && RB_EMPTY_ROOT(&cfqq->sort_list) &&
			 !cfq_close_cooperator(cfqd, cfqq, now))
			cfq_arm_slice_timer(cfqd, now);
	} else if (cfqd->active_queue &&
		   cfqd->active_queue->cfqg == cfqq->cfqg &&
		   RB_EMPTY_ROOT(&cfqd->active_queue->sort_list) &&
		   !cfq_should_idle(cfqd, cfqd->active_queue)) {
		/* the group's last request in flight may arm group idling */
		cfq_arm_slice_timer(cfqd, now);
	}

	if (cfqd->declined || !cfqd->rq_in_driver) {
		cfqd->declined = false;
		cfq_schedule_dispatch(cfqd);
	}
}
