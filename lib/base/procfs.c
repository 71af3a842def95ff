/* procfs.c — defensive readers for /proc (maps, kallsyms, comm, status, pid/tid lists, sysctls). */
#include "base/procfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <unistd.h>

/* "" means the real /proc; a root filling the whole buffer was too long (see procfs_path). */
static char procfs_root[PATH_MAX];

void procfs_set_root(const char *root)
{
	size_t n;

	if (!root)
		root = "";
	n = strnlen(root, sizeof(procfs_root) - 1);
	memcpy(procfs_root, root, n);
	procfs_root[n] = '\0';
}

int procfs_path(char *buf, size_t size, const char *fmt, ...)
{
	size_t n = strlen(procfs_root);
	va_list ap;
	int r;

	/* A root of PATH_MAX - 1 bytes leaves no room for "/proc": it was truncated or useless. */
	if (n >= sizeof(procfs_root) - 1 || n >= size)
		return -ENAMETOOLONG;
	memcpy(buf, procfs_root, n);
	va_start(ap, fmt);
	r = vsnprintf(buf + n, size - n, fmt, ap);
	va_end(ap);
	if (r < 0 || (size_t)r >= size - n)
		return -ENAMETOOLONG;
	return 0;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* 1..MAX_DIGITS hex digits; no prefix, sign or leading blanks (unlike strtoull). */
static bool get_hex(const char **p, unsigned int max_digits, uint64_t *ret)
{
	const char *s = *p;
	uint64_t v = 0;
	unsigned int n;
	int d;

	for (n = 0; (d = hex_digit(*s)) >= 0; n++, s++) {
		if (n == max_digits)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	if (n == 0)
		return false;
	*p = s;
	*ret = v;
	return true;
}

/* 1 or more decimal digits, at most MAX. */
static bool get_dec(const char **p, uint64_t max, uint64_t *ret)
{
	const char *s = *p;
	uint64_t v = 0;

	if (*s < '0' || *s > '9')
		return false;
	for (; *s >= '0' && *s <= '9'; s++) {
		unsigned int d = (unsigned int)(*s - '0');

		if (v > (max - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*p = s;
	*ret = v;
	return true;
}

static bool skip_char(const char **p, char c)
{
	if (**p != c)
		return false;
	(*p)++;
	return true;
}

/* "r-xp": exactly four characters, each from its own pair. */
static bool get_perms(const char **p, uint32_t *ret_prot, uint32_t *ret_flags)
{
	const char *s = *p;
	uint32_t prot = 0;

	if ((s[0] != 'r' && s[0] != '-') || (s[1] != 'w' && s[1] != '-') ||
	    (s[2] != 'x' && s[2] != '-') || (s[3] != 'p' && s[3] != 's'))
		return false;
	if (s[0] == 'r')
		prot |= PROT_READ;
	if (s[1] == 'w')
		prot |= PROT_WRITE;
	if (s[2] == 'x')
		prot |= PROT_EXEC;
	*ret_flags = s[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	*ret_prot = prot;
	*p = s + 4;
	return true;
}

static bool all_spaces(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ')
			return false;
	return true;
}

/*
 * Where the path starts, given the header length HL (up to and including the space after
 * the inode) and the line length LEN. The kernel (show_vma_header_prefix + seq_pad) pads the
 * header to 25 + 6 * sizeof(void *) - 1 columns, then writes one more space: the path
 * starts at max(HL, width) + 1. The 64-bit layout is tried first; the 32-bit one cannot be
 * mistaken for it because its path would have to begin with spaces up to column 73.
 */
static size_t maps_path_start(const char *line, size_t hl, size_t len)
{
	static const size_t widths[] = { 25 + 6 * 8 - 1, 25 + 6 * 4 - 1 };

	for (size_t i = 0; i < sizeof(widths) / sizeof(widths[0]); i++) {
		size_t ps = (hl > widths[i] ? hl : widths[i]) + 1;

		if (ps < len && all_spaces(line + hl, ps - hl))
			return ps;
	}
	while (hl < len && line[hl] == ' ')
		hl++;
	return hl;
}

int procfs_parse_maps_line(char *line, struct procfs_map *ret)
{
	static const char deleted[] = " (deleted)";
	const size_t deleted_len = sizeof(deleted) - 1;
	struct procfs_map m = { 0 };
	const char *p = line;
	uint64_t maj, min;
	size_t len, hl, ps, path_len;

	len = strlen(line);
	if (len > 0 && line[len - 1] == '\n')
		len--;

	if (!get_hex(&p, 16, &m.start) || !skip_char(&p, '-') || !get_hex(&p, 16, &m.end) ||
	    !skip_char(&p, ' ') || !get_perms(&p, &m.prot, &m.flags) || !skip_char(&p, ' ') ||
	    !get_hex(&p, 16, &m.pgoff) || !skip_char(&p, ' ') || !get_hex(&p, 8, &maj) ||
	    !skip_char(&p, ':') || !get_hex(&p, 8, &min) || !skip_char(&p, ' ') ||
	    !get_dec(&p, UINT64_MAX, &m.ino))
		return -EINVAL;
	if (m.start > m.end)
		return -EINVAL;

	hl = (size_t)(p - line);
	if (hl < len) {
		/* Anything after the inode must be separated by a space. */
		if (line[hl] != ' ')
			return -EINVAL;
		hl++;
	}
	ps = maps_path_start(line, hl, len);
	path_len = len - ps;
	if (path_len > deleted_len && !memcmp(line + len - deleted_len, deleted, deleted_len)) {
		m.deleted = true;
		path_len -= deleted_len;
	}

	line[ps + path_len] = '\0';
	m.path = line + ps;
	m.maj = (uint32_t)maj;
	m.min = (uint32_t)min;
	*ret = m;
	return 0;
}

/* Printable ASCII other than space. */
static bool is_graph(char c)
{
	return c > ' ' && c < 0x7f;
}

int procfs_parse_kallsyms_line(char *line, struct procfs_ksym *ret)
{
	const char *p = line;
	size_t len, i, name, module = 0;
	uint64_t addr;
	char type;

	len = strlen(line);
	if (len > 0 && line[len - 1] == '\n')
		len--;

	if (!get_hex(&p, 16, &addr) || !skip_char(&p, ' '))
		return -EINVAL;
	type = *p;
	if (!is_graph(type))
		return -EINVAL;
	p++;
	if (!skip_char(&p, ' '))
		return -EINVAL;

	/* Symbol names never contain blanks; a module follows a tab, in brackets: "\t[kvm]". */
	name = (size_t)(p - line);
	for (i = name; i < len && line[i] != '\t'; i++)
		if (!is_graph(line[i]))
			return -EINVAL;
	if (i == name)
		return -EINVAL;
	if (i < len) {
		module = i + 2;
		if (module >= len || line[i + 1] != '[' || line[len - 1] != ']')
			return -EINVAL;
		for (size_t j = module; j < len - 1; j++)
			if (!is_graph(line[j]) || line[j] == '[' || line[j] == ']')
				return -EINVAL;
		if (module == len - 1)
			return -EINVAL;
		line[len - 1] = '\0';
	}
	line[i] = '\0';

	ret->addr = addr;
	ret->type = type;
	ret->name = line + name;
	ret->module = module ? line + module : NULL;
	return 0;
}

/*
 * Call LINE_FN for each line of PATH. LINE_FN returns 0 for a good line, 1 for a malformed
 * one (counted), < 0 to stop.
 */
static int read_lines(const char *path, int (*line_fn)(char *line, void *ctx), void *ctx,
		      size_t *ret_n_bad)
{
	size_t n_bad = 0, cap = 0;
	char *line = NULL;
	ssize_t n;
	FILE *f;
	int r = 0;

	f = fopen(path, "re");
	if (!f)
		return -errno;
	for (;;) {
		errno = 0;
		n = getline(&line, &cap, f);
		if (n < 0) {
			if (ferror(f))
				r = errno > 0 ? -errno : -EIO;
			break;
		}
		if (strlen(line) != (size_t)n) {
			n_bad++; /* an embedded NUL would hide the rest of the line */
			continue;
		}
		r = line_fn(line, ctx);
		if (r < 0)
			break;
		if (r > 0)
			n_bad++;
		r = 0;
	}
	free(line);
	fclose(f);
	if (r == 0 && ret_n_bad)
		*ret_n_bad = n_bad;
	return r;
}

struct maps_ctx {
	int (*cb)(const struct procfs_map *m, void *arg);
	void *arg;
};

static int maps_line(char *line, void *ctx)
{
	struct maps_ctx *c = ctx;
	struct procfs_map m;
	int r;

	if (procfs_parse_maps_line(line, &m) < 0)
		return 1;
	r = c->cb(&m, c->arg);
	return r < 0 ? r : 0;
}

int procfs_read_maps_file(const char *path, int (*cb)(const struct procfs_map *m, void *arg),
			  void *arg, size_t *ret_n_bad)
{
	struct maps_ctx c = { .cb = cb, .arg = arg };

	if (!path || !cb)
		return -EINVAL;
	return read_lines(path, maps_line, &c, ret_n_bad);
}

int procfs_read_maps(int pid, int (*cb)(const struct procfs_map *m, void *arg), void *arg,
		     size_t *ret_n_bad)
{
	char path[PATH_MAX];
	int r;

	if (pid <= 0)
		return -EINVAL;
	r = procfs_path(path, sizeof(path), "/proc/%d/maps", pid);
	if (r < 0)
		return r;
	return procfs_read_maps_file(path, cb, arg, ret_n_bad);
}

struct ksym_ctx {
	int (*cb)(const struct procfs_ksym *k, void *arg);
	void *arg;
};

static int ksym_line(char *line, void *ctx)
{
	struct ksym_ctx *c = ctx;
	struct procfs_ksym k;
	int r;

	if (procfs_parse_kallsyms_line(line, &k) < 0)
		return 1;
	r = c->cb(&k, c->arg);
	return r < 0 ? r : 0;
}

int procfs_read_kallsyms(const char *path, int (*cb)(const struct procfs_ksym *k, void *arg),
			 void *arg, size_t *ret_n_bad)
{
	struct ksym_ctx c = { .cb = cb, .arg = arg };

	if (!path || !cb)
		return -EINVAL;
	return read_lines(path, ksym_line, &c, ret_n_bad);
}

ssize_t procfs_read_file(const char *path, char *buf, size_t size)
{
	size_t len = 0;
	int fd, r = 0;

	if (!path || !buf || size == 0)
		return -EINVAL;
	do
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	while (fd < 0 && errno == EINTR);
	if (fd < 0)
		return -errno;
	while (len < size - 1) {
		ssize_t n = read(fd, buf + len, size - 1 - len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (r < 0)
		return r;
	if (len > 0 && buf[len - 1] == '\n')
		len--;
	buf[len] = '\0';
	return (ssize_t)len;
}

int procfs_read_comm(int pid, int tid, char *buf, size_t size)
{
	char path[PATH_MAX], comm[256];
	ssize_t n;
	int r;

	if (pid <= 0 || tid <= 0 || !buf || size == 0)
		return -EINVAL;
	r = procfs_path(path, sizeof(path), "/proc/%d/task/%d/comm", pid, tid);
	if (r < 0)
		return r;
	n = procfs_read_file(path, comm, sizeof(comm));
	if (n < 0)
		return (int)n;
	if ((size_t)n >= size)
		n = (ssize_t)size - 1;
	memcpy(buf, comm, (size_t)n);
	buf[n] = '\0';
	return 0;
}

/* A non-negative int in decimal; *p is advanced past it. */
static bool get_int(const char **p, int *ret)
{
	uint64_t v;

	if (!get_dec(p, INT_MAX, &v))
		return false;
	*ret = (int)v;
	return true;
}

/* A directory name that is a PID: canonical decimal (no sign, no leading zero), > 0. */
static bool parse_pid_name(const char *name, int *ret)
{
	const char *p = name;
	int v;

	if (name[0] == '0' || !get_int(&p, &v) || *p != '\0')
		return false;
	*ret = v;
	return true;
}

struct status_ctx {
	int tgid, ppid;
	bool have_tgid, have_ppid;
};

/* "Name:\t123\n": the value, surrounded by blanks only. */
static int status_field(const char *line, const char *key, int *ret)
{
	size_t klen = strlen(key);
	const char *p;
	int v;

	if (strncmp(line, key, klen))
		return 0;
	p = line + klen;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!get_int(&p, &v))
		return -EINVAL;
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	if (*p != '\0')
		return -EINVAL;
	*ret = v;
	return 1;
}

static int status_line(char *line, void *ctx)
{
	struct status_ctx *c = ctx;
	int r;

	r = status_field(line, "Tgid:", &c->tgid);
	if (r < 0)
		return r;
	if (r > 0) {
		c->have_tgid = true;
		return 0;
	}
	r = status_field(line, "PPid:", &c->ppid);
	if (r < 0)
		return r;
	if (r > 0)
		c->have_ppid = true;
	return 0;
}

int procfs_read_status(int pid, int *ret_tgid, int *ret_ppid)
{
	struct status_ctx c = { 0 };
	char path[PATH_MAX];
	int r;

	if (pid <= 0)
		return -EINVAL;
	r = procfs_path(path, sizeof(path), "/proc/%d/status", pid);
	if (r < 0)
		return r;
	r = read_lines(path, status_line, &c, NULL);
	if (r < 0)
		return r;
	if (!c.have_tgid || !c.have_ppid || c.tgid <= 0)
		return -EINVAL;
	if (ret_tgid)
		*ret_tgid = c.tgid;
	if (ret_ppid)
		*ret_ppid = c.ppid;
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* Sorted numeric entries of directory PATH; *ret_ids is malloc'ed (NULL when empty). */
static int list_numeric(const char *path, int **ret_ids, size_t *ret_n)
{
	size_t n = 0, cap = 0;
	int *ids = NULL, r = 0;
	struct dirent *de;
	DIR *d;

	d = opendir(path);
	if (!d)
		return -errno;
	for (;;) {
		int id;

		errno = 0;
		de = readdir(d);
		if (!de) {
			r = -errno;
			break;
		}
		if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
			continue;
		if (!parse_pid_name(de->d_name, &id))
			continue;
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 256;
			int *nids = reallocarray(ids, ncap, sizeof(*ids));

			if (!nids) {
				r = -ENOMEM;
				break;
			}
			ids = nids;
			cap = ncap;
		}
		ids[n++] = id;
	}
	closedir(d);
	if (r < 0) {
		free(ids);
		return r;
	}
	if (n > 1)
		qsort(ids, n, sizeof(*ids), cmp_int);
	*ret_ids = ids;
	*ret_n = n;
	return 0;
}

static int for_each_entry(const char *path, int (*cb)(int id, void *arg), void *arg)
{
	size_t n = 0;
	int *ids = NULL;
	int r;

	if (!cb)
		return -EINVAL;
	r = list_numeric(path, &ids, &n);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		r = cb(ids[i], arg);
		if (r < 0)
			break;
		r = 0;
	}
	free(ids);
	return r;
}

int procfs_for_each_pid(int (*cb)(int pid, void *arg), void *arg)
{
	char path[PATH_MAX];
	int r;

	r = procfs_path(path, sizeof(path), "/proc");
	if (r < 0)
		return r;
	return for_each_entry(path, cb, arg);
}

int procfs_for_each_tid(int pid, int (*cb)(int tid, void *arg), void *arg)
{
	char path[PATH_MAX];
	int r;

	if (pid <= 0)
		return -EINVAL;
	r = procfs_path(path, sizeof(path), "/proc/%d/task", pid);
	if (r < 0)
		return r;
	return for_each_entry(path, cb, arg);
}

int procfs_read_int(const char *path, long *ret)
{
	char buf[64], *end;
	ssize_t n;
	long v;

	if (!path || !ret)
		return -EINVAL;
	n = procfs_read_file(path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	/*
	 * A full buffer (less a newline that may have been cut off) may hold only the start of
	 * the file and is longer than any long anyway; a NUL byte would hide trailing garbage.
	 */
	if ((size_t)n >= sizeof(buf) - 2 || strlen(buf) != (size_t)n)
		return -EINVAL;
	errno = 0;
	v = strtol(buf, &end, 10);
	if (end == buf)
		return -EINVAL;
	while (*end == ' ' || *end == '\t' || *end == '\n')
		end++;
	if (*end != '\0')
		return -EINVAL;
	if (errno == ERANGE)
		return -ERANGE;
	*ret = v;
	return 0;
}

struct vdso_find {
	uint64_t base;
	size_t size;
};

static int on_vdso_map(const struct procfs_map *m, void *arg)
{
	struct vdso_find *v = arg;

	if (m->start == v->base && !strcmp(m->path, "[vdso]"))
		v->size = (size_t)(m->end - m->start);
	return 0;
}

int procfs_self_vdso(const void **ret, size_t *ret_size)
{
	struct vdso_find v = { .base = getauxval(AT_SYSINFO_EHDR) };

	if (!v.base || procfs_read_maps_file("/proc/self/maps", on_vdso_map, &v, NULL) < 0 ||
	    !v.size)
		return -ENOENT;
	*ret = (const void *)(uintptr_t)v.base;
	*ret_size = v.size;
	return 0;
}

#define OVERLAYFS_MAGIC 0x794c7630 /* statfs(2)'s f_type of overlayfs */

/* The device of mount MNT_ID, from /proc/PID/mountinfo, else ours (mount ids are unique across
 * mount namespaces; the file may have been opened through either). 0, or -ENOENT. */
/* The first line of /proc/PID/mountinfo (then our own) that match(line, arg) takes: 0, or
 * -ENOENT. A line longer than the buffer comes in pieces: only a line's start counts. */
static int find_mount(uint32_t pid, bool (*match)(const char *line, void *arg), void *arg)
{
	char p[64], line[1024];

	for (int i = 0; i < 2; i++) {
		bool line_start = true;
		FILE *f;

		if (i == 0)
			snprintf(p, sizeof(p), "/proc/%u/mountinfo", pid);
		else
			snprintf(p, sizeof(p), "/proc/self/mountinfo");
		f = fopen(p, "re");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			bool whole = line_start;

			line_start = strchr(line, '\n') != NULL;
			if (whole && match(line, arg)) {
				fclose(f);
				return 0;
			}
		}
		fclose(f);
	}
	return -ENOENT;
}

struct mount_q {
	uint64_t mnt_id;
	uint32_t maj, min;
	char fstype[32];
	long user_id; /* a FUSE mount's user_id= (-1: none) */
};

static bool by_mnt_id(const char *line, void *arg)
{
	struct mount_q *q = arg;
	unsigned long long id;

	return sscanf(line, "%llu %*u %u:%u", &id, &q->maj, &q->min) == 3 && id == q->mnt_id;
}

static int mount_dev(uint32_t pid, uint64_t mnt_id, uint32_t *ret_maj, uint32_t *ret_min)
{
	struct mount_q q = { .mnt_id = mnt_id };

	if (find_mount(pid, by_mnt_id, &q) < 0)
		return -ENOENT;
	*ret_maj = q.maj;
	*ret_min = q.min;
	return 0;
}

/* "ID PARENT MAJ:MIN ROOT POINT OPTS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTS" */
static bool by_dev(const char *line, void *arg)
{
	struct mount_q *q = arg;
	const char *sep = strstr(line, " - "), *uid;
	unsigned int ma, mi;

	if (sscanf(line, "%*u %*u %u:%u", &ma, &mi) != 2 || ma != q->maj || mi != q->min || !sep ||
	    sscanf(sep + 3, "%31s", q->fstype) != 1)
		return false;
	uid = strstr(sep, "user_id=");
	q->user_id = uid ? strtol(uid + 8, NULL, 10) : -1;
	return true;
}

/* A file on a FUSE file system that a user other than root mounted: its server answers (or
 * never answers) every open and read, so the recorder does not open it. */
static bool on_users_fuse(uint32_t pid, uint32_t maj, uint32_t min, char *why, size_t why_size)
{
	struct mount_q q = { .maj = maj, .min = min, .user_id = -1 };

	if (find_mount(pid, by_dev, &q) < 0 || strncmp(q.fstype, "fuse", 4) != 0 || q.user_id == 0)
		return false;
	snprintf(why, why_size,
		 "on a %s file system mounted by user %ld: not opened (its server could stall "
		 "whoever opens the file)",
		 q.fstype, q.user_id);
	return true;
}

/* Is the file open as FD the inode INO on device MAJ:MIN that the kernel named for a mapping?
 * overlayfs answers stat(2) of a file from a lower layer on another file system with a device
 * of that layer's own, while MMAP2 and /proc/PID/maps give the overlay mount's device: there,
 * the device of the mount FD is on. */
static bool is_mapped_file(int fd, uint32_t pid, uint32_t maj, uint32_t min, uint64_t ino)
{
	struct statx stx;
	struct statfs sf;
	struct stat st;
	uint32_t dmaj, dmin;

	if (fstat(fd, &st) < 0 || st.st_ino != ino)
		return false;
	if (major(st.st_dev) == maj && minor(st.st_dev) == min)
		return true;
	return fstatfs(fd, &sf) == 0 && sf.f_type == OVERLAYFS_MAGIC &&
	       statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &stx) == 0 &&
	       (stx.stx_mask & STATX_MNT_ID) && mount_dev(pid, stx.stx_mnt_id, &dmaj, &dmin) == 0 &&
	       dmaj == maj && dmin == min;
}

/* One way to the file: 0 /proc/PID/map_files/START-END, 1 /proc/PID/root + PATH, 2 PATH.
 * Nothing but a regular file is ever opened: the name is first resolved to an O_PATH
 * descriptor, which opens nothing (no FIFO waits for a writer, no device driver sees an open,
 * no tty becomes the controlling one), and only a regular file is then opened, through that
 * descriptor, so the check and the open are of the same inode. A path (ways 1 and 2) names
 * the file as the kernel printed it, with no link in its last component: one there is
 * somebody's replacement and is not followed. -errno (-ENOENT: not a way for this path). */
static int open_way(int way, uint32_t pid, uint64_t start, uint64_t end, const char *path)
{
	char p[4200];
	struct stat st;
	int pfd, fd;

	if (way == 0)
		snprintf(p, sizeof(p), "/proc/%u/map_files/%llx-%llx", pid,
			 (unsigned long long)start, (unsigned long long)end);
	else if (path[0] != '/')
		return -ENOENT;
	else if (way == 1)
		snprintf(p, sizeof(p), "/proc/%u/root%s", pid, path);
	else
		snprintf(p, sizeof(p), "%s", path);
	pfd = open(p, O_PATH | O_CLOEXEC | (way ? O_NOFOLLOW : 0));
	if (pfd < 0)
		return errno == ELOOP ? -EINVAL : -errno;
	if (fstat(pfd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(pfd);
		return -EINVAL;
	}
	snprintf(p, sizeof(p), "/proc/self/fd/%d", pfd);
	fd = open(p, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		fd = -errno;
	close(pfd);
	return fd;
}

int procfs_open_mapped_from(uint32_t pid, uint64_t start, uint64_t end, const char *path,
			    uint32_t maj, uint32_t min, uint64_t ino, int *way, char *why,
			    size_t why_size)
{
	int err = -ENOENT, other = 0;

	if (ino && on_users_fuse(pid, maj, min, why, why_size))
		return -1;
	for (int w = *way; w < PROCFS_MAPPED_WAYS; w++) {
		int fd = open_way(w, pid, start, end, path);

		if (fd < 0) {
			if (fd != -ENOENT || err == -ENOENT)
				err = fd;
			continue;
		}
		/* map_files names what is mapped there now: after a munmap and a new mmap at the
		 * same place, another file; the path may have been replaced. */
		if (ino && !is_mapped_file(fd, pid, maj, min, ino)) {
			other++;
			close(fd);
			continue;
		}
		*way = w;
		return fd;
	}
	if (other)
		snprintf(why, why_size, "the file on disk is not the one mapped");
	else if (err == -EINVAL)
		snprintf(why, why_size, "cannot open it: not a regular file");
	else
		snprintf(why, why_size, "cannot open it: %s", strerror(-err));
	return -1;
}

int procfs_open_mapped(uint32_t pid, uint64_t start, uint64_t end, const char *path, uint32_t maj,
		       uint32_t min, uint64_t ino, char *why, size_t why_size)
{
	int way = 0;

	return procfs_open_mapped_from(pid, start, end, path, maj, min, ino, &way, why, why_size);
}
