/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CFQ, the Completely Fair Queueing I/O scheduler, as a blk-mq elevator:
 * shared structures and the small pure-logic helpers (slice arithmetic,
 * service-tree keys, request selection) that the unit tests exercise.
 *
 * Locking: all scheduler state of a device lives under cfq_data->lock, an
 * irq-safe spinlock (the idle hrtimer fires in hard-irq context and requests
 * complete from interrupts). Lock order: q->queue_lock -> cfqd->lock and
 * ioc->lock -> cfqd->lock; cfq never takes queue_lock or ioc->lock while
 * holding cfqd->lock. Each struct below says what guards its fields; a
 * field read without its lock is accessed with READ_ONCE()/WRITE_ONCE()
 * and says so.
 */
#ifndef _CFQ_H
#define _CFQ_H

#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/blktrace_api.h>
#include <linux/hrtimer.h>
#include <linux/iocontext.h>
#include <linux/ioprio.h>
#include <linux/math64.h>
#include <linux/rbtree.h>
#include <linux/refcount.h>
#include <linux/time64.h>

#include "elevator.h"
#include "blk-cgroup.h"
#include "blk-cgroup-rwstat.h"
#include "blk-mq-debugfs.h"
#include "cfq-compat.h"

/* Tunable defaults (times in ns, as stored) */
#define CFQ_QUANTUM		8
#define CFQ_FIFO_EXPIRE_SYNC	(NSEC_PER_SEC / 8)	/* 125 ms */
#define CFQ_FIFO_EXPIRE_ASYNC	(NSEC_PER_SEC / 4)	/* 250 ms */
#define CFQ_BACK_SEEK_MAX	(16 * 1024)		/* KiB */
#define CFQ_BACK_SEEK_PENALTY	2
#define CFQ_SLICE_SYNC		(NSEC_PER_SEC / 10)	/* 100 ms */
#define CFQ_SLICE_ASYNC		(NSEC_PER_SEC / 25)	/* 40 ms */
#define CFQ_SLICE_ASYNC_RQ	2
#define CFQ_SLICE_IDLE		(NSEC_PER_SEC / 125)	/* 8 ms */
#define CFQ_GROUP_IDLE		(NSEC_PER_SEC / 125)	/* 8 ms */
#define CFQ_TARGET_LATENCY	(NSEC_PER_SEC * 3 / 10)	/* 300 ms */
#define CFQ_STARTUP_BOOST	(NSEC_PER_SEC * 4)	/* 4 s, cfq only */

/* Internal constants */
#define CFQ_SLICE_SCALE		5	/* slice step per ioprio level: 1/5 */
#define CFQ_SLICE_FLOOR_IDLES	3	/* low_latency floor, in idle windows */
#define CFQ_IDLE_DELAY		(NSEC_PER_SEC / 5)	/* IDLE-class key spacing */
#define CFQ_IDLE_GRACE		(NSEC_PER_SEC / 10)	/* quiet time before IDLE */
#define CFQ_IDLE_STARVE		NSEC_PER_SEC	/* IDLE class starvation bound */
#define CFQ_PREEMPT_LEAD	NSEC_PER_SEC	/* front insertion lead */
/* a boosting round's parts, boosted : others = 9 : 2 (see cfq-tree.c) */
#define CFQ_BOOST_PARTS_BOOSTED	9
#define CFQ_BOOST_PARTS_OTHERS	2
#define CFQ_BOOST_ROUND		3	/* group slices in a boosting round */
#define CFQ_BOOST_AFTER		(NSEC_PER_SEC / 10)	/* busy before a boost */
#define CFQ_BOOST_SECTORS	((sector_t)64 << 11)	/* 64 MiB */
/*
 * The floors in jiffies (this one, and a jiffy in cfq_slice_usage() and
 * cfq_should_wait_busy()) are CFQ's, from when its timers counted
 * jiffies: a workload slice of at least 2 jiffies, a charge of at least
 * one. They stay in jiffies (2-8 ms for HZ 1000-250; Debian's kernels have
 * HZ 250) so that the shortest turns cost what they cost in CFQ; they were
 * not re-tuned in ns.
 */
