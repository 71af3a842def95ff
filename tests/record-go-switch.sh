#!/bin/bash
# record-go-switch.sh — `ringprof record -g` of a Go program never gives a caller across Go's
# stack switches (issue 22): runtime.systemstack, mcall, morestack and asmcgocall move rsp to
# the thread's g0 stack and call on there, where Go's CFI (cfa = rsp + 8) no longer holds. The
# walk used to read the g0 stack's stale words as callers: on the main thread rt0_go's call of
# runtime.newproc and the address of runtime.g0 ("[unknown] 0x52f9bf"), 1.4 % of a Go
# program's samples under a caller that never called. The helper now gives those functions'
# code after the switch the rule "unknown": the walk of the copy stops there. The kernel's
# frame-pointer chain of the same sample (Go keeps frame pointers) goes on from there when it
# agrees with every return address the walk read: those callers follow a "[frame pointers]"
# frame (format 2.5), which says that the switch function's direct caller may be missing.
# Checked on a Go program that collects garbage all the time (GOGC=5, goroutines allocating):
# the switch functions are in its stacks (>= 5 samples), no sample has a frame outer than a
# switch function entered past its switch (its inner neighbour is not
# gosave_systemstack_switch) unless "[frame pointers]" stands between them (or the switch
# function is one of the frame-pointer chain's, outer than that mark), none has a frame
# at an address outside every object, >= 90 % of the stacks through a switch are continued by
# the frame-pointer chain, >= 90 % of all its user stacks reach a root of Go's
# (runtime.goexit, runtime.mstart, runtime.rt0_go, runtime.clone), the header says how many
# were continued, and it gives no frame-pointer advice (Go keeps them). Needs Go
# (golang-1.19-go, or go in PATH); the program is built here. Environment: KEEP=1 keeps $T.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

GO=$(command -v go || true)
[ -n "$GO" ] || GO=/usr/lib/go-1.19/bin/go
[ -x "$GO" ] || skip "no Go compiler (golang-1.19-go or go in PATH)"
require_perf_events
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }

cat >"$T/gc.go" <<'G'
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

type node struct {
	next *node
	pad  [6]int
}

//go:noinline
func churn(n int) int {
	var head *node
	for i := 0; i < n; i++ {
		head = &node{next: head}
		head.pad[i%6] = i
	}
	s := 0
	for p := head; p != nil; p = p.next {
		s += p.pad[0]
	}
	return s
}

//go:noinline
func grow(depth int) int {
	var buf [512]byte
	buf[depth%512] = byte(depth)
	if depth == 0 {
		return churn(2000) + int(buf[0])
	}
	return grow(depth-1) + int(buf[depth%512])
}

func main() {
	secs, _ := strconv.ParseFloat(os.Args[1], 64)
	end := time.Now().Add(time.Duration(secs * float64(time.Second)))
	done := make(chan int)
	for w := 0; w < 3; w++ {
		go func() {
			s := 0
			for time.Now().Before(end) {
				s += grow(6)
			}
			done <- s
		}()
	}
	s := 0
	for w := 0; w < 3; w++ {
		s += <-done
	}
	fmt.Println(s)
}
G
(cd "$T" && GOCACHE=$T/gocache GOPATH=$T/gopath GO111MODULE=off GOFLAGS='' "$GO" build -o "$T/rp-gc" gc.go) >"$T/build.log" 2>&1 ||
	fail "go build failed: $(tail -3 "$T/build.log")"

GOGC=5 "$RP" record -q -g -e cpu-clock -F 999 --unwind-cache no -o "$T/g.data" -- "$T/rp-gc" 1.5 >"$T/g.out" 2>"$T/g.err" ||
	fail "ringprof record -g of the Go program: $(tail -2 "$T/g.err")"
"$RP" report -i "$T/g.data" --no-children 2>/dev/null | grep '^#' >"$T/g.head"
"$RP" report -i "$T/g.data" --folded --no-demangle 2>"$T/g.ferr" | ufold >"$T/g.folded" ||
	fail "report --folded: $(cat "$T/g.ferr")"
