#!/bin/bash
# completion.sh — the bash completion offers every long option each command's --help shows,
# the commands, files after -o, directories after --dir and events after -e.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
. "$top_srcdir/completion/ringprof"

# complete_words WORD...: what the completion offers for the last word, one a line.
complete_words() {
	COMP_WORDS=("$RP" "$@")
	COMP_CWORD=$#
	COMPREPLY=()
	_ringprof
	printf '%s\n' "${COMPREPLY[@]}" | sort -u
}

complete_words "" >"$T/cmds"
for c in record report script diff help; do
	grep -qx "$c" "$T/cmds" || fail "the commands offered lack $c: $(tr '\n' ' ' <"$T/cmds")"
done
ok "the commands are offered"
complete_words re >"$T/re"
check_eq "$(tr '\n' ' ' <"$T/re")" "record report " "'re' completes to record and report"
complete_words help rec >"$T/help"
check_eq "$(cat "$T/help")" "record" "help completes a command"

n_cmds=0
for cmd in record report script diff annotate; do
	[ -x "$top_builddir/ringprof-$cmd" ] || continue # script comes with its own branch
	n_cmds=$((n_cmds + 1))
	"$RP" "$cmd" --help | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u >"$T/$cmd.help"
	[ -s "$T/$cmd.help" ] || fail "$cmd --help names no long option"
	complete_words "$cmd" -- >"$T/$cmd.offered"
	missing=$(comm -23 "$T/$cmd.help" "$T/$cmd.offered" | tr '\n' ' ')
	[ -z "$missing" ] || fail "the completion of '$cmd --' lacks $missing"
	ok "every long option of '$cmd --help' is offered ($(wc -l <"$T/$cmd.help") options)"
done
check_range "$n_cmds" 2 5 "commands whose options were compared"
complete_words record --sw >"$T/sw"
check_grep '^--switch-output$' "$T/sw" "--sw offers --switch-output"
check_grep '^--switch-events$' "$T/sw" "--sw offers --switch-events"

mkdir -p "$T/d/sub" && touch "$T/d/file.data"
complete_words report --dir "$T/d/" >"$T/dir"
check_eq "$(cat "$T/dir")" "$T/d/sub" "--dir offers directories only"
complete_words record -o "$T/d/f" >"$T/out"
check_eq "$(cat "$T/out")" "$T/d/file.data" "-o offers files"
complete_words record -e cpu- >"$T/ev"
check_grep '^cpu-clock$' "$T/ev" "-e offers the events of --list-events"
complete_words record -- ech >"$T/cmd"
check_grep '^echo$' "$T/cmd" "after --, commands are offered"
exit 0
