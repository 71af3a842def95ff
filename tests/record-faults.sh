#!/bin/bash
# record-faults.sh — faults while recording: a full disk (before and after the first frame),
# too few file descriptors, processes that exit while /proc is read. Each gives a clear
# sentence and the best possible recording. (perf_event_open denied: record-unprivileged.sh.)
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
. "$top_srcdir/tests/daemon-lib.sh"
require_root
require_perf_events

# ---- disk full after the first frame: stop, say so, keep what was written ----
M="$T/full"
mount_tmpfs 16m "$M" || skip "cannot mount a tmpfs: $(cat "$T/mount.err")"
# Frame-pointer callchains: with dwarf unwinding the samples of the start-up frame wait for
# their tables and reach the next frame, which the full disk takes; this checks what a full
# disk leaves, not unwinding.
"$RP" record -a --call-graph fp -F 999 -d 30 -o "$M/a.data" >"$T/a.out" 2>&1 &
rp=$!
BG_PIDS="$BG_PIDS $rp"
# The first frame (header, kernel symbols, /proc state) is on disk once the file is non-empty.
for _ in $(seq 200); do [ -s "$M/a.data" ] && break; sleep 0.05; done
[ -s "$M/a.data" ] || fail "the recording's first frame never reached the disk"
sleep 0.5
dd if=/dev/zero of="$M/fill" bs=64k >/dev/null 2>&1 # until ENOSPC
for _ in $(seq 150); do kill -0 "$rp" 2>/dev/null || break; sleep 0.1; done
kill -0 "$rp" 2>/dev/null && fail "record goes on with a full disk (15 s after it filled up)"
wait "$rp"
check_eq $? 1 "record exits 1 when the disk fills up"
# (Under load the start-up's state of every process can still be on its way to the disk when
# it fills: then the recording stops "before it began", with the same file left.)
check_grep "^ringprof record: writing $M/a.data failed: No space left on device; recording stopped( before it began)?\. The file is readable up to the last complete frame\.$" \
	"$T/a.out" "the full disk is named, with what became of the file"
"$RP" report -i "$M/a.data" --stats >"$T/a.stats" 2>"$T/a.err" || fail "report --stats of the cut recording: $(cat "$T/a.err")"
check_grep '^  event +' "$T/a.stats" "its header is intact"
check_no_grep '^  header +lost' "$T/a.stats" "its header is not lost"
samples=$(stat_field samples "$T/a.stats")
check_range "$samples" 1 100000000 "its samples up to the failure are readable"
"$RP" report -i "$M/a.data" --dump >"$T/a.dump" 2>/dev/null || fail "report --dump of the cut recording"
check_grep '^HEADER ' "$T/a.dump" "the dump starts with the header"

# ---- disk full at the final flush: the command's status 0 does not hide it ----
rm -f "$M/fill" "$M/a.data"
# A long flush interval: nothing after the first frame is written until the end, when the
# command has filled the disk.
"$RP" record --call-graph fp -F 999 --flush-interval 60 -o "$M/f.data" -- \
	sh -c "'$WL' -d 0.3 >/dev/null; dd if=/dev/zero of='$M/fill' bs=64k >/dev/null 2>&1; exit 0" >"$T/f.out" 2>&1
check_eq $? 1 "record exits 1 when the final flush fails, though the command exited 0"
check_grep "^ringprof record: (finishing|writing) $M/f.data failed: No space left on device" "$T/f.out" \
	"the failed final flush is named"

# ---- disk full before the first frame: nothing usable, so no file that looks like one ----
rm -f "$M/fill" "$M/a.data"
# Leave no space at all: the first frame (header, the command's process) cannot be written.
dd if=/dev/zero of="$M/fill" bs=4k >/dev/null 2>&1
"$RP" record -g -F 999 -o "$M/b.data" -- "$WL" -d 1 >"$T/b.out" 2>&1
check_eq $? 1 "record exits 1 when not even its first frame fits"
check_grep "^ringprof record: writing $M/b.data failed: No space left on device; recording stopped before it began\. Nothing could be written; the file is removed\.$" \
	"$T/b.out" "the failure before the first frame says so"
[ ! -e "$M/b.data" ] || fail "a headerless $M/b.data was left behind"
ok "no headerless file is left"

# ---- too few file descriptors: either it works, or a sentence names the limit ----
n_refused=0
for n in 4 5 6 7 8; do
	(ulimit -n "$n" && exec "$RP" record -a -d 0.3 -o "$T/fd$n.data") >"$T/fd$n.out" 2>&1
	rc=$?
	if [ "$rc" = 0 ]; then
		"$RP" report -i "$T/fd$n.data" --stats >"$T/fd$n.stats" 2>&1 || fail "ulimit -n $n: the recording is unreadable"
		ok "ulimit -n $n: enough for $(nproc) CPUs, and the recording is readable"
	else
		check_eq "$rc" 1 "ulimit -n $n: record exits 1"
		check_grep "^ringprof record: the limit on open files \(ulimit -n\) is $n; ringprof record needs one descriptor per recorded CPU" \
			"$T/fd$n.out" "ulimit -n $n: the refusal names the limit and what it must cover"
		n_refused=$((n_refused + 1))
	fi
done
[ "$n_refused" -ge 1 ] || fail "no open-file limit from 4 to 8 was too low"
# The same limit against many CPUs' worth of events: per-CPU open fails with its own advice.
check_grep 'Too many open files|too many open files' "$T/fd4.out" "the errno is shown too"

# ---- processes exiting while /proc is read ----
churn() {
	while :; do
		for _ in $(seq 20); do /bin/true & done
		sh -c 'sleep 0.01' &
		wait
	done
}
churn &
BG_PIDS="$BG_PIDS $!"
for k in 1 2 3 4 5; do
	"$RP" record -a -g -F 999 -d 0.5 -o "$T/c$k.data" >"$T/c$k.out" 2>&1 || fail "recording $k during process churn: $(cat "$T/c$k.out")"
	check_no_grep '[Ee]rror|[Ww]arning|failed|cannot' "$T/c$k.out" "recording $k during process churn: no error"
	"$RP" report -i "$T/c$k.data" --dump >"$T/c$k.dump" 2>"$T/c$k.err" || fail "dump $k: $(cat "$T/c$k.err")"
	check_grep '^EXIT .* pid=[0-9]+' "$T/c$k.dump" "recording $k sees processes exit"
	check_no_grep '.' "$T/c$k.err" "recording $k reads without a warning"
done
exit 0
