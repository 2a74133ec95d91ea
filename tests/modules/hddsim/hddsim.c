// SPDX-License-Identifier: GPL-2.0
/*
 * hddsim - an emulated rotational disk, or a striped array of them, as a
 * blk-mq block driver, to test and benchmark I/O schedulers on a device
 * whose service time depends on where its head is.
 *
 * Data.  Memory backed and sparse: each 4 KiB page of the device is
 * allocated on its first write and kept in an xarray indexed by page
 * number; a page never written reads as zeros; a discard frees the pages
 * it covers entirely.  The data is copied when the request is queued,
 * standing for the DMA, which overlaps the modelled service.
 *
 * Geometry.  A spindle is one spiral of sectors passing under the head at
 * the media rate: one sector every sector_t = 512 B / xfer (2.94 us at
 * 174 MB/s), one revolution every rev = 60 s / rpm (8.33 ms at 7200 rpm),
 * so a track holds rev / sector_t sectors (~2832, 1.45 MB).  Local sector
 * s lies on track floor(s * sector_t / rev), at angle (s * sector_t) mod
 * rev.  Tracks are perfectly skewed (a transfer crossing a track boundary
 * goes on at the media rate).
 *
 * Service time of a read or write of n sectors at local sector s, which
 * the spindle starts at modelled time t0 (its arrival, or the end of the
 * previous command if the spindle was busy):
 *
 *   service = seek + rotation + transfer
 *
 *   transfer = n * sector_t
 *   seek     = 0 if s is on the head's track, else, for a distance of d
 *              tracks out of T:  t2t + (full - t2t) * sqrt((d - 1) / (T - 1))
 *              (0.23 ms to the next track, 15 ms across the spindle; the
 *              mean over uniformly random pairs is t2t + (full - t2t) * 8/15
 *              = 8.1 ms)
 *   rotation = the wait, after the seek ends at t1, for sector s to come
 *              round: (angle(s) - platter(t1)) mod rev, where the platter
 *              angle is platter(t) = (t - epoch) mod rev; 4.17 ms on
 *              average for random requests.
 *
 * Streaming: a command starting exactly at the head (the sector after the
 * previous transfer), which the spindle gets to within seq_window_us
 * (default one revolution) of the end of the previous command, pays no
 * seek and no rotation.  A real disk reads ahead into its buffer after a
 * read, and takes a sequential write into its cache; without this rule a
 * sequential stream at queue depth 1 would lose a revolution per request,
 * as each arrives a few microseconds after its predecessor completed and
 * its sector has just gone by.  The media is taken to have streamed on
 * meanwhile, up to a window's worth ahead: with media_at the time at which
 * the data up to the head came under it,
 *
 *   m = max(media_at, t0 - window);  media_at = m + transfer;
 *   completion = max(t0, media_at)
 *
 * so a stream never beats the transfer rate by more than the window's
 * worth, gaps between its requests shorter than their transfer time cost
 * nothing, and a reader slower than the media is served from the buffer.
 *
 * Defaults (a 7200 rpm SATA disk): sequential 174 MB/s; random 4 KiB
 * reads at queue depth 1: 1 / (8.1 + 4.17 + 0.02 ms) = 81 IOPS over the
 * whole disk, 120 IOPS over a quarter of it (mean seek 4.2 ms).
 *
 * Queueing.  The device accepts "depth" commands per spindle (its blk-mq
 * budget; the others wait in the I/O scheduler).  At depth 1 a spindle
 * serves one command at a time in arrival order.  At depth > 1, whenever
 * it becomes free it starts, among its first "depth" queued commands, the
 * one with the shortest positioning time (seek + rotation) from where its
 * head is, as NCQ does; the oldest command goes first once it has waited
 * ncq_max_wait_ms, so that none starves.
 *
 * Array mode (array=1): "spindles" disks striped with chunks of chunk_kb:
 * device sector x is in chunk c = x / chunk, on spindle c mod N, at local
 * sector (c / N) * chunk + x mod chunk.  Each spindle has its own head,
 * queue and timer, so streams on different spindles proceed in parallel.
 * The queue's chunk_sectors limit makes the block layer split reads and
 * writes at chunk boundaries, as for md raid0, so a request never spans
 * spindles; should one do so anyway, the spindle of its first chunk serves
 * all of it.  The array accepts depth * spindles commands in all; those
 * for a spindle whose own queue already holds "depth" wait in arrival
 * order in front of it, as in an array controller.
 *
 * Completion.  queue_rq copies the data, queues the command and returns;
 * it never waits for the model.  A spindle's hrtimer fires at the modelled
 * completion time and starts the next command at that modelled time, not
 * when the callback ran, so timer latency does not accumulate.  Given the
 * arrival times of the requests (deterministic under QEMU -icount) the
 * model is deterministic.
 *
 * The device has no volatile write cache, so the block layer sends no
 * flushes; one that comes anyway completes at once, as does a discard.
 *
 * Statistics: /sys/block/hddN/hddsim/stats, "name value" lines: requests
 * (reads and writes served), reads, writes, flushes, discards, bytes, seeks
 * (commands not starting at the head), seek_sectors (sum of |start - head|
 * over those), seek_ns, rot_ns, xfer_ns and busy_ns (seek + rotation +
 * transfer), summed over the spindles; for an array, then one line per
 * spindle: "spindleI requests seeks seek_sectors seek_ns rot_ns xfer_ns
 * busy_ns bytes".  Writing anything to /sys/block/hddN/hddsim/reset zeroes
 * them.  /sys/block/hddN/hddsim/model shows the derived geometry (tracks,
 * sector_ps, rev_ps...).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/highmem.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/math.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/rwsem.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <linux/version.h>
#include <linux/xarray.h>

/* Merging is what blk-mq does unless told not to since 6.14 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 14, 0)
#define HDDSIM_MQ_F_MERGE	0
#else
#define HDDSIM_MQ_F_MERGE	BLK_MQ_F_SHOULD_MERGE
#endif

#define HDDSIM_MAX_DEVICES	16
#define HDDSIM_MAX_DEPTH	32
#define HDDSIM_MAX_SPINDLES	32
#define HDDSIM_MAX_CAPACITY_MB	(1024UL * 1024)	/* 1 TiB keeps s * sector_t in u64 */
#define HDDSIM_MINORS		16
#define HDDSIM_MIN_TAGS		64		/* scheduler nr_requests = 128 */
#define HDDSIM_MAX_SECTORS	2560		/* 1280 KiB, as sd on SATA */
#define HDDSIM_PAGE_SECTORS	(PAGE_SIZE >> SECTOR_SHIFT)
#define HDDSIM_PAGE_SECTORS_SHIFT (PAGE_SHIFT - SECTOR_SHIFT)
#define PS_PER_NS		1000ULL

