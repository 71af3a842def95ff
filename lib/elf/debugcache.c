/* debugcache.c — see debugcache.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/buildid.h"
#include "base/grow.h"
#include "base/sha256.h"
#include "elf/debugcache.h"

#define ID_MAX 64
#define TMP_PREFIX ".tmp-"
#define TMP_STALE_S 3600 /* a temporary file this old was left by a run that died */

/* What an original file is: its compressed debug bytes, their inflated size, its build-id. */
struct orig {
	uint64_t compressed, inflated, total; /* total: the copy's size, about */
	uint8_t id[ID_MAX];
	size_t id_len;
	char name[2 * ID_MAX + 1 + 2 * 16 + sizeof(".debug")];
};

char *debugcache_default_dir(void)
{
	const char *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
	char *p = NULL;

	if (x && x[0] == '/') {
		if (asprintf(&p, "%s/ringprof/debug", x) < 0)
			return NULL;
	} else if (h && h[0] == '/') {
		if (asprintf(&p, "%s/.cache/ringprof/debug", h) < 0)
			return NULL;
	}
	return p;
}

/* The inflated size of section SCN (its own size when not compressed): 0 or -errno. */
static int inflated_size(Elf_Scn *scn, const GElf_Shdr *sh, uint64_t *ret)
{
	GElf_Chdr ch;

	if (!(sh->sh_flags & SHF_COMPRESSED)) {
		*ret = sh->sh_type == SHT_NOBITS ? 0 : sh->sh_size;
		return 0;
	}
	if (!gelf_getchdr(scn, &ch))
		return -EINVAL;
	*ret = ch.ch_size;
	return 0;
}

/* Look at ELF (FD's): what is compressed, how large the copy would be. 0 or -errno. */
static int survey(Elf *elf, uint64_t min_compressed, struct orig *o)
{
	size_t shnum, shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (elf_kind(elf) != ELF_K_ELF || elf_getshdrnum(elf, &shnum) < 0 ||
	    elf_getshdrstrndx(elf, &shstrndx) < 0)
		return -ENOENT;
	if (shnum >= SHN_LORESERVE || shstrndx >= SHN_LORESERVE)
		return -ENOTSUP;
	o->total = sizeof(Elf64_Ehdr) + shnum * (sizeof(Elf64_Shdr) + 16); /* 16: alignment */
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		uint64_t size;

		if (!gelf_getshdr(scn, &sh))
			return -EINVAL;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strncmp(name, ".zdebug", 7))
			return -ENOTSUP;
		if (inflated_size(scn, &sh, &size) < 0)
			return -EINVAL;
		o->total += size;
		if ((sh.sh_flags & SHF_COMPRESSED) && name && !strncmp(name, ".debug_", 7)) {
			o->compressed += sh.sh_size;
			o->inflated += size;
		}
	}
	return o->compressed < min_compressed || !o->compressed ? -ENOENT : 0;
}

/* The entry's name: build-id, then a digest of FD's identity, which its owner cannot choose
 * all of (the change time and inode are the kernel's). 0 or -errno. */
static int entry_name(int fd, struct orig *o)
{
	struct stat st;
	struct sha256 s;
	uint8_t d[SHA256_LEN];
	uint64_t key[8];
	char hex[2 * ID_MAX + 1], dh[2 * 16 + 1];

	if (fstat(fd, &st) < 0)
		return -errno;
	if (buildid_read_fd(fd, o->id, sizeof(o->id), &o->id_len) < 0 || !o->id_len)
		return -ENOENT;
	key[0] = st.st_dev;
	key[1] = st.st_ino;
	key[2] = (uint64_t)st.st_size;
	key[3] = (uint64_t)st.st_mtim.tv_sec;
	key[4] = (uint64_t)st.st_mtim.tv_nsec;
	key[5] = (uint64_t)st.st_ctim.tv_sec;
	key[6] = (uint64_t)st.st_ctim.tv_nsec;
	key[7] = 1; /* the layout of this key and of the entries */
	sha256_init(&s);
	sha256_update(&s, key, sizeof(key));
	sha256_update(&s, o->id, o->id_len);
	sha256_final(&s, d);
	buildid_to_hex(o->id, o->id_len, hex);
	buildid_to_hex(d, 16, dh);
	snprintf(o->name, sizeof(o->name), "%s-%s.debug", hex, dh);
	return 0;
}

/* PATH, a directory on the way to the cache, made (mode 0700) when MAKE and missing: 0 when it
 * is a directory of this user's or root's that nobody else may write in (a symbolic link to
 * one, the link itself this user's or root's), or -errno. Else a directory somebody else can
 * change (a home of another user, reached by a root with that user's HOME) could lead the
 * cache's writes anywhere with a symbolic link. */
