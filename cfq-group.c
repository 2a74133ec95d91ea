// SPDX-License-Identifier: GPL-2.0
/*
 * CFQ groups: the I/O controller. A blkcg policy gives every (cgroup x
 * device) pair a cfq_group with its own service trees and async queues;
 * the groups of a device share it by weight.
 *
 * How groups are scheduled (the group service tree, vdisktime, shares and
 * the charge at each expiry) is in cfq-tree.c; this file is the policy:
 * the groups' lifetime, their weights, the cgroup files and the stats.
 *
 * Lifetime. A cfq_group is the policy data of a blkcg_gq, but may outlive
 * it: the block layer offlines the policy data when the cgroup (or the
 * io controller, or the disk) goes away and frees it once the blkg's last
 * reference is gone, while cfq queues may still point at the group (a
 * request queued before the cgroup was removed, the sync queue of a task
 * that moved away). So a group has its own reference count:
 *  - the blkg holds one reference, dropped in pd_free;
 *  - every cfq_queue of the group holds one (cfq_init_cfqq .. final put),
 *    and a busy queue keeps its group on the group tree, so a group on the
 *    tree or with queues is never freed;
 *  - every group holds one on its parent, dropped when it is freed, so
 *    the parent chain used for shares and stats is always valid.
 * The last put frees the group after an RCU grace period (the printers
 * of the cgroup files may be reading it, see cfqg_stats_read()); it
 * touches no scheduler state, so it may run from pd_free without
 * cfqd->lock. After pd_offline the group is
 * marked offline: requests are mapped to its nearest online ancestor, its
 * async queues are released (they drain where they are), its counters go
 * to the parent, and late updates (requests that complete afterwards) are
 * added to the nearest online ancestor's counters of removed children. No
 * code follows cfqg->pd.blkg outside the cgroup file handlers, which the
 * block layer only calls for live blkgs.
 *
 * Locking: weights are written under blkcg->lock or queue_lock and read
 * by the scheduler under cfqd->lock (single words, READ_ONCE); policy
 * callbacks run under queue_lock and take cfqd->lock inside it, never the
 * other way round. The cgroup files' printers run under queue_lock up to
 * 7.1 and under rcu_read_lock() alone from 7.2: they read weights with
 * READ_ONCE and counters under cfqd->lock, and rely on RCU for the rest
 * (the blkg, its pd, the group and cfqd are all freed after a grace
 * period).
 */
#include <linux/atomic.h>
#include <linux/cgroup.h>
#include <linux/ctype.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/wait_bit.h>

#include "cfq.h"

#define CFQ_WEIGHT_LEGACY_MIN	10
#define CFQ_WEIGHT_LEGACY_MAX	1000
#define CFQ_WEIGHT_LEGACY_DFL	500

static struct blkcg_policy blkcg_policy_cfq;

/*
 * Groups have their own slab cache, so /proc/slabinfo shows how many
 * exist and a leak shows at rmmod; cfq_nr_groups counts them for
 * cfq_unregister_policy().
 */
static struct kmem_cache *cfq_group_pool;
static atomic_t cfq_nr_groups = ATOMIC_INIT(0);

/* Per cgroup: the weights its groups get on devices without an override */
struct cfq_group_data {
	struct blkcg_policy_data cpd;	/* must be first */
	unsigned int weight;		/* 0: the hierarchy's default */
	unsigned int leaf_weight;	/* 0: the default (v1 only) */
};

static struct cfq_group *pd_to_cfqg(struct blkg_policy_data *pd)
{
	return pd ? container_of(pd, struct cfq_group, pd) : NULL;
}

static struct cfq_group *blkg_to_cfqg(struct blkcg_gq *blkg)
{
	return pd_to_cfqg(blkg_to_pd(blkg, &blkcg_policy_cfq));
}

static struct cfq_group_data *blkcg_to_cgd(struct blkcg *blkcg)
{
	struct blkcg_policy_data *cpd = blkcg_to_cpd(blkcg, &blkcg_policy_cfq);

	return cpd ? container_of(cpd, struct cfq_group_data, cpd) : NULL;
}

void cfqg_get(struct cfq_group *cfqg)
{
	refcount_inc(&cfqg->ref);
}

static void cfqg_free_rcu(struct rcu_head *head)
{
	kmem_cache_free(cfq_group_pool,
			container_of(head, struct cfq_group, rcu_head));
	if (atomic_dec_and_test(&cfq_nr_groups))
		wake_up_var(&cfq_nr_groups);
}

