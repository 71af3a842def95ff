#!/bin/bash
# record-unprivileged.sh — as an ordinary user: `-- CMD` and `-p` of one's own processes work
# in per-process mode without kernel samples and say so; `-a` is refused with the reason.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
require_root
command -v setpriv >/dev/null || skip "setpriv (util-linux) is not installed"
require_perf_events
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)

# The build tree may sit in a directory the unprivileged user cannot enter: copy what runs.
U="$T/u"
mkdir -p "$U"
cp "$top_builddir"/ringprof "$top_builddir"/ringprof-record "$top_builddir"/ringprof-report "$top_builddir"/ringprof-unwind \
	"$top_builddir"/tests/workload/rp-workload "$top_builddir"/tests/workload/librp-worklib.so "$U/"
chmod 755 "$T" "$U"
chown nobody "$U"
as_nobody() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups --reset-env -- "$@"
}

as_nobody "$U/ringprof" record -a -e cpu-clock -d 1 -o "$U/a.data" >"$T/a.out" 2>&1
rc=$?
if [ "$paranoid" -ge 1 ]; then
	check_eq "$rc" 1 "-a is refused without privileges"
	check_grep 'permission denied for system-wide recording: kernel.perf_event_paranoid is [0-9]+ and this process lacks CAP_PERFMON' \
		"$T/a.out" "-a refusal names the sysctl and the capability"
	check_grep 'ringprof record -- CMD' "$T/a.out" "-a refusal says what works instead"
fi

if [ "$paranoid" -gt 2 ]; then
	# Debian-style level 3: no perf events for unprivileged users at all; the refusal must say so.
	as_nobody "$U/ringprof" record -e cpu-clock -o "$U/c.data" -- "$U/rp-workload" -d 1 >"$T/c.out" 2>&1
	check_grep 'perf_event_paranoid' "$T/c.out" "per-process refusal explains the sysctl"
	exit 0
fi

(cd "$U" && as_nobody "$U/ringprof" record -e cpu-clock -F 999 -g -o "$U/c.data" -- "$U/rp-workload" -d 1 -x 5) \
	>"$T/c.wl" 2>"$T/c.out"
rc=$?
check_eq "$rc" 5 "unprivileged -- CMD runs and propagates the exit status"
if [ "$paranoid" -ge 2 ]; then
	check_grep 'note: kernel.perf_event_paranoid is 2 and no CAP_PERFMON: recording user space only, without kernel samples' \
		"$T/c.out" "user-only mode is announced"
fi
# NAME:k samples the kernel only: without the privilege for it there is nothing to record, so
# it is refused with the reason (it used to record 0 samples and exit 0).
if [ "$paranoid" -ge 2 ]; then
	(cd "$U" && as_nobody "$U/ringprof" record -e cpu-clock:k -o "$U/k.data" -- "$U/rp-workload" -d 0.2) \
		>/dev/null 2>"$T/k.out"
	check_eq $? 1 "unprivileged -e cpu-clock:k is refused"
	check_grep 'cpu-clock:k samples the kernel only, which needs kernel.perf_event_paranoid <= 1 \(it is [0-9]+\) or CAP_PERFMON' \
		"$T/k.out" "and the refusal says why and what works"
fi
as_nobody "$U/ringprof" report -i "$U/c.data" --dump >"$T/c.dump" || fail "report as nobody"
as_nobody "$U/ringprof" report -i "$U/c.data" --stats >"$T/c.stats"
check_grep '^SAMPLE .* mode=user .* chain=user,0x' "$T/c.dump" "user samples with callchains"
[ "$paranoid" -ge 2 ] && check_no_grep '^SAMPLE .* mode=kernel' "$T/c.dump" "no kernel samples"
check_grep '^MMAP2 .* path=.*/librp-worklib.so$' "$T/c.dump" "library mapping"
check_grep '^BUILDID .* build_id=[0-9a-f]{40}$' "$T/c.dump" "build-ids read without privileges (BUILDID)"
samples=$(stat_field samples "$T/c.stats")
check_range "$samples" 600 1300 "about 999 samples for 1 CPU-second"
perm=$(stat -c %a "$U/c.data")
check_eq "$perm" 600 "the recording is readable by its owner only"

# -p of one's own running process.
as_nobody "$U/rp-workload" -d 4 >/dev/null &
sleep 0.3
wl=$(pgrep -u nobody -f "$U/rp-workload" | head -1)
[ -n "$wl" ] || fail "workload did not start as nobody"
BG_PIDS="$wl"
as_nobody "$U/ringprof" record -e cpu-clock -F 999 -g -d 1 -p "$wl" -o "$U/p.data" 2>"$T/p.out" || fail "-p as nobody: $(cat "$T/p.out")"
as_nobody "$U/ringprof" report -i "$U/p.data" --dump >"$T/p.dump"
check_grep "^SAMPLE .* pid=$wl tid=$wl .* mode=user " "$T/p.dump" "-p samples the main thread"
check_grep "^COMM [0-9.]+ cpu=- pid=$wl tid=[0-9]+ exec=0 comm=rp-worker$" "$T/p.dump" "-p synthesizes the process's threads"
check_grep "^MMAP2 [0-9.]+ cpu=- pid=$wl .*/rp-workload$" "$T/p.dump" "-p synthesizes the process's mappings"
# The worker thread existed before -p attached: it is followed too.
check_grep "^SAMPLE .* pid=$wl tid=[0-9]+ .*" "$T/p.dump" "-p samples exist"
wtid=$(sed -n "s/^COMM [0-9.]* cpu=- pid=$wl tid=\([0-9]*\) exec=0 comm=rp-worker$/\1/p" "$T/p.dump" | head -1)
check_grep "^SAMPLE .* pid=$wl tid=$wtid " "$T/p.dump" "-p samples the existing worker thread"
exit 0
