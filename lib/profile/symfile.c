/* symfile.c — find the file on this host that holds a recorded binary's symbols (no libelf). */
#include "profile/symfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/buildid.h"

/* Why no candidate file could be used: kept for the one warning. */
struct why {
	char mismatch_path[512];
	char mismatch_id[2 * SYMFILE_BUILD_ID_MAX + 1]; /* empty: the file has no build-id */
	bool mismatch, inode_mismatch, not_elf;
	uint64_t disk_ino;
	int open_err;
};

/* "DIR" + "/" + "REST" without doubling the slash; NULL when out of memory. */
static char *path_join(const char *dir, const char *rest)
{
	size_t dl = strlen(dir);
	char *p;

	while (dl > 0 && dir[dl - 1] == '/')
		dl--;
	while (*rest == '/')
		rest++;
	if (asprintf(&p, "%.*s/%s", (int)dl, dir, rest) < 0)
		return NULL;
	return p;
}

int symfile_open_regular(const char *p)
{
	struct stat st;
	int fd = open(p, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

/*
 * Open P and check that it is the recorded file: same build-id when one was recorded;
 * without one, the same inode when the device matches (a file replaced in place since the
 * recording). Returns the fd, or -errno; mismatches are noted in WHY.
 */
static int try_candidate(const struct symfile_id *id, const char *p, bool under_symfs,
			 struct why *why)
{
	uint8_t bid[SYMFILE_BUILD_ID_MAX];
	size_t len = 0;
	struct stat st;
	int fd = symfile_open_regular(p), r;

	if (fd < 0) {
		if (!why->open_err || why->open_err == -ENOENT)
			why->open_err = fd;
		return fd;
	}
	if (id->build_id_len) {
		r = buildid_read_fd(fd, bid, sizeof(bid), &len);
		if (r == 0 && len >= id->build_id_len &&
		    !memcmp(bid, id->build_id, id->build_id_len))
			return fd;
		if (!why->mismatch) {
			why->mismatch = true;
			why->not_elf = r == -ENOEXEC;
			snprintf(why->mismatch_path, sizeof(why->mismatch_path), "%s", p);
			if (r == 0)
				buildid_to_hex(bid, len, why->mismatch_id);
		}
		close(fd);
		return -ESTALE;
	}
	if (!under_symfs && id->ino && (id->maj || id->min) && fstat(fd, &st) == 0 &&
	    st.st_dev == makedev(id->maj, id->min) && st.st_ino != id->ino) {
		if (!why->inode_mismatch) {
			why->inode_mismatch = true;
			why->disk_ino = st.st_ino;
			snprintf(why->mismatch_path, sizeof(why->mismatch_path), "%s", p);
		}
		close(fd);
		return -ESTALE;
	}
	return fd;
}

/* Try recorded path P: under the symfs first, then as is. Sets *ret_file (malloc'd). */
static int try_path(const char *symfs, const struct symfile_id *id, const char *p, struct why *why,
		    char **ret_file)
{
	char *f;
	int fd;

	if (symfs) {
		f = path_join(symfs, p);
		if (!f)
			return -ENOMEM;
		fd = try_candidate(id, f, true, why);
		if (fd >= 0) {
			*ret_file = f;
			return fd;
		}
		free(f);
		if (fd == -ENOMEM)
			return fd;
	}
	f = strdup(p);
	if (!f)
		return -ENOMEM;
	fd = try_candidate(id, f, false, why);
	if (fd >= 0) {
		*ret_file = f;
		return fd;
	}
	free(f);
	return fd;
}

/* A mapping of a file deleted since the recording: its recorded name ends in " (deleted)". */
static int try_deleted(const char *symfs, const struct symfile_id *id, struct why *why,
		       char **ret_file)
{
	static const char del[] = " (deleted)";
	size_t pl = strlen(id->path);
	char *p;
	int fd;

	if (pl <= sizeof(del) - 1 || strcmp(id->path + pl - (sizeof(del) - 1), del))
		return -ENOENT;
	p = strndup(id->path, pl - (sizeof(del) - 1));
	fd = p ? try_path(symfs, id, p, why, ret_file) : -ENOMEM;
	free(p);
	return fd;
}

/*
 * When the file itself is missing or different: the recorded build-id's entry in a debug
 * directory, symfs's first. ".build-id/xx/rest" is (where distributions install it) a link to
 * the binary itself; ".build-id/xx/rest.debug" the separate debug file, which has .symtab
 * and the program headers, enough for names.
 */
static int try_build_id_dirs(const char *symfs, const struct symfile_id *id, char **ret_file)
{
	char hex[2 * SYMFILE_BUILD_ID_MAX + 1];
	const char *dirs[2];
	int n_dirs = 0;

	if (id->build_id_len < 2)
		return -ENOENT;
	buildid_to_hex(id->build_id, id->build_id_len, hex);
	if (symfs)
		dirs[n_dirs++] = symfs;
	dirs[n_dirs++] = "/";
	for (int i = 0; i < n_dirs; i++) {
		for (int dbg = 0; dbg < 2; dbg++) {
			char *rel, *f;
			int fd;

			if (asprintf(&rel, "usr/lib/debug/.build-id/%.2s/%s%s", hex, hex + 2,
				     dbg ? ".debug" : "") < 0)
				return -ENOMEM;
			f = path_join(dirs[i], rel);
			free(rel);
			if (!f)
				return -ENOMEM;
			fd = try_candidate(id, f, true, &(struct why){ 0 });
			if (fd >= 0) {
				*ret_file = f;
				return fd;
			}
			free(f);
		}
	}
	return -ENOENT;
}

/* The sentence saying why no file of ID could be used, into BUF. */
static void why_unusable(const struct symfile_id *id, const struct why *why, char *buf, size_t size)
{
	char rec[2 * SYMFILE_BUILD_ID_MAX + 1];

	if (why->mismatch && why->not_elf) {
		snprintf(buf, size, "%s: not an ELF file; its frames are shown as [unknown]",
			 why->mismatch_path);
	} else if (why->mismatch) {
		buildid_to_hex(id->build_id, id->build_id_len, rec);
		if (why->mismatch_id[0])
			snprintf(buf, size,
				 "%s: build-id %s recorded, file on disk has %s (rebuilt?); "
				 "its frames are shown as [unknown]",
				 why->mismatch_path, rec, why->mismatch_id);
		else
			snprintf(buf, size,
				 "%s: build-id %s recorded, file on disk has none (rebuilt?); "
				 "its frames are shown as [unknown]",
				 why->mismatch_path, rec);
	} else if (why->inode_mismatch) {
		snprintf(buf, size,
			 "%s: inode %llu recorded, file on disk is inode %llu (replaced since the "
			 "recording?); its frames are shown as [unknown]",
			 why->mismatch_path, (unsigned long long)id->ino,
			 (unsigned long long)why->disk_ino);
	} else if (why->open_err == -EINVAL) {
		snprintf(buf, size, "%s: not a regular file; its frames are shown as [unknown]",
			 id->path);
	} else {
		snprintf(buf, size, "%s: cannot open: %s; its frames are shown as [unknown]",
			 id->path, strerror(why->open_err ? -why->open_err : ENOENT));
	}
}

int symfile_open(const char *symfs, const struct symfile_id *id, char **ret_file, char *ret_warn,
		 size_t warn_size)
{
	struct why why = { 0 };
	char rec[2 * SYMFILE_BUILD_ID_MAX + 1];
	char *file = NULL;
	int fd;

	if (warn_size)
		ret_warn[0] = '\0';
	fd = try_path(symfs, id, id->path, &why, &file);
	for (int i = 0; fd < 0 && fd != -ENOMEM && i < id->n_alt; i++)
		fd = try_path(symfs, id, id->alt[i], &why, &file);
	if (fd < 0 && fd != -ENOMEM && id->build_id_len)
		fd = try_deleted(symfs, id, &why, &file);
	if (fd < 0 && fd != -ENOMEM)
		fd = try_build_id_dirs(symfs, id, &file);
	if (fd < 0) {
		if (fd == -ENOMEM)
			snprintf(ret_warn, warn_size,
				 "%s: out of memory; its frames are shown as [unknown]", id->path);
		else
			why_unusable(id, &why, ret_warn, warn_size);
		return fd;
	}
	if (why.mismatch) {
		buildid_to_hex(id->build_id, id->build_id_len, rec);
		snprintf(ret_warn, warn_size,
			 "%s: build-id %s recorded, file on disk has %s (rebuilt?); using %s instead",
			 why.mismatch_path, rec, why.mismatch_id[0] ? why.mismatch_id : "none",
			 file);
	}
	*ret_file = file;
	return fd;
}

char *symfile_debug_path(const char *symfs, const char *path, const char *debuglink)
{
	const char *slash = strrchr(path, '/');
	char *dbg = path_join(symfs, "/usr/lib/debug"), *p = NULL;
	int r = -1;

	if (dbg && slash) {
		if (debuglink)
			r = asprintf(&p, "%s%.*s/%s", dbg, (int)(slash - path), path, debuglink);
		else
			r = asprintf(&p, "%s%s.debug", dbg, path);
	}
	free(dbg);
	return r < 0 ? NULL : p;
}
