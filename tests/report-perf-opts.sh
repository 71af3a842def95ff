#!/bin/bash
# report-perf-opts.sh — perf's report spellings with perf's meanings, and a note or an error
# for every conflict and no-op (never silence); --dump honours the task, CPU, time, name, unit
# and event filters and says that --dso does not apply; --stats says which filters it ignores.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
require_perf_events
R="$RP report"

"$RP" record -q -e cpu-clock -F 499 --call-graph fp -o "$T/g.data" -- "$WL" -d 2 >"$T/wl.out" ||
	fail "ringprof record --call-graph fp"
"$RP" record -q -e cpu-clock -F 499 -o "$T/flat.data" -- "$WL" -d 1 -q || fail "ringprof record"
pid=$(sed -n 's/.*main [0-9.]* (pid \([0-9]*\)).*/\1/p' "$T/wl.out")
# n_report FILTERS...: the samples report -n counts in g.data with those filters.
n_report() { $R -i "$T/g.data" -n --no-children -s comm "$@" | awk '$1 ~ /%$/ { n += $2 } END { print n + 0 }'; }

# --- perf's spellings ---
$R -i "$T/g.data" >"$T/default.txt" 2>/dev/null || fail "report"
$R -i "$T/g.data" --stdio >"$T/stdio.txt" 2>/dev/null || fail "report --stdio"
diff -u "$T/default.txt" "$T/stdio.txt" >&2 || fail "--stdio changed the report"
ok "--stdio: accepted, the same text"
$R -i "$T/g.data" --children >"$T/children.txt" 2>/dev/null || fail "report --children"
diff -u "$T/default.txt" "$T/children.txt" >&2 || fail "--children differs from the default"
check_grep '^# Children +Self ' "$T/children.txt" "--children: Children and Self columns"
$R -i "$T/g.data" --tui >"$T/out" 2>&1; rc=$?
check_eq "$rc" 2 "--tui exits 2"
check_grep '^ringprof report: --tui is not available: ringprof prints text only' "$T/out" "--tui: why, in one sentence"
$R -i "$T/g.data" -s dso,symbol --no-children >"$T/s1.txt" 2>/dev/null || fail "-s dso,symbol"
$R -i "$T/g.data" -s dso,sym --no-children >"$T/s2.txt" 2>/dev/null || fail "-s dso,sym"
diff -u "$T/s2.txt" "$T/s1.txt" >&2 || fail "-s dso,symbol differs from -s dso,sym"
check_grep '^# +Self +Shared Object +Symbol$' "$T/s1.txt" "-s dso,symbol: perf's key name for sym"

# Bare -g: perf's 'graph,0.5', caller order with Children, callee without.
$R -i "$T/g.data" -g >"$T/g.txt" 2>/dev/null || fail "bare -g"
$R -i "$T/g.data" -g caller >"$T/gcaller.txt" 2>/dev/null || fail "-g caller"
diff -u "$T/gcaller.txt" "$T/g.txt" >&2 || fail "bare -g with Children is not the caller tree"
check_grep '^ +`--[0-9.]+%--hot_leaf$' "$T/g.txt" "bare -g draws trees (hot_outer_a calls hot_leaf)"
$R -i "$T/g.data" --no-children -g >"$T/gnc.txt" 2>/dev/null || fail "--no-children -g"
$R -i "$T/g.data" --no-children -g callee >"$T/gncallee.txt" 2>/dev/null || fail "-g callee"
diff -u "$T/gncallee.txt" "$T/gnc.txt" >&2 || fail "bare -g without Children is not the callee tree"
ok "bare -g: caller tree with Children, callee tree without (as perf)"
$R -i "$T/g.data" -G >"$T/G.txt" 2>/dev/null || fail "-G"
diff -u "$T/gcaller.txt" "$T/G.txt" >&2 || fail "-G differs from -g caller"
ok "-G (--inverted): the caller tree"
$R -i "$T/g.data" --call-graph=graph,0.5,caller,function,percent >"$T/gfull.txt" 2>/dev/null ||
	fail "--call-graph=graph,0.5,caller,function,percent"
