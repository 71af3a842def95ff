#!/bin/bash
# examples.sh — every example command of README.md (its indented code lines) and of the man
# pages (.nf/.fi and .EX/.EE blocks) runs and exits 0, here, against recordings this test
# makes; the ones that cannot run here (a systemd unit, a daemon in the foreground, a network
# server, a terminal) are listed with the reason. Placeholders are replaced (./app is the
# workload, PIDs its live or recorded pid, symbols its functions, 30 s durations 1 s), and
# each replacement is printed. The report -g caller/callee examples' comments must say what
# the tree shows: "what it calls" the entry's callees, "who calls" its callers.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
require_perf_events
[ -x "$WL" ] || fail "$WL is not built (make check builds it)"

EX="$T/ex"
mkdir -p "$EX/bin" "$EX/run" "$EX/rpd"
# The examples' commands: ringprof and ringprofd of this build; flamegraph.pl and
# stackcollapse-perf.pl as checks of the grammar those tools read (FlameGraph is not
# installed here): stackcollapse-perf.pl folds as tests/perf-script-fold.pl does, and
# flamegraph.pl refuses any line that is not "STACK COUNT" or "STACK COUNT COUNT".
ln -s "$top_builddir"/ringprof* "$EX/bin/"
cat >"$EX/bin/stackcollapse-perf.pl" <<EOF
#!/bin/sh
exec perl "$top_srcdir/tests/perf-script-fold.pl" "\$@"
EOF
cat >"$EX/bin/flamegraph.pl" <<'EOF'
#!/bin/sh
awk '!/^[^ ].* [0-9]+( [0-9]+)?$/ { print "flamegraph.pl: not a folded line: " $0 > "/dev/stderr"; bad = 1 }
	END { if (!NR) print "flamegraph.pl: no stacks" > "/dev/stderr"; exit bad || !NR }' "$@" &&
	echo '<svg xmlns="http://www.w3.org/2000/svg"/>'
EOF
# ./app and ./server: the workload, 1 s; `make -j2` runs it too.
for p in app server; do
	printf '#!/bin/sh\nexec %s -d 1 -q\n' "$WL" >"$EX/$p"
