/* buildid.h — read the GNU build-id note of an ELF file with pread only (no libelf). */
#ifndef RP_BUILDID_H
#define RP_BUILDID_H

#include <stddef.h>
#include <stdint.h>

/*
 * Find the NT_GNU_BUILD_ID note (name "GNU") of the ELF file FD (ELF32 or ELF64, either byte
 * order) and copy its descriptor to BUF. Notes are searched in PT_NOTE segments first; when
 * none of them holds a build-id (or there are none, as in relocatable objects), in SHT_NOTE
 * sections. Every offset and size taken from the file is checked against the file size
 * before use. FD is not consumed and its file offset is not changed (pread only).
 *
 * Returns 0 and *ret_len (typically 20), or:
 *   -ENOEXEC  not an ELF file (no ELF magic, not a regular file)
 *   -ENOENT   a valid ELF file without a build-id
 *   -EINVAL   damaged ELF: bad class/encoding, header tables out of bounds, or a note that
 *             runs past its segment/section while no build-id was found elsewhere
 *   -ENOBUFS  the build-id is longer than SIZE
 *   -errno    from fstat/pread
 * *ret_len is written only on success, BUF only once the note has been found.
 */
int buildid_read_fd(int fd, uint8_t *buf, size_t size, size_t *ret_len);

/* Same as buildid_read_fd() on a file opened read-only; also -errno from open. */
int buildid_read_path(const char *path, uint8_t *buf, size_t size, size_t *ret_len);

/* Format ID as lower-case hex into OUT, which must hold 2 * LEN + 1 bytes. */
void buildid_to_hex(const uint8_t *id, size_t len, char *out);

#endif