diff -u "$T/gcaller.txt" "$T/gfull.txt" >&2 || fail "perf's full -g spec differs from -g caller"
ok "perf's full spelling graph,0.5,caller,function,percent"
$R -i "$T/g.data" -g fractal >"$T/out" 2>&1; rc=$?
check_eq "$rc" 2 "-g fractal exits 2"
check_grep "^ringprof report: -g fractal is not available" "$T/out" "-g fractal: why"

$R -i "$T/g.data" -F overhead,sample,comm,sym --no-children >"$T/F.txt" 2>/dev/null || fail "-F"
check_grep '^# +Self +Samples +Command +Symbol$' "$T/F.txt" "-F overhead,sample,comm,sym: those columns"
check_grep '^ +[0-9.]+% +[0-9]+ rp-worker +\[\.\] worker_spin$' "$T/F.txt" "-F: worker_spin's row"

# --percentage: shares of what the filters keep, or of every sample.
pr=$($R -i "$T/g.data" --no-children --comm rp-worker --percentage relative | awk '$5 == "worker_spin" { print int($1 + 0.5) }')
pa=$($R -i "$T/g.data" --no-children --comm rp-worker --percentage absolute | awk '$5 == "worker_spin" { print int($1 + 0.5) }')
check_range "${pr:-0}" 95 100 "--percentage relative: worker_spin is (nearly) all of rp-worker's samples"
check_range "${pa:-0}" 19 31 "--percentage absolute: worker_spin is a quarter of every sample"
$R -i "$T/g.data" --percentage sideways >"$T/out" 2>&1; rc=$?
check_eq "$rc" 2 "--percentage sideways exits 2"
check_grep "^ringprof report: --percentage takes relative or absolute, not 'sideways'$" "$T/out" "--percentage: what it takes"

# -v: each symbol warning on its own line instead of a summary (dd has no function symbols).
"$RP" record -q -e cpu-clock -F 499 -o "$T/dd.data" -- dd if=/dev/zero of=/dev/null bs=4k count=300000 2>/dev/null ||
	fail "record dd"
$R -i "$T/dd.data" >/dev/null 2>"$T/quiet.err"
$R -i "$T/dd.data" -v >/dev/null 2>"$T/verbose.err"
if grep -q 'no function symbols' "$T/quiet.err"; then
	check_grep '^ringprof report: note: no function symbols: 1 object' "$T/quiet.err" "without -v: summed up"
	check_grep '^ringprof report: symbols: warning: .*/dd: no function symbols' "$T/verbose.err" "-v: the warning itself"
else
	echo "# dd has function symbols here: -v has nothing to show"
fi

# -q: the table alone, as perf's report -q; --header-only: the header alone.
$R -i "$T/g.data" --no-children -q >"$T/q.txt" 2>/dev/null || fail "-q"
check_no_grep '^#' "$T/q.txt" "-q: no header or title line"
diff -u <(grep -v '^#' "$T/s1.txt" | grep -v '^$') <($R -i "$T/g.data" -s dso,sym --no-children --quiet) >&2 ||
	fail "--quiet changed the table's rows"
ok "-q: the same rows as without it"
check_grep '^ +[0-9.]+% rp-worker +rp-workload +\[\.\] worker_spin$' "$T/q.txt" "-q: worker_spin's row first thing"
$R -i "$T/g.data" --header-only >"$T/ho.txt" 2>/dev/null || fail "--header-only"
check_grep '^# samples: [0-9]+, lost: ' "$T/ho.txt" "--header-only: the samples line"
check_grep '^# event: cpu-clock, 499 Hz' "$T/ho.txt" "--header-only: the event line"
check_no_grep '^[^#]' "$T/ho.txt" "--header-only: no table"
# perf's --header is the header and then the report, not an abbreviation of --header-only.
$R -i "$T/g.data" --header >"$T/h.txt" 2>/dev/null || fail "--header"
check_grep '^# samples: [0-9]+, lost: ' "$T/h.txt" "--header: the header"
check_grep '^ +[0-9.]+% ' "$T/h.txt" "--header: and the table after it"
$R -i "$T/g.data" --header-only --folded >"$T/out" 2>&1; rc=$?
check_eq "$rc" 2 "--header-only --folded exits 2"
check_grep "^ringprof report: --header-only prints the report's header alone: not with --folded$" "$T/out" \
	"--header-only --folded: why"

