# daemon-lib.sh — helpers for the ringprofd tests (sourced after tests/lib.sh, not run).
RPD="$top_builddir/ringprofd"
SDL="$top_builddir/tests/sd-listen"
D="$T/rec"           # the recording directory
NLOG="$T/notify.log" # one line per sd_notify datagram: "pid=N FIELD ..."
DLOG="$T/daemon.log" # the daemon's stderr
DPID=""

# wait_until TIMEOUT_S WHAT CMD...: poll CMD every 0.1 s until it succeeds.
wait_until() {
	local timeout=$1 what=$2 i
	shift 2
	for ((i = 0; i < timeout * 10; i++)); do
		"$@" && return 0
		sleep 0.1
	done
	echo "--- daemon log:" >&2; tail -20 "$DLOG" >&2 2>/dev/null
	echo "--- notify log:" >&2; tail -5 "$NLOG" >&2 2>/dev/null
	fail "$what (not within ${timeout} s)"
}

# n_notify PATTERN: how many datagrams match the extended regex.
n_notify() {
	grep -Ec -- "$1" "$NLOG" 2>/dev/null || true
}
notify_at_least() {
	[ "$(n_notify "$1")" -ge "$2" ]
}

# start_listener [SOCKET]: an sd-listen on SOCKET (default $T/notify), exported as NOTIFY_SOCKET.
start_listener() {
	local sock=${1:-$T/notify}
	: >"$NLOG"
	"$SDL" "$sock" >>"$NLOG" &
	BG_PIDS="$BG_PIDS $!"
	LPID=$!
	wait_until 10 "sd-listen is listening" grep -q '^# listening' "$NLOG"
	export NOTIFY_SOCKET="$sock"
}

# start_daemon ARGS...: ringprofd in the background, stderr appended to $DLOG; waits for the
# next READY=1 and sets DPID.
start_daemon() {
	local ready
	ready=$(n_notify '(^| )READY=1( |$)')
	"$RPD" "$@" 2>>"$DLOG" &
	DPID=$!
	BG_PIDS="$BG_PIDS $DPID"
	wait_until 30 "ringprofd became ready" notify_at_least '(^| )READY=1( |$)' $((ready + 1))
}

# stop_daemon: SIGTERM, then the exit status in $DRC.
stop_daemon() {
	kill -TERM "$DPID"
	wait "$DPID"
	DRC=$?
}

# The daemon's settings for fast tests.
FAST="--frequency 199 --flush-interval 0.2 --event cpu-clock"

# last_status: the newest STATUS= text.
last_status() {
	grep -E 'STATUS=' "$NLOG" | tail -1 | sed 's/.*STATUS=//'
}
# status_count WORDS: the number before WORDS in the newest STATUS= ("samples", "records dropped").
status_count() {
	last_status | sed -n "s/.* \([0-9][0-9]*\) $1.*/\1/p"
}
# status_count_at_least WORDS N
status_count_at_least() {
	local n
	n=$(status_count "$1")
	[ -n "$n" ] && [ "$n" -ge "$2" ]
}
status_samples() {
	status_count samples
}
samples_at_least() {
	status_count_at_least samples "$1"
}

closed_files() {
	ls "$D" | grep -E '^ringprof-[0-9]{8}T[0-9]{6}Z-[0-9]{4,}\.data$' || true
}
partial_files() {
	ls "$D" | grep -E '^ringprof-[0-9]{8}T[0-9]{6}Z-[0-9]{4,}\.data\.partial$' || true
}
n_closed() {
	closed_files | wc -l
}
n_closed_at_least() {
	[ "$(n_closed)" -ge "$1" ]
}

# stats FILE OUT: `ringprof report --stats` of one recording.
stats() {
	"$RP" report -i "$1" --stats >"$2" 2>"$2.err" || fail "report --stats $(basename "$1"): $(cat "$2.err")"
}

# mount_tmpfs SIZE DIR: a small file system of our own, unmounted at exit after the
# background processes are gone. Returns non-zero (with the reason in $T/mount.err) when
# mounting is impossible here.
mount_tmpfs() {
	mkdir -p "$2"
	mount -t tmpfs -o "size=$1,mode=0755" ringprof-test "$2" 2>"$T/mount.err" || return 1
	MOUNTED="$2"
	trap 'for p in $BG_PIDS; do kill -9 "$p" 2>/dev/null; done; wait 2>/dev/null; umount "$MOUNTED"; cleanup' EXIT
}

# Side-band records of pid 0 and tid 0 in a `report --dump` (what the recorder drops in a PID
# namespace, where the kernel gives every task outside it so): COMM and MMAP/MMAP2 print
# "pid=P tid=T ...", FORK and EXIT "pid=P ppid=PP tid=T ptid=PT".
PID0_SIDEBAND='^(COMM|MMAP2?) .* pid=0 tid=0 |^(FORK|EXIT) .* pid=0 ppid=-?[0-9]+ tid=0 '

# check_pid0_regex DUMP: PID0_SIDEBAND can fail. For each of COMM, MMAP2, FORK and EXIT, a real
# line of DUMP (a task's own, pids not 0) does not match it and the same line with its pids
# and tids set to 0 does: a check that no line matches means no such record.
check_pid0_regex() {
	local type line zero
	for type in COMM MMAP2 FORK EXIT; do
		line=$(grep -m1 -E "^$type .* pid=[1-9][0-9]* " "$1") || fail "no $type record of a task in $(basename "$1") to check the pid-0 regex with"
		zero=$(sed -E 's/ (pid|ppid|tid|ptid)=[0-9]+/ \1=0/g' <<<"$line")
		! grep -Eq -- "$PID0_SIDEBAND" <<<"$line" || fail "the pid-0 side-band regex matches a task's own $type: $line"
		grep -Eq -- "$PID0_SIDEBAND" <<<"$zero" || fail "the pid-0 side-band regex misses a $type of pid 0: $zero"
	done
	ok "the pid-0 side-band regex matches COMM, MMAP2, FORK and EXIT lines of pid 0, and not of other tasks"
}
