// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the pure logic in cfq.h and the tree primitives of
 * cfq-tree.h. Runs on kernels with CONFIG_KUNIT and on Debian's, through
 * the KUnit core built as a module in tests/modules/kunit-core.
 */
#include <kunit/test.h>
#include <linux/module.h>

#include "cfq-tree.h"
#include "cfq_kunit_compat.h"

#define MS(x)	((u64)(x) * NSEC_PER_MSEC)

/* 4.20's table: sync 180..40 ms, async 72..16 ms for levels 0..7 */
static void cfq_test_prio_slice(struct kunit *test)
{
	static const unsigned int sync_ms[] = { 180, 160, 140, 120, 100, 80, 60, 40 };
	static const unsigned int async_ms[] = { 72, 64, 56, 48, 40, 32, 24, 16 };
	unsigned int prio;

	for (prio = 0; prio < IOPRIO_NR_LEVELS; prio++) {
		KUNIT_EXPECT_EQ(test, cfq_prio_slice(CFQ_SLICE_SYNC, prio),
				MS(sync_ms[prio]));
		KUNIT_EXPECT_EQ(test, cfq_prio_slice(CFQ_SLICE_ASYNC, prio),
				MS(async_ms[prio]));
	}
}

static void cfq_test_prio_to_maxrq(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, cfq_prio_to_maxrq(2, 0), 32U);
	KUNIT_EXPECT_EQ(test, cfq_prio_to_maxrq(2, 4), 16U);
	KUNIT_EXPECT_EQ(test, cfq_prio_to_maxrq(2, 7), 4U);
	KUNIT_EXPECT_EQ(test, cfq_prio_to_maxrq(1, 7), 2U);
}

/* low_latency: slices shrink to fit target_latency, with a floor */
static void cfq_test_scale_slice(struct kunit *test)
{
	u64 sync = CFQ_SLICE_SYNC, idle = CFQ_SLICE_IDLE;
	u64 group = CFQ_TARGET_LATENCY;

	/* fits: unchanged */
	KUNIT_EXPECT_EQ(test, cfq_scale_slice(MS(100), sync, idle, 1, group),
			MS(100));
	KUNIT_EXPECT_EQ(test, cfq_scale_slice(MS(180), sync, idle, 3, group),
			MS(180));
	/* 6 queues x 100 ms > 300 ms: halved */
	KUNIT_EXPECT_EQ(test, cfq_scale_slice(MS(100), sync, idle, 6, group),
			MS(50));
	KUNIT_EXPECT_EQ(test, cfq_scale_slice(MS(180), sync, idle, 6, group),
			MS(90));
	/* 30 queues: 10 ms would be below three idle windows (24 ms) */
	KUNIT_EXPECT_EQ(test, cfq_scale_slice(MS(100), sync, idle, 30, group),
			MS(24));
	/* the floor scales with the slice too, and never exceeds it */
	KUNIT_EXPECT_EQ(test, cfq_scale_slice(MS(40), sync, idle, 300, group),
			MS(40) * 24 / 100);
	KUNIT_EXPECT_EQ(test, cfq_scale_slice(MS(10), sync, MS(100), 300, group),
			MS(10));
	/* more queues never means a longer slice */
	KUNIT_EXPECT_LE(test, cfq_scale_slice(MS(100), sync, idle, 8, group),
			cfq_scale_slice(MS(100), sync, idle, 4, group));
}

static void cfq_test_st_key(struct kunit *test)
{
	u64 now = MS(1000);
	u64 top = cfq_prio_slice(CFQ_SLICE_SYNC, 0);

	/* alone, or at the top level: no offset */
	KUNIT_EXPECT_EQ(test, cfq_st_key(now, 1, top, MS(40), 0), now);
	KUNIT_EXPECT_EQ(test, cfq_st_key(now, 5, top, top, 0), now);
	/* level 4 among 3 busy queues: 2 x (180 - 100) ms later */
	KUNIT_EXPECT_EQ(test, cfq_st_key(now, 3, top, MS(100), 0),
			now + MS(160));
	/* leftover slice moves the key forward, an overrun back */
	KUNIT_EXPECT_EQ(test, cfq_st_key(now, 1, top, top, MS(30)), now - MS(30));
	KUNIT_EXPECT_EQ(test, cfq_st_key(now, 1, top, top, -(s64)MS(30)),
			now + MS(30));
	/* lower priority, later key */
	KUNIT_EXPECT_LT(test, cfq_st_key(now, 4, top, MS(140), 0),
			cfq_st_key(now, 4, top, MS(40), 0));
}

