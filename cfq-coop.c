// SPDX-License-Identifier: GPL-2.0
/*
 * Close cooperators (CFQ's, after Jeff Moyer's 2009 work): merging and
 * splitting the sync queues of processes that read one region in turn.
 *
 * What: two sync queues of one group, class and ioprio level, neither of
 * them seeky, cooperate when the next request of one starts exactly where
 * the other, in service, left the head. Then they are merged: the
 * processes of one send their requests to the other, and cfq schedules
 * them as one queue. Cooperation is seen at two moments:
 *  - a request that arrives there joins the queue in service at once,
 *    with its process (cfq_coop_merge_rq());
 *  - CFQ's own: when the queue in service runs dry and the prio tree of
 *    its group and level holds a queue whose next request starts there,
 *    that queue is served at once instead of idling, and the two merge at
 *    their processes' next requests (cfq_close_cooperator()).
 * A merged queue that turns seeky (its processes went separate ways) is
 * marked so and split: each process leaves it with its next
 * request, for a queue of its own; the last one keeps it.
 *
 * Why: such processes, like the threads of a server each reading every
 * Nth chunk of one file, read with gaps one by one and sequentially
 * together. With a queue and a slice each, the disk skips the others'
 * chunks in every slice.
 *
 * Measured (tests/cases/cfq-cooperators.sh; the emulated 7200 rpm disk,
 * 174 MB/s, under -icount): four psync readers of every 4th 64 KiB chunk
 * of a region read 168 MB/s together (the single-reader rate), 39 MB/s
 * with cooperators=N; two readers of every other chunk 168 MB/s against
 * 112 (CFQ's preemption of an idling queue by a close request already
 * alternates those, a queue switch per request); the two with libaio
 * depth 2 each 168 against 81.
 *
 * Rules (all under cfqd->lock, like everything in cfq):
 *  - a busy sync queue with a next request sits on its group's prio tree
 *    for its ioprio level, keyed by that request's sector;
 *  - cfqq->new_cfqq, a pending merge target, holds a reference on it;
 *    chains are followed to their end and never loop (cfq_setup_merge());
 *  - cfqq->procs counts the io contexts whose sync queue it is, each with
 *    a reference through cic->cfqq[1]; that pointer changes only at the
 *    process's own requests (cfq_init_rq()) and at its exit, so each
 *    process carries out a merge or split itself;
 *  - requests keep their own io context (rq->elv.icq) and the queue they
 *    joined: a merge moves no queued request, the old queue drains and is
 *    freed with its last reference (that of its last request).
 * The module parameter "cooperators" (default Y) turns the detection off;
 * merges already set up are still carried out, and split when seeky.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>

#include "cfq-tree.h"

static bool cfq_cooperators = true;
module_param_named(cooperators, cfq_cooperators, bool, 0644);
MODULE_PARM_DESC(cooperators,
		 "Serve and merge the sync queues of processes that read one region in turn (default Y)");

/*
 * Put @cfqq where its next request is, or take it off the prio tree.
 * Not on a non-rotational device: with no seek to save there, merging
 * cooperators gains nothing (BFQ does not merge there either), and
 * keeping the tree costs an rb-tree erase and insert per request (B5
 * overhead, 6.12 QD1 on null_blk: 104087 IOPS with it, 104538 without).
 */
void __cfq_prio_tree_add(struct cfq_queue *cfqq)
{
	if (cfqq->p_root)
		cfq_prio_tree_erase(cfqq);
	if (!cfqq->sync || !cfqq->on_rr || !cfqq->next_rq ||
	    cfq_class_idle(cfqq) || cfq_queue_nonrot(cfqq->cfqd->queue))
		return;
	cfq_prio_tree_insert(&cfqq->cfqg->prio_trees[cfqq->ioprio], cfqq);
}

/*
 * May @cfqq, whose next request continues its last one if @contig, and
 * @cur, the queue in service, be merged? If they are of one group, class
 * and ioprio level, neither is seeky (a seeky queue is not idled for
 * anyway), and neither is a single process reading on from its own last
 * request: that one reads whatever comes next itself. Two processes that
 * read the same data one after the other, merged, would each read what
 * the other just read, a revolution per request (measured, two readers of
 * one region 192 KiB apart and a third elsewhere: 2 MB/s for the two
 * instead of 52).
 */
static bool cfq_may_cooperate(struct cfq_queue *cur, struct cfq_queue *cfqq,
			      bool contig)
{
	return cfqq != cur && cur->sync && cfqq->sync &&
	       cfqq->cfqg == cur->cfqg && cfqq->ioprio == cur->ioprio &&
	       cfqq_class(cfqq) == cfqq_class(cur) && !cfq_class_idle(cur) &&
	       !CFQQ_SEEKY(cur) && !CFQQ_SEEKY(cfqq) &&
	       !(cur->contig && !cur->coop) && !(contig && !cfqq->coop);
}

/*
 * A queue to serve in place of @cur, which has run dry or whose next
 * request is not where the last dispatch ended: a busy queue whose next
 * request starts there, and that may cooperate with @cur.
 *
 * CFQ 4.20 took a queue whose next request was within 4 MiB, on either
 * side. Processes that each have one request at a time and share a queue
 * are served in the order they send their requests: when one of them is
 * behind the others, that is backwards, one revolution lost per request
 * (measured: two readers of every other chunk, one starting at chunk 0
 * and one at chunk 3, merged that way read 14 MB/s, and 77 unmerged). A
 * queue that continues the stream exactly keeps it in sector order.
 *
 * Serving a cooperator skips the group and workload choice, so only inside
 * the workload slice in progress: cooperators must not keep the disk for
 * ever.
 */
