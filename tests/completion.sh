#!/bin/bash
# completion.sh — the bash completion offers every long option each command's --help shows,
# the commands, files after -o, directories after --dir and events after -e; sort keys after
# -s, report's -g modes after -g, nothing after options that take a number, time or name;
# and for ringprofd its options and their arguments.
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

# Option arguments, from a directory with files in it: a file name is never right after
# these. offered WORD...: what is offered, on one line.
cd "$T/d" || fail "cd $T/d"
offered() { complete_words "$@" | tr '\n' ' ' | sed 's/ $//'; }
check_eq "$(offered report -s '')" "comm cpu dso pid srcline sym tid unit" "report -s offers the sort keys"
check_eq "$(offered report --sort comm,d)" "comm,dso" "report --sort completes the last key of a list"
check_eq "$(offered report --sort = s)" "srcline sym" "report --sort=s (split at '=' by bash)"
check_eq "$(offered report --sort=s)" "--sort=srcline --sort=sym" "report --sort=s (one word)"
check_eq "$(offered diff -s p)" "pid" "diff -s offers the sort keys"
check_eq "$(offered top -s '')" "comm dso pid sym" "top -s offers top's keys"
check_eq "$(offered report -F o)" "overhead" "report -F offers its fields"
check_eq "$(offered report -g '')" "callee caller function graph none percent" "report -g offers the modes"
check_eq "$(offered report -g caller,p)" "caller,percent" "report -g: a list of modes"
check_grep '^--children$' <(complete_words report -g --ch) "report -g then an option: options"
check_eq "$(offered record --call-graph '')" "dwarf fp" "record --call-graph offers dwarf and fp"
check_eq "$(offered record -g fi)" "file.data" "record -g is a flag: files after it"
for a in "report --since" "report --until" "report --time" "diff --baseline-since" "record -p" \
	"record -F" "record -c" "record -d" "record -D" "top -d" "report --percent-limit" \
	"report --comm" "report -t" "push -u" "annotate -s" "record -C" "record -m"; do
	read -r -a w <<<"$a"
	check_eq "$(offered "${w[@]}" '')" "" "nothing after '$a' (no file names)"
done
check_eq "$(offered push -d '')" "sub" "push -d offers directories"
check_eq "$(offered report --percentage '')" "absolute relative" "--percentage offers its modes"

# ringprofd: its own options, from its --help; arguments as its settings take them.
. "$top_srcdir/completion/ringprof"
RPD="$top_builddir/ringprofd"
dwords() {
	COMP_WORDS=("$RPD" "$@")
	COMP_CWORD=$#
	COMPREPLY=()
	_ringprofd
	printf '%s\n' "${COMPREPLY[@]}" | sort -u | tr '\n' ' ' | sed 's/ $//'
}
check_eq "$(complete -p ringprofd)" "complete -F _ringprofd ringprofd" "a completion for ringprofd"
"$RPD" --help | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u >"$T/rpd.help"
dwords -- | tr ' ' '\n' >"$T/rpd.offered"
missing=$(comm -23 "$T/rpd.help" "$T/rpd.offered" | tr '\n' ' ')
[ -z "$missing" ] || fail "the completion of 'ringprofd --' lacks $missing"
ok "every long option of 'ringprofd --help' is offered ($(wc -l <"$T/rpd.help") options)"
check_eq "$(dwords --check)" "--check-config" "ringprofd --check completes"
check_eq "$(dwords -D '')" "sub" "ringprofd -D offers directories"
check_eq "$(dwords --config fi)" "file.data" "ringprofd --config offers files"
check_eq "$(dwords --log-level '')" "debug err info notice warning" "ringprofd --log-level offers the levels"
check_grep '^cpu-clock$' <(dwords -e cpu- | tr ' ' '\n') "ringprofd -e offers the events"
check_eq "$(dwords --call-graph = '')" "dwarf fp" "ringprofd --call-graph= offers the modes"
check_eq "$(dwords --unwind-cache '')" "no sub" "ringprofd --unwind-cache offers directories and no"
for o in --max-use --keep-free -F --max-file-sec --cpus --flush-interval; do
	check_eq "$(dwords "$o" '')" "" "nothing after ringprofd $o"
done
check_eq "$(dwords fi)" "" "ringprofd takes no operand: no file names"
exit 0
