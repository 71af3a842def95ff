#!/bin/bash
# report-window-note.sh — a relative window (--since -DUR, --until -DUR) counts back from the
# last sample, not from now: on the golden recording (made days ago) a note says so, names
# the last sample and how long ago it was, and gives the window, whose length is DUR and
# which holds the samples the report kept. Absolute windows and +DUR have no such note.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
export TZ=UTC
G="$top_srcdir/tests/golden/v2"
R=("$RP" report --no-pager -i "$G/workload.rpd" --symfs "$G/symfs")

"${R[@]}" --since -0.5s >"$T/out" 2>"$T/err" || fail "report --since -0.5s: $(cat "$T/err")"
check_eq "$(grep -c 'counts back' "$T/err")" 1 "--since -0.5s: one note"
check_grep '^ringprof report: note: --since -0.5s counts back from the last sample \([0-9-]+ [0-9:.]+, [0-9.]+ (s|min|h|d) ago\), not from now: the window is [0-9-]+ [0-9:.]+ to [0-9-]+ [0-9:.]+$' \
	"$T/err" "the note names the last sample, how long ago, and the window"
python3 - "$T/err" "$T/out" <<'PY' >"$T/py" 2>&1 || fail "the note's times: $(tail -2 "$T/py")"
import re, sys, time, calendar
note = open(sys.argv[1]).read()
head = open(sys.argv[2]).read()
ts = lambda s: calendar.timegm(time.strptime(s[:19], "%Y-%m-%d %H:%M:%S")) + float("0" + s[19:])
m = re.search(r"last sample \((\S+ \S+), ([0-9.]+) (s|min|h|d) ago\).* window is (\S+ \S+) to (\S+ \S+)$", note, re.M)
last, ago, unit, a, b = ts(m.group(1)), float(m.group(2)), m.group(3), ts(m.group(4)), ts(m.group(5))
assert abs(b - last) < 0.0015, (b, last)
assert abs((b - a) - 0.5) < 0.0015, ("window length", b - a)
scale = {"s": 1, "min": 60, "h": 3600, "d": 86400}[unit]
assert abs(time.time() - last - ago * scale) <= 0.06 * scale + 2, ("ago", ago, unit, time.time() - last)
w = re.search(r"^# window: samples from (\S+ \S+) to (\S+ \S+)$", head, re.M)
first_kept, last_kept = ts(w.group(1)), ts(w.group(2))
assert a - 0.0015 <= first_kept <= last_kept <= b + 0.0015, (a, first_kept, last_kept, b)
print("ok")
PY
ok "the window is 0.5 s long, ends at the last sample, and holds the samples the report kept"

"${R[@]}" --until -0.2s >/dev/null 2>"$T/err2" || fail "report --until -0.2s"
check_grep '^ringprof report: note: --until -0.2s counts back from the last sample .*: the window is the first sample to ' \
	"$T/err2" "--until -0.2s: the note too, the window from the first sample"
"${R[@]}" --since +0.2s >/dev/null 2>"$T/err3" || fail "report --since +0.2s"
check_no_grep 'counts back' "$T/err3" "--since +0.2s: no note (counted from the first sample)"
"${R[@]}" --since "2001-01-01 00:00" --until "2031-01-01 00:00" >/dev/null 2>"$T/err4" ||
	fail "report --since/--until dates: $(cat "$T/err4")"
check_no_grep 'counts back' "$T/err4" "dates: no note"
"$RP" report --help | grep -q -- '-15min counts' || fail "--help does not say what -15min counts from"
ok "--help says -DUR counts from the last sample"
exit 0