SW='runtime\.(systemstack|mcall|morestack|asmcgocall)(\.abi0)?'

# The switch functions' samples: how many, and how many have a frame outer than a switch
# function they were entered past the switch of.
read -r n_sw n_bad n_tot n_fp <<<"$(awk -v sw="^($SW)\$" '{
	n = $NF; line = substr($0, 1, length($0) - length($NF) - 1); k = split(line, f, ";")
	if (f[1] != "rp-gc") next
	tot += n; has = 0; bad = 0; fp = 0; m = 0
	for (i = 2; i <= k; i++) if (f[i] == "[frame pointers]") m = i
	for (i = 2; i <= k; i++) {
		if (f[i] !~ sw) continue
		has = 1
		if (i < m) { fp = 1; continue } # in the kernel'"'"'s frame-pointer chain
		if (f[i - 1] == "[frame pointers]") { fp = 1; continue }
		if (i > 2 && i < k && f[i + 1] !~ /^gosave_systemstack_switch/) bad = 1
	}
	nsw += has * n; nbad += bad * n; nfp += has * fp * n
} END { print nsw + 0, nbad + 0, tot + 0, nfp + 0 }' "$T/g.folded")"
ge "$n_sw" 5 || { sort -k2 -nr "$T/g.folded" | head -5 >&2; fail "only $n_sw of $n_tot samples in Go's stack switches (< 5): the program does not collect garbage as this test needs"; }
ok "$n_sw of $n_tot samples have a Go stack switch (systemstack, mcall, morestack) in their stacks"
if [ "$n_bad" != 0 ]; then
	awk -v sw="($SW)" '$0 ~ ";[^;]+;" sw ";" && $0 !~ sw ";gosave_systemstack_switch"' "$T/g.folded" | sort -k2 -nr | head -5 >&2
	fail "$n_bad samples have callers read across a Go stack switch (stale g0 stack words)"
fi
ok "no sample has a caller read across a Go stack switch from the copy ($n_sw samples go through one)"
r=$(awk -v a="$n_fp" -v b="$n_sw" 'BEGIN { printf "%.1f\n", 100 * a / b }')
ge "$r" 90 || { grep '\[frame pointers\]' "$T/g.folded" | head -3 >&2; fail "only $r % of the stacks through a Go stack switch were continued by frame pointers (< 90)"; }
ok "$r % of the stacks through a Go stack switch were continued by the kernel's frame-pointer chain"
check_grep '^# user stacks: .*% continued by frame pointers .*\(\[frame pointers\]\)' "$T/g.head" "the header says how many stacks frame pointers continued"
# (In some runs one sample has every frame at a bare address in rp-gc's text: the report
# does not know the program's mapping at its time, a matter of the report's process model,
# not of the walk. Stale words would give many.)
n_out=$(awk '/^rp-gc;([^;]*;)*\[unknown\] 0x[0-9a-f]+(;| )/ { n += $NF } END { print n + 0 }' "$T/g.folded")
[ "$n_out" -le $((n_tot / 100)) ] ||
	{ grep -E '^rp-gc;([^;]*;)*\[unknown\] 0x[0-9a-f]+(;| )' "$T/g.folded" | head -3 >&2; fail "$n_out of $n_tot samples have a frame at an address outside every object (> 1 %)"; }
ok "$n_out of $n_tot samples have a frame at an address outside every object (<= 1 %)"
r=$(awk '{ n = $NF; line = substr($0, 1, length($0) - length($NF) - 1); split(line, f, ";")
	if (f[1] != "rp-gc") next
	t += n; if (f[2] ~ /^runtime\.(goexit|mstart|rt0_go|clone)(\.abi0)?$/) h += n }
	END { printf "%.1f\n", t ? 100 * h / t : 0 }' "$T/g.folded")
ge "$r" 90 || { cat "$T/g.head" >&2; fail "$r % of the Go program's stacks reach a root (< 90)"; }
ok "$r % of the Go program's stacks reach runtime.goexit, mstart, rt0_go or clone"
check_no_grep '^# note: .*frame pointers' "$T/g.head" "no frame-pointer advice for a Go program (it keeps them)"
exit 0
