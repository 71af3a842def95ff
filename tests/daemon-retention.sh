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
# Each file starts with the process table (a few KiB) and grows by what it records: the
# budgets below are in units of H, what one closed file of this test takes on disk
# (measured on a first file in a directory of its own).
DD=$D
D="$T/probe"
start_daemon -c /dev/null -D "$D" $FAST --max-use infinity --keep-free 0 --max-file-sec 0
head=$(stat -c %s "$D/$(partial_files)")
rotate_n 1
H=$(($(stat -c '%b * %B' "$D/$(closed_files | head -1)") / 1024))
stop_daemon
D=$DD
: >"$DLOG"
[ "$H" -ge 4 ] || H=4
echo "# a file's head: $head B; a closed file: H = $H KiB"
start_daemon -c /dev/null -D "$D" $FAST --max-use $((3 * H))K --keep-free 0 --max-file-sec 0
rotate_n 6
# The budget is applied when a file is closed (the active file counts); closed files do not
# grow after that, the new active file does: what must hold is the closed files' share.
u=0
for f in $(closed_files); do u=$((u + $(stat -c '%b * %B' "$D/$f"))); done
check_range "$u" 1 $((3 * H * 1024)) "MaxUse=3H holds for the closed files after six rotations"
check_grep '^ringprofd: removed ringprof-[0-9]{8}T[0-9]{6}Z-0001\.data \([0-9.]+ [KM]iB\): recordings use more than MaxUse' \
	"$DLOG" "the oldest file is removed first, with the reason"
seqs=$(closed_files | sed 's/.*-\([0-9]*\)\.data$/\1/' | tr '\n' ' ')
last=$(partial_files | sed 's/.*-\([0-9]*\)\.data\.partial$/\1/')
check_eq "$last" 0007 "the active file is the seventh"
n=$(n_closed)
check_range "$n" 1 5 "some closed files remain ($seqs)"
expect=$(for ((i = 7 - n; i < 7; i++)); do printf '%04d ' $i; done)
check_eq "$seqs" "$expect" "the newest closed files are the ones kept"
[ -f "$D/notes.txt" ] && [ -f "$D/ringprof-notes.data" ] || fail "a foreign file was removed"
ok "foreign files are never removed"

# A reload with a smaller budget applies at once, and never to the active file.
mkdir -p "$T/c.conf.d"
printf 'MaxUse=4K\n' >"$T/c.conf"
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
# A 2 MiB file system with KeepFree = 2 MiB - 3H: room for about three files.
KF=$((2048 - 3 * H))
if mount_tmpfs 2m "$M"; then
	D="$M/rec"
	: >"$DLOG"
	start_daemon -c /dev/null -D "$D" $FAST --max-use infinity --keep-free ${KF}K --max-file-sec 0
	rotate_n 6
	# KeepFree is applied when a file is closed; the new active file grows after that (more on
	# a loaded machine, where more time passes before df): what must hold is the space free
	# but for the active file, less its head at the last rotation (H at most).
	free=$(df -B1 --output=avail "$M" | tail -1 | tr -d " ")
	active=0
	for f in $(partial_files); do active=$((active + $(stat -c '%b * %B' "$D/$f"))); done
	check_range "$((free + active))" $(((KF - H) * 1024)) $((2048 * 1024)) \
		"KeepFree=${KF}K: that much stays free but for the active file (${free} B free, ${active} B active)"
	check_grep '^ringprofd: removed ringprof-.*: less than KeepFree is available' "$DLOG" "KeepFree removals are logged"
	stop_daemon
	check_eq "$DRC" 0 "SIGTERM: exit 0 (KeepFree)"
else
	echo "# no tmpfs ($(cat "$T/mount.err")): KeepFree not tested" >&2
fi
exit 0
