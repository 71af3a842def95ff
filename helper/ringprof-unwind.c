/* ringprof-unwind.c — the unprivileged unwind-table builder: serves the recorder over a socket
 * (--fd, protocol in unwind/proto.h) or builds one table from a path (--build). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdbool.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/buildid.h"
#include "base/util.h"
#include "cli/cli.h"
#include "elf/utabbuild.h"
#include "elf/symcap.h"
#include "elf/elfdigest.h"
#include "unwind/proto.h"
#include "unwind/utab.h"

#define PROG "ringprof-unwind"
#define NOBODY 65534
#define HELPER_AS_LIMIT (1ull << 30) /* address space: libelf maps the whole binary */
/* Open files, and also the bound on descriptors in flight: every reply's memfd counts against
 * the sending user's RLIMIT_NOFILE until the recorder has read it (else sendmsg fails with
 * ETOOMANYREFS), and both helpers run as one user (nobody; under ringprofd's unit the
 * ringprof user, as the recorder) with up to UHELPER_QUEUE (64) replies each unread. The
 * seccomp filter allows no open(): descriptors come only from the recorder. */
#define HELPER_NOFILE 160

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: " PROG " --fd N\n"
		"       " PROG " --build FILE [-o OUT]\n"
		"       " PROG " --symbols FILE\n"
		"\n"
		"Builds compact unwind tables from the .eh_frame and .debug_frame of ELF files.\n"
		"\n"
		"  --fd N         serve the recorder on the SOCK_SEQPACKET socket N: drop every\n"
		"                 privilege, then answer each request (a binary's file descriptor)\n"
		"                 with a sealed memfd holding its table (or its build-id and\n"
		"                 function symbols), until the socket closes\n"
		"  --build FILE   build FILE's table and print what it holds and what it cost\n"
		"  -o, --output OUT  with --build: also write the table to OUT\n"
		"  --symbols FILE the function symbols the recorder would capture of FILE: how\n"
		"                 many, from which sections, their size and what it cost\n"
		"  -h, --help     this help\n");
}

/* ---- --build ---- */

static void print_kinds(const struct utabbuild_stats *st)
{
	for (unsigned k = UTAB_CFA_SP; k < UTAB_CFA_N; k++)
		printf("cfa-%-9s %u rows read (%.2f%%), %u table rows\n", utabbuild_cfa_name(k),
		       st->n_read_by_cfa[k],
		       st->n_rows_read ? 100.0 * st->n_read_by_cfa[k] / st->n_rows_read : 0.0,
		       st->n_rows_by_cfa[k]);
}

static void print_summary(const char *path, const struct utab *t, const struct utabbuild_stats *st,
			  size_t size)
{
	char id[41] = "none";

	if (t->hdr->build_id_len)
		buildid_to_hex(t->hdr->build_id, t->hdr->build_id_len, id);
	printf("file          %s\n", path);
	printf("build-id      %s\n", id);
	printf("sources       %s%s\n", t->hdr->flags & UTAB_F_EH_FRAME ? ".eh_frame " : "",
	       t->hdr->flags & UTAB_F_DEBUG_FRAME ? ".debug_frame" : "");
	printf("fdes          %u (%u from .eh_frame, %u skipped)\n", st->n_fdes, st->n_fdes_eh,
	       st->n_fdes_skipped);
	printf("rows-read     %u (%u dropped outside PT_LOAD)\n", st->n_rows_read,
	       st->n_rows_dropped);
	printf("rows          %u\n", t->n_rows);
	printf("rules         %u\n", t->n_rules);
	printf("bytes         %zu\n", size);
	printf("build-ms      %.2f\n", st->build_ns / 1e6);
	printf("work          %llu\n", (unsigned long long)st->work);
	if (st->n_plt_expanded)
		printf("plt-expanded  %u\n", st->n_plt_expanded);
	if (st->n_plt_stubs)
		printf("plt-stubs     %u\n", st->n_plt_stubs);
	print_kinds(st);
}

