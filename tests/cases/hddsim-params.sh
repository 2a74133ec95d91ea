#!/bin/bash
# hddsim (tests/modules/hddsim): bad load parameters are refused with a
# message; the devices are rotational, memory backed (zeros before the first
# write, data read back as written, discard frees pages) on the single disk
# and on the array; the statistics count and reset.
# vm: --icount
# debug: no (a ratio in guest time; KASAN changes what it measures)
# timeout: 300
set -euo pipefail

# refused PARAM...: modprobe hddsim PARAMs must fail with an hddsim message
refused() {
	local before
	before=$(dmesg | wc -l)
	if modprobe hddsim "$@" 2>/dev/null; then
		rmmod hddsim
		fail "modprobe hddsim $* was accepted"
	fi
	[ ! -e /sys/module/hddsim ] || fail "hddsim loaded after refusing $*"
	dmesg | tail -n +$((before + 1)) | grep -q 'hddsim: ' ||
		fail "modprobe hddsim $*: refused without a message"
	log "refused $*: $(dmesg | tail -n +$((before + 1)) | grep 'hddsim: ' | tail -n 1 | sed 's/^\[[^]]*\] *//')"
}

rmmod hddsim 2>/dev/null || true
refused array=1 spindles=0
refused array=1 spindles=33
refused spindles=4
refused array=1 chunk_kb=48
refused chunk_kb=0
refused depth=0
refused depth=33
refused capacity_mb=0
refused array=1 capacity_mb=1 chunk_kb=1024
refused rpm=0
refused xfer_kbps=0
refused seek_t2t_us=20000
refused nr_devices=0

# check_data DEV: data written reads back, never-written reads zero, a
# discard leaves zeros, on DEV
check_data() {
	local dev=/dev/$1 stats=/sys/block/$1/hddsim
	[ "$(cat /sys/block/"$1"/queue/rotational)" = 1 ] || fail "$1 not rotational"
	echo 1 >"$stats"/reset
	grep -q '^requests 0$' "$stats"/stats || fail "$1: stats not reset"

	# unwritten space reads as zeros
	head -c 1048576 /dev/zero >/tmp/zero
	dd if="$dev" of=/tmp/got bs=64k count=16 skip=100 iflag=direct 2>/dev/null
	cmp -s /tmp/zero /tmp/got || fail "$1: unwritten data is not zero"

	# 8 MiB at an odd offset, then 512-byte writes into the middle of pages
	head -c 8388608 /dev/urandom >/tmp/data
	dd if=/tmp/data of="$dev" bs=1M seek=3 oflag=direct 2>/dev/null
	head -c 512 /dev/urandom >/tmp/small
	dd if=/tmp/small of="$dev" bs=512 seek=$((3 * 2048 + 4097)) oflag=direct conv=notrunc 2>/dev/null
	dd if=/tmp/small of=/tmp/data bs=512 seek=4097 conv=notrunc 2>/dev/null
	dd if="$dev" of=/tmp/got bs=1M skip=3 count=8 iflag=direct 2>/dev/null
	cmp -s /tmp/data /tmp/got || fail "$1: data read back differs"
	# buffered I/O through the page cache too
	sync
	echo 3 >/proc/sys/vm/drop_caches
	dd if="$dev" of=/tmp/got bs=1M skip=3 count=8 2>/dev/null
	cmp -s /tmp/data /tmp/got || fail "$1: buffered read back differs"

	# fio verify: random 4k-64k writes, then read and checked
	fio --name=verify --filename="$dev" --direct=1 --ioengine=libaio --iodepth=8 \
		--rw=randwrite --bsrange=4k-64k --size=16M --offset=256M --verify=crc32c \
		--do_verify=1 --verify_fatal=1 --randrepeat=1 >/tmp/fio.out 2>&1 ||
		fail "$1: fio verify failed: $(grep -i 'verify\|err' /tmp/fio.out | head -n 1)"

	# discard frees whole pages: they read back as zeros
	blkdiscard -o $((4 * 1048576)) -l 1048576 "$dev" || fail "$1: blkdiscard failed"
	dd if="$dev" of=/tmp/got bs=1M skip=4 count=1 iflag=direct 2>/dev/null
	cmp -s /tmp/zero /tmp/got || fail "$1: discarded range is not zero"
	dd if="$dev" of=/tmp/got bs=1M skip=3 count=1 iflag=direct 2>/dev/null
	head -c 1048576 /tmp/data >/tmp/want
	cmp -s /tmp/want /tmp/got || fail "$1: discard touched the MiB before it"

	awk '$1 == "requests" && $2 > 0 { ok = 1 } $1 == "writes" && $2 > 0 { w = 1 }
		$1 == "discards" && $2 > 0 { d = 1 } END { exit !(ok && w && d) }' "$stats"/stats ||
		fail "$1: stats did not count: $(tr '\n' ' ' <"$stats"/stats)"
	log "$1: data ok; $(grep -E '^(requests|seeks|busy_ns) ' "$stats"/stats | tr '\n' ' ')"
}

modprobe hddsim nr_devices=2 capacity_mb=1024 || fail "modprobe hddsim nr_devices=2 failed"
{ [ -b /dev/hdd0 ] && [ -b /dev/hdd1 ]; } || fail "no /dev/hdd0 and /dev/hdd1"
[ "$(cat /sys/block/hdd0/size)" = $((1024 * 2048)) ] || fail "hdd0: $(cat /sys/block/hdd0/size) sectors, expected $((1024 * 2048))"
check_data hdd0
# the second device is separate storage
dd if=/dev/hdd1 of=/tmp/got bs=1M skip=3 count=1 iflag=direct 2>/dev/null
cmp -s /tmp/zero /tmp/got || fail "hdd1 sees hdd0's data"
rmmod hddsim

modprobe hddsim array=1 depth=4 || fail "modprobe hddsim array=1 depth=4 failed"
grep -q '^spindles 8$' /sys/block/hdd0/hddsim/model || fail "array: not 8 spindles"
[ "$(cat /sys/block/hdd0/queue/chunk_sectors)" = 128 ] || fail "array: chunk_sectors $(cat /sys/block/hdd0/queue/chunk_sectors), expected 128"
check_data hdd0
[ "$(grep -c '^spindle' /sys/block/hdd0/hddsim/stats)" = 8 ] || fail "array: no per-spindle stats"
rmmod hddsim
