/* tracefs.c — tracepoint ids and names from tracefs, with advice when it cannot be read. */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/procfs.h"
#include "base/util.h"
#include "capture/tracefs.h"

/* Where tracefs lives: its own mount point first, then the path under debugfs of kernels
 * before 4.1 (newer ones also automount tracefs there). */
static const char *const mounts[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };

static void say_unreadable(const char *mnt, char *why, size_t why_size)
{
	snprintf(why, why_size,
		 "cannot read tracefs at %s: permission denied (it is root's by default); run as "
		 "root, or let this user read it: mount -o remount,mode=755 %s",
		 mnt, mnt);
}

int tracefs_events_dir(char *buf, size_t size, char *why, size_t why_size)
{
	struct stat st;

	for (size_t i = 0; i < sizeof(mounts) / sizeof(mounts[0]); i++) {
		char path[128];

		snprintf(path, sizeof(path), "%s/events", mounts[i]);
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
			if (access(path, R_OK | X_OK) < 0) {
				say_unreadable(mounts[i], why, why_size);
				return -EACCES;
			}
			util_strlcpy(buf, path, size);
			return 0;
		}
		if (errno == EACCES) {
			say_unreadable(mounts[i], why, why_size);
			return -EACCES;
		}
	}
	if (stat(mounts[0], &st) < 0 && errno == ENOENT)
		snprintf(why, why_size,
			 "tracepoints need tracefs, and this kernel has none (no %s): it was built "
			 "without CONFIG_TRACING",
			 mounts[0]);
	else
		snprintf(why, why_size,
			 "tracefs is not mounted, so tracepoints cannot be found; mount it as root: "
			 "mount -t tracefs nodev %s",
			 mounts[0]);
	return -ENOENT;
}

/* A tracepoint system or event name: letters, digits, '_', '-' and '.', not a path. */
static bool name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 128 || s[0] == '.')
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") == n;
}

int tracefs_event_id(const char *sys, const char *name, uint64_t *ret_id, char *why, size_t why_size)
{
	char dir[128], path[512];
	long id;
	int rc;

	if (!name_ok(sys) || !name_ok(name)) {
		snprintf(why, why_size,
			 "'%s:%s' is not a tracepoint name (SYSTEM:EVENT, e.g. sched:sched_switch)",
			 sys, name);
		return -EINVAL;
	}
	rc = tracefs_events_dir(dir, sizeof(dir), why, why_size);
	if (rc < 0)
		return rc;
	snprintf(path, sizeof(path), "%s/%s/%s/id", dir, sys, name);
	rc = procfs_read_int(path, &id);
	if (rc == -ENOENT || rc == -ENOTDIR) {
		snprintf(why, why_size,
			 "unknown tracepoint '%s:%s' (no %s/%s/%s); list them with: ringprof record "
			 "--list-events '%s:*'",
			 sys, name, dir, sys, name, sys);
		return -ENOENT;
	}
	if (rc == 0 && id < 0)
		rc = -EINVAL;
	if (rc < 0) {
		if (rc == -EACCES)
			say_unreadable(dir, why, why_size);
		else
			snprintf(why, why_size, "cannot read %s: %s", path, strerror(-rc));
		return rc;
	}
	*ret_id = (uint64_t)id;
	return 0;
}

/* Every event directory of one system: those with an id file are tracepoints. */
static int for_each_in(const char *dir, const char *sys,
		       int (*fn)(const char *sys, const char *name, void *arg), void *arg)
{
	char path[512];
	DIR *d;
	struct dirent *de;
	int rc = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, sys);
	d = opendir(path);
	if (!d)
		return 0;
	while (rc >= 0 && (de = readdir(d))) {
		char id[800];

		if (de->d_name[0] == '.')
			continue;
		snprintf(id, sizeof(id), "%s/%s/id", path, de->d_name);
		if (access(id, R_OK) == 0)
			rc = fn(sys, de->d_name, arg);
	}
	closedir(d);
	return rc;
}

int tracefs_for_each(int (*fn)(const char *sys, const char *name, void *arg), void *arg, char *why,
		     size_t why_size)
{
	char dir[128];
	DIR *d;
	struct dirent *de;
	int rc = tracefs_events_dir(dir, sizeof(dir), why, why_size);

	if (rc < 0)
		return rc;
	d = opendir(dir);
	if (!d) {
		rc = -errno;
		snprintf(why, why_size, "cannot read %s: %s", dir, strerror(errno));
		return rc;
	}
	rc = 0;
	while (rc >= 0 && (de = readdir(d))) {
		if (de->d_name[0] != '.' && de->d_type != DT_REG)
			rc = for_each_in(dir, de->d_name, fn, arg);
	}
	closedir(d);
	return rc < 0 ? rc : 0;
}