static int write_file(const char *path, const void *buf, size_t size)
{
	FILE *f = fopen(path, "wbe");

	if (!f || fwrite(buf, 1, size, f) != size) {
		fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	if (fclose(f) != 0) {
		fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int cmd_build(const char *path, const char *out)
{
	char why[256];
	struct utabbuild_stats st;
	struct utab t;
	void *buf;
	size_t size;
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;

	if (fd < 0) {
		fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
		return EXIT_FAILURE;
	}
	rc = utabbuild_fd(fd, &buf, &size, &st, why, sizeof(why));
	close(fd);
	if (rc < 0) {
		fprintf(stderr, PROG ": %s: %s\n", path, why);
		return EXIT_FAILURE;
	}
	if (utab_check(buf, size, &t, why, sizeof(why)) < 0) {
		fprintf(stderr, PROG ": %s: the table built is refused: %s\n", path, why);
		free(buf);
		return EXIT_FAILURE;
	}
	print_summary(path, &t, &st, size);
	rc = out ? write_file(out, buf, size) : 0;
	free(buf);
	return rc < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* --symbols FILE: what the recorder would capture of FILE's function symbols. */
static int cmd_symbols(const char *path)
{
	struct uwp_symtab_hdr h;
	char why[160];
	void *buf;
	size_t size;
	uint64_t t0 = util_now_ns();
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;

	if (fd < 0) {
		fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
		return EXIT_FAILURE;
	}
	rc = symcap_extract_fd(fd, &buf, &size, why, sizeof(why));
	close(fd);
	if (rc < 0) {
		fprintf(stderr, PROG ": %s: %s\n", path, why);
		return EXIT_FAILURE;
	}
	memcpy(&h, buf, sizeof(h));
	free(buf);
	printf("file          %s\n", path);
	printf("symbols       %u\n", h.n);
	printf("sources       %s%s%s\n", h.source & UWP_SYMS_SYMTAB ? ".symtab " : "",
	       h.source & UWP_SYMS_DYNSYM ? ".dynsym " : "",
	       h.source & UWP_SYMS_GNU_DEBUGDATA ? ".gnu_debugdata" : "");
	printf("bytes         %zu\n", size);
	printf("extract-ms    %.2f\n", (double)(util_now_ns() - t0) / 1e6);
	return EXIT_SUCCESS;
}

/* ---- --fd: privileges ---- */

/* Give up what root gives: the bounding set first (that needs CAP_SETPCAP, which the uid
 * change takes away), then the ids where CAP_SETUID/CAP_SETGID allow it. Under ringprofd's
 * unit the recorder is the ringprof user, not root: the helper starts as that user with no
 * capabilities (the recorder clears its ambient set before exec) and keeps its uid; what
 * holds it is then the system call filter below. */
static void drop_ids(void)
{
	for (int cap = 0; cap < 64; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno == EINVAL)
			break; /* past the last capability this kernel knows; EPERM: cannot */
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (geteuid() != 0 && getuid() != 0)
		return;
	setgroups(0, NULL);
	if (setresgid(NOBODY, NOBODY, NOBODY) == 0)
		setresuid(NOBODY, NOBODY, NOBODY);
}

static int drop_privileges(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2] = { { 0 } };
	const struct {
		int res;
		rlim_t lim;
	} limits[] = {
#ifndef __SANITIZE_ADDRESS__ /* AddressSanitizer's shadow memory is terabytes of address space */
		{ RLIMIT_AS, HELPER_AS_LIMIT },
#endif
		{ RLIMIT_CORE, 0 },
		{ RLIMIT_NOFILE, HELPER_NOFILE },
		{ RLIMIT_FSIZE, UWP_MAX_TABLE }, /* memfd writes count too */
		{ RLIMIT_NPROC, 0 },
	};

	drop_ids();
	/* A seccomp filter of the caller's (ringprofd's unit refuses @privileged, capset among
	 * them) may keep the capabilities: the filter installed below still allows no open(). */
	syscall(SYS_capset, &hdr, data);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		fprintf(stderr, PROG ": cannot set no_new_privs: %s\n", strerror(errno));
		return -1;
	}
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
		struct rlimit rl = { limits[i].lim, limits[i].lim };
		struct rlimit cur;

		/* Never raise a limit the caller set lower. */
		if (getrlimit(limits[i].res, &cur) == 0 && cur.rlim_max < rl.rlim_max)
			rl.rlim_cur = rl.rlim_max = cur.rlim_max;
		/* A caller's seccomp filter may refuse it (ringprofd's unit refuses @resources):
		 * the filter installed next is what keeps a hostile binary in. */
		setrlimit(limits[i].res, &rl);
	}
	return 0;
}

/* ---- --fd: the system calls left ---- */

/* The low 32 bits of system call argument N (x86-64 is little-endian). */
#define SC_ARG_LO(n) (offsetof(struct seccomp_data, args[n]))

#define SC_ALLOW(nr)                                                                               \
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1),                                           \
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