#define CFQ_MIN_TT		(2 * NSEC_PER_SEC / HZ)	/* minimum workload slice */
#define CFQ_HW_QUEUE_MIN	5	/* depth that proves device queueing */
#define CFQ_HW_TAG_SAMPLES	50
#define CFQ_HIST_DIVISOR	4
#define CFQ_SERVICE_SHIFT	12	/* fixed point of cfq_group.vfraction */
/*
 * Seeks, with CFQ 4.20's numbers (not re-tuned here): a jump of more than
 * 400 KiB counts as a seek; within 4 MiB of the head a request is "close"
 * for preemption and cooperators (on hddsim such a seek costs a small
 * part of the ~10 ms of a random one). On a non-rotational device what
 * costs is small requests: under 32 KiB. A queue is seeky if more than
 * half of its last 32 requests were seeks. CFQ 4.20 said more than 4
 * (1/8); then a process reading 4-block runs at random places, 3 of its
 * 4 requests contiguous, was seeky and lost the disk after each request:
 * idling for a queue whose next request is close at least half the time
 * saves more seeks than the think time it waits (B4 on 6.12: 635 runs
 * with CFQ's threshold, 1360 with this one, both without head order).
 */
#define CFQQ_SEEK_THR		((sector_t)8 * 100)	/* sectors */
#define CFQQ_CLOSE_THR		((sector_t)8 * 1024)	/* sectors */
#define CFQQ_SECT_THR_NONROT	((sector_t)2 * 32)	/* sectors */
#define CFQQ_SEEKY(cfqq)	(hweight32((cfqq)->seek_history) > 32 / 2)
#define CFQ_NEAR_SCAN		32	/* candidates of the head order */
#define CFQ_TTIME_VALID		80	/* think time samples needed */

/* Service classes; the order is the array index in cfq_group */
enum wl_class_t {
	BE_WORKLOAD = 0,
	RT_WORKLOAD = 1,
	IDLE_WORKLOAD = 2,
	CFQ_PRIO_NR,
};

/* Workload types inside a class */
enum wl_type_t {
	ASYNC_WORKLOAD = 0,
	SYNC_NOIDLE_WORKLOAD = 1,
	SYNC_WORKLOAD = 2,
};

/*
 * What cfq waits for while it holds the disk back (cfq_data.wait), set
 * where the idle timer is armed. The first two are waits of the active
 * queue, the last has no active queue.
 */
enum cfq_wait {
	CFQ_WAIT_NONE = 0,	/* not waiting: dispatch whatever is chosen */
	CFQ_WAIT_QUEUE,		/* slice_idle: the active queue's next request */
	CFQ_WAIT_GROUP,		/* group_idle: a request of its group's queues */
	CFQ_WAIT_IDLE_CLASS,	/* the quiet time before IDLE class is served */
};

/* Whether the device queues requests internally (NCQ), as learnt */
enum cfq_hw_tag {
	CFQ_HW_UNKNOWN = 0,	/* not enough samples yet: treated as queueing */
	CFQ_HW_NO_QUEUEING,
	CFQ_HW_QUEUEING,	/* proven; stays so */
};

/* Exponentially weighted think time of a process or a service tree */
struct cfq_ttime {
	u64 last_end_request;	/* ns of the last completion */
	u64 ttime_total;
	u64 ttime_mean;
	unsigned long ttime_samples;
};

/*
 * A service tree: busy queues ordered by rb_key, leftmost served first.
 * Under cfqd->lock.
 */
struct cfq_rb_root {
	struct rb_root_cached rb;
	unsigned int count;
	struct cfq_ttime ttime;
};

#define CFQ_RB_ROOT	((struct cfq_rb_root){ .rb = RB_ROOT_CACHED, })

struct cfq_data;
struct cfq_group;

/*
 * Per-process sync queue, or an async queue shared per (class, level).
 * Every field is under cfqd->lock. References (ref): each request that
 * points at the queue (RQ_CFQQ), each cfq_io_cq slot, a group's pin of
 * its shared async queues, a pending merge (new_cfqq).
 */
struct cfq_queue {
	int ref;
	struct cfq_data *cfqd;
	struct cfq_group *cfqg;

	/* position on a service tree */
	struct rb_node rb_node;
	u64 rb_key;
	struct cfq_rb_root *service_tree;

	/* queued requests: by sector, and by arrival for the FIFO */
	struct rb_root sort_list;
	struct request *next_rq;
	struct list_head fifo;
	int queued[2];		/* [async, sync] */
	int dispatched;		/* in the driver */
	int prio_pending;	/* queued REQ_PRIO requests */

	/* slice state, ns */
	u64 dispatch_start;
	u64 slice_start;
	u64 slice_end;
	u64 allocated_slice;
	s64 slice_resid;	/* left over (+) or overrun (-) of last slice */
	unsigned int slice_dispatch;
	sector_t turn_sectors;	/* dispatched since the queue's activation */
	sector_t first_sectors;	/* of those, dispatched before its slice start */

	unsigned short ioprio, ioprio_class;
	pid_t pid;

	/* enqueue heuristics */
	u32 seek_history;
	sector_t last_request_pos;
	struct cfq_ttime ttime;	/* think time of the process(es) */

