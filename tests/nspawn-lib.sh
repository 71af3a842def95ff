# nspawn-lib.sh — this machine's own OS booted with systemd-nspawn on a throw-away overlay,
# the tree installed into it, for the tests that need a real systemd PID 1 (sourced after
# tests/lib.sh, not run). nspawn_install builds and installs the tree into $DEST;
# nspawn_boot boots the container and sets P1 (its systemd); in_ct runs a command in it.
ROOT="$T/root"
DEST="$T/dest"
NSPID=""
P1=""
mkdir -p "$ROOT" "$DEST"

# nspawn_require: skip unless this test can boot a container here.
nspawn_require() {
	[ "$(id -u)" = 0 ] || skip "needs root (systemd-nspawn)"
	command -v systemd-nspawn >/dev/null || skip "systemd-nspawn is not installed (package systemd-container; setup.sh installs it)"
	case " ${CFLAGS:-} $(grep -m1 '^CFLAGS = ' "$top_builddir/Makefile" 2>/dev/null) " in
	*fsanitize*) skip "it builds and installs a plain tree of its own, so it runs once: in the plain build tree" ;;
	esac
}

# nspawn_install: the tree as a distribution would install it, in $DEST.
nspawn_install() {
	(cd "$T" && mkdir build && cd build &&
		"$top_srcdir/configure" -q --prefix=/usr --sysconfdir=/etc --localstatedir=/var >/dev/null &&
		make -j2 -s >/dev/null 2>&1 && make -s install DESTDIR="$DEST" >/dev/null 2>&1) ||
		fail "configure, build and make install DESTDIR of the tree"
	[ -x "$DEST/usr/sbin/ringprofd" ] && [ -f "$DEST/usr/lib/systemd/system/ringprofd.service" ] ||
		fail "make install put ringprofd and its unit in place"
}

# Leftovers of nspawn without a host systemd: cgroups it made and its runtime directory.
nspawn_cleanup() {
	local d s
	for d in systemd unified; do
		for s in payload supervisor; do
			[ -d "/sys/fs/cgroup/$d/$s" ] || continue
			find "/sys/fs/cgroup/$d/$s" -depth -type d -exec rmdir {} \; 2>/dev/null
		done
	done
	rm -rf /run/systemd/nspawn
}

stop_container() {
	[ -n "$NSPID" ] || return 0
	if kill -0 "$NSPID" 2>/dev/null; then
		[ -n "$P1" ] && nsenter -t "$P1" -a systemctl poweroff >/dev/null 2>&1
		for _ in $(seq 1 200); do kill -0 "$NSPID" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$NSPID" 2>/dev/null
	fi
	wait "$NSPID" 2>/dev/null
	NSPID=""
	nspawn_cleanup
}
trap 'stop_container; cleanup' EXIT

# Why nspawn may be unable to boot here, as unshare, mount and systemd-nspawn 252 word it: a
# reason (the skip names it) and the boot log's line for it. Any other exit before the boot
# is a failure of the test.
CANT_BOOT=(
	"no mount namespace for this process|unshare failed: Operation not permitted"
	"/ cannot be bind-mounted|^mount: .*(permission denied|[Oo]peration not permitted|must be superuser)"
	"namespaces refused to nspawn|(clone\(\) failed|Failed to fork (inner child|child pid)).*: (Operation not permitted|Permission denied|Invalid argument|No space left on device)"
	"no cgroup hierarchy nspawn can use|Failed to (determine whether the unified cgroups hierarchy is used|determine our own cgroup path|determine if /sys/fs/cgroup is already mounted|determine cgroup controllers|create .* subcgroup|chown\(\) cgroup)|is already mounted but not a unified cgroup hierarchy"
	"no pseudo-terminal for the console|Failed to allocate a pty"
	"no seccomp filter can be installed|Failed to install seccomp filter"
	"file systems cannot be mounted for the container|Failed to mount .*\\(type (overlay|proc|sysfs|tmpfs|cgroup2?|mqueue|devpts)\\).*: (Operation not permitted|Permission denied|No such device)"
)
nspawn_exited() {
	local r reason re line
	wait "$NSPID" 2>/dev/null
	r=$?
	NSPID=""
	for reason in "${CANT_BOOT[@]}"; do
		re=${reason#*|}
		line=$(grep -m1 -E -- "$re" "$T/boot.log") || continue
		skip "systemd-nspawn cannot boot this machine's OS here: ${reason%%|*} (boot log: $line)"
	done
	echo "--- boot log:" >&2
	tail -20 "$T/boot.log" >&2
	fail "systemd-nspawn exited ($r) before the container booted, for no reason this test knows as the machine's"
}

in_ct() { nsenter -t "$P1" -a "$@"; }

# nspawn_boot [NSPAWN-OPTIONS...]: the host's root bound (in a private mount namespace) and
# overlaid by tmpfs; $DEST bound read-only at /run/rp-dest, copied in once systemd runs (by
# the caller). The capabilities nspawn leaves out by default but a host's systemd has: those
# the unit grants beyond them. Extra options (--bind-ro=...) are passed on.
nspawn_boot() {
	local extra="" a
	for a in "$@"; do extra="$extra $(printf '%q' "$a")"; done
	cat >"$T/boot.sh" <<EOF
mount --bind / "$ROOT" || exit 1
exec systemd-nspawn -D "$ROOT" --volatile=overlay --boot --register=no --keep-unit \\
	--console=read-only --capability=CAP_PERFMON,CAP_SYSLOG,CAP_IPC_LOCK,CAP_CHECKPOINT_RESTORE \\
	--system-call-filter=perf_event_open --bind-ro="$DEST":/run/rp-dest $extra \\
	--machine=rp-$$ -- systemd.unit=basic.target
EOF
	nspawn_cleanup
	unshare -m --propagation private sh "$T/boot.sh" >"$T/boot.log" 2>&1 &
	NSPID=$!
	for _ in $(seq 1 300); do
		P1=$(pgrep -P "$NSPID" -x systemd | head -1)
		[ -n "$P1" ] && nsenter -t "$P1" -a systemctl is-system-running 2>/dev/null | grep -Eq '^(running|degraded)$' && break
		kill -0 "$NSPID" 2>/dev/null || nspawn_exited
		sleep 0.1
	done
	in_ct systemctl is-system-running 2>/dev/null | grep -Eq '^(running|degraded)$' || fail "the container's systemd came up (within 30 s)"
	ok "a real systemd PID 1 booted ($(in_ct systemctl --version | head -1))"
	in_ct cp -a /run/rp-dest/. / || fail "copying the installed tree into the container"
}
