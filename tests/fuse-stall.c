/* fuse-stall.c — a FUSE file system with one file, FILE (a copy of the file named on the
 * command line), whose first N opens succeed and whose later opens never return: what a user
 * who mounts such a file system can do to whoever opens the file after them.
 *
 * Usage: fuse-stall SOURCE N MOUNTPOINT [libfuse options]; the file is MOUNTPOINT/lib.so.
 * Each open is logged on stderr ("fuse-stall: open N by process PID"). Built by
 * tests/record-fuse.sh when libfuse3 is there. */
#define FUSE_USE_VERSION 31
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *source;
static int allowed;
static atomic_int opens;

static int st_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	(void)fi;
	memset(st, 0, sizeof(*st));
	if (strcmp(path, "/") == 0) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
		return 0;
	}
	if (strcmp(path, "/lib.so") != 0)
		return -ENOENT;
	if (stat(source, st) < 0)
		return -errno;
	st->st_mode = S_IFREG | 0755;
	return 0;
}

static int st_open(const char *path, struct fuse_file_info *fi)
{
	if (strcmp(path, "/lib.so") != 0)
		return -ENOENT;
	int n = atomic_fetch_add(&opens, 1);
	char p[64], line[128];
	long tgid = -1;
	FILE *f;

	/* The opener's process (the context names its thread). */
	snprintf(p, sizeof(p), "/proc/%d/status", (int)fuse_get_context()->pid);
	f = fopen(p, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %ld", &tgid) == 1)
			break;
	if (f)
		fclose(f);
	fprintf(stderr, "fuse-stall: open %d by process %ld%s\n", n + 1, tgid,
		n >= allowed ? ": never answered" : "");
	if (n >= allowed)
		for (;;)
			pause(); /* never answers */
	fi->fh = (uint64_t)open(source, O_RDONLY);
	return (int)fi->fh < 0 ? -errno : 0;
}

static int st_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
	ssize_t n = pread((int)fi->fh, buf, size, off);

	(void)path;
	return n < 0 ? -errno : (int)n;
}

static int st_release(const char *path, struct fuse_file_info *fi)
{
	(void)path;
	close((int)fi->fh);
	return 0;
}

static const struct fuse_operations ops = {
	.getattr = st_getattr,
	.open = st_open,
	.read = st_read,
	.release = st_release,
};

int main(int argc, char **argv)
{
	if (argc < 4)
		return 2;
	source = argv[1];
	allowed = atoi(argv[2]);
	argv[2] = argv[0];
	return fuse_main(argc - 2, argv + 2, &ops, NULL);
}
