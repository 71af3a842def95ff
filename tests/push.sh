#!/bin/bash
# push.sh — `ringprof push` against a receiver on 127.0.0.1 that keeps every body it gets: the
# query names the series and the interval, headers and basic auth arrive, a file still being
# written holds back the later ones, nothing is sent twice across runs (the cursor); the
# receiver killed with a request in flight and the pusher SIGKILLed while retrying, then both
# restarted: every file and unit arrives once, each body read by the real pprof with the
# samples and shares of `ringprof report` of that file and unit; TLS with a self-signed
# certificate (--cacert), a bearer token from --header-file; the recordings never touched.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
require_perf_events
PPROF=${PPROF:-/usr/lib/go-1.19/pkg/tool/linux_amd64/pprof}
[ -x "$PPROF" ] || fail "the pprof tool is missing ($PPROF): install golang-1.19-go (setup.sh does)"
command -v python3 >/dev/null || fail "python3 is missing (setup.sh installs it)"
export PPROF_TMPDIR="$T/pprof-home" HOME="$T"

# The receiver: tests/push-receiver.py, its files under $T (got/, fail, hang, inflight, port).
mkdir -p "$T/rec"
start_receiver() { # PORT
	push_receiver "$T" "$1"
}
n_got() { ls "$T/got" | grep -c '\.query$'; }

rec() { # NAME: a closed one-second recording of the workload, moved into the directory whole
	# (ringprofd writes *.partial and renames it; record -o writes in place)
	"$RP" record -q -g -e cpu-clock -F 499 -o "$T/$1" -- "$WL" -d 1 -q || fail "recording $1"
	mv "$T/$1" "$T/rec/$1"
}
rec rp-0001.data
rec rp-0002.data

start_receiver 0
PORT=$(cat "$T/port")
URL="http://127.0.0.1:$PORT"
printf 'ringuser:s3cret\n' >"$T/auth"
PUSH=("$RP" push --dir "$T/rec" --url "$URL/" --cursor "$T/cursor" --app myapp -l env=test
	-H 'X-Scope-OrgID: tenant-1' --basic-auth-file "$T/auth" -v)

# ---- once: both files, read by the real pprof ------------------------------------------------
"${PUSH[@]}" --once 2>"$T/push1.err" || fail "push --once: $(cat "$T/push1.err")"
check_eq "$(n_got)" 2 "--once sent the two closed recordings"
check_grep '^ringprof push: rp-0001.data: sent \([0-9]+ samples, [0-9]+ bytes\)$' "$T/push1.err" "-v says what was sent"
for i in 000 001; do
	"$PPROF" -top "$T/got/$i.pb.gz" >"$T/top$i" 2>&1 || fail "pprof cannot read body $i: $(cat "$T/top$i")"
	check_grep ' worker_spin$' "$T/top$i" "body $i: pprof reads it, worker_spin in it"
done
q=$(cat "$T/got/000.query")
host=$(hostname)
case "$q" in
/ingest\?name=myapp%7Bhost%3D"$host"%2Cunit%3D*%2Cenv%3Dtest%7D\&from=[0-9]*\&until=[0-9]*\&format=pprof) ok "the query: /ingest, name=myapp{host=$host,unit=UNIT,env=test}, from, until, format=pprof" ;;
*) fail "unexpected query: $q" ;;
esac
from=$(sed 's/.*from=\([0-9]*\).*/\1/' "$T/got/000.query")
until=$(sed 's/.*until=\([0-9]*\).*/\1/' "$T/got/000.query")
[ "$until" -gt "$from" ] || fail "until $until is not after from $from"
ok "from .. until is an interval (checked against each file below)"
check_range "$((from - $(date +%s)))" -120 0 "from is recent wall-clock time (unix seconds)"
check_grep '^X-Scope-OrgID: tenant-1' "$T/got/000.headers" "the --header arrived"
check_grep "^Authorization: Basic $(printf 'ringuser:s3cret' | base64)" "$T/got/000.headers" "basic auth from the file"
check_eq "$(cat "$T/cursor")" rp-0002.data "the cursor names the last file sent"