/*
 * What serving requests needs (strace of libelf and libdw building tables, glibc's malloc and
 * qsort, the replies): no open, no socket, no exec, no executable mappings. Anything else
 * kills the helper, which the recorder sees as EOF.
 *
 * readlink and readlinkat fail with EACCES instead. libdw's dwarf_begin_elf (the .debug_frame
 * path: Go binaries, C built with -fno-asynchronous-unwind-tables -g) takes realpath() of
 * /proc/self/fd/N, one readlink per path component, to know where a binary's companion files
 * (.dwo, the dwz alt file) would be; when that fails it goes on without a directory, and it
 * would need open() to read any of them anyway (strace of elfutils 0.188 on .debug_frame,
 * compressed .debug_frame and -gsplit-dwarf binaries: no other call). Failing the call loses
 * nothing, and allowing it would let the helper read where any symlink points; killing on it
 * cost every such binary its table. Nothing else gets an error: an unexpected call should
 * still end the helper, where tests/test-utab-build.c sees it.
 */
static int install_seccomp(void)
{
	const uint32_t self = (uint32_t)getpid();
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, __X32_SYSCALL_BIT, 4, 0), /* to the kill */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mmap, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mprotect, 0, 4),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2])),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, PROT_EXEC, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		/* tgkill: to itself only (abort(), a sanitizer's report), never to the recorder */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_tgkill, 0, 4),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SC_ARG_LO(0)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, self, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		/* fcntl: the commands glibc and the memfd replies use, nothing that locks, leases,
		 * duplicates or asks for signals */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_fcntl, 0, 7),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SC_ARG_LO(1)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, F_GETFD, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, F_GETFL, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, F_ADD_SEALS, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, F_GET_SEALS, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		/* newfstatat: as glibc's fstat() calls it, of a descriptor (AT_EMPTY_PATH) */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_newfstatat, 0, 4),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SC_ARG_LO(3)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AT_EMPTY_PATH, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		SC_ALLOW(__NR_read),
		SC_ALLOW(__NR_write),
		SC_ALLOW(__NR_pread64),
		SC_ALLOW(__NR_lseek),
		SC_ALLOW(__NR_recvmsg),
		SC_ALLOW(__NR_sendmsg),
		SC_ALLOW(__NR_close),
		SC_ALLOW(__NR_fstat),
		SC_ALLOW(__NR_memfd_create),
		SC_ALLOW(__NR_ftruncate),
		SC_ALLOW(__NR_munmap),
		SC_ALLOW(__NR_mremap),
		SC_ALLOW(__NR_madvise),
		SC_ALLOW(__NR_brk),
		SC_ALLOW(__NR_futex),
		SC_ALLOW(__NR_getrandom),
		SC_ALLOW(__NR_clock_gettime),
		SC_ALLOW(__NR_sysinfo), /* qsort of large arrays asks for the memory size */
		SC_ALLOW(__NR_rt_sigreturn),
		SC_ALLOW(__NR_rt_sigprocmask), /* abort() */
		SC_ALLOW(__NR_getpid),
		SC_ALLOW(__NR_gettid),
		SC_ALLOW(__NR_sigaltstack), /* a sanitizer build's thread exit */
		SC_ALLOW(__NR_exit),
		SC_ALLOW(__NR_exit_group),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_readlink, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_readlinkat, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0) {
		fprintf(stderr, PROG ": cannot install the system call filter: %s\n",
			strerror(errno));
		return -1;
	}
	return 0;
}

/* ---- --fd: the protocol ---- */