void cfqg_put(struct cfq_group *cfqg)
{
	while (cfqg && refcount_dec_and_test(&cfqg->ref)) {
		struct cfq_group *parent = cfqg->parent;

		call_rcu(&cfqg->rcu_head, cfqg_free_rcu);
		cfqg = parent;
	}
}

/*
 * Weights. cgroup v2 uses 1..10000 (default 100), v1 10..1000 (default
 * 500); the root cgroup's default is doubled, as in CFQ, so that tasks
 * left in the root are not crowded out by a few child cgroups. On v2 a
 * cgroup's own tasks and its children are never both present (except in
 * the root), so its leaf weight simply follows its weight.
 */
static bool cfq_on_dfl(void)
{
	return cgroup_subsys_on_dfl(io_cgrp_subsys);
}

static unsigned int cfq_dfl_weight(struct blkcg *blkcg)
{
	unsigned int w = cfq_on_dfl() ? CGROUP_WEIGHT_DFL :
					CFQ_WEIGHT_LEGACY_DFL;

	return blkcg == &blkcg_root ? 2 * w : w;
}

static unsigned int cgd_weight(struct blkcg *blkcg)
{
	struct cfq_group_data *cgd = blkcg_to_cgd(blkcg);

	return cgd && cgd->weight ? cgd->weight : cfq_dfl_weight(blkcg);
}

static unsigned int cgd_leaf_weight(struct blkcg *blkcg)
{
	struct cfq_group_data *cgd = blkcg_to_cgd(blkcg);

	if (cfq_on_dfl())
		return cgd_weight(blkcg);
	return cgd && cgd->leaf_weight ? cgd->leaf_weight :
					 cfq_dfl_weight(blkcg);
}

/* Recompute the configured weights of @cfqg; used at its next activation */
static void cfqg_update_weights(struct cfq_group *cfqg, struct blkcg *blkcg)
{
	WRITE_ONCE(cfqg->new_weight, cfqg->dev_weight ?: cgd_weight(blkcg));
	WRITE_ONCE(cfqg->new_leaf_weight,
		   cfqg->dev_leaf_weight ?: cgd_leaf_weight(blkcg));
}

/*
 * Statistics
 */
/*
 * Where updates for @cfqg go: its own counters, or once it is offline
 * (its counters were handed to the parent), the removed-children counters
 * of its nearest online ancestor, so that recursive sums stay complete.
 */
static struct cfqg_stats *cfqg_stats(struct cfq_group *cfqg)
{
	if (likely(cfqg->online))
		return &cfqg->stats;
	while (cfqg->parent && !cfqg->online)
		cfqg = cfqg->parent;
	return &cfqg->dead_stats;
}

static void cfqg_stats_add(struct cfqg_stats *to, const struct cfqg_stats *from)
{
	int i;

	for (i = 0; i < BLKG_RWSTAT_NR; i++) {
		to->bytes[i] += from->bytes[i];
		to->ios[i] += from->ios[i];
		to->wait_time[i] += from->wait_time[i];
	}
	to->time += from->time;
	to->idle_time += from->idle_time;
	to->dequeue += from->dequeue;
	to->boost_time += from->boost_time;
}

/* @rq leaves cfq for the driver: one decode of its op for the three */
void cfqg_stats_dispatch(struct cfq_group *cfqg, struct request *rq, u64 now)
{
	struct cfqg_stats *st = cfqg_stats(cfqg);
	blk_opf_t opf = rq->cmd_flags;
	int dir = op_is_discard(opf) ? BLKG_RWSTAT_DISCARD :
		  op_is_write(opf) ? BLKG_RWSTAT_WRITE : BLKG_RWSTAT_READ;
	int sync = op_is_sync(opf) ? BLKG_RWSTAT_SYNC : BLKG_RWSTAT_ASYNC;
	u64 bytes = blk_rq_bytes(rq);
	u64 wait = now > rq->start_time_ns ? now - rq->start_time_ns : 0;

	st->bytes[dir] += bytes;
	st->bytes[sync] += bytes;
	st->ios[dir]++;
	st->ios[sync]++;
	st->wait_time[dir] += wait;
	st->wait_time[sync] += wait;
}

/* @cfqg left the group service tree: its last busy queue went */
void cfqg_stats_dequeue(struct cfq_group *cfqg)
{
	cfqg_stats(cfqg)->dequeue++;
}

/* @cfqg was charged for @used ns of disk time */
void cfqg_stats_time(struct cfq_group *cfqg, u64 used)
{
	cfqg_stats(cfqg)->time += used;
}