# perf's filter spellings: --comms, --dsos, -C are --comm, --dso, --cpu.
$R -i "$T/g.data" --no-children --comm rp-worker --dso rp-workload --cpu 0,1 >"$T/f1.txt" 2>&1
$R -i "$T/g.data" --no-children --comms rp-worker --dsos rp-workload -C 0,1 >"$T/f2.txt" 2>&1 ||
	fail "--comms --dsos -C: $(cat "$T/f2.txt")"
diff -u "$T/f1.txt" "$T/f2.txt" >&2 || fail "--comms/--dsos/-C differ from --comm/--dso/--cpu"
check_grep '^ +[0-9.]+% rp-worker +rp-workload +\[\.\] worker_spin$' "$T/f2.txt" "--comms/--dsos/-C: worker_spin's row"
check_no_grep '^ +[0-9.]+% +rp-workload ' "$T/f2.txt" "--comms rp-worker: no other command"
# script -C N --comms rp-worker, N the CPU where rp-worker ran most (the scheduler decides).
wcpu=$($R -i "$T/g.data" -n --no-children -s cpu --comm rp-worker -q | awk '$1 ~ /%$/ { print $3; exit }')
[ -n "$wcpu" ] || fail "report -s cpu --comm rp-worker shows no CPU"
"$RP" script -i "$T/g.data" -C "$wcpu" --comms rp-worker >"$T/sc.txt" 2>/dev/null || fail "script -C $wcpu --comms"
grep -E '^ *[^	 ].* \[[0-9]{3}\] ' "$T/sc.txt" | grep -v " \[$(printf '%03d' "$wcpu")\] " >"$T/sc.other"
check_no_grep '.' "$T/sc.other" "script -C $wcpu: no sample of another CPU"
check_no_grep '^ *(rp-workload|rp-child|sh) ' "$T/sc.txt" "script --comms rp-worker: no other command"
n=$(grep -Ec "^rp-worker +[0-9]+/[0-9]+ +\[$(printf '%03d' "$wcpu")\] " "$T/sc.txt")
check_range "$n" 1 1000000 "script -C $wcpu --comms rp-worker: rp-worker's samples on CPU $wcpu"
check_eq "$n" "$(n_report --comm rp-worker --cpu "$wcpu")" \
	"script -C $wcpu --comms rp-worker: as many samples as report -n counts"

# --- conflicts and no-ops ---
$R -i "$T/flat.data" -g >"$T/out" 2>"$T/err" || fail "-g on a recording without callchains"
check_grep '^ringprof report: note: the recording has no callchains, so there is no call graph to show; record with -g$' \
	"$T/err" "-g without callchains: a note saying to record with -g"
check_no_grep '%--' "$T/out" "and no tree"
$R -i "$T/g.data" --since +1.5 --until +0.5 >"$T/out" 2>&1; rc=$?
check_eq "$rc" 2 "a reversed window exits 2"
check_grep '^ringprof report: --since \(.*\) is after --until \(.*\): no sample can match$' "$T/out" "a reversed window: why"
$R -i "$T/g.data" --since "2001-01-01 10:00" --until "2001-01-01 11:00" >"$T/out" 2>"$T/err" || true
check_grep '^ringprof report: note: --since/--until select nothing: the recording spans [0-9-]+ [0-9:]+ to [0-9-]+ [0-9:]+$' \
	"$T/err" "a window outside the recording: a note with the recording's span"
for pair in "--stats --dump" "--dump --folded" "--folded --stats"; do
	# shellcheck disable=SC2086
	$R -i "$T/g.data" $pair >"$T/out" 2>&1; rc=$?
	check_eq "$rc" 2 "$pair exits 2"
	check_grep '^ringprof report: --stats, --dump and --folded are different outputs: choose one of them$' "$T/out" "$pair: one of them"
done
$R -i "$T/g.data" --symfs "$T/no-such-dir" >"$T/out" 2>&1; rc=$?
check_eq "$rc" 2 "a missing --symfs directory exits 2"
check_grep "^ringprof report: --symfs $T/no-such-dir: No such file or directory$" "$T/out" "a missing --symfs: which, and why"
DEBUGINFOD_URLS= $R -i "$T/g.data" --debuginfod >/dev/null 2>"$T/err" || fail "--debuginfod without servers"
check_grep '^ringprof report: note: --debuginfod has no server to ask: DEBUGINFOD_URLS is empty; set it' "$T/err" \
	"--debuginfod with DEBUGINFOD_URLS empty: a note saying what to set"