/* One message: its bytes in *req and their count in *ret_n, the first fd it carried in
 * *ret_fd (-1 if none), every other fd closed. 1, 0 at EOF, or -errno (the socket failed). */
static int recv_request(int sock, struct uwp_request *req, size_t *ret_n, int *ret_fd)
{
	bool trunc;
	ssize_t n;

	memset(req, 0, sizeof(*req));
	n = uwp_recv(sock, req, sizeof(*req), 0, ret_fd, &trunc);
	if (n < 0)
		return -errno;
	/* SOCK_SEQPACKET: no bytes and no fd is the peer's EOF. A longer message than a
	 * request is cut (MSG_TRUNC) and answered as a bad request. */
	if (n == 0 && *ret_fd < 0)
		return 0;
	*ret_n = trunc ? sizeof(*req) + 1 : (size_t)n;
	return 1;
}

/* The table in a sealed memfd; -errno with why. */
static int table_memfd(const void *buf, size_t size, char *why, size_t why_size)
{
	int fd = memfd_create("ringprof-utab", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	const char *p = buf;
	int rc;

	if (fd < 0) {
		rc = -errno;
		snprintf(why, why_size, "memfd_create: %s", strerror(errno));
		return rc;
	}
	for (size_t done = 0; done < size;) {
		ssize_t n = write(fd, p + done, size - done);

		if (n <= 0) {
			rc = n < 0 ? -errno : -EIO;
			snprintf(why, why_size, "writing the table: %s", strerror(-rc));
			close(fd);
			return rc;
		}
		done += (size_t)n;
	}
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0) {
		rc = -errno;
		snprintf(why, why_size, "sealing the table: %s", strerror(errno));
		close(fd);
		return rc;
	}
	return fd;
}

static int send_reply(int sock, const struct uwp_reply *rep, int fd)
{
	return uwp_send(sock, rep, sizeof(*rep), fd, 0) == (ssize_t)sizeof(*rep) ? 0 : -1;
}

/* Only the build-id of bin_fd: -1 (no table attached), status 0 or -ENOENT when it has none. */
static int build_id_reply(int bin_fd, struct uwp_reply *rep)
{
	size_t len = 0;
	int rc = buildid_read_fd(bin_fd, rep->build_id, sizeof(rep->build_id), &len);

	if (rc < 0 || len == 0 || len > sizeof(rep->build_id)) {
		rep->status = rc < 0 ? rc : -ENOENT;
		if (rep->status == -ENOENT)
			snprintf(rep->why, sizeof(rep->why), "the file has no build-id note");
		else
			snprintf(rep->why, sizeof(rep->why), "its build-id could not be read: %s",
				 strerror(-rep->status));
		return -1;
	}
	rep->build_id_len = (uint8_t)len;
	return -1;
}

/* The build-id of bin_fd and its function symbols in a sealed memfd (returned; -1 with
 * rep->sym_status when it has none to send). Only binaries with a build-id get symbols: the
 * recorder keeps them by build-id. */
static int build_id_syms_reply(int bin_fd, struct uwp_reply *rep)
{
	char why[160];
	void *buf;
	size_t size;
	int rc;

	build_id_reply(bin_fd, rep);
	if (rep->status < 0)
		return -1;
	rc = symcap_extract_fd(bin_fd, &buf, &size, why, sizeof(why));
	if (rc < 0) {
		rep->sym_status = rc;
		return -1;
	}
	rc = table_memfd(buf, size, why, sizeof(why));
	free(buf);
	if (rc < 0) {
		rep->sym_status = rc;
		return -1;
	}
	rep->size = size;
	return rc;
}

/* UWP_TABLE_SYMS: the function symbols of bin_fd after the table (size bytes at *buf), when it
 * has a build-id (the recorder keeps them by build-id); rep->sym_status says what came of it. */
static void append_syms(int bin_fd, struct uwp_reply *rep, void **buf, size_t size)
{
	char why[160];
	void *syms, *both;
	size_t n;
	int rc;

	if (!rep->build_id_len) {
		rep->sym_status = -ENOENT;
		return;
	}
	rc = symcap_extract_fd(bin_fd, &syms, &n, why, sizeof(why));
	if (rc < 0) {
		rep->sym_status = rc;
		return;
	}
	both = realloc(*buf, size + n);
	if (!both) {
		free(syms);
		rep->sym_status = -ENOMEM;
		return;
	}
	memcpy((char *)both + size, syms, n);
	free(syms);
	*buf = both;
	rep->sym_size = n;
}

