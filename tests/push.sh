#!/bin/bash
# push.sh — `ringprof push` against a receiver on 127.0.0.1 that keeps every body it gets: the
# real pprof reads what was sent, the query names the series and the interval, headers and
# basic auth arrive, a file still being written holds back the later ones, nothing is sent
# twice across runs (the cursor), a receiver outage is retried with backoff and caught up
# after, a pusher restart sends nothing again, and the recordings are never touched.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
require_perf_events
PPROF=${PPROF:-/usr/lib/go-1.19/pkg/tool/linux_amd64/pprof}
[ -x "$PPROF" ] || fail "the pprof tool is missing ($PPROF): install golang-1.19-go (setup.sh does)"
command -v python3 >/dev/null || fail "python3 is missing (setup.sh installs it)"
export PPROF_TMPDIR="$T/pprof-home" HOME="$T"

# The receiver: each POST's body in got/N.pb.gz, its path and query in got/N.query, its headers
# in got/N.headers; HTTP 503 while the file 'fail' exists. Port 0 picks a free one (written to
# 'port'); given a port, it takes that one again.
cat >"$T/receiver.py" <<'EOF'
import http.server, os, sys
d, port = sys.argv[1], int(sys.argv[2])
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if os.path.exists(os.path.join(d, "fail")):
            self.send_response(503); self.end_headers(); return
        n = len([f for f in os.listdir(os.path.join(d, "got")) if f.endswith(".query")])
        base = os.path.join(d, "got", "%03d" % n)
        open(base + ".pb.gz", "wb").write(body)
        open(base + ".headers", "w").write(str(self.headers))
        open(base + ".query", "w").write(self.path + "\n")
        self.send_response(200); self.end_headers()
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.1", port), H)
open(os.path.join(d, "port.tmp"), "w").write(str(s.server_address[1]))
os.rename(os.path.join(d, "port.tmp"), os.path.join(d, "port"))
s.serve_forever()
EOF
mkdir -p "$T/got" "$T/rec"
RECV=""
start_receiver() { # PORT
	rm -f "$T/port"
	python3 "$T/receiver.py" "$T" "$1" &
	RECV=$!
	BG_PIDS="$BG_PIDS $RECV"
	for _ in $(seq 100); do [ -s "$T/port" ] && return 0; sleep 0.05; done
	fail "the receiver did not start"
}
stop_receiver() {
	kill "$RECV" 2>/dev/null
	wait "$RECV" 2>/dev/null
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
check_range "$((until - from))" 1 3 "from .. until spans the one-second recording"
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

# ---- outage: the loop retries with backoff and catches up -------------------------------------
stop_receiver
"${PUSH[@]}" --interval 1 --retry-max 2 2>"$T/loop.err" &
LOOP=$!
BG_PIDS="$BG_PIDS $LOOP"
rec rp-0006.data
for _ in $(seq 100); do [ "$(grep -c 'failed' "$T/loop.err")" -ge 3 ] && break; sleep 0.1; done
check_grep "rp-0005.data: sending to $URL/ failed: .*(Connection refused|Couldn't connect).*; again in 1 s$" "$T/loop.err" \
	"the server down: said, retried after 1 s"
check_grep '; again in 2 s$' "$T/loop.err" "backoff doubles up to --retry-max"
start_receiver "$PORT"
for _ in $(seq 100); do [ "$(n_got)" -ge 6 ] && break; sleep 0.1; done
check_eq "$(n_got)" 6 "after the outage both waiting files are sent"
rec rp-0007.data
for _ in $(seq 100); do [ "$(n_got)" -ge 7 ] && break; sleep 0.1; done
check_eq "$(n_got)" 7 "the loop picks up a new file"
kill -TERM "$LOOP"
wait "$LOOP"
check_eq "$?" 0 "SIGTERM: exit 0"

# ---- a pusher restart sends nothing again; nothing was duplicated or deleted -----------------
"${PUSH[@]}" --once 2>"$T/push6.err" || fail "push after restart: $(cat "$T/push6.err")"
check_eq "$(n_got)" 7 "a restarted pusher sends nothing twice"
check_eq "$(cat "$T/got/"*.query | sort | uniq -d | wc -l)" 0 "no interval was sent twice"
check_eq "$(ls "$T/rec" | grep -c '\.data$')" 7 "every recording is still there"
for i in 005 006; do
	"$PPROF" -top "$T/got/$i.pb.gz" >"$T/top$i" 2>&1 || fail "pprof cannot read body $i"
	check_grep ' worklib_spin$' "$T/top$i" "body $i (after the outage): pprof reads it"
done

# ---- usage errors --------------------------------------------------------------------------
if "$RP" push --dir "$T/rec" 2>"$T/err"; then fail "push without --url succeeded"; fi
check_grep '^ringprof push: --dir DIR and --url URL are required' "$T/err" "--url is required"
if "$RP" push --dir "$T/rec" --url "$URL" --basic-auth-file "$T/none" 2>"$T/err"; then fail "a missing auth file was accepted"; fi
check_grep "^ringprof push: --basic-auth-file $T/none: No such file or directory$" "$T/err" "a missing auth file: said"
if "$RP" push --dir "$T/rec" --url "$URL" -H 'no colon' 2>"$T/err"; then fail "a bad header was accepted"; fi
check_grep "invalid --header 'no colon'" "$T/err" "a header without NAME: is refused"
