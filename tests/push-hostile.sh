#!/bin/bash
# push-hostile.sh — `ringprof push` against a server (or a plain-http path) that lies, and
# with a cursor that cannot hold (issue 24): the server's answer never reaches stdout (the
# journal, under the unit) and a failure quotes only the start of its first line, escaped;
# credentials in the URL are never shown; a cursor that names no recording and sorts after
# all of them, or counts more units than a file has, is an error (exit 1), not a silent stop;
# SIGTERM ends a request in flight at once, not after --timeout. Recordings from tests/rp-craft
# (no perf events needed).
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
command -v python3 >/dev/null || fail "python3 is missing (setup.sh installs it)"
CRAFT="$top_builddir/tests/rp-craft"
[ -x "$CRAFT" ] || fail "$CRAFT is missing (make check builds it)"

mkdir -p "$T/rec"
"$CRAFT" good "$T/rec/a-0001.data" && "$CRAFT" good "$T/rec/a-0002.data" || fail "rp-craft"
push_receiver "$T" 0
PORT=$(cat "$T/port")
URL="http://127.0.0.1:$PORT"
n_got() { ls "$T/got" | grep -c '\.query$'; }
push() { # OUT-NAME ARGS...: push with its stdout and stderr in $T/NAME.out and .err; $? kept
	local name=$1
	shift
	timeout 60 "$RP" push --dir "$T/rec" --cursor "$T/cursor" "$@" >"$T/$name.out" 2>"$T/$name.err"
}

# ---- an option error, in every program's words ----------------------------------------------
"$RP" push --dri "$T/rec" --url "$URL" >/dev/null 2>"$T/opt.err"
check_eq "$?" 2 "a mistyped option: exit 2"
check_grep "^ringprof push: unknown option '--dri'; did you mean '--dir'\\?$" "$T/opt.err" "it says which, and what was meant"
check_grep "^Try 'ringprof push --help'\\.$" "$T/opt.err" "and where to look"

# ---- the server's answer: a forged syslog line with terminal escapes, then 2000 bytes ----------
{
	printf '<0>Nov 27 12:00:00 host sshd[1]: Accepted password for root \033[2J\033]0;owned\007 %s\n' "$(printf 'x%.0s' $(seq 200))"
	printf '<3>second line\n'
	head -c 2000 /dev/zero | tr '\0' 'y'
} >"$T/answer"
echo 500 >"$T/answer-status"
push answer500 --url "$URL" --once
check_eq "$?" 1 "HTTP 500: push --once fails"
check_eq "$(wc -c <"$T/answer500.out")" 0 "the answer's body is not copied to stdout"
check_grep '^ringprof push: a-0001\.data: sending to http://127\.0\.0\.1:[0-9]+ failed: the server answered HTTP 500 \("<0>Nov 27 12:00:00 host sshd\[1\]: Accepted password for root \\x1b\[2J\\x1b\]0;owned\\x07 x+\.\.\."\)$' \
	"$T/answer500.err" "the failure quotes the start of the first line, control bytes as \\xHH, cut with ..."
check_eq "$(grep -c $'\033' "$T/answer500.err")" 0 "no escape byte reaches stderr"
check_no_grep 'second line|yyyy' "$T/answer500.err" "nothing after the first line is shown"
check_range "$(awk '{ print length($0) }' "$T/answer500.err" | sort -n | tail -1)" 1 400 "the message stays one short line"
echo 200 >"$T/answer-status"
printf 'SECRET-BODY <1>forged\n' >"$T/answer"
push answer200 --url "$URL" --once
check_eq "$?" 0 "HTTP 200 with a body: sent"
check_eq "$(n_got)" 3 "both files sent"
check_eq "$(wc -c <"$T/answer200.out")" 0 "a 200's body is not copied to stdout either"
check_no_grep 'SECRET-BODY' "$T/answer200.err" "nor to stderr"
rm -f "$T/answer" "$T/answer-status"

# ---- credentials in the URL are never printed ------------------------------------------------
rm -f "$T/cursor"
touch "$T/fail"
push creds --url "http://ringuser:s3cr%40t@127.0.0.1:$PORT/" --once
check_eq "$?" 1 "a refused send with credentials in the URL fails"
check_grep "^ringprof push: a-0001\.data: sending to http://\*\*\*@127\.0\.0\.1:$PORT/ failed: the server answered HTTP 503\$" \
	"$T/creds.err" "the URL is shown with its credentials as ***"
check_no_grep 'ringuser|s3cr' "$T/creds.err" "neither the user nor the password is printed"
push creds-down --url "http://ringuser:s3cret@127.0.0.1:1/" --once
check_grep '^ringprof push: a-0001\.data: sending to http://\*\*\*@127\.0\.0\.1:1/ failed: ' "$T/creds-down.err" \
	"a connection failure: the URL without credentials too"
