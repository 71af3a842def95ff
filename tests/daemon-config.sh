#!/bin/bash
# daemon-config.sh — ringprofd's configuration: documented defaults, drop-ins in lexical
# order, command-line overrides, --check-config, and bad files named by file:line (exit 78).
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
. "$top_srcdir/tests/daemon-lib.sh"

"$RPD" --help >"$T/help" || fail "ringprofd --help exits non-zero"
for opt in --config --check-config --directory --event --frequency --call-graph --no-call-graph \
	--switch-events --ring-pages --cpus --flush-interval --compression --max-file-size --max-file-sec \
	--max-use --keep-free --max-retention-sec --log-level --help --version; do
	grep -q -- "$opt" "$T/help" || fail "ringprofd --help does not document $opt"
done
ok "--help documents every option"
"$RPD" --version >"$T/version" || fail "--version"
check_grep '^ringprofd [0-9]+\.[0-9]+' "$T/version" "--version"

# Built-in defaults (no file at all), with no $STATE_DIRECTORY.
unset STATE_DIRECTORY
"$RPD" --config /dev/null --check-config >"$T/defaults" || fail "--check-config of an empty file"
check_grep '^Directory=/var/lib/ringprof$' "$T/defaults" "default directory"
check_grep '^Frequency=49$' "$T/defaults" "default rate 49 Hz"
check_grep '^CallChain=yes$' "$T/defaults" "callchains by default"
check_grep '^OffCpu=no$' "$T/defaults" "off-CPU profiling is off by default"
"$RPD" -c /dev/null --off-cpu --check-config >"$T/offcpu" || fail "--check-config --off-cpu"
check_grep '^OffCpu=yes$' "$T/offcpu" "--off-cpu is OffCpu=yes"
printf 'OffCpu=yes\n' >"$T/offcpu.conf"
"$RPD" -c "$T/offcpu.conf" --no-off-cpu --check-config >"$T/nooffcpu" || fail "--check-config --no-off-cpu"
check_grep '^OffCpu=no$' "$T/nooffcpu" "--no-off-cpu overrides the file's OffCpu=yes"
check_grep '^ +--off-cpu +OffCpu=yes' "$T/help" "--help documents --off-cpu"
check_grep '^MaxFileSize=64M$' "$T/defaults" "default MaxFileSize"
check_grep '^MaxFileSec=1h$' "$T/defaults" "default MaxFileSec"
check_grep '^# 10% of the file system, at most 4G$' "$T/defaults" "default MaxUse explained"
STATE_DIRECTORY=/run/x/state:/other "$RPD" -c /dev/null --check-config >"$T/sd" || fail "--check-config with STATE_DIRECTORY"
check_grep '^Directory=/run/x/state$' "$T/sd" "\$STATE_DIRECTORY (the first one) is the default directory"

# The shipped file documents every setting at its default: uncommenting all of them changes nothing.
CONF="$top_srcdir/systemd/ringprofd.conf"
n_keys=$(grep -Ec '^#[A-Z][A-Za-z]+=' "$CONF")
n_printed=$(grep -Ec '^[A-Z][A-Za-z]+=' "$T/defaults")
check_eq "$n_keys" "$n_printed" "the shipped ringprofd.conf shows every setting"
sed -n 's/^#\([A-Z][A-Za-z]*=\)/\1/p' "$CONF" >"$T/uncommented.conf"
"$RPD" -c "$T/uncommented.conf" --check-config >"$T/uncommented" || fail "the shipped defaults do not parse: $(cat "$T/uncommented")"
# The settings alone: the comments around them say the file system's free space, which other
# writers change between the two runs.
diff -u <(grep -E '^[A-Z][A-Za-z]+=' "$T/defaults") <(grep -E '^[A-Z][A-Za-z]+=' "$T/uncommented") >&2 ||
	fail "the shipped ringprofd.conf's values differ from the built-in defaults"
ok "the shipped ringprofd.conf's values are the built-in defaults"

# A file, drop-ins in lexical order (later wins), then the command line.
mkdir -p "$T/c.conf.d"
cat >"$T/c.conf" <<'CONF'
# comment
  ; another comment
