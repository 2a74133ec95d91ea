/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rb-tree primitives of cfq's trees: the queue service trees and the
 * group service tree (used by cfq-tree.c) and the prio trees of the
 * close-cooperator search (cfq-coop.c). Inline, so the unit tests
 * (tests/modules/cfq-kunit) exercise the very code the module runs.
 */
#ifndef _CFQ_TREE_H
#define _CFQ_TREE_H

#include <linux/rbtree.h>

#include "cfq.h"

/* Keys are compared as signed distances, robust against wrap-around. */
static inline bool cfq_key_before(u64 a, u64 b)
{
	return (s64)(a - b) < 0;
}

/*
 * Service-tree key of a queue (re)entering its tree at @now: lower levels
 * start later by the difference between the top and their own slice,
 * times the number of other busy queues (so a level-7 queue does not come
 * round as often as a level-0 one); unused slice of the previous turn
 * (@resid > 0) moves it forward, an overrun back.
 */
static inline u64 cfq_st_key(u64 now, unsigned int nr_busy, u64 top_slice,
			     u64 own_slice, s64 resid)
{
	u64 offset = 0;

	if (nr_busy > 1 && top_slice > own_slice)
		offset = (nr_busy - 1) * (top_slice - own_slice);
	return now + offset - resid;
}

static inline struct cfq_queue *cfq_st_first(struct cfq_rb_root *st)
{
	struct rb_node *n = rb_first_cached(&st->rb);

	return n ? rb_entry(n, struct cfq_queue, rb_node) : NULL;
}

static inline bool cfq_st_less(struct rb_node *a, const struct rb_node *b)
{
	return cfq_key_before(rb_entry(a, struct cfq_queue, rb_node)->rb_key,
			      rb_entry(b, struct cfq_queue, rb_node)->rb_key);
}

/* Insert @cfqq with key @key; equal keys go after the existing ones. */
static inline void cfq_st_insert(struct cfq_rb_root *st,
				 struct cfq_queue *cfqq, u64 key)
{
	cfqq->rb_key = key;
	rb_add_cached(&cfqq->rb_node, &st->rb, cfq_st_less);
	cfqq->service_tree = st;
	st->count++;
}

static inline void cfq_st_erase(struct cfq_queue *cfqq)
{
	struct cfq_rb_root *st = cfqq->service_tree;

	rb_erase_cached(&cfqq->rb_node, &st->rb);
	RB_CLEAR_NODE(&cfqq->rb_node);
	cfqq->service_tree = NULL;
	st->count--;
}

static inline bool cfqg_st_less(struct rb_node *a, const struct rb_node *b)
{
	return cfq_key_before(rb_entry(a, struct cfq_group, rb_node)->vdisktime,
			      rb_entry(b, struct cfq_group, rb_node)->vdisktime);
}

/*
 * A prio tree holds the busy sync queues of a (group, ioprio level)
 * keyed by the start sector of their next request; equal keys go right.
 */
static inline sector_t cfq_prio_key(const struct rb_node *n)
{
	return blk_rq_pos(rb_entry(n, struct cfq_queue, p_node)->next_rq);
}

static inline bool cfq_prio_less(struct rb_node *a, const struct rb_node *b)
{
	return cfq_prio_key(a) < cfq_prio_key(b);
}

static inline void cfq_prio_tree_insert(struct rb_root *root,
					struct cfq_queue *cfqq)
{
	rb_add(&cfqq->p_node, root, cfq_prio_less);
	cfqq->p_root = root;
}

static inline void cfq_prio_tree_erase(struct cfq_queue *cfqq)
{
	rb_erase(&cfqq->p_node, cfqq->p_root);
	cfqq->p_root = NULL;
}

static inline int cfq_prio_cmp(const void *pos, const struct rb_node *n)
{
	sector_t key = *(const sector_t *)pos, at = cfq_prio_key(n);

	return key < at ? -1 : key > at;
}

/* A queue of a prio tree whose next request starts at @pos, or NULL. */
static inline struct cfq_queue *cfq_prio_tree_lookup(struct rb_root *root,
						     sector_t pos)
{
	struct rb_node *n = rb_find(&pos, root, cfq_prio_cmp);

	return n ? rb_entry(n, struct cfq_queue, p_node) : NULL;
}

#endif /* _CFQ_TREE_H */
