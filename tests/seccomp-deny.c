/* seccomp-deny.c — run a command under a seccomp filter that fails perf_event_open with EPERM,
 * as container runtimes and systemd's SystemCallFilter= without @debug do. */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define RP_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define RP_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

int main(int argc, char **argv)
{
#ifdef RP_AUDIT_ARCH
	struct sock_filter f[] = {
		/* Another architecture's system call numbers mean other calls: allowed. */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, RP_AUDIT_ARCH, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_perf_event_open, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	if (argc < 2) {
		fprintf(stderr, "usage: seccomp-deny COMMAND [ARGS...]\n");
		return 2;
	}
	/* no_new_privs lets any user install a filter; it is inherited across exec, and so
	 * is the filter. Root keeps its capabilities. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0) {
		fprintf(stderr, "seccomp-deny: cannot install the filter: %s\n", strerror(errno));
		return 77;
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "seccomp-deny: %s: %s\n", argv[1], strerror(errno));
	return 127;
#else
	(void)argc;
	(void)argv;
	fprintf(stderr, "seccomp-deny: no seccomp architecture constant for this machine\n");
	return 77;
#endif
}
