#!/bin/bash
# record-overlay.sh — programs run from an overlayfs whose lower layer is on another file system
# than its upper one (containers: nspawn --volatile=overlay, an image under a tmpfs upper):
# stat(2) gives such files a device of their layer's own while the kernel's MMAP2 names the
# overlay mount's. The recorder still recognizes the mapped file: build-ids recorded, stacks
# unwound through its code.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
require_perf_events
[ "$(id -u)" = 0 ] || skip "mounting an overlayfs needs root"
command -v unshare >/dev/null || skip "unshare (util-linux) is not installed"

mkdir -p "$T/lower" "$T/up" "$T/merged"
cp "$WL" "$top_builddir/tests/workload/librp-worklib.so" "$T/lower/"
cat >"$T/run.sh" <<RUN
set -e
mount -t tmpfs rp-upper "$T/up"
mkdir "$T/up/u" "$T/up/w"
mount -t overlay rp-overlay -o lowerdir="$T/lower",upperdir="$T/up/u",workdir="$T/up/w" "$T/merged"
stat -f -c %T "$T/merged/rp-workload" >"$T/fstype"
stat -c %d "$T/merged/rp-workload" >"$T/stdev"
awk '\$5 == "$T/merged" { print \$3 }' /proc/self/mountinfo >"$T/mntdev"
"$RP" record -q -e cpu-clock -F 999 -g -o "$T/ov.data" -- "$T/merged/rp-workload" -d 1 -q
RUN
if ! unshare -m --propagation private bash "$T/run.sh" >"$T/run.out" 2>&1; then
	grep -Eq 'mount: .*(unknown filesystem type|Operation not permitted)' "$T/run.out" &&
		skip "this kernel or sandbox refuses the overlayfs mount: $(head -1 "$T/run.out")"
	fail "recording from the overlay: $(cat "$T/run.out")"
fi
check_grep '^overlayfs$' "$T/fstype" "the workload runs from an overlayfs"
sd=$(cat "$T/stdev") md=$(cat "$T/mntdev")
[ -n "$md" ] || fail "no mountinfo line for the overlay"
check_eq "$([ "$((sd >> 8)):$((sd & 255))" != "$md" ] && echo differ)" differ \
	"stat's device of the binary ($((sd >> 8)):$((sd & 255))) is not the overlay mount's ($md)"
"$RP" report --no-pager -i "$T/ov.data" --dump >"$T/dump" 2>&1 || fail "--dump"
check_grep "^MMAP2 .* maj=${md%%:*} min=${md##*:} ino=[0-9]+ path=$T/merged/rp-workload$" "$T/dump" \
	"MMAP2 names the overlay mount's device"
check_grep "^BUILDID .* build_id=$(build_id_of "$WL")$" "$T/dump" "the binary's build-id is recorded"
"$RP" report --no-pager -i "$T/ov.data" --comm rp-workload --no-children >"$T/flat" 2>&1 || fail "report"
# Without the overlay's files recognized nearly every stack ends in "no unwind information"
# (0.2 % complete); the rest may wait for a table at the start (ASan's slower start: 88 %).
complete=$(sed -n 's/^# user stacks: \([0-9]*\)\.[0-9]*% complete.*/\1/p' "$T/flat")
noinfo=$(sed -n 's/^# user stacks: .* \([0-9]*\)\.[0-9]*% no unwind information.*/\1/p' "$T/flat")
check_range "${complete:-0}" 80 100 "user stacks unwound through the overlay's binaries (% complete)"
check_range "${noinfo:-0}" 0 1 "no stack stops for want of the overlay's unwind information (%; the header names no reason when all are complete)"
"$RP" report --no-pager -i "$T/ov.data" --folded >"$T/folded" 2>&1 || fail "--folded"
check_grep '^rp-workload;_start;__libc_start_main[^;]*;__libc_start_call_main;main;run_main;hot_outer_a;hot_leaf [0-9]+$' \
	"$T/folded" "stacks run from _start to hot_leaf"
check_grep '^rp-worker;(clone3;)?start_thread;worker_main;worker_spin [0-9]+$' "$T/folded" \
	"the worker thread's stacks too"
exit 0
