#!/bin/bash
# rmmod cfq is refused while a queue uses it and works once none does,
# 20 times over, with I/O in between.
set -euo pipefail

nullb_load queue_mode=2 irqmode=0 gb=1 nr_devices=2
for i in $(seq 20); do
	sched_set nullb0 cfq
	sched_set nullb1 cfq
	dd if=/dev/nullb0 of=/dev/null bs=64k count=64 iflag=direct 2>/dev/null || fail "round $i: I/O failed"
	rmmod cfq 2>/dev/null && fail "round $i: rmmod succeeded with two queues on cfq"
	sched_set nullb0 mq-deadline
	rmmod cfq 2>/dev/null && fail "round $i: rmmod succeeded with one queue on cfq"
	sched_set nullb1 none
	rmmod cfq || fail "round $i: rmmod failed with no queue on cfq"
	lsmod | grep -qw '^cfq' && fail "round $i: cfq still loaded"
	sched_set nullb0 none
done
rmmod null_blk
