# bench/lib.sh — shared by record-bench.sh and report-growth.sh: binaries, packages, sysctl, machine table, load, timed recorders.
#
# Sourced, not run. The caller sets ROOT (the source tree) and BENCH (its name, for messages),
# then calls bench_init once; it sets B (build dir), T (temp dir), RP and WL (private copies of
# ringprof and rp-workload), NCPU, and installs the EXIT trap that stops what is still running,
# restores the sysctls and removes T (unless KEEP=1).
# shellcheck shell=bash

die() { echo "$BENCH: $*" >&2; exit 1; }

BG=()    # recorders, their subshells and the load: whatever still runs is killed on exit
LOADP=() # the load processes of the current step
SYS=/proc/sys/kernel
ORIG_RATE=$(cat $SYS/perf_event_max_sample_rate)
ORIG_PCT=$(cat $SYS/perf_cpu_time_max_percent)
SYSCTL_SET=

bench_cleanup() {
	local p
	for p in "${BG[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	[ -z "$SYSCTL_SET" ] || sysctl_restore
	if [ -n "${KEEP:-}" ]; then echo "kept: $T"; else rm -rf "$T"; fi
}

# bench_init PACKAGE...: find the build, check root, install the missing packages (perf always),
# check_rates: SECS (>= 5), MAX_RATE and each of RATES (positive, at most MAX_RATE) are integers.
check_rates() {
	local r
	{ [[ "$SECS" =~ ^[0-9]+$ ]] && [ "$SECS" -ge 5 ]; } || die "SECONDS must be an integer of at least 5, got '$SECS'"
	[[ "$MAX_RATE" =~ ^[0-9]+$ ]] || die "MAX_RATE must be an integer, got '$MAX_RATE'"
	for r in $RATES; do
		{ [[ "$r" =~ ^[0-9]+$ ]] && [ "$r" -gt 0 ]; } || die "RATES must be positive integers, got '$r'"
		[ "$r" -le "$MAX_RATE" ] || die "rate $r is above MAX_RATE=$MAX_RATE"
	done
}

# make the temp dir and copy the binaries into it (a rebuild during the run must not change them).
bench_init() {
	local p need=()
	if [ -n "${RP_BUILD:-}" ]; then B=$RP_BUILD
	elif [ -x "$ROOT/build/ringprof" ]; then B=$ROOT/build
	elif [ -x "$ROOT/ringprof" ]; then B=$ROOT
	else die "no ringprof binary: build first (cd build && make -j2) or set RP_BUILD"
	fi
	for p in ringprof ringprof-record ringprof-report ringprof-unwind; do [ -x "$B/$p" ] || die "$B/$p missing: build first"; done
	[ -x "$B/tests/workload/rp-workload" ] || die "$B/tests/workload/rp-workload missing: run 'make' (it builds the workload too)"
	[ "$(id -u)" = 0 ] || die "needs root (system-wide recording, sysctl, package installs)"

	perf version >/dev/null 2>&1 || need+=(linux-perf)
	for p in "$@"; do
		case $p in
		time) [ -x /usr/bin/time ] || need+=(time) ;;
		*) command -v "$p" >/dev/null || need+=("$p") ;;
		esac
	done
	if [ ${#need[@]} -gt 0 ]; then
		echo "installing: ${need[*]}"
		apt-get update -qq >/dev/null
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
	fi

	NCPU=$(nproc)
	T=$(mktemp -d "${TMPDIR:-/tmp}/rp-$BENCH.XXXXXX")
	trap bench_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	mkdir "$T/bin"
	# The unwind-table helper too: the recorder runs it from its own directory (without it,
	# --call-graph dwarf falls back to frame pointers and says so).
	cp "$B/ringprof" "$B/ringprof-record" "$B/ringprof-report" "$B/ringprof-unwind" "$B/ringprofd" "$T/bin/"
	cp "$B/tests/workload/rp-workload" "$B/tests/workload/librp-worklib.so" "$T/bin/" # RUNPATH $ORIGIN
	RP=$T/bin/ringprof
	WL=$T/bin/rp-workload
}

# ---- sysctl: allow high rates, stop the kernel from lowering them --------------------------
# The kernel refuses (EINVAL) a write of perf_event_max_sample_rate while
# perf_cpu_time_max_percent is 0 or 100, so the rate is written while the percentage is a
# regular one and the percentage is set to 0 last (and restored first). With 0 the kernel no
# longer lowers the max rate when sampling interrupts take long (it does with the default 25).
# sysctl_raise RATE: the max rate becomes at least RATE.
sysctl_raise() {
	SYSCTL_SET=1
	case $ORIG_PCT in 0 | 100) echo 25 >$SYS/perf_cpu_time_max_percent ;; esac
	[ "$ORIG_RATE" -ge "$1" ] || echo "$1" >$SYS/perf_event_max_sample_rate
	echo 0 >$SYS/perf_cpu_time_max_percent
}
sysctl_restore() {
	local pct=$ORIG_PCT
	case $pct in 0 | 100) pct=25 ;; esac
	echo "$pct" >$SYS/perf_cpu_time_max_percent || true
	echo "$ORIG_RATE" >$SYS/perf_event_max_sample_rate || true
	[ "$pct" = "$ORIG_PCT" ] || echo "$ORIG_PCT" >$SYS/perf_cpu_time_max_percent || true
	SYSCTL_SET=
	echo "sysctl restored: kernel.perf_event_max_sample_rate = $(cat $SYS/perf_event_max_sample_rate)," \
		"kernel.perf_cpu_time_max_percent = $(cat $SYS/perf_cpu_time_max_percent)"
}

