/* store.c — the recording directory: file names, the active .partial file, recovery, retention. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "base/grow.h"
#include "log.h"
#include "store.h"
#include "base/util.h"
#include "format/recdir.h"
#include "format/writer.h"

/* Every recording of the daemon in the directory (ringprof-*), oldest first. */
static int list(struct store *s, struct recdir_entry **ret, size_t *ret_n)
{
	return recdir_list(s->dfd, RECDIR_STEM, ret, ret_n);
}

int store_open(struct store *s, const char *dir, char *why, size_t why_size)
{
	struct recdir_entry *v;
	size_t n;
	int r;

	memset(s, 0, sizeof(*s));
	s->dfd = -1;
	util_strlcpy(s->dir, dir, sizeof(s->dir));
	r = util_mkdir_p(dir, 0750, 0755);
	if (r < 0) {
		snprintf(why, why_size, "cannot create the recording directory %s: %s", dir,
			 strerror(-r));
		return r;
	}
	s->dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->dfd < 0) {
		r = -errno;
		snprintf(why, why_size, "cannot open the recording directory %s: %s", dir,
			 strerror(errno));
		return r;
	}
	if (flock(s->dfd, LOCK_EX | LOCK_NB) < 0) {
		r = -errno;
		snprintf(why, why_size, "%s",
			 r == -EWOULDBLOCK ? "another ringprofd is recording into this directory"
					   : strerror(-r));
		snprintf(why + strlen(why), why_size - strlen(why), " (%s)", dir);
		store_close(s);
		return r;
	}
	if (faccessat(s->dfd, ".", W_OK, AT_EACCESS) < 0) {
		r = -errno;
		snprintf(why, why_size, "cannot write to the recording directory %s: %s", dir,
			 strerror(errno));
		store_close(s);
		return r;
	}
	r = list(s, &v, &n);
	if (r < 0) {
		snprintf(why, why_size, "cannot list %s: %s", dir, strerror(-r));
		store_close(s);
		return r;
	}
	s->next_seq = recdir_next_seq(v, n);
	free(v);
	return 0;
}

void store_close(struct store *s)
{
	if (s->dfd >= 0)
		close(s->dfd);
	s->dfd = -1;
}

static int sync_dir(struct store *s)
{
	return fsync(s->dfd) < 0 ? -errno : 0;
}

