#!/bin/bash
# record-dlopen.sh — dlopen/dlclose churn (issue 22): a host loads plugin A, calls it, unloads it
# and loads plugin B at the same address, again and again. The unwind table asked for A must be
# A's even when /proc/PID/map_files already shows B there: the recorder tries the next way to
# the file (/proc/PID/root + path, then the path) instead of giving A up. Before, half of the
# stacks stopped in A "without unwind information" (the file on disk is not the one mapped).
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

require_perf_events
command -v gcc >/dev/null || skip "gcc is needed to build the plugins"
src="$top_srcdir/tests/dlchurn"
sed 's/PLUG_/alpha_/g' "$src/plug.c" >"$T/a.c"
sed 's/PLUG_/beta_/g' "$src/plug.c" >"$T/b.c"
gcc -O2 -fomit-frame-pointer -fPIC -shared -o "$T/liba.so" "$T/a.c" &&
	gcc -O2 -fomit-frame-pointer -fPIC -shared -o "$T/libb.so" "$T/b.c" &&
	gcc -O2 -o "$T/host" "$src/host.c" -ldl || fail "cannot build the plugins and their host"

"$RP" record -g -e cpu-clock -F 999 -o "$T/r.data" -- "$T/host" 3 "$T/liba.so" "$T/libb.so" \
	>"$T/rec.out" 2>"$T/rec.err" || fail "record: $(tail -3 "$T/rec.err")"
"$RP" report -i "$T/r.data" --folded >"$T/folded" 2>"$T/rep.err" || fail "report --folded: $(cat "$T/rep.err")"
"$RP" report -i "$T/r.data" --no-children 2>/dev/null | grep '^#' >"$T/head"
# Both plugins did the work: each is sampled (a plugin mapped at the other's place is named).
for p in alpha beta; do
	n=$(awk -v p="${p}_burn" '$0 ~ (";" p " [0-9]+$") { s += $NF } END { print s + 0 }' "$T/folded")
	[ "$n" -ge 100 ] || fail "$p: only $n samples in ${p}_burn (the host works 3 s in the plugins)"
	ok "$p: $n samples in ${p}_burn"
done
# Of the samples in the plugins, those with their whole stack: host's main down to the burn.
read -r whole all < <(awk '/_burn [0-9]+$/ {
	all += $NF; if ($0 ~ /;main;call_plugin;plugin_work;(alpha|beta)_inner;(alpha|beta)_burn [0-9]+$/) whole += $NF
} END { print whole + 0, all + 0 }' "$T/folded")
pct=$(awk -v w="$whole" -v a="$all" 'BEGIN { printf "%.1f", 100 * w / a }')
awk -v p="$pct" 'BEGIN { exit !(p >= 95) }' || {
	cat "$T/rec.err" "$T/head" >&2
	fail "only $pct % of the plugins' samples have their callers up to main ($whole of $all)"
}
ok "dlopen churn: $pct % of the plugins' samples go main;call_plugin;plugin_work;*_inner;*_burn"
check_no_grep 'not the one mapped' "$T/rec.err" "no plugin's table refused as 'not the one mapped'"
check_no_grep 'no unwind information' "$T/rec.err" "record's summary blames no plugin"
echo "# $(grep '^# user stacks' "$T/head")"