# ---- again: nothing twice; a file being written holds back later ones -------------------------
"${PUSH[@]}" --once 2>"$T/push2.err" || fail "second push --once: $(cat "$T/push2.err")"
check_eq "$(n_got)" 2 "a second run sends nothing again"
rec rp-0003.data
mv "$T/rec/rp-0003.data" "$T/rec/rp-0003.data.partial"
rec rp-0004.data
"${PUSH[@]}" --once 2>"$T/push3.err" || fail "push with a .partial: $(cat "$T/push3.err")"
check_eq "$(n_got)" 2 "nothing after a file still being written is sent"
mv "$T/rec/rp-0003.data.partial" "$T/rec/rp-0003.data"
"${PUSH[@]}" --once 2>"$T/push4.err" || fail "push after it closed: $(cat "$T/push4.err")"
check_eq "$(n_got)" 4 "once it is closed, it and the next are sent"
check_grep 'rp-0003.data: sent' "$T/push4.err" "0003 sent"
[ "$(grep -n 'rp-0003.data: sent' "$T/push4.err" | cut -d: -f1)" -lt \
	"$(grep -n 'rp-0004.data: sent' "$T/push4.err" | cut -d: -f1)" ] || fail "0004 was sent before 0003"
ok "in name (time) order"

# ---- the server refuses: --once fails and says so, the cursor stays --------------------------
rec rp-0005.data
touch "$T/fail"
if "${PUSH[@]}" --once 2>"$T/push5.err"; then fail "push --once succeeded against a failing server"; fi
check_grep "^ringprof push: rp-0005.data: sending to $URL/ failed: the server answered HTTP 503$" "$T/push5.err" \
	"an HTTP error: one sentence with the status"
check_eq "$(cat "$T/cursor")" rp-0004.data "the cursor did not move past the failed file"
rm -f "$T/fail"

# ---- outage: the receiver killed mid-backlog, the pusher SIGKILLed while retrying ------------
# A backlog: rp-0005 (refused above) and three more. The receiver takes one (rp-0005), then
# hangs inside the next request, where it is killed: that body was not kept and must be sent
# again. The pusher, retrying against the dead receiver, is killed with SIGKILL and restarted.
rec rp-0006.data
rec rp-0007.data
rec rp-0008.data
echo 5 >"$T/hang"
: >"$T/loop1.err"
"${PUSH[@]}" --interval 1 --retry-max 2 2>"$T/loop1.err" &
LOOP=$!
BG_PIDS="$BG_PIDS $LOOP"
for _ in $(seq 200); do [ -e "$T/inflight" ] && break; sleep 0.05; done
[ -e "$T/inflight" ] || fail "the pusher's second request of the backlog never came"
check_eq "$(n_got)" 5 "the first file of the backlog was taken, the second is in flight"
kill -9 "$RECV"
wait "$RECV" 2>/dev/null
rm -f "$T/hang" "$T/inflight"
for _ in $(seq 100); do [ "$(grep -c 'failed' "$T/loop1.err")" -ge 3 ] && break; sleep 0.1; done
check_grep "^ringprof push: rp-0006.data: sending to $URL/ failed: .*(Empty reply|reset by peer|Recv failure).*; again in 1 s$" \
	"$T/loop1.err" "the receiver killed with the request in flight: said, retried"
check_grep "rp-0006.data: sending to $URL/ failed: .*(Connection refused|Couldn't connect).*; again in 2 s$" \
	"$T/loop1.err" "the receiver down: retried, the backoff doubles up to --retry-max"
check_no_grep 'rp-000[78]' "$T/loop1.err" "the files behind the failing one wait"
check_eq "$(cat "$T/cursor")" rp-0005.data "the cursor names the last file taken"
kill -9 "$LOOP"
wait "$LOOP" 2>/dev/null
check_eq "$(n_got)" 5 "nothing arrived while the receiver was down"

: >"$T/loop2.err"
"${PUSH[@]}" --interval 1 --retry-max 2 2>"$T/loop2.err" &
LOOP=$!
BG_PIDS="$BG_PIDS $LOOP"
for _ in $(seq 100); do [ "$(grep -c 'failed' "$T/loop2.err")" -ge 1 ] && break; sleep 0.1; done
check_grep "^ringprof push: rp-0006.data: sending to $URL/ failed: " "$T/loop2.err" \
	"the restarted pusher goes on with the file in flight when it was killed"
