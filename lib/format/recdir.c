/* recdir.c — the recording directory: names, the active .partial file, time order, finishing a
 * file, the active file's size. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/grow.h"
#include "format/recdir.h"
#include "format/writer.h"

static bool ends_with(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n > k && memcmp(s + n - k, suffix, k) == 0;
}

/* N digits at P as a number. */
static bool digits(const char *p, int n, int *ret)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		if (!isdigit((unsigned char)p[i]))
			return false;
		v = v * 10 + (p[i] - '0');
	}
	*ret = v;
	return true;
}

/* "-YYYYmmddTHHMMSSZ-" at P (18 bytes): the time as Unix seconds. */
static bool parse_time(const char *p, int64_t *ret)
{
	struct tm tm = { 0 };
	int y, mo, d, h, mi, s;

	if (p[0] != '-' || p[9] != 'T' || p[16] != 'Z' || p[17] != '-' || !digits(p + 1, 4, &y) ||
	    !digits(p + 5, 2, &mo) || !digits(p + 7, 2, &d) || !digits(p + 10, 2, &h) ||
	    !digits(p + 12, 2, &mi) || !digits(p + 14, 2, &s))
		return false;
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60)
		return false;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = s;
	*ret = (int64_t)timegm(&tm);
	return true;
}

/* The base name (without .data) of LEN bytes: STEM-YYYYmmddTHHMMSSZ-N? */
static void parse_timed(const char *name, size_t len, struct recdir_name *n)
{
	size_t k = len;
	uint64_t seq = 0, scale = 1;

	while (k > 0 && isdigit((unsigned char)name[k - 1]) && len - k < 18) {
		seq += (uint64_t)(name[k - 1] - '0') * scale;
		scale *= 10;
		k--;
	}
	if (k == len || k < 19 || (k > 0 && isdigit((unsigned char)name[k - 1])))
		return; /* no sequence number, too long a one, or no room for a stem */
	if (!parse_time(name + k - 18, &n->start))
		return;
	n->timed = true;
	n->stem = k - 18;
	n->seq = seq;
}

bool recdir_parse(const char *name, struct recdir_name *ret)
{
	struct recdir_name n = { 0 };
	size_t len = strlen(name);

	if (name[0] == '.' || len >= RECDIR_NAME_MAX)
		return false;
	if (ends_with(name, len, RECDIR_SUFFIX RECDIR_PARTIAL)) {
		n.partial = true;
		len -= strlen(RECDIR_SUFFIX RECDIR_PARTIAL);
	} else if (ends_with(name, len, RECDIR_SUFFIX)) {
		len -= strlen(RECDIR_SUFFIX);
	} else {
		return false;
	}
	parse_timed(name, len, &n);
	*ret = n;
	return true;
}

int recdir_format(char *buf, size_t size, const char *stem, time_t start, uint64_t seq, bool partial)
{
	char ts[32];
	struct tm tm;
	int n;

	if (!gmtime_r(&start, &tm) || !strftime(ts, sizeof(ts), "%Y%m%dT%H%M%SZ", &tm))
		return -EINVAL;
	n = snprintf(buf, size, "%s-%s-%04llu%s%s", stem, ts, (unsigned long long)seq,
		     RECDIR_SUFFIX, partial ? RECDIR_PARTIAL : "");
	if (n < 0 || (size_t)n >= size || n >= RECDIR_NAME_MAX)
		return -ENAMETOOLONG;
	return 0;
}