struct cfq_queue *__cfq_close_cooperator(struct cfq_data *cfqd,
					 struct cfq_queue *cur, u64 now)
{
	struct cfq_queue *cfqq;

	if (!READ_ONCE(cfq_cooperators) || now > cfqd->workload_expires)
		return NULL;
	cfqq = cfq_prio_tree_lookup(&cur->cfqg->prio_trees[cur->ioprio],
				    cfqd->last_position);
	if (!cfqq || !cfq_may_cooperate(cur, cfqq, cfqq->contig))
		return NULL;
	return cfqq;
}

/*
 * @cfqq (without a pending merge of its own) and @new_cfqq cooperate:
 * merge them, the one with fewer processes into the other. @new_cfqq may
 * itself be waiting to merge: then the end of its chain is the target.
 * A queue without processes is left alone: nobody would carry it out.
 */
void cfq_setup_merge(struct cfq_data *cfqd, struct cfq_queue *cfqq,
		     struct cfq_queue *new_cfqq)
{
	struct cfq_queue *next;

	while ((next = new_cfqq->new_cfqq)) {
		if (next == cfqq)
			return;		/* already merging into @cfqq */
		new_cfqq = next;
	}
	if (!cfqq->procs || !new_cfqq->procs)
		return;
	if (new_cfqq->procs < cfqq->procs)
		swap(cfqq, new_cfqq);
	cfq_log_cfqq(cfqd, cfqq, "setup merge with cfq%d", new_cfqq->pid);
	cfqq->new_cfqq = new_cfqq;
	new_cfqq->ref++;
}

/* Carry out the merge of @cic's sync queue @cfqq. */
static struct cfq_queue *cfq_merge_cfqqs(struct cfq_data *cfqd,
					 struct cfq_io_cq *cic,
					 struct cfq_queue *cfqq)
{
	struct cfq_queue *new_cfqq = cfqq->new_cfqq;

	while (new_cfqq->new_cfqq)
		new_cfqq = new_cfqq->new_cfqq;
	cfq_log_cfqq(cfqd, cfqq, "merged into cfq%d", new_cfqq->pid);
	new_cfqq->ref++;
	/* a target whose processes have all left is in use again */
	if (!new_cfqq->procs++)
		new_cfqq->exited = 0;
	new_cfqq->coop = 1;
	cic->cfqq[1] = new_cfqq;
	cfq_exit_cfqq(cfqd, cfqq);
	return new_cfqq;
}

/*
 * Does @rq, arriving for @cfqq, make @cfqq a cooperator of the queue in
 * service? When it starts where that queue's last dispatch ended, or
 * where the last request queued in that queue ends, and the two may
 * cooperate. The search at dispatch (cfq_close_cooperator()) runs only
 * when the queue in service runs dry or seeks, which a queue shared by
 * busy processes seldom does: a process that joins the region after the
 * others merged would wait for the end of their slice, and be too far
 * behind to join them then
 * (measured: four readers started together, the block layer merged the
 * first requests of one into the others', the three others merged and
 * left it behind: 38 MB/s instead of 168).
 */
static bool cfq_rq_cooperates(struct cfq_data *cfqd, struct cfq_queue *cfqq,
			      struct request *rq)
{
	struct cfq_queue *active = cfqd->active_queue;
	sector_t pos = blk_rq_pos(rq);

	return READ_ONCE(cfq_cooperators) && active &&
	       !cfq_queue_nonrot(cfqd->queue) &&
	       ((active->slice_dispatch && pos == cfqd->last_position) ||
		pos == active->last_request_pos) &&
	       cfq_may_cooperate(active, cfqq, cfqq->last_request_pos &&
				 pos == cfqq->last_request_pos);
}

/*
 * @rq of @cic's process is about to join its sync queue @cfqq: carry out
 * a pending merge, or merge at once with the queue in service if @rq
 * makes them cooperators. Returns the queue @rq joins.
 */
struct cfq_queue *__cfq_coop_merge_rq(struct cfq_data *cfqd,
				      struct cfq_io_cq *cic,
				      struct cfq_queue *cfqq, struct request *rq)
{
	if (!cfqq->new_cfqq && cfq_rq_cooperates(cfqd, cfqq, rq))
		cfq_setup_merge(cfqd, cfqq, cfqd->active_queue);
	if (cfqq->new_cfqq)
		cfqq = cfq_merge_cfqqs(cfqd, cic, cfqq);
	return cfqq;
}

/*
 * @cic's process leaves the shared queue @cfqq that turned seeky, and
 * needs a queue of its own (NULL); the last process keeps @cfqq.
 */
struct cfq_queue *cfq_split_cfqq(struct cfq_data *cfqd, struct cfq_io_cq *cic,
				 struct cfq_queue *cfqq)
{
	if (cfqq->procs == 1) {
		cfq_log_cfqq(cfqd, cfqq, "split: last process keeps it");
		cfqq->pid = task_pid_nr(current);
		cfqq->coop = 0;
		cfqq->split_coop = 0;
		return cfqq;
	}
	cfq_log_cfqq(cfqd, cfqq, "split");
	cic->cfqq[1] = NULL;
	cfq_exit_cfqq(cfqd, cfqq);
	return NULL;
}
