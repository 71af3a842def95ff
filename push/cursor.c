/* cursor.c — the name of the last recording sent, kept in a file across restarts. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "format/recdir.h"
#include "cursor.h"
#include "push.h"

void cursor_load(struct push *p)
{
	FILE *f = fopen(p->cursor_path, "re");

	char line[RECDIR_NAME_MAX + 32];

	p->cursor[0] = p->partial[0] = '\0';
	p->partial_sent = 0;
	if (!f)
		return; /* none yet: everything closed is sent */
	if (fgets(p->cursor, sizeof(p->cursor), f))
		p->cursor[strcspn(p->cursor, "\r\n")] = '\0';
	/* A second line "NAME K": K units of the next file were sent already. */
	if (fgets(line, sizeof(line), f)) {
		char *sp = strrchr(line, ' ');

		if (sp && sp != line && sp - line < RECDIR_NAME_MAX) {
			*sp = '\0';
			util_strlcpy(p->partial, line, sizeof(p->partial));
			p->partial_sent = (unsigned)strtoul(sp + 1, NULL, 10);
		}
	}
	fclose(f);
}

/* NAME becomes the cursor (or, with SENT > 0, the file after it whose first SENT units were
 * sent): written beside it and renamed over it, synced, so that a crash leaves the old cursor
 * or the new one. 0 or -errno (said). */
int cursor_save_units(struct push *p, const char *name, unsigned sent)
{
	char tmp[4096];
	int fd, rc = 0, w;

	snprintf(tmp, sizeof(tmp), "%s.tmp", p->cursor_path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	w = fd < 0 ? -1
	    : sent ? dprintf(fd, "%s\n%s %u\n", p->cursor, name, sent)
		   : dprintf(fd, "%s\n", name);
	if (fd < 0 || w < 0 || fsync(fd) < 0)
		rc = -errno;
	if (fd >= 0 && close(fd) < 0 && !rc)
		rc = -errno;
	if (!rc && rename(tmp, p->cursor_path) < 0)
		rc = -errno;
	if (rc) {
		fprintf(stderr, PROG ": cannot write the cursor %s: %s\n", p->cursor_path,
			strerror(-rc));
		unlink(tmp);
		return rc;
	}
	if (sent) {
		util_strlcpy(p->partial, name, sizeof(p->partial));
		p->partial_sent = sent;
	} else {
		util_strlcpy(p->cursor, name, sizeof(p->cursor));
		p->partial[0] = '\0';
		p->partial_sent = 0;
	}
	return 0;
}

int cursor_save(struct push *p, const char *name)
{
	return cursor_save_units(p, name, 0);
}
/* ---- the recordings ---- */

/* The cursor names no recording of the directory and sorts after every one there: a clock
 * that ran ahead when it was written, or a damaged cursor. Nothing would ever be sent, and
 * silently: an error. Returns CURSOR_BAD. */
static int cursor_ahead(const struct push *p, size_t n_all)
{
	fprintf(stderr,
		PROG
		": the cursor %s names '%s', which is not in %s and sorts after all %zu "
		"recordings there (a clock that ran ahead, or a damaged cursor): nothing would "
		"ever be sent. Write the name of the last recording sent into it, or remove "
		"it to send every recording again\n",
		p->cursor_path, p->cursor, p->dir, n_all);
	return CURSOR_BAD;
}

/* The recordings of the directory after the cursor, in time order (format/recdir.h), up to the
 * first one still being written (a later closed file must wait for it, or the cursor would pass
 * it by): malloc'd in *ret, *ret_n of them. 0, -errno (said) or CURSOR_BAD (said). */
int cursor_pending(const struct push *p, struct recdir_entry **ret, size_t *ret_n)
{
	struct recdir_entry *v = NULL;
	size_t n = 0, first = 0, k;
	bool named = false;
	int r = recdir_list_path(p->dir, NULL, &v, &n);

	if (r < 0) {
		fprintf(stderr, PROG ": cannot read %s: %s\n", p->dir, strerror(-r));
		return r;
	}
	while (p->cursor[0] && first < n && recdir_cmp(v[first].name, p->cursor) <= 0)
		named |= strcmp(v[first++].name, p->cursor) == 0;
	if (p->cursor[0] && !named && n && first == n) {
		free(v);
		return cursor_ahead(p, n);
	}
	if (first)
		memmove(v, v + first, (n - first) * sizeof(*v));
	for (k = 0; k < n - first && !v[k].n.partial; k++)
		;
	*ret = v;
	*ret_n = k;
	return 0;
}