/* @used ns of that were a boosted queue's (start-up boost, cfq-tree.c) */
void cfqg_stats_boost_time(struct cfq_group *cfqg, u64 used)
{
	cfqg_stats(cfqg)->boost_time += used;
}

/* Idle time is charged to the group cfq idles for, from arm to end. */
void cfqg_stats_idle_start(struct cfq_data *cfqd, struct cfq_group *cfqg,
			   u64 now)
{
	cfqd->idle_cfqg = cfqg;
	cfqd->idle_start = now;
}

void cfqg_stats_idle_end(struct cfq_data *cfqd, u64 now)
{
	if (!cfqd->idle_cfqg)
		return;
	if (now > cfqd->idle_start)
		cfqg_stats(cfqd->idle_cfqg)->idle_time += now - cfqd->idle_start;
	cfqd->idle_cfqg = NULL;
}

/* Is @anc @cfqg itself or one of its ancestors? */
bool cfq_group_is_ancestor(struct cfq_group *anc, struct cfq_group *cfqg)
{
	for (; cfqg; cfqg = cfqg->parent)
		if (cfqg == anc)
			return true;
	return false;
}

/*
 * The group of a bio (of a request: its first bio): the one of its blkg,
 * or of the nearest ancestor still online (a bio may carry the blkg of a
 * cgroup being removed, e.g. write-back of pages it dirtied), else the
 * root group. The bio pins its blkg and every blkg pins its parent.
 */
struct cfq_group *cfq_bio_group(struct cfq_data *cfqd, struct bio *bio)
{
	struct blkcg_gq *blkg = bio ? bio->bi_blkg : NULL;

	for (; blkg; blkg = blkg->parent) {
		struct cfq_group *cfqg = blkg_to_cfqg(blkg);

		if (cfqg && cfqg->online && cfqg->cfqd == cfqd)
			return cfqg;
	}
	return cfqd->root_group;
}

/*
 * Tags for writes. Writes of every group share the tags cfq_limit_depth()
 * leaves them, and a writer waiting for a tag is served in turn with the
 * others, whatever its weight: a group whose requests go twice as fast
 * only frees tags twice as fast, for every group's flusher alike. So its
 * queue runs dry, the group leaves the tree, and the split drifts to
 * 1:1 (buffered writers in cgroups of weight 100 and 200 on ext4: 1.32
 * on 6.12, 1.44 on 6.1). The old block layer had a request pool per
 * cgroup for this. Here a group that holds its share of the write tags
 * (its share of the disk, at least CFQ_GROUP_MIN_TAGS) while other
 * groups are busy allocates its next write within that share of the
 * write depth only: it mostly gets back the tags its own completions
 * free. (BFQ gives such a group a depth of 1; here that starved the
 * lighter writer, 2.7:1 instead of 2:1.)
 * Returns the depth for the write of @cfqg, 0 for no further limit.
 */
#define CFQ_GROUP_MIN_TAGS	4

unsigned int cfq_group_write_depth(struct cfq_data *cfqd,
				   struct cfq_group *cfqg, bool sync)
{
	unsigned int tags = cfqd->queue->nr_requests / 2;

	if (cfqd->nr_busy_groups < 2 || !cfqg->vfraction)
		return 0;
	tags = (u64)tags * cfqg->vfraction >> CFQ_SERVICE_SHIFT;
	if (cfqg->nr_writes < max(tags, CFQ_GROUP_MIN_TAGS))
		return 0;
	return max((u64)cfqd->async_depth[sync] * cfqg->vfraction >>
		   CFQ_SERVICE_SHIFT, 1ULL);
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

/* Drop the group's pins of its async queues (under cfqd->lock). */
static void cfqg_put_async_queues(struct cfq_group *cfqg)
{
	int i, j;

	for (i = 0; i < 2; i++)
		for (j = 0; j < IOPRIO_NR_LEVELS; j++)
			if (cfqg->async_cfqq[i][j]) {
				cfq_put_queue(cfqg->async_cfqq[i][j]);
				cfqg->async_cfqq[i][j] = NULL;
			}
	if (cfqg->async_idle_cfqq) {
		cfq_put_queue(cfqg->async_idle_cfqq);
		cfqg->async_idle_cfqq = NULL;
	}
}

/*
 * Policy callbacks
 */
static struct blkcg_policy_data *cfq_cpd_alloc(gfp_t gfp)
{
	struct cfq_group_data *cgd = kzalloc(sizeof(*cgd), gfp);