Frequency = 99
MaxUse=2G
MaxFileSize=1.5G
MaxFileSec=90min
Event=cpu-clock
CONF
printf 'Frequency=101\nKeepFree=5%%\n' >"$T/c.conf.d/20-b.conf"
printf 'Frequency=100\nMaxRetentionSec=2d\nCompression=5\n' >"$T/c.conf.d/10-a.conf"
printf 'Frequency=1\n' >"$T/c.conf.d/30-ignored.conf.disabled"
"$RPD" -c "$T/c.conf" --check-config >"$T/eff" || fail "--check-config: $(cat "$T/eff")"
check_grep "^# ringprofd: effective configuration \(from $T/c.conf, $T/c.conf.d/10-a.conf, $T/c.conf.d/20-b.conf\)$" \
	"$T/eff" "sources listed in order"
check_grep '^Frequency=101$' "$T/eff" "the last drop-in wins"
check_grep '^Compression=5$' "$T/eff" "drop-in settings apply"
check_grep '^MaxUse=2G$' "$T/eff" "sizes with suffixes"
check_grep '^MaxFileSize=1536M$' "$T/eff" "fractional sizes"
check_grep '^MaxFileSec=90min$' "$T/eff" "durations in minutes"
check_grep '^MaxRetentionSec=2d$' "$T/eff" "durations in days"
check_grep '^KeepFree=5%$' "$T/eff" "percentages"
"$RPD" -c "$T/c.conf" -F 7 --max-use 300M --directory /srv/p --no-call-graph --max-file-sec 0 \
	--flush-interval 250ms --check-config >"$T/cli" || fail "--check-config with overrides"
check_grep '^Frequency=7$' "$T/cli" "--frequency overrides the files"
check_grep '^MaxUse=300M$' "$T/cli" "--max-use overrides"
check_grep '^Directory=/srv/p$' "$T/cli" "--directory overrides"
check_grep '^CallChain=no$' "$T/cli" "--no-call-graph"
check_grep '^MaxFileSec=0$' "$T/cli" "MaxFileSec=0 (no age limit)"
check_grep '^FlushInterval=250ms$' "$T/cli" "FlushInterval in ms"
printf 'MaxUse=\n' >"$T/c.conf.d/40-reset.conf"
"$RPD" -c "$T/c.conf" --check-config >"$T/reset" || fail "an empty value"
check_grep '^MaxUse=$' "$T/reset" "an empty value restores the default"

# Bad configurations: file:line, what is wrong, exit 78 (EX_CONFIG).
bad() { # bad WHAT FILE-CONTENT EXPECTED-REGEX
	printf '# ok\n%b' "$2" >"$T/bad.conf"
	"$RPD" -c "$T/bad.conf" --check-config >"$T/bad.out" 2>&1
	rc=$?
	check_eq "$rc" 78 "$1: exit 78"
	check_grep "$3" "$T/bad.out" "$1: named with file:line"
}
bad "bad frequency" 'Frequency=fast\n' "^ringprofd: $T/bad.conf:2: Frequency=fast: expected a frequency in Hz from 1 to 100000$"
bad "unknown key" '\nMaxUsage=1G\n' "^ringprofd: $T/bad.conf:3: unknown setting 'MaxUsage'$"
bad "no equals sign" 'Frequency 49\n' "^ringprofd: $T/bad.conf:2: 'Frequency 49': expected KEY=VALUE$"
bad "bad size" 'MaxUse=lots\n' "^ringprofd: $T/bad.conf:2: MaxUse=lots: expected a size"
bad "bad duration" 'MaxFileSec=1 fortnight\n' "^ringprofd: $T/bad.conf:2: MaxFileSec=1 fortnight: expected a duration"
bad "unknown event" 'Event=bogus\n' "^ringprofd: $T/bad.conf:2: Event=bogus: unknown event 'bogus' \(see ringprof record --list-events"
bad "ring pages" 'RingPages=3\n' "RingPages=3: expected a power of two"
bad "bad boolean" 'CallChain=maybe\n' "CallChain=maybe: expected yes or no"
bad "bad CPU list" 'CPUs=3-1\n' "CPUs=3-1: expected a CPU list"
bad "relative directory" 'Directory=rec\n' "Directory=rec: expected an absolute path"
bad "too small MaxFileSize" 'MaxFileSize=1K\n' "MaxFileSize=1K: expected a size of at least 64K"

printf 'Frequency=oops\n' >"$T/c.conf.d/50-bad.conf"
"$RPD" -c "$T/c.conf" --check-config >"$T/out" 2>&1
check_eq "$?" 78 "a bad drop-in: exit 78"
check_grep "^ringprofd: $T/c.conf.d/50-bad.conf:1: Frequency=oops" "$T/out" "a bad drop-in is named"
rm "$T/c.conf.d/50-bad.conf"

