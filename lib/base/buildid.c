/* buildid.c — read the GNU build-id note of an ELF file with pread only (no libelf). */
#include "base/buildid.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* An ELF file being searched; every offset read from it is checked against size. */
struct elf {
	int fd;
	uint64_t size;
	bool is64, msb;
	bool damaged; /* a note area could not be parsed to its end */
	uint8_t *buf; /* the caller's build-id buffer */
	size_t buf_size, len;
};

static uint64_t get_uint(const struct elf *e, const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++)
		v = v << 8 | p[e->msb ? i : n - 1 - i];
	return v;
}

/* Read MEMBER of a raw TYPE (e.g. Elf64_Phdr) at BUF in the file's byte order. */
#define FIELD(e, buf, type, member)                                                                \
	get_uint(e, (buf) + offsetof(type, member), sizeof(((type *)0)->member))
#define EHDR(e, buf, m) ((e)->is64 ? FIELD(e, buf, Elf64_Ehdr, m) : FIELD(e, buf, Elf32_Ehdr, m))
#define PHDR(e, buf, m) ((e)->is64 ? FIELD(e, buf, Elf64_Phdr, m) : FIELD(e, buf, Elf32_Phdr, m))
#define SHDR(e, buf, m) ((e)->is64 ? FIELD(e, buf, Elf64_Shdr, m) : FIELD(e, buf, Elf32_Shdr, m))

/* [off, off + len) lies inside the file. */
static bool in_file(const struct elf *e, uint64_t off, uint64_t len)
{
	return off <= e->size && len <= e->size - off;
}

/* Read exactly LEN bytes at OFF, which the caller checked with in_file(). */
static int read_at(const struct elf *e, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(e->fd, (uint8_t *)buf + done, len - done, (off_t)(off + done));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EINVAL; /* the file shrank under us */
		done += (size_t)n;
	}
	return 0;
}

static uint64_t align_up(uint64_t v, uint64_t align)
{
	return (v + align - 1) & ~(align - 1);
}

/*
 * Search the notes in [off, off + len) of the file. The name follows the 12-byte header
 * directly; the descriptor and the next note start at ALIGN (4, or 8 for 8-byte aligned
 * areas such as GNU property notes), relative to the start of the area, as libelf does.
 * The area is read in chunks. Returns 1 when the build-id was copied, 0 when not found
 * (e->damaged set if the area is broken), -errno.
 */
static int scan_notes(struct elf *e, uint64_t off, uint64_t len, uint64_t align)
{
	uint8_t chunk[4096];
	uint64_t cur = 0, base = 0;
	size_t n = 0;
	int r;

	if (!in_file(e, off, len)) {
		e->damaged = true;
		return 0;
	}
	align = align == 8 ? 8 : 4;
	while (len - cur >= sizeof(Elf32_Nhdr)) {
		uint64_t namesz, descsz, type, name_off, desc_off, next;
		const uint8_t *h;

		/* Keep the header and a 4-byte name ("GNU\0") inside the chunk. */
		if (cur - base + (len - cur < 16 ? len - cur : 16) > n) {
			base = cur;
			n = len - cur < sizeof(chunk) ? (size_t)(len - cur) : sizeof(chunk);
			r = read_at(e, chunk, n, off + base);
			if (r < 0)
				return r;
		}
		h = chunk + (cur - base);
		namesz = FIELD(e, h, Elf32_Nhdr, n_namesz);
		descsz = FIELD(e, h, Elf32_Nhdr, n_descsz);
		type = FIELD(e, h, Elf32_Nhdr, n_type);

		name_off = cur + sizeof(Elf32_Nhdr);
		if (namesz > len - name_off)
			goto damaged;
		desc_off = align_up(name_off + namesz, align);
		if (desc_off > len || descsz > len - desc_off)
			goto damaged;

		if (type == NT_GNU_BUILD_ID && namesz == 4 && descsz > 0 &&
		    !memcmp(h + sizeof(Elf32_Nhdr), "GNU", 4)) {
			if (descsz > e->buf_size)
				return -ENOBUFS;
			if (desc_off + descsz <= base + n)
				memcpy(e->buf, chunk + (desc_off - base), descsz);
			else if ((r = read_at(e, e->buf, descsz, off + desc_off)) < 0)
				return r;
			e->len = descsz;
			return 1;
		}

		/* The last note of an area may lack its padding. */
		next = align_up(desc_off + descsz, align);
		cur = next < len ? next : len;
	}
	return 0;

damaged:
	e->damaged = true;
	return 0;
}

/*
 * Call FN on each of the NUM entries of ENTSIZE bytes of the table at OFF, already checked
 * with table_ok(), reading the table in chunks. Stops at FN's first non-zero value.
 */
