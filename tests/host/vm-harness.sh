# per-kernel: yes
# The VM runner passes the script's exit status through, fails a run whose
# guest kernel logged a WARNING, quoting it, and stops a guest whose kernel
# hit a BUG soon after, not at its timeout.
set -euo pipefail
k=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

printf 'echo marker-output\nexit 3\n' >"$t/exit3.sh"
rc=0
"$top/scripts/vm" run --kernel "$k" --no-build "$t/exit3.sh" >"$t/out" 2>"$t/err" || rc=$?
[ $rc = 3 ] || { cat "$t/err"; echo "exit status 3 came back as $rc"; exit 1; }
grep -qx marker-output "$t/out" || { echo "script output not streamed"; exit 1; }

printf 'modprobe vmcheck warn=1\n' >"$t/warn.sh"
rc=0
"$top/scripts/vm" run --kernel "$k" --no-build "$t/warn.sh" >"$t/out" 2>"$t/err" || rc=$?
[ $rc = 125 ] || { echo "a guest WARNING gave status $rc, not 125"; exit 1; }
grep -q 'WARNING:.*vmcheck' "$t/err" || { echo "the WARNING was not quoted"; exit 1; }

printf 'modprobe vmcheck bug=1\nsleep 3600\n' >"$t/bug.sh"
rc=0
start=$SECONDS
CFQ_OOPS_GRACE=5 "$top/scripts/vm" run --kernel "$k" --no-build --timeout 900 \
	"$t/bug.sh" >"$t/out" 2>"$t/err" || rc=$?
[ $rc = 125 ] || { cat "$t/err"; echo "a guest BUG gave status $rc, not 125"; exit 1; }
grep -q 'kernel BUG' "$t/err" || { echo "the BUG was not quoted"; exit 1; }
# booting takes 10-60 s under TCG; the timeout is 900 s
[ $((SECONDS - start)) -lt 600 ] ||
	{ echo "the guest ran $((SECONDS - start)) s after its BUG"; exit 1; }