"$RPD" -c "$T/nonexistent.conf" --check-config >"$T/out" 2>&1
check_eq "$?" 78 "a missing --config file: exit 78"
check_grep "nonexistent.conf: cannot read: No such file or directory" "$T/out" "a missing --config file is named"
"$RPD" -c "$T/c.conf" --frequency 0 --check-config >"$T/out" 2>&1
check_eq "$?" 78 "a bad override: exit 78"
check_grep '^ringprofd: command line: Frequency=0: expected a frequency' "$T/out" "a bad override is explained"
"$RPD" --bogus >"$T/out" 2>&1
check_eq "$?" 2 "an unknown option: exit 2"
check_grep "^ringprofd: unknown option '--bogus'$" "$T/out" "... in every program's words"
"$RPD" --max-file-szie 1M >"$T/out" 2>&1
check_grep "^ringprofd: unknown option '--max-file-szie'; did you mean '--max-file-size'\\?$" "$T/out" \
	"a near miss: did you mean"

# --check-config goes on past an error: every bad line of every file and the command line,
# each with its file:line, then how many; the good lines around them are not errors.
printf 'Frequency=fast\nMaxUse=2G\nMaxUsage=1G\nKeepFree 5%%\n' >"$T/many.conf"
mkdir -p "$T/many.conf.d"
printf 'CPUs=3-1\nCompression=3\n' >"$T/many.conf.d/10-x.conf"
printf 'CallChain=maybe\n' >"$T/many.conf.d/20-y.conf"
"$RPD" -c "$T/many.conf" --frequency 0 -D "$T/rec" --check-config >"$T/many.out" 2>"$T/many.err"
check_eq "$?" 78 "several errors: exit 78"
check_eq "$(cat "$T/many.err")" "ringprofd: $T/many.conf:1: Frequency=fast: expected a frequency in Hz from 1 to 100000
ringprofd: $T/many.conf:3: unknown setting 'MaxUsage'
ringprofd: $T/many.conf:4: 'KeepFree 5%': expected KEY=VALUE
ringprofd: $T/many.conf.d/10-x.conf:1: CPUs=3-1: expected a CPU list such as 0-3,6
ringprofd: $T/many.conf.d/20-y.conf:1: CallChain=maybe: expected yes or no
ringprofd: command line: Frequency=0: expected a frequency in Hz from 1 to 100000
ringprofd: 6 errors in the configuration ($T/many.conf, $T/many.conf.d/10-x.conf, $T/many.conf.d/20-y.conf, command line)" \
	"every error, with its file:line, in order, then their number"
check_eq "$(wc -c <"$T/many.out")" 0 "a configuration with errors is not printed as if effective"

# The budgets in bytes for the directory's file system (the nearest existing parent when the
# directory is still to be created), as the daemon resolves them: percent of f_blocks *
# f_frsize, capped, KeepFree at most the whole file system.
printf 'MaxUse=7%%\nKeepFree=2G\n' >"$T/budget.conf"
"$RPD" -c "$T/budget.conf" -D "$T/rec/sub" --check-config >"$T/budget" 2>"$T/budget.err" ||
	fail "--check-config of a valid file: $(cat "$T/budget.err")"
read -r blocks frsize <<<"$(stat -f -c '%b %S' "$T")"
fs=$((blocks * frsize))
want=$(awk -v fs="$fs" 'BEGIN { printf "%.0f", int(fs * 7 / 100) }')
keep=$((fs < 2147483648 ? fs : 2147483648))
check_grep "^# In $T/rec/sub \\(to be created in $T\\), a file system of " "$T/budget" \
	"the directory to be created, and where"
check_grep "^# MaxUse=7% of [0-9.]+ [KMGT]?i?B: $want bytes \\([0-9.]+ [KMGT]?i?B\\) here$" "$T/budget" \
	"MaxUse=7% in bytes: 7 % of the file system's $fs bytes"
check_grep "^# KeepFree=2G: $keep bytes " "$T/budget" "KeepFree=2G in bytes"
"$RPD" -c /dev/null -D "$T" --check-config >"$T/dflt" 2>&1 || fail "--check-config -D $T"
cap=$(awk -v fs="$fs" 'BEGIN { v = int(fs * 10 / 100); printf "%.0f", (v > 4294967296 ? 4294967296 : v) }')
check_grep "^# MaxUse=10% of [0-9.]+ [KMGT]?i?B, at most 4G: $cap bytes " "$T/dflt" \
	"the default MaxUse, 10 % at most 4G, in bytes"
