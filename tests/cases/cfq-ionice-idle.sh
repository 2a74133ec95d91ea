#!/bin/bash
# ionice: an IDLE-class reader (ionice -c3) gets almost nothing while a
# best-effort reader keeps the emulated disk busy (its 3 s within BE's
# 5 s: under 2 % of BE's throughput, and BE keeps at least 80 % of its
# solo throughput), but is not starved forever (at least one request: cfq
# serves IDLE once a second), and gets the disk when alone (at least 80 %
# of a BE reader's solo throughput). The same holds when the two readers
# are in cgroups of their own (as systemd services are): the IDLE one
# waits for the other group too.
# vm: --icount
# debug: no (a ratio in guest time; KASAN changes what it measures)
# timeout: 240
set -euo pipefail

hdd_setup

hdd_reader be 2G 3 -c2 -n4 || fail "solo BE fio failed"
be_solo=$(fio_kib be)
hdd_reader idle 0 3 -c3 || fail "solo IDLE fio failed"
idle_solo=$(fio_kib idle)
log "alone: BE $be_solo KiB/s, IDLE $idle_solo KiB/s"
[ $((idle_solo * 10)) -ge $((be_solo * 8)) ] ||
	fail "IDLE alone $idle_solo KiB/s < 80 % of BE alone $be_solo KiB/s"

# the IDLE reader's 3 s lie within the BE reader's 5 s
hdd_reader be 2G 5 -c2 -n4 &
p2=$!
sleep 1
hdd_reader idle 0 3 -c3 &
p1=$!
wait $p1 || fail "IDLE fio failed"
wait $p2 || fail "BE fio failed"
log "together: BE $(fio_kib be) KiB/s ($(fio_total be) KiB), IDLE $(fio_kib idle) KiB/s ($(fio_total idle) KiB)"
[ "$(fio_total idle)" -gt 0 ] || fail "the IDLE reader was starved: not one request in 3 s"
[ $(($(fio_kib idle) * 50)) -le "$(fio_kib be)" ] ||
	fail "IDLE got $(fio_kib idle) KiB/s, over 2 % of BE's $(fio_kib be) KiB/s"
[ $(($(fio_kib be) * 10)) -ge $((be_solo * 8)) ] ||
	fail "BE $(fio_kib be) KiB/s with an IDLE reader < 80 % of alone ($be_solo)"

# the same, each reader in a cgroup of its own
cg_make bebox 100
cg_make idlebox 100
hdd_reader -g bebox be 2G 5 -c2 -n4 &
p2=$!
sleep 1
hdd_reader -g idlebox idle 0 3 -c3 &
p1=$!
wait $p1 || fail "IDLE fio (own cgroup) failed"
wait $p2 || fail "BE fio (own cgroup) failed"
log "own cgroups: BE $(fio_kib be) KiB/s ($(fio_total be) KiB), IDLE $(fio_kib idle) KiB/s ($(fio_total idle) KiB)"
[ "$(fio_total idle)" -gt 0 ] ||
	fail "the IDLE reader in its own cgroup was starved: not one request in 3 s"
[ $(($(fio_kib idle) * 50)) -le "$(fio_kib be)" ] ||
	fail "IDLE in its own cgroup got $(fio_kib idle) KiB/s, over 2 % of BE's $(fio_kib be) KiB/s"
[ $(($(fio_kib be) * 10)) -ge $((be_solo * 8)) ] ||
	fail "BE $(fio_kib be) KiB/s beside an IDLE cgroup < 80 % of alone ($be_solo)"

hdd_teardown bebox idlebox