# getopt's complaints in our words, with our name.
$R --bogus >"$T/out" 2>&1; rc=$?
check_eq "$rc" 2 "an unknown option exits 2"
check_grep "^ringprof report: unknown option '--bogus'$" "$T/out" "an unknown long option, named"
$R -x >"$T/out" 2>&1
check_grep "^ringprof report: unknown option '-x'$" "$T/out" "an unknown short option, named"
$R --sortt symbol >"$T/out" 2>&1
check_grep "^ringprof report: unknown option '--sortt'; did you mean '--sort'\\?$" "$T/out" "a near miss: did you mean"
$R --pid >"$T/out" 2>&1
check_grep "^ringprof report: option '--pid' needs an argument$" "$T/out" "a missing argument, named"
check_no_grep "^report:|^ringprof-report:" "$T/out" "never getopt's own prefix"
"$RP" script --bogus >"$T/out" 2>&1; rc=$?
check_eq "$rc" 2 "script: an unknown option exits 2"
check_grep "^ringprof script: unknown option '--bogus'$" "$T/out" "script: its own name"

# --- --dump honours --pid, --cpu, --since/--until ---
$R -i "$T/g.data" --dump --pid "$pid" >"$T/dpid.txt" || fail "--dump --pid"
check_no_grep "^SAMPLE .* pid=([0-9]+) " <(grep -v " pid=$pid " "$T/dpid.txt" | grep '^SAMPLE') "--dump --pid: no other process's sample"
check_eq "$(grep -c '^SAMPLE' "$T/dpid.txt")" "$(n_report --pid "$pid")" "--dump --pid: as many samples as report -n counts"
check_grep "^COMM .* pid=$pid tid=$pid " "$T/dpid.txt" "--dump --pid: that process's COMM"
check_grep "^HEADER " "$T/dpid.txt" "--dump --pid: the header still shown"
$R -i "$T/g.data" --dump --cpu 1 | grep '^SAMPLE' >"$T/dcpu.txt"
check_no_grep " cpu=0 " "$T/dcpu.txt" "--dump --cpu 1: no sample of CPU 0"
check_eq "$(wc -l <"$T/dcpu.txt")" "$(n_report --cpu 1)" "--dump --cpu 1: as many samples as report -n counts"
$R -i "$T/g.data" --dump --since +0.5 --until +1 | grep -c '^SAMPLE' >"$T/dwin.txt"
check_eq "$(cat "$T/dwin.txt")" "$(n_report --since +0.5 --until +1)" "--dump --since/--until: the window's samples"

# --- --dump honours --comm, --unit and --event (samples, by the replayed names) ---
$R -i "$T/g.data" --dump --comm rp-worker >"$T/dcomm.txt" 2>"$T/dcomm.err" || fail "--dump --comm"
check_no_grep '.' "$T/dcomm.err" "--dump --comm: no note (it applies)"
grep '^SAMPLE' "$T/dcomm.txt" | sed -n 's/.* tid=\([0-9]*\) .*/\1/p' | sort -u >"$T/dcomm.tids"
wtid=$($R -i "$T/g.data" --no-children -s comm,tid -q | awk '$2 == "rp-worker" { print $3 }')
[ -n "$wtid" ] || fail "report -s comm,tid shows no rp-worker thread"
check_eq "$(cat "$T/dcomm.tids")" "$wtid" "--dump --comm rp-worker: the samples of the worker thread (tid $wtid) alone"
check_eq "$(grep -c '^SAMPLE' "$T/dcomm.txt")" "$(n_report --comm rp-worker)" "--dump --comm: as many samples as report -n counts"
check_grep "^COMM .* pid=$pid tid=$pid .*comm=rp-workload" "$T/dcomm.txt" "--dump --comm: the other records are shown"
$R -i "$T/g.data" --dump --comm no-such-command | grep -c '^SAMPLE' >"$T/dnone.txt"
check_eq "$(cat "$T/dnone.txt")" 0 "--dump --comm of no thread: no sample"
unit=$($R -i "$T/g.data" -n --no-children -s unit -q | awk '$1 ~ /%$/ { print $3; exit }')
[ -n "$unit" ] || fail "report -s unit named no unit"
check_eq "$($R -i "$T/g.data" --dump --unit "$unit" | grep -c '^SAMPLE')" "$(n_report --unit "$unit")" \
	"--dump --unit '$unit': as many samples as report -n counts"