	return cgd ? &cgd->cpd : NULL;
}

static void cfq_cpd_free(struct blkcg_policy_data *cpd)
{
	kfree(container_of(cpd, struct cfq_group_data, cpd));
}

static CFQ_PD_ALLOC_FN(cfq_pd_alloc)
{
	struct cfq_group *cfqg;
	int i, j;

	cfqg = kmem_cache_alloc_node(cfq_group_pool, gfp | __GFP_ZERO,
				     CFQ_PD_ALLOC_NODE);
	if (!cfqg)
		return NULL;
	atomic_inc(&cfq_nr_groups);
	refcount_set(&cfqg->ref, 1);	/* the blkg's, dropped in pd_free */
	RB_CLEAR_NODE(&cfqg->rb_node);
	for (i = 0; i < 2; i++)
		for (j = 0; j < 3; j++)
			cfqg->service_trees[i][j] = CFQ_RB_ROOT;
	cfqg->service_tree_idle = CFQ_RB_ROOT;
	return &cfqg->pd;
}

/* Before the blkg is visible: no request can map to it yet. */
static void cfq_pd_init(struct blkg_policy_data *pd)
{
	struct blkcg_gq *blkg = pd_to_blkg(pd);
	struct cfq_group *cfqg = pd_to_cfqg(pd);

	cfqg->cfqd = blkg->q->elevator->elevator_data;
	if (blkg->parent) {
		cfqg->parent = blkg_to_cfqg(blkg->parent);
		cfqg_get(cfqg->parent);
	}
	cfqg_update_weights(cfqg, blkg->blkcg);
	cfqg->weight = cfqg->new_weight;
	cfqg->leaf_weight = cfqg->new_leaf_weight;
	cfqg->online = true;
}

static void cfq_pd_offline(struct blkg_policy_data *pd)
{
	struct cfq_group *cfqg = pd_to_cfqg(pd);
	struct cfq_data *cfqd = cfqg->cfqd;
	unsigned long flags;

	spin_lock_irqsave(&cfqd->lock, flags);
	cfqg->online = false;
	cfqg_put_async_queues(cfqg);
	if (cfqg->parent) {
		struct cfqg_stats *to = cfqg_stats(cfqg->parent);

		if (to == &cfqg->parent->stats)
			to = &cfqg->parent->dead_stats;
		cfqg_stats_add(to, &cfqg->stats);
		cfqg_stats_add(to, &cfqg->dead_stats);
		memset(&cfqg->stats, 0, sizeof(cfqg->stats));
		memset(&cfqg->dead_stats, 0, sizeof(cfqg->dead_stats));
	}
	spin_unlock_irqrestore(&cfqd->lock, flags);
}

static void cfq_pd_free(struct blkg_policy_data *pd)
{
	cfqg_put(pd_to_cfqg(pd));
}

/* blkio.reset_stats, under blkcg->lock: the policy is active on the queue */
static void cfq_pd_reset_stats(struct blkg_policy_data *pd)
{
	struct cfq_group *cfqg = pd_to_cfqg(pd);
	unsigned long flags;

	spin_lock_irqsave(&cfqg->cfqd->lock, flags);
	memset(&cfqg->stats, 0, sizeof(cfqg->stats));
	memset(&cfqg->dead_stats, 0, sizeof(cfqg->dead_stats));
	spin_unlock_irqrestore(&cfqg->cfqd->lock, flags);
}

/*
 * cgroup files: weights
 */

/* Parse a weight in [min, max]; "default" (if allowed) gives 0. */
static int cfq_parse_weight(char *s, unsigned int min, unsigned int max,
			    bool allow_default, unsigned int *v)
{
	s = strim(s);
	if (allow_default && !strcmp(s, "default")) {
		*v = 0;
		return 0;
	}
	if (kstrtouint(s, 10, v) || *v < min || *v > max)
		return -EINVAL;
	return 0;
}

/*
 * Set the cgroup-wide weight (or leaf weight) and push it to the groups of
 * the cgroup that have no per-device override.
 */
static void cfq_set_cgroup_weight(struct blkcg *blkcg, unsigned int v,
				  bool leaf, bool both)
{
	struct cfq_group_data *cgd = blkcg_to_cgd(blkcg);
	struct blkcg_gq *blkg;

	spin_lock_irq(&blkcg->lock);
	if (!leaf || both)
		cgd->weight = v;
	if (leaf || both)
		cgd->leaf_weight = v;
	hlist_for_each_entry(blkg, &blkcg->blkg_list, blkcg_node) {
		struct cfq_group *cfqg = blkg_to_cfqg(blkg);

		if (cfqg)
			cfqg_update_weights(cfqg, blkcg);
	}
	spin_unlock_irq(&blkcg->lock);
}

/*
 * "MAJ:MIN N" or "MAJ:MIN default" (also "MAJ:MIN 0" on v1) sets or drops
 * a per-device override. Errors from the MAJ:MIN part: -EINVAL (syntax),
 * -ENODEV (no such disk), -EOPNOTSUPP (cfq is not its scheduler).
 */
static int cfq_set_dev_weight(struct blkcg *blkcg, char *buf, bool leaf,
			      bool both)
{
	bool dfl = cfq_on_dfl();
	struct blkg_conf_ctx ctx;
	struct cfq_group *cfqg;
	unsigned int v;
	int ret;

	ret = cfq_conf_prep(blkcg, &blkcg_policy_cfq, buf, &ctx);
	if (ret)
		goto out;
	if (dfl)
		ret = cfq_parse_weight(ctx.body, CGROUP_WEIGHT_MIN,
				       CGROUP_WEIGHT_MAX, true, &v);
	else if (!strcmp(strim(ctx.body), "0"))
		v = 0;
	else
		ret = cfq_parse_weight(ctx.body, CFQ_WEIGHT_LEGACY_MIN,
				       CFQ_WEIGHT_LEGACY_MAX, true, &v);
	if (ret)
		goto out;
	cfqg = blkg_to_cfqg(ctx.blkg);
	if (!leaf || both)
		WRITE_ONCE(cfqg->dev_weight, v);
	if (leaf || both)
		WRITE_ONCE(cfqg->dev_leaf_weight, v);
	cfqg_update_weights(cfqg, blkcg);
out:
	cfq_conf_finish(&ctx);
	return ret;
}

/* v1 root: blkio.weight* set the weight of the root's own tasks */
static bool cfq_leaf_file(struct kernfs_open_file *of)
{
	return of_cft(of)->private ||
	       css_to_blkcg(of_css(of)) == &blkcg_root;
}

static bool cfq_leaf_seq(struct seq_file *sf)
{
	return seq_cft(sf)->private || css_to_blkcg(seq_css(sf)) == &blkcg_root;
}

static u64 cfqg_prfill_dev_weight(struct seq_file *sf,
				  struct blkg_policy_data *pd, int leaf)
{
	struct cfq_group *cfqg = pd_to_cfqg(pd);
	unsigned int v = leaf ? READ_ONCE(cfqg->dev_leaf_weight) :
			 READ_ONCE(cfqg->dev_weight);

