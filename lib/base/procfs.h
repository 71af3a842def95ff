/* procfs.h — defensive readers for /proc (maps, kallsyms, comm, status, pid/tid lists, sysctls). */
#ifndef RP_PROCFS_H
#define RP_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Conventions of this module:
 * - Functions taking a PID build their path as "<root>/proc/PID/..." where <root> is set by
 *   procfs_set_root() (default "", the real /proc). Functions taking a path use it as given.
 * - Everything read from /proc is treated as untrusted data and validated.
 * - Errors are returned as -errno. A process that is gone typically gives -ENOENT (the
 *   directory vanished before open) or -ESRCH (it vanished after open); callers doing
 *   start-up synthesis should treat both as "skip this process", not as a failure.
 * - Out-parameters named ret_* are only written on success.
 * - Callbacks: a return value < 0 stops the iteration and is returned unchanged; any value
 *   >= 0 continues.
 */

/* One line of /proc/PID/maps. */
struct procfs_map {
	uint64_t start, end; /* [start, end) */
	uint64_t pgoff;	     /* BYTE file offset, as printed (hex) */
	uint32_t maj, min;   /* device, hex "fd:01" */
	uint64_t ino;
	uint32_t prot;	/* PROT_READ | PROT_WRITE | PROT_EXEC, from "r-xp" */
	uint32_t flags; /* MAP_PRIVATE ('p') or MAP_SHARED ('s') */
	bool deleted;	/* path ended in " (deleted)", which is stripped from path */
	/*
	 * Borrowed: points into the line passed to procfs_parse_maps_line() (or the reader's
	 * line buffer, valid only during the callback). "" for an anonymous mapping. May contain
	 * spaces. Pseudo-paths "[vdso]", "[heap]", "[stack]", "[anon:name]"... are kept as is.
	 */
	const char *path;
};

/*
 * Parse one maps line "start-end perms offset maj:min inode<padding>path" into *ret.
 * LINE is modified: a trailing '\n' and a " (deleted)" suffix are cut off with a NUL.
 *
 * Padding: the kernel pads the header with spaces to a fixed column (73 on 64-bit kernels,
 * 49 on 32-bit ones) and always leaves at least two spaces before a path. When the spaces
 * after the inode match that layout exactly, the path starts at the kernel's column, so a
 * path that itself begins with spaces keeps them. Otherwise (hand-written or re-formatted
 * lines) all spaces after the inode are skipped.
 *
 * Returns 0, or -EINVAL for a malformed line (missing fields, bad hex, more than 16 hex
 * digits, bad permissions, start > end); *ret is untouched then.
 */
int procfs_parse_maps_line(char *line, struct procfs_map *ret);

/* One line of /proc/kallsyms. */
struct procfs_ksym {
	uint64_t addr;	    /* 0 for every symbol when kptr_restrict hides addresses */
	char type;	    /* 'T', 't', 'D', ... */
	const char *name;   /* borrowed from the line */
	const char *module; /* borrowed, without brackets; NULL for the core kernel */
};

/*
 * Parse "ffffffff81000000 T _stext" or "ffffffffc0a01000 t foo\t[kvm]". LINE is modified
 * (NUL-terminates name and module, strips a trailing '\n'). Returns 0 or -EINVAL for a
 * malformed line (missing address, type or name, a name with spaces, a bad module suffix).
 * An all-zero address is valid; deciding whether addresses are usable is the caller's job.
 */
int procfs_parse_kallsyms_line(char *line, struct procfs_ksym *ret);

/*
 * Whole-file readers: one callback per parsed line, lines of any length. Malformed lines
 * (including empty lines and lines containing a NUL byte) are skipped and counted in
 * *ret_n_bad, which may be NULL and is written only when 0 is returned. Pointers handed to
 * the callback are valid only during the call. Returns 0, the callback's negative value, or
 * -errno from open/read (-ENOENT/-ESRCH: process gone, -EACCES: not permitted, -ENOMEM).
 */
int procfs_read_maps(int pid, int (*cb)(const struct procfs_map *m, void *arg), void *arg,
		     size_t *ret_n_bad);
int procfs_read_maps_file(const char *path, int (*cb)(const struct procfs_map *m, void *arg),
			  void *arg, size_t *ret_n_bad);
/* PATH is normally "/proc/kallsyms"; it is used as given (no root prefix). */
int procfs_read_kallsyms(const char *path, int (*cb)(const struct procfs_ksym *k, void *arg),
			 void *arg, size_t *ret_n_bad);

