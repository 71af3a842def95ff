#!/bin/bash
# record-forged-buildid.sh — a user runs a binary carrying the build-id of a program not seen
# yet (distribution build-ids are public before an upgrade), hoping what is built from it is
# kept by that build-id and handed to the real program later: its unwind table (the real
# program's stacks would collapse to the leaf) and its captured symbols (once the real file is
# gone, the real program's frames would carry the attacker's names). Both are kept by the
# build-id and the digest of what the file holds, computed by the helper (issue 24 item 2):
# the forged file's are kept apart and never serve the real program.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/daemon-lib.sh"
require_root
require_perf_events
command -v gcc >/dev/null || skip "gcc is missing"
command -v setpriv >/dev/null || skip "setpriv (util-linux) is missing"

# A build-id of this run's own: other runs of this test on the machine (a system-wide
# recording sees their programs) claim others.
BID=0x5eedf00d$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
chmod 755 "$T"
# The real program: frames without frame pointers, callers found from .eh_frame only. The
# forged one: other code, no unwind tables at all, the same build-id note.
gcc -O2 -fomit-frame-pointer -Wl,--build-id=$BID -o "$T/real" "$top_srcdir/tests/forged-prog.c" ||
	fail "cannot build the real program"
sed 's/real_/other_/g; s/sink += (unsigned long)i \* 7/sink ^= i/' "$top_srcdir/tests/forged-prog.c" >"$T/other.c"
gcc -O1 -fno-asynchronous-unwind-tables -fno-unwind-tables -fomit-frame-pointer \
	-Wl,--build-id=$BID -o "$T/forged" "$T/other.c" || fail "cannot build the forged program"
[ "$(build_id_of "$T/real")" = "$(build_id_of "$T/forged")" ] ||
	fail "the two programs do not share a build-id"
ok "two different programs with the build-id ${BID#0x}"
chmod 755 "$T/real" "$T/forged"
C="$T/cache"

# 1. The attacker's program runs first, as nobody, recorded by root with the shared cache.
"$RP" record -g --unwind-cache "$C" -e cpu-clock -o "$T/f.rp" -- \
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$T/forged" 2 2>"$T/f.err" ||
	{ cat "$T/f.err" >&2; fail "record -g of the forged program"; }
n=$(ls "$C"/"${BID#0x}"-*.utab 2>/dev/null | wc -l)
check_eq "$n" 1 "tables kept under the forged build-id after its run"

# 2. The real program, in a later recording with the same cache: its own table, built.
"$RP" record -g --unwind-cache "$C" -e cpu-clock -o "$T/r.rp" -- "$T/real" 1.5 2>"$T/r.err" ||
	{ cat "$T/r.err" >&2; fail "record -g of the real program"; }
n=$(ls "$C"/"${BID#0x}"-*.utab 2>/dev/null | wc -l)
check_eq "$n" 2 "tables under that build-id once the real program ran (one per digest)"
"$RP" report -i "$T/r.rp" --comm real --stdio -g caller --no-children >"$T/r.tree" 2>&1 ||
	fail "report of the real program"
c=$(sed -n 's/^# user stacks: \([0-9]*\)\.[0-9]*% complete.*/\1/p' "$T/r.tree" | head -1)
check_range "$c" 90 100 "% of the real program's user stacks complete (the forged table would cut them)"
check_grep 'real_c' "$T/r.tree" "the real program's hot function has its caller real_c"
check_grep '__libc_start_call_main' "$T/r.tree" "the real program's stacks reach libc's start"

# 3. And again: now the real program's table comes from the cache, still its own.
"$RP" record -g --unwind-cache "$C" -e cpu-clock -o "$T/r2.rp" -- "$T/real" 1 2>"$T/r2.err" ||
	fail "second record -g of the real program"
"$RP" report -i "$T/r2.rp" --comm real --stdio --no-children >"$T/r2.rep" 2>&1
c=$(sed -n 's/^# user stacks: \([0-9]*\)\.[0-9]*% complete.*/\1/p' "$T/r2.rep" | head -1)
check_range "$c" 90 100 "% complete on the second run (its table from the cache)"

