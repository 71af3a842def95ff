#!/bin/bash
# pager.sh — report and script output on a terminal goes through $PAGER (less -FRX when
# unset), never when stdout is not a terminal, not with --no-pager, PAGER=cat or PAGER=.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
command -v script >/dev/null || skip "script (util-linux) is not installed: no terminal to test with"
require_perf_events
"$RP" record -q -e cpu-clock -F 199 -o "$T/p.data" -- "$WL" -d 1 -q || fail "ringprof record"

# A pager that marks what it got, and the LESS it was given.
cat >"$T/pager" <<PAGER
#!/bin/sh
echo "LESS=\${LESS-unset}" >"$T/paged"
sed 's/^/PAGED:/' >>"$T/paged"
PAGER
chmod +x "$T/pager"
# on_tty CMD...: run CMD with a terminal as stdout (script -qc), its output in $T/tty.
on_tty() {
	rm -f "$T/paged"
	script -qec "$*" /dev/null >"$T/tty" 2>&1 </dev/null
}

unset LESS
PAGER="$T/pager" on_tty "$RP report -i $T/p.data"
check_grep '^PAGED:# ringprof report of ' "$T/paged" "report on a terminal: through \$PAGER"
check_grep '^PAGED: +[0-9.]+% .*worker_spin' "$T/paged" "the whole report went to the pager"
check_grep '^LESS=FRX$' "$T/paged" "LESS=FRX when unset"
LESS=X PAGER="$T/pager" on_tty "$RP script -i $T/p.data"
check_grep '^PAGED:	 *[0-9a-f]+ worker_spin\+0x' "$T/paged" "script on a terminal: through \$PAGER"
check_grep '^LESS=X$' "$T/paged" "the user's LESS is left alone"
PAGER="$T/pager" on_tty "$RP report -i $T/p.data --no-pager"
[ ! -e "$T/paged" ] || fail "--no-pager still paged"
check_grep '^# ringprof report of ' "$T/tty" "--no-pager: straight to the terminal"
for p in cat ""; do
	PAGER="$p" on_tty "$RP report -i $T/p.data"
	check_grep '^# ringprof report of ' "$T/tty" "PAGER='$p': straight to the terminal"
done
PAGER="$T/pager" "$RP" report -i "$T/p.data" >"$T/file" 2>&1
[ ! -e "$T/paged" ] || fail "paged although stdout is a file"
check_grep '^# ringprof report of ' "$T/file" "stdout not a terminal: no pager"
# Unset PAGER: less, which quits at once on a short output (-F) and leaves it on screen.
if command -v less >/dev/null; then
	env -u PAGER TERM=dumb script -qec "$RP report -i $T/p.data --comm rp-worker" /dev/null >"$T/tty" 2>&1 </dev/null
	check_grep 'worker_spin' "$T/tty" "PAGER unset: less shows the report and returns"
fi
exit 0
