/* symcap.h — a binary's function symbols, extracted for the recorder to store (the helper's
 * libelf adapter for symbols; utabbuild.c is the one for unwind tables). */
#ifndef RP_SYMCAP_H
#define RP_SYMCAP_H

#include <stddef.h>
#include <stdint.h>

/*
 * The function symbols of the ELF file open on FD (FD is not consumed): from .symtab when it
 * has one, else .dynsym together with the .symtab inside .gnu_debugdata (MiniDebugInfo, xz,
 * unpacked by libdw's dwelf_elf_begin). Each symbol's start is turned into a file offset
 * through the PT_LOAD segments; symbols outside them are left out, and of several at one
 * start the best ranked (sized, global, a function) is kept. On success *ret_buf is a
 * malloc'd struct uwp_symtab_hdr followed by a symx run (base/symx.h), *ret_size bytes at
 * most UWP_MAX_SYMTAB (the caller frees it). Returns 0 or, with a sentence in why:
 *   -ENOEXEC  not an ELF file
 *   -ENOENT   no function symbols inside the file's loadable segments
 *   -E2BIG    the table would be larger than UWP_MAX_SYMTAB
 *   -ENOMEM
 */
int symcap_extract_fd(int fd, void **ret_buf, size_t *ret_size, char *why, size_t why_size);

#endif
