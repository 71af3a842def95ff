#!/bin/bash
# report-timeline-unit.sh — `report --timeline` by systemd unit: two workloads, one after the
# other, each in a unit of its own (rp-tla.service, then rp-tlb.service, cgroup v2), recorded
# system-wide. The timeline's columns are the units (the samples are in several), each unit's
# column adds up to report --unit's samples, and rp-tlb.service's samples all come after
# rp-tla.service's; -s comm turns the columns back into commands.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
require_perf_events
require_root
unit_slice "rp-tl-$$.slice"
mkdir "$SLICE/rp-tla.service" "$SLICE/rp-tlb.service"
# Each shell moves itself into its unit, then execs the workload; the second starts 0.5 s
# after the first has ended.
printf '%s\n' \
	"sh -c 'echo \$\$ >\"$SLICE/rp-tla.service/cgroup.procs\" && exec \"$WL\" -d 1 -q'" \
	"sleep 0.5" \
	"sh -c 'echo \$\$ >\"$SLICE/rp-tlb.service/cgroup.procs\" && exec \"$WL\" -d 1 -q'" >"$T/run.sh"
"$RP" record -a -e cpu-clock -F 499 -o "$T/u.data" -- sh "$T/run.sh" 2>"$T/rec.err" ||
	fail "record -a: $(cat "$T/rec.err")"

"$RP" report -i "$T/u.data" --timeline=40 >"$T/all" 2>"$T/tl.err" || fail "report --timeline: $(cat "$T/tl.err")"
check_grep '^# Timeline: .* samples per bucket by unit$' "$T/all" "several units: the timeline is by unit"
# The workload's units only (the machine's other units could outnumber its two; another
# suite's rp-workload in units of its own ran beside it once).
W=(--unit rp-tla.service,rp-tlb.service)
"$RP" report -i "$T/u.data" --timeline=40 "${W[@]}" >"$T/tl" 2>"$T/tl.err" ||
	fail "report --timeline --comm: $(cat "$T/tl.err")"
check_grep '^# Timeline: .* samples per bucket by unit$' "$T/tl" "the workload's samples, in two units: by unit"
# col NAME: the column of NAME in the timeline's heads (0: none).
col() { awk -v n="$1" '/^# +Time +Samples/ { for (i = 1; i <= NF; i++) if ($i == n) c = i - 1 } END { print c + 0 }' "$2"; }
a=$(col rp-tla.service "$T/tl") b=$(col rp-tlb.service "$T/tl")
{ [ "$a" -gt 2 ] && [ "$b" -gt 2 ]; } || { cat "$T/tl" >&2; fail "no column for rp-tla.service or rp-tlb.service"; }
ok "a column for each workload's unit"
for u in rp-tla.service:"$a" rp-tlb.service:"$b"; do
	sum=$(awk -v c="${u#*:}" '/^[0-9]/ { s += $c } END { print s + 0 }' "$T/tl")
	want=$("$RP" report -i "$T/u.data" --unit "${u%%:*}" 2>/dev/null | sed -n 's/^# samples: \([0-9]*\) of.*/\1/p')
	[ "${want:-0}" -gt 50 ] || fail "report --unit ${u%%:*} has ${want:-no} samples"
	check_eq "$sum" "$want" "the ${u%%:*} column adds up to report --unit ${u%%:*}"
done
awk '/^[0-9]/ { t = 0; for (i = 3; i <= NF; i++) if ($i ~ /^[0-9]+$/) t += $i; if (t != $2) bad++ } END { exit bad > 0 }' "$T/tl" ||
	fail "a bucket's columns do not add up to its samples"
awk '/^[0-9]/ { t = 0; for (i = 3; i <= NF; i++) if ($i ~ /^[0-9]+$/) t += $i; if (t != $2) bad++ } END { exit bad > 0 }' "$T/all" ||
	fail "a bucket's columns do not add up to its samples (all units)"
ok "each bucket's columns add up to its samples"
# rp-tlb.service's first bucket comes after rp-tla.service's last.
last_a=$(awk -v c="$a" '/^[0-9]/ { n++; if ($c > 0) l = n } END { print l + 0 }' "$T/tl")
first_b=$(awk -v c="$b" '/^[0-9]/ { n++; if ($c > 0 && !f) f = n } END { print f + 0 }' "$T/tl")
[ "$last_a" -gt 0 ] && [ "$first_b" -gt "$last_a" ] ||
	{ cat "$T/tl" >&2; fail "rp-tlb.service's samples start in bucket $first_b, rp-tla.service's end in $last_a"; }
ok "rp-tlb.service's samples (from bucket $first_b) all come after rp-tla.service's (to bucket $last_a)"

"$RP" report -i "$T/u.data" --timeline=40 "${W[@]}" -s comm >"$T/tlc" 2>/dev/null || fail "report --timeline -s comm"
check_grep '^# Timeline: .* samples per bucket by command$' "$T/tlc" "-s comm: by command"
[ "$(col rp-workload "$T/tlc")" -gt 2 ] || { cat "$T/tlc" >&2; fail "-s comm: no rp-workload column"; }
ok "-s comm: an rp-workload column"
check_eq "$(awk '/^[0-9]/ { s += $2 } END { print s + 0 }' "$T/tlc")" \
	"$(awk '/^[0-9]/ { s += $2 } END { print s + 0 }' "$T/tl")" "-s comm: the same samples per bucket"
"$RP" report -i "$T/u.data" --timeline=40 --unit rp-tla.service -s unit >"$T/tlu" 2>/dev/null ||
	fail "report --timeline --unit -s unit"
check_grep '^# Timeline: .* samples per bucket by unit$' "$T/tlu" "-s unit: by unit, even for one unit"
exit 0