static int safe_dir(const char *path, bool make)
{
	uid_t me = geteuid();
	struct stat st;

	if (make && mkdir(path, 0700) < 0 && errno != EEXIST)
		return -errno;
	if (lstat(path, &st) < 0)
		return -errno;
	if (S_ISLNK(st.st_mode) && st.st_uid != me && st.st_uid != 0)
		return -EPERM;
	if (stat(path, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode) || (st.st_uid != me && st.st_uid != 0) || (st.st_mode & 022))
		return -EPERM;
	return 0;
}

/* Open DIR (…/ringprof/debug) when it is this user's and nobody else may write in it, nor in
 * the three directories above it (~/.cache/ringprof/debug: ~ too); DIR and the two above it
 * are made (mode 0700) when missing. The descriptor, or -errno. */
static int open_dir(const char *dir)
{
	char *p = strdup(dir), *cut[3] = { NULL };
	struct stat st;
	int fd, r = 0;

	if (!p)
		return -ENOMEM;
	for (int i = 0; i < 3; i++) {
		cut[i] = strrchr(p, '/');
		if (!cut[i] || cut[i] == p) {
			free(p);
			return -EPERM; /* too near the root to be a user's cache */
		}
		*cut[i] = '\0';
	}
	for (int i = 3; i >= 0 && r == 0; i--) {
		r = safe_dir(p, i < 3);
		if (i > 0)
			*cut[i - 1] = '/';
	}
	free(p);
	if (r < 0)
		return r;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 022)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* The headers of copy C match those of original O, with O's compressed sections inflated. */
static bool same_layout(Elf *o, Elf *c, uint64_t file_size)
{
	size_t on, cn, ostr, cstr, oph, cph;
	GElf_Ehdr oe, ce;

	if (elf_kind(c) != ELF_K_ELF || !gelf_getehdr(o, &oe) || !gelf_getehdr(c, &ce) ||
	    memcmp(oe.e_ident, ce.e_ident, EI_NIDENT) || oe.e_type != ce.e_type ||
	    oe.e_machine != ce.e_machine || oe.e_flags != ce.e_flags || oe.e_entry != ce.e_entry)
		return false;
	if (elf_getshdrnum(o, &on) < 0 || elf_getshdrnum(c, &cn) < 0 || on != cn ||
	    elf_getshdrstrndx(o, &ostr) < 0 || elf_getshdrstrndx(c, &cstr) < 0 || ostr != cstr ||
	    elf_getphdrnum(o, &oph) < 0 || elf_getphdrnum(c, &cph) < 0 || oph != cph)
		return false;
	for (size_t i = 0; i < oph; i++) {
		GElf_Phdr a, b;

		if (!gelf_getphdr(o, (int)i, &a) || !gelf_getphdr(c, (int)i, &b) ||
		    memcmp(&a, &b, sizeof(a)))
			return false;
	}
	for (size_t i = 1; i < on; i++) {
		Elf_Scn *os = elf_getscn(o, i), *cs = elf_getscn(c, i);
		GElf_Shdr a, b;
		uint64_t size;

		if (!os || !cs || !gelf_getshdr(os, &a) || !gelf_getshdr(cs, &b) ||
		    inflated_size(os, &a, &size) < 0)
			return false;
		if (a.sh_name != b.sh_name || a.sh_type != b.sh_type || a.sh_addr != b.sh_addr ||
		    a.sh_link != b.sh_link || a.sh_info != b.sh_info ||
		    a.sh_entsize != b.sh_entsize || b.sh_flags != (a.sh_flags & ~SHF_COMPRESSED))
			return false;
		if (b.sh_type != SHT_NOBITS && (b.sh_size != size || b.sh_offset > file_size ||
						size > file_size - b.sh_offset))
			return false;
		if (b.sh_type == SHT_NOBITS && b.sh_size != a.sh_size)
			return false;
	}
	return true;
}

/* Whether entry FD may stand for the original ORIG (O its build-id). */
static bool entry_usable(int fd, Elf *orig, const struct orig *o)
{
	uint8_t id[ID_MAX];
	struct stat st;
	size_t len;
	bool ok;
	Elf *c;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022) || st.st_nlink != 1)
		return false;
	if (buildid_read_fd(fd, id, sizeof(id), &len) < 0 || len != o->id_len ||
	    memcmp(id, o->id, len))
		return false;
	c = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!c)
		return false;
	ok = same_layout(orig, c, (uint64_t)st.st_size);
	elf_end(c);
	return ok;
}

