#!/bin/bash
# cgroup v2 io.cfq.weight and io.cfq.stat: every accepted form of write
# reads back exactly; every malformed one fails (EINVAL, or ENODEV for a
# disk that does not exist) and leaves the value unchanged; statistics
# match what was done; cgroups removed with cfq attached, then rmmod.
set -euo pipefail

nullb_load queue_mode=2 irqmode=0 gb=1 nr_devices=2
sched_set nullb0 cfq
DEV=$(cat /sys/block/nullb0/dev)
DEV1=$(cat /sys/block/nullb1/dev)
echo +io >$CG/cgroup.subtree_control
mkdir $CG/a
W=$CG/a/io.cfq.weight
[ -f $W ] || fail "no io.cfq.weight"
[ -f $CG/io.cfq.weight ] && fail "io.cfq.weight on the root"
[ -f $CG/a/io.cfq.stat ] || fail "no io.cfq.stat"

# expect_w TEXT: the file reads exactly TEXT
expect_w() {
	local got
	got=$(cat $W)
	[ "$got" = "$1" ] || fail "io.cfq.weight: expected '$1', got '$got'"
}
# ok VALUE: the write succeeds
ok() { echo "$1" >$W 2>/dev/null || fail "write '$1' rejected"; }
# bad ERRNO-TEXT VALUE: the write fails with that error, nothing changes
bad() {
	local before err
	before=$(cat $W)
	if err=$(sh -c "echo '$2' >$W" 2>&1); then fail "write '$2' accepted"; fi
	echo "$err" | grep -q "$1" || fail "write '$2': expected '$1', got '$err'"
	[ "$(cat $W)" = "$before" ] || fail "write '$2' changed the value"
}

expect_w "default 100"
ok 300
expect_w "default 300"
ok "default 250"
expect_w "default 250"
ok "$DEV 500"
expect_w "default 250
$DEV 500"
ok 1
ok 10000
expect_w "default 10000
$DEV 500"
ok "$DEV 1"
ok "$DEV 10000"
expect_w "default 10000
$DEV 10000"
ok "$DEV default"
expect_w "default 10000"
ok 100

bad "Invalid argument" 0
bad "Invalid argument" 10001
bad "Invalid argument" -5
bad "Invalid argument" abc
bad "Invalid argument" "12abc"
bad "Invalid argument" "default"
bad "Invalid argument" "default 0"
bad "Invalid argument" "default x"
bad "Invalid argument" "$DEV 0"
bad "Invalid argument" "$DEV 10001"
bad "Invalid argument" "$DEV abc"
bad "Invalid argument" "$DEV"
bad "Invalid argument" "8-0 100"
bad "Invalid argument" "x:y 100"
bad "No such device" "250:250 100"
# a disk cfq does not schedule: no per-device setting there
bad "Operation not supported" "$DEV1 100"
expect_w "default 100"

# statistics: 1000 direct 4 KiB reads and 500 writes from inside a
echo $$ >$CG/a/cgroup.procs
dd if=/dev/nullb0 of=/dev/null bs=4k count=1000 iflag=direct 2>/dev/null
dd if=/dev/zero of=/dev/nullb0 bs=4k count=500 oflag=direct 2>/dev/null
echo $$ >$CG/cgroup.procs
line=$(grep "^$DEV " $CG/a/io.cfq.stat) || fail "no $DEV line in io.cfq.stat"
log "$line"
val() { echo "$line" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
[ "$(val rios)" = 1000 ] || fail "rios $(val rios), expected 1000"
[ "$(val wios)" = 500 ] || fail "wios $(val wios), expected 500"
[ "$(val rbytes)" = 4096000 ] || fail "rbytes $(val rbytes)"
[ "$(val wbytes)" = 2048000 ] || fail "wbytes $(val wbytes)"
[ "$(val sectors)" = 12000 ] || fail "sectors $(val sectors), expected 12000"
# the root's view includes a (recursive), also after a is removed
rmdir $CG/a
rline=$(grep "^$DEV " $CG/io.cfq.stat) || fail "no $DEV line in the root's io.cfq.stat"
log "root: $rline"
r=$(echo "$rline" | tr ' ' '\n' | sed -n 's/^rios=//p')
[ "$r" -ge 1000 ] || fail "root rios $r after removing a: lost its counts"

sched_set nullb0 none
rmmod cfq || fail "rmmod cfq failed"
rmmod null_blk
