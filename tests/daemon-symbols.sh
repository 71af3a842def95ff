#!/bin/bash
# daemon-symbols.sh — ringprofd keeps the symbols it captures once per build-id and digest
# beside the recordings (DIR/symbols/BUILD-ID-DIGEST.sym), not in every rotated file; `report --dir` (and -i
# of one of its files) names a binary that is gone from them; tables no kept recording uses
# are pruned with the recordings, and SymbolsMaxUse bounds them; CaptureSymbols=no turns it off.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
. "$top_srcdir/tests/daemon-lib.sh"
require_root
require_perf_events

mkdir -p "$T/bin"
cp "$WL" "$top_builddir/tests/workload/librp-worklib.so" "$T/bin/"
BID=$(build_id_of "$T/bin/rp-workload")
C="$T/ringprofd.conf"
printf 'Frequency=199\nFlushInterval=0.2\nEvent=cpu-clock\nMaxFileSec=0\n' >"$C"
start_listener
start_daemon -c "$C" -D "$D"
"$T/bin/rp-workload" -d 2 -q || fail "the workload failed"
# table_of BID: the symbols/ file of that build-id (its digest is the helper's to compute).
table_of() { ls "$D/symbols/$1"-*.sym 2>/dev/null | head -1; }
has_table() { [ -s "$(table_of "$BID")" ]; }
wait_until 20 "the workload's table in $D/symbols" has_table
ok "the table of rp-workload is kept as symbols/$BID-DIGEST.sym"
kill -USR2 "$DPID"
wait_until 20 "SIGUSR2 closes a file" n_closed_at_least 1
first=$(closed_files | head -1)
rm -rf "$T/bin"

"$RP" report -i "$D/$first" --dump >"$T/first.dump" 2>&1 || fail "report --dump"
check_grep "^BUILDID .* build_id=$BID" "$T/first.dump" "the recording names the binary by build-id"
check_no_grep '^SYMTAB' "$T/first.dump" "no symbol table in the rotated file itself"
for f in "$D"/symbols/*.sym; do
	n=$(basename "$f" .sym)
	"$RP" report -i "$f" --dump 2>/dev/null | grep '^SYMTAB' |
		grep -vq "digest=${n#*-} build_id=${n%-*} " && fail "$f holds another table"
done
ok "each table file holds its own build-id's and digest's table only"
"$RP" report -i "$(table_of "$BID")" --dump 2>/dev/null >"$T/sym.dump"
check_grep "^SYMTAB .* digest=[0-9a-f]{32} build_id=$BID part=0/1 .* flags=0x1 " "$T/sym.dump" \
	"the table file is a SYMTAB recording, with the digest"

"$RP" report --dir "$D" --comm rp-workload --no-children >"$T/dir.rep" 2>"$T/dir.err" ||
	fail "report --dir: $(cat "$T/dir.err")"
check_grep '^# [0-9]+ objects? named from symbols captured at record time' "$T/dir.rep" \
	"report --dir: the header says captured symbols named objects"
check_grep '^ +[0-9.]+% +rp-workload +rp-workload +\[\.\] hot_outer_a$' "$T/dir.rep" \
	"report --dir names the deleted binary from symbols/ (hot_outer_a)"
"$RP" report -i "$D/$first" --comm rp-workload --no-children >"$T/one.rep" 2>&1 || fail "report -i"
check_grep '\[\.\] hot_outer_a$' "$T/one.rep" "report -i of one file finds the symbols/ beside it"

# Pruning: files recorded after the workload exited do not use its table; once retention
# removes every file that did, the table goes too, while libc's (used by every file) stays.
sleep 1.2
kill -USR2 "$DPID"
wait_until 20 "a second closed file" n_closed_at_least 2
sleep 1.2
libc_tables=$(ls "$D/symbols" | wc -l)
printf 'MaxRetentionSec=1\n' >>"$C"
kill -HUP "$DPID"
sleep 1.5
kill -USR2 "$DPID"
gone() { [ -z "$(table_of "$BID")" ]; }
wait_until 20 "the workload's table pruned with the recordings that used it" gone
ok "the table went with the last recording that used it"
# Other binaries may have run meanwhile (the daemon records the whole machine), so the check
# is on libc's own table, which every file uses.
LIBC_BID=$(build_id_of "$(readlink -f /lib/x86_64-linux-gnu/libc.so.6)")
check_range "$libc_tables" 1 100000 "tables were kept before the pruning"
[ -n "$(table_of "$LIBC_BID")" ] || fail "libc's table ($LIBC_BID) was pruned although every file uses it"
ok "tables still in use are kept (libc's)"
check_grep 'removed [0-9]+ symbol tables? that no kept recording uses' "$DLOG" "the daemon logs what it pruned"

# SymbolsMaxUse bounds the directory (what the daemon left when it pruned: other programs on
# the host may start meanwhile and bring new tables until the next pruning).
n_pruned=$(grep -c 'removed [0-9]* symbol table' "$DLOG")
printf 'SymbolsMaxUse=64K\n' >>"$C"
kill -HUP "$DPID" # the reload applies retention, and so does the rotation after it
sleep 0.5
kill -USR2 "$DPID"
pruned_again() { [ "$(grep -c 'removed [0-9]* symbol table' "$DLOG")" -gt "$n_pruned" ]; }
wait_until 20 "pruning to SymbolsMaxUse=64K" pruned_again
left=$(grep 'removed [0-9]* symbol table' "$DLOG" | tail -1 | sed -nE 's/.*\(([0-9.]+) (B|KiB) left\).*/\1 \2/p')
[ -n "$left" ] || { tail -3 "$DLOG" >&2; fail "the pruning left more than a KiB-sized rest"; }
check_range "$(echo "$left" | awk '{ print int($2 == "KiB" ? $1 : $1 / 1024) }')" 0 64 \
	"SymbolsMaxUse=64K: KiB of tables left after pruning"
"$RPD" -c "$C" -D "$D" --check-config >"$T/conf.out" 2>&1 || fail "--check-config: $(cat "$T/conf.out")"
check_grep '^CaptureSymbols=yes$' "$T/conf.out" "--check-config shows CaptureSymbols"
check_grep '^SymbolsMaxUse=64K' "$T/conf.out" "--check-config shows SymbolsMaxUse"
stop_daemon
check_eq "$DRC" 0 "ringprofd stops cleanly"

# CaptureSymbols=no: no table anywhere.
rm -rf "$D"
printf 'Frequency=199\nFlushInterval=0.2\nEvent=cpu-clock\nMaxFileSec=0\nCaptureSymbols=no\n' >"$C"
start_daemon -c "$C" -D "$D"
"$WL" -d 1 -q || fail "the workload failed"
kill -USR2 "$DPID"
wait_until 20 "SIGUSR2 closes a file" n_closed_at_least 1
stop_daemon
[ -d "$D/symbols" ] && [ -n "$(ls "$D/symbols")" ] && fail "CaptureSymbols=no wrote tables"
"$RP" report --dir "$D" --dump 2>/dev/null | grep -q '^SYMTAB' && fail "CaptureSymbols=no: SYMTAB in a recording"
ok "CaptureSymbols=no captures nothing"
