#!/bin/bash
# setup.sh — one entry point for a fresh Debian 12 machine (as root): install what is missing,
# build, then either run the demo (`demo`) or the test suite (`test`).
set -euo pipefail
cd "$(dirname "$0")"
mode=${1:-demo}

PACKAGES="build-essential autoconf automake pkgconf libelf-dev libdw-dev libzstd-dev libiberty-dev zstd elfutils
	binutils util-linux procps linux-perf systemd systemd-container libcap2-bin groff-base valgrind stress-ng clang-format
	libc6-dbg python3 libprotobuf-c-dev protobuf-c-compiler zlib1g-dev golang-1.19-go libcurl4-openssl-dev"
# tests/report-debuginfod.sh runs a real local debuginfod; report-captured.sh packs MiniDebugInfo with xz.
PACKAGES="$PACKAGES debuginfod xz-utils"
# ringprof annotate disassembles with capstone (README: why not elfutils' libasm).
PACKAGES="$PACKAGES libcapstone-dev"
# tests/report-html.sh opens report --html's page in Debian's chromium, headless, driven with
# playwright-core from npm, and tests/script-speedscope.sh speedscope's own page, also from npm
# (install_web below; npm comes with nodejs where that is not Debian's).
# tests/html-lint.sh lints the pages' scripts with npm's eslint, pinned there too.
PACKAGES="$PACKAGES chromium nodejs"
# tests/record-fuse.sh mounts a FUSE file system whose server never answers (fusermount3, libfuse3).
PACKAGES="$PACKAGES fuse3 libfuse3-dev"
# tests/report-speedscope.sh checks report --speedscope's file against speedscope's schema.
PACKAGES="$PACKAGES python3-jsonschema"
# tests/report-rust.sh builds a real Rust program (names, -s srcline and annotate against perf):
# Debian's rustc, ~55 MB to download, ~270 MB installed with libstd-rust-dev.
PACKAGES="$PACKAGES rustc"

# The second tree of `setup.sh test`: the whole suite again under AddressSanitizer and
# UndefinedBehaviorSanitizer (the ring's ThreadSanitizer test is built in the plain tree).
SAN_FLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"

install_missing() {
	local missing=""
	for p in $PACKAGES; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	if [ "$(id -u)" != 0 ]; then
		echo "setup.sh: missing packages:$missing (run as root, or install them first)" >&2
		exit 1
	fi
	echo "setup.sh: installing$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
}