# ---- machine: markdown rows for bench/RESULTS.md -------------------------------------------
# machine_md RATE_DURING_THE_RUN: the common rows (the caller adds its own and the blank line).
machine_md() {
	local rev cpu_model mem_gib busy during=$1
	rev=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
	[ -z "$(git -C "$ROOT" status --porcelain -uno 2>/dev/null)" ] || rev="$rev + local changes"
	cpu_model=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)
	mem_gib=$(awk '/^MemTotal/ { printf "%.1f", $2 / 1048576 }' /proc/meminfo)
	[ "$ORIG_RATE" -lt "$during" ] || during=$ORIG_RATE
	echo "| | |"
	echo "| --- | --- |"
	echo "| CPUs | $NCPU (nproc), ${cpu_model:-unknown} |"
	echo "| memory | $mem_gib GiB |"
	echo "| kernel | $(uname -r) $(uname -m) |"
	echo "| perf | $(perf version 2>&1) |"
	echo "| ringprof | $("$RP" --version 2>&1 | head -1), commit $rev, built in $B (copied to $T/bin) |"
	echo "| load average | $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min) before the run |"
	echo "| sysctl | kernel.perf_event_max_sample_rate $ORIG_RATE, kernel.perf_cpu_time_max_percent $ORIG_PCT before; $during and 0 during the run |"
	# Other busy processes compete with the recorders and the load: name them.
	busy=$(ps -eo pcpu=,pid=,comm= --sort=-pcpu | awk -v me=$$ '$1 >= 20 && $2 != me && $3 != "ps" { printf "%s%s (pid %s, %s%% CPU)", (n++ ? ", " : ""), $3, $2, $1 }')
	[ -z "$busy" ] || echo "| WARNING | other busy processes: $busy; they slow the tools and make the figures noisier |"
}

# ---- load: every CPU busy ------------------------------------------------------------------
# LOAD=workload (default): one rp-workload per CPU (frame pointers: real user callchains);
# LOAD=stress-ng: stress-ng --cpu N (Debian's build has no frame pointers: short user chains).
load_desc() {
	if [ "${LOAD:-workload}" = stress-ng ]; then echo "stress-ng --cpu $NCPU ($(stress-ng --version 2>&1 | head -1))"
	else echo "$NCPU x rp-workload (tests/workload, one per CPU)"
	fi
}
load_start() { # load_start SECONDS
	local i
	if [ "${LOAD:-workload}" = stress-ng ]; then
		stress-ng --cpu "$NCPU" --timeout "$1"s --quiet >/dev/null 2>&1 &
		LOADP+=($!)
	else
		for ((i = 0; i < NCPU; i++)); do
			"$WL" -q -d "$1" >/dev/null 2>&1 &
			LOADP+=($!)
		done
	fi
	BG+=("${LOADP[@]}")
}
# Stop the load; the recorders and their subshells have ended and been waited for by then.
load_stop() {
	local p
	for p in "${LOADP[@]}"; do kill "$p" 2>/dev/null || true; done
	wait "${LOADP[@]}" 2>/dev/null || true
	LOADP=() BG=()
}