	/* close cooperators (cfq-coop.c) */
	struct rb_node p_node;		/* on p_root by next_rq's sector */
	struct rb_root *p_root;		/* the group's prio tree, or NULL */
	struct cfq_queue *new_cfqq;	/* pending merge target: a reference */
	int procs;			/* io contexts whose sync queue it is */

	unsigned int on_rr:1;		/* on a service tree (busy) */
	unsigned int must_dispatch:1;	/* FIFO forces the next dispatch */
	unsigned int fifo_expire:1;	/* FIFO already forced this slice */
	unsigned int idle_window:1;	/* idling pays off for this queue */
	unsigned int prio_changed:1;	/* recompute ioprio at next insert */
	unsigned int slice_new:1;	/* slice not started (no completion) */
	unsigned int sync:1;
	unsigned int deep:1;		/* has shown queue depth >= 4 */
	unsigned int exited:1;		/* no process uses it any more */
	unsigned int wait_busy:1;	/* slice stretched to keep the group */
	unsigned int coop:1;		/* merged: shared by processes */
	unsigned int contig:1;		/* last request continued the one before */
	unsigned int split_coop:1;	/* merged and turned seeky: split */
	unsigned int boosted:1;		/* start-up boost (cfq-tree.c) */
	u64 boost_end;			/* when the boost ends, ns */
	sector_t boost_left;		/* and after how much more I/O */
};

/*
 * Per io_context x device: the process's queues on this device. cfqq[] and
 * ioprio under cfqd->lock; the icq itself belongs to the block layer
 * (ioc->lock, q->queue_lock).
 */
struct cfq_io_cq {
	struct io_cq icq;		/* must be first */
	struct cfq_queue *cfqq[2];	/* [async, sync] */
	int ioprio;			/* last seen ioc->ioprio */
};

/*
 * Per-group counters shown in the cgroup files. Updated, moved to the
 * parent when a group goes offline, and read for the files, all under
 * cfqd->lock (cfqg_stats_read()). The by-direction arrays are indexed by
 * enum blkg_rwstat_type.
 */
struct cfqg_stats {
	u64 bytes[BLKG_RWSTAT_NR];	/* dispatched bytes */
	u64 ios[BLKG_RWSTAT_NR];	/* dispatched requests */
	u64 wait_time[BLKG_RWSTAT_NR];	/* ns from allocation to dispatch */
	u64 time;			/* disk time used, ns */
	u64 idle_time;			/* ns spent idling for the group */
	u64 dequeue;			/* times the group left the tree */
	u64 boost_time;			/* disk time used boosted, ns */
};

/* Whose turn it is inside a group (start-up boost, cfq-tree.c) */
enum cfq_boost_turn {
	CFQ_TURN_ANY,		/* not boosting: keys decide */
	CFQ_TURN_BOOSTED,	/* the boosted queues' */
	CFQ_TURN_OTHERS,	/* the other queues' */
};

/*
 * A group of queues sharing the device: one per (cgroup x device), the
 * policy data of the blkcg_gq (see cfq-group.c for its lifetime rules).
 * It owns the per-class service trees of its queues and its async queues,
 * and sits on the device's group service tree, ordered by vdisktime,
 * while it has busy queues. Freed an RCU grace period after its last
 * reference, as the cgroup file printers may still be reading it.
 *
 * Locking: the scheduling fields (tree position, shares, service trees,
 * counts, saved workload, async queues) and the stats are under
 * cfqd->lock, as is online (cleared by pd_offline under it). cfqd and
 * parent are set in pd_init and never change; ref is atomic. The
 * configured weights (new_*, dev_*) are written by the cgroup files under
 * blkcg->lock or queue_lock and read by the scheduler with READ_ONCE().
 */
struct cfq_group {
	struct blkg_policy_data pd;	/* must be first */
	refcount_t ref;
	struct rcu_head rcu_head;	/* the deferred free */
	struct cfq_data *cfqd;
	struct cfq_group *parent;	/* pinned: holds a reference */
	bool online;			/* false once pd_offline ran */

	/* position on cfqd->grp_st */
	struct rb_node rb_node;
	u64 vdisktime;
	unsigned int vdisk_gen;		/* cfqd->vdisk_gen it was charged in */

	/* hierarchical share (CFQ 4.20's vfraction) */
	unsigned int weight;		/* in use, against the siblings */
	unsigned int leaf_weight;	/* in use, own queues vs children */
	unsigned int new_weight;	/* configured, applied when inactive */
	unsigned int new_leaf_weight;
	unsigned int dev_weight;	/* per-device override, 0: none */
	unsigned int dev_leaf_weight;
	unsigned int children_weight;	/* of the active children and leaf */
	int nr_active;			/* active children, +1 for own queues */