static unsigned int nr_devices = 1;
module_param(nr_devices, uint, 0444);
MODULE_PARM_DESC(nr_devices, "Number of identical devices hdd0, hdd1... (1-16, default 1)");

static unsigned long capacity_mb = 4096;
module_param(capacity_mb, ulong, 0444);
MODULE_PARM_DESC(capacity_mb, "Capacity of each device in MiB, sparse (default 4096)");

static unsigned int rpm = 7200;
module_param(rpm, uint, 0444);
MODULE_PARM_DESC(rpm, "Spindle speed in revolutions per minute (default 7200)");

static unsigned int seek_t2t_us = 230;
module_param(seek_t2t_us, uint, 0444);
MODULE_PARM_DESC(seek_t2t_us, "Track-to-track seek time in us (default 230)");

static unsigned int seek_full_us = 15000;
module_param(seek_full_us, uint, 0444);
MODULE_PARM_DESC(seek_full_us, "Full-stroke seek time in us (default 15000)");

static unsigned int xfer_kbps = 174000;
module_param(xfer_kbps, uint, 0444);
MODULE_PARM_DESC(xfer_kbps, "Media transfer rate in kB/s (1000 bytes, default 174000)");

static unsigned int seq_window_us = 8333;
module_param(seq_window_us, uint, 0444);
MODULE_PARM_DESC(seq_window_us, "A command continuing the previous one within this many us pays no positioning (default 8333, one revolution)");

static unsigned int depth = 1;
module_param(depth, uint, 0444);
MODULE_PARM_DESC(depth, "Commands queued per spindle: 1 = one at a time in order, up to 32 = reordered by shortest positioning time (default 1)");

static unsigned int ncq_max_wait_ms = 1000;
module_param(ncq_max_wait_ms, uint, 0444);
MODULE_PARM_DESC(ncq_max_wait_ms, "With depth > 1, a command waiting this long goes first (0 = no limit, default 1000)");

static bool array;
module_param(array, bool, 0444);
MODULE_PARM_DESC(array, "Striped array of spindles (default 0: a single disk)");

static int spindles = -1;
module_param(spindles, int, 0444);
MODULE_PARM_DESC(spindles, "Spindles of the array (1-32, default 8 with array=1)");

static unsigned int chunk_kb = 64;
module_param(chunk_kb, uint, 0444);
MODULE_PARM_DESC(chunk_kb, "Stripe chunk in KiB, a power of two (4-65536, default 64)");

struct hddsim_stats {
	u64 requests;
	u64 seeks;		/* commands not starting at the head */
	u64 seek_sectors;	/* sum of |start - head| over those */
	u64 seek_ns;
	u64 rot_ns;
	u64 xfer_ns;
	u64 busy_ns;		/* seek + rotation + transfer */
	u64 bytes;
};

struct hddsim_dev;

struct hddsim_spindle {
	spinlock_t lock;
	struct hddsim_dev *dev;
	struct list_head pending;	/* accepted commands, arrival order */
	struct hddsim_cmd *active;	/* the command being served */
	struct hrtimer timer;
	u64 head;			/* local sector after the last transfer */
	u64 head_track;
	u64 free_at;			/* modelled end of the last command, ns */
	u64 media_at;			/* when the data up to head is read */
	struct hddsim_stats st;
};