check_no_grep 'ringuser|s3cret' "$T/creds-down.err" "and no credentials in curl's reason"
rm -f "$T/fail"

# ---- a cursor that cannot hold ---------------------------------------------------------------
got=$(n_got)
echo zz-9999.data >"$T/cursor"
push ahead --url "$URL" --once -v
check_eq "$?" 1 "a cursor after every recording: exit 1"
check_grep "^ringprof push: the cursor $T/cursor names 'zz-9999\.data', which is not in $T/rec and sorts after all 2 recordings there \(a clock that ran ahead, or a damaged cursor\): nothing would ever be sent\." \
	"$T/ahead.err" "it says why nothing would be sent"
push ahead-loop --url "$URL" --interval 1
check_eq "$?" 1 "the same without --once: exit 1 at once, not a silent loop"
check_grep "names 'zz-9999\.data', which is not in" "$T/ahead-loop.err" "the loop says so too"
check_eq "$(n_got)" "$got" "nothing was sent"
check_eq "$(cat "$T/cursor")" zz-9999.data "the cursor is left for the operator"
printf 'a-0001.data\na-0002.data 5\n' >"$T/cursor"
push units --url "$URL" --once
check_eq "$?" 1 "a cursor counting more units than the file has: exit 1"
check_grep "^ringprof push: the cursor $T/cursor says 5 units of a-0002\.data were sent, but it has 1: a damaged cursor" \
	"$T/units.err" "it names the file and both counts"
check_eq "$(n_got)" "$got" "nothing was sent"
echo a-0000.data >"$T/cursor"
push behind --url "$URL" --once -v
check_eq "$?" 0 "a cursor naming a file that is gone, with later ones: fine"
check_eq "$(n_got)" "$((got + 2))" "the two later files are sent"
push caught-up --url "$URL" --once -v
check_eq "$?" 0 "caught up: exit 0"
check_grep "^ringprof push: nothing closed after the cursor's a-0002\.data in $T/rec\$" "$T/caught-up.err" \
	"-v says there is nothing after the cursor"

# ---- the directory's order and what it holds besides recordings (format/recdir.h) -----------
# Sequence numbers past 9999 in time order, not string order; a symbolic link and a FIFO with
# a recording's name are passed by.
mkdir -p "$T/seq"
S="$T/seq/ringprof-20261122T101500Z"
"$CRAFT" good "$S-9999.data" && "$CRAFT" good "$S-10000.data" || fail "rp-craft"
ln -s "$S-9999.data" "$S-0001.data"
mkfifo "$S-0002.data"
timeout 60 "$RP" push --dir "$T/seq" --cursor "$T/seq.cursor" --url "$URL" --once -v >/dev/null 2>"$T/seq.err"
check_eq "$?" 0 "a directory with a link and a FIFO: sent"
check_eq "$(sed -n 's/^ringprof push: \(.*\): sent .*/\1/p' "$T/seq.err" | tr '\n' ' ')" \
	"ringprof-20261122T101500Z-9999.data ringprof-20261122T101500Z-10000.data " \
	"9999 before 10000; the link and the FIFO are passed by"
check_eq "$(cat "$T/seq.cursor")" ringprof-20261122T101500Z-10000.data "the cursor is at the last in time order"
timeout 60 "$RP" push --dir "$T/seq" --cursor "$T/seq.cursor" --url "$URL" --once -v >/dev/null 2>"$T/seq2.err"
check_grep 'nothing closed after the cursor' "$T/seq2.err" "and stays there: 9999 is not sent again"

# ---- SIGTERM with a request in flight ----------------------------------------------------------
"$CRAFT" good "$T/rec/a-0003.data" || fail "rp-craft"
echo "$(n_got)" >"$T/hang"
"$RP" push --dir "$T/rec" --cursor "$T/cursor" --url "$URL" --timeout 300 >"$T/term.out" 2>"$T/term.err" &
PUSHER=$!
BG_PIDS="$BG_PIDS $PUSHER"
for _ in $(seq 400); do [ -e "$T/inflight" ] && break; sleep 0.05; done
[ -e "$T/inflight" ] || fail "the request never reached the receiver"
kill -TERM "$PUSHER"
for i in $(seq 400); do kill -0 "$PUSHER" 2>/dev/null || break; sleep 0.05; done
kill -0 "$PUSHER" 2>/dev/null && fail "SIGTERM: still running 20 s later with a request in flight (--timeout 300)"
wait "$PUSHER"
check_eq "$?" 0 "SIGTERM with a request in flight: it exits (status 0) long before --timeout"
check_eq "$(cat "$T/cursor")" a-0002.data "the file in flight is not marked sent"
check_no_grep 'failed' "$T/term.err" "the stop is not reported as a failed send"
exit 0