	/* [BE/RT][ASYNC/SYNC_NOIDLE/SYNC], plus one tree for IDLE */
	struct cfq_rb_root service_trees[2][3];
	struct cfq_rb_root service_tree_idle;

	unsigned int nr_cfqq;		/* busy queues of this group */
	unsigned int nr_boosted;	/* of them, boosted (cfq-tree.c) */
	/* while boosting: whose turn it is, and the ns it has used so far */
	enum cfq_boost_turn boost_turn;
	u64 boost_turn_used;
	/* busy sync queues by next_rq sector, per ioprio level (zeroed: empty) */
	struct rb_root prio_trees[IOPRIO_NR_LEVELS];
	unsigned int vfraction;		/* device share, 1 << SERVICE_SHIFT */
	unsigned int busy_queues_avg[CFQ_PRIO_NR];
	int dispatched;			/* requests in the driver */
	unsigned int nr_writes;		/* writes holding a tag (queued/driver) */
	struct cfq_ttime ttime;		/* think time of the group as a whole */

	/* workload in progress when the group was last switched out */
	u64 saved_wl_slice;
	enum wl_type_t saved_wl_type;
	enum wl_class_t saved_wl_class;

	struct cfq_queue *async_cfqq[2][IOPRIO_NR_LEVELS];
	struct cfq_queue *async_idle_cfqq;

	struct cfqg_stats stats;
	struct cfqg_stats dead_stats;	/* of removed descendants */
};

/*
 * Per device. Freed an RCU grace period after exit_sched(): a cgroup file
 * printer that found a group before the policy was deactivated may still
 * take its cfqd->lock.
 *
 * Locking: everything under lock, except: queue and root_group, set in
 * init_sched; rq_queued and wait, written under the lock and read without
 * it by has_work() and bio_merge() (READ_ONCE); dispatch, whose emptiness
 * has_work() tests with list_empty_careful(); async_depth, written by
 * depth_updated() (the queue frozen) and read by limit_depth(); and the
 * depth_task/depth_limit hand-off, read by limit_depth() without the lock
 * (see cfq_limit_depth()). The tunables are written by sysfs under lock.
 */
struct cfq_data {
	struct request_queue *queue;
	spinlock_t lock;
	struct rcu_head rcu_head;	/* the deferred free */

	struct cfq_group *root_group;
	struct rb_root_cached grp_st;	/* busy groups by vdisktime */
	unsigned int nr_busy_groups;
	u64 min_vdisktime;		/* only moves forward */
	unsigned int vdisk_gen;		/* bumped when the charge unit changes */
	bool vdisk_iops;		/* vdisktime counts requests, not ns */
	struct cfq_group *idle_cfqg;	/* group charged for the idle wait */
	u64 idle_start;
	enum wl_class_t serving_wl_class;
	enum wl_type_t serving_wl_type;
	u64 workload_expires;

	u64 clock;			/* latest time cfq_clock() saw, ns */
	struct cfq_queue *active_queue;
	struct list_head dispatch;	/* requeues, at-head and passthrough */
	struct cfq_queue *bio_cfqq;	/* merge target of the bio in merge */

	unsigned int busy_queues;
	/* busy since, ns: gaps without busy queues shorter than
	 * CFQ_BOOST_AFTER do not count (cfq-tree.c)
	 */
	u64 busy_since;
	u64 idle_since;			/* busy_queues fell to 0, ns */
	/* when the last expiry was a boosted queue's that left requests in
	 * flight, its time in ns; else 0 (cfq_boosted_time())
	 */
	u64 boost_inflight_at;
	unsigned int busy_sync_queues;
	int rq_queued;
	int rq_in_driver;
	int rq_in_flight[2];
	bool declined;			/* refused dispatch with work queued */
	enum cfq_wait wait;		/* what the idle timer is armed for */

	enum cfq_hw_tag hw_tag;
	int hw_tag_est_depth;
	unsigned int hw_tag_samples;

	struct hrtimer idle_slice_timer;
	sector_t last_position;		/* end of the last dispatched request */
	u64 last_delayed_sync;
	u64 last_nonidle;		/* last non-IDLE-class activity */
	u64 idle_class_served;		/* last IDLE-class dispatch */

	unsigned int async_depth[2];	/* tag limits [async, sync write] */
	/* cfq_bio_merge() to cfq_limit_depth(): the depth of the write that
	 * depth_task allocates a request for next (0: no group limit)
	 */
	struct task_struct *depth_task;
	unsigned int depth_limit;

