#!/bin/bash
# Faults under cfq, blktests style: null_blk (configfs, memory-backed)
# injects requeues and timeouts while fio writes and verifies (crc32c)
# through cfq. A requeued request must come back exactly once (verify
# passes, no I/O error); a timed-out one fails exactly once (fio's error
# count equals the number injected) and all the rest verifies; both
# phases check that every fault was really injected (the fault
# attribute's 'times' ran down to 0). Then devices are powered off and
# removed under I/O while requeues and timeouts are being injected, and
# cfq unloads afterwards.
# Needs CONFIG_BLK_DEV_NULL_BLK_FAULT_INJECTION, which only the debug
# kernels have, and null_blk's per-device fault attributes in configfs
# (FAULT_INJECTION_CONFIGFS), which 6.1 does not have: its null_blk takes
# one module-wide setting at load time and shows no count of the faults
# it injected. Elsewhere it skips with a note.
# kernels: 6.12-debug
# timeout: 150
set -euo pipefail
trap 'echo "line $LINENO: command failed (status $?)"' ERR

cfs=$NULLB_CFS

nullb_configfs
if [ ! -e /sys/module/null_blk/parameters/timeout ] ||
   [ ! -e /sys/module/null_blk/parameters/requeue ]; then
	log "SKIP: null_blk has no fault injection (CONFIG_BLK_DEV_NULL_BLK_FAULT_INJECTION unset)"
	rmmod null_blk
	exit 0
fi

# fault_arm NAME KIND INTERVAL TIMES: inject a KIND (timeout or requeue)
# into every INTERVAL-th request of device NAME, TIMES times in all
fault_arm() {
	local f=$cfs/$1/$2_inject
	[ -d "$f" ] || fail "no $f"
	echo 1 >"$f/verbose"	# a line per fault in dmesg, no stack dump
	echo "$3" >"$f/interval"
	echo "$4" >"$f/times"
	echo 100 >"$f/probability"
}
# fault_left NAME KIND: injections still to come
fault_left() { cat "$cfs/$1/$2_inject/times"; }
fault_off() { echo 0 >"$cfs/$1/$2_inject/probability"; }

# fio_errors FILE: I/O errors fio counted over all jobs (JSON output of a
# run with continue_on_error; without it, the first error ends the job)
fio_errors() {
	awk '/"total_err" :/ { sub(/,/, ""); n += $3 } END { print n + 0 }' "$1"
}

# 1. Requeues: every 4th request is requeued (alternately BLK_STS_RESOURCE
# and blk_mq_requeue_request()), 64 times, under direct random writes,
# mixed reads/writes and sync writes, each verified afterwards.
nullb_make nbfault size=64 memory_backed=1 irqmode=2 completion_nsec=20000
dev=nbfault
fault_arm nbfault requeue 4 64
timeout -s KILL 600 fio --filename="/dev/$dev" --direct=1 --verify=crc32c \
	--verify_fatal=1 --do_verify=1 --output-format=json \
	--output=/tmp/requeue.json \
	--name=rand --rw=randwrite --ioengine=libaio --iodepth=8 --bs=4k \
	--offset=0 --size=2M \
	--name=mixed --rw=randrw --ioengine=libaio --iodepth=4 \
	--bssplit=4k/50:64k/50 --offset=8M --size=2M \
	--name=sync --rw=write --ioengine=psync --bs=8k --offset=16M --size=1M \
	>/dev/null 2>/tmp/fio.err || {
	rc=$?
	[ $rc = 137 ] && fail "requeue: fio hung (killed after 600s)"
	fail "requeue: fio failed ($rc): $(grep -m1 -iE 'verify|bad|error' /tmp/fio.err)"
}
left=$(fault_left nbfault requeue)
[ "$left" = 0 ] || fail "requeue: only $((64 - left)) of 64 requeues injected"
[ "$(grep -c '"jobname"' /tmp/requeue.json)" = 3 ] || fail "requeue: fio did not report 3 jobs"
grep -q '"error" : [1-9]' /tmp/requeue.json && fail "requeue: a fio job reported an error"
log "requeue: 64 requeues injected, all data verified (${SECONDS}s)"

