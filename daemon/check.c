/* check.c — ringprofd --check-config: every error of the configuration, then what its disk
 * budgets mean for the directory in use and whether the daemon can write there. */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "check.h"
#include "base/util.h"

#define EXIT_CANTCREAT 73 /* as at start: the directory cannot be written */
#define EXIT_CONFIG 78
#define UNIT_USER "ringprof" /* ringprofd.service's User= */

/* DIR, or its nearest existing ancestor (ringprofd creates the rest) into buf. */
static const char *existing_dir(const char *dir, char *buf, size_t size)
{
	struct stat st;
	char *slash;

	util_strlcpy(buf, dir, size);
	while (stat(buf, &st) < 0 && (slash = strrchr(buf, '/'))) {
		if (slash == buf) {
			buf[1] = '\0';
			break;
		}
		*slash = '\0';
	}
	return buf;
}

/* "MaxUse=10% of 19G, at most 4G: 2040109465 bytes (1.9G) in DIR's file system". */
static void print_budget(FILE *f, const char *key, const struct conf_size *s, uint64_t fs_size,
			 uint64_t v)
{
	char a[32], b[32], c[32];

	if (s->infinity) {
		fprintf(f, "# %s=infinity: no limit\n", key);
		return;
	}
	fprintf(f, "# %s=%s", key, conf_format_size(s, a, sizeof(a)));
	if (s->percent > 0)
		fprintf(f, " of %s", util_format_bytes(fs_size, b, sizeof(b)));
	if (s->percent > 0 && s->cap)
		fprintf(f, ", at most %s",
			conf_format_size(&(struct conf_size){ .bytes = s->cap }, c, sizeof(c)));
	fprintf(f, ": %llu bytes (%s) here\n", (unsigned long long)v,
		util_format_bytes(v, b, sizeof(b)));
}

/* Whether the unit's user (not the one running this check) may create files in DIR: by the
 * mode bits for its uid and groups. -1 when there is no such user. */
static int unit_user_can_write(const struct stat *st)
{
	struct passwd *pw = getpwnam(UNIT_USER);
	gid_t groups[64];
	int n = 64;

	if (!pw)
		return -1;
	if (pw->pw_uid == st->st_uid)
		return (st->st_mode & 0300) == 0300;
	if (getgrouplist(pw->pw_name, pw->pw_gid, groups, &n) < 0)
		n = 0;
	for (int i = 0; i < n; i++)
		if (groups[i] == st->st_gid)
			return (st->st_mode & 0030) == 0030;
	return (st->st_mode & 0003) == 0003;
}

/* The directory's budgets in bytes and whether it can be written, to OUT (NULL: the errors
 * alone). 0, or EXIT_CANTCREAT (said). */
static int check_directory(const struct conf *c, FILE *out)
{
	char where[PATH_MAX];
	struct statvfs sv;
	struct stat st;
	uint64_t fs_size, keep_free;
	struct passwd *me = getpwuid(geteuid());
	const char *who = me ? me->pw_name : "?";
	char a[32], b[32];
	int w;

	existing_dir(c->directory, where, sizeof(where));
	if (statvfs(where, &sv) < 0 || stat(where, &st) < 0) {
		fprintf(stderr, "ringprofd: Directory=%s: %s: %s\n", c->directory, where,
			strerror(errno));
		return EXIT_CANTCREAT;
	}
	fs_size = (uint64_t)sv.f_blocks * sv.f_frsize;
	keep_free = conf_size_resolve(&c->keep_free, fs_size);
	/* As the daemon applies it: never more than the whole file system. */
	if (keep_free > fs_size && !c->keep_free.infinity && fs_size)
		keep_free = fs_size;
	if (out) {
		fprintf(out, "# In %s%s%s%s, a file system of %s (%s free):\n", c->directory,
			strcmp(where, c->directory) ? " (to be created in " : "",
			strcmp(where, c->directory) ? where : "",
			strcmp(where, c->directory) ? ")" : "",
			util_format_bytes(fs_size, a, sizeof(a)),
			util_format_bytes((uint64_t)sv.f_bavail * sv.f_frsize, b, sizeof(b)));
		print_budget(out, "MaxUse", &c->max_use, fs_size,
			     conf_size_resolve(&c->max_use, fs_size));
		print_budget(out, "KeepFree", &c->keep_free, fs_size, keep_free);
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, "ringprofd: Directory=%s: %s is not a directory\n", c->directory,
			where);
		return EXIT_CANTCREAT;
	}
	if (access(where, W_OK | X_OK) < 0) {
		fprintf(stderr, "ringprofd: Directory=%s: %s is not writable by %s (uid %u): %s\n",
			c->directory, where, who, (unsigned)geteuid(), strerror(errno));
		return EXIT_CANTCREAT;
	}
	if (!out)
		return 0;
	fprintf(out, "# %s is writable by %s (uid %u), who runs this check\n", where, who,
		(unsigned)geteuid());
	w = strcmp(who, UNIT_USER) ? unit_user_can_write(&st) : -1;
	if (w >= 0)
		fprintf(out,
			"# %s is %swritable by " UNIT_USER " (ringprofd.service's User=; systemd "
			"makes StateDirectory= its own at start)\n",
			where, w ? "" : "not ");
	return 0;
}

int check_config(const char *path, bool required, const struct conf_overrides *o)
{
	struct conf c;
	unsigned int n = conf_check(path, required, o, &c, stderr);
	int r;

	if (n) {
		/* Said too if the directory the other lines give cannot be written. */
		check_directory(&c, NULL);
		fprintf(stderr, "ringprofd: %u error%s in the configuration (%s)\n", n,
			n == 1 ? "" : "s", conf_sources());
		return EXIT_CONFIG;
	}
	conf_print(&c, stdout);
	r = check_directory(&c, stdout);
	return r;
}
