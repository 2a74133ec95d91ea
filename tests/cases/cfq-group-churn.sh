#!/bin/bash
# Cgroup churn under I/O: readers and writers in cgroups that are created,
# weighted, left and removed over and over (rmdir right after the tasks
# moved out, with their requests still queued), with the io controller
# switched off and on in the parent and the scheduler switched away and
# back; then rmmod. No kernel warning (the runner checks), no hang.
# timeout: 300
set -euo pipefail

nullb_load queue_mode=2 irqmode=2 completion_nsec=200000 gb=1
echo 1 >/sys/block/nullb0/queue/rotational
sched_set nullb0 cfq
CG=/sys/fs/cgroup
echo +io >$CG/cgroup.subtree_control
mkdir -p $CG/p
echo +io >$CG/p/cgroup.subtree_control

# three readers/writers that cgroup moves follow around
pids=
for j in 1 2 3; do
	fio --direct=1 --bs=4k --rw=randrw --runtime=30 --time_based \
		--filename=/dev/nullb0 --name=w$j --size=64M \
		--output=/tmp/churn$j.fio &
	pids="$pids $!"
done
sleep 1

for i in $(seq 60); do
	d=$CG/p/c$((i % 4))
	mkdir -p $d
	echo $((i * 37 % 1000 + 1)) >$d/io.cfq.weight
	for p in $pids; do echo $p >$d/cgroup.procs 2>/dev/null || true; done
	# a buffered writer of this cgroup too
	(echo $BASHPID >$d/cgroup.procs
	 exec dd if=/dev/zero of=/dev/nullb0 bs=64k count=32 seek=$((i * 64)) 2>/dev/null) &
	sleep 0.1
	for p in $pids; do echo $p >$CG/p/cgroup.procs 2>/dev/null || true; done
	wait $! 2>/dev/null || true
	rmdir $d 2>/dev/null || true
	if [ $((i % 10)) = 0 ]; then
		sched_set nullb0 mq-deadline
		sched_set nullb0 cfq
	fi
	if [ $((i % 15)) = 0 ]; then
		for p in $pids; do echo $p >$CG/cgroup.procs 2>/dev/null || true; done
		echo -io >$CG/p/cgroup.subtree_control
		echo +io >$CG/p/cgroup.subtree_control
	fi
done
for p in $pids; do echo $p >$CG/cgroup.procs 2>/dev/null || true; done
for p in $pids; do wait $p || fail "fio $p failed"; done
rmdir $CG/p/c* 2>/dev/null || true
rmdir $CG/p
grep -q cfq /proc/slabinfo && grep cfq /proc/slabinfo | sed 's/^/# /'
sched_set nullb0 none
rmmod cfq || fail "rmmod cfq failed"
rmmod null_blk