/* Copy section S of SRC into a new section of DST at *OFF, inflated. 0 or -errno. */
static int copy_section(Elf_Scn *s, Elf *dst, uint64_t *off)
{
	Elf_Scn *d = elf_newscn(dst);
	Elf_Data *in, *out;
	GElf_Shdr sh;
	uint64_t align;

	if (!d || !gelf_getshdr(s, &sh))
		return -EINVAL;
	if ((sh.sh_flags & SHF_COMPRESSED) && (elf_compress(s, 0, 0) < 0 || !gelf_getshdr(s, &sh)))
		return -EINVAL;
	in = elf_getdata(s, NULL);
	if (in) {
		out = elf_newdata(d);
		if (!out)
			return -ENOMEM;
		*out = *in;
		out->d_off = 0;
	}
	align = sh.sh_addralign > 1 ? sh.sh_addralign : 1;
	if (align & (align - 1))
		return -EINVAL;
	*off = (*off + align - 1) & ~(align - 1);
	sh.sh_offset = *off;
	if (sh.sh_type != SHT_NOBITS)
		*off += sh.sh_size;
	return gelf_update_shdr(d, &sh) ? 0 : -EINVAL;
}

/* Write the copy of SRC, its compressed sections inflated, to OUT. SRC's compressed sections
 * are inflated in memory on the way (SRC is ours: it is not read again). 0 or -errno. */
static int write_copy(Elf *src, int out)
{
	Elf *dst = elf_begin(out, ELF_C_WRITE, NULL);
	size_t phnum;
	Elf_Scn *s = NULL;
	GElf_Ehdr eh;
	uint64_t off;
	int r = -EINVAL;

	if (!dst)
		return -ENOMEM;
	if (!gelf_getehdr(src, &eh) || elf_getphdrnum(src, &phnum) < 0 ||
	    !gelf_newehdr(dst, gelf_getclass(src)))
		goto out;
	if (phnum && !gelf_newphdr(dst, phnum))
		goto out;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(src, (int)i, &ph) || !gelf_update_phdr(dst, (int)i, &ph))
			goto out;
	}
	eh.e_phoff = phnum ? eh.e_ehsize : 0;
	off = eh.e_ehsize + (uint64_t)phnum * eh.e_phentsize;
	while ((s = elf_nextscn(src, s)))
		if ((r = copy_section(s, dst, &off)) < 0)
			goto out;
	eh.e_shoff = (off + 7) & ~7ULL;
	r = -EINVAL;
	if (!gelf_update_ehdr(dst, &eh))
		goto out;
	elf_flagelf(dst, ELF_C_SET, ELF_F_LAYOUT);
	r = elf_update(dst, ELF_C_WRITE) < 0 ? -EIO : 0;
out:
	elf_end(dst);
	return r;
}

struct entry {
	char *name;
	uint64_t size;
	struct timespec used;
};

static int cmp_used(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->used.tv_sec != y->used.tv_sec)
		return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
	return (x->used.tv_nsec > y->used.tv_nsec) - (x->used.tv_nsec < y->used.tv_nsec);
}

/* Remove the oldest used entries of DFD until NEED more bytes fit in MAX, and temporary files
 * left by runs that died. */
static void make_room(int dfd, uint64_t max, uint64_t need)
{
	struct entry *e = NULL;
	size_t n = 0, cap = 0;
	uint64_t total = 0;
	struct dirent *de;
	int fd = dup(dfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d))) {
		struct stat st;
		size_t len = strlen(de->d_name);
		bool tmp = !strncmp(de->d_name, TMP_PREFIX, strlen(TMP_PREFIX));

		if ((!tmp && (len < 6 || strcmp(de->d_name + len - 6, ".debug"))) ||
		    fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (tmp) {
			if (st.st_mtim.tv_sec + TMP_STALE_S < time(NULL))
				unlinkat(dfd, de->d_name, 0);
			continue;
		}
		total += (uint64_t)st.st_size;
		if (GROW(e, cap, n + 1) < 0 || !(e[n].name = strdup(de->d_name)))
			continue;
		e[n].size = (uint64_t)st.st_size;
		e[n++].used = st.st_mtim;
	}
	closedir(d);
	if (n)
		qsort(e, n, sizeof(*e), cmp_used);
	for (size_t i = 0; i < n && total + need > max; i++)
		if (unlinkat(dfd, e[i].name, 0) == 0)
			total -= e[i].size;
	for (size_t i = 0; i < n; i++)
		free(e[i].name);
	free(e);
}