/* Service tree order: by key, equal keys in insertion order, wrap-safe. */
static void cfq_test_st_order(struct kunit *test)
{
	static const u64 keys[] = { 30, 10, 20, 10, U64_MAX - 5 };
	static const int order[] = { 4, 1, 3, 2, 0 };
	struct cfq_rb_root st = CFQ_RB_ROOT;
	struct cfq_queue *q;
	struct rb_node *n;
	int i;

	q = kunit_kcalloc(test, ARRAY_SIZE(keys), sizeof(*q), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, q);
	for (i = 0; i < ARRAY_SIZE(keys); i++)
		cfq_st_insert(&st, &q[i], keys[i]);
	KUNIT_EXPECT_EQ(test, st.count, (unsigned int)ARRAY_SIZE(keys));
	KUNIT_EXPECT_PTR_EQ(test, cfq_st_first(&st), &q[4]);

	for (i = 0, n = rb_first_cached(&st.rb); n; n = rb_next(n), i++)
		KUNIT_EXPECT_PTR_EQ(test, rb_entry(n, struct cfq_queue, rb_node),
				    &q[order[i]]);
	KUNIT_EXPECT_EQ(test, i, (int)ARRAY_SIZE(keys));

	cfq_st_erase(&q[4]);
	KUNIT_EXPECT_PTR_EQ(test, cfq_st_first(&st), &q[1]);
	KUNIT_EXPECT_NULL(test, q[4].service_tree);
	KUNIT_EXPECT_EQ(test, st.count, 4U);
}

static struct request *cfq_test_rq(struct kunit *test, struct rb_root *root,
				   sector_t pos)
{
	struct request *rq = kunit_kzalloc(test, sizeof(*rq), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rq);
	rq->__sector = pos;
	rq->__data_len = 4096;
	rq->cmd_flags = REQ_OP_READ;
	RB_CLEAR_NODE(&rq->rb_node);
	if (root)
		elv_rb_add(root, rq);
	return rq;
}

/* Sliding window: first request at/after head - window, wrapping. */
static void cfq_test_window_pick(struct kunit *test)
{
	struct rb_root root = RB_ROOT;
	struct request *r100, *r200, *r300;

	KUNIT_EXPECT_NULL(test, cfq_window_pick(&root, 0));
	r300 = cfq_test_rq(test, &root, 300);
	r100 = cfq_test_rq(test, &root, 100);
	r200 = cfq_test_rq(test, &root, 200);

	/* the window start: head minus 2 x back_seek_max KiB, clamped at 0 */
	KUNIT_EXPECT_EQ(test, cfq_window_start(250, 0), (sector_t)250);
	KUNIT_EXPECT_EQ(test, cfq_window_start(250, 50), (sector_t)150);
	KUNIT_EXPECT_EQ(test, cfq_window_start(250, 16384), (sector_t)0);

	KUNIT_EXPECT_PTR_EQ(test, cfq_window_pick(&root, 0), r100);
	KUNIT_EXPECT_PTR_EQ(test, cfq_window_pick(&root, 100), r100);
	KUNIT_EXPECT_PTR_EQ(test, cfq_window_pick(&root, 101), r200);
	KUNIT_EXPECT_PTR_EQ(test, cfq_window_pick(&root, 250), r300);
	KUNIT_EXPECT_PTR_EQ(test, cfq_window_pick(&root, cfq_window_start(250, 50)),
			    r200);
	/* nothing at or above the window: wrap to the lowest */
	KUNIT_EXPECT_PTR_EQ(test, cfq_window_pick(&root, 301), r100);

	/* the cached successor walks up and wraps */
	KUNIT_EXPECT_PTR_EQ(test, cfq_window_next(&root, r100), r200);
	KUNIT_EXPECT_PTR_EQ(test, cfq_window_next(&root, r200), r300);
	KUNIT_EXPECT_PTR_EQ(test, cfq_window_next(&root, r300), r100);
	elv_rb_del(&root, r100);
	elv_rb_del(&root, r200);
	KUNIT_EXPECT_NULL(test, cfq_window_next(&root, r300));
}