struct hddsim_dev {
	unsigned int index;
	struct gendisk *disk;
	struct blk_mq_tag_set set;
	struct xarray pages;
	struct rw_semaphore discard_sem;	/* discard vs. data copies */
	atomic_t inflight;			/* commands holding a budget */
	unsigned int budget;
	atomic64_t reads, writes, flushes, discards;
	/* the model, shared by the spindles */
	u64 epoch;			/* ns, platter angle 0 */
	u64 sector_ps, rev_ps;
	u64 spindle_sectors, tracks;
	u64 t2t_ns, full_ns, window_ns, max_wait_ns;
	unsigned int depth, nr_spindles, chunk_shift;
	struct hddsim_spindle spindles[];
};

struct hddsim_cmd {
	struct list_head node;
	u64 lsector;			/* spindle-local start sector */
	u64 arrive;			/* ns */
	u64 done;			/* modelled completion, ns */
	unsigned int nr_sectors;
	int budget;			/* budget token, -1 when released */
};

static int hddsim_major;
static struct hddsim_dev *hddsim_devs[HDDSIM_MAX_DEVICES];

/* ---- data ---- */

static struct page *hddsim_page(struct hddsim_dev *d, pgoff_t idx)
{
	struct page *page = xa_load(&d->pages, idx), *old;

	if (page)
		return page;
	page = alloc_page(GFP_NOIO | __GFP_ZERO);
	if (!page)
		return NULL;
	old = xa_cmpxchg(&d->pages, idx, NULL, page, GFP_NOIO);
	if (old) {
		/* lost a race with another writer, or no memory for the node */
		__free_page(page);
		return xa_is_err(old) ? NULL : old;
	}
	return page;
}

static int hddsim_copy(struct hddsim_dev *d, const struct bio_vec *bv,
		       sector_t sector, bool write)
{
	unsigned int done = 0;

	while (done < bv->bv_len) {
		pgoff_t idx = sector >> HDDSIM_PAGE_SECTORS_SHIFT;
		unsigned int off = (sector & (HDDSIM_PAGE_SECTORS - 1)) << SECTOR_SHIFT;
		unsigned int len = min_t(unsigned int, bv->bv_len - done,
					 PAGE_SIZE - off);
		struct page *page;

		if (write) {
			page = hddsim_page(d, idx);
			if (!page)
				return -ENOMEM;
			memcpy_page(page, off, bv->bv_page,
				    bv->bv_offset + done, len);
		} else {
			page = xa_load(&d->pages, idx);
			if (page)
				memcpy_page(bv->bv_page, bv->bv_offset + done,
					    page, off, len);
			else
				memzero_page(bv->bv_page, bv->bv_offset + done,
					     len);
		}
		done += len;
		sector += len >> SECTOR_SHIFT;
	}
	return 0;
}

static int hddsim_transfer(struct hddsim_dev *d, struct request *rq)
{
	bool write = op_is_write(req_op(rq));
	struct req_iterator iter;
	struct bio_vec bv;
	int ret = 0;

	down_read(&d->discard_sem);
	rq_for_each_segment(bv, rq, iter) {
		ret = hddsim_copy(d, &bv, iter.iter.bi_sector, write);
		if (ret)
			break;
	}
	up_read(&d->discard_sem);
	return ret;
}

/* Free the pages that [sector, sector + nr) covers entirely. */
static void hddsim_discard(struct hddsim_dev *d, sector_t sector, u32 nr)
{
	pgoff_t first = DIV_ROUND_UP_ULL(sector, HDDSIM_PAGE_SECTORS);
	pgoff_t end = (sector + nr) >> HDDSIM_PAGE_SECTORS_SHIFT;
	struct page *page;
	unsigned long idx;

	if (first >= end)
		return;
	down_write(&d->discard_sem);
	xa_for_each_range(&d->pages, idx, page, first, end - 1) {
		xa_erase(&d->pages, idx);
		__free_page(page);
		cond_resched();
	}
	up_write(&d->discard_sem);
}

static void hddsim_free_pages(struct hddsim_dev *d)
{
	struct page *page;
	unsigned long idx;

	xa_for_each(&d->pages, idx, page)
		__free_page(page);
	xa_destroy(&d->pages);
}

/* ---- the model ---- */

static u64 hddsim_track(const struct hddsim_dev *d, u64 lsector, u64 *angle)
{
	return div64_u64_rem(lsector * d->sector_ps, d->rev_ps, angle);
}

static u64 hddsim_seek_ns(const struct hddsim_dev *d, u64 dtracks)
{
	u64 frac;

	if (!dtracks)
		return 0;
	/* sqrt((d - 1) / (T - 1)) in 16-bit fixed point; d <= T - 1 */
	frac = div64_u64((dtracks - 1) << 32, d->tracks - 1);
	return d->t2t_ns + (((d->full_ns - d->t2t_ns) * int_sqrt64(frac)) >> 16);
}

/*
 * Streaming: @cmd starts at the head, and the spindle gets to it within
 * the window of the end of the previous command; see the top comment.
 */