start_receiver "$PORT"
for _ in $(seq 150); do [ "$(n_got)" -ge 8 ] && break; sleep 0.1; done
check_eq "$(n_got)" 8 "after the outage the rest of the backlog is sent"
rec rp-0009.data
for _ in $(seq 100); do [ "$(n_got)" -ge 9 ] && break; sleep 0.1; done
check_eq "$(n_got)" 9 "the loop picks up a new file"
kill -TERM "$LOOP"
wait "$LOOP"
check_eq "$?" 0 "SIGTERM: exit 0"
check_eq "$(grep -c ': sent (' "$T/loop2.err")" 4 "the restarted pusher sent 0006 to 0009, once each"

# ---- a pusher restart sends nothing again --------------------------------------------------
"${PUSH[@]}" --once 2>"$T/push6.err" || fail "push after restart: $(cat "$T/push6.err")"
check_eq "$(n_got)" 9 "a restarted pusher sends nothing twice"
check_eq "$(ls "$T/rec" | grep -c '\.data$')" 9 "every recording is still there"

# ---- every interval once, read by pprof as ringprof report reads the recording -------------
# Bodies arrive in file order, a file's units in name order: pair each body with its
# (file, unit), then its series and interval, its samples and shares against the report of
# that file and unit.
for f in $(cd "$T/rec" && ls | grep '\.data$' | LC_ALL=C sort); do
	"$RP" report -i "$T/rec/$f" --sort unit --no-children -n 2>/dev/null |
		awk -v f="$f" '!/^#/ && NF >= 3 { print f, $NF }' | LC_ALL=C sort -k2,2
