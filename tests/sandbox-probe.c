/* sandbox-probe.c — what a process in ringprofd's sandbox could do with code execution: try each
 * known route from the unit's privileges to kernel tunables or to root's processes, and say
 * for each whether it was open. Nothing is written: a route is open when the file opens for
 * writing, the process attaches, the copy reaches the other address space (at an unmapped
 * address: EFAULT) or the descriptor arrives; whatever was obtained is closed at once. The
 * positive controls (another process's maps, /proc/kallsyms addresses) show that the
 * capabilities the recorder needs are in force, so that a denial is not a lack of them.
 *
 * Usage: sandbox-probe [PID [DIR]]: the target process (default 1, a root process) and a
 * directory of root's in its view of the file system (default /etc) where creating a file is
 * tried (and the file removed at once).
 *
 * Output, one line each: "sandbox-probe: NAME: allowed" or "sandbox-probe: NAME: denied
 * (ERRNO-NAME)", after "sandbox-probe: uid=U gid=G groups=... CapEff=... Seccomp=N".
 * Used by tests/daemon-systemd.sh as an ExecStartPre= of ringprofd.service (the same user,
 * capabilities, system call filter and mounts as the daemon) and by daemon-privilege.sh. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434
#endif
#ifndef __NR_pidfd_getfd
#define __NR_pidfd_getfd 438
#endif

static const char *errname(int e)
{
	switch (e) {
	case EACCES:
		return "EACCES";
	case EPERM:
		return "EPERM";
	case EROFS:
		return "EROFS";
	case ENOENT:
		return "ENOENT";
	case ESRCH:
		return "ESRCH";
	case ENOSYS:
		return "ENOSYS";
	case EFAULT:
		return "EFAULT";
	case EINVAL:
		return "EINVAL";
	case ESTALE:
		return "ESTALE";
	case EOPNOTSUPP:
		return "EOPNOTSUPP";
	default:
		return "other";
	}
}

static void report(const char *name, int err)
{
	if (err)
		printf("sandbox-probe: %s: denied (%s: %s)\n", name, errname(err), strerror(err));
	else
		printf("sandbox-probe: %s: allowed\n", name);
}

/* A route by opening PATH with FLAGS; a file that opens is closed unwritten. */
static void try_open(const char *name, const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC, 0600);

	if (fd >= 0) {
		close(fd);
		if (flags & O_CREAT)
			unlink(path);
	}
	report(name, fd >= 0 ? 0 : errno);
}

static void identity(void)
{
	char buf[8192], line[256];
	gid_t groups[64];
	int n = getgroups(64, groups);
	FILE *f;

	printf("sandbox-probe: uid=%u euid=%u gid=%u groups=", (unsigned)getuid(),
	       (unsigned)geteuid(), (unsigned)getgid());
	for (int i = 0; i < n; i++)
		printf("%s%u", i ? "," : "", (unsigned)groups[i]);
	f = fopen("/proc/self/status", "r");
	buf[0] = 0;
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "CapEff:", 7) || !strncmp(line, "CapBnd:", 7) ||
		    !strncmp(line, "CapAmb:", 7) || !strncmp(line, "Seccomp:", 8) ||
		    !strncmp(line, "NoNewPrivs:", 11)) {
			char *k = line, *v = strchr(line, ':');

			*v++ = 0;
			v += strspn(v, " \t");
			v[strcspn(v, "\n")] = 0;
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), " %s=%s", k, v);
		}
	if (f)
		fclose(f);
	printf("%s\n", buf);
}

/* Positive control: the first address in /proc/kallsyms is not zero (CAP_SYSLOG or
 * kptr_restrict 0). */
static void kallsyms(void)
{
	char line[256];
	FILE *f = fopen("/proc/kallsyms", "r");
	int err = f ? 0 : errno;

	if (f) {
		if (!fgets(line, sizeof(line), f) || strspn(line, "0") >= 16)
			err = EACCES;
		fclose(f);
	}
	report("read real addresses in /proc/kallsyms", err);
}

/* name_to_handle_at, then open_by_handle_at for writing on a descriptor of the same mount.
 * Where the file system gives no handles (overlayfs: EOPNOTSUPP), a made-up one still shows
 * whether the call itself is refused (EPERM: a filter, or no CAP_DAC_READ_SEARCH). */