	/* tunables */
	unsigned int cfq_quantum;
	unsigned int cfq_back_max;	/* KiB */
	unsigned int cfq_back_penalty;
	unsigned int cfq_slice_async_rq;
	unsigned int cfq_latency;
	unsigned int cfq_sliding_window;
	u64 cfq_startup_boost;		/* ns; 0: no start-up boost */
	u64 cfq_fifo_expire[2];
	u64 cfq_slice[2];
	u64 cfq_slice_idle;
	u64 cfq_group_idle;
	u64 cfq_target_latency;

	struct cfq_queue oom_cfqq;	/* fallback when allocation fails */
	u64 oom_requests;		/* requests served by oom_cfqq */
};

#define RQ_CFQQ(rq)	((struct cfq_queue *)(rq)->elv.priv[0])

/* Is cfq idling for the active queue (or its group)? */
static inline bool cfq_wait_for_active(struct cfq_data *cfqd)
{
	return cfqd->wait == CFQ_WAIT_QUEUE || cfqd->wait == CFQ_WAIT_GROUP;
}

/* Do boosted and other queues compete in @cfqg (start-up boost)? */
static inline bool cfq_group_boosting(struct cfq_group *cfqg)
{
	return cfqg->nr_boosted && cfqg->nr_boosted < cfqg->nr_cfqq;
}

/* May the device queue internally? Unknown counts as yes, as in CFQ. */
static inline bool cfq_hw_may_queue(struct cfq_data *cfqd)
{
	return cfqd->hw_tag != CFQ_HW_NO_QUEUEING;
}

static inline bool cfq_class_idle(struct cfq_queue *cfqq)
{
	return cfqq->ioprio_class == IOPRIO_CLASS_IDLE;
}

static inline bool cfq_class_rt(struct cfq_queue *cfqq)
{
	return cfqq->ioprio_class == IOPRIO_CLASS_RT;
}

static inline enum wl_class_t cfqq_class(struct cfq_queue *cfqq)
{
	if (cfq_class_idle(cfqq))
		return IDLE_WORKLOAD;
	if (cfq_class_rt(cfqq))
		return RT_WORKLOAD;
	return BE_WORKLOAD;
}

static inline enum wl_type_t cfqq_type(struct cfq_queue *cfqq)
{
	if (!cfqq->sync)
		return ASYNC_WORKLOAD;
	if (!cfqq->idle_window)
		return SYNC_NOIDLE_WORKLOAD;
	return SYNC_WORKLOAD;
}

/*
 * Nominal slice of a queue at ioprio level @prio (0 highest .. 7 lowest):
 * each level away from the default 4 adds or takes 1/5 of @base, so the
 * sync slice runs from 180 ms (level 0) down to 40 ms (level 7).
 */
static inline u64 cfq_prio_slice(u64 base, unsigned int prio)
{
	u64 step = div_u64(base, CFQ_SLICE_SCALE);

	if (prio <= IOPRIO_NORM)
		return base + step * (IOPRIO_NORM - prio);
	return base - step * (prio - IOPRIO_NORM);
}

/*
 * low_latency scaling: when @busy queues at full sync slices would not fit
 * in @group_slice (the target latency share of the group), shrink @slice
 * in proportion, but not below the time of three idle windows (scaled
 * like the slice itself), so a sequential reader still gets some
 * streaming. Why three (CFQ 4.20: two): a turn's fixed cost, the seek to
 * the queue's data and a request left behind by another queue, is a
 * larger part of a short slice, so the group held to the floor reads
 * less per charged ms than one above it. With 8 direct 128 KiB readers
 * per group (B1d, weights 100:200), the lighter group's slices sat at the
 * 16 ms floor and the heavier's at 25 ms; a read takes 8 or 17 ms there,
 * so a third of the lighter group's turns served one read, and the
 * groups split 2.18 (6.12), 2.17 (6.1), 2.28 (7.3). A 24 ms floor: 2.05,
 * 2.00, 2.12, at 1-4 readers 1.94-2.00 (before 1.94-2.02). On 6.12: B4
 * 3457 runs against 3492, B6 42 KB/s (its spread between builds is
 * 39-42), B2 within 0.02x but for a reader in a sibling cgroup, where
 * the start-up went from 1.33x to 1.13x and that reader from 35.4 to
 * 16.9 MB/s.
 */
static inline u64 cfq_scale_slice(u64 slice, u64 slice_sync, u64 slice_idle,
				  unsigned int busy, u64 group_slice)
{
	u64 expect = slice_sync * busy;
	u64 low;

	if (expect <= group_slice)
		return slice;
	low = mul_u64_u64_div_u64(slice, CFQ_SLICE_FLOOR_IDLES * slice_idle,
				  slice_sync);
	low = min(slice, low);
	return max(mul_u64_u64_div_u64(slice, group_slice, expect), low);
}