/*
 * Read <root>/proc/PID/task/TID/comm into BUF (SIZE > 0) without its trailing newline,
 * NUL-terminated; a longer name is truncated to SIZE - 1 bytes (kernel thread names can be
 * longer than TASK_COMM_LEN). BUF is untouched on failure. Returns 0 or -errno.
 */
int procfs_read_comm(int pid, int tid, char *buf, size_t size);

/*
 * Read "Tgid:" and "PPid:" from <root>/proc/PID/status (PID may be a thread id). Either
 * out-parameter may be NULL. Returns 0, -EINVAL when a field is missing or malformed, or
 * -errno.
 */
int procfs_read_status(int pid, int *ret_tgid, int *ret_ppid);

/*
 * Call CB for each numeric entry of <root>/proc (processes) or <root>/proc/PID/task
 * (threads), in ascending order. The list is a snapshot taken before the first callback:
 * entries may vanish before their callback runs, and the callback's reads then fail with
 * -ENOENT/-ESRCH, which it should treat as normal. Returns 0, the callback's negative value,
 * or -errno (for_each_tid: -ENOENT when the process is gone).
 */
int procfs_for_each_pid(int (*cb)(int pid, void *arg), void *arg);
int procfs_for_each_tid(int pid, int (*cb)(int tid, void *arg), void *arg);

/*
 * Set the directory that replaces "/" for the PID-based readers above and procfs_path(), for
 * tests with a fake tree ("<root>/proc/123/comm"). NULL or "" restores the real /proc. The
 * root is copied into a single static buffer: not thread-safe, call it before starting
 * threads. A root longer than PATH_MAX makes every later path -ENAMETOOLONG.
 */
void procfs_set_root(const char *root);

/*
 * Format "<root>" followed by FMT into BUF, e.g. procfs_path(buf, sizeof(buf),
 * "/sys/devices/system/cpu/online"). Returns 0 or -ENAMETOOLONG.
 */
int procfs_path(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/*
 * Read a small file such as /proc/sys/kernel/random/boot_id (PATH used as given, no root
 * prefix) into BUF (SIZE > 0): at most SIZE - 1 bytes, longer files are cut there, without
 * one trailing newline, NUL-terminated (the content may hold NUL bytes of its own). Reads
 * interrupted by a signal are retried. Returns the length, -EINVAL for bad arguments, or
 * -errno from open/read (-EISDIR for a directory).
 */
ssize_t procfs_read_file(const char *path, char *buf, size_t size);

/*
 * This process's vdso image: where the kernel mapped it (getauxval(AT_SYSINFO_EHDR)) and its
 * size (its [vdso] line in /proc/self/maps). Returns 0, or -ENOENT when there is none.
 */
int procfs_self_vdso(const void **ret, size_t *ret_size);

/*
 * Open the file mapped at START-END in process PID (PATH as the mapping names it), the way that
 * works in another mount namespace first: /proc/PID/map_files (the mapped file itself), then
 * /proc/PID/root + PATH, then PATH. With INO != 0 the file opened must be that inode on device
 * MAJ:MIN (on overlayfs, MAJ:MIN of the mount it is on: stat gives a lower layer's files a
 * device of their own); a way that gives another file is passed over for the next. Only a
 * regular file is opened, without blocking (a FIFO or device put where the file was is
 * refused). Returns a read-only, close-on-exec fd, or -1 with a sentence in WHY ("cannot open
 * it: ...", "the file on disk is not the one mapped"). Always the real /proc.
 */
/* The same, trying the ways from *WAY on (0 map_files, 1 /proc/PID/root + PATH, 2 PATH); *WAY
 * is set to the one that gave the fd. A caller that finds the file is still not the mapped one
 * (its build-id differs) tries again from *WAY + 1. */
#define PROCFS_MAPPED_WAYS 3
int procfs_open_mapped_from(uint32_t pid, uint64_t start, uint64_t end, const char *path,
			    uint32_t maj, uint32_t min, uint64_t ino, int *way, char *why,
			    size_t why_size);
int procfs_open_mapped(uint32_t pid, uint64_t start, uint64_t end, const char *path, uint32_t maj,
		       uint32_t min, uint64_t ino, char *why, size_t why_size);

/*
 * Read a file holding one decimal integer, such as /proc/sys/kernel/perf_event_paranoid
 * (PATH used as given). Surrounding whitespace is allowed. Returns 0, -EINVAL when it is not
 * a number, -ERANGE when it does not fit a long, or -errno.
 */
int procfs_read_int(const char *path, long *ret);

#endif
