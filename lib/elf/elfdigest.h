/* elfdigest.h — the digest of what an ELF file's unwind table and function symbols are made
 * from: its headers and the sections that hold call-frame information, symbols and PLT stubs.
 * Tables and symbols are kept under it next to the build-id, which the file merely claims: a
 * file whose owner copied another binary's build-id note gets another digest, so what was
 * built from it never serves that binary (issue 24: a forged build-id poisoned the disk cache).
 * Computed by the unprivileged helper; the report may compute it of a file on disk. */
#ifndef RP_ELFDIGEST_H
#define RP_ELFDIGEST_H

#include <stdint.h>

#include "base/sha256.h"

/* SHA-256 of the ELF file open at fd into out. 0, or -errno (-ENOEXEC: not an ELF file). */
int elfdigest_fd(int fd, uint8_t out[SHA256_LEN]);

#endif