/* 4.20's neighbour rule */
static void cfq_test_choose_req(struct kunit *test)
{
	struct request *a = cfq_test_rq(test, NULL, 1000);
	struct request *b = cfq_test_rq(test, NULL, 1100);
	struct request *c = cfq_test_rq(test, NULL, 900);
	struct request *far = cfq_test_rq(test, NULL, 10);

	KUNIT_EXPECT_PTR_EQ(test, cfq_choose_req(NULL, a, 0, 64, 2), a);
	KUNIT_EXPECT_PTR_EQ(test, cfq_choose_req(a, NULL, 0, 64, 2), a);
	/* both ahead: the closer */
	KUNIT_EXPECT_PTR_EQ(test, cfq_choose_req(b, a, 950, 1000, 2), a);
	/* 50 behind x penalty 2 = 100 > 50 ahead */
	KUNIT_EXPECT_PTR_EQ(test, cfq_choose_req(c, a, 950, 1000, 2), a);
	/* 50 behind x 1 < 150 ahead */
	KUNIT_EXPECT_PTR_EQ(test, cfq_choose_req(c, b, 950, 1000, 1), c);
	/* beyond back_max the request wraps and loses */
	KUNIT_EXPECT_PTR_EQ(test, cfq_choose_req(c, b, 950, 10, 1), b);
	/* both wrap: the lower sector */
	KUNIT_EXPECT_PTR_EQ(test, cfq_choose_req(c, far, 5000, 10, 1), far);
	/* sync beats async whatever the distance */
	b->cmd_flags = REQ_OP_WRITE;
	KUNIT_EXPECT_PTR_EQ(test, cfq_choose_req(b, far, 1100, 0, 2), far);
}

/*
 * Close cooperators: the prio tree finds a queue whose next request starts
 * exactly at a given sector (where the last dispatch ended).
 */