	return v ? __blkg_prfill_u64(sf, pd, v) : 0;
}

/* v2 io.cfq.weight */
static int cfq_print_weight(struct seq_file *sf, void *v)
{
	struct blkcg *blkcg = css_to_blkcg(seq_css(sf));

	seq_printf(sf, "default %u\n", cgd_weight(blkcg));
	blkcg_print_blkgs(sf, blkcg, cfqg_prfill_dev_weight,
			  &blkcg_policy_cfq, 0, false);
	return 0;
}

static ssize_t cfq_write_weight(struct kernfs_open_file *of, char *buf,
				size_t nbytes, loff_t off)
{
	struct blkcg *blkcg = css_to_blkcg(of_css(of));
	unsigned int v;
	char *s = strim(buf);
	int ret;

	if (str_has_prefix(s, "default ")) {
		s += strlen("default ");
	} else if (!isdigit(*s) || strchr(s, ':')) {
		ret = cfq_set_dev_weight(blkcg, buf, false, true);
		return ret ?: nbytes;
	}
	ret = cfq_parse_weight(s, CGROUP_WEIGHT_MIN, CGROUP_WEIGHT_MAX, false,
			       &v);
	if (ret)
		return ret;
	cfq_set_cgroup_weight(blkcg, v, false, true);
	return nbytes;
}

/* v1 blkio.weight and blkio.leaf_weight (private: 1 for leaf) */
static int cfq_print_weight_legacy(struct seq_file *sf, void *v)
{
	struct blkcg *blkcg = css_to_blkcg(seq_css(sf));

	seq_printf(sf, "%u\n", cfq_leaf_seq(sf) ? cgd_leaf_weight(blkcg) :
						  cgd_weight(blkcg));
	return 0;
}

static ssize_t cfq_write_weight_legacy(struct kernfs_open_file *of, char *buf,
				       size_t nbytes, loff_t off)
{
	unsigned int v;
	int ret;

	ret = cfq_parse_weight(buf, CFQ_WEIGHT_LEGACY_MIN,
			       CFQ_WEIGHT_LEGACY_MAX, false, &v);
	if (ret)
		return ret;
	cfq_set_cgroup_weight(css_to_blkcg(of_css(of)), v, cfq_leaf_file(of),
			      false);
	return nbytes;
}

/* v1 blkio.weight_device and blkio.leaf_weight_device */
static int cfq_print_weight_device(struct seq_file *sf, void *v)
{
	blkcg_print_blkgs(sf, css_to_blkcg(seq_css(sf)),
			  cfqg_prfill_dev_weight, &blkcg_policy_cfq,
			  cfq_leaf_seq(sf), false);
	return 0;
}

static ssize_t cfq_write_weight_device(struct kernfs_open_file *of, char *buf,
				       size_t nbytes, loff_t off)
{
	int ret = cfq_set_dev_weight(css_to_blkcg(of_css(of)), buf,
				     cfq_leaf_file(of), false);

	return ret ?: nbytes;
}

/*
 * cgroup files: statistics. A file's private value is the offset of its
 * counter in struct cfqg_stats, plus flags for the recursive variant and
 * for printing ns as ms.
 */
#define CFQ_STAT_RECURSIVE	(1 << 16)
#define CFQ_STAT_MS		(1 << 17)
#define CFQ_STAT_SECTORS	(1 << 18)
#define CFQ_STAT_OFF(x)		((x) & 0xffff)

/*
 * A group's counters, with those of its online descendants if @recursive,
 * copied under cfqd->lock: pd_offline moves a removed child's counters to
 * its parent under that lock, so a sum taken without it could count them
 * twice or not at all. Called by the printers (under RCU, see the top of
 * this file).
 */
static void cfqg_stats_read(struct blkg_policy_data *pd, bool recursive,
			    struct cfqg_stats *sum)
{
	struct cfq_group *cfqg = pd_to_cfqg(pd);
	struct cgroup_subsys_state *pos_css;
	struct blkcg_gq *pos_blkg;
	unsigned long flags;

