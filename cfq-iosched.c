// SPDX-License-Identifier: GPL-2.0
/*
 * CFQ, the Completely Fair Queueing I/O scheduler, for blk-mq.
 *
 * Every process gets its own sync queue (cfqq) per device; async (buffered
 * write-back) requests go to queues shared per ioprio class and level. The
 * disk is handed out in time slices: the active queue dispatches alone,
 * in sector order, until its slice ends or it runs dry. When a sync queue
 * runs dry, cfq idles a few ms (slice_idle) for the process's next request
 * instead of seeking away: for a sequential reader that next request is
 * close, and waiting for it beats a seek to another process's data.
 *
 * Which queue gets the next slice is a three-step choice:
 *  - the class: RT before BE before IDLE, strictly (IDLE only after the
 *    device was quiet for a grace period, and at least once a second);
 *  - the workload type inside the class: sync queues that idle (sequential
 *    readers), sync queues that do not (seeky ones: the tree as a whole
 *    idles once after its last queue), and async queues. Each type gets a
 *    workload slice proportional to its share of busy queues;
 *  - the queue: the one with the smallest key on the (class, type) service
 *    tree, a virtual time that makes queues take turns, lower ioprio levels
 *    coming round less often.
 * A slice is 100 ms for sync (40 ms async), scaled by the ioprio level and,
 * with low_latency, shrunk so every busy queue gets a turn within
 * target_latency. Async queues are limited by request count instead.
 *
 * Inside a queue requests are kept sorted by sector. By default the next
 * one is chosen by a global sliding window (sliding_window=1): the first
 * request at or after the disk head minus a small backward allowance,
 * wrapping around to the lowest, so dispatch sweeps the disk upwards even
 * across queue switches. A per-queue FIFO bounds the wait of any request
 * (fifo_expire_sync/async).
 *
 * Requests enter through insert_requests(), leave through
 * dispatch_request() and come back at finish_request(); the idle timer and
 * completions re-run the hardware queues whenever cfq held back work.
 */
#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/hrtimer.h>
#include <linux/init.h>
#include <linux/ioprio.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include <trace/events/block.h>

#include "elevator.h"
#include "blk.h"
#include "blk-mq.h"
#include "blk-mq-sched.h"
#include "cfq.h"
#include "cfq-compat.h"

static struct kmem_cache *cfq_pool;

static inline struct cfq_io_cq *icq_to_cic(struct io_cq *icq)
{
	return container_of(icq, struct cfq_io_cq, icq);
}

/*
 * Re-run the hardware queues from kblockd: safe under the lock, in irq.
 * Not blk_mq_run_hw_queues(): on 6.12 it takes q->queue_lock when it
 * finds nothing to run, and the block layer nests q->queue_lock ->
 * ioc->lock -> cfqd->lock (ioc_find_get_icq(), ioc_clear_queue() ->
 * cfq_exit_icq()), so cfqd->lock -> q->queue_lock would close a circle
 * (lockdep reports it).
 */
static void cfq_schedule_dispatch(struct cfq_data *cfqd)
{
	if (cfqd->rq_queued || !list_empty(&cfqd->dispatch)) {
		cfq_log(cfqd, "schedule dispatch");
		blk_mq_delay_run_hw_queues(cfqd->queue, 0);
	}
}

/*
 * Idle timer. cfqd->idling mirrors the logical state: it is cleared when a
 * wait is cancelled even if the callback could not be stopped, so a late
 * callback does nothing, and has_work() reports no work while cfq waits.
 */
static void cfq_arm_idle_timer(struct cfq_data *cfqd, u64 ns)
{
	WRITE_ONCE(cfqd->idling, true);
	hrtimer_start(&cfqd->idle_slice_timer, ns_to_ktime(ns),
		      HRTIMER_MODE_REL);
}

static void cfq_cancel_idle_timer(struct cfq_data *cfqd)
{
	if (!cfqd->idling)
		return;
	WRITE_ONCE(cfqd->idling, false);
	hrtimer_try_to_cancel(&cfqd->idle_slice_timer);
	cfqg_stats_idle_end(cfqd, ktime_get_ns());
}

/*
 * Slices
 */
static u64 cfq_scaled_cfqq_slice(struct cfq_data *cfqd, struct cfq_queue *cfqq)
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
 * A slice starts at the first completion of the queue, not when it is
 * activated: the seek to the queue's data is not charged to its slice.
 */
static void cfq_set_prio_slice(struct cfq_data *cfqd, struct cfq_queue *cfqq,
			       u64 now)
{
	u64 slice = cfq_scaled_cfqq_slice(cfqd, cfqq);

	cfqq->slice_start = now;
	cfqq->slice_end = now + slice;
	cfqq->allocated_slice = slice;
	cfqq->slice_new = 0;
	cfq_log_cfqq(cfqd, cfqq, "set_slice=%llu", slice);
}

static bool cfq_slice_used(struct cfq_queue *cfqq, u64 now)
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
 * Service trees
 */
