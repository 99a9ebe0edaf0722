#!/usr/bin/env bash
# The provenance line of a generated doc: prints "commit ABC1234 on MACHINE (N CPUs)"
# when the git tree is clean apart from the files the calling script writes, else says
# what is modified and exits 1, so a doc with figures always names a commit that
# reproduces it.
#   tools/provenance.sh [PATH_THE_SCRIPT_WRITES ...]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null) || { echo "provenance: $root is not a git tree" >&2; exit 1; }
dirty=$(git -C "$root" status --porcelain | awk '{ print $NF }' | grep -vxF -f <(printf '%s\n' "$@" "") || true)
if [ -n "$dirty" ]; then
	echo "provenance: the tree has changes that no commit holds; commit them first:" >&2
	echo "$dirty" | head -n 10 | sed 's/^/  /' >&2
	exit 1
fi
machine=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1)
echo "commit $commit on ${machine:-an unknown CPU} ($(nproc) CPUs)"
