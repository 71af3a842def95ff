/* utcache.c — unwind tables on disk by build-id (see utcache.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/grow.h"
#include "capture/utcache.h"
#include "unwind/proto.h"

#define SUFFIX ".utab"
#define NAME_MAX_LEN 96 /* 40 hex digits, -, 32 hex digits, .utab, NUL */

static void trim(struct utcache *c);

int utcache_open(struct utcache *c, const char *dir, uint64_t max_bytes, char *why, size_t why_size)
{
	memset(c, 0, sizeof(*c));
	c->dfd = -1;
	c->max_bytes = max_bytes;
	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		snprintf(why, why_size, "cannot create %s: %s", dir, strerror(errno));
		return -errno;
	}
	c->dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c->dfd < 0) {
		snprintf(why, why_size, "cannot open %s: %s", dir, strerror(errno));
		return -errno;
	}
	trim(c);
	return 0;
}

void utcache_done(struct utcache *c)
{
	if (c->dfd >= 0)
		close(c->dfd);
	c->dfd = -1;
}

/* BUILD-ID-DIGEST.utab: the build-id the file claims and the digest of what it holds. */
static void file_name(const uint8_t *bid, size_t len, const uint8_t *digest, char *buf)
{
	for (size_t i = 0; i < len; i++)
		sprintf(buf + 2 * i, "%02x", bid[i]);
	buf[2 * len] = '-';
	for (size_t i = 0; i < UWP_DIGEST_LEN; i++)
		sprintf(buf + 2 * len + 1 + 2 * i, "%02x", digest[i]);
	strcpy(buf + 2 * len + 1 + 2 * UWP_DIGEST_LEN, SUFFIX);
}

void *utcache_load(struct utcache *c, const uint8_t *bid, size_t bid_len, const uint8_t *digest,
		   struct utab *ret, size_t *ret_size)
{
	char name[NAME_MAX_LEN], why[160];
	struct stat st = { 0 };
	void *buf = NULL;
	int fd;

	if (c->dfd < 0 || !bid_len || bid_len > 20 || !digest)
		return NULL;
	file_name(bid, bid_len, digest, name);
	fd = openat(c->dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size <= UWP_MAX_TABLE && (buf = malloc((size_t)st.st_size)) &&
	    pread(fd, buf, (size_t)st.st_size, 0) == st.st_size &&
	    utab_check(buf, (size_t)st.st_size, ret, why, sizeof(why)) == 0 &&
	    ret->hdr->builder == UTAB_BUILDER_REV && ret->hdr->build_id_len == bid_len &&
	    memcmp(ret->hdr->build_id, bid, bid_len) == 0) {
		futimens(fd, NULL); /* recently used */
		close(fd);
		*ret_size = (size_t)st.st_size;
		c->hits++;
		return buf;
	}
	close(fd);
	free(buf);
	if (S_ISREG(st.st_mode)) {
		unlinkat(c->dfd, name, 0);
		c->refused++;
	}
	return NULL;
}

struct entry {
	char name[NAME_MAX_LEN];
	uint64_t size;
	struct timespec mtime;
};

static int by_age(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
	return (x->mtime.tv_nsec > y->mtime.tv_nsec) - (x->mtime.tv_nsec < y->mtime.tv_nsec);
}

/* Remove the oldest tables until the directory holds at most max_bytes of them; c->bytes is
 * what is left. */
static void trim(struct utcache *c)
{
	int fd = dup(c->dfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct entry *v = NULL;
	size_t n = 0, cap = 0;
	uint64_t total = 0;
	struct dirent *de;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	rewinddir(d);
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		struct stat st;

		if (l < sizeof(SUFFIX) || l >= sizeof(v->name) ||
		    strcmp(de->d_name + l - 5, SUFFIX) ||
		    fstatat(c->dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode) || GROW(v, cap, n + 1) < 0)
			continue;
		memcpy(v[n].name, de->d_name, l + 1);
		v[n].size = (uint64_t)st.st_size;
		v[n].mtime = st.st_mtim;
		total += v[n++].size;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), by_age);
	for (size_t i = 0; i < n && total > c->max_bytes; i++)
		if (unlinkat(c->dfd, v[i].name, 0) == 0) {
			total -= v[i].size;
			c->evicted++;
		}
	c->bytes = total;
	free(v);
}

/* Whether the cache's file NAME holds BUF (SIZE bytes) already: then it is marked used now. */
static bool holds(struct utcache *c, const char *name, const void *buf, size_t size)
{
	int fd = openat(c->dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	unsigned char chunk[16384];
	struct stat st;
	size_t off = 0;
	bool same;

	if (fd < 0)
		return false;
	same = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size == size;
	while (same && off < size) {
		size_t want = size - off < sizeof(chunk) ? size - off : sizeof(chunk);
		ssize_t r = pread(fd, chunk, want, (off_t)off);

		same = r > 0 && memcmp(chunk, (const unsigned char *)buf + off, (size_t)r) == 0;
		off += r > 0 ? (size_t)r : 0;
	}
	if (same)
		futimens(fd, NULL); /* recently used */
	close(fd);
	return same;
}

void utcache_store(struct utcache *c, const uint8_t *bid, size_t bid_len, const uint8_t *digest,
		   const void *buf, size_t size)
{
	char name[NAME_MAX_LEN], tmp[NAME_MAX_LEN + 16];
	int fd;

	if (c->dfd < 0 || !bid_len || bid_len > 20 || !digest || size > c->max_bytes)
		return;
	file_name(bid, bid_len, digest, name);
	/* A table built again while the cache's copy was on its way (a slow disk or a busy
	 * machine) is the same bytes: the file stays as it is. */
	if (holds(c, name, buf, size)) {
		c->kept++;
		return;
	}
	snprintf(tmp, sizeof(tmp), ".%s.%d", name, (int)getpid());
	fd = openat(c->dfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return;
	ssize_t w = write(fd, buf, size);

	if (close(fd) < 0 || w != (ssize_t)size || renameat(c->dfd, tmp, c->dfd, name) < 0) {
		unlinkat(c->dfd, tmp, 0);
		return;
	}
	c->stores++;
	/* The directory is read again only when the tables may have outgrown their bound. */
	c->bytes += size;
	if (c->bytes > c->max_bytes)
		trim(c);
}