static void cfq_service_tree_add(struct cfq_data *cfqd, struct cfq_queue *cfqq,
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

static void cfq_add_cfqq_rr(struct cfq_data *cfqd, struct cfq_queue *cfqq)
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

static void cfq_del_cfqq_rr(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	cfq_log_cfqq(cfqd, cfqq, "del_from_rr");
	cfqq->on_rr = 0;
	if (!RB_EMPTY_NODE(&cfqq->rb_node)) {
		cfq_st_erase(cfqq);
		cfq_group_notify_queue_del(cfqd, cfqq->cfqg);
	}
	cfqd->busy_queues--;
	if (cfqq->sync)
		cfqd->busy_sync_queues--;
}

/*
 * Requests inside a queue
 */

/* The request to serve after @last was removed from @cfqq. */
static struct request *cfq_find_next_rq(struct cfq_data *cfqd,
					struct cfq_queue *cfqq,
					struct request *last)
{
	struct rb_node *prev, *next;

	if (cfqd->cfq_sliding_window)
		return cfq_window_next(&cfqq->sort_list, last);

	prev = rb_prev(&last->rb_node);
	next = rb_next(&last->rb_node);
	if (!next)
		next = rb_first(&cfqq->sort_list);
	if (next == &last->rb_node)
		next = NULL;
	return cfq_choose_req(prev ? rb_entry_rq(prev) : NULL,
			      next ? rb_entry_rq(next) : NULL,
			      blk_rq_pos(last), (sector_t)cfqd->cfq_back_max * 2,
			      cfqd->cfq_back_penalty);
}

/* Where the head will be for @cfqq's next request: recompute next_rq. */
static void cfq_update_next_rq(struct cfq_data *cfqd, struct cfq_queue *cfqq,
			       struct request *rq)
{
	if (cfqd->cfq_sliding_window)
		cfqq->next_rq = cfq_window_pick(&cfqq->sort_list,
				cfq_window_start(cfqd->last_position,
						 cfqd->cfq_back_max));
	else
		cfqq->next_rq = cfq_choose_req(cfqq->next_rq, rq,
					       cfqd->last_position,
					       (sector_t)cfqd->cfq_back_max * 2,
					       cfqd->cfq_back_penalty);
}

static void cfq_add_rq_rb(struct cfq_data *cfqd, struct request *rq)
{
	struct cfq_queue *cfqq = RQ_CFQQ(rq);

	elv_rb_add(&cfqq->sort_list, rq);
	cfqq->queued[rq_is_sync(rq)]++;
	WRITE_ONCE(cfqd->rq_queued, cfqd->rq_queued + 1);
	if (!cfqq->on_rr)
		cfq_add_cfqq_rr(cfqd, cfqq);
	cfq_update_next_rq(cfqd, cfqq, rq);
}

static void cfq_del_rq_rb(struct cfq_data *cfqd, struct request *rq)
{
	struct cfq_queue *cfqq = RQ_CFQQ(rq);

	if (cfqq->next_rq == rq)
		cfqq->next_rq = cfq_find_next_rq(cfqd, cfqq, rq);
	elv_rb_del(&cfqq->sort_list, rq);
	cfqq->queued[rq_is_sync(rq)]--;
	WRITE_ONCE(cfqd->rq_queued, cfqd->rq_queued - 1);

	/* the active queue stays busy until it expires */
	if (cfqq->on_rr && RB_EMPTY_ROOT(&cfqq->sort_list) &&
	    cfqq != cfqd->active_queue)
		cfq_del_cfqq_rr(cfqd, cfqq);
}

static void cfq_remove_request(struct request_queue *q, struct request *rq)
{
	struct cfq_data *cfqd = q->elevator->elevator_data;
	struct cfq_queue *cfqq = RQ_CFQQ(rq);

	list_del_init(&rq->queuelist);
	cfq_del_rq_rb(cfqd, rq);
	elv_rqhash_del(q, rq);
	if (q->last_merge == rq)
		q->last_merge = NULL;
	if (rq->cmd_flags & REQ_PRIO)
		cfqq->prio_pending--;
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
	cfqq->dispatch_start = now;
	cfqq->slice_start = 0;
	cfqq->slice_end = 0;
	cfqq->allocated_slice = 0;
	cfqq->slice_dispatch = 0;
	cfqq->wait_request = 0;
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
static void cfq_slice_expired(struct cfq_data *cfqd, bool timed_out)
{
	struct cfq_queue *cfqq = cfqd->active_queue;
	u64 now = ktime_get_ns();

	if (!cfqq)
		return;
	cfq_log_cfqq(cfqd, cfqq, "slice expired t=%d", timed_out);
	cfq_cancel_idle_timer(cfqd);
	cfqq->wait_request = 0;

	if (timed_out) {
		if (cfqq->slice_new)
			cfqq->slice_resid = cfq_scaled_cfqq_slice(cfqd, cfqq);
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
 * Class and workload choice
 */

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
 * IDLE-class grace: serve IDLE only once the other classes have been quiet
 * for CFQ_IDLE_GRACE; until then wait on the idle timer. Returns true if
 * cfq must wait.
 */
static bool cfq_idle_class_wait(struct cfq_data *cfqd, u64 now)
{
	u64 quiet_at = cfqd->last_nonidle + CFQ_IDLE_GRACE;

	if (now - cfqd->idle_class_served > CFQ_IDLE_STARVE || now >= quiet_at)
		return false;
	if (!cfqd->idling) {
		cfq_log(cfqd, "idle class grace %llu", quiet_at - now);
		cfq_arm_idle_timer(cfqd, quiet_at - now);
	}
	return true;
}

/* Pick the next queue to serve and make it active. */
static struct cfq_queue *cfq_set_next_queue(struct cfq_data *cfqd, u64 now)
{
	struct cfq_group *cfqg = cfq_get_next_cfqg(cfqd);
	struct cfq_queue *cfqq;

	if (!cfqg)
		return NULL;
	cfq_group_restore_workload(cfqd, cfqg, now);
	cfq_choose_wl(cfqd, cfqg, now);
	if (cfqd->serving_wl_class == IDLE_WORKLOAD &&
	    cfq_idle_class_wait(cfqd, now))
		return NULL;
	cfqq = cfq_st_first(cfq_st_for(cfqg, cfqd->serving_wl_class,
				       cfqd->serving_wl_type));
	if (cfqq)
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
static bool cfq_should_idle(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	struct cfq_rb_root *st = cfqq->service_tree;

	if (!cfqd->cfq_slice_idle || cfq_class_idle(cfqq) || !st)
		return false;
	if (cfqq->idle_window &&
	    !(blk_queue_nonrot(cfqd->queue) && cfqd->hw_tag))
		return true;
	return st->count == 1 && cfqq->sync &&
	       !cfq_ttime_big(&st->ttime, cfqd->cfq_slice_idle);
}

/*
 * The active sync queue has run dry and everything it dispatched has
 * completed: arm the idle timer, unless the process is gone or its think
 * time is longer than what is left of the slice.
 */
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

static void cfq_arm_slice_timer(struct cfq_data *cfqd, u64 now)
{
	struct cfq_queue *cfqq = cfqd->active_queue;
	u64 idle = cfqd->cfq_slice_idle;

	if (cfqd->idling)
		return;
	if (!cfq_should_idle(cfqd, cfqq)) {
		/* the group's last completion arms it */
		if (!cfq_group_idle_ok(cfqd, cfqq) || cfqq->cfqg->dispatched)
			return;
		idle = cfqd->cfq_group_idle;
	} else if (cfqq->dispatched || cfqq->exited) {
		return;
	} else if (cfqq->ttime.ttime_samples > CFQ_TTIME_VALID &&
		   cfqq->slice_end - now < cfqq->ttime.ttime_mean) {
		cfq_log_cfqq(cfqd, cfqq, "Not idling. think_time:%llu",
			     cfqq->ttime.ttime_mean);
		return;
	}
	cfqq->wait_request = 1;
	cfq_arm_idle_timer(cfqd, idle);
	cfqg_stats_idle_start(cfqd, cfqq->cfqg, now);
	cfq_log_cfqq(cfqd, cfqq, "arm_idle: %llu group=%d", idle,
		     idle != cfqd->cfq_slice_idle);
}

static enum hrtimer_restart cfq_idle_slice_timer(struct hrtimer *timer)
{
	struct cfq_data *cfqd = container_of(timer, struct cfq_data,
					     idle_slice_timer);
	struct cfq_queue *cfqq;
	unsigned long flags;

	spin_lock_irqsave(&cfqd->lock, flags);
	if (!cfqd->idling)
		goto out;
	WRITE_ONCE(cfqd->idling, false);
	cfqg_stats_idle_end(cfqd, ktime_get_ns());
	cfqq = cfqd->active_queue;
	if (cfqq && cfqq->wait_request) {
		cfq_log_cfqq(cfqd, cfqq, "idle timer fired");
		cfqq->wait_request = 0;
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

/* Keep the active queue, or expire it and activate the next one. */
static struct cfq_queue *cfq_select_queue(struct cfq_data *cfqd, u64 now)
{
	struct cfq_queue *cfqq = cfqd->active_queue;

	if (!cfqq)
		return cfq_set_next_queue(cfqd, now);

	if (cfq_slice_used(cfqq, now) && !cfqq->must_dispatch)
		goto expire;
	/* the group is backlogged again: charge it while it is on the tree */
	if (cfqq->wait_busy && !RB_EMPTY_ROOT(&cfqq->sort_list))
		goto expire;
	if (!RB_EMPTY_ROOT(&cfqq->sort_list))
		return cfqq;
	if (cfqd->idling)
		return NULL;

	/*
	 * A seeky queue that keeps its idle window wastes the disk: drop the
	 * window if the queue had the time to prove it seeks.
	 */
	if (CFQQ_SEEKY(cfqq) && cfqq->idle_window &&
	    (cfqq->slice_new ||
	     cfqq->slice_end - now > now - cfqq->slice_start)) {
		cfqq->deep = 0;
		cfqq->idle_window = 0;
	}
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
 * Dispatch limits of the active queue: async I/O must drain before a sync
 * queue that idles starts, async waits while sync requests are in flight,
 * and a queue gets quantum/2 requests in the driver (quantum early in its
 * slice, unlimited when it is alone). With low_latency, async depth grows
 * by one per slice_sync since the last sync request that was delayed.
 */
static bool cfq_may_dispatch(struct cfq_data *cfqd, struct cfq_queue *cfqq,
			     u64 now)
{
	unsigned int max_dispatch;

	if (cfqq->must_dispatch)
		return true;
	if (cfq_should_idle(cfqd, cfqq) && cfqd->rq_in_flight[0])
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
	cfqg_stats_dispatch(cfqq->cfqg, rq, now);
	cfqq->must_dispatch = 0;
	cfqd->rq_in_flight[cfqq->sync]++;
	cfqd->rq_in_driver++;
	cfqd->last_position = blk_rq_pos(rq) + blk_rq_sectors(rq);
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
	u64 now = ktime_get_ns();
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

static struct request *cfq_dispatch_request(struct blk_mq_hw_ctx *hctx)
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

static bool cfq_has_work(struct blk_mq_hw_ctx *hctx)
{
	struct cfq_data *cfqd = hctx->queue->elevator->elevator_data;

	if (!list_empty_careful(&cfqd->dispatch))
		return true;
	/* while idling, the timer or a new request restarts dispatch */
	return READ_ONCE(cfqd->rq_queued) && !READ_ONCE(cfqd->idling);
}

/*
 * Queue allocation and lifetime
 */

/*
 * ioprio of a request: the io_context's (ioprio_set/ionice), else the
 * request's own (which the block layer derives from the task's nice
 * value), else BE at the default level.
 */
static int cfq_rq_ioprio(struct cfq_io_cq *cic, struct request *rq)
{
	int ioprio = cic ? cic->icq.ioc->ioprio : 0;

	if (IOPRIO_PRIO_CLASS(ioprio) == IOPRIO_CLASS_NONE)
		ioprio = req_get_ioprio(rq);
	switch (IOPRIO_PRIO_CLASS(ioprio)) {
	case IOPRIO_CLASS_RT:
	case IOPRIO_CLASS_BE:
		return IOPRIO_PRIO_VALUE(IOPRIO_PRIO_CLASS(ioprio),
					 IOPRIO_PRIO_LEVEL(ioprio));
	case IOPRIO_CLASS_IDLE:
		return IOPRIO_PRIO_VALUE(IOPRIO_CLASS_IDLE,
					 IOPRIO_NR_LEVELS - 1);
	default:
		return IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, IOPRIO_NORM);
	}
}

static void cfq_init_prio_data(struct cfq_queue *cfqq, struct cfq_io_cq *cic,
			       struct request *rq)
{
	int ioprio = cfq_rq_ioprio(cic, rq);

	cfqq->prio_changed = 0;
	cfqq->ioprio_class = IOPRIO_PRIO_CLASS(ioprio);
	cfqq->ioprio = IOPRIO_PRIO_LEVEL(ioprio);
	if (cfq_class_idle(cfqq))
		cfqq->idle_window = 0;
}

static void cfq_init_cfqq(struct cfq_data *cfqd, struct cfq_queue *cfqq,
			  struct cfq_group *cfqg, pid_t pid, bool sync)
{
	RB_CLEAR_NODE(&cfqq->rb_node);
	INIT_LIST_HEAD(&cfqq->fifo);
	cfqq->sort_list = RB_ROOT;
	cfqq->ref = 0;
	cfqq->cfqd = cfqd;
	/* a queue pins its group until it is freed (see cfq-group.c) */
	cfqq->cfqg = cfqg;
	cfqg_get(cfqg);
	cfqq->pid = pid;
	cfqq->sync = sync;
	/* a new sync queue is presumed sequential until it proves seeky */
	cfqq->idle_window = sync;
	cfqq->prio_changed = 1;
	cfqq->slice_new = 1;
}

/*
 * The queue for a request of @cic: a new sync queue per process, or the
 * shared async queue of its (class, level). Allocation must not sleep
 * under the lock; on failure the request goes to the oom queue.
 */
static struct cfq_queue *cfq_get_queue(struct cfq_data *cfqd,
				       struct cfq_group *cfqg,
				       struct cfq_io_cq *cic,
				       struct request *rq, bool sync)
{
	struct cfq_queue **slot = NULL, *cfqq;

	if (!sync) {
		int ioprio = cfq_rq_ioprio(cic, rq);

		slot = cfq_async_queue_slot(cfqg,
					    IOPRIO_PRIO_CLASS(ioprio),
					    IOPRIO_PRIO_LEVEL(ioprio));
		if (*slot)
			goto out;
	}

	cfqq = kmem_cache_alloc_node(cfq_pool, GFP_NOWAIT | __GFP_ZERO,
				     cfqd->queue->node);
	if (!cfqq) {
		cfqq = &cfqd->oom_cfqq;
		cfqq->ref++;
		return cfqq;
	}
	cfq_init_cfqq(cfqd, cfqq, cfqg, task_pid_nr(current), sync);
	cfq_init_prio_data(cfqq, cic, rq);
	cfq_log_cfqq(cfqd, cfqq, "alloced");
	if (!slot)
		goto got;
	cfqq->ref++;		/* the group's pin of the shared queue */
	*slot = cfqq;
out:
	cfqq = *slot;
got:
	cfqq->ref++;
	return cfqq;
}

void cfq_put_queue(struct cfq_queue *cfqq)
{
	struct cfq_data *cfqd = cfqq->cfqd;
	struct cfq_group *cfqg;

	if (--cfqq->ref)
		return;
	cfq_log_cfqq(cfqd, cfqq, "put_queue");
	WARN_ON_ONCE(cfqq == &cfqd->oom_cfqq);
	if (cfqd->active_queue == cfqq) {
		cfq_slice_expired(cfqd, false);
		cfq_schedule_dispatch(cfqd);
	}
	WARN_ON_ONCE(cfqq->on_rr || !RB_EMPTY_ROOT(&cfqq->sort_list));
	cfqg = cfqq->cfqg;
	kmem_cache_free(cfq_pool, cfqq);
	cfqg_put(cfqg);
}

/* The owner of @cfqq is gone: stop waiting for it, drop its reference. */
static void cfq_exit_cfqq(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	if (cfqq->sync) {
		cfqq->exited = 1;
		cfqq->idle_window = 0;
		if (cfqd->active_queue == cfqq && cfqq->wait_request) {
			cfq_slice_expired(cfqd, false);
			cfq_schedule_dispatch(cfqd);
		}
	}
	cfq_put_queue(cfqq);
}

static void cfq_exit_icq(struct io_cq *icq)
{
	struct cfq_io_cq *cic = icq_to_cic(icq);
	struct cfq_data *cfqd = icq->q->elevator->elevator_data;
	unsigned long flags;
	int i;

	spin_lock_irqsave(&cfqd->lock, flags);
	for (i = 0; i < 2; i++) {
		if (cic->cfqq[i]) {
			cfq_exit_cfqq(cfqd, cic->cfqq[i]);
			cic->cfqq[i] = NULL;
		}
	}
	spin_unlock_irqrestore(&cfqd->lock, flags);
}

/*
 * ioprio_set() changed the process's priority: the async queue is looked
 * up again for the new (class, level), the sync queue recomputes its own.
 */
static void cfq_check_ioprio_changed(struct cfq_io_cq *cic)
{
	int ioprio = cic->icq.ioc->ioprio;

	if (likely(cic->ioprio == ioprio))
		return;
	cic->ioprio = ioprio;
	if (cic->cfqq[0]) {
		cfq_put_queue(cic->cfqq[0]);
		cic->cfqq[0] = NULL;
	}
	if (cic->cfqq[1])
		cic->cfqq[1]->prio_changed = 1;
}

/*
 * Attach @rq to its queue, at insert or merge time (after prepare_request
 * a request may still lose its icq). Each request holds a queue reference.
 */
static struct cfq_queue *cfq_init_rq(struct cfq_data *cfqd, struct request *rq)
{
	struct cfq_io_cq *cic = NULL;
	bool sync = rq_is_sync(rq);
	struct cfq_group *cfqg;
	struct cfq_queue *cfqq;

	if (RQ_CFQQ(rq))
		return RQ_CFQQ(rq);
	if (cfq_rq_prepared(rq) && rq->elv.icq)
		cic = icq_to_cic(rq->elv.icq);

	if (!cic) {
		cfqq = &cfqd->oom_cfqq;
	} else {
		cfqg = cfq_rq_group(cfqd, rq);
		cfq_check_ioprio_changed(cic);
		cfqq = cic->cfqq[sync];
		/*
		 * The process moved to another cgroup (checked per request,
		 * as CFQ did), or its async request is written back for
		 * another cgroup: the old queue drains where it is, new
		 * requests go to a queue of the request's group.
		 */
		if (cfqq && cfqq != &cfqd->oom_cfqq && cfqq->cfqg != cfqg) {
			cic->cfqq[sync] = NULL;
			if (sync)
				cfq_exit_cfqq(cfqd, cfqq);
			else
				cfq_put_queue(cfqq);
			cfqq = NULL;
		}
		/* retry the allocation a failure left us without */
		if (!cfqq || cfqq == &cfqd->oom_cfqq) {
			if (cfqq)
				cfq_put_queue(cfqq);
			cfqq = cfq_get_queue(cfqd, cfqg, cic, rq, sync);
			cic->cfqq[sync] = cfqq;
		}
	}
	cfqq->ref++;
	rq->elv.priv[0] = cfqq;
	return cfqq;
}

/*
 * Enqueue heuristics
 */

/*
 * Seekiness: a shift register of the last 32 requests, a bit set for a
 * seek of more than CFQQ_SEEK_THR from the previous request (on
 * non-rotational devices: for a small request, since those are what make
 * them slow).
 */
static void cfq_update_io_seektime(struct cfq_data *cfqd,
				   struct cfq_queue *cfqq, struct request *rq)
{
	sector_t pos = blk_rq_pos(rq), last = cfqq->last_request_pos;
	sector_t sdist = 0;

	if (last)
		sdist = pos > last ? pos - last : last - pos;
	cfqq->seek_history <<= 1;
	if (blk_queue_nonrot(cfqd->queue))
		cfqq->seek_history |= blk_rq_sectors(rq) < CFQQ_SECT_THR_NONROT;
	else
		cfqq->seek_history |= sdist > CFQQ_SEEK_THR;
}

/* A sync write the submitter did not mark REQ_IDLE: nothing follows. */
static bool cfq_req_noidle(struct request *rq)
{
	return rq_data_dir(rq) == WRITE &&
	       (rq->cmd_flags & (REQ_SYNC | REQ_IDLE)) == REQ_SYNC;
}

/*
 * Idle window: idle for a process whose think time is short and which
 * does not seek (or keeps several requests queued, a sign of a process
 * that gains from being served in one go); never for an exited process.
 */
static void cfq_update_idle_window(struct cfq_data *cfqd,
				   struct cfq_queue *cfqq)
{
	unsigned int old = cfqq->idle_window, enable = old;

	if (!cfqq->sync || cfq_class_idle(cfqq))
		return;
	if (cfqq->queued[0] + cfqq->queued[1] >= 4)
		cfqq->deep = 1;

	if (cfqq->next_rq && cfq_req_noidle(cfqq->next_rq))
		enable = 0;
	else if (cfqq->exited || !cfqd->cfq_slice_idle ||
		 (!cfqq->deep && CFQQ_SEEKY(cfqq)))
		enable = 0;
	else if (cfqq->ttime.ttime_samples > CFQ_TTIME_VALID)
		enable = cfqq->ttime.ttime_mean <= cfqd->cfq_slice_idle;

	if (old != enable) {
		cfq_log_cfqq(cfqd, cfqq, "idle=%u", enable);
		cfqq->idle_window = enable;
	}
}

/*
 * Should @new's request @rq take the disk from the active queue now?
 */
static bool cfq_should_preempt(struct cfq_data *cfqd, struct cfq_queue *new,
			       struct request *rq, u64 now)
{
	struct cfq_queue *cfqq = cfqd->active_queue;

	if (!cfqq || cfq_class_idle(new))
		return false;
	if (cfq_class_idle(cfqq))
		return true;
	/* RT is never preempted by a lower class */
	if (cfq_class_rt(cfqq) && !cfq_class_rt(new))
		return false;
	/* sync over async */
	if (rq_is_sync(rq) && !cfqq->sync && !cfqq->must_dispatch)
		return true;
	/*
	 * Beyond this, only the active queue's own group or an ancestor of
	 * it may preempt: another group taking the disk would get more than
	 * its share.
	 */
	if (!cfq_group_is_ancestor(new->cfqg, cfqq->cfqg))
		return false;
	if (cfq_slice_used(cfqq, now))
		return true;
	if (cfq_class_rt(new) && !cfq_class_rt(cfqq))
		return true;
	/* both seeky sync queues of the tree being served: no reason to wait */
	if (cfqq_type(new) == SYNC_NOIDLE_WORKLOAD &&
	    cfqq_type(cfqq) == SYNC_NOIDLE_WORKLOAD &&
	    new->service_tree && new->service_tree->count == 2 &&
	    RB_EMPTY_ROOT(&cfqq->sort_list))
		return true;
	/* metadata first, if the active queue has none pending */
	if ((rq->cmd_flags & REQ_PRIO) && !cfqq->prio_pending)
		return true;
	if (RB_EMPTY_ROOT(&cfqq->sort_list) && !cfq_should_idle(cfqd, cfqq))
		return true;
	if (!cfqq->wait_request)
		return false;
	/* idling, and this request is close to the head: take it */
	if (blk_rq_pos(rq) >= cfqd->last_position)
		return blk_rq_pos(rq) - cfqd->last_position <= CFQQ_CLOSE_THR;
	return cfqd->last_position - blk_rq_pos(rq) <= CFQQ_CLOSE_THR;
}

static void cfq_preempt_queue(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	enum wl_type_t old_type = cfqq_type(cfqd->active_queue);

	cfq_log_cfqq(cfqd, cfqq, "preempt");
	cfq_slice_expired(cfqd, true);
	/* a different workload type must not resume the interrupted one */
	if (old_type != cfqq_type(cfqq))
		cfqq->cfqg->saved_wl_slice = 0;
	cfq_service_tree_add(cfqd, cfqq, true);
	cfqq->slice_end = 0;
	cfqq->slice_new = 1;
}

static void cfq_rq_enqueued(struct cfq_data *cfqd, struct cfq_queue *cfqq,
			    struct request *rq, u64 now)
{
	if (rq->cmd_flags & REQ_PRIO)
		cfqq->prio_pending++;
	if (cfqq->sync) {
		cfq_ttime_update(&cfqq->ttime, now, cfqd->cfq_slice_idle);
		if (cfqq->service_tree)
			cfq_ttime_update(&cfqq->service_tree->ttime, now,
					 cfqd->cfq_slice_idle);
	}
	cfq_ttime_update(&cfqq->cfqg->ttime, now, cfqd->cfq_group_idle);
	cfq_update_io_seektime(cfqd, cfqq, rq);
	cfq_update_idle_window(cfqd, cfqq);
	cfqq->last_request_pos = blk_rq_pos(rq) + blk_rq_sectors(rq);

	if (cfqq == cfqd->active_queue) {
		/*
		 * The awaited request is here. Bios were already merged in
		 * the plug, so holding it back for more merging gains
		 * nothing: stop idling, the core runs the queue next.
		 */
		if (cfqq->wait_request) {
			cfq_log_cfqq(cfqd, cfqq, "idle wait ends");
			cfqq->wait_request = 0;
			cfq_cancel_idle_timer(cfqd);
		}
	} else if (!cfqd->active_queue) {
		/* waiting out the IDLE-class grace: decide again */
		cfq_cancel_idle_timer(cfqd);
	} else if (cfq_should_preempt(cfqd, cfqq, rq, now)) {
		cfq_preempt_queue(cfqd, cfqq);
	}
}

static void cfq_insert_request(struct blk_mq_hw_ctx *hctx, struct request *rq,
			       bool at_head, struct list_head *free)
{
	struct request_queue *q = hctx->queue;
	struct cfq_data *cfqd = q->elevator->elevator_data;
	u64 now = ktime_get_ns();
	struct cfq_queue *cfqq;

	/* requeues and passthrough bypass scheduling */
	if (at_head || blk_rq_is_passthrough(rq)) {
		if (at_head)
			list_add(&rq->queuelist, &cfqd->dispatch);
		else
			list_add_tail(&rq->queuelist, &cfqd->dispatch);
		return;
	}

	cfqq = cfq_init_rq(cfqd, rq);
	if (cfqd->rq_queued && blk_mq_sched_try_insert_merge(q, rq, free))
		return;

	trace_block_rq_insert(rq);
	if (cfqq->prio_changed)
		cfq_init_prio_data(cfqq, rq->elv.icq ? icq_to_cic(rq->elv.icq) :
				   NULL, rq);
	if (!cfq_class_idle(cfqq))
		cfqd->last_nonidle = now;

	rq->fifo_time = now + cfqd->cfq_fifo_expire[rq_is_sync(rq)];
	list_add_tail(&rq->queuelist, &cfqq->fifo);
	cfq_add_rq_rb(cfqd, rq);
	if (rq_mergeable(rq)) {
		elv_rqhash_add(q, rq);
		if (!q->last_merge)
			q->last_merge = rq;
	}
	cfq_rq_enqueued(cfqd, cfqq, rq, now);
}

void cfq_insert_requests(struct blk_mq_hw_ctx *hctx, struct list_head *list,
			 bool at_head)
{
	struct cfq_data *cfqd = hctx->queue->elevator->elevator_data;
	LIST_HEAD(free);

	spin_lock_irq(&cfqd->lock);
	while (!list_empty(list)) {
		struct request *rq;

		rq = list_first_entry(list, struct request, queuelist);
		list_del_init(&rq->queuelist);
		cfq_insert_request(hctx, rq, at_head, &free);
	}
	spin_unlock_irq(&cfqd->lock);

	blk_mq_free_requests(&free);
}

/*
 * Completion
 */

/*
 * Does the device queue internally (NCQ)? Unknown (-1) until 50 samples
 * taken while enough requests were around to fill a queue; once proven,
 * it stays proven.
 */
static void cfq_update_hw_tag(struct cfq_data *cfqd)
{
	struct cfq_queue *cfqq = cfqd->active_queue;

	cfqd->hw_tag_est_depth = max(cfqd->hw_tag_est_depth,
				     cfqd->rq_in_driver);
	if (cfqd->hw_tag == 1)
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
	cfqd->hw_tag = cfqd->hw_tag_est_depth >= CFQ_HW_QUEUE_MIN;
}

/*
 * Wait busy: the active queue is its group's only one, it just ran dry
 * and its slice is (about) over. Expiring now would take the group off
 * the group tree until the process's next request, and the next group
 * would be picked with this one missing: a group with a single
 * sequential reader would then never be ahead of anyone and weights
 * would mean nothing. So stretch the slice by one idle window: if the
 * next request comes, the queue is expired with it queued and the group
 * is charged while it stays on the tree.
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

static void cfq_completed_request(struct cfq_data *cfqd,
				  struct cfq_queue *cfqq, struct request *rq)
{
	bool sync = cfqq->sync;
	u64 now = ktime_get_ns();

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
		if (cfq_should_wait_busy(cfqd, cfqq, now)) {
			cfqq->slice_end = now + (cfqd->cfq_slice_idle ?:
						 cfqd->cfq_group_idle);
			cfqq->wait_busy = 1;
			cfq_log_cfqq(cfqd, cfqq, "will busy wait");
		}
		if (cfq_slice_used(cfqq, now) || cfq_class_idle(cfqq))
			cfq_slice_expired(cfqd, true);
		else if (sync && RB_EMPTY_ROOT(&cfqq->sort_list))
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

/*
 * Drop what @rq holds. For a request the driver had, account the
 * completion first (a requeue counts as one: the request comes back
 * through insert_requests() and is attached to a queue again).
 */
static void cfq_release_request(struct request *rq)
{
	struct cfq_queue *cfqq = RQ_CFQQ(rq);
	struct cfq_data *cfqd;
	unsigned long flags;

	if (!cfqq)
		return;
	cfqd = cfqq->cfqd;
	spin_lock_irqsave(&cfqd->lock, flags);
	if (rq->rq_flags & RQF_STARTED)
		cfq_completed_request(cfqd, cfqq, rq);
	cfq_put_queue(cfqq);
	spin_unlock_irqrestore(&cfqd->lock, flags);
	rq->elv.priv[0] = NULL;
	rq->rq_flags &= ~RQF_STARTED;
}

static void cfq_finish_request(struct request *rq)
{
	cfq_release_request(rq);
	if (rq->elv.icq) {
		put_io_context(rq->elv.icq->ioc);
		rq->elv.icq = NULL;
	}
}

static void cfq_prepare_request(struct request *rq)
{
	rq->elv.icq = ioc_find_get_icq(rq->q);
	rq->elv.priv[0] = NULL;
}

/*
 * Merging
 */
static bool cfq_bio_merge(struct request_queue *q, struct bio *bio,
			  unsigned int nr_segs)
{
	struct cfq_data *cfqd = q->elevator->elevator_data;
	struct cfq_io_cq *cic = NULL;
	struct request *free = NULL;
	unsigned long flags;
	bool ret;

	/*
	 * Only queued requests are merge candidates. With none (always the
	 * case for a QD1 reader) skip the icq lookup and both locks: that
	 * is 2 of the 5 lock round trips of each such I/O. A request
	 * inserted concurrently only costs a missed merge.
	 */
	if (!READ_ONCE(cfqd->rq_queued))
		return false;

	/* queue_lock nests outside cfqd->lock: look the icq up first */
	if (current->io_context) {
		spin_lock_irqsave(&q->queue_lock, flags);
		cic = icq_to_cic(ioc_lookup_icq(q));
		spin_unlock_irqrestore(&q->queue_lock, flags);
	}

	spin_lock_irq(&cfqd->lock);
	cfqd->bio_cfqq = cic ? cic->cfqq[op_is_sync(bio->bi_opf)] : NULL;
	ret = blk_mq_sched_try_merge(q, bio, nr_segs, &free);
	cfqd->bio_cfqq = NULL;
	spin_unlock_irq(&cfqd->lock);

	if (free)
		blk_mq_free_request(free);
	return ret;
}

/* Front merge: a request of the bio's queue starting where the bio ends. */
static int cfq_request_merge(struct request_queue *q, struct request **req,
			     struct bio *bio)
{
	struct cfq_data *cfqd = q->elevator->elevator_data;
	struct request *rq;

	if (!cfqd->bio_cfqq)
		return ELEVATOR_NO_MERGE;
	rq = elv_rb_find(&cfqd->bio_cfqq->sort_list, bio_end_sector(bio));
	if (!rq || !elv_bio_merge_ok(rq, bio))
		return ELEVATOR_NO_MERGE;
	*req = rq;
	return blk_discard_mergable(rq) ? ELEVATOR_DISCARD_MERGE :
					  ELEVATOR_FRONT_MERGE;
}

/* Only merge a bio into a request of its own queue, and never sync into async. */
static bool cfq_allow_merge(struct request_queue *q, struct request *rq,
			    struct bio *bio)
{
	struct cfq_data *cfqd = q->elevator->elevator_data;

	if (op_is_sync(bio->bi_opf) && !rq_is_sync(rq))
		return false;
	return cfqd->bio_cfqq && RQ_CFQQ(rq) == cfqd->bio_cfqq;
}

static void cfq_request_merged(struct request_queue *q, struct request *rq,
			       enum elv_merge type)
{
	struct cfq_data *cfqd = q->elevator->elevator_data;
	struct cfq_queue *cfqq = RQ_CFQQ(rq);

	/* a front merge moved the start sector: re-sort */
	if (type == ELEVATOR_FRONT_MERGE && cfqq) {
		elv_rb_del(&cfqq->sort_list, rq);
		elv_rb_add(&cfqq->sort_list, rq);
		cfq_update_next_rq(cfqd, cfqq, rq);
	}
}

/*
 * @next was merged into @rq. @next may be a queued request of any queue,
 * or the request being inserted (then it is in no queue yet).
 */
static void cfq_requests_merged(struct request_queue *q, struct request *rq,
				struct request *next)
{
	struct cfq_queue *cfqq = RQ_CFQQ(rq);

	/* @rq inherits the FIFO place of an older @next of its own queue */
	if (cfqq && cfqq == RQ_CFQQ(next) &&
	    !list_empty(&rq->queuelist) && !list_empty(&next->queuelist) &&
	    next->fifo_time < rq->fifo_time) {
		list_del_init(&rq->queuelist);
		list_replace_init(&next->queuelist, &rq->queuelist);
		rq->fifo_time = next->fifo_time;
	}
	if (cfqq && cfqq->next_rq == next)
		cfqq->next_rq = rq;
	if (!RB_EMPTY_NODE(&next->rb_node))
		cfq_remove_request(q, next);
}

/*
 * Tag allocation: blk-mq has one tag pool for all requests, where the old
 * block layer had separate sync and async pools. Keep async requests to
 * half of the tags and sync writes to three quarters, so a burst of
 * write-back cannot take every tag from sync readers.
 */
static void cfq_limit_depth(blk_opf_t opf, struct blk_mq_alloc_data *data)
{
	struct cfq_data *cfqd = data->q->elevator->elevator_data;

	if (op_is_sync(opf) && !op_is_write(opf))
		return;
	data->shallow_depth = cfqd->async_depth[op_is_sync(opf)];
}

static void cfq_depth_updated(struct blk_mq_hw_ctx *hctx)
{
	struct cfq_data *cfqd = hctx->queue->elevator->elevator_data;
	unsigned int nr = hctx->queue->nr_requests;

	cfqd->async_depth[0] = cfq_shallow_depth(hctx, max(nr / 2, 1U));
	cfqd->async_depth[1] = cfq_shallow_depth(hctx, max(nr * 3 / 4, 1U));
	sbitmap_queue_min_shallow_depth(&hctx->sched_tags->bitmap_tags, 1);
}

static int cfq_init_hctx(struct blk_mq_hw_ctx *hctx, unsigned int hctx_idx)
{
	cfq_depth_updated(hctx);
	return 0;
}

/*
 * Elevator set-up
 */
static int cfq_init_sched(struct request_queue *q, struct elevator_type *e)
{
	struct elevator_queue *eq;
	struct cfq_data *cfqd;
	u64 now = ktime_get_ns();

	eq = elevator_alloc(q, e);
	if (!eq)
		return -ENOMEM;
	cfqd = kzalloc_node(sizeof(*cfqd), GFP_KERNEL, q->node);
	if (!cfqd)
		goto put_eq;
	eq->elevator_data = cfqd;
	cfqd->queue = q;

	spin_lock_init(&cfqd->lock);
	INIT_LIST_HEAD(&cfqd->dispatch);
	hrtimer_init(&cfqd->idle_slice_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	cfqd->idle_slice_timer.function = cfq_idle_slice_timer;

	cfq_init_tunables(cfqd);
	cfqd->hw_tag = -1;
	cfqd->last_delayed_sync = now - NSEC_PER_SEC;
	cfqd->idle_class_served = now;

	spin_lock_irq(&q->queue_lock);
	q->elevator = eq;
	spin_unlock_irq(&q->queue_lock);

	/* the groups' policy data finds cfqd through q->elevator */
	if (cfq_init_groups(cfqd))
		goto free_cfqd;

	/* the fallback queue is never freed: it holds a permanent reference */
	cfq_init_cfqq(cfqd, &cfqd->oom_cfqq, cfqd->root_group, 1, false);
	cfqd->oom_cfqq.ref++;
	cfqd->oom_cfqq.prio_changed = 0;
	cfqd->oom_cfqq.ioprio_class = IOPRIO_CLASS_BE;
	cfqd->oom_cfqq.ioprio = IOPRIO_NORM;

	/* one scheduler for all hardware queues: dispatch from any */
	blk_queue_flag_set(QUEUE_FLAG_SQ_SCHED, q);
	/* cfq throttles write-back itself, as CFQ and BFQ always did */
	cfq_wbt_disable(eq, q);
	return 0;

free_cfqd:
	/* the caller resets q->elevator */
	kfree(cfqd);
put_eq:
	kobject_put(&eq->kobj);
	return -ENOMEM;
}

static void cfq_exit_sched(struct elevator_queue *e)
{
	struct cfq_data *cfqd = e->elevator_data;

	hrtimer_cancel(&cfqd->idle_slice_timer);
	spin_lock_irq(&cfqd->lock);
	cfq_slice_expired(cfqd, false);
	WARN_ON_ONCE(cfqd->rq_queued || cfqd->busy_queues);
	spin_unlock_irq(&cfqd->lock);
	/* offlines every group: their async queues go (takes queue_lock) */
	cfq_exit_groups(cfqd);
	/* expiring may have re-armed nothing, but be sure before freeing */
	hrtimer_cancel(&cfqd->idle_slice_timer);
	/* the oom queue's pin was the last reference to the root group */
	cfqg_put(cfqd->oom_cfqq.cfqg);

	cfq_wbt_enable(e, cfqd->queue);
	kfree(cfqd);
}

static struct elevator_type iosched_cfq = {
	.ops = {
		.limit_depth		= cfq_limit_depth,
		.depth_updated		= cfq_depth_updated,
		.init_hctx		= cfq_init_hctx,
		.prepare_request	= cfq_prepare_request,
		.insert_requests	= cfq_insert_requests_op,
		.dispatch_request	= cfq_dispatch_request,
		.has_work		= cfq_has_work,
		.finish_request		= cfq_finish_request,
		.requeue_request	= cfq_release_request,
		.bio_merge		= cfq_bio_merge,
		.request_merge		= cfq_request_merge,
		.request_merged		= cfq_request_merged,
		.requests_merged	= cfq_requests_merged,
		.allow_merge		= cfq_allow_merge,
		.next_request		= elv_rb_latter_request,
		.former_request		= elv_rb_former_request,
		.exit_icq		= cfq_exit_icq,
		.init_sched		= cfq_init_sched,
		.exit_sched		= cfq_exit_sched,
	},
	.icq_size	= sizeof(struct cfq_io_cq),
	.icq_align	= __alignof__(struct cfq_io_cq),
	.elevator_attrs	= cfq_attrs,
	.elevator_name	= "cfq",
	.elevator_owner	= THIS_MODULE,
};
MODULE_ALIAS("cfq-iosched");

static int __init cfq_init(void)
{
	int ret;

	cfq_pool = KMEM_CACHE(cfq_queue, 0);
	if (!cfq_pool)
		return -ENOMEM;
	/* the policy must exist before any queue can select cfq */
	ret = cfq_register_policy();
	if (ret)
		goto destroy_pool;
	ret = elv_register(&iosched_cfq);
	if (ret)
		goto unregister_policy;
	return 0;

unregister_policy:
	cfq_unregister_policy();
destroy_pool:
	kmem_cache_destroy(cfq_pool);
	return ret;
}

static void __exit cfq_exit(void)
{
	elv_unregister(&iosched_cfq);
	cfq_unregister_policy();
	kmem_cache_destroy(cfq_pool);
}

module_init(cfq_init);
module_exit(cfq_exit);

MODULE_AUTHOR("the cfq project");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Completely Fair Queueing I/O scheduler for blk-mq");