done
printf 'all:\n\t%s -d 1 -q\n' "$WL" >"$EX/Makefile"
chmod +x "$EX"/bin/*.pl "$EX/app" "$EX/server"
export PATH="$EX/bin:$PATH"
cd "$EX" || fail "cd $EX"

# The recordings the examples read: ringprof.data (and .old), before.data and after.data,
# and a directory standing for ringprofd's /var/lib/ringprof.
for f in before.data after.data ringprof.data; do
	ringprof record -q -g -o "$f" -- "$WL" -d 1 -q || fail "record $f"
done
cp before.data rpd/ringprof-1.data && cp after.data rpd/ringprof-2.data
# Each block of examples starts from this ringprof.data; within a block, an example reads what
# a record example before it wrote (README's record --off-cpu, then report --off-cpu).
cp ringprof.data "$T/base.data"
rec_pid=$(ringprof script -i ringprof.data --comm rp-workload | awk '$1 == "rp-workload" { print $2; exit }')
rec_pid=${rec_pid%%/*}
[ -n "$rec_pid" ] || fail "no rp-workload sample in ringprof.data"
# A running process for -p and -t (its worker thread for -t).
"$WL" -d 120 -q &
live=$!
BG_PIDS="$BG_PIDS $live"
for _ in $(seq 50); do
	live_tid=$(ls "/proc/$live/task" 2>/dev/null | grep -vx "$live" | head -1)
	[ -n "$live_tid" ] && break
	sleep 0.1
done
[ -n "$live_tid" ] || fail "the workload's worker thread did not start"

# The examples, one a line: SOURCE:LINE <TAB> COMMAND <TAB> COMMENT.
python3 - "$top_srcdir" >"$T/examples.tsv" <<'PY' || fail "extracting the examples"
import glob, os, re, sys
top = sys.argv[1]
CMD = re.compile(r"^(ringprof|ringprofd|systemctl|bash setup\.sh)\b")
def split_comment(line):
    m = re.search(r"\s+#\s", line)
    return (line[:m.start()], line[m.end():].strip()) if m else (line, "")
def roff(s):
    s = s.replace("\\-", "-").replace("\\e", "\\").replace("\\(aq", "'").replace("\\(dq", '"')
    return s.replace("\\&", "").replace("\\~", " ")
out = []
lines = open(os.path.join(top, "README.md"), encoding="utf-8").read().split("\n")
for i, line in enumerate(lines, 1):
    # An indented code line after a blank line or another code line, not a list's text.
    if line.startswith("    ") and CMD.match(line[4:]):
        out.append(("README.md:%d" % i, *split_comment(line[4:].strip())))
for path in sorted(glob.glob(os.path.join(top, "man", "*.[1-8]"))):
    name = "man/" + os.path.basename(path)
    block, cont = False, None
    for i, line in enumerate(open(path, encoding="utf-8").read().split("\n"), 1):
        if line.startswith((".nf", ".EX")):
            block = True
            continue
        if line.startswith((".fi", ".EE")):
            block = False
            continue
        if not block or line.startswith("."):
            continue
        text = roff(line).strip()
        if cont is not None:
            cont[1] += " " + text.rstrip("\\").strip()
            if not text.endswith("\\"):
                out.append((cont[0], *split_comment(cont[1])))
                cont = None
            continue
        if CMD.match(text):
            if text.endswith("\\"):
                cont = ["%s:%d" % (name, i), text.rstrip("\\").strip()]
            else:
                out.append(("%s:%d" % (name, i), *split_comment(text)))
for src, cmd, comment in out:
    print("%s\t%s\t%s" % (src, re.sub(r"\s+", " ", cmd), comment))
PY
n_all=$(wc -l <"$T/examples.tsv")
check_range "$n_all" 40 1000 "examples found in README.md and the man pages"

# why_skip COMMAND: why it cannot run here, or nothing.
why_skip() {
	case $1 in
	systemctl*) echo "needs systemd and the installed ringprofd.service" ;;
	"bash setup.sh"*) echo "the build itself, which this test runs inside" ;;
	*" push "* | "ringprof push"*) echo "sends to a Pyroscope server over the network" ;;
	"ringprofd -D"* | "ringprofd --directory"*) echo "a daemon in the foreground (tests/daemon-*.sh run it)" ;;
	*/var/lib/ringprof/ringprof-*) echo "names one file of ringprofd's on some host" ;;
	"ringprof top --dir"*) echo "follows a running ringprofd's active file, on a terminal" ;;
	"ringprof top"*--stdio*) ;;
	"ringprof top"*) echo "interactive: needs a terminal and runs until q" ;;
	esac
}
# placeholders COMMAND: the command with its placeholders replaced, for this machine.
placeholders() {
	local c=$1 pid=$rec_pid
	case $c in "ringprof record"* | "ringprof top"*) pid=$live ;; esac
	c=$(sed -E -e "s#/var/lib/ringprof#$EX/rpd#g" \
		-e "s/-p 1234,5678/-p $pid/; s/-p 1234/-p $pid/; s/--pid 1234/--pid $pid/; s/-p PID/-p $pid/" \
		-e "s/-t 1236/-t $live_tid/" \
		-e "s/-d (10|30)( |$)/-d 1\\2/; s/-- sleep 10/-- sleep 1/" \
		-e "s/--cpu 3/--cpu 1/" \
		-e "s/(-S|--symbol) memcpy/\\1 hot_leaf/; s/annotate hot_loop parse/annotate hot_leaf warm_func/" \
		-e "s/ hot_loop$/ hot_leaf/; s/--comm (myapp|app)/--comm rp-workload/" \
		-e "s/--focus 'parse_' --ignore 'log_'/--focus 'hot_outer' --ignore 'warm_'/" <<<"$c")
	printf '%s\n' "$c"
}
# Runs until Ctrl-C (record -a without -d or a command): stopped by SIGINT after 2 s.
until_interrupted() {
	[[ $1 == "ringprof record"*" -a "* && $1 != *" -d "* && $1 != *" -- "* ]]
}

