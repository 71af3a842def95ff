/* cursor.h — the name of the last recording sent (and how many units of the next one), kept in
 * a file across restarts; the recordings after it. */
#ifndef RP_PUSH_CURSOR_H
#define RP_PUSH_CURSOR_H

#include <stddef.h>

struct push;
struct recdir_entry;

/* Read p->cursor_path into p->cursor, p->partial and p->partial_sent (none: empty). */
void cursor_load(struct push *p);

/* NAME becomes the cursor: every file up to it was sent. 0 or -errno (said). */
int cursor_save(struct push *p, const char *name);

/* The first SENT units of NAME, the file after the cursor, were sent. 0 or -errno (said). */
int cursor_save_units(struct push *p, const char *name, unsigned sent);

/* The recordings of p->dir after the cursor, in time order, up to the first one still being
 * written: malloc'd in *ret, *ret_n of them. 0, -errno (said) or CURSOR_BAD (said). */
int cursor_pending(const struct push *p, struct recdir_entry **ret, size_t *ret_n);

#endif
