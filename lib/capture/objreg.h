/* objreg.h — the recorder's one registry of mapped objects, and its one helper.
 *
 * Every executable file mapping the recorder drains names an object: a file by device and
 * inode (and the inode's generation: an inode number given to another file, a library
 * dlopened where a dlclosed one was, a binary replaced under its name, each is an object of
 * its own), else by the build-id its MMAP2 carried, else by its path; and the vdso. For each,
 * the registry holds what it is: its path, a place it is mapped (to open it by), and, once the
 * helper said, its build-id and the digest of what it holds (lib/elf/elfdigest.h).
 *
 * One unprivileged helper (uhelper, helper/ringprof-unwind.c) answers about every object: its
 * build-id and function symbols, asked once for each file named by inode when build-ids are
 * wanted (objreg_want_build_ids()); its unwind table, when the unwinder asks
 * (objreg_submit_table()). Files are opened by the helper client's worker thread, never in the
 * drain pass. Tables go first: a table request goes ahead of the build-id requests not sent to
 * the helper yet (uhelper.h), and a build-id a sample waits for is asked for first.
 *
 * Its users keep their own state per object in arrays indexed like the registry: bids (the
 * BUILDID and SYMTAB records) and the unwinder (tables). They learn of answers through the
 * listeners they set. Nothing here blocks.
 */
#ifndef RP_OBJREG_H
#define RP_OBJREG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/opener.h"
#include "format/perfrec.h"
#include "unwind/proto.h"

#define OBJREG_NONE UINT32_MAX /* a mapping of no file (anonymous, JIT, [heap]...) */

enum objreg_id_state {
	OBJREG_ID_UNASKED, /* not asked (not named by inode, or build-ids are not wanted) */
	OBJREG_ID_NEW,	   /* to be asked (objreg_poll() sends it when there is room) */
	OBJREG_ID_PENDING, /* with the helper */
	OBJREG_ID_KNOWN,   /* build-id known (from the helper, or the MMAP2 carried it) */
	OBJREG_ID_NONE,	   /* none in the file, or it could not be read */
};

struct objreg_obj {
	uint8_t id_state; /* enum objreg_id_state */
	uint8_t bid_len;
	uint8_t bid[20];
	uint8_t digest_len;		/* 0 until the helper said what the file holds */
	uint8_t digest[UWP_DIGEST_LEN]; /* ... (lib/elf/elfdigest.h) */
	bool vdso;
	bool by_inode;	  /* named by device and inode (else by build-id, path or vdso) */
	bool hurried;	  /* a sample waits for it (objreg_hurry()) */
	bool id_by_table; /* its build-id comes with its table (one request: UWP_TABLE_SYMS) */
	uint32_t maj, min;
	uint64_t ino;
	uint64_t gen; /* the inode's generation (0: not known) */
	/* a place it is mapped, to open it by */
	uint32_t pid;
	uint64_t start, end;
	const char *path; /* the registry's copy */
};

struct uhelper;
struct uhelper_reply;
struct objreg;

/* A registry and its helper. Without the helper (not found, cannot start) it still names
 * objects, and *note says why no one answers about them (else it is ""). NULL when out of
 * memory. */
struct objreg *objreg_new(char *note, size_t note_size);
/* The same with a scripted helper (uhelper_start_scripted()), for tests. */
struct objreg *objreg_new_scripted(int (*script)(void *arg, int sock), void *arg, char *note,
				   size_t note_size);
struct objreg *objreg_free(struct objreg *g);
bool objreg_has_helper(const struct objreg *g);
/* The helper, for its deaths and why it does not run. */
const struct uhelper *objreg_helper(const struct objreg *g);
/* The worker thread its users hand their disk work to (the table cache, symbol files). */
struct cachework;
struct cachework *objreg_disk(struct objreg *g);

/* Ask the helper for the build-id (and, with syms, the function symbols) of each file named by
 * inode, from now on. */
void objreg_want_build_ids(struct objreg *g, bool syms);

/* The object an executable mapping names (m->prot is not looked at): found, or added. A file
 * named by inode whose generation differs from the object's is another file: a new object,
 * which the inode names from now on. OBJREG_NONE for a mapping of no file, or out of memory.
 * Calling it again for the same record gives the same object. */
uint32_t objreg_map(struct objreg *g, const struct perfrec_mmap *m);
/* Object i, a number objreg_map() gave. */
const struct objreg_obj *objreg_obj(const struct objreg *g, uint32_t i);
/* What object i holds, as a table reply said it (kept when the registry did not know). */
void objreg_set_digest(struct objreg *g, uint32_t i, const uint8_t *digest);

/* FN(ARG, i, r) when the helper answered the build-id request of object i (r->status < 0: it
 * failed, r->why says why; the object's id_state says what was learnt). r->buf, the symbols,
 * may be taken (set to NULL). At most two listeners, called in the order set. */
void objreg_on_identified(struct objreg *g,
			  void (*fn)(void *arg, uint32_t i, struct uhelper_reply *r), void *arg);
/* FN(ARG, i, r) with the answer to a table request for object i; r->buf is the callee's. And
 * FEED(ARG), called in each objreg_poll() after the answers were handed out: it submits the
 * tables samples wait for. */
void objreg_on_table(struct objreg *g, void (*fn)(void *arg, uint32_t i, struct uhelper_reply *r),
		     void (*feed)(void *arg), void *arg);

/* Ask for object i's unwind table, opening its file at F (a worker thread opens it): when its
 * build-id has not been asked for yet, one request asks for the table, the build-id and the
 * symbols together (the identified listeners hear of it as of a build-id reply). Or,
 * objreg_submit_table_fd(), from FD (taken over). 0; -EAGAIN when the queue has no room (try
 * again later); -EPIPE when there is no helper. */
int objreg_submit_table(struct objreg *g, uint32_t i, const struct opener_file *f);
int objreg_submit_table_fd(struct objreg *g, uint32_t i, int fd);
/* A sample of process PID, which maps object i at START-END, waits for it: its build-id, if
 * not asked for yet, is asked for first, through that mapping. */
void objreg_hurry(struct objreg *g, uint32_t i, uint32_t pid, uint64_t start, uint64_t end);
/* Table requests not answered yet; build-id requests not answered yet. */
size_t objreg_tables_busy(const struct objreg *g);
size_t objreg_ids_pending(const struct objreg *g);
/* Running, or paused after too many deaths (requests are taken and wait). */
bool objreg_helper_alive(const struct objreg *g);

/* The helper's socket to wait on (-1: none), and how many helpers were started (a new socket
 * after a restart may have the old one's number). */
int objreg_fd(const struct objreg *g);
unsigned objreg_fd_gen(const struct objreg *g);
/* Take the helper's answers and hand them to the listeners; let the table feeder submit; send
 * the build-id requests that wait, while there is room. Once per drain pass; readable: the
 * helper's socket was reported readable (or hung up) since the last call. Never blocks. */
void objreg_poll(struct objreg *g, bool readable);

#endif
