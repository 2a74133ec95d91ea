# per-kernel: yes
# The VM runner passes the script's exit status through and fails a run whose
# guest kernel logged a WARNING, quoting it.
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