/* Make entry O->name in DFD from SRC (FD's ELF, inflated by this): 0 or -errno. */
static int make_entry(int dfd, Elf *src, const struct orig *o, uint64_t max)
{
	char tmp[64];
	uint64_t rnd = 0;
	int fd, r;

	make_room(dfd, max, o->total);
	(void)getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK);
	snprintf(tmp, sizeof(tmp), TMP_PREFIX "%d-%016llx", (int)getpid(), (unsigned long long)rnd);
	fd = openat(dfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	r = write_copy(src, fd);
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (r == 0 && renameat(dfd, tmp, dfd, o->name) < 0)
		r = -errno;
	if (r < 0)
		unlinkat(dfd, tmp, 0);
	close(fd);
	return r;
}

int debugcache_open(const char *dir, const struct debugcache_bounds *b, bool make, int fd)
{
	static const struct debugcache_bounds defaults = { DEBUGCACHE_MAX_BYTES,
							   DEBUGCACHE_MIN_COMPRESSED };
	struct orig o = { 0 };
	Elf *elf;
	int dfd, efd, r;

	if (!dir || fd < 0)
		return -EINVAL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOTSUP;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return -ENOENT;
	if (!b)
		b = &defaults;
	r = survey(elf, b->min_compressed, &o);
	if (r == 0 && o.total > b->max_bytes / 4)
		r = -EFBIG;
	if (r == 0)
		r = entry_name(fd, &o);
	dfd = r == 0 ? open_dir(dir) : r;
	if (dfd < 0) {
		elf_end(elf);
		return dfd;
	}
	efd = openat(dfd, o.name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (efd >= 0 && entry_usable(efd, elf, &o)) {
		(void)futimens(efd, NULL); /* its last use, for make_room() */
	} else if (!make) {
		if (efd >= 0)
			close(efd);
		efd = -ENOENT;
	} else {
		if (efd >= 0) {
			close(efd);
			unlinkat(dfd, o.name, 0);
		}
		/* The new entry is read back and checked as any other: a wrong copy is never used. */
		r = make_entry(dfd, elf, &o, b->max_bytes);
		efd =
		    r < 0 ? r : openat(dfd, o.name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (r == 0 && efd < 0)
			efd = -errno;
		if (efd >= 0 && !entry_usable(efd, elf, &o)) {
			close(efd);
			unlinkat(dfd, o.name, 0);
			efd = -EIO;
		}
	}
	elf_end(elf);
	close(dfd);
	return efd;
}

char *debugcache_fetched_dir(void)
{
	const char *c = getenv("DEBUGINFOD_CACHE_PATH"), *x = getenv("XDG_CACHE_HOME");
	const char *h = getenv("HOME");
	struct stat st;
	char *p = NULL;

	if (c && *c)
		return strdup(c);
	if (h && h[0] == '/') {
		if (asprintf(&p, "%s/.debuginfod_client_cache", h) < 0)
			return NULL;
		if (stat(p, &st) == 0 && S_ISDIR(st.st_mode))
			return p;
		free(p);
		p = NULL;
	}
	if (x && x[0] == '/')
		return asprintf(&p, "%s/debuginfod_client", x) < 0 ? NULL : p;
	if (h && h[0] == '/')
		return asprintf(&p, "%s/.cache/debuginfod_client", h) < 0 ? NULL : p;
	return NULL;
}

/* FD (ours) when it is a regular file of build-id ID, else closed: FD or -1. */
static int of_build_id(int fd, const uint8_t *id, size_t len)
{
	uint8_t got[ID_MAX];
	struct stat st;
	size_t got_len;

	if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
			buildid_read_fd(fd, got, sizeof(got), &got_len) < 0 || got_len != len ||
			memcmp(got, id, len))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

int debugcache_find(const char *dir, const struct debugcache_bounds *b, bool make,
		    const char *symfs, const char *fetched, const uint8_t *id, size_t len,
		    char **ret_path)
{
	char hex[2 * ID_MAX + 1];

	if (!dir || !id || len < 2 || len > ID_MAX)
		return -ENOENT;
	buildid_to_hex(id, len, hex);
	for (int i = 0; i < 3; i++) {
		char *p = NULL;
		int fd, c, r = 0;

		if (i == 0 && symfs && *symfs)
			r = asprintf(&p, "%s/usr/lib/debug/.build-id/%.2s/%s.debug", symfs, hex,
				     hex + 2);
		else if (i == 1)
			r = asprintf(&p, "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
		else if (i == 2 && fetched && *fetched)
			r = asprintf(&p, "%s/%s/debuginfo", fetched, hex);
		if (r < 0)
			return -ENOMEM;
		if (!p)
			continue;
		fd = of_build_id(open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC), id, len);
		if (fd < 0) {
			free(p);
			continue;
		}
		/* The first file of the build-id is libdwfl's choice too. */
		c = debugcache_open(dir, b, make, fd);
		close(fd);
		if (c >= 0)
			*ret_path = p;
		else
			free(p);
		return c;
	}
	return -ENOENT;
}
