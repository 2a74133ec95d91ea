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
 *
 * This file is the request side: the queues and their lifetime, requests
 * coming in (insert, merges, the enqueue heuristics, preemption) and the
 * elevator's set-up. cfq-dispatch.c is the disk side: slices, idling,
 * dispatch, completions. cfq-tree.c keeps the service trees: which queue
 * and group is next, and what a group is charged for its turn.
 * cfq-coop.c merges the queues of processes that read one region in
 * turn, and splits them again. cfq-group.c is the blkcg policy (the
 * groups' lifetime, weights, cgroup files), cfq-sysfs.c the tunables,
 * cfq.h the shared structures and the pure logic.
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

static struct kmem_cache *cfq_pool;

static inline struct cfq_io_cq *icq_to_cic(struct io_cq *icq)
{
	return container_of(icq, struct cfq_io_cq, icq);
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
void cfq_update_next_rq(struct cfq_data *cfqd, struct cfq_queue *cfqq,
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
	cfq_prio_tree_add(cfqq);
}

/*
 * A queue's only request is its next one under either rule: the common
 * case of a process with one request at a time skips the tree walks
 * (B5, QD1 on null_blk, 6.12: +0.8% IOPS).
 */
static void cfq_add_rq_rb(struct cfq_data *cfqd, struct request *rq)
{
	struct cfq_queue *cfqq = RQ_CFQQ(rq);
	bool only = RB_EMPTY_ROOT(&cfqq->sort_list);

	elv_rb_add(&cfqq->sort_list, rq);
	cfqq->queued[rq_is_sync(rq)]++;
	WRITE_ONCE(cfqd->rq_queued, cfqd->rq_queued + 1);
	if (!cfqq->on_rr)
		cfq_add_cfqq_rr(cfqd, cfqq);
	if (only) {
		cfqq->next_rq = rq;
		cfq_prio_tree_add(cfqq);
	} else {
		cfq_update_next_rq(cfqd, cfqq, rq);
	}
}

static void cfq_del_rq_rb(struct cfq_data *cfqd, struct request *rq)
{
	struct cfq_queue *cfqq = RQ_CFQQ(rq);

	if (cfqq->queued[0] + cfqq->queued[1] == 1)
		cfqq->next_rq = NULL;
	else if (cfqq->next_rq == rq)
		cfqq->next_rq = cfq_find_next_rq(cfqd, cfqq, rq);
	elv_rb_del(&cfqq->sort_list, rq);
	cfqq->queued[rq_is_sync(rq)]--;
	WRITE_ONCE(cfqd->rq_queued, cfqd->rq_queued - 1);

	/* the active queue stays busy until it expires */
	if (cfqq->on_rr && RB_EMPTY_ROOT(&cfqq->sort_list) &&
	    cfqq != cfqd->active_queue)
		cfq_del_cfqq_rr(cfqd, cfqq);
	else
		cfq_prio_tree_add(cfqq);
}

void cfq_remove_request(struct request_queue *q, struct request *rq)
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
	if (sync)
		cfq_boost_start(cfqd, cfqq, cfq_clock(cfqd));
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

/* Free @cfqq; returns its pending merge target, whose reference it held. */
struct cfq_queue *cfq_free_queue(struct cfq_queue *cfqq)
{
	struct cfq_data *cfqd = cfqq->cfqd;
	struct cfq_queue *new_cfqq = cfqq->new_cfqq;
	struct cfq_group *cfqg = cfqq->cfqg;

	cfq_log_cfqq(cfqd, cfqq, "put_queue");
	WARN_ON_ONCE(cfqq == &cfqd->oom_cfqq);
	if (cfqd->active_queue == cfqq) {
		cfq_slice_expired(cfqd, false);
		cfq_schedule_dispatch(cfqd);
	}
	WARN_ON_ONCE(cfqq->on_rr || !RB_EMPTY_ROOT(&cfqq->sort_list) ||
		     cfqq->p_root);
	kmem_cache_free(cfq_pool, cfqq);
	cfqg_put(cfqg);
	return new_cfqq;
}

/*
 * A process leaves @cfqq (it exited, moved to another cgroup, or its
 * queue was merged or split) and drops its reference. When the last one
 * has left, nobody is worth waiting for.
 */
void cfq_exit_cfqq(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	if (cfqq->sync && !--cfqq->procs) {
		cfqq->exited = 1;
		cfqq->idle_window = 0;
		if (cfqd->active_queue == cfqq && cfq_wait_for_active(cfqd)) {
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
		cfqg = cfq_bio_group(cfqd, rq->bio);
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
		/* a shared queue that turned seeky: leave it (cfq-coop.c) */
		if (cfqq && cfqq->split_coop)
			cfqq = cfq_split_cfqq(cfqd, cic, cfqq);
		/* retry the allocation a failure left us without */
		if (!cfqq || cfqq == &cfqd->oom_cfqq) {
			if (cfqq)
				cfq_put_queue(cfqq);
			cfqq = cfq_get_queue(cfqd, cfqg, cic, rq, sync);
			cic->cfqq[sync] = cfqq;
			if (cfqq->sync)
				cfqq->procs++;
		}
		/* a pending merge, or one with the queue in service */
		if (cfqq->sync)
			cfqq = cfq_coop_merge_rq(cfqd, cic, cfqq, rq);
	}
	cfqq->ref++;
	if (cfqq == &cfqd->oom_cfqq)
		cfqd->oom_requests++;
	if (op_is_write(rq->cmd_flags))
		cfqq->cfqg->nr_writes++;
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
 * them slow). In a merged queue in service, a request behind the head
 * counts too: its process has fallen out of step with the others, and
 * the disk will turn once more for it (cfq-coop.c). Arriving behind the
 * previous request does not: the processes of a merged queue send their
 * requests in whatever order the CPU runs them (a queue of four readers
 * in step, marked seeky that way on 6.1, was split and read 44 MB/s
 * instead of 168).
 */
static void cfq_update_io_seektime(struct cfq_data *cfqd,
				   struct cfq_queue *cfqq, struct request *rq)
{
	sector_t pos = blk_rq_pos(rq), last = cfqq->last_request_pos;
	sector_t sdist = last ? cfq_dist(pos, last) : 0;

	cfqq->contig = last && !sdist;
	cfqq->seek_history <<= 1;
	if (cfq_queue_nonrot(cfqd->queue))
		cfqq->seek_history |= blk_rq_sectors(rq) < CFQQ_SECT_THR_NONROT;
	else
		cfqq->seek_history |= sdist > CFQQ_SEEK_THR ||
				      (cfqq->coop && cfqq == cfqd->active_queue &&
				       pos < cfqd->last_position);
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
	/*
	 * 4 queued at once: more than synchronous reads with read-ahead
	 * keep (up to 2); an AIO or multi-threaded process that does.
	 * Seeky or not, it gains from keeping the disk for its batch.
	 */
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
 * Should @new's request @rq take the disk from the active queue now? The
 * rules are CFQ 4.20's, in its order; each one either protects a class
 * (RT, sync) or stops cfq from holding the disk for a queue that is not
 * going to use it:
 *  - nobody preempts for the IDLE class, and an IDLE queue yields to all;
 *  - RT is never preempted by BE: strict class priority;
 *  - a sync request preempts an async queue (reads wait on writes
 *    otherwise: B3's reader latency);
 *  - across groups nothing more: the other group would gain service
 *    beyond its share. Within the group (or from an ancestor's queue):
 *  - the active slice is used up: its expiry is only waiting for a
 *    dispatch;
 *  - RT over BE inside the group;
 *  - while the group is boosting, a queue on the other side of the boost
 *    waits for the active side's turn to end (cfq-tree.c);
 *  - both are seeky sync queues of the same tree and the active one is
 *    empty: the tree idles as a whole, so the waiting is for the tree,
 *    and the new request is as good as the next one of the active queue;
 *  - a REQ_PRIO (metadata) request when the active queue has none: a
 *    process blocked on an inode or directory read holds up its data;
 *  - the active queue is empty and would not be idled for;
 *  - cfq idles for the active queue and the request lies within
 *    CFQQ_CLOSE_THR (4 MiB) of the head: serving it costs no seek, and
 *    the wait may end with nothing (the close-cooperator case, cfq-coop.c,
 *    where CFQ measured 12 -> 90 MB/s with merging on top).
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
	/* start-up boost: a side's turn is its own */
	if (cfq_boost_holds_turn(cfqq, new))
		return false;
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
	if (!cfq_wait_for_active(cfqd))
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
	/* a merged queue gone seeky is split at its processes' next requests */
	if (cfqq->coop && CFQQ_SEEKY(cfqq))
		cfqq->split_coop = 1;
	cfq_update_idle_window(cfqd, cfqq);
	cfqq->last_request_pos = blk_rq_pos(rq) + blk_rq_sectors(rq);

	if (cfqq == cfqd->active_queue) {
		/*
		 * The awaited request is here. Bios were already merged in
		 * the plug, so holding it back for more merging gains
		 * nothing: stop idling, the core runs the queue next.
		 */
		if (cfq_wait_for_active(cfqd)) {
			cfq_log_cfqq(cfqd, cfqq, "idle wait ends");
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
	struct cfq_queue *cfqq;
	u64 now;

	/* requeues and passthrough bypass scheduling */
	if (at_head || blk_rq_is_passthrough(rq)) {
		if (at_head)
			list_add(&rq->queuelist, &cfqd->dispatch);
		else
			list_add_tail(&rq->queuelist, &cfqd->dispatch);
		return;
	}

	/*
	 * The block layer stamps every request it allocates for an
	 * elevator: think time and FIFO age run from when the process
	 * issued the request, and the clock is not read once more (B5 at
	 * QD1 on 6.12: +0.6 % IOPS; B4 3458 -> 3442 runs, within spread).
	 */
	now = rq->start_time_ns ? cfq_clock_at(cfqd, rq->start_time_ns) :
				  cfq_clock(cfqd);
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
	if (op_is_write(rq->cmd_flags))
		cfqq->cfqg->nr_writes--;
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
	if (!READ_ONCE(cfqd->rq_queued)) {
		if (READ_ONCE(cfqd->depth_task) == current)
			WRITE_ONCE(cfqd->depth_task, NULL);
		return false;
	}

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
	/* not merged: the request for it is allocated next, by this task */
	if (!ret && op_is_write(bio->bi_opf)) {
		WRITE_ONCE(cfqd->depth_limit,
			   cfq_group_write_depth(cfqd, cfq_bio_group(cfqd, bio),
						 op_is_sync(bio->bi_opf)));
		WRITE_ONCE(cfqd->depth_task, current);
	} else if (READ_ONCE(cfqd->depth_task) == current) {
		WRITE_ONCE(cfqd->depth_task, NULL);
	}
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
	if (cfqq && cfqq->next_rq == next) {
		cfqq->next_rq = rq;
		cfq_prio_tree_add(cfqq);	/* keyed by next_rq's sector */
	}
	if (!RB_EMPTY_NODE(&next->rb_node))
		cfq_remove_request(q, next);
}

/*
 * Tag allocation: blk-mq has one tag pool for all requests, where the old
 * block layer had separate sync and async pools. Keep async requests to
 * half of the tags and sync writes to three quarters, so a burst of
 * write-back cannot take every tag from sync readers. A write of a group
 * over its share of them gets a lower depth (cfq_group_write_depth(),
 * decided in cfq_bio_merge() for the bio this request is for: the block
 * layer tries the merge right before the allocation, in the same task).
 * Read without the lock: a submitter on another CPU racing with this one
 * costs one allocation the other's depth, nothing worse.
 *
 * Why a hand-off: blk_mq_alloc_data carries no bio, and the group is the
 * bio's (bi_blkg), not the submitting task's: write-back is submitted by
 * a flusher in the root cgroup for the cgroup that dirtied the pages, so
 * looking the group up from current here (as bfq does from the task's
 * io_context) would put every flusher write in the root group. Nothing
 * else passes per-bio state from bio_merge() to limit_depth().
 */
static void cfq_limit_depth(blk_opf_t opf, struct blk_mq_alloc_data *data)
{
	struct cfq_data *cfqd = data->q->elevator->elevator_data;

	if (op_is_sync(opf) && !op_is_write(opf))
		return;
	data->shallow_depth = READ_ONCE(cfqd->async_depth[op_is_sync(opf)]);
	if (READ_ONCE(cfqd->depth_task) == current) {
		unsigned int limit = READ_ONCE(cfqd->depth_limit);

		if (limit)
			data->shallow_depth = min(data->shallow_depth, limit);
		WRITE_ONCE(cfqd->depth_task, NULL);
	}
}

/* Every hardware queue has sched_tags of nr_requests: the limits are common */
void cfq_depth_updated(struct request_queue *q)
{
	struct cfq_data *cfqd = q->elevator->elevator_data;
	unsigned int nr = q->nr_requests;
	struct blk_mq_hw_ctx *hctx;
	unsigned long i;

	queue_for_each_hw_ctx(q, hctx, i) {
		WRITE_ONCE(cfqd->async_depth[0],
			   cfq_shallow_depth(hctx, max(nr / 2, 1U)));
		WRITE_ONCE(cfqd->async_depth[1],
			   cfq_shallow_depth(hctx, max(nr * 3 / 4, 1U)));
		sbitmap_queue_min_shallow_depth(&hctx->sched_tags->bitmap_tags,
						1);
	}
}

static int cfq_init_hctx(struct blk_mq_hw_ctx *hctx, unsigned int hctx_idx)
{
	cfq_depth_updated(hctx->queue);
	return 0;
}

/*
 * Elevator set-up
 */
/* @eq is the caller's: it drops @eq when this fails (cfq_init_sched_op) */
int cfq_init_sched(struct request_queue *q, struct elevator_queue *eq)
{
	struct cfq_data *cfqd;
	u64 now = ktime_get_ns();

	cfqd = kzalloc_node(sizeof(*cfqd), GFP_KERNEL, q->node);
	if (!cfqd)
		return -ENOMEM;
	eq->elevator_data = cfqd;
	cfqd->queue = q;
	cfqd->clock = now;

	spin_lock_init(&cfqd->lock);
	INIT_LIST_HEAD(&cfqd->dispatch);
	cfq_hrtimer_setup(&cfqd->idle_slice_timer, cfq_idle_slice_timer);

	cfq_init_tunables(cfqd);
	cfqd->hw_tag = CFQ_HW_UNKNOWN;
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
	kfree_rcu(cfqd, rcu_head);
}

static struct elevator_type iosched_cfq = {
	.ops = {
		.limit_depth		= cfq_limit_depth,
		.depth_updated		= cfq_depth_updated_op,
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
		.init_sched		= cfq_init_sched_op,
		.exit_sched		= cfq_exit_sched,
	},
	.icq_size	= sizeof(struct cfq_io_cq),
	.icq_align	= __alignof__(struct cfq_io_cq),
	.elevator_attrs	= cfq_attrs,
#ifdef CONFIG_BLK_DEBUG_FS
	.queue_debugfs_attrs = cfq_queue_debugfs_attrs,
#endif
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