# 2. Timeouts: every 16th request is never completed by the driver; after
# io_timeout the block layer fails it (BLK_STS_TIMEOUT: null_blk does not
# retry) and fio sees ETIMEDOUT (110). No merging, so one failed request
# is one failed fio write; fio drops failed writes from its verify list,
# so all the rest verifies.
echo 2 >"/sys/block/$dev/queue/nomerges"
echo 1000 >"/sys/block/$dev/queue/io_timeout"
fault_off nbfault requeue
fault_arm nbfault timeout 16 8
rc=0
timeout -s KILL 600 fio --filename="/dev/$dev" --direct=1 --verify=crc32c \
	--verify_fatal=1 --do_verify=1 --continue_on_error=write \
	--ignore_error=110,110 \
	--output-format=json --output=/tmp/timeout.json \
	--name=tmo --rw=randwrite --ioengine=libaio --iodepth=8 --bs=4k \
	--offset=32M --size=2M \
	>/dev/null 2>/tmp/fio.err || rc=$?
[ $rc = 137 ] && fail "timeout: fio hung (killed after 600s)"
[ $rc = 0 ] || fail "timeout: fio failed ($rc): $(grep -m1 -iE 'verify|bad|error' /tmp/fio.err)"
left=$(fault_left nbfault timeout)
[ "$left" = 0 ] || fail "timeout: only $((8 - left)) of 8 timeouts injected"
errs=$(fio_errors /tmp/timeout.json)
[ "$errs" = 8 ] || fail "timeout: fio saw $errs failed writes for 8 injected timeouts"
log "timeout: 8 timeouts injected, 8 writes failed once each, the rest verified (${SECONDS}s)"

sched_set "$dev" none
rmdir "$cfs/nbfault"

# 3. Removal under I/O: power a device off and rmdir it, and rmdir
# another one while still powered on, while fio keeps going and requests
# are being requeued (resp. are stuck in the driver until they time out);
# fio must stop with errors, not hang.
# remove_under_io NAME KIND HOW
remove_under_io() {
	local name=$1 kind=$2 how=$3 pid
	nullb_make "$name" size=64 memory_backed=1 irqmode=2 completion_nsec=20000
	disk=$name
	echo 1000 >"/sys/block/$disk/queue/io_timeout"
	fio --filename="/dev/$disk" --direct=1 --eta=never \
		--output="/tmp/$name.fio" \
		--name=rw --rw=randrw --ioengine=libaio --iodepth=8 --bs=4k \
		--size=32M --name=seq --rw=write --ioengine=psync --bs=64k \
		--offset=32M --size=32M --runtime=600 --time_based \
		2>"/tmp/$name.err" &
	pid=$!
	# wait until I/O flows, then until a fault has been injected
	for _ in $(seq 300); do
		[ "$(awk '{ print $1 + $5 }' "/sys/block/$disk/stat")" -gt 64 ] && break
		sleep 0.1
	done
	kill -0 "$pid" 2>/dev/null || fail "$how: fio ended before the removal"
	fault_arm "$name" "$kind" 4 100000
	for _ in $(seq 300); do
		[ "$(fault_left "$name" "$kind")" -lt 100000 ] && break
		sleep 0.1
	done
	[ "$(fault_left "$name" "$kind")" -lt 100000 ] ||
		fail "$how: no $kind injected within 30s"
	[ "$how" = power-off ] && echo 0 >"$cfs/$name/power"
	rmdir "$cfs/$name"
	[ ! -e "/sys/block/$disk" ] || fail "$how: /sys/block/$disk still there"
	for _ in $(seq 120); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 1
	done
	kill -0 "$pid" 2>/dev/null && fail "$how: fio still running 120s after the removal"
	wait "$pid" && fail "$how: fio reported no error on a removed device"
	log "$how: $disk removed under I/O with ${kind}s being injected, fio stopped: $(grep -m1 -i error "/tmp/$name.err") (${SECONDS}s)"
}
remove_under_io nboff requeue power-off
remove_under_io nbgone timeout rmdir

# nothing uses cfq any more
for _ in $(seq 50); do
	rmmod cfq 2>/dev/null && break
	sleep 0.2
done
lsmod | grep -qw '^cfq' && fail "rmmod cfq failed after the devices were removed"
rmmod null_blk || fail "rmmod null_blk failed"