static void cfq_test_prio_tree_lookup(struct kunit *test)
{
	static const sector_t pos[] = { 2000, 1000, 5000, 1000 };
	struct rb_root root = RB_ROOT;
	struct cfq_queue *q, *found;
	int i;

	q = kunit_kcalloc(test, ARRAY_SIZE(pos), sizeof(*q), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_EXPECT_NULL(test, cfq_prio_tree_lookup(&root, 1000));
	for (i = 0; i < ARRAY_SIZE(pos); i++) {
		q[i].next_rq = cfq_test_rq(test, NULL, pos[i]);
		cfq_prio_tree_insert(&root, &q[i]);
		KUNIT_EXPECT_PTR_EQ(test, q[i].p_root, &root);
	}

	KUNIT_EXPECT_PTR_EQ(test, cfq_prio_tree_lookup(&root, 2000), &q[0]);
	KUNIT_EXPECT_PTR_EQ(test, cfq_prio_tree_lookup(&root, 5000), &q[2]);
	/* equal keys are all kept: either queue is an answer */
	found = cfq_prio_tree_lookup(&root, 1000);
	KUNIT_EXPECT_TRUE(test, found == &q[1] || found == &q[3]);
	/* near is not close: a cooperator continues the stream exactly */
	KUNIT_EXPECT_NULL(test, cfq_prio_tree_lookup(&root, 999));
	KUNIT_EXPECT_NULL(test, cfq_prio_tree_lookup(&root, 1001));
	KUNIT_EXPECT_NULL(test, cfq_prio_tree_lookup(&root, 0));
	KUNIT_EXPECT_NULL(test, cfq_prio_tree_lookup(&root, 6000));

	/* erased queues are gone from the search, the others stay */
	cfq_prio_tree_erase(found);
	KUNIT_EXPECT_NULL(test, found->p_root);
	KUNIT_EXPECT_PTR_EQ(test, cfq_prio_tree_lookup(&root, 1000),
			    found == &q[1] ? &q[3] : &q[1]);
	cfq_prio_tree_erase(&q[0]);
	KUNIT_EXPECT_NULL(test, cfq_prio_tree_lookup(&root, 2000));
	KUNIT_EXPECT_PTR_EQ(test, cfq_prio_tree_lookup(&root, 5000), &q[2]);
}

static void cfq_test_ttime(struct kunit *test)
{
	struct cfq_ttime t = { };
	u64 now = MS(10);
	int i;

	for (i = 0; i < 2; i++) {
		t.last_end_request = now;
		now += MS(1);
		cfq_ttime_update(&t, now, CFQ_SLICE_IDLE);
	}
	/* two samples are not enough to judge */
	KUNIT_EXPECT_FALSE(test, cfq_ttime_big(&t, 0));
	for (i = 0; i < 20; i++) {
		t.last_end_request = now;
		now += MS(1);
		cfq_ttime_update(&t, now, CFQ_SLICE_IDLE);
	}
	KUNIT_EXPECT_GT(test, t.ttime_mean, MS(1) * 9 / 10);
	KUNIT_EXPECT_LT(test, t.ttime_mean, MS(1) * 11 / 10);
	KUNIT_EXPECT_FALSE(test, cfq_ttime_big(&t, CFQ_SLICE_IDLE));
	/*
	 * Long pauses count as 2 x slice_idle at most (the integer sample
	 * count settles at 249, not 256: the mean reads up to 3% high).
	 */
	for (i = 0; i < 40; i++) {
		t.last_end_request = now;
		now += MS(500);
		cfq_ttime_update(&t, now, CFQ_SLICE_IDLE);
	}
	KUNIT_EXPECT_LE(test, t.ttime_mean, 2 * CFQ_SLICE_IDLE * 104 / 100);
	KUNIT_EXPECT_TRUE(test, cfq_ttime_big(&t, CFQ_SLICE_IDLE));
}

/* a turn's first request is charged at the rate of the rest of the turn */
static void cfq_test_first_charge(struct kunit *test)
{
	/* direct reader: 256 sectors first, 1536 in a 50 ms slice */
	KUNIT_EXPECT_EQ(test, cfq_first_charge(MS(9), 256, MS(50), 1536),
			MS(50) / 6);
	/* streaming reader: 10 ms of seek for 128 of 30720 sectors */
	KUNIT_EXPECT_EQ(test, cfq_first_charge(MS(10), 128, MS(90), 30720),
			MS(90) * 128 / 30720);
	/* never more than the stretch itself */
	KUNIT_EXPECT_EQ(test, cfq_first_charge(MS(2), 256, MS(50), 256),
			MS(2));
	/* nothing to measure the rate by: nothing */
	KUNIT_EXPECT_EQ(test, cfq_first_charge(MS(9), 256, MS(50), 0), 0ULL);
	KUNIT_EXPECT_EQ(test, cfq_first_charge(MS(9), 0, MS(50), 1536), 0ULL);
}

/*
 * cfq's clock never goes back from the latest time it returned: a plug's
 * cached time older than a stamp taken elsewhere reads as that stamp.
 */
static void cfq_test_clock(struct kunit *test)
{
	struct cfq_data *cfqd = kunit_kzalloc(test, sizeof(*cfqd), GFP_KERNEL);
	u64 now;

	KUNIT_ASSERT_NOT_NULL(test, cfqd);
	spin_lock_init(&cfqd->lock);
	spin_lock_irq(&cfqd->lock);
	KUNIT_EXPECT_EQ(test, cfq_clock_at(cfqd, MS(10)), MS(10));
	KUNIT_EXPECT_EQ(test, cfq_clock_at(cfqd, MS(4)), MS(10));
	KUNIT_EXPECT_EQ(test, cfq_clock_at(cfqd, MS(12)), MS(12));
	now = cfq_clock(cfqd);
	KUNIT_EXPECT_GE(test, now, MS(12));
	KUNIT_EXPECT_EQ(test, cfq_clock_at(cfqd, now - 1), now);
	spin_unlock_irq(&cfqd->lock);
	KUNIT_EXPECT_LE(test, now, ktime_get_ns());
}

static struct kunit_case cfq_slice_cases[] = {
	KUNIT_CASE(cfq_test_prio_slice),
	KUNIT_CASE(cfq_test_prio_to_maxrq),
	KUNIT_CASE(cfq_test_scale_slice),
	KUNIT_CASE(cfq_test_ttime),
	KUNIT_CASE(cfq_test_first_charge),
	KUNIT_CASE(cfq_test_clock),
	{}
};

static struct kunit_suite cfq_slice_suite = {
	.name = "cfq-slice",
	.test_cases = cfq_slice_cases,
};

static struct kunit_case cfq_tree_cases[] = {
	KUNIT_CASE(cfq_test_st_key),
	KUNIT_CASE(cfq_test_st_order),
	{}
};

static struct kunit_suite cfq_tree_suite = {
	.name = "cfq-service-tree",
	.test_cases = cfq_tree_cases,
};

static struct kunit_case cfq_select_cases[] = {
	KUNIT_CASE(cfq_test_window_pick),
	KUNIT_CASE(cfq_test_choose_req),
	KUNIT_CASE(cfq_test_prio_tree_lookup),
	{}
};

static struct kunit_suite cfq_select_suite = {
	.name = "cfq-select",
	.test_cases = cfq_select_cases,
};

CFQ_KUNIT_SUITES(&cfq_slice_suite, &cfq_tree_suite, &cfq_select_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests of the cfq I/O scheduler's logic");
