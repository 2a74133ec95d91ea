# Every C file is clean under the kernel's checkpatch.pl (--no-tree).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
"$top/scripts/lint" --checkpatch-only