static bool hddsim_streams(const struct hddsim_spindle *sp,
			   const struct hddsim_cmd *cmd, u64 t0)
{
	return cmd->lsector == sp->head &&
	       t0 - sp->free_at <= sp->dev->window_ns;
}

/* Positioning time (seek + rotation) of @cmd on @sp if started at @t0. */
static u64 hddsim_position(const struct hddsim_spindle *sp,
			   const struct hddsim_cmd *cmd, u64 t0, u64 *seek)
{
	const struct hddsim_dev *d = sp->dev;
	u64 track, angle, platter, dist;

	*seek = 0;
	if (hddsim_streams(sp, cmd, t0))
		return 0;
	track = hddsim_track(d, cmd->lsector, &angle);
	dist = track > sp->head_track ? track - sp->head_track :
					sp->head_track - track;
	*seek = hddsim_seek_ns(d, dist);
	div64_u64_rem((t0 + *seek - d->epoch) * PS_PER_NS, d->rev_ps, &platter);
	if (angle < platter)
		angle += d->rev_ps;
	return *seek + div_u64(angle - platter, PS_PER_NS);
}

/*
 * Start the next command of @sp, its queue being non-empty, at modelled
 * time @t0; returns its completion time.  Called with sp->lock held.
 */
static u64 hddsim_start(struct hddsim_spindle *sp, u64 t0)
{
	struct hddsim_dev *d = sp->dev;
	struct hddsim_cmd *cmd, *best;
	u64 pos, best_pos, seek, best_seek, xfer;
	unsigned int n = 0;

	best = list_first_entry(&sp->pending, struct hddsim_cmd, node);
	/*
	 * The oldest command may have arrived after the previous one's
	 * modelled end, in the timer's latency: the spindle was idle then.
	 */
	t0 = max(t0, best->arrive);
	best_pos = hddsim_position(sp, best, t0, &best_seek);
	/*
	 * NCQ: shortest positioning time first among the drive's "depth"
	 * commands, ties to the oldest; the oldest goes first once it has
	 * waited max_wait.
	 */
	if (d->depth > 1 &&
	    (!d->max_wait_ns || t0 - best->arrive < d->max_wait_ns)) {
		list_for_each_entry(cmd, &sp->pending, node) {
			if (++n > d->depth)
				break;
			pos = hddsim_position(sp, cmd, t0, &seek);
			if (pos < best_pos) {
				best = cmd;
				best_pos = pos;
				best_seek = seek;
			}
		}
	}
	list_del(&best->node);

	xfer = div_u64((u64)best->nr_sectors * d->sector_ps, PS_PER_NS);
	if (hddsim_streams(sp, best, t0)) {
		/*
		 * The media went on streaming since the previous transfer
		 * (read-ahead into the buffer, or the write cache taking a
		 * sequential write), at most a window's worth ahead of what
		 * was asked, so the data is in the buffer or passes the head
		 * by media_at + xfer.  media_at stays on the media's timeline,
		 * so a stream never beats xfer by more than the window.
		 */
		if (sp->media_at + d->window_ns < t0)
			sp->media_at = t0 - d->window_ns;
		sp->media_at += xfer;
		best->done = max(t0, sp->media_at);
		xfer = best->done - t0;
	} else {
		best->done = t0 + best_pos + xfer;
		sp->media_at = best->done;
	}
	sp->free_at = best->done;

	sp->st.requests++;
	sp->st.bytes += (u64)best->nr_sectors << SECTOR_SHIFT;
	if (best->lsector != sp->head) {
		sp->st.seeks++;
		sp->st.seek_sectors += best->lsector > sp->head ?
			best->lsector - sp->head : sp->head - best->lsector;
	}
	sp->st.seek_ns += best_seek;
	sp->st.rot_ns += best_pos - best_seek;
	sp->st.xfer_ns += xfer;
	sp->st.busy_ns += best_pos + xfer;

	sp->head = best->lsector + best->nr_sectors;
	sp->head_track = hddsim_track(d, min(sp->head, d->spindle_sectors - 1),
				      &pos);
	sp->active = best;
	return best->done;
}

/* ---- blk-mq ---- */

/* The device accepts "budget" commands; the rest stay in the scheduler. */
static int hddsim_get_budget(struct request_queue *q)
{
	struct hddsim_dev *d = q->queuedata;
	int v = atomic_read(&d->inflight);

	/* never overshoot, so a failure means the device really was full */
	do {
		if (v >= d->budget)
			return -1;
	} while (!atomic_try_cmpxchg(&d->inflight, &v, v + 1));
	return 0;
}

static void hddsim_put_budget(struct request_queue *q, int token)
{
	struct hddsim_dev *d = q->queuedata;

	atomic_dec(&d->inflight);
}

static void hddsim_set_rq_budget_token(struct request *rq, int token)
{
	struct hddsim_cmd *cmd = blk_mq_rq_to_pdu(rq);

	cmd->budget = token;
}