done >"$T/expected"
check_eq "$(wc -l <"$T/expected")" "$(n_got)" "one body per file and unit, no more, no fewer"
i=0 total=0 last_from=0 last_until=0 last_file=""
while read -r f unit; do
	b=$(printf %03d "$i")
	q=$(python3 -c 'import sys, urllib.parse as u; print(u.unquote(sys.argv[1]))' "$(cat "$T/got/$b.query")")
	case "$q" in
	*",unit=$unit,"*) ;;
	*) fail "body $b: expected the series of $f unit $unit, got $q" ;;
	esac
	from=$(sed 's/.*from=\([0-9]*\).*/\1/' <<<"$q") until=$(sed 's/.*until=\([0-9]*\).*/\1/' <<<"$q")
	# "# recorded: DATE UTC, SPAN s of samples"
	hdr=$("$RP" report -i "$T/rec/$f" --no-children 2>/dev/null |
		sed -n 's/^# recorded: \(.*\) UTC, \([0-9.]*\) s of samples.*/\1|\2/p')
	start=$(date -u -d "${hdr%|*}" +%s) span=${hdr#*|}
	check_range "$((from - start))" -1 1 "body $b: from is $f's start"
	# Whole seconds, from rounded down and until up: the interval holds the file's samples,
	# and a file's interval begins where the one before ended (give or take the rounding).
	awk -v d="$((until - from))" -v s="$span" 'BEGIN { exit !(d >= s) }' ||
		fail "body $b: until - from is $((until - from)) s, less than $f's $span s of samples"
	if [ "$f" != "$last_file" ]; then
		[ "$from" -gt "$last_from" ] && [ "$from" -ge "$((last_until - 1))" ] ||
			fail "body $b ($f, $from .. $until) overlaps the file before ($last_from .. $last_until)"
	else
		[ "$from" = "$last_from" ] && [ "$until" = "$last_until" ] ||
			fail "body $b: another unit of $f with another interval"
	fi
	ok "body $b: $from .. $until holds $f's $span s of samples, after the file before"
	last_from=$from last_until=$until last_file=$f
	check_pprof_report "$T/got/$b.pb.gz" "body $b ($f, unit $unit)" -i "$T/rec/$f" --unit "$unit"
	total=$((total + PB_SAMPLES))
	i=$((i + 1))
done <"$T/expected"
all=$("$RP" report --dir "$T/rec" --no-children 2>/dev/null | sed -n 's/^# samples: \([0-9]*\).*/\1/p')
check_eq "$total" "$all" "the bodies' samples add up to the report of the whole directory ($all): none lost, none twice"

# ---- TLS with a self-signed certificate; a bearer token from a file ----------------------------
command -v openssl >/dev/null || fail "openssl is missing (setup.sh installs it)"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
	-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
	-keyout "$T/key.pem" -out "$T/cert.pem" >"$T/openssl.log" 2>&1 || fail "openssl: $(cat "$T/openssl.log")"
mkdir -p "$T/tls-rec"
cp "$T/rec/rp-0001.data" "$T/tls-rec/"
push_receiver "$T/tls" 0 "$T/cert.pem" "$T/key.pem"
TURL="https://127.0.0.1:$(cat "$T/tls/port")"
printf 'Authorization: Bearer tok-7f3a9\r\n\nX-Scope-OrgID: tenant-2\n' >"$T/headers"
TPUSH=("$RP" push --dir "$T/tls-rec" --url "$TURL" --cursor "$T/tls-cursor" --header-file "$T/headers")
if "${TPUSH[@]}" --once 2>"$T/tls1.err"; then fail "push over TLS succeeded without the server's CA"; fi
check_grep "^ringprof push: rp-0001.data: sending to $TURL failed: SSL certificate problem: self.signed certificate \(--cacert FILE names the CA that signed it\)$" \
	"$T/tls1.err" "TLS, a certificate the system does not trust: refused, said in one sentence"
check_eq "$(ls "$T/tls/got" | grep -c '\.query$')" 0 "nothing was sent over an untrusted connection"
[ ! -e "$T/tls-cursor" ] || fail "the cursor moved though nothing was sent"
"${TPUSH[@]}" --once --cacert "$T/cert.pem" 2>"$T/tls2.err" || fail "push over TLS with --cacert: $(cat "$T/tls2.err")"
check_eq "$(ls "$T/tls/got" | grep -c '\.query$')" 1 "with --cacert the profile is sent over TLS"
check_grep '^Authorization: Bearer tok-7f3a9$' "$T/tls/got/000.headers" "the bearer token from --header-file arrived"
check_grep '^X-Scope-OrgID: tenant-2$' "$T/tls/got/000.headers" "every line of --header-file is a header (blank lines skipped)"
unit=$(awk 'NR == 1 { print $2 }' "$T/expected")
check_pprof_report "$T/tls/got/000.pb.gz" "the body sent over TLS" -i "$T/tls-rec/rp-0001.data" --unit "$unit"
if "${TPUSH[@]}" --once --cacert "$T/nocert.pem" 2>"$T/err"; then fail "a missing --cacert was accepted"; fi
check_grep "^ringprof push: --cacert $T/nocert.pem: No such file or directory$" "$T/err" "a missing --cacert: said before sending"
printf 'Authorization Bearer x\n' >"$T/badheaders"
if "$RP" push --dir "$T/rec" --url "$URL" --header-file "$T/badheaders" 2>"$T/err"; then fail "a bad --header-file was accepted"; fi
check_grep "^ringprof push: --header-file $T/badheaders: line 1: not 'NAME: VALUE'$" "$T/err" "a --header-file line without NAME: is refused"

# ---- usage errors --------------------------------------------------------------------------
if "$RP" push --dir "$T/rec" 2>"$T/err"; then fail "push without --url succeeded"; fi
check_grep '^ringprof push: --dir DIR and --url URL are required' "$T/err" "--url is required"
if "$RP" push --dir "$T/rec" --url "$URL" --basic-auth-file "$T/none" 2>"$T/err"; then fail "a missing auth file was accepted"; fi
check_grep "^ringprof push: --basic-auth-file $T/none: No such file or directory$" "$T/err" "a missing auth file: said"
if "$RP" push --dir "$T/rec" --url "$URL" -H 'no colon' 2>"$T/err"; then fail "a bad header was accepted"; fi
check_grep "invalid --header 'no colon'" "$T/err" "a header without NAME: is refused"

# ---- the man page names every option of --help -------------------------------------------------
"$RP" push --help | grep -oE -- '--[a-z][a-z-]*[a-z]' | sort -u >"$T/help.opts"
sed 's/\\-/-/g' "$top_srcdir/man/ringprof-push.1" >"$T/man.txt"
missing=$(while read -r o; do grep -qF -- "$o" "$T/man.txt" || echo "$o"; done <"$T/help.opts" | tr '\n' ' ')
check_eq "$missing" "" "man/ringprof-push.1 names each of the $(wc -l <"$T/help.opts") long options of push --help"
