#!/bin/bash
# report-perf.sh — cross-check against perf on the same run: perf records the whole system
# while ringprof records the workload; the top symbols and their shares must agree.
# perf records as its users run it (no --buildid-mmap): ringprof does not ask the kernel for
# build-ids, so it does not break perf (tests/perf-neighbour.sh).
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
command -v perf >/dev/null || skip "perf (linux-perf) is not installed"
require_perf_events

comms=rp-workload,rp-worker,rp-child
require_root
# perf's window holds ringprof's whole recording, however long a busy machine makes it: perf's
# command (run once its events are on) says it is up, then waits until ringprof is done.
perf record -q -a -e cpu-clock -F 999 -g -o "$T/perf.data" -- sh -c \
	": >'$T/perf.up'; while [ ! -e '$T/rp.done' ]; do sleep 0.1; done" 2>"$T/perf.err" &
BG_PIDS=$!
for _ in $(seq 300); do [ -e "$T/perf.up" ] && break; kill -0 $BG_PIDS 2>/dev/null || break; sleep 0.1; done
[ -e "$T/perf.up" ] || fail "perf record did not start: $(cat "$T/perf.err")"
"$RP" record -q -e cpu-clock -F 999 -g -o "$T/rp.data" -- "$WL" -d 3 >/dev/null || fail "ringprof record"
: >"$T/rp.done"
wait $BG_PIDS || fail "perf record: $(cat "$T/perf.err")"
perf report -i "$T/perf.data" --stdio -q --no-children -g none --sort comm,dso,sym --comms $comms \
	--percentage relative 2>/dev/null | awk 'NF >= 5 && $1 ~ /%$/' >"$T/perf.raw"
# perf may print one comm/dso/symbol as two entries (seen with the ASan-built workload, two
# dso objects for one file): one share per key, as ringprof prints it.
awk '{ k = $2 " " $3 " " $4 " " $5; if (!(k in s)) o[n++] = k; sub("%", "", $1); s[k] += $1 }
	END { for (i = 0; i < n; i++) printf "%.2f%% %s\n", s[o[i]], o[i] }' "$T/perf.raw" |
	sort -k1,1 -g -r >"$T/perf.txt"
"$RP" report -i "$T/rp.data" --no-children --comm $comms | awk '$1 ~ /%$/' >"$T/rp.txt"
[ -s "$T/perf.txt" ] || fail "perf report printed nothing"

# For each of perf's top 5 entries: the same comm/dso/symbol in ringprof within 4 points.
head -5 "$T/perf.txt" | while read -r pct comm dso mark sym; do
	p=${pct%\%}
	r=$(awk -v c="$comm" -v d="$dso" -v s="$sym" '$2 == c && $3 == d && $5 == s { sub("%", "", $1); print $1; exit }' "$T/rp.txt")
	[ -n "$r" ] || { cat "$T/perf.txt" "$T/rp.txt" >&2; fail "perf's $sym ($comm, $dso) is missing from ringprof's report"; }
	within "$p" "$r" 4 \
		|| { cat "$T/perf.txt" "$T/rp.txt" >&2; fail "$sym: perf $p %, ringprof $r %"; }
	echo "ok - $sym ($comm, $dso): perf $p %, ringprof $r %"
done || exit 1
exit 0
