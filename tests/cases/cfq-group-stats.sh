#!/bin/bash
# io.cfq.stat counts exactly what was done: fio in cgroup st/c reads
# exactly 64 MiB (1024 direct 64 KiB reads) and writes 16 MiB (256 direct
# writes); the cgroup's rbytes, rios, wbytes, wios and sectors are exactly
# that, and agree with the disk's own counters (hddsim's byte count and
# /sys/block/hdd0/stat); a sibling that did nothing shows nothing; the
# parent st shows its child's I/O, and keeps it after the child is
# removed.
# vm: --icount
# timeout: 200
set -euo pipefail

hdd_setup
DEV=$(cat /sys/block/hdd0/dev)
mkdir -p $CG/st
echo +io >$CG/st/cgroup.subtree_control
cg_make st/c 100
cg_make st/idle 100

# expect CGROUP KEY VALUE: io.cfq.stat of CGROUP has KEY=VALUE on hdd0
expect() {
	local got
	got=$(cg_stat "$1" "$DEV" "$2")
	[ "$got" = "$3" ] || fail "$1 io.cfq.stat: $2=$got, expected $3"
}
# disk_bytes: bytes hddsim transferred
disk_bytes() { awk '$1 == "bytes" { print $2 }' /sys/block/hdd0/hddsim/stats; }
# dstat FIELD: a field of /sys/block/hdd0/stat (1 reads, 3 sectors read,
# 5 writes, 7 sectors written)
dstat() { awk -v f="$1" '{ print $f }' /sys/block/hdd0/stat; }

b0=$(disk_bytes) r0=$(dstat 1) w0=$(dstat 5)
in_cgroup st/c fio --eta=never --minimal --output=/tmp/st.fio --direct=1 \
	--bs=64k --ioengine=psync --filename=/dev/hdd0 \
	--name=r --rw=read --offset=1G --size=64M \
	--name=w --rw=write --offset=2G --size=16M --stonewall ||
	fail "fio failed"
grep "^$DEV " $CG/st/c/io.cfq.stat | sed 's/^/# st\/c: /'
# what fio says it did
[ "$(awk -F';' '$3 == "r" { print $6 }' /tmp/st.fio)" = 65536 ] || fail "fio did not read 64 MiB"
[ "$(awk -F';' '$3 == "w" { print $47 }' /tmp/st.fio)" = 16384 ] || fail "fio did not write 16 MiB"
for g in st/c st; do
	expect $g rbytes 67108864
	expect $g rios 1024
	expect $g wbytes 16777216
	expect $g wios 256
	expect $g sectors $(((64 + 16) * 2048))
	expect $g dbytes 0
done
# a cgroup that never did I/O on the disk has no group there: no line,
# or one with zeros
if grep -q "^$DEV " $CG/st/idle/io.cfq.stat; then
	for k in rbytes rios wbytes wios sectors; do expect st/idle $k 0; done
fi
[ $(($(disk_bytes) - b0)) = $((80 << 20)) ] || fail "hddsim moved $(($(disk_bytes) - b0)) bytes, not 80 MiB"
[ $(($(dstat 1) - r0)) = 1024 ] && [ $(($(dstat 5) - w0)) = 256 ] ||
	fail "block layer counted $(($(dstat 1) - r0)) reads, $(($(dstat 5) - w0)) writes"
[ "$(cg_stat st/c "$DEV" time_ms)" -gt 0 ] || fail "st/c: no disk time"

# the parent keeps a removed child's counts
rmdir $CG/st/c
expect st rbytes 67108864
expect st wios 256
hdd_teardown st/idle st