static int hddsim_get_rq_budget_token(struct request *rq)
{
	struct hddsim_cmd *cmd = blk_mq_rq_to_pdu(rq);

	return cmd->budget;
}

/* End @rq, release its budget and let the scheduler dispatch more. */
static void hddsim_end(struct hddsim_dev *d, struct request *rq,
		       blk_status_t status, bool run)
{
	struct hddsim_cmd *cmd = blk_mq_rq_to_pdu(rq);

	cmd->budget = -1;
	blk_mq_end_request(rq, status);
	atomic_dec(&d->inflight);
	if (run)
		blk_mq_run_hw_queues(d->disk->queue, true);
}

static enum hrtimer_restart hddsim_timer_fn(struct hrtimer *timer)
{
	struct hddsim_spindle *sp = container_of(timer, struct hddsim_spindle,
						 timer);
	enum hrtimer_restart ret = HRTIMER_NORESTART;
	struct hddsim_cmd *cmd;
	unsigned long flags;

	spin_lock_irqsave(&sp->lock, flags);
	cmd = sp->active;
	sp->active = NULL;
	if (cmd && !list_empty(&sp->pending)) {
		/* the next command starts at the modelled end, not now */
		hrtimer_set_expires(timer,
				    ns_to_ktime(hddsim_start(sp, cmd->done)));
		ret = HRTIMER_RESTART;
	}
	spin_unlock_irqrestore(&sp->lock, flags);
	if (cmd)
		hddsim_end(sp->dev, blk_mq_rq_from_pdu(cmd), BLK_STS_OK, true);
	return ret;
}

static struct hddsim_spindle *hddsim_map(struct hddsim_dev *d, u64 sector,
					 u64 *lsector)
{
	u64 chunk, mask;
	u32 sp;

	if (d->nr_spindles == 1) {
		*lsector = sector;
		return &d->spindles[0];
	}
	mask = (1ULL << d->chunk_shift) - 1;
	chunk = sector >> d->chunk_shift;
	sp = do_div(chunk, d->nr_spindles);
	*lsector = (chunk << d->chunk_shift) | (sector & mask);
	return &d->spindles[sp];
}

static blk_status_t hddsim_queue_rq(struct blk_mq_hw_ctx *hctx,
				    const struct blk_mq_queue_data *bd)
{
	struct request *rq = bd->rq;
	struct hddsim_dev *d = hctx->queue->queuedata;
	struct hddsim_cmd *cmd = blk_mq_rq_to_pdu(rq);
	/* the copy below stands for the DMA, which overlaps the service */
	u64 arrive = ktime_get_ns(), done;
	struct hddsim_spindle *sp;
	unsigned long flags;

	switch (req_op(rq)) {
	case REQ_OP_READ:
	case REQ_OP_WRITE:
		break;
	case REQ_OP_FLUSH:
		atomic64_inc(&d->flushes);
		blk_mq_start_request(rq);
		hddsim_end(d, rq, BLK_STS_OK, false);
		return BLK_STS_OK;
	case REQ_OP_DISCARD:
		atomic64_inc(&d->discards);
		blk_mq_start_request(rq);
		hddsim_discard(d, blk_rq_pos(rq), blk_rq_sectors(rq));
		hddsim_end(d, rq, BLK_STS_OK, false);
		return BLK_STS_OK;
	default:
		/* the driver releases the budget of a request it refuses */
		cmd->budget = -1;
		atomic_dec(&d->inflight);
		return BLK_STS_NOTSUPP;
	}

	if (hddsim_transfer(d, rq)) {
		cmd->budget = -1;
		atomic_dec(&d->inflight);
		return BLK_STS_RESOURCE;
	}
	atomic64_inc(rq_data_dir(rq) == WRITE ? &d->writes : &d->reads);

	sp = hddsim_map(d, blk_rq_pos(rq), &cmd->lsector);
	cmd->nr_sectors = blk_rq_sectors(rq);
	blk_mq_start_request(rq);

	spin_lock_irqsave(&sp->lock, flags);
	cmd->arrive = arrive;
	list_add_tail(&cmd->node, &sp->pending);
	if (!sp->active) {
		done = hddsim_start(sp, max(cmd->arrive, sp->free_at));
		hrtimer_start(&sp->timer, ns_to_ktime(done), HRTIMER_MODE_ABS);
	}
	spin_unlock_irqrestore(&sp->lock, flags);
	return BLK_STS_OK;
}

static const struct blk_mq_ops hddsim_mq_ops = {
	.queue_rq		= hddsim_queue_rq,
	.get_budget		= hddsim_get_budget,
	.put_budget		= hddsim_put_budget,
	.set_rq_budget_token	= hddsim_set_rq_budget_token,
	.get_rq_budget_token	= hddsim_get_rq_budget_token,
};

static const struct block_device_operations hddsim_fops = {
	.owner		= THIS_MODULE,
};

/* ---- sysfs: /sys/block/hddN/hddsim/ ---- */

static struct hddsim_dev *hddsim_from_dev(struct device *dev)
{
	return dev_to_disk(dev)->private_data;
}

