#!/bin/bash
# cgroup v1 blkio files: blkio.weight, weight_device, leaf_weight and
# leaf_weight_device accept CFQ's syntax and ranges (10..1000), reject
# the rest with the value unchanged; the root's blkio.weight is its leaf
# weight; blkio.io_serviced/sectors count what was done. Only possible
# when the io controller is not in use on cgroup v2 (else the case says
# so and passes: there is nothing to test). Its own boot (distinct vm
# options), so that no earlier case has put io to use on v2.
# vm: --mem 1G
set -euo pipefail

nullb_load queue_mode=2 irqmode=0 gb=1
sched_set nullb0 cfq
DEV=$(cat /sys/block/nullb0/dev)
M=/tmp/blkio
mkdir -p $M
if ! mount -t cgroup -o blkio none $M 2>/dev/null; then
	log "io controller bound to cgroup v2: v1 not testable in this boot"
	exit 0
fi
trap 'rmdir $M/a 2>/dev/null; umount $M' EXIT
mkdir $M/a
W=$M/a/blkio.weight
expect() { [ "$(cat "$1")" = "$2" ] || fail "$1: expected '$2', got '$(cat "$1")'"; }
bad() {
	local before
	before=$(cat "$1")
	if sh -c "echo '$2' >$1" 2>/dev/null; then fail "$1: '$2' accepted"; fi
	[ "$(cat "$1")" = "$before" ] || fail "$1: '$2' changed the value"
}

expect $W 500
expect $M/a/blkio.leaf_weight 500
expect $M/blkio.weight 1000
echo 800 >$W
expect $W 800
echo 10 >$W
echo 1000 >$W
bad $W 9
bad $W 1001
bad $W 0
bad $W abc
expect $W 1000
echo 300 >$M/a/blkio.leaf_weight
expect $M/a/blkio.leaf_weight 300
expect $W 1000

WD=$M/a/blkio.weight_device
echo "$DEV 700" >$WD
expect $WD "$DEV 700"
bad $WD "$DEV 5"
bad $WD "$DEV 2000"
bad $WD "$DEV x"
bad $WD "999:999 100"
bad $WD "junk"
expect $WD "$DEV 700"
echo "$DEV 0" >$WD
expect $WD ""
echo "$DEV 400" >$M/a/blkio.leaf_weight_device
expect $M/a/blkio.leaf_weight_device "$DEV 400"
# the root's weight files are its leaf weight
echo 600 >$M/blkio.weight
expect $M/blkio.leaf_weight 600

echo $$ >$M/a/cgroup.procs
dd if=/dev/nullb0 of=/dev/null bs=4k count=300 iflag=direct 2>/dev/null
echo $$ >$M/cgroup.procs
grep -q "^$DEV Read 300$" $M/a/blkio.io_serviced ||
	fail "io_serviced: $(cat $M/a/blkio.io_serviced | tr '\n' ' ')"
expect $M/a/blkio.sectors "$DEV 2400"
grep -q "^$DEV Read 300$" $M/blkio.io_serviced_recursive ||
	fail "root io_serviced_recursive: $(tr '\n' ' ' <$M/blkio.io_serviced_recursive)"
for f in time time_recursive io_service_bytes io_wait_time idle_time dequeue; do
	[ -r $M/a/blkio.$f ] || fail "no blkio.$f"
done
echo 1 >$M/a/blkio.reset_stats
grep -q "^$DEV Read 0$" $M/a/blkio.io_serviced || fail "reset_stats did not reset"
rmdir $M/a
umount $M
trap - EXIT
sched_set nullb0 none
rmmod cfq
rmmod null_blk