static void by_handle(const char *name, const char *path)
{
	struct {
		struct file_handle fh;
		unsigned char buf[MAX_HANDLE_SZ];
	} h;
	char dir[256];
	int mount_id, mfd, fd;

	memset(&h, 0, sizeof(h));
	h.fh.handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(AT_FDCWD, path, &h.fh, &mount_id, 0) < 0) {
		memset(&h, 0, sizeof(h));
		h.fh.handle_bytes = 8;
		h.fh.handle_type = 1;
	}
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = 0;
	mfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (mfd < 0) {
		report(name, errno);
		return;
	}
	fd = open_by_handle_at(mfd, &h.fh, O_WRONLY | O_CLOEXEC);
	report(name, fd >= 0 ? 0 : errno);
	if (fd >= 0)
		close(fd);
	close(mfd);
}

int main(int argc, char **argv)
{
	const char *target = argc > 1 ? argv[1] : "1";
	const char *rootdir = argc > 2 ? argv[2] : "/etc";
	pid_t pid = (pid_t)atoi(target);
	char path[256], byte = 0;
	struct iovec local = { &byte, 1 }, remote = { NULL, 1 };
	int pidfd, fd;
	long r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	identity();

	/* Positive controls: what recording needs. */
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	try_open("read /proc/PID/maps of the target", path, O_RDONLY);
	snprintf(path, sizeof(path), "/proc/%d/root/usr", (int)pid);
	try_open("enter /proc/PID/root of the target", path, O_RDONLY | O_DIRECTORY);
	kallsyms();

	/* Kernel tunables: directly (this sandbox's /proc) and through the target's root. */
	try_open("write /proc/sys/kernel/core_pattern", "/proc/sys/kernel/core_pattern", O_WRONLY);
	snprintf(path, sizeof(path), "/proc/%d/root/proc/sys/kernel/core_pattern", (int)pid);
	try_open("write /proc/PID/root/proc/sys/kernel/core_pattern", path, O_WRONLY);
	try_open("write /sys/kernel/profiling", "/sys/kernel/profiling", O_WRONLY);
	snprintf(path, sizeof(path), "/proc/%d/root/sys/kernel/profiling", (int)pid);
	try_open("write /proc/PID/root/sys/kernel/profiling", path, O_WRONLY);
	/* The target's file system, outside ProtectSystem=: a directory of root's (0755). */
	snprintf(path, sizeof(path), "/proc/%d/root%s/ringprof-sandbox-probe.%d", (int)pid, rootdir,
		 (int)getpid());
	try_open("create a file in root's directory through /proc/PID/root", path,
		 O_WRONLY | O_CREAT | O_EXCL);

	/* A handle reopens a file past every mount of this sandbox (CAP_DAC_READ_SEARCH). */
	snprintf(path, sizeof(path), "/proc/%d/root/etc/passwd", (int)pid);
	by_handle("open /proc/PID/root/etc/passwd by handle for writing", path);

	/* The target's memory. */
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	try_open("open /proc/PID/mem for writing", path, O_RDWR);
	/* PTRACE_SEIZE: the permission check of PTRACE_ATTACH without stopping the target; the
	 * exit detaches. */
	r = ptrace(PTRACE_SEIZE, pid, NULL, NULL);
	report("ptrace attach (PTRACE_SEIZE) the target", r == 0 ? 0 : errno);
	/* To address 0, unmapped: EFAULT means the copy was allowed and nothing was written. */
	r = process_vm_writev(pid, &local, 1, &remote, 1, 0);
	report("process_vm_writev to the target", r >= 0 || errno == EFAULT ? 0 : errno);
	r = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	report("process_vm_readv from the target", r >= 0 || errno == EFAULT ? 0 : errno);
	pidfd = (int)syscall(__NR_pidfd_open, pid, 0);
	if (pidfd < 0) {
		report("pidfd_open of the target (for pidfd_getfd)", errno);
	} else {
		fd = (int)syscall(__NR_pidfd_getfd, pidfd, 0, 0);
		report("pidfd_getfd from the target", fd >= 0 ? 0 : errno);
		if (fd >= 0)
			close(fd);
		close(pidfd);
	}
	return 0;
}
