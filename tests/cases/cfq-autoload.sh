# 'echo cfq > scheduler' loads the module through its cfq-iosched alias;
# rmmod is refused while a queue uses cfq and works afterwards.
nullb_load queue_mode=2 irqmode=0 gb=1
lsmod | grep -qw '^cfq' && fail "cfq loaded before the test"
sched_set nullb0 cfq
lsmod | grep -qw '^cfq' || fail "cfq was not autoloaded"
[ "$(sched_get nullb0)" = cfq ] || fail "cfq not active after autoload"
dd if=/dev/nullb0 of=/dev/null bs=4k count=256 iflag=direct 2>/dev/null || fail "I/O through cfq failed"
rmmod cfq 2>/dev/null && fail "rmmod cfq succeeded while in use"
sched_set nullb0 none
rmmod cfq || fail "rmmod cfq failed after switching away"
rmmod null_blk