/* Build the table of bin_fd into a sealed memfd (returned, or -1 with rep's status and why). */
static int build_reply(const struct uwp_request *req, size_t n, int bin_fd, struct uwp_reply *rep)
{
	struct stat st;
	struct utab t;
	void *buf;
	size_t size;
	int rc;

	if (n != sizeof(*req) || req->magic != UWP_MAGIC) {
		rep->status = -EINVAL;
		snprintf(rep->why, sizeof(rep->why),
			 "bad request (%zu bytes, magic %#x): the recorder and the helper differ",
			 n, req->magic);
		return -1;
	}
	if (bin_fd < 0 || fstat(bin_fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		rep->status = bin_fd < 0 ? -EBADF : -ENOEXEC;
		snprintf(rep->why, sizeof(rep->why), "%s",
			 bin_fd < 0 ? "no file descriptor came with the request"
				    : "not an ELF file (not a regular file)");
		return -1;
	}
	/* One digest per file, whatever it is asked for: tables and symbols are kept under it. */
	{
		uint8_t d[SHA256_LEN];

		if (elfdigest_fd(bin_fd, d) == 0) {
			memcpy(rep->digest, d, UWP_DIGEST_LEN);
			rep->digest_len = UWP_DIGEST_LEN;
		}
	}
	if (req->kind == UWP_BUILD_ID)
		return build_id_reply(bin_fd, rep);
	if (req->kind == UWP_BUILD_ID_SYMS)
		return build_id_syms_reply(bin_fd, rep);
	if (req->kind != UWP_TABLE && req->kind != UWP_TABLE_SYMS) {
		rep->status = -EINVAL;
		snprintf(rep->why, sizeof(rep->why), "unknown request kind %u", req->kind);
		return -1;
	}
	rc = utabbuild_fd(bin_fd, &buf, &size, NULL, rep->why, sizeof(rep->why));
	if (rc < 0) {
		rep->status = rc;
		return -1;
	}
	if (size > UWP_MAX_TABLE) {
		rc = -E2BIG;
		snprintf(rep->why, sizeof(rep->why), "the table would be %zu bytes, more than %u",
			 size, UWP_MAX_TABLE);
	} else if (utab_check(buf, size, &t, rep->why, sizeof(rep->why)) < 0) {
		rc = -EPROTO; /* never send what the recorder would refuse */
	} else {
		rep->build_id_len = t.hdr->build_id_len; /* t points into buf */
		memcpy(rep->build_id, t.hdr->build_id, sizeof(rep->build_id));
		if (req->kind == UWP_TABLE_SYMS)
			append_syms(bin_fd, rep, &buf, size);
		rc = table_memfd(buf, size + rep->sym_size, rep->why, sizeof(rep->why));
	}
	free(buf);
	if (rc < 0) {
		rep->status = rc;
		return -1;
	}
	rep->size = size;
	return rc;
}

/*
 * A file that shrinks while it is read through a mapping (libelf reads with mmap) raises
 * SIGBUS: its owner could kill the helper at will that way, and pause it for everyone after a
 * few times (uhelper's budget). The request fails instead, saying why. What libelf had
 * allocated for that file is lost: after BUS_MAX such failures the helper exits (the recorder
 * starts a new one), so the loss stays bounded.
 */
#define BUS_MAX 8
static sigjmp_buf bus_jmp;
static volatile sig_atomic_t bus_armed;

static void on_bus(int sig)
{
	if (bus_armed) {
		bus_armed = 0;
		siglongjmp(bus_jmp, 1);
	}
	_exit(128 + sig); /* outside a request: no way to go on (the filter forbids sigaction) */
}

/* Answer one request into rep: the memfd to attach, or -1. */
static int answer(const struct uwp_request *req, size_t n, int bin_fd, struct uwp_reply *rep,
		  unsigned *buses)
{
	int mfd;

	if (sigsetjmp(bus_jmp, 1)) {
		memset(rep, 0, sizeof(*rep));
		rep->magic = UWP_MAGIC;
		rep->id = req->id;
		rep->status = -EIO;
		snprintf(rep->why, sizeof(rep->why),
			 "the file changed while it was read (it shrank under the helper: SIGBUS)");
		(*buses)++;
		return -1;
	}
	bus_armed = 1;
	mfd = build_reply(req, n, bin_fd, rep);
	bus_armed = 0;
	return mfd;
}

/* Answer requests in order until the socket closes. */
static int serve(int sock)
{
	unsigned buses = 0;

	for (;;) {
		struct uwp_request req;
		struct uwp_reply rep;
		size_t n = 0;
		int bin_fd, mfd, rc;
		uint64_t t0;

		rc = recv_request(sock, &req, &n, &bin_fd);
		if (rc <= 0) {
			if (rc < 0)
				fprintf(stderr, PROG ": reading requests: %s\n", strerror(-rc));
			return rc < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
		}
		t0 = util_now_ns();
		memset(&rep, 0, sizeof(rep));
		rep.magic = UWP_MAGIC;
		rep.id = req.id;
		mfd = answer(&req, n, bin_fd, &rep, &buses);
		rep.build_ns = util_now_ns() - t0;
		if (bin_fd >= 0)
			close(bin_fd);
		rc = send_reply(sock, &rep, mfd);
		if (mfd >= 0)
			close(mfd);
		if (rc < 0)
			return EXIT_FAILURE; /* the recorder is gone */
		if (buses >= BUS_MAX)
			return EXIT_FAILURE; /* a new helper, without what the faults left behind */
	}
}

static int cmd_serve(const char *arg)
{
	uint64_t v;
	int sock, type;
	socklen_t len = sizeof(type);

	if (util_parse_u64(arg, &v) < 0 || v > INT32_MAX ||
	    getsockopt((int)v, SOL_SOCKET, SO_TYPE, &type, &len) < 0 || type != SOCK_SEQPACKET) {
		fprintf(stderr, PROG ": --fd %s: not a SOCK_SEQPACKET socket\n", arg);
		return EXIT_USAGE;
	}
	sock = (int)v;
	/* Nothing inherited but stdio and the socket. */
	if (sock > 3)
		close_range(3, (unsigned)sock - 1, 0);
	close_range((unsigned)sock + 1, ~0u, 0);
	/* A write past RLIMIT_FSIZE (a reply's memfd) fails with EFBIG, and that request with it,
	 * instead of killing the helper with SIGXFSZ. */
	signal(SIGXFSZ, SIG_IGN);
	{
		struct sigaction sa = { .sa_handler = on_bus };

		sigemptyset(&sa.sa_mask);
		sigaction(SIGBUS, &sa, NULL);
	}
	if (drop_privileges() < 0 || install_seccomp() < 0)
		return EXIT_FAILURE;
	/* No exit handlers under the filter: nothing is buffered, and what atexit() would run
	 * (LeakSanitizer's check in a sanitizer build stops the world with ptrace) is refused. */
	_exit(serve(sock));
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "fd", required_argument, NULL, 'f' },
		{ "build", required_argument, NULL, 'b' },
		{ "output", required_argument, NULL, 'o' },
		{ "symbols", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *fd = NULL, *build = NULL, *out = NULL, *syms = NULL;
	int c;

	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			fd = optarg;
			break;
		case 'b':
			build = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 's':
			syms = optarg;
			break;
		case 'h':
			usage(stdout);
			return EXIT_SUCCESS;
		default:
			fprintf(stderr, "Try '" PROG " --help'.\n");
			return EXIT_USAGE;
		}
	}
	if (syms && optind == argc && !fd && !build && !out)
		return cmd_symbols(syms);
	if (optind < argc || syms || !fd == !build || (out && !build)) {
		fprintf(stderr, PROG ": give either --fd N or --build FILE [-o OUT]\n"
				     "Try '" PROG " --help'.\n");
		return EXIT_USAGE;
	}
	return fd ? cmd_serve(fd) : cmd_build(build, out);
}