static int cmp_parsed(const char *a, const struct recdir_name *x, bool ok_x, const char *b,
		      const struct recdir_name *y, bool ok_y)
{
	bool tx = ok_x && x->timed, ty = ok_y && y->timed;

	if (ok_x != ok_y)
		return ok_x ? -1 : 1;
	if (tx != ty)
		return tx ? -1 : 1;
	if (tx && x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (tx && x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return strcmp(a, b);
}

int recdir_cmp(const char *a, const char *b)
{
	struct recdir_name x, y;
	bool ok_x = recdir_parse(a, &x), ok_y = recdir_parse(b, &y);

	return cmp_parsed(a, &x, ok_x, b, &y, ok_y);
}

static int entry_cmp(const void *a, const void *b)
{
	const struct recdir_entry *x = a, *y = b;

	return cmp_parsed(x->name, &x->n, true, y->name, &y->n, true);
}

int recdir_finished_name(const char *name, char *buf, size_t size)
{
	struct recdir_name n;
	size_t len = strlen(name) - strlen(RECDIR_PARTIAL);

	if (!recdir_parse(name, &n) || !n.partial || len >= size)
		return -EINVAL;
	memcpy(buf, name, len);
	buf[len] = '\0';
	return 0;
}

/* Entry NAME of DFD when it is a regular file with a recording's name (of STEM, timed, when
 * STEM is given). */
static bool take(int dfd, const char *name, const char *stem, struct recdir_entry *e)
{
	struct stat st;

	if (!recdir_parse(name, &e->n))
		return false;
	if (stem && (!e->n.timed || e->n.stem != strlen(stem) || strncmp(name, stem, e->n.stem)))
		return false;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
		return false;
	memcpy(e->name, name, strlen(name) + 1);
	e->bytes = (uint64_t)st.st_blocks * 512;
	e->mtime = (int64_t)st.st_mtime;
	return true;
}

int recdir_list(int dfd, const char *stem, struct recdir_entry **ret, size_t *ret_n)
{
	struct recdir_entry *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *d;
	DIR *dir;
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return -errno;
	}
	while ((d = readdir(dir))) {
		if (GROW(v, cap, n + 1) < 0) {
			free(v);
			closedir(dir);
			return -ENOMEM;
		}
		n += take(dfd, d->d_name, stem, &v[n]);
	}
	closedir(dir);
	if (n)
		qsort(v, n, sizeof(*v), entry_cmp);
	*ret = v;
	*ret_n = n;
	return 0;
}

int recdir_list_path(const char *path, const char *stem, struct recdir_entry **ret, size_t *ret_n)
{
	int dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC), r;

	if (dfd < 0)
		return -errno;
	r = recdir_list(dfd, stem, ret, ret_n);
	close(dfd);
	return r;
}

uint64_t recdir_next_seq(const struct recdir_entry *v, size_t n)
{
	uint64_t next = 1;

	for (size_t i = 0; i < n; i++)
		if (v[i].n.timed && v[i].n.seq >= next)
			next = v[i].n.seq + 1;
	return next;
}

int recdir_create(int dfd, const char *stem, uint64_t *seq, int mode, int *ret_fd, char *ret_name,
		  size_t name_size)
{
	time_t now = time(NULL);
	char name[RECDIR_NAME_MAX];
	int fd, r;

	for (;;) {
		r = recdir_format(name, sizeof(name), stem, now, (*seq)++, true);
		if (r < 0)
			return r;
		fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY,
			    (mode_t)mode);
		if (fd >= 0)
			break;
		if (errno != EEXIST)
			return -errno;
	}
	if (strlen(name) >= name_size) {
		close(fd);
		unlinkat(dfd, name, 0);
		return -ENAMETOOLONG;
	}
	memcpy(ret_name, name, strlen(name) + 1);
	*ret_fd = fd;
	return 0;
}

int recdir_finish(int dfd, const char *name)
{
	char final[RECDIR_NAME_MAX];

	if (recdir_finished_name(name, final, sizeof(final)) < 0)
		return -EINVAL;
	if (renameat(dfd, name, dfd, final) < 0)
		return -errno;
	return fsync(dfd) < 0 ? -errno : 0;
}

/* Rename PATH to NAME in DFD unless NAME exists. 0 or -errno (-EEXIST: it does). */
static int rename_new(const char *path, int dfd, const char *name)
{
	if (renameat2(AT_FDCWD, path, dfd, name, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
	/* A file system without RENAME_NOREPLACE: look first. */
	if (faccessat(dfd, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
		return -EEXIST;
	return renameat(AT_FDCWD, path, dfd, name) < 0 ? -errno : 0;
}

int recdir_finish_as(const char *path, int dfd, const char *stem, time_t start, uint64_t *seq,
		     char *ret_name, size_t name_size)
{
	char name[RECDIR_NAME_MAX];
	int r;

	do {
		r = recdir_format(name, sizeof(name), stem, start, (*seq)++, false);
		if (r < 0)
			return r;
		if (strlen(name) >= name_size)
			return -ENAMETOOLONG;
		r = rename_new(path, dfd, name);
	} while (r == -EEXIST);
	if (r < 0)
		return r;
	memcpy(ret_name, name, strlen(name) + 1);
	return 0;
}

uint64_t recdir_file_estimate(const struct writer *w)
{
	const struct writer_stats *ws = writer_stats(w);
	double ratio = ws->raw_bytes ? (double)ws->file_bytes / (double)ws->raw_bytes : 0.25;

	return ws->file_bytes + (uint64_t)((double)writer_pending(w) * ratio);
}
