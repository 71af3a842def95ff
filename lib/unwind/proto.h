/* proto.h — the recorder <-> unwind-table helper protocol, over a SOCK_SEQPACKET socketpair.
 *
 * The recorder sends one uwp_request per binary with the binary's file descriptor attached
 * (SCM_RIGHTS). The helper (helper/ringprof-unwind.c), running without privileges, answers
 * each request, in order, with one uwp_reply carrying the binary's build-id; for a table
 * request, on success a sealed memfd holding the table (lib/unwind/utab.h) is attached; for a
 * build-id request with symbols, a sealed memfd holding the binary's function symbols
 * (struct uwp_symtab_hdr, then a base/symx.h run) when it has any. A memfd rather than the
 * message itself because a table may be megabytes (a SEQPACKET message is bounded by the
 * socket buffer) and the helper never blocks on the recorder. The recorder treats every reply
 * as untrusted: it checks the id, bounds the size, copies the table and runs utab_check() (or
 * decodes every symbol entry) before use.
 */
#ifndef RP_UWPROTO_H
#define RP_UWPROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define UWP_MAGIC 0x52505557u	  /* "RPUW" */
#define UWP_MAX_TABLE (64u << 20) /* the largest table the recorder accepts */
#define UWP_DIGEST_LEN 16
/* The largest symbol table the helper sends (bytes of struct uwp_symtab_hdr and the run):
 * above it the binary goes without captured symbols (sym_status -E2BIG). libc's is 90 KiB, a
 * large C++ program's .symtab some MiB. */
#define UWP_MAX_SYMTAB (16u << 20)
#define UWP_SYMTAB_MAGIC 0x58535052u /* "RPSX" */

enum uwp_kind {
	UWP_TABLE = 0,	       /* build the binary's unwind table */
	UWP_BUILD_ID = 1,      /* only read its build-id (no table is attached to the reply) */
	UWP_BUILD_ID_SYMS = 2, /* its build-id and, attached, its function symbols */
	UWP_TABLE_SYMS = 3,    /* all at once: the table, and after it in the same memfd the
				* symbols (sym_size bytes; the build-id as for a table) */
};

/* Where captured symbols came from (uwp_symtab_hdr.source, RP_REC_SYMTAB's flags). */
enum {
	UWP_SYMS_SYMTAB = 1u << 0,	  /* .symtab */
	UWP_SYMS_DYNSYM = 1u << 1,	  /* .dynsym */
	UWP_SYMS_GNU_DEBUGDATA = 1u << 2, /* the .symtab of .gnu_debugdata (MiniDebugInfo) */
};

/* The head of the symbol memfd of a UWP_BUILD_ID_SYMS reply; a symx run of n entries with
 * base 0 follows, up to the reply's size. */
struct uwp_symtab_hdr {
	uint32_t magic; /* UWP_SYMTAB_MAGIC */
	uint32_t n;
	uint32_t source; /* UWP_SYMS_* */
	uint32_t reserved;
};

struct uwp_request {
	uint32_t magic; /* UWP_MAGIC */
	uint32_t id;	/* echoed in the reply */
	uint32_t kind;	/* enum uwp_kind */
	uint32_t reserved;
};

struct uwp_reply {
	uint32_t magic;
	uint32_t id;
	int32_t status;	      /* 0: a table is attached; else -errno (no table for this binary) */
	int32_t sym_status;   /* UWP_BUILD_ID_SYMS with status 0: 0 when symbols are attached, else
			       * -ENOENT (none), -E2BIG (above UWP_MAX_SYMTAB) or another -errno */
	uint64_t size;	      /* bytes of the table (or symbols) in the attached memfd */
	uint64_t build_ns;    /* time the helper spent on it */
	uint8_t build_id_len; /* the binary's build-id (status 0; 0: it has none) */
	uint8_t build_id[20];
	uint8_t digest_len; /* UWP_DIGEST_LEN, or 0 when the file is not ELF */
	uint8_t pad2[2];
	/* What the table and symbols are made of (lib/elf/elfdigest.h), the first bytes of its
	 * SHA-256: the build-id is what the file claims, this is what it holds. Sent with every
	 * reply whatever its status. */
	uint8_t digest[16];
	char why[160];	   /* status != 0: a sentence for the user, NUL-terminated */
	uint64_t sym_size; /* UWP_TABLE_SYMS with sym_status 0: bytes of symbols after the table */
};

/* Send one message of len bytes with fd attached (fd < 0: none); MSG_NOSIGNAL is added to
 * flags. sendmsg()'s result (EINTR retried). */
ssize_t uwp_send(int sock, const void *buf, size_t len, int fd, int flags);
/* Receive one message into buf (at most len bytes; *ret_trunc when it was longer): its size
 * (0: the peer's EOF, unless it carried an fd), or recvmsg()'s -1 with errno (EINTR retried).
 * The first descriptor it carried goes to *ret_fd (close-on-exec; -1: none), others are
 * closed. */
ssize_t uwp_recv(int sock, void *buf, size_t len, int flags, int *ret_fd, bool *ret_trunc);

#endif
