#!/bin/bash
# perf-neighbour.sh — ringprof must not break anyone else's perf (issue 16). Since Linux 5.12
# the kernel writes one MMAP2 record to every event that wants it, and sets the "this record
# carries a build-id" flag on it for an event that asked (attr.build_id) without clearing it
# for the events after it; a perf record without --buildid-mmap then reads device and inode
# numbers as a build-id and perf 6.1 aborts (util/build-id.c:1010). ringprof no longer asks
# the kernel: its helper reads build-ids from the files. Each case runs a perf 6.1 session
# beside ringprof while new processes map files, and checks that perf exits 0 and perf report
# names the workload's functions; and that ringprof's own reports keep their build-ids. The
# control at the end shows that the harness sees the abort when the kernel is asked.
# It skips only where perf is not installed: as root (CI), anything else is a failure.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
. "$top_srcdir/tests/daemon-lib.sh"
perf --version >/dev/null 2>&1 || skip "perf (linux-perf) is not installed"

bid=$(build_id_of "$WL")
[ -n "$bid" ] || fail "could not read the workload's build-id"

# perf_start NAME SECS [PERF OPTIONS...]: a system-wide perf record in the background (PERF_PID).
perf_start() {
	local name=$1 secs=$2
	shift 2
	perf record -q -a -g -e cpu-clock -F 499 "$@" -o "$T/$name.perf" -- sleep "$secs" \
		>"$T/$name.perf.out" 2>&1 &
	PERF_PID=$!
	BG_PIDS="$BG_PIDS $PERF_PID"
}

# perf_check NAME: perf exited 0 and perf report reads its file and names the workload's code.
perf_check() {
	local name=$1 rc
	wait "$PERF_PID"
	rc=$?
	if [ "$rc" != 0 ]; then
		sort "$T/$name.perf.out" | uniq -c >&2
		# Any other recorder on the machine that asks the kernel for build-ids (an older
		# ringprof, perf --buildid-mmap) breaks perf as well: name them.
		echo "--- other recorders running now:" >&2
		pgrep -a 'ringprof|perf' | grep -v "^$$ " >&2
		fail "$name: perf record exited $rc"
	fi
	ok "$name: perf record exited 0"
	perf report -i "$T/$name.perf" --stdio -q --no-children -g none --comms rp-workload \
		--sort sym >"$T/$name.perf.rep" 2>"$T/$name.perf.rep.err" ||
		fail "$name: perf report could not read its file: $(head -3 "$T/$name.perf.rep.err")"
	check_grep 'hot_leaf' "$T/$name.perf.rep" "$name: perf report names the workload's hot_leaf"
}

# rp_check NAME FILE|--dir DIR: ringprof's report names hot_leaf, with no build-id complaint, and
# the recording carries the workload's build-id.
rp_check() {
	local name=$1
	shift
	"$RP" report "$@" --no-children --comm rp-workload >"$T/$name.rep" 2>"$T/$name.rep.err" ||
		fail "$name: ringprof report: $(cat "$T/$name.rep.err")"
	check_grep '\] hot_leaf$' "$T/$name.rep" "$name: ringprof report names hot_leaf"
	check_no_grep 'build-id' "$T/$name.rep.err" "$name: no build-id complaint"
	"$RP" report "$@" --dump >"$T/$name.dump" 2>/dev/null
	check_grep "^BUILDID .* build_id=$bid$" "$T/$name.dump" "$name: the workload's build-id is recorded"
	check_no_grep '^MMAP2 .* build_id=' "$T/$name.dump" "$name: no MMAP2 claims a build-id"
}

# 1. perf first, ringprof record -- CMD while it records.
perf_start first 5
sleep 1
"$RP" record -q -e cpu-clock -g -o "$T/first.data" -- "$WL" -d 2 >/dev/null ||
	fail "ringprof record beside perf"
perf_check first
rp_check first -i "$T/first.data"

# 1b. The reproducer of the issue: perf record -a -g first, then a system-wide ringprof record
# starts (its events are newer than perf's, so the kernel writes to them first) while a
# process starts and maps its files.
perf_start first-a 5
sleep 1
"$RP" record -q -a -e cpu-clock -g -d 3 -o "$T/first-a.data" 2>"$T/first-a.err" &
RPID=$!
BG_PIDS="$BG_PIDS $RPID"
sleep 0.5
"$WL" -d 1 >/dev/null
wait "$RPID" || fail "ringprof record -a beside perf: $(cat "$T/first-a.err")"
perf_check first-a
rp_check first-a -i "$T/first-a.data"

