#!/bin/bash
# driver.sh — the test driver `make check` runs each test with (automake's custom driver
# interface: LOG_DRIVER). It counts checks, not programs: each "ok ..." line a shell test
# prints (tests/lib.sh's ok()) is one PASS, each "not ok ..." one FAIL; a C test's closing
# "# checks: N passed, F failed" line (tests/check.h) is N PASS and F FAIL. Whatever a test
# says, an exit status other than 0 and 77 is a FAIL (99: ERROR) when no check failed, named
# by the test's last "FAIL:" line; 77 is a SKIP, named by its "SKIP:" line. A test that exits
# 0 having counted nothing is one PASS.
#
# Usage (by automake): driver.sh --test-name NAME --log-file LOG --trs-file TRS
#                      [--color-tests B] [--expect-failure B] [--enable-hard-errors B] -- TEST ARGS
set -u
name= log= trs=
while [ $# -gt 0 ]; do
	case $1 in
	--test-name) name=$2; shift 2 ;;
	--log-file) log=$2; shift 2 ;;
	--trs-file) trs=$2; shift 2 ;;
	--color-tests | --expect-failure | --enable-hard-errors | --collect-skipped-logs) shift 2 ;;
	--) shift; break ;;
	*) echo "driver.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
done
[ -n "$name" ] && [ -n "$log" ] && [ -n "$trs" ] && [ $# -gt 0 ] ||
	{ echo "driver.sh: usage: --test-name NAME --log-file LOG --trs-file TRS -- TEST [ARGS]" >&2; exit 2; }

"$@" >"$log" 2>&1
rc=$?

# The counts, and the results file: one :test-result: line per check.
read -r pass fail < <(awk '
	/^ok( |$)/ { p++ }
	/^not ok( |$)/ { f++ }
	/^# checks: [0-9]+ passed, [0-9]+ failed/ { p += $3; f += $5 }
	END { print p + 0, f + 0 }' "$log")
why=
case $rc in
0) [ "$pass" -gt 0 ] || [ "$fail" -gt 0 ] || pass=1 ;;
77) why=$(grep -m1 '^SKIP: ' "$log" | cut -c7-) ;;
*) why=$(grep '^FAIL: ' "$log" | tail -1 | cut -c7-) ;;
esac
{
	awk -v n="$pass" 'BEGIN { for (i = 0; i < n; i++) print ":test-result: PASS" }'
	awk -v n="$fail" 'BEGIN { for (i = 0; i < n; i++) print ":test-result: FAIL" }'
	case $rc in
	0) ;;
	77) echo ":test-result: SKIP ${why:-exit status 77}" ;;
	99) echo ":test-result: ERROR exit status 99${why:+: $why}" ;;
	*) [ "$fail" -gt 0 ] || echo ":test-result: FAIL exit status $rc${why:+: $why}" ;;
	esac
} >"$trs"
if [ "$rc" = 77 ] && [ "$fail" = 0 ]; then
	global=SKIP
elif [ "$rc" = 0 ] && [ "$fail" = 0 ]; then
	global=PASS
elif [ "$rc" = 99 ]; then
	global=ERROR
else
	global=FAIL
fi
{
	echo ":global-test-result: $global"
	echo ":recheck: $([ "$global" = PASS ] || [ "$global" = SKIP ] && echo no || echo yes)"
	echo ":copy-in-global-log: $([ "$global" = PASS ] && echo no || echo yes)"
} >>"$trs"
case $global in
PASS) echo "PASS: $name ($pass checks)" ;;
SKIP) echo "SKIP: $name ($pass checks, then: $why)" ;;
*) echo "$global: $name ($pass checks passed, $fail failed${why:+; $why})" ;;
esac
exit 0
