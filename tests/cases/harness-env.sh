# The guest has what the tests rely on: cgroup v2 with the io controller,
# debugfs, fio, blktrace, Debian's block modules and the project's modules.
grep -qw io /sys/fs/cgroup/cgroup.controllers || fail "cgroup v2 io controller missing"
[ -d /sys/kernel/debug/block ] || fail "debugfs not mounted"
nullb_load queue_mode=2 irqmode=0 gb=1
modprobe bfq || fail "modprobe bfq failed"
modprobe kyber-iosched || fail "modprobe kyber-iosched failed"
for s in none mq-deadline bfq kyber; do sched_set nullb0 $s; [ "$(sched_get nullb0)" = $s ] || fail "$s not active"; done
read -r iops _ < <(fio_run --name=t --filename=/dev/nullb0 --rw=randread --bs=4k --direct=1 --runtime=1 --time_based)
[ "$iops" -gt 0 ] || fail "fio did no I/O"
blktrace -d /dev/nullb0 -D /tmp -o bt -w 5 >/dev/null 2>&1 &
# wait until it traces (a loaded debug kernel took over 1 s to set up)
for _ in $(seq 200); do
	[ "$(cat /sys/block/nullb0/trace/enable)" = 1 ] && break
	sleep 0.1
done
sleep 0.5
dd if=/dev/nullb0 of=/dev/null bs=4k count=64 iflag=direct 2>/dev/null
wait
n=$(blkparse -D /tmp -i bt 2>/dev/null | awk '$6 == "D"' | wc -l)
[ "$n" -ge 64 ] || fail "blktrace saw $n dispatches, expected >= 64"
modinfo cfq >/dev/null 2>&1 || fail "project module cfq not known to modprobe"
sched_set nullb0 none
rmmod bfq kyber-iosched null_blk