# playwright-core, speedscope and eslint, at the versions tests/web/package-lock.json pins, into
# tests/web/node_modules (git-ignored): once, and again when a pin changes.
install_web() {
	local want have
	if ! command -v npm >/dev/null; then
		[ "$(id -u)" = 0 ] || { echo "setup.sh: npm is missing (run as root, or install it)" >&2; exit 1; }
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends npm >/dev/null
	fi
	want=$(sed -n 's/.*"\(eslint\|playwright-core\|speedscope\)": "\([0-9.]*\)".*/\1 \2/p' tests/web/package.json)
	have=$(for p in eslint playwright-core speedscope; do
		sed -n "s/^  \"version\": \"\(.*\)\",\$/$p \1/p" tests/web/node_modules/$p/package.json 2>/dev/null
	done || true)
	[ "$want" = "$have" ] && return 0
	echo "setup.sh: installing $(echo $want) into tests/web/node_modules" >&2
	(cd tests/web && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
}

# build [DIR CONFIGURE-ARGS...]: configure (once) and build out of tree in DIR (default build).
build() {
	local dir=${1:-build}
	[ $# = 0 ] || shift
	[ -x configure ] && [ configure -nt configure.ac ] && [ Makefile.in -nt Makefile.am ] || autoreconf -fi >/dev/null 2>&1
	mkdir -p "$dir"
	cd "$dir"
	[ -f Makefile ] && [ Makefile -nt ../configure ] || ../configure -q "$@"
	make -s -j"$(nproc)" >/dev/null
	cd ..
}

# Print "N passed, N failed" over the summary logs given (each tier of each build tree: make
# check-unit's unit-suite.log, check-live's live-suite.log), each check counted once per tree
# (tests/driver.sh: a shell test's ok lines, a C test's checks); non-zero when anything failed.
# RCS: the make runs' exit statuses.
summarize() {
	local rcs=$1 log pass=0 fail=0 skip=0 rc t
	shift
	for log in "$@"; do
		[ -f "$log" ] || continue
		pass=$((pass + $(awk '/^# PASS:/ { print $3 }' "$log")))
		skip=$((skip + $(awk '/^# SKIP:/ { print $3 }' "$log")))
		fail=$((fail + $(awk '/^# (FAIL|ERROR|XPASS):/ { n += $3 } END { print n + 0 }' "$log")))
		grep -E '^(FAIL|ERROR|SKIP): ' "$log" | sed "s|^|  $(dirname "$log"): |" >&2 || true
	done
	for rc in $rcs; do
		[ "$rc" = 0 ] || [ "$fail" != 0 ] || fail=1 # make check itself failed (e.g. a build error)
	done
	[ "$skip" = 0 ] || echo "($skip skipped: see the SKIP lines above for why)"
	# The end of each failed test's own log last, so that the tail of a CI transcript says
	# which check failed.
	for log in "$@"; do
		[ -f "$log" ] || continue
		for t in $(sed -n 's/^\(FAIL\|ERROR\): \([^ ]*\)$/\2/p' "$log"); do
			echo "--- $(dirname "$log")/$t.log, last 12 lines:"
			tail -n 12 "$(dirname "$log")/$t.log" | sed 's/^/  | /'
		done
	done
	echo "$pass passed, $fail failed"
	[ "$fail" = 0 ]
}

install_missing
install_web
case "$mode" in
demo)
	build
	echo "== ringprof record -g -F 999 -- rp-workload -d 3"
	echo "   (a bundled program: main thread 50 %, a worker thread 25 %, a forked child in a"
	echo "    shared library 25 %; see tests/workload/README)"
	./build/ringprof record -g -F 999 -o build/demo.data -- ./build/tests/workload/rp-workload -d 3
	echo
	echo "== ringprof report -i build/demo.data --no-children -g callee --percent-limit 2"
	./build/ringprof report -i build/demo.data --no-children -g callee --percent-limit 2
	echo "== ringprof report -i build/demo.data --percent-limit 10   (Children: time including callees)"
	./build/ringprof report -i build/demo.data --percent-limit 10 | grep -v '^# [a-z]'
	echo "== ringprof annotate -i build/demo.data hot_leaf   (its source lines, the hottest marked >>; the full output goes on to its instructions)"
	./build/ringprof annotate -i build/demo.data hot_leaf | sed -n '1,/^# Instructions/p' |
		grep -v '^# *$' | grep -v '^# Instructions'
	echo "== ringprof report -i build/demo.data --html build/demo.html"
	./build/ringprof report -i build/demo.data --html build/demo.html
	echo "   one file, no request: timeline, flame graph, search, table; open it in any browser:"
	echo "   $(pwd)/build/demo.html"
	;;
test)
	# The off-CPU tests read tracepoint ids from tracefs, which is not mounted by default.
	mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing ||
		echo "setup.sh: could not mount tracefs: the off-CPU tests will say why they skip" >&2
	build
	build build-san CFLAGS="$SAN_FLAGS" LDFLAGS="-fsanitize=address,undefined"
	rc=0 rc_san=0
	rm -f build/unit-suite.log build/live-suite.log build-san/unit-suite.log build-san/live-suite.log
	# Two tiers per tree (tests/README): the unit tier (no perf events, no timing) in parallel,
	# then the live tier one test at a time, so that no two recordings share the 2 CPUs.
	(cd build && make -s -j2 check-unit >/dev/null 2>&1) || rc=$?
	(cd build && make -s check-live >/dev/null 2>&1) || rc=$?
	export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1
	(cd build-san && make -s -j2 check-unit >/dev/null 2>&1) || rc_san=$?
	(cd build-san && make -s check-live >/dev/null 2>&1) || rc_san=$?
	summarize "$rc $rc_san" build/unit-suite.log build/live-suite.log \
		build-san/unit-suite.log build-san/live-suite.log
	;;
*)
	echo "usage: setup.sh [demo|test]" >&2
	exit 2
	;;
esac