static int for_each_entry(struct elf *e, uint64_t off, uint64_t num, uint64_t entsize,
			  int (*fn)(struct elf *e, const uint8_t *ent))
{
	uint8_t chunk[4096];
	uint64_t per_chunk = sizeof(chunk) / entsize;
	int r = 0;

	for (uint64_t i = 0; i < num && r == 0; i++) {
		const uint8_t *ent = chunk;

		if (per_chunk == 0) {
			/* Oversized entries: only the standard fields at their start are used. */
			r = read_at(e, chunk, sizeof(Elf64_Shdr), off + i * entsize);
		} else if (i % per_chunk == 0) {
			uint64_t count = num - i < per_chunk ? num - i : per_chunk;

			r = read_at(e, chunk, (size_t)(count * entsize), off + i * entsize);
		}
		if (r < 0)
			return r;
		if (per_chunk > 0)
			ent = chunk + (i % per_chunk) * entsize;
		r = fn(e, ent);
	}
	return r;
}

static int phdr_note(struct elf *e, const uint8_t *ph)
{
	if (PHDR(e, ph, p_type) != PT_NOTE)
		return 0;
	return scan_notes(e, PHDR(e, ph, p_offset), PHDR(e, ph, p_filesz), PHDR(e, ph, p_align));
}

static int shdr_note(struct elf *e, const uint8_t *sh)
{
	if (SHDR(e, sh, sh_type) != SHT_NOTE)
		return 0;
	return scan_notes(e, SHDR(e, sh, sh_offset), SHDR(e, sh, sh_size),
			  SHDR(e, sh, sh_addralign));
}

/* A table of NUM entries of ENTSIZE >= MIN_ENTSIZE bytes at OFF lies inside the file. */
static bool table_ok(const struct elf *e, uint64_t off, uint64_t num, uint64_t entsize,
		     size_t min_entsize)
{
	if (num == 0)
		return true;
	if (entsize < min_entsize || num > e->size / entsize)
		return false;
	return in_file(e, off, num * entsize);
}

int buildid_read_fd(int fd, uint8_t *buf, size_t size, size_t *ret_len)
{
	struct elf e = { .fd = fd, .buf = buf, .buf_size = size };
	uint64_t phoff, phentsize, phnum, shoff, shentsize, shnum;
	size_t ehdr_size, phdr_size, shdr_size;
	uint8_t ehdr[sizeof(Elf64_Ehdr)], sh0[sizeof(Elf64_Shdr)];
	struct stat st;
	int r;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_size < SELFMAG)
		return -ENOEXEC;
	e.size = (uint64_t)st.st_size;

	r = read_at(&e, ehdr, e.size < sizeof(ehdr) ? (size_t)e.size : sizeof(ehdr), 0);
	if (r < 0)
		return r;
	if (memcmp(ehdr, ELFMAG, SELFMAG))
		return -ENOEXEC;
	if (e.size < EI_NIDENT)
		return -EINVAL;
	if (ehdr[EI_CLASS] != ELFCLASS32 && ehdr[EI_CLASS] != ELFCLASS64)
		return -EINVAL;
	if (ehdr[EI_DATA] != ELFDATA2LSB && ehdr[EI_DATA] != ELFDATA2MSB)
		return -EINVAL;
	e.is64 = ehdr[EI_CLASS] == ELFCLASS64;
	e.msb = ehdr[EI_DATA] == ELFDATA2MSB;
	ehdr_size = e.is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	phdr_size = e.is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
	shdr_size = e.is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	if (e.size < ehdr_size)
		return -EINVAL;

	phoff = EHDR(&e, ehdr, e_phoff);
	phentsize = EHDR(&e, ehdr, e_phentsize);
	phnum = EHDR(&e, ehdr, e_phnum);
	shoff = EHDR(&e, ehdr, e_shoff);
	shentsize = EHDR(&e, ehdr, e_shentsize);
	shnum = shoff ? EHDR(&e, ehdr, e_shnum) : 0;

	/* Extended numbering: the real counts live in section header 0. */
	if (phnum == PN_XNUM || (shoff && shnum == 0)) {
		if (!shoff || !table_ok(&e, shoff, 1, shentsize, shdr_size))
			return -EINVAL;
		r = read_at(&e, sh0, shdr_size, shoff);
		if (r < 0)
			return r;
		if (phnum == PN_XNUM)
			phnum = SHDR(&e, sh0, sh_info);
		if (shnum == 0)
			shnum = SHDR(&e, sh0, sh_size);
	}

	if (!table_ok(&e, phoff, phnum, phentsize, phdr_size))
		return -EINVAL;
	r = for_each_entry(&e, phoff, phnum, phentsize, phdr_note);
	if (r < 0)
		return r;

	/* No build-id in the segments (or no segments): look at the sections. */
	if (r == 0 && shnum > 0) {
		if (!table_ok(&e, shoff, shnum, shentsize, shdr_size))
			return -EINVAL;
		r = for_each_entry(&e, shoff, shnum, shentsize, shdr_note);
		if (r < 0)
			return r;
	}
	if (r == 0)
		return e.damaged ? -EINVAL : -ENOENT;
	*ret_len = e.len;
	return 0;
}

int buildid_read_path(const char *path, uint8_t *buf, size_t size, size_t *ret_len)
{
	int fd, r;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	r = buildid_read_fd(fd, buf, size, ret_len);
	close(fd);
	return r;
}

void buildid_to_hex(const uint8_t *id, size_t len, char *out)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < len; i++) {
		out[2 * i] = digits[id[i] >> 4];
		out[2 * i + 1] = digits[id[i] & 0xf];
	}
	out[2 * len] = '\0';
}