# ---- recorders -----------------------------------------------------------------------------
# The PID of the command a subshell runs (bash's `time` forks it, it does not exec).
child_of() {
	local i c
	for ((i = 0; i < 250; i++)); do
		c=$(cat "/proc/$1/task/$1/children" 2>/dev/null || true)
		[ -z "$c" ] || { echo "${c%% *}"; return 0; }
		sleep 0.02
	done
	return 1
}
# CPU time of all threads of PID so far, ns (schedstat's first field: sum_exec_runtime).
cpu_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f", s }'; }
# wait_events PID: until PID has one perf_event fd per CPU (or exits; 5 s at most)
wait_events() {
	local i n
	for ((i = 0; i < 250; i++)); do
		n=$(find "/proc/$1/fd" -lname 'anon_inode:\[perf_event\]' 2>/dev/null | wc -l)
		[ "$n" -lt "$NCPU" ] || return 0
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.02
	done
}
# timed NAME CMD...: CMD in the background under bash's `time` (getrusage of the subshell's
# children, i.e. CMD and what CMD waited for: real, user, sys, ms), its output in NAME.log,
# the times in NAME.time. Sets SUB[NAME] (the subshell; its exit status is CMD's) and
# PID[NAME] (CMD itself).
declare -A SUB PID
timed() {
	local name=$1
	shift
	(
		TIMEFORMAT='%3R %3U %3S'
		time "$@" >"$name.log" 2>&1
	) 2>"$name.time" &
	SUB[$name]=$!
	BG+=($!)
	PID[$name]=$(child_of "${SUB[$name]}") || die "$name did not start"
	BG+=("${PID[$name]}")
}

# Order when perf records next to ringprof: the kernel ORs PERF_RECORD_MISC_MMAP_BUILD_ID into the
# MMAP2 record it hands to the side-band events in turn (newest first) for an event that asks for
# build-ids, and does not clear it for the next one; a perf 6.1 visited after it aborts
# (util/build-id.c). ringprof no longer asks (its helper reads build-ids from the files), so
# opening ringprof's events first is a precaution, and a perf abort (someone else's recorder that
# does ask, an older ringprof or --buildid-mmap, started during the window) is retried, 3 tries.
perf_aborted() { grep -q 'util/build-id.c' "$@"; }

calc() { awk "BEGIN { $1 }" </dev/null; }

# measure NAME CMD...: run CMD $RUNS times under /usr/bin/time, stdout to NAME.out; prints one
# line and sets med_s (median wall time, s) and max_kb (largest peak RSS, KB).
measure() {
	local name=$1 i
	shift
	: >"$name.times"
	for ((i = 1; i <= RUNS; i++)); do
		/usr/bin/time -o "$name.time" -f '%e %M' "$@" >"$name.out" 2>"$name.err" \
			|| { cat "$name.err" >&2; die "failed: $*"; }
		cat "$name.time" >>"$name.times"
	done
	med_s=$(awk '{ print $1 }' "$name.times" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
	max_kb=$(awk '$2 > m { m = $2 } END { print m }' "$name.times")
	printf '  %-24s %8.2f s %10s KB   runs: %s\n' "$name" "$med_s" "$max_kb" \
		"$(awk '{ printf "%s%s", (NR > 1 ? ", " : ""), $1 }' "$name.times")"
}

# cpu_median NAME CMD...: RUNS runs of CMD under perf stat; sets med_cpu to the median CPU time
# in seconds (task-clock of CMD and its children, e.g. perf annotate's objdump), which a busy
# machine does not inflate as it does wall time (the time spent waiting for a CPU).
cpu_median() {
	local name=$1 i
	shift
	: >"$name.cpus"
	for ((i = 1; i <= RUNS; i++)); do
		perf stat -x, -e task-clock -o "$name.stat" -- "$@" >/dev/null 2>&1 ||
			die "failed under perf stat: $*"
		awk -F, '$3 ~ /^task-clock/ { printf "%.4f\n", $1 / 1000 }' "$name.stat" >>"$name.cpus"
	done
	med_cpu=$(sort -g "$name.cpus" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
}
