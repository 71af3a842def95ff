#!/bin/bash
# buildid-bench.sh — what reading build-ids in user space costs (issue 16): `ringprof record -a`
# (the helper reads each mapped file's build-id, BUILDID records) against `ringprof record -a
# --buildid-mmap` (the kernel puts build-ids in MMAP2, as before) and `perf record -a` (perf
# reads build-ids after recording), one after the other over the same churn: a loop that starts
# short-lived processes, half of them from binaries never seen before (a fresh copy of
# /bin/true each time: a new inode, so a new build-id read).
#
# Usage: bash bench/buildid-bench.sh [SECONDS]   (as root, after the build; default 10 per run)
# Prints per run: processes started, recorder CPU (user+sys of the recorder and its helpers,
# /usr/bin/time), and for the default run the delay from a file's first MMAP2 to its BUILDID
# record (the first-sample latency of a new binary's build-id), median, p95 and max.
# Environment: RP_BUILD, KEEP=1.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BENCH=buildid-bench
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
SECS=${1:-10}
[[ "$SECS" =~ ^[0-9]+$ ]] && [ "$SECS" -ge 2 ] || die "SECONDS must be an integer of at least 2"
bench_init time

# churn SECS OUT: start processes for SECS seconds, every other one from a new copy of true.
churn() {
	local end=$((SECONDS + $1)) n=0 dir=$T/churn
	mkdir -p "$dir"
	while [ $SECONDS -lt $end ]; do
		cp /bin/true "$dir/t$n"
		"$dir/t$n"
		/bin/true
		rm -f "$dir/t$n"
		n=$((n + 2))
	done
	echo "$n" >"$2"
}

# run NAME CMD...: the recorder in the background for the churn, its CPU from /usr/bin/time.
run() {
	local name=$1
	shift
	/usr/bin/time -f '%U %S' -o "$T/$name.time" "$@" >"$T/$name.out" 2>&1 &
	local p=$!
	sleep 1
	churn "$SECS" "$T/$name.n"
	sleep 0.5
	kill -INT "$(pgrep -P "$p" | head -1)" 2>/dev/null || true
	wait "$p" || true
}

run rp "$RP" record -a -q -e cpu-clock -F 999 -o "$T/rp.data"
run kern "$RP" record -a -q -e cpu-clock -F 999 --buildid-mmap -o "$T/kern.data"
run perf perf record -a -q -e cpu-clock -F 999 -o "$T/perf.data"

cpu() { tail -1 "$T/$1.time" | awk '{ printf "%.2f", $1 + $2 }'; }
echo "$(machine_md)"
echo
echo "| run | processes started | recorder CPU (s) | CPU vs --buildid-mmap | CPU vs perf |"
echo "|---|---|---|---|---|"
for r in rp kern perf; do
	c=$(cpu $r)
	printf '| %s | %s | %s | %s | %s |\n' \
		"$(case $r in rp) echo 'ringprof record -a (helper reads build-ids)' ;; kern) echo 'ringprof record -a --buildid-mmap' ;; perf) echo 'perf record -a' ;; esac)" \
		"$(cat "$T/$r.n")" "$c" \
		"$(awk -v a="$c" -v b="$(cpu kern)" 'BEGIN { if (b > 0) printf("%.2fx", a / b); else printf("-") }')" \
		"$(awk -v a="$c" -v b="$(cpu perf)" 'BEGIN { if (b > 0) printf("%.2fx", a / b); else printf("-") }')"
done

# The delay from a file's first MMAP2 to its BUILDID record, in ms.
"$RP" report -i "$T/rp.data" --dump 2>/dev/null | awk '
	$1 == "MMAP2" && / prot=r-x / {
		k = ""
		for (i = 1; i <= NF; i++) if ($i ~ /^(maj|min|ino)=/) k = k " " $i
		if (!(k in first)) first[k] = $2
	}
	$1 == "BUILDID" {
		k = ""
		for (i = 1; i <= NF; i++) if ($i ~ /^(maj|min|ino)=/) k = k " " $i
		if ((k in first) && !(k in done)) { print (($2 - first[k]) * 1000); done[k] = 1 }
	}' | sort -g >"$T/lat"
n=$(wc -l <"$T/lat")
echo
if [ "$n" -gt 0 ]; then
	awk -v n="$n" '{ v[NR] = $1 } END {
		p = int(n * 0.95); if (p < 1) p = 1
		printf("first MMAP2 -> BUILDID of a file: %d files, median %.2f ms, p95 %.2f ms, max %.2f ms\n",
			n, v[int((n + 1) / 2)], v[p], v[n]) }' "$T/lat"
else
	echo "first MMAP2 -> BUILDID: no file measured"
fi
echo "BUILDID records in the default run: $("$RP" report -i "$T/rp.data" --dump 2>/dev/null | grep -c '^BUILDID' || true)"
# Binaries that lived for one short process: read in time, or gone before the helper got them?
"$RP" report -i "$T/rp.data" --dump 2>/dev/null | awk '
	$1 == "MMAP2" && / prot=r-x / && /path=.*\/churn\/t[0-9]+$/ {
		k = ""
		for (i = 1; i <= NF; i++) if ($i ~ /^(maj|min|ino)=/) k = k " " $i
		m[k] = 1
	}
	$1 == "BUILDID" {
		k = ""
		for (i = 1; i <= NF; i++) if ($i ~ /^(maj|min|ino)=/) k = k " " $i
		b[k] = 1
	}
	END { for (k in m) { n++; if (k in b) y++ }
		printf "fresh binaries run once and deleted: %d mapped, %d with a build-id (%.0f%%)\n", n, y, n ? 100 * y / n : 0 }'
