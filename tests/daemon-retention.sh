#!/bin/bash
# daemon-retention.sh — ringprofd's retention: the oldest closed files go first when MaxUse
# is exceeded, when less than KeepFree is available, and when older than MaxRetentionSec;
# the active file and foreign files are never deleted.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
. "$top_srcdir/tests/daemon-lib.sh"
require_root
require_perf_events

# usage: bytes allocated by the recordings in $D.
usage() {
	local total=0 f
	for f in "$D"/ringprof-*; do
		[ -e "$f" ] && total=$((total + $(stat -c '%b * %B' "$f")))
	done
	echo "$total"
}
# rotate_n N: N rotations by SIGUSR2, each waited for.
new_files_more_than() {
	[ "$(grep -c '^ringprofd: new file' "$DLOG")" -gt "$1" ]
}
rotate_n() {
	local i before
	for ((i = 0; i < $1; i++)); do
		before=$(grep -c '^ringprofd: new file' "$DLOG")
		kill -USR2 "$DPID"
		wait_until 20 "rotation $((i + 1))" new_files_more_than "$before"
	done
}

start_listener
mkdir -p "$D"
echo keep >"$D/notes.txt"
cp "$top_srcdir/README.md" "$D/ringprof-notes.data" # not one of ours: the name does not match
# Each file starts with the kernel symbols and the process table (about 1 MiB here): a 3 MiB
# budget holds the active file and one or two closed ones.
start_daemon -c /dev/null -D "$D" $FAST --max-use 3M --keep-free 0 --max-file-sec 0
head=$(stat -c %s "$D/$(partial_files)")
rotate_n 6
u=$(usage)
check_range "$u" 1 $((3 * 1024 * 1024)) "MaxUse=3M holds after six rotations"
check_grep '^ringprofd: removed ringprof-[0-9]{8}T[0-9]{6}Z-0001\.data \([0-9.]+ [KM]iB\): recordings use more than MaxUse' \
	"$DLOG" "the oldest file is removed first, with the reason"
seqs=$(closed_files | sed 's/.*-\([0-9]*\)\.data$/\1/' | tr '\n' ' ')
last=$(partial_files | sed 's/.*-\([0-9]*\)\.data\.partial$/\1/')
check_eq "$last" 0007 "the active file is the seventh"
n=$(n_closed)
check_range "$n" 1 3 "some closed files remain ($seqs)"
expect=$(for ((i = 7 - n; i < 7; i++)); do printf '%04d ' $i; done)
check_eq "$seqs" "$expect" "the newest closed files are the ones kept"
[ -f "$D/notes.txt" ] && [ -f "$D/ringprof-notes.data" ] || fail "a foreign file was removed"
ok "foreign files are never removed"

# A reload with a smaller budget applies at once, and never to the active file.
mkdir -p "$T/c.conf.d"
printf 'MaxUse=64K\n' >"$T/c.conf"
kill "$DPID"; wait "$DPID"
start_daemon -c "$T/c.conf" -D "$D" $FAST --keep-free 0 --max-file-sec 0
check_eq "$(n_closed)" 0 "MaxUse smaller than one file: every closed file goes"
check_eq "$(partial_files | wc -l)" 1 "the active file stays"
printf 'MaxUse=1G\n' >"$T/c.conf"
kill -HUP "$DPID"
rotate_n 2
check_eq "$(n_closed)" 2 "a reloaded MaxUse=1G keeps them"
stop_daemon
check_eq "$DRC" 0 "SIGTERM: exit 0"

# MaxRetentionSec: a file closed two days ago goes at start, a recent one stays.
old=ringprof-20200101T000000Z-0001.data
cp "$D/$(closed_files | head -1)" "$D/$old"
touch -d '2 days ago' "$D/$old"
n_before=$(n_closed)
start_daemon -c /dev/null -D "$D" $FAST --max-use 1G --keep-free 0 --max-retention-sec 1d
check_grep "^ringprofd: removed $old \([0-9.]+ [KM]iB\): older than MaxRetentionSec" "$DLOG" "MaxRetentionSec=1d removes a 2-day-old file"
check_eq "$(n_closed)" $((n_before - 1)) "younger files stay"
stop_daemon

# KeepFree on a small file system of our own.
M="$T/mnt"
if mount_tmpfs 6m "$M"; then
	D="$M/rec"
	: >"$DLOG"
	start_daemon -c /dev/null -D "$D" $FAST --max-use infinity --keep-free 3M --max-file-sec 0
	rotate_n 4
	free=$(df -B1 --output=avail "$M" | tail -1 | tr -d " ")
	check_range "$free" $((3 * 1024 * 1024 - head)) $((6 * 1024 * 1024)) "KeepFree=3M: about 3 MiB stay free (${free} B)"
	check_grep '^ringprofd: removed ringprof-.*: less than KeepFree is available' "$DLOG" "KeepFree removals are logged"
	stop_daemon
	check_eq "$DRC" 0 "SIGTERM: exit 0 (KeepFree)"
else
	echo "# no tmpfs ($(cat "$T/mount.err")): KeepFree not tested" >&2
fi
exit 0