	spin_lock_irqsave(&cfqg->cfqd->lock, flags);
	if (!recursive) {
		*sum = cfqg->stats;
		goto unlock;
	}
	memset(sum, 0, sizeof(*sum));
	rcu_read_lock();
	blkg_for_each_descendant_pre(pos_blkg, pos_css, pd_to_blkg(pd)) {
		struct cfq_group *pos = blkg_to_cfqg(pos_blkg);

		if (!pos || !pos->online)
			continue;
		cfqg_stats_add(sum, &pos->stats);
		cfqg_stats_add(sum, &pos->dead_stats);
	}
	rcu_read_unlock();
unlock:
	spin_unlock_irqrestore(&cfqg->cfqd->lock, flags);
}

static u64 cfqg_prfill_rwstat(struct seq_file *sf, struct blkg_policy_data *pd,
			      int priv)
{
	struct blkg_rwstat_sample sample;
	struct cfqg_stats sum;
	const u64 *cnt;
	int i;

	cfqg_stats_read(pd, priv & CFQ_STAT_RECURSIVE, &sum);
	cnt = (void *)&sum + CFQ_STAT_OFF(priv);
	for (i = 0; i < BLKG_RWSTAT_NR; i++)
		sample.cnt[i] = cnt[i];
	return __blkg_prfill_rwstat(sf, pd, &sample);
}

static u64 cfqg_prfill_u64(struct seq_file *sf, struct blkg_policy_data *pd,
			   int priv)
{
	struct cfqg_stats st;
	u64 v;

	cfqg_stats_read(pd, priv & CFQ_STAT_RECURSIVE, &st);
	if (priv & CFQ_STAT_SECTORS)
		v = (st.bytes[BLKG_RWSTAT_READ] +
		     st.bytes[BLKG_RWSTAT_WRITE]) >> SECTOR_SHIFT;
	else
		v = *(const u64 *)((void *)&st + CFQ_STAT_OFF(priv));
	if (priv & CFQ_STAT_MS)
		v = div_u64(v, NSEC_PER_MSEC);
	return __blkg_prfill_u64(sf, pd, v);
}

static int cfq_print_rwstat(struct seq_file *sf, void *v)
{
	blkcg_print_blkgs(sf, css_to_blkcg(seq_css(sf)), cfqg_prfill_rwstat,
			  &blkcg_policy_cfq, seq_cft(sf)->private, true);
	return 0;
}

static int cfq_print_u64(struct seq_file *sf, void *v)
{
	blkcg_print_blkgs(sf, css_to_blkcg(seq_css(sf)), cfqg_prfill_u64,
			  &blkcg_policy_cfq, seq_cft(sf)->private, false);
	return 0;
}

/* v2 io.cfq.stat: one line per device, this cgroup and its descendants */
static u64 cfqg_prfill_flat(struct seq_file *sf, struct blkg_policy_data *pd,
			    int priv)
{
	struct gendisk *disk = READ_ONCE(pd_to_blkg(pd)->q->disk);
	struct cfqg_stats st;
	u64 wait = 0;
	int i;

	if (!disk)
		return 0;
	cfqg_stats_read(pd, true, &st);
	for (i = BLKG_RWSTAT_READ; i <= BLKG_RWSTAT_WRITE; i++)
		wait += st.wait_time[i];
	wait += st.wait_time[BLKG_RWSTAT_DISCARD];
	seq_printf(sf, "%u:%u rbytes=%llu wbytes=%llu dbytes=%llu rios=%llu wios=%llu dios=%llu sectors=%llu time_ms=%llu wait_us=%llu idle_ms=%llu dequeue=%llu boost_ms=%llu\n",
		   disk->major, disk->first_minor,
		   st.bytes[BLKG_RWSTAT_READ], st.bytes[BLKG_RWSTAT_WRITE],
		   st.bytes[BLKG_RWSTAT_DISCARD], st.ios[BLKG_RWSTAT_READ],
		   st.ios[BLKG_RWSTAT_WRITE], st.ios[BLKG_RWSTAT_DISCARD],
		   (st.bytes[BLKG_RWSTAT_READ] + st.bytes[BLKG_RWSTAT_WRITE]) >>
		   SECTOR_SHIFT, div_u64(st.time, NSEC_PER_MSEC),
		   div_u64(wait, NSEC_PER_USEC),
		   div_u64(st.idle_time, NSEC_PER_MSEC), st.dequeue,
		   div_u64(st.boost_time, NSEC_PER_MSEC));
	return 0;
}

static int cfq_print_flat(struct seq_file *sf, void *v)
{
	blkcg_print_blkgs(sf, css_to_blkcg(seq_css(sf)), cfqg_prfill_flat,
			  &blkcg_policy_cfq, 0, false);
	return 0;
}

static struct cftype cfq_dfl_files[] = {
	{
		.name = "cfq.weight",
		.flags = CFTYPE_NOT_ON_ROOT,
		.seq_show = cfq_print_weight,
		.write = cfq_write_weight,
	},
	{
		.name = "cfq.stat",
		.seq_show = cfq_print_flat,
	},
	{ }
};

#define CFQ_STAT(x)	offsetof(struct cfqg_stats, x)

static struct cftype cfq_legacy_files[] = {
	{
		.name = "weight",
		.seq_show = cfq_print_weight_legacy,
		.write = cfq_write_weight_legacy,
	},
	{
		.name = "weight_device",
		.seq_show = cfq_print_weight_device,
		.write = cfq_write_weight_device,
	},
	{
		.name = "leaf_weight",
		.private = 1,
		.seq_show = cfq_print_weight_legacy,
		.write = cfq_write_weight_legacy,
	},
	{
		.name = "leaf_weight_device",
		.private = 1,
		.seq_show = cfq_print_weight_device,
		.write = cfq_write_weight_device,
	},
	{
		.name = "time",
		.private = CFQ_STAT(time) | CFQ_STAT_MS,
		.seq_show = cfq_print_u64,
	},
	{
		.name = "time_recursive",
		.private = CFQ_STAT(time) | CFQ_STAT_MS | CFQ_STAT_RECURSIVE,
		.seq_show = cfq_print_u64,
	},
	{
		.name = "sectors",
		.private = CFQ_STAT_SECTORS,
		.seq_show = cfq_print_u64,
	},
	{
		.name = "sectors_recursive",
		.private = CFQ_STAT_SECTORS | CFQ_STAT_RECURSIVE,
		.seq_show = cfq_print_u64,
	},
	{
		.name = "io_service_bytes",
		.private = CFQ_STAT(bytes),
		.seq_show = cfq_print_rwstat,
	},
	{
		.name = "io_service_bytes_recursive",
		.private = CFQ_STAT(bytes) | CFQ_STAT_RECURSIVE,
		.seq_show = cfq_print_rwstat,
	},
	{
		.name = "io_serviced",
		.private = CFQ_STAT(ios),
		.seq_show = cfq_print_rwstat,
	},
	{
		.name = "io_serviced_recursive",
		.private = CFQ_STAT(ios) | CFQ_STAT_RECURSIVE,
		.seq_show = cfq_print_rwstat,
	},
	{
		.name = "io_wait_time",
		.private = CFQ_STAT(wait_time),
		.seq_show = cfq_print_rwstat,
	},
	{
		.name = "io_wait_time_recursive",
		.private = CFQ_STAT(wait_time) | CFQ_STAT_RECURSIVE,
		.seq_show = cfq_print_rwstat,
	},
	{
		.name = "idle_time",
		.private = CFQ_STAT(idle_time) | CFQ_STAT_MS,
		.seq_show = cfq_print_u64,
	},
	{
		.name = "idle_time_recursive",
		.private = CFQ_STAT(idle_time) | CFQ_STAT_MS | CFQ_STAT_RECURSIVE,
		.seq_show = cfq_print_u64,
	},
	{
		.name = "dequeue",
		.private = CFQ_STAT(dequeue),
		.seq_show = cfq_print_u64,
	},
	{
		.name = "dequeue_recursive",
		.private = CFQ_STAT(dequeue) | CFQ_STAT_RECURSIVE,
		.seq_show = cfq_print_u64,
	},
	{ }
};

static struct blkcg_policy blkcg_policy_cfq = {
	.dfl_cftypes		= cfq_dfl_files,
	.legacy_cftypes		= cfq_legacy_files,
	.cpd_alloc_fn		= cfq_cpd_alloc,
	.cpd_free_fn		= cfq_cpd_free,
	.pd_alloc_fn		= cfq_pd_alloc,
	.pd_init_fn		= cfq_pd_init,
	.pd_offline_fn		= cfq_pd_offline,
	.pd_free_fn		= cfq_pd_free,
	.pd_reset_stats_fn	= cfq_pd_reset_stats,
};

/*
 * Set-up
 */
int cfq_register_policy(void)
{
	int ret;

	cfq_group_pool = KMEM_CACHE(cfq_group, 0);
	if (!cfq_group_pool)
		return -ENOMEM;
	ret = blkcg_policy_register(&blkcg_policy_cfq);
	if (ret == -ENOSPC)
		pr_err("cfq: no free blkcg policy slot (all %d taken by other I/O controllers and schedulers)\n",
		       BLKCG_MAX_POLS);
	else if (ret)
		pr_err("cfq: cannot register the blkcg policy: %d\n", ret);
	if (ret)
		kmem_cache_destroy(cfq_group_pool);
	return ret;
}

/*
 * Module exit, no queue uses cfq any more. Groups may still be waiting
 * to be freed: on 6.1 the block layer frees the policy data of a removed
 * cgroup's blkg from a work item after an RCU grace period, and
 * blkcg_deactivate_policy() (the elevator switch) does not see such
 * blkgs (6.12 keeps them listed and frees their data itself). Unloading
 * before that work ran would leave it calling pd_free through the policy
 * slot this unregisters, into freed module text. So wait for the groups
 * first; nothing else holds one once no queue uses cfq, so this takes a
 * grace period and a work item, unless a group leaked.
 */
void cfq_unregister_policy(void)
{
	int i;

	for (i = 0; i < 30 && atomic_read(&cfq_nr_groups); i++)
		wait_var_event_timeout(&cfq_nr_groups,
				       !atomic_read(&cfq_nr_groups), HZ);
	if (atomic_read(&cfq_nr_groups))
		pr_warn("cfq: %d groups still allocated at unload\n",
			atomic_read(&cfq_nr_groups));
	/* the last cfqg_free_rcu() may still be on its way out */
	rcu_barrier();
	blkcg_policy_unregister(&blkcg_policy_cfq);
	kmem_cache_destroy(cfq_group_pool);
}

/*
 * Activate the policy on the queue cfq attaches to (q->elevator must
 * point to cfq already: pd_init finds cfqd there). The root group is the
 * root blkg's, pinned for cfqd until cfq_exit_groups().
 */
int cfq_init_groups(struct cfq_data *cfqd)
{
	struct request_queue *q = cfqd->queue;
	int ret;

	cfqd->grp_st = RB_ROOT_CACHED;
	ret = cfq_activate_policy(q, &blkcg_policy_cfq);
	if (ret)
		return ret;
	cfqd->root_group = blkg_to_cfqg(q->root_blkg);
	cfqg_get(cfqd->root_group);
	return 0;
}

/*
 * Deactivation offlines and frees every group's blkg side (dropping their
 * async queues); groups still referenced by queues (none by now: icqs and
 * requests are gone) would live on until their last put.
 */
void cfq_exit_groups(struct cfq_data *cfqd)
{
	cfq_deactivate_policy(cfqd->queue, &blkcg_policy_cfq);
	cfqg_put(cfqd->root_group);
	cfqd->root_group = NULL;
}