static ssize_t stats_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	struct hddsim_dev *d = hddsim_from_dev(dev);
	struct hddsim_stats tot = {}, s;
	unsigned long flags;
	unsigned int i;
	int len;

	for (i = 0; i < d->nr_spindles; i++) {
		spin_lock_irqsave(&d->spindles[i].lock, flags);
		s = d->spindles[i].st;
		spin_unlock_irqrestore(&d->spindles[i].lock, flags);
		tot.requests += s.requests;
		tot.seeks += s.seeks;
		tot.seek_sectors += s.seek_sectors;
		tot.seek_ns += s.seek_ns;
		tot.rot_ns += s.rot_ns;
		tot.xfer_ns += s.xfer_ns;
		tot.busy_ns += s.busy_ns;
		tot.bytes += s.bytes;
	}
	len = sysfs_emit(buf,
			 "requests %llu\nreads %lld\nwrites %lld\nflushes %lld\ndiscards %lld\nbytes %llu\nseeks %llu\nseek_sectors %llu\nseek_ns %llu\nrot_ns %llu\nxfer_ns %llu\nbusy_ns %llu\n",
			 tot.requests, atomic64_read(&d->reads),
			 atomic64_read(&d->writes), atomic64_read(&d->flushes),
			 atomic64_read(&d->discards), tot.bytes, tot.seeks,
			 tot.seek_sectors, tot.seek_ns, tot.rot_ns, tot.xfer_ns,
			 tot.busy_ns);
	/* spindle N: requests seeks seek_sectors seek_ns rot_ns xfer_ns busy_ns bytes */
	for (i = 0; d->nr_spindles > 1 && i < d->nr_spindles; i++) {
		spin_lock_irqsave(&d->spindles[i].lock, flags);
		s = d->spindles[i].st;
		spin_unlock_irqrestore(&d->spindles[i].lock, flags);
		len += sysfs_emit_at(buf, len,
				     "spindle%u %llu %llu %llu %llu %llu %llu %llu %llu\n",
				     i, s.requests, s.seeks, s.seek_sectors,
				     s.seek_ns, s.rot_ns, s.xfer_ns, s.busy_ns,
				     s.bytes);
	}
	return len;
}
static DEVICE_ATTR_RO(stats);

static ssize_t reset_store(struct device *dev, struct device_attribute *attr,
			   const char *buf, size_t count)
{
	struct hddsim_dev *d = hddsim_from_dev(dev);
	unsigned long flags;
	unsigned int i;

	for (i = 0; i < d->nr_spindles; i++) {
		spin_lock_irqsave(&d->spindles[i].lock, flags);
		memset(&d->spindles[i].st, 0, sizeof(d->spindles[i].st));
		spin_unlock_irqrestore(&d->spindles[i].lock, flags);
	}
	atomic64_set(&d->reads, 0);
	atomic64_set(&d->writes, 0);
	atomic64_set(&d->flushes, 0);
	atomic64_set(&d->discards, 0);
	return count;
}
static DEVICE_ATTR_WO(reset);

static ssize_t model_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	struct hddsim_dev *d = hddsim_from_dev(dev);

	return sysfs_emit(buf,
			  "spindles %u\nchunk_sectors %u\nspindle_sectors %llu\ntracks %llu\nsector_ps %llu\nrev_ps %llu\nt2t_ns %llu\nfull_ns %llu\nwindow_ns %llu\ndepth %u\nbudget %u\nmax_wait_ns %llu\n",
			  d->nr_spindles,
			  d->nr_spindles > 1 ? 1U << d->chunk_shift : 0,
			  d->spindle_sectors, d->tracks, d->sector_ps,
			  d->rev_ps, d->t2t_ns, d->full_ns, d->window_ns,
			  d->depth, d->budget, d->max_wait_ns);
}
static DEVICE_ATTR_RO(model);

static struct attribute *hddsim_attrs[] = {
	&dev_attr_stats.attr,
	&dev_attr_reset.attr,
	&dev_attr_model.attr,
	NULL,
};

static const struct attribute_group hddsim_group = {
	.name	= "hddsim",
	.attrs	= hddsim_attrs,
};

static const struct attribute_group *hddsim_groups[] = {
	&hddsim_group,
	NULL,
};

/* ---- devices ---- */

static struct gendisk *hddsim_alloc_disk(struct hddsim_dev *d)
{
	unsigned int chunk = d->nr_spindles > 1 ? 1U << d->chunk_shift : 0;
#ifdef BLK_FEAT_ROTATIONAL	/* 6.11+: limits and features at allocation */
	struct queue_limits lim = {
		.logical_block_size	= SECTOR_SIZE,
		.physical_block_size	= PAGE_SIZE,
		.max_hw_sectors		= HDDSIM_MAX_SECTORS,
		.max_segments		= HDDSIM_MAX_SECTORS / HDDSIM_PAGE_SECTORS,
		.max_hw_discard_sectors	= UINT_MAX >> SECTOR_SHIFT,
		.discard_granularity	= PAGE_SIZE,
		.chunk_sectors		= chunk,
		.io_min			= chunk << SECTOR_SHIFT,
		.io_opt			= (chunk << SECTOR_SHIFT) * d->nr_spindles,
		.features		= BLK_FEAT_ROTATIONAL,
	};