check_eq "$($R -i "$T/g.data" --dump --unit no-such.service | grep -c '^SAMPLE')" 0 "--dump --unit of no thread: no sample"
"$RP" record -q -e cpu-clock -e task-clock -F 499 -o "$T/two.data" -- "$WL" -d 1 -q || fail "record -e cpu-clock -e task-clock"
$R -i "$T/two.data" --dump --event task-clock | grep '^SAMPLE' >"$T/dev.txt"
check_grep '^SAMPLE event=task-clock ' "$T/dev.txt" "--dump --event task-clock: its samples"
check_no_grep '^SAMPLE event=cpu-clock ' "$T/dev.txt" "--dump --event task-clock: none of cpu-clock"
check_eq "$(wc -l <"$T/dev.txt")" \
	"$($R -i "$T/two.data" -n --no-children -s comm --event task-clock | awk '$1 ~ /%$/ { n += $2 } END { print n + 0 }')" \
	"--dump --event: as many samples as report -n --event counts"
$R -i "$T/two.data" --dump --event bogus >"$T/out" 2>&1; rc=$?
check_eq "$rc" 2 "--dump --event of no such event exits 2"
check_grep "^ringprof report: no event 'bogus' in the recording; they have: cpu-clock, task-clock$" "$T/out" \
	"--dump --event bogus: the events there are"

# --- what does not apply says so, once ---
$R -i "$T/g.data" --dump --dso rp-workload >"$T/ddso.txt" 2>"$T/ddso.err" || fail "--dump --dso"
check_eq "$(cat "$T/ddso.err")" "ringprof report: note: --dump shows samples as recorded, before they are symbolized: --dso does not apply (ringprof script selects samples by object)" \
	"--dump --dso: one note, that --dso does not apply"
check_eq "$(grep -c '^SAMPLE' "$T/ddso.txt")" "$(n_report)" "--dump --dso: every sample, as the note says"
$R -i "$T/g.data" --stats >"$T/st0.txt" 2>"$T/st0.err" || fail "--stats"
check_no_grep '.' "$T/st0.err" "--stats without filters: no note"
$R -i "$T/g.data" --stats --comm rp-worker >"$T/st1.txt" 2>"$T/st1.err" || fail "--stats --comm"
check_eq "$(cat "$T/st1.err")" "ringprof report: note: --stats counts whole recordings: --comm does not apply (report -n counts the samples the filters keep)" \
	"--stats --comm: one note naming --comm"
diff -u "$T/st0.txt" "$T/st1.txt" >&2 || fail "--stats --comm changed the counts"
ok "--stats --comm: the whole recording's counts, as the note says"
$R -i "$T/g.data" --stats --pid "$pid" --tid "$pid" -C 1 --unit "$unit" --dso rp-workload --event cpu-clock \
	--since +0.5 --until +1 >/dev/null 2>"$T/st2.err" || fail "--stats with every filter"
check_eq "$(cat "$T/st2.err")" "ringprof report: note: --stats counts whole recordings: --pid, --tid, --cpu, --unit, --dso, --event, --since/--until do not apply (report -n counts the samples the filters keep)" \
	"--stats with every other filter: one note naming each"
# The profile's layout and weight do not apply to --stats and --dump either: one note.
$R -i "$T/g.data" --stats -g caller --sort dso --percent-limit 5 --no-children >"$T/st3.txt" 2>"$T/st3.err" ||
	fail "--stats with layout options"
check_eq "$(cat "$T/st3.err")" "ringprof report: note: --stats prints what the recordings hold, not a profile: -g, --sort, --percent-limit, --no-children do not apply" \
	"--stats -g --sort --percent-limit --no-children: one note naming each"
diff -u "$T/st0.txt" "$T/st3.txt" >&2 || fail "--stats with layout options changed the output"
ok "--stats with layout options: the same counts"
$R -i "$T/g.data" --dump --off-cpu >/dev/null 2>"$T/d3.err" || fail "--dump --off-cpu"
check_eq "$(cat "$T/d3.err")" "ringprof report: note: --dump prints the records as recorded, not a profile: --off-cpu does not apply" \
	"--dump --off-cpu: one note"
exit 0