/*
 * The part of a turn's start a group is charged for (see
 * cfq_turn_start_usage()): of the @first ns from the queue's activation
 * to its first completion, in which @first_sectors were dispatched, the
 * time those sectors take at the rate the queue then kept in its slice
 * (@slice_sectors in @used ns), and never more than @first. Nothing when
 * the slice served nothing to measure the rate by.
 */
static inline u64 cfq_first_charge(u64 first, sector_t first_sectors,
				   u64 used, sector_t slice_sectors)
{
	if (!slice_sectors || !first_sectors)
		return 0;
	return min(first, mul_u64_u64_div_u64(used, first_sectors,
					      slice_sectors));
}

/*
 * Requests an async queue may dispatch in one turn: async queues are not
 * timed, they get 2 * slice_async_rq requests per level above 8.
 */
static inline unsigned int cfq_prio_to_maxrq(unsigned int slice_async_rq,
					     unsigned int prio)
{
	return 2 * slice_async_rq * (IOPRIO_NR_LEVELS - prio);
}

/* How far the head moves between sectors @a and @b. */
static inline sector_t cfq_dist(sector_t a, sector_t b)
{
	return a > b ? a - b : b - a;
}

/*
 * Global sliding window (Tejun Heo's 2005 CFQ proposal): the head sweeps
 * the disk upwards. The next request of a queue is the first one starting
 * at or after the window start @last - 2 * @back_max_kib (KiB to sectors:
 * a short backward seek is cheap), or, when none is left above, the lowest
 * one: the sweep wraps around.
 */
static inline sector_t cfq_window_start(sector_t last,
					unsigned int back_max_kib)
{
	sector_t back = (sector_t)back_max_kib * 2;

	return last > back ? last - back : 0;
}

static inline struct request *cfq_window_pick(struct rb_root *sort_list,
					      sector_t start)
{
	struct rb_node *n = sort_list->rb_node;
	struct request *best = NULL;

	while (n) {
		struct request *rq = rb_entry_rq(n);

		if (blk_rq_pos(rq) >= start) {
			best = rq;
			n = n->rb_left;
		} else {
			n = n->rb_right;
		}
	}
	if (!best && sort_list->rb_node)
		best = rb_entry_rq(rb_first(sort_list));
	return best;
}

/* The cached successor of @rq in the window sweep: next up, or wrap. */
static inline struct request *cfq_window_next(struct rb_root *sort_list,
					      struct request *rq)
{
	struct rb_node *n = rb_next(&rq->rb_node);

	if (!n)
		n = rb_first(sort_list);
	if (n == &rq->rb_node)
		return NULL;
	return rb_entry_rq(n);
}

/*
 * The cost of moving the head from @last to @s: the distance forward, or
 * @penalty times the distance back within @back_max sectors. False if @s
 * lies further back: the request "wraps".
 */
static inline bool cfq_head_dist(sector_t s, sector_t last,
				 sector_t back_max, unsigned int penalty,
				 sector_t *dist)
{
	if (s >= last)
		*dist = s - last;
	else if (s + back_max >= last)
		*dist = (last - s) * penalty;
	else
		return false;	/* wraps */
	return true;
}

/*
 * CFQ's neighbour rule (sliding_window=0): of two candidates, prefer sync,
 * then REQ_PRIO, then the one closer to the head at @last. A backward
 * distance within @back_max sectors counts @penalty times; beyond that the
 * request "wraps" and loses to any non-wrapping one. If both wrap, the
 * lower sector wins (one long seek back, then forward again).
 */
static inline struct request *cfq_choose_req(struct request *rq1,
					     struct request *rq2,
					     sector_t last, sector_t back_max,
					     unsigned int penalty)
{
	sector_t s1, s2, d1 = 0, d2 = 0;
	bool near1, near2;

	if (!rq1 || rq1 == rq2)
		return rq2;
	if (!rq2)
		return rq1;
	if (rq_is_sync(rq1) != rq_is_sync(rq2))
		return rq_is_sync(rq1) ? rq1 : rq2;
	if ((rq1->cmd_flags ^ rq2->cmd_flags) & REQ_PRIO)
		return rq1->cmd_flags & REQ_PRIO ? rq1 : rq2;

	s1 = blk_rq_pos(rq1);
	s2 = blk_rq_pos(rq2);
	near1 = cfq_head_dist(s1, last, back_max, penalty, &d1);
	near2 = cfq_head_dist(s2, last, back_max, penalty, &d2);
	if (near1 && near2) {
		if (d1 != d2)
			return d1 < d2 ? rq1 : rq2;
		return s1 >= s2 ? rq1 : rq2;
	}
	if (near1 != near2)
		return near1 ? rq1 : rq2;
	return s1 <= s2 ? rq1 : rq2;
}

