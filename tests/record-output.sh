#!/bin/bash
# record-output.sh — `record -o` never writes through what another user left at the output's
# name (issue 24): a symbolic link to another user's file or to /dev/null, a device, or a file
# of another user is refused before recording starts, with the reason, and left as it was. A
# new file, or one of ours (kept as FILE.old), is written under its name, with no temporary
# file left beside it.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
require_root

D="$T/shared"
mkdir -m 1777 "$D"
echo "nobody's data" >"$D/victim"
chown nobody "$D/victim"
ln -s victim "$D/to-victim"
ln -s /dev/null "$D/to-null"
ln -s "$D/nowhere" "$D/dangling"
chown -h nobody "$D/to-victim" "$D/to-null" "$D/dangling"

# refused NAME PATH REASON: record -o PATH exits 1 at once, naming PATH and REASON.
refused() {
	local name=$1 path=$2 reason=$3 st
	timeout 30 "$RP" record -e cpu-clock -o "$path" -- true >"$T/$name.out" 2>"$T/$name.err"
	st=$?
	check_eq "$st" 1 "$name: record -o exits 1"
	check_grep "^ringprof record: will not write the recording to $path: $reason" "$T/$name.err" \
		"$name: says why"
	check_no_grep 'samples,' "$T/$name.err" "$name: nothing was recorded"
}

refused link-victim "$D/to-victim" 'it is a symbolic link; a recording is not written through a link'
check_eq "$(cat "$D/victim")" "nobody's data" "link-victim: the other user's file is untouched"
check_eq "$(stat -c %U "$D/victim")" nobody "link-victim: and still theirs"
refused link-null "$D/to-null" 'it is a symbolic link'
check_eq "$(stat -c %F /dev/null)" "character special file" "link-null: /dev/null is still a device"
refused dangling "$D/dangling" 'it is a symbolic link'
[ ! -e "$D/nowhere" ] && ok "dangling: its target was not created" || fail "dangling: $D/nowhere was created"
refused devnull /dev/null 'it is not a regular file'
refused others "$D/victim" 'it belongs to another user \(uid 65534\); remove it or choose another name'
check_eq "$(cat "$D/victim")" "nobody's data" "others: the file is untouched"
check_eq "$(ls -A "$D" | sort | tr '\n' ' ')" "dangling to-null to-victim victim " \
	"nothing was created in the directory"

# A file of ours, and a new one: recorded under the name given, the old one kept.
require_perf_events
"$RP" record -e cpu-clock -o "$D/mine.data" -- "$WL" -d 0.2 -q >/dev/null 2>"$T/new.err" ||
	{ cat "$T/new.err" >&2; fail "record -o a new file"; }
check_eq "$(stat -c '%F %U %a' "$D/mine.data")" "regular file root 600" "a new output: a regular file of ours, 0600"
"$RP" report -i "$D/mine.data" --stats >"$T/new.stats" 2>&1 || fail "report --stats of the new file"
check_grep '^  finished +yes$' "$T/new.stats" "the new output is a complete recording"
cp "$D/mine.data" "$T/first.data"
"$RP" record -e cpu-clock -o "$D/mine.data" -- "$WL" -d 0.2 -q >/dev/null 2>"$T/again.err" ||
	{ cat "$T/again.err" >&2; fail "record -o over our own file"; }
cmp -s "$T/first.data" "$D/mine.data.old" && ok "our previous recording is kept as FILE.old" ||
	fail "mine.data.old is not the previous recording"
"$RP" report -i "$D/mine.data" --stats >"$T/again.stats" 2>&1 || fail "report --stats of the second file"
check_grep '^  finished +yes$' "$T/again.stats" "the second output is a complete recording"
check_eq "$(ls -A "$D" | grep -c '^\.')" 0 "no temporary file is left beside the output"
# Another user's FILE.old is not replaced by ours.
echo "nobody's old" >"$D/theirs.data.old"
chown nobody "$D/theirs.data.old"
"$RP" record -e cpu-clock -o "$D/theirs.data" -- true >/dev/null 2>&1 || fail "record -o theirs.data"
"$RP" record -e cpu-clock -o "$D/theirs.data" -- true >/dev/null 2>"$T/old.err" || fail "record -o theirs.data again"
check_grep "^ringprof record: note: the old $D/theirs.data is not kept as $D/theirs.data.old: it belongs to another user" \
	"$T/old.err" "another user's FILE.old: the old recording is not kept, with a note"
check_eq "$(cat "$D/theirs.data.old")" "nobody's old" "another user's FILE.old is untouched"
exit 0