# tree_names FILE ENTRY: the names in the call tree under ENTRY's row ("[.] ENTRY"), one a line.
tree_names() {
	awk -v e="$2" 'on && /^$/ { exit } on { print } $NF == e && $(NF-1) ~ /^\[[.k]\]$/ { on = 1 }' "$1" |
		grep -oE -- '--[0-9.]+%--[^ ]+' | sed 's/.*%--//' | sort -u
}
# check_tree SOURCE CMD COMMENT FILE: the -g caller/callee tree says what the comment says.
check_tree() {
	local entry=hot_outer_a callers="run_main" callees="hot_leaf" want names n
	if [[ $2 =~ (-S|--symbols?)\ hot_leaf ]]; then
		entry=hot_leaf callers="hot_outer_a hot_outer_b" callees=""
	fi
	case $3 in
	*"what it calls"*) want=callees ;;
	*"who calls"*) want=callers ;;
	"") echo "  $1: no comment to check against the tree" && return 0 ;;
	*) echo "$1: '$2': the comment '$3' says neither 'what it calls' nor 'who calls'" >>"$T/bad" && return ;;
	esac
	local before=$(wc -l <"$T/bad")
	names=$(tree_names "$4" "$entry")
	[ -n "$names" ] || { echo "$1: '$2': no tree under $entry" >>"$T/bad"; return; }
	if [ "$want" = callers ]; then
		for n in $callers; do
			grep -qx "$n" <<<"$names" || echo "$1: '$2' says '$3' but $entry's tree lacks its caller $n" >>"$T/bad"
		done
		for n in $callees; do
			! grep -qx "$n" <<<"$names" || echo "$1: '$2' says '$3' but $entry's tree shows its callee $n" >>"$T/bad"
		done
	else
		for n in $callees; do
			grep -qx "$n" <<<"$names" || echo "$1: '$2' says '$3' but $entry's tree lacks its callee $n" >>"$T/bad"
		done
		for n in $callers; do
			! grep -qx "$n" <<<"$names" || echo "$1: '$2' says '$3' but $entry's tree shows its caller $n" >>"$T/bad"
		done
	fi
	[ "$(wc -l <"$T/bad")" = "$before" ] || return 0
	n_trees=$((n_trees + 1))
	echo "  $1: the tree under $entry shows its $want, as '$3' says"
}

: >"$T/bad"
n_run=0 n_skip=0 n_trees=0 i=0 prev=none:0
declare -A seen
while IFS=$'\t' read -r src cmd comment; do
	i=$((i + 1))
	# A new block: another file, or not within two lines of the previous example.
	if [ "${src%:*}" != "${prev%:*}" ] || [ $((${src##*:} - ${prev##*:})) -gt 2 ]; then
		cp "$T/base.data" ringprof.data || fail "restoring ringprof.data"
	fi
	prev=$src
	if [ -n "${seen[$cmd]-}" ]; then
		echo "same as ${seen[$cmd]}: $src"
		continue
	fi
	seen[$cmd]=$src
	why=$(why_skip "$cmd")
	if [ -n "$why" ]; then
		echo "SKIPPED $src: $cmd  -- $why"
		n_skip=$((n_skip + 1))
		continue
	fi
	run=$(placeholders "$cmd")
	[ "$run" = "$cmd" ] || echo "  ($src runs as: $run)"
	if until_interrupted "$run"; then
		timeout --preserve-status -s INT 2 bash -o pipefail -c "$run" >"$T/out.$i" 2>"$T/err.$i"
		rc=$?
		echo "  ($src: stopped by SIGINT after 2 s, as Ctrl-C)"
	else
		timeout 120 bash -o pipefail -c "$run" >"$T/out.$i" 2>"$T/err.$i" </dev/null
		rc=$?
	fi
	if [ "$rc" != 0 ]; then
		echo "$src: '$run' exited $rc: $(tail -3 "$T/err.$i" | tr '\n' ' ')" >>"$T/bad"
		continue
	fi
	n_run=$((n_run + 1))
	echo "ran $src: $cmd"
	if [[ $run == "ringprof report"*" -g "* && $run =~ -g\ (caller|callee) ]]; then
		check_tree "$src" "$run" "$comment" "$T/out.$i"
	fi
done <"$T/examples.tsv"

if [ -s "$T/bad" ]; then
	cat "$T/bad" >&2
	fail "$(wc -l <"$T/bad") example(s) failed (above)"
fi
ok "$n_run examples ran and exited 0; $n_skip skipped, each with its reason (above)"
check_range "$n_trees" 2 100 "report -g caller/callee examples whose comment matches the tree"
check_range "$n_run" 30 1000 "most examples ran here"
exit 0