/*
 * Think time: exponentially weighted mean (weight 1/8) of the gap between
 * a completion and the next request, each gap capped at 2 * @idle so one
 * long pause does not poison the mean; valid after three samples.
 */
/*
 * cfq's clock, read under cfqd->lock. It takes the block layer's time
 * (cfq_blk_time_ns()): in the submitting task, inside its plug, that is
 * the time the plug cached when the request was allocated, so the
 * dispatch and an inline completion (null_blk, polled I/O) that follow
 * the insert read no clock of their own (B5 on 6.12: QD1 +0.5 %,
 * QD32 +0.4 % IOPS; B4 3487 runs, 3442-3492 before).
 * A cached time is older than the present by up to the plug's life (a
 * flusher's plug lives until the task sleeps or is preempted), so a
 * reading may be older than one taken earlier in another context, e.g.
 * by the idle timer. cfq subtracts stamps from the present (think time,
 * slice usage, the IDLE class's starvation): the clock never goes back
 * from the latest time it returned, so every stamp is at most now.
 */
static inline u64 cfq_clock_at(struct cfq_data *cfqd, u64 t)
{
	lockdep_assert_held(&cfqd->lock);
	if (t > cfqd->clock)
		cfqd->clock = t;
	return cfqd->clock;
}

static inline u64 cfq_clock(struct cfq_data *cfqd)
{
	return cfq_clock_at(cfqd, cfq_blk_time_ns());
}

static inline void cfq_ttime_update(struct cfq_ttime *t, u64 now, u64 idle)
{
	u64 elapsed = 0;

	if (now > t->last_end_request)
		elapsed = min(now - t->last_end_request, 2 * idle);
	t->ttime_samples = (7 * t->ttime_samples + 256) / 8;
	t->ttime_total = div_u64(7 * t->ttime_total + 256 * elapsed, 8);
	t->ttime_mean = div64_ul(t->ttime_total + 128, t->ttime_samples);
}

static inline bool cfq_ttime_big(struct cfq_ttime *t, u64 idle)
{
	return t->ttime_samples > CFQ_TTIME_VALID && t->ttime_mean > idle;
}

/* cfq-group.c */
int cfq_register_policy(void);
void cfq_unregister_policy(void);
int cfq_init_groups(struct cfq_data *cfqd);
void cfq_exit_groups(struct cfq_data *cfqd);
void cfqg_get(struct cfq_group *cfqg);
void cfqg_put(struct cfq_group *cfqg);
struct cfq_group *cfq_bio_group(struct cfq_data *cfqd, struct bio *bio);
unsigned int cfq_group_write_depth(struct cfq_data *cfqd,
				   struct cfq_group *cfqg, bool sync);
bool cfq_group_is_ancestor(struct cfq_group *anc, struct cfq_group *cfqg);
struct cfq_queue **cfq_async_queue_slot(struct cfq_group *cfqg,
					int ioprio_class, int level);
void cfqg_stats_dispatch(struct cfq_group *cfqg, struct request *rq, u64 now);
void cfqg_stats_dequeue(struct cfq_group *cfqg);
void cfqg_stats_time(struct cfq_group *cfqg, u64 used);
void cfqg_stats_boost_time(struct cfq_group *cfqg, u64 used);
void cfqg_stats_idle_start(struct cfq_data *cfqd, struct cfq_group *cfqg,
			   u64 now);
void cfqg_stats_idle_end(struct cfq_data *cfqd, u64 now);

/* cfq-tree.c */
void cfq_add_cfqq_rr(struct cfq_data *cfqd, struct cfq_queue *cfqq);
void cfq_del_cfqq_rr(struct cfq_data *cfqd, struct cfq_queue *cfqq);
void cfq_service_tree_add(struct cfq_data *cfqd, struct cfq_queue *cfqq,
			  bool add_front);
void cfq_group_served(struct cfq_data *cfqd, struct cfq_group *cfqg,
		      struct cfq_queue *cfqq, u64 now);
u64 cfq_cfqq_slice(struct cfq_data *cfqd, struct cfq_queue *cfqq);
struct cfq_queue *cfq_choose_queue(struct cfq_data *cfqd, u64 now);
struct cfq_queue *cfq_nearer_queue(struct cfq_data *cfqd,
				   struct cfq_queue *cur, u64 now);
bool cfq_seek_ends_turn(struct cfq_data *cfqd, struct cfq_queue *cur, u64 now);
void cfq_boost_start(struct cfq_data *cfqd, struct cfq_queue *cfqq, u64 now);
void cfq_boost_update(struct cfq_data *cfqd, struct cfq_queue *cfqq, u64 now);
bool cfq_boost_holds_turn(struct cfq_queue *active, struct cfq_queue *new);

/* cfq-iosched.c */
struct cfq_queue *cfq_free_queue(struct cfq_queue *cfqq);

