#!/bin/bash
# fuzz.sh — builds the libFuzzer targets of tests/fuzz/ with clang and runs each for a given time.
#
# Usage: bash bench/fuzz.sh [SECONDS_PER_TARGET]      (default 180; after ./configure)
#
# Each target and every lib source it uses are compiled with
# -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -g -O1 (not the gcc .a
# files). A target starts from its checked-in corpus tests/fuzz/corpus/TARGET/, which is only
# read: new inputs go to WORK/corpus/TARGET/, crashers to WORK/crash/. Prints executions and
# executions per second per target, and every crash with its file.
# Environment: TARGETS (default: all), JOBS (targets run at once, default 2), RP_BUILD (build
# dir with config.h, default build/ or the source tree), WORK (default a new temp dir, kept).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SECS=${1:-180}
JOBS=${JOBS:-2}
TARGETS=${TARGETS:-"fuzz-reader fuzz-frame fuzz-maps fuzz-kallsyms fuzz-config fuzz-utab fuzz-utab-build fuzz-symtab"}

die() { echo "fuzz: $*" >&2; exit 1; }

if [ -n "${RP_BUILD:-}" ]; then B=$RP_BUILD
elif [ -f "$ROOT/build/config.h" ]; then B=$ROOT/build
elif [ -f "$ROOT/config.h" ]; then B=$ROOT
else die "no config.h: run ./configure first (or set RP_BUILD)"
fi
if ! command -v clang >/dev/null || ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
	[ "$(id -u)" = 0 ] || die "clang with libFuzzer is missing: apt-get install clang libclang-rt-14-dev"
	apt-get install -y -q clang libclang-rt-14-dev >/dev/null || die "cannot install clang"
fi

WORK=${WORK:-$(mktemp -d /tmp/ringprof-fuzz.XXXXXX)}
mkdir -p "$WORK/obj" "$WORK/bin" "$WORK/crash" "$WORK/log"
CFLAGS="-std=gnu11 -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined"
# $B/lib: the pprof messages generated at build time (lib/profile/pprof.pb-c.[ch]).
CPPFLAGS="-include $B/config.h -I$ROOT/lib -I$B/lib -I$B -I$ROOT/daemon"
[ -f "$B/lib/profile/pprof.pb-c.c" ] || die "$B/lib/profile/pprof.pb-c.c is missing: run make in $B first"

# ---- build: lib objects once (no main), then one binary per target ----------------------------
echo "fuzz: building in $WORK"
objs=()
for src in "$ROOT"/lib/*/*.c "$B"/lib/profile/pprof.pb-c.c "$ROOT"/daemon/conf.c "$ROOT"/daemon/log.c; do
	o=$WORK/obj/$(basename "$(dirname "$src")")-$(basename "$src" .c).o
	clang $CFLAGS -fsanitize=fuzzer-no-link $CPPFLAGS -c "$src" -o "$o" &
	objs+=("$o")
	while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n; done
done
wait
for t in $TARGETS; do
	clang $CFLAGS $CPPFLAGS -o "$WORK/bin/$t" "$ROOT/tests/fuzz/$t.c" "${objs[@]}" \
		-lzstd -ldw -lelf -liberty -lprotobuf-c -lz -lcapstone -lpthread -lm || die "cannot build $t"
done

# ---- run ------------------------------------------------------------------------------------
run() {
	local t=$1
	mkdir -p "$WORK/corpus/$t"
	# -timeout: an input that takes longer is a hang; leaks are reported as crashes too. Fork
	# mode with one worker keeps fuzzing after a crash, so one run finds more than one bug.
	"$WORK/bin/$t" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 \
		-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
		-artifact_prefix="$WORK/crash/$t-" "$WORK/corpus/$t" "$ROOT/tests/fuzz/corpus/$t" \
		>"$WORK/log/$t.log" 2>&1 || true
}
for t in $TARGETS; do
	run "$t" &
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
done
wait

# ---- results --------------------------------------------------------------------------------
printf '%-14s %12s %9s %8s %7s  %s\n' target executions seconds exec/s corpus crashes
for t in $TARGETS; do
	log=$WORK/log/$t.log
	# The fork-mode status lines: "#EXECS: cov: ... time: SECSs job: ...".
	last=$(grep -a '^#[0-9]*: cov:' "$log" | tail -1)
	execs=$(sed -n 's/^#\([0-9]*\):.*/\1/p' <<<"$last")
	secs=$(sed -n 's/.* time: \([0-9]*\)s.*/\1/p' <<<"$last")
	[ -n "$secs" ] || secs=$SECS
	rate=$(( ${execs:-0} / (secs > 0 ? secs : 1) ))
	n_corpus=$(( $(ls "$WORK/corpus/$t" | wc -l) + $(ls "$ROOT/tests/fuzz/corpus/$t" 2>/dev/null | wc -l) ))
	crashes=$(ls "$WORK/crash" | grep -c "^$t-" || true)
	printf '%-14s %12s %9s %8s %7s  %s\n' "$t" "${execs:-?}" "$secs" "$rate" "$n_corpus" "$crashes"
done
if ls "$WORK"/crash/* >/dev/null 2>&1; then
	echo "crashers (replay with WORK/bin/TARGET FILE; the report is in WORK/log/TARGET.log):"
	ls -1 "$WORK"/crash/
	echo "distinct failures (first line of each report):"
	for t in $TARGETS; do
		grep -ah '^SUMMARY:\|^==[0-9]*== ERROR: libFuzzer' "$WORK/log/$t.log" |
			sed 's/^==[0-9]*==//' | sort | uniq -c | sed "s/^/  $t: /" || true
	done
fi
echo "fuzz: work dir $WORK (bin/, corpus/, crash/, log/)"