check_grep "^# In $T, a file system of" "$T/dflt" "an existing directory is named alone"
check_grep "^# $T is writable by $(id -un) \\(uid $(id -u)\\), who runs this check$" "$T/dflt" \
	"says the directory is writable by the user running the check"

# A directory its user cannot write: said, exit 73 (as the daemon's start fails).
mkdir -p "$T/ro"
chmod 0755 "$T" "$T/ro"
if [ "$(id -u)" = 0 ]; then
	as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	uname=$(id -un 65534)
else
	chmod 0555 "$T/ro"
	as=()
	uname=$(id -un)
fi
"${as[@]}" "$RPD" -c /dev/null -D "$T/ro/rec" --check-config >"$T/ro.out" 2>"$T/ro.err"
check_eq "$?" 73 "an unwritable directory: exit 73"
check_grep "^ringprofd: Directory=$T/ro/rec: $T/ro is not writable by $uname \\(uid [0-9]+\\): " \
	"$T/ro.err" "an unwritable directory: which, and by whom"
check_grep "^# MaxUse=" "$T/ro.out" "the budgets are still resolved"
# With configuration errors too, the directory is checked and both said.
printf 'Frequency=fast\n' >"$T/bad1.conf"
"${as[@]}" "$RPD" -c "$T/bad1.conf" -D "$T/ro/rec" --check-config >/dev/null 2>"$T/both.err"
check_eq "$?" 78 "a bad file and an unwritable directory: exit 78"
check_grep "^ringprofd: $T/bad1.conf:1: Frequency=fast" "$T/both.err" "the file's error is said"
check_grep "is not writable by $uname" "$T/both.err" "and so is the directory's"
chmod 0755 "$T/ro"

# Not only --check-config: starting with a bad file fails the same way, before touching anything.
printf 'MaxUse=1G\nFrequency=-5\n' >"$T/bad.conf"
"$RPD" -c "$T/bad.conf" -D "$T/never" >"$T/out" 2>&1
check_eq "$?" 78 "start with a bad config: exit 78"
check_grep "^ringprofd: error: $T/bad.conf:2: Frequency=-5: " "$T/out" "start with a bad config: file:line"
[ ! -e "$T/never" ] || fail "a bad config must not create the directory"
ok "nothing created with a bad config"
# Under systemd the same message carries a syslog priority prefix.
INVOCATION_ID=test "$RPD" -c "$T/bad.conf" >"$T/out" 2>&1
check_grep "^<3>$T/bad.conf:2: Frequency=-5: " "$T/out" "journal priority prefix <3> for errors"

# ringprof record's spellings of the same settings.
"$RPD" -c /dev/null --freq 99 --mmap-pages 64 --cpu 0 --call-graph=dwarf,16384 --check-config >"$T/out" 2>&1 ||
	fail "record's spellings refused: $(head -3 "$T/out")"
for kv in Frequency=99 RingPages=64 CPUs=0 CallChain=yes UserStackSize=16384; do
	check_grep "^$kv\$" "$T/out" "record's spelling gives $kv"
done
"$RPD" -c /dev/null --call-graph=fp --check-config >"$T/out" 2>&1 || fail "--call-graph=fp refused"
check_grep '^UserStackSize=0$' "$T/out" "--call-graph=fp is frame pointers (UserStackSize=0)"
"$RPD" -c /dev/null --call-graph=lbr --check-config >"$T/out" 2>&1
check_grep "^ringprofd: unknown call-graph mode 'lbr'" "$T/out" "a bad --call-graph mode is named"
# --unwind-cache moves the table cache (-D does not): a daemon run by hand with its own
# directory needs no write access to /var/cache.
"$RPD" -c /dev/null -D "$T/rec" --unwind-cache "$T/uc" --check-config >"$T/out" 2>&1 || fail "--unwind-cache DIR refused"
check_grep "^UnwindCache=$T/uc\$" "$T/out" "--unwind-cache DIR sets UnwindCache="
"$RPD" -c /dev/null --unwind-cache no --check-config >"$T/out" 2>&1 || fail "--unwind-cache no refused"
check_grep '^UnwindCache=no$' "$T/out" "--unwind-cache no keeps no tables"
exit 0
