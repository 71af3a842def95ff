#!/bin/bash
# addrspace-bench.sh — the recorder's fork bookkeeping (issue 24, item 4): time per fork of a
# process with 1 000, 10 000 and 60 000 executable mappings (bench/addrspace-bench.c), for
# the build tree RP_BUILD and, side by side, for BASE_BUILD when given (e.g. a build of the
# commit before the change). The drain loop does this work for every FORK record it drains,
# so a process with 60 000 mappings that forks 40 times a second costs 40 x this per second
# of the recorder's single thread.
#
# Usage: bash bench/addrspace-bench.sh            (after the build; RP_BUILD default build/)
#        BASE_BUILD=/path/to/old/build bash bench/addrspace-bench.sh
# Environment: SIZES (default "1000 10000 60000"), FORKS (default 40).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
RP_BUILD=${RP_BUILD:-$ROOT/build}
SIZES=${SIZES:-1000 10000 60000}
FORKS=${FORKS:-40}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# build NAME BUILD-DIR: the bench program linked with that tree's capture and base libraries.
build() {
	local b=$2
	[ -f "$b/lib/libringprof-capture.a" ] || { echo "addrspace-bench: no $b/lib/libringprof-capture.a (run make)" >&2; exit 2; }
	cc -std=gnu11 -O2 -I"$ROOT/lib" -I"$b" -o "$T/$1" "$ROOT/bench/addrspace-bench.c" \
		"$b/lib/libringprof-capture.a" "$b/lib/libringprof-format.a" "$b/lib/libringprof-base.a"
}

build new "$RP_BUILD"
[ -z "${BASE_BUILD:-}" ] || build base "$BASE_BUILD"
for n in $SIZES; do
	printf 'this tree  (%s): ' "$RP_BUILD"
	"$T/new" "$n" "$FORKS"
	if [ -n "${BASE_BUILD:-}" ]; then
		printf 'base tree  (%s): ' "$BASE_BUILD"
		"$T/base" "$n" "$FORKS"
	fi
done