	return blk_mq_alloc_disk(&d->set, &lim, d);
#else
	struct request_queue *q;
	struct gendisk *disk;

	disk = blk_mq_alloc_disk(&d->set, d);
	if (IS_ERR(disk))
		return disk;
	q = disk->queue;
	blk_queue_logical_block_size(q, SECTOR_SIZE);
	blk_queue_physical_block_size(q, PAGE_SIZE);
	blk_queue_max_hw_sectors(q, HDDSIM_MAX_SECTORS);
	blk_queue_max_segments(q, HDDSIM_MAX_SECTORS / HDDSIM_PAGE_SECTORS);
	blk_queue_max_discard_sectors(q, UINT_MAX >> SECTOR_SHIFT);
	q->limits.discard_granularity = PAGE_SIZE;
	if (chunk) {
		blk_queue_chunk_sectors(q, chunk);
		blk_queue_io_min(q, chunk << SECTOR_SHIFT);
		blk_queue_io_opt(q, (chunk << SECTOR_SHIFT) * d->nr_spindles);
	}
	blk_queue_flag_clear(QUEUE_FLAG_NONROT, q);
	return disk;
#endif
}

static int hddsim_add(unsigned int index, unsigned int nr_spindles,
		      u64 sectors)
{
	struct hddsim_dev *d;
	unsigned int i;
	int ret;

	d = kzalloc(struct_size(d, spindles, nr_spindles), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	d->index = index;
	xa_init(&d->pages);
	init_rwsem(&d->discard_sem);
	d->nr_spindles = nr_spindles;
	d->chunk_shift = ilog2(chunk_kb * 2);
	d->depth = depth;
	d->budget = depth * nr_spindles;
	d->rev_ps = div_u64(60 * NSEC_PER_SEC * PS_PER_NS, rpm);
	d->sector_ps = div_u64((u64)SECTOR_SIZE * NSEC_PER_SEC, xfer_kbps);
	d->spindle_sectors = div_u64(sectors, nr_spindles);
	d->tracks = div64_u64(d->spindle_sectors * d->sector_ps + d->rev_ps - 1,
			      d->rev_ps);
	d->t2t_ns = (u64)seek_t2t_us * NSEC_PER_USEC;
	d->full_ns = (u64)seek_full_us * NSEC_PER_USEC;
	d->window_ns = (u64)seq_window_us * NSEC_PER_USEC;
	d->max_wait_ns = (u64)ncq_max_wait_ms * NSEC_PER_MSEC;
	d->epoch = ktime_get_ns();
	for (i = 0; i < nr_spindles; i++) {
		struct hddsim_spindle *sp = &d->spindles[i];

		spin_lock_init(&sp->lock);
		INIT_LIST_HEAD(&sp->pending);
		sp->dev = d;
		/* parked at sector 0 */
		sp->free_at = d->epoch;
		sp->media_at = d->epoch;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
		hrtimer_setup(&sp->timer, hddsim_timer_fn, CLOCK_MONOTONIC,
			      HRTIMER_MODE_ABS);
#else
		hrtimer_init(&sp->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
		sp->timer.function = hddsim_timer_fn;
#endif
	}

	d->set.ops = &hddsim_mq_ops;
	d->set.nr_hw_queues = 1;
	d->set.queue_depth = max_t(unsigned int, d->budget, HDDSIM_MIN_TAGS);
	d->set.numa_node = NUMA_NO_NODE;
	d->set.cmd_size = sizeof(struct hddsim_cmd);
	/* blocking: queue_rq allocates pages with GFP_NOIO */
	d->set.flags = HDDSIM_MQ_F_MERGE | BLK_MQ_F_BLOCKING;
	ret = blk_mq_alloc_tag_set(&d->set);
	if (ret)
		goto out_free;

	d->disk = hddsim_alloc_disk(d);
	if (IS_ERR(d->disk)) {
		ret = PTR_ERR(d->disk);
		goto out_tags;
	}
	d->disk->major = hddsim_major;
	d->disk->first_minor = index * HDDSIM_MINORS;
	d->disk->minors = HDDSIM_MINORS;
	d->disk->fops = &hddsim_fops;
	d->disk->private_data = d;
	snprintf(d->disk->disk_name, DISK_NAME_LEN, "hdd%u", index);
	set_capacity(d->disk, sectors);

	ret = device_add_disk(NULL, d->disk, hddsim_groups);
	if (ret)
		goto out_disk;
	hddsim_devs[index] = d;
	return 0;

out_disk:
	put_disk(d->disk);
out_tags:
	blk_mq_free_tag_set(&d->set);
out_free:
	kfree(d);
	return ret;
}

static void hddsim_del(struct hddsim_dev *d)
{
	unsigned int i;

	/* waits for every request, so the timers are idle afterwards */
	del_gendisk(d->disk);
	for (i = 0; i < d->nr_spindles; i++)
		hrtimer_cancel(&d->spindles[i].timer);
	put_disk(d->disk);
	blk_mq_free_tag_set(&d->set);
	hddsim_free_pages(d);
	kfree(d);
}

/* Check the parameters; sets the spindle count and the capacity. */
static int hddsim_check_params(unsigned int *nr_spindles, u64 *sectors)
{
	u64 stripe;

	if (nr_devices < 1 || nr_devices > HDDSIM_MAX_DEVICES) {
		pr_err("nr_devices=%u: must be 1..%d\n", nr_devices,
		       HDDSIM_MAX_DEVICES);
		return -EINVAL;
	}
	if (capacity_mb < 1 || capacity_mb > HDDSIM_MAX_CAPACITY_MB) {
		pr_err("capacity_mb=%lu: must be 1..%lu\n", capacity_mb,
		       HDDSIM_MAX_CAPACITY_MB);
		return -EINVAL;
	}
	if (rpm < 60 || rpm > 100000) {
		pr_err("rpm=%u: must be 60..100000\n", rpm);
		return -EINVAL;
	}
	if (seek_full_us > USEC_PER_SEC || seek_t2t_us > seek_full_us) {
		pr_err("seek_t2t_us=%u seek_full_us=%u: need t2t <= full <= 1000000\n",
		       seek_t2t_us, seek_full_us);
		return -EINVAL;
	}
	if (xfer_kbps < 1000 || xfer_kbps > 100000000) {
		pr_err("xfer_kbps=%u: must be 1000..100000000\n", xfer_kbps);
		return -EINVAL;
	}
	if (seq_window_us > USEC_PER_SEC) {
		pr_err("seq_window_us=%u: must be at most 1000000\n",
		       seq_window_us);
		return -EINVAL;
	}
	if (depth < 1 || depth > HDDSIM_MAX_DEPTH) {
		pr_err("depth=%u: must be 1..%d\n", depth, HDDSIM_MAX_DEPTH);
		return -EINVAL;
	}
	if (ncq_max_wait_ms > 60 * MSEC_PER_SEC) {
		pr_err("ncq_max_wait_ms=%u: must be at most 60000\n",
		       ncq_max_wait_ms);
		return -EINVAL;
	}
	if (chunk_kb < 4 || chunk_kb > 65536 || !is_power_of_2(chunk_kb)) {
		pr_err("chunk_kb=%u: must be a power of two in 4..65536\n",
		       chunk_kb);
		return -EINVAL;
	}
	if (spindles != -1 && (spindles < 1 || spindles > HDDSIM_MAX_SPINDLES)) {
		pr_err("spindles=%d: must be 1..%d\n", spindles,
		       HDDSIM_MAX_SPINDLES);
		return -EINVAL;
	}
	if (!array && spindles > 1) {
		pr_err("spindles=%d needs array=1\n", spindles);
		return -EINVAL;
	}
	/* -1: not given, 8 spindles for an array */
	if (spindles == -1)
		*nr_spindles = array ? 8 : 1;
	else
		*nr_spindles = spindles;

	/* whole stripes only, so every spindle has the same size */
	*sectors = (u64)capacity_mb << (20 - SECTOR_SHIFT);
	stripe = (u64)chunk_kb * 2 * *nr_spindles;
	if (*nr_spindles > 1) {
		if (*sectors < stripe) {
			pr_err("capacity_mb=%lu is less than one stripe (%u x %u KiB)\n",
			       capacity_mb, *nr_spindles, chunk_kb);
			return -EINVAL;
		}
		*sectors = div64_u64(*sectors, stripe) * stripe;
	}
	return 0;
}

static int __init hddsim_init(void)
{
	unsigned int nr_spindles, i;
	u64 sectors;
	int ret;

	ret = hddsim_check_params(&nr_spindles, &sectors);
	if (ret)
		return ret;

	hddsim_major = register_blkdev(0, "hdd");
	if (hddsim_major < 0)
		return hddsim_major;

	for (i = 0; i < nr_devices; i++) {
		ret = hddsim_add(i, nr_spindles, sectors);
		if (ret)
			goto out;
	}
	pr_info("%u device(s) of %llu MiB, %u spindle(s), depth %u\n",
		nr_devices, sectors >> (20 - SECTOR_SHIFT), nr_spindles, depth);
	return 0;

out:
	while (i--)
		hddsim_del(hddsim_devs[i]);
	unregister_blkdev(hddsim_major, "hdd");
	return ret;
}

static void __exit hddsim_exit(void)
{
	unsigned int i;

	for (i = 0; i < nr_devices; i++)
		if (hddsim_devs[i])
			hddsim_del(hddsim_devs[i]);
	unregister_blkdev(hddsim_major, "hdd");
}

module_init(hddsim_init);
module_exit(hddsim_exit);

MODULE_DESCRIPTION("Emulated rotational disk and striped array with a seek and rotation model");
MODULE_LICENSE("GPL");