/* Drop a reference; the last one frees, along a chain of merge targets. */
static inline void cfq_put_queue(struct cfq_queue *cfqq)
{
	while (cfqq && !--cfqq->ref)
		cfqq = cfq_free_queue(cfqq);
}

void cfq_exit_cfqq(struct cfq_data *cfqd, struct cfq_queue *cfqq);
void cfq_update_next_rq(struct cfq_data *cfqd, struct cfq_queue *cfqq,
			struct request *rq);
void cfq_remove_request(struct request_queue *q, struct request *rq);

/* cfq-dispatch.c */
void cfq_kick_dispatch(struct cfq_data *cfqd);

/* Re-run dispatch if cfq holds requests (at each completion of a QD1 I/O) */
static inline void cfq_schedule_dispatch(struct cfq_data *cfqd)
{
	if (cfqd->rq_queued || !list_empty(&cfqd->dispatch))
		cfq_kick_dispatch(cfqd);
}

void cfq_cancel_idle_timer(struct cfq_data *cfqd);
bool cfq_slice_used(struct cfq_queue *cfqq, u64 now);
void cfq_slice_expired(struct cfq_data *cfqd, bool timed_out);
bool cfq_should_idle(struct cfq_data *cfqd, struct cfq_queue *cfqq);
enum hrtimer_restart cfq_idle_slice_timer(struct hrtimer *timer);
struct request *cfq_dispatch_request(struct blk_mq_hw_ctx *hctx);
bool cfq_has_work(struct blk_mq_hw_ctx *hctx);
void cfq_completed_request(struct cfq_data *cfqd, struct cfq_queue *cfqq,
			   struct request *rq);

/* cfq-coop.c */
void __cfq_prio_tree_add(struct cfq_queue *cfqq);
struct cfq_queue *__cfq_close_cooperator(struct cfq_data *cfqd,
					 struct cfq_queue *cur, u64 now);
void cfq_setup_merge(struct cfq_data *cfqd, struct cfq_queue *cfqq,
		     struct cfq_queue *new_cfqq);
struct cfq_queue *__cfq_coop_merge_rq(struct cfq_data *cfqd,
				      struct cfq_io_cq *cic,
				      struct cfq_queue *cfqq, struct request *rq);

/*
 * The per-request hooks of cfq-coop.c, with their common cases decided
 * inline: a single queue on a non-rotational device (B5, 6.12 QD1) paid
 * about 100 ns of guest time per I/O for the calls alone.
 */
static inline void cfq_prio_tree_add(struct cfq_queue *cfqq)
{
	if (cfqq->p_root ||
	    (cfqq->sync && !cfq_queue_nonrot(cfqq->cfqd->queue)))
		__cfq_prio_tree_add(cfqq);
}

static inline struct cfq_queue *cfq_close_cooperator(struct cfq_data *cfqd,
						     struct cfq_queue *cur,
						     u64 now)
{
	if (cur->cfqg->nr_cfqq == 1)
		return NULL;
	return __cfq_close_cooperator(cfqd, cur, now);
}

static inline struct cfq_queue *cfq_coop_merge_rq(struct cfq_data *cfqd,
						  struct cfq_io_cq *cic,
						  struct cfq_queue *cfqq,
						  struct request *rq)
{
	if (!cfqq->new_cfqq &&
	    (!cfqd->active_queue || cfqd->active_queue == cfqq))
		return cfqq;
	return __cfq_coop_merge_rq(cfqd, cic, cfqq, rq);
}
struct cfq_queue *cfq_split_cfqq(struct cfq_data *cfqd, struct cfq_io_cq *cic,
				 struct cfq_queue *cfqq);

/* cfq-sysfs.c */
extern struct elv_fs_entry cfq_attrs[];
void cfq_init_tunables(struct cfq_data *cfqd);

/* cfq-debugfs.c */
#ifdef CONFIG_BLK_DEBUG_FS
extern const struct blk_mq_debugfs_attr cfq_queue_debugfs_attrs[];
#endif

/* blktrace notes, CFQ style: "cfq<pid>S" / "cfq<pid>A" for queues */
#define cfq_log_cfqq(cfqd, cfqq, fmt, args...)				\
	blk_add_trace_msg((cfqd)->queue, "cfq%d%c%c " fmt, (cfqq)->pid,	\
			  (cfqq)->sync ? 'S' : 'A',			\
			  cfqq_type(cfqq) == SYNC_NOIDLE_WORKLOAD ? 'N' : ' ', \
			  ##args)
#define cfq_log(cfqd, fmt, args...)					\
	blk_add_trace_msg((cfqd)->queue, "cfq " fmt, ##args)

#endif /* _CFQ_H */