# 2. ringprof first (system-wide), perf started while it records, with the workload.
"$RP" record -q -a -e cpu-clock -g -d 6 -o "$T/after.data" 2>"$T/after.err" &
RPID=$!
BG_PIDS="$BG_PIDS $RPID"
sleep 1
perf record -q -a -g -e cpu-clock -F 499 -o "$T/after.perf" -- "$WL" -d 2 >"$T/after.perf.out" 2>&1 &
PERF_PID=$!
perf_check after
wait "$RPID" || fail "ringprof record -a: $(cat "$T/after.err")"
rp_check after -i "$T/after.data"

# 3. ringprof rotated (--switch-output, SIGUSR2) while perf records and processes start.
perf_start switch 6
sleep 0.5
"$RP" record -q -a -e cpu-clock -g --switch-output -o "$T/sw/sw.data" 2>"$T/sw.err" &
RPID=$!
BG_PIDS="$BG_PIDS $RPID"
mkdir -p "$T/sw"
sleep 1
"$WL" -d 1 >/dev/null &
sleep 0.5
kill -USR2 "$RPID"
"$WL" -d 1 >/dev/null
kill -USR2 "$RPID"
sleep 0.5
kill -INT "$RPID"
wait "$RPID"
perf_check switch
check_range "$(ls "$T/sw" | grep -c '\.data$')" 3 10 "switch: three files or more"
rp_check switch --dir "$T/sw"

# 4. ringprofd started, rotated (USR2) and reloaded (HUP, a changed frequency reopens the
# events) while perf records and processes start.
start_listener
C="$T/ringprofd.conf"
printf 'Frequency=199\nFlushInterval=0.2\nEvent=cpu-clock\nMaxFileSec=0\n' >"$C"
perf_start daemon 8
sleep 0.5
start_daemon -c "$C" -D "$D"
"$WL" -d 1 >/dev/null
kill -USR2 "$DPID"
"$WL" -d 1 >/dev/null
echo 'Frequency=149' >>"$C"
ready=$(n_notify 'READY=1')
kill -HUP "$DPID"
wait_until 20 "READY=1 after the reload" notify_at_least 'READY=1' $((ready + 1))
check_grep "READY=1 STATUS=recording [0-9]+ CPUs? at 149 Hz" "$NLOG" "daemon: the reload reopened the events at 149 Hz"
"$WL" -d 1 >/dev/null
stop_daemon
perf_check daemon
rp_check daemon --dir "$D"

# 5. Two ringprof recorders side by side, and perf beside them.
perf_start two 5
sleep 0.5
"$RP" record -q -a -e cpu-clock -g -d 4 -o "$T/two-a.data" 2>"$T/two-a.err" &
RPID=$!
BG_PIDS="$BG_PIDS $RPID"
sleep 0.5
"$RP" record -q -e cpu-clock -g -o "$T/two-b.data" -- "$WL" -d 2 >/dev/null ||
	fail "the second ringprof record"
wait "$RPID" || fail "the first ringprof record: $(cat "$T/two-a.err")"
perf_check two
rp_check two-a -i "$T/two-a.data"
rp_check two-b -i "$T/two-b.data"

# 6. The other way round: a perf that asks the kernel for build-ids (--buildid-mmap) makes the
# kernel mislabel ringprof's MMAP2 records too; the recorder knows it did not ask and repairs
# them, so its report keeps names and build-id checks.
perf_start buildid 5 --buildid-mmap
sleep 1
"$RP" record -q -e cpu-clock -g -o "$T/buildid.data" -- "$WL" -d 2 >/dev/null ||
	fail "ringprof record beside perf --buildid-mmap"
perf_check buildid
rp_check buildid -i "$T/buildid.data"

# The control: what the cases above guard against. A system-wide ringprof that asks the kernel
# for build-ids (--buildid-mmap) started beside a plain perf while a process starts: perf 6.1
# aborts in util/build-id.c (exit 134), which shows that this harness detects the bug. A
# kernel that clears the flag again lets perf survive; the test says so rather than failing.
perf_start control 4
sleep 1
"$RP" record -q -a --buildid-mmap -e cpu-clock -d 2 -o "$T/control.data" 2>"$T/control.err" &
RPID=$!
BG_PIDS="$BG_PIDS $RPID"
sleep 0.3
"$WL" -d 1 >/dev/null
wait "$RPID" || fail "ringprof record -a --buildid-mmap: $(cat "$T/control.err")"
wait "$PERF_PID"
rc=$?
if [ "$rc" = 0 ]; then
	echo "# control: NOT reproduced on kernel $(uname -r): perf record exited 0 beside" \
		"ringprof record -a --buildid-mmap (this kernel no longer leaves the build-id flag set" \
		"for other events); the cases above were not shown able to fail here"
else
	check_eq "$rc" 134 "control: beside ringprof record -a --buildid-mmap, perf record aborts (exit 134)"
	check_grep 'assertion failed at util/build-id\.c' "$T/control.perf.out" \
		"control: perf's abort is the build-id assertion of the issue"
fi