# 4. Names: the forged program, then the real one, in one system-wide recording (one set of
# captured symbols per build-id before); the real binary is then deleted, as by an upgrade.
# Its frames must carry its own names from its captured symbols, never the forged file's.
cp "$T/real" "$T/real2"
"$RP" record -a -g --unwind-cache no -e cpu-clock -o "$T/n.rp" -- sh -c \
	"setpriv --reuid=nobody --regid=nogroup --clear-groups '$T/forged' 1; '$T/real2' 1" \
	2>"$T/n.err" || { cat "$T/n.err" >&2; fail "record -a -g of both programs"; }
rm -f "$T/real2"
"$RP" report -i "$T/n.rp" --dump >"$T/n.dump" 2>/dev/null
n=$(grep -E "^SYMTAB .* build_id=${BID#0x} part=0/" "$T/n.dump" | sed -E 's/.* digest=([0-9a-f]+) .*/\1/' | sort -u | wc -l)
check_eq "$n" 2 "symbol tables captured under the shared build-id (one per digest)"
"$RP" report -i "$T/n.rp" --comm real2 --stdio --no-children >"$T/n.rep" 2>&1 ||
	fail "report of the real program with its binary gone"
check_grep '\[\.\] real_d(\.constprop\.0)?$' "$T/n.rep" "the deleted real program is named from its own captured symbols (real_d)"
check_no_grep 'other_' "$T/n.rep" "none of the forged program's names on the real program's frames"
"$RP" report -i "$T/n.rp" --comm forged --stdio --no-children >"$T/f2.rep" 2>&1
check_no_grep 'real_' "$T/f2.rep" "and none of the real program's names on the forged one's"

# 5. ringprofd, where the attack was shown: the forged program runs under one daemon, which
# keeps its table and symbols in its state directory; the daemon restarts; the real program
# runs and is deleted. Its stacks and names must be its own (the unwind-tables/ and symbols/
# files are keyed by digest), not the forged file's kept from before the restart.
printf 'Frequency=199\nFlushInterval=0.2\nEvent=cpu-clock\n' >"$T/rpd.conf"
start_listener
start_daemon -c "$T/rpd.conf" -D "$D"
setpriv --reuid=nobody --regid=nogroup --clear-groups "$T/forged" 2
stop_daemon
[ "$DRC" = 0 ] || fail "ringprofd (first run) exited $DRC"
cp "$T/real" "$T/real3"
start_daemon -c "$T/rpd.conf" -D "$D"
"$T/real3" 2
rm -f "$T/real3"
# The daemon writes a program's symbols once its helper has read them (from the file it opened
# when the program mapped it): on a loaded machine that can come after the program ended. What
# is checked is where they are kept, not how soon: wait for them (15 s at most).
for _ in $(seq 75); do
	[ "$(ls "$D"/symbols/"${BID#0x}"-*.sym 2>/dev/null | wc -l)" -ge 2 ] && break
	sleep 0.2
done
sleep 0.5
stop_daemon
[ "$DRC" = 0 ] || fail "ringprofd (second run) exited $DRC"
n=$(ls "$D"/symbols/"${BID#0x}"-*.sym 2>/dev/null | wc -l)
check_eq "$n" 2 "ringprofd: two symbol tables under the shared build-id, one per digest"
"$RP" report --dir "$D" --comm real3 --stdio -g caller --no-children >"$T/d.tree" 2>&1 ||
	fail "report --dir of the daemon's recordings"
check_grep '\[\.\] real_d(\.constprop\.0)?$' "$T/d.tree" \
	"ringprofd: the deleted real program is named from its own symbols after the restart"
check_no_grep 'other_' "$T/d.tree" "ringprofd: none of the forged program's names on it"
# The forged table would cut the real program's stacks (a bad frame, no unwind information, or
# a walk that runs off the copy): at most 10 % cut so. A table still on its way when the daemon
# stopped (the ASan tree's helper under load) is no sign of it: counted apart, and said.
hdr=$(grep -m1 '^# user stacks:' "$T/d.tree")
c=$(sed -n 's/^# user stacks: \([0-9.]*\)% complete.*/\1/p' <<<"$hdr")
cut=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /%$/ && ($(i + 1) $(i + 2) ~ /^stack/ || $(i + 1) == "no" || $(i + 1) == "bad")) s += $i } END { print int(s + 0.5) }' <<<"$hdr")
[ -n "$c" ] || fail "no user stacks line in the report of the daemon's recordings: $(head -12 "$T/d.tree")"
check_range "$cut" 0 10 "ringprofd: % of the real program's user stacks cut after the restart (${c}% complete; $hdr)"
echo "# $n_checks checks"
