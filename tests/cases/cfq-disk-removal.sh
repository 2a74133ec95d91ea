#!/bin/bash
# Disks that go away while cfq holds requests and idles: on each device a
# sequential reader that thinks 10 ms between 4k reads (slice_idle raised
# to 100 ms, so cfq idles for it, timer armed), and a random reader and a
# random writer with 8 requests in flight each, held back while cfq idles.
# Once debugfs shows cfq waiting with requests queued, the device is
# removed, a scheduler switch racing with the removal:
#   null_blk (configfs): powered off then removed, and removed powered on;
#   scsi_debug: the disk deleted (device/delete), and its host removed.
# Every fio process must end with the data it read or an error, or die
# within 15 s of a kill -9 when it spins on EOF (none may hang: the runner
# also fails the case on a hung task),
# and after each removal cfq holds no queue or group (slab counts, the
# boot has slab_nomerge). At the end rmmod cfq succeeds at once.
# hddsim is not used: the module pins its disks while they are open.
# vm: --append slab_nomerge
# timeout: 300
set -euo pipefail

# workload DISK NAME: the three fio jobs on /dev/DISK, in the background
# (the sequential reader's 16 MiB take 40 s of think time; the random
# reader loops, the writer runs, until an error); sets fio_pid
workload() {
	fio --filename="/dev/$1" --direct=1 --eta=never --minimal \
		--output="/tmp/$2.fio" \
		--name=seq --rw=read --bs=4k --ioengine=psync --thinktime=10000 \
		--size=16M \
		--name=rand --rw=randread --bs=4k --ioengine=libaio --iodepth=8 \
		--offset=16M --size=16M --loops=1000 \
		--name=write --rw=randwrite --bs=4k --ioengine=libaio \
		--iodepth=8 --offset=32M --size=16M --runtime=600 --time_based \
		2>"/tmp/$2.err" &
	fio_pid=$!
}

# cfq_waiting DISK: wait (up to 30 s) until cfq idles with requests queued
cfq_waiting() {
	local st=/sys/kernel/debug/block/$1/sched/state
	for _ in $(seq 300); do
		if grep -Eq '^wait (queue|group)' "$st" &&
		   [ "$(awk '$1 == "rq_queued" { print $2 }' "$st")" -gt 0 ]; then
			return
		fi
		sleep 0.1
	done
	cat "$st"
	fail "$1: cfq never idled with requests queued"
}

# on_cfq DISK: cfq with a long idle window on DISK, then the workload
on_cfq() {
	echo 1 >"/sys/block/$1/queue/rotational"
	sched_set "$1" cfq
	echo 100 >"/sys/block/$1/queue/iosched/slice_idle"
	workload "$1" "$2"
	cfq_waiting "$1"
}

# stuck_report: where each fio process is (for a failed removal)
stuck_report() {
	local p
	for p in $(pidof fio); do
		echo "fio $p: $(cat /proc/$p/wchan 2>/dev/null) $(tr '\0' ' ' </proc/$p/stat | cut -d' ' -f3)"
		sed 's/^/    /' /proc/$p/stack 2>/dev/null || true
	done
	ls /sys/block
	tail -n 5 /tmp/*.err
}

# removed HOW: every fio process ends, cfq is left with nothing. A job
# whose reads return 0 past the removed disk's end (capacity 0) may spin
# on EOF under time_based: after 60 s fio is killed, and it must then die
# within 15 s; a request lost in cfq would keep it in the kernel, waiting
# (an exiting libaio user waits for its requests in flight).
removed() {
	local t how=$1
	for t in $(seq 60); do
		kill -0 "$fio_pid" 2>/dev/null || break
		sleep 1
	done
	if kill -0 "$fio_pid" 2>/dev/null; then
		how="$how (fio killed after 60 s)"
		kill -9 $(pidof fio) 2>/dev/null || true
		for _ in $(seq 150); do
			kill -0 "$fio_pid" 2>/dev/null || break
			sleep 0.1
		done
		if kill -0 "$fio_pid" 2>/dev/null; then
			stuck_report
			fail "$1: fio did not die 15 s after kill -9"
		fi
		wait "$fio_pid" || true
	elif wait "$fio_pid"; then
		fail "$1: fio reported no error on a removed disk"
	fi
	wait	# the racing scheduler switch
	slab_empty "$1: after the removal"
	log "$how: fio ended in ${t} s: $(grep -m1 -iE 'error|err=' "/tmp/$1.err" || echo '(no message)')"
}

# switch_racing DISK: a switch to none racing with the removal
switch_racing() {
	(echo none >"/sys/block/$1/queue/scheduler" 2>/dev/null || true) &
}

# null_blk through configfs: NAME, removed after powering off (HOW
# power-off) or while powered on (rmdir)
nullb_remove() {
	local name=$1 how=$2
	nullb_make "$name" size=128 memory_backed=1 irqmode=2 \
		completion_nsec=1000000
	on_cfq "$name" "$how"
	switch_racing "$name"
	[ "$how" = power-off ] && echo 0 >"$NULLB_CFS/$name/power"
	rmdir "$NULLB_CFS/$name"
	removed "$how"
}

# scsi_debug's disk, removed by HOW: delete (the sd device) or host
scsi_remove() {
	local how=$1 disk
	modprobe scsi_debug dev_size_mb=128 delay=1 max_queue=32 ||
		fail "modprobe scsi_debug failed"
	modprobe sd_mod 2>/dev/null || true
	for _ in $(seq 100); do
		disk=$(ls /sys/bus/pseudo/drivers/scsi_debug/adapter0/host*/target*/*/block 2>/dev/null || true)
		[ -n "$disk" ] && break
		sleep 0.1
	done
	[ -n "$disk" ] || fail "scsi_debug: no disk appeared"
	on_cfq "$disk" "scsi-$how"
	switch_racing "$disk"
	if [ "$how" = delete ]; then
		echo 1 >"/sys/block/$disk/device/delete"
	else
		echo -1 >/sys/bus/pseudo/drivers/scsi_debug/add_host
	fi
	removed "scsi-$how"
	rmmod scsi_debug || fail "rmmod scsi_debug failed after $how"
}

rmmod cfq 2>/dev/null || true
modprobe cfq
nullb_configfs

nullb_remove nbgone1 power-off
nullb_remove nbgone2 rmdir
scsi_remove delete
scsi_remove host

rmmod cfq || fail "rmmod cfq failed after the removals"
rmmod null_blk