int store_recover(struct store *s)
{
	struct recdir_entry *v;
	size_t n;
	int r, recovered = 0;
	char b[32];

	r = list(s, &v, &n);
	if (r < 0) {
		log_msg(LOG_WARNING, "cannot look for unfinished recordings in %s: %s", s->dir,
			strerror(-r));
		return r;
	}
	for (size_t i = 0; i < n; i++) {
		char final[RECDIR_NAME_MAX];
		struct stat st;

		if (!v[i].n.partial)
			continue;
		if (fstatat(s->dfd, v[i].name, &st, 0) == 0 && st.st_size == 0) {
			if (unlinkat(s->dfd, v[i].name, 0) == 0)
				log_msg(LOG_INFO,
					"removed %s/%s: empty, left by an unclean shutdown", s->dir,
					v[i].name);
			continue;
		}
		recdir_finished_name(v[i].name, final, sizeof(final));
		if (faccessat(s->dfd, final, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
			/* The closed name is taken (it should not be): recover under a new
			 * sequence. */
			recdir_format(final, sizeof(final), RECDIR_STEM, (time_t)v[i].n.start,
				      s->next_seq++, false);
		if (renameat(s->dfd, v[i].name, s->dfd, final) < 0) {
			log_msg(LOG_WARNING, "cannot recover %s/%s: %s; it is left as it is",
				s->dir, v[i].name, strerror(errno));
			continue;
		}
		recovered++;
		log_msg(LOG_NOTICE,
			"recovered %s/%s (%s) from an unclean shutdown: its complete frames are "
			"readable, a torn "
			"last frame is skipped",
			s->dir, final, util_format_bytes((uint64_t)st.st_size, b, sizeof(b)));
	}
	if (recovered)
		sync_dir(s);
	free(v);
	return recovered;
}

int store_create(struct store *s, int level, struct writer **ret, char *ret_name, size_t name_size)
{
	char name[RECDIR_NAME_MAX];
	int fd, r;

	r = recdir_create(s->dfd, RECDIR_STEM, &s->next_seq, 0640, &fd, name, sizeof(name));
	if (r < 0)
		return r;
	r = writer_fdopen(fd, level, ret);
	if (r < 0) {
		close(fd);
		unlinkat(s->dfd, name, 0);
		return r;
	}
	util_strlcpy(ret_name, name, name_size);
	return 0;
}

int store_finish(struct store *s, const char *name, uint64_t file_bytes)
{
	if (!file_bytes)
		return unlinkat(s->dfd, name, 0) < 0 ? -errno : sync_dir(s);
	return recdir_finish(s->dfd, name);
}

int store_fs(struct store *s, uint64_t *ret_size, uint64_t *ret_free)
{
	struct statvfs sv;

	if (fstatvfs(s->dfd, &sv) < 0)
		return -errno;
	*ret_size = (uint64_t)sv.f_blocks * sv.f_frsize;
	*ret_free = (uint64_t)sv.f_bavail * sv.f_frsize;
	return 0;
}

int store_vacuum(struct store *s, const struct store_policy *p, struct store_usage *ret)
{
	struct store_usage u = { 0 };
	struct recdir_entry *v;
	size_t n;
	int r, deleted = 0;
	int64_t now = (int64_t)time(NULL);

	r = list(s, &v, &n);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		u.used += v[i].bytes;
		u.n_closed += !v[i].n.partial;
	}
	if (store_fs(s, &u.fs_size, &u.fs_free) < 0)
		u.fs_free = UINT64_MAX;
	for (size_t i = 0; i < n; i++) {
		const char *why;
		char b[32], b2[32];

		if (v[i].n.partial)
			continue;
		if (p->max_age_ns && now - v[i].mtime > 0 &&
		    (uint64_t)(now - v[i].mtime) * NSEC_PER_SEC > p->max_age_ns)
			why = "older than MaxRetentionSec";
		else if (u.used > p->max_use)
			why = "recordings use more than MaxUse";
		else if (u.fs_free < p->keep_free)
			why = "less than KeepFree is available";
		else
			break; /* the rest is younger, and the budgets hold */
		if (unlinkat(s->dfd, v[i].name, 0) < 0) {
			log_msg(LOG_WARNING, "cannot remove %s/%s: %s", s->dir, v[i].name,
				strerror(errno));
			continue;
		}
		deleted++;
		u.used -= v[i].bytes;
		u.n_closed--;
		if (u.fs_free != UINT64_MAX)
			u.fs_free += v[i].bytes;
		log_msg(LOG_INFO, "removed %s (%s): %s (%s used, %s available)", v[i].name,
			util_format_bytes(v[i].bytes, b, sizeof(b)), why,
			util_format_bytes(u.used, b2, sizeof(b2)),
			u.fs_free == UINT64_MAX
			    ? "?"
			    : util_format_bytes(u.fs_free, (char[32]){ 0 }, 32));
	}
	if (deleted)
		sync_dir(s);
	free(v);
	if (ret)
		*ret = u;
	return deleted;
}

/* ---- the symbol tables beside the recordings ---- */

struct symfile {
	char name[128]; /* BUILD-ID-DIGEST.sym */
	uint64_t bytes;
	int64_t mtime;
};

static int symfile_cmp(const void *a, const void *b)
{
	const struct symfile *x = a, *y = b;

	return x->mtime < y->mtime ? -1 : x->mtime > y->mtime;
}

/* Every *.sym (and leftover *.sym.tmp) in the symbols directory SFD, least recently used
 * first. */
static int list_symfiles(int sfd, struct symfile **ret, size_t *ret_n)
{
	struct symfile *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *d;
	int fd = dup(sfd);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;

	if (!dir) {
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	while ((d = readdir(dir))) {
		struct stat st;
		size_t len = strlen(d->d_name);

		if (len >= sizeof(v->name) ||
		    (!(len > 4 && !strcmp(d->d_name + len - 4, ".sym")) &&
		     !(len > 8 && !strcmp(d->d_name + len - 8, ".sym.tmp"))) ||
		    fstatat(sfd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (GROW(v, cap, n + 1) < 0) {
			closedir(dir);
			free(v);
			return -ENOMEM;
		}
		util_strlcpy(v[n].name, d->d_name, sizeof(v[n].name));
		v[n].bytes = (uint64_t)st.st_blocks * 512;
		v[n].mtime = (int64_t)st.st_mtime;
		n++;
	}
	closedir(dir);
	if (n)
		qsort(v, n, sizeof(*v), symfile_cmp);
	*ret = v;
	*ret_n = n;
	return 0;
}

int store_prune_symbols(struct store *s, uint64_t max_bytes, uint64_t keep_free, uint64_t *ret_used)
{
	int sfd = openat(s->dfd, STORE_SYMBOLS, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int64_t oldest = INT64_MAX, now = (int64_t)time(NULL);
	struct symfile *v = NULL;
	struct recdir_entry *e;
	size_t n = 0, ne;
	uint64_t used = 0, fs_size = 0, fs_free = UINT64_MAX;
	int r, deleted = 0;

	if (sfd < 0)
		return errno == ENOENT ? 0 : -errno;
	r = list(s, &e, &ne);
	if (r < 0) {
		close(sfd);
		return r;
	}
	for (size_t i = 0; i < ne; i++) {
		if (e[i].n.start < oldest)
			oldest = e[i].n.start;
	}
	free(e);
	r = list_symfiles(sfd, &v, &n);
	if (r < 0) {
		close(sfd);
		return r;
	}
	for (size_t i = 0; i < n; i++)
		used += v[i].bytes;
	if (store_fs(s, &fs_size, &fs_free) < 0)
		fs_free = UINT64_MAX;
	/*
	 * A recording touches each table it uses when it starts, so a table last touched
	 * before the oldest recording began is used by none of them; past the budget, or with
	 * less than KeepFree available once retention removed what recordings it could, the
	 * least recently used go first (a binary of theirs is then named only while its file
	 * exists).
	 */
	for (size_t i = 0; i < n; i++) {
		bool tmp = strstr(v[i].name, ".sym.tmp") != NULL;

		if (!(tmp && now - v[i].mtime > 3600) && v[i].mtime >= oldest &&
		    used <= max_bytes && fs_free >= keep_free)
			continue;
		if (tmp && now - v[i].mtime <= 3600)
			continue; /* being written */
		if (unlinkat(sfd, v[i].name, 0) < 0) {
			log_msg(LOG_WARNING, "cannot remove %s/%s/%s: %s", s->dir, STORE_SYMBOLS,
				v[i].name, strerror(errno));
			continue;
		}
		used -= v[i].bytes;
		if (fs_free != UINT64_MAX)
			fs_free += v[i].bytes;
		deleted++;
	}
	if (deleted) {
		char b[32];

		log_msg(LOG_INFO,
			"removed %d symbol table%s that no kept recording uses or over SymbolsMaxUse "
			"(%s left)",
			deleted, deleted == 1 ? "" : "s", util_format_bytes(used, b, sizeof(b)));
	}
	free(v);
	close(sfd);
	if (ret_used)
		*ret_used = used;
	return deleted;
}
