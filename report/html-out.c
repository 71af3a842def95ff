/* html-out.c — what the pages of `report --html` and `diff --html` share: JSON strings, frame
 * names, the tree of frames in its compact form, and
 * the page written from its markup with the style, the script and the data (JSON and columns
 * of varints, gzip-compressed, as text of 7 bits a character: html-pack.h; the page inflates
 * it with DecompressionStream) in their places. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/intern.h"
#include "html-pack.h"
#include "html.h"
#include "profile/gzip.h"

void html_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p == '<' || *p == '>' || *p == '&' || *p == 0x7f)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

/* ---- the tree of frames: nodes depth first, frames as that walk meets them ---- */

/* Each node's children in id order (CSR: FIRST[p]..FIRST[p + 1] into KIDS; p = N for the
 * outermost frames), then the depth-first walk into O's pre, depth and node_at. 0 or -ENOMEM. */
static int tree_walk(const struct pairtab *nodes, struct html_tree *o)
{
	uint32_t n = pairtab_count(nodes), top = 0, k = 0;
	uint32_t *first = calloc((size_t)n + 2, sizeof(*first)),
		 *kids = malloc((n + 1) * sizeof(*kids));
	uint32_t *todo = malloc((n + 1) * sizeof(*todo)),
		 *todo_depth = malloc((n + 1) * sizeof(*todo));
	int r = -ENOMEM;

	o->pre = malloc((n + 1) * sizeof(*o->pre));
	o->depth = malloc((n + 1) * sizeof(*o->depth));
	o->node_at = malloc((n + 1) * sizeof(*o->node_at));
	if (!first || !kids || !todo || !todo_depth || !o->pre || !o->depth || !o->node_at)
		goto out;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t parent1, frame;

		pairtab_get(nodes, i, &parent1, &frame);
		first[(parent1 ? parent1 - 1 : n) + 1]++;
	}
	for (uint32_t p = 0; p <= n; p++)
		first[p + 1] += first[p];
	for (uint32_t i = 0, *at = todo; i < n; i++) { /* todo: each parent's next slot */
		uint64_t parent1, frame;
		uint32_t p;

		pairtab_get(nodes, i, &parent1, &frame);
		p = parent1 ? (uint32_t)parent1 - 1 : n;
		if (i == 0)
			memcpy(at, first, (n + 1) * sizeof(*at));
		kids[at[p]++] = i;
	}
	/* The outermost frames, then each node's children, in id order. */
	for (uint32_t j = first[n + 1]; j-- > first[n];) {
		todo[top] = kids[j];
		todo_depth[top++] = 0;
	}
	while (top) {
		uint32_t v = todo[--top], dep = todo_depth[top];

		o->pre[k] = v;
		o->depth[k] = dep;
		o->node_at[v] = k++;
		for (uint32_t j = first[v + 1]; j-- > first[v];) {
			todo[top] = kids[j];
			todo_depth[top++] = dep + 1;
		}
	}
	r = 0;
out:
	free(first);
	free(kids);
	free(todo);
	free(todo_depth);
	return r;
}

int html_tree_order(const struct pairtab *nodes, uint32_t n_frames, struct html_tree *o)
{
	uint32_t k = 0;
	const uint32_t none = UINT32_MAX;

	memset(o, 0, sizeof(*o));
	if (tree_walk(nodes, o) < 0)
		return -ENOMEM;
	o->frame_new = malloc((n_frames + 1) * sizeof(*o->frame_new));
	o->frame_old = malloc((n_frames + 1) * sizeof(*o->frame_old));
	if (!o->frame_new || !o->frame_old)
		return -ENOMEM;
	memset(o->frame_new, 0xff, (n_frames + 1) * sizeof(*o->frame_new));
	for (uint32_t i = 0; i < pairtab_count(nodes); i++) {
		uint64_t parent1, frame;

		pairtab_get(nodes, o->pre[i], &parent1, &frame);
		if (o->frame_new[frame] == none) {
			o->frame_old[k] = (uint32_t)frame;
			o->frame_new[frame] = k++;
		}
	}
	for (uint32_t f = 0; f < n_frames; f++)
		if (o->frame_new[f] == none) {
			o->frame_old[k] = f;
			o->frame_new[f] = k++;
		}
	return 0;
}

void html_tree_done(struct html_tree *o)
{
	free(o->pre);
	free(o->depth);
	free(o->node_at);
	free(o->frame_new);
	free(o->frame_old);
}

int html_tree_write(FILE *f, const struct pairtab *nodes, const struct html_tree *o)
{
	uint32_t n = pairtab_count(nodes), met = 0, n_frames = 0;
	uint32_t *under, *edge_k = NULL; /* frames met under each page frame; edge -> its K */
	size_t cap_edge_k = 0;
	struct pairtab *edges = pairtab_new(); /* (parent page frame + 1, page frame) */
	struct html_col ups, codes;
	int r = -ENOMEM;

	for (uint32_t i = 0; i < n; i++) {
		uint64_t parent1, frame;

		pairtab_get(nodes, i, &parent1, &frame);
		if (o->frame_new[frame] + 1 > n_frames)
			n_frames = o->frame_new[frame] + 1;
	}
	under = calloc((size_t)n_frames + 1, sizeof(*under));
	if (!under || !edges)
		goto out;
	html_col_begin(&ups, "node_ups", 'u');
	for (uint32_t i = 0; i < n; i++)
		html_col_put(&ups, (i ? (int64_t)o->depth[i - 1] : -1) + 1 - o->depth[i]);
	html_col_end(f, &ups);
	html_col_begin(&codes, "node_frames", 'u');
	for (uint32_t i = 0; i < n; i++) {
		uint64_t parent1, frame, unused;
		uint32_t pf = 0, fr;
		int64_t e;
		bool added;

		pairtab_get(nodes, o->pre[i], &parent1, &frame);
		fr = o->frame_new[frame];
		if (parent1) {
			pairtab_get(nodes, (uint32_t)parent1 - 1, &unused, &frame);
			pf = o->frame_new[frame] + 1;
		}
		e = pairtab_intern(edges, pf, fr, &added);
		if (e < 0 || GROW(edge_k, cap_edge_k, (size_t)e + 1) < 0)
			goto out;
		html_col_put(&codes, !added	 ? edge_k[e]
				     : fr == met ? under[pf]
						 : (int64_t)under[pf] + 1 + fr);
		if (added)
			edge_k[e] = under[pf]++;
		met += fr == met;
	}
	fputs(",\n", f);
	html_col_end(f, &codes);
	fputs(",\n", f);
	r = 0;
out:
	free(under);
	free(edge_k);
	pairtab_free(edges);
	return r;
}

/* The columns of the data being written (write_packed()), after its JSON. */
static FILE *packed_cols;

void html_col_begin(struct html_col *c, const char *name, char kind)
{
	*c = (struct html_col){ name, kind, 0, packed_cols ? ftell(packed_cols) : 0 };
}

void html_col_put(struct html_col *c, int64_t v)
{
	uint8_t buf[10];

	c->n++;
	if (packed_cols)
		fwrite(buf, 1,
		       html_varint(buf,
				   c->kind == 's' || c->kind == 'S' ? html_zigzag(v) : (uint64_t)v),
		       packed_cols);
}

void html_col_end(FILE *f, const struct html_col *c)
{
	fprintf(f, "\"%s\":{\"column\":[%ld,%" PRIu64 ",\"%c\"]}", c->name, c->start, c->n, c->kind);
}

/* DATA's JSON, a NUL and its columns, gzip-compressed, as text (html_text_write()). 0 or
 * -ENOMEM. */
static int write_packed(FILE *f, int (*data)(FILE *, void *), void *arg)
{
	char *json = NULL, *cols = NULL;
	size_t len = 0, clen = 0, zlen;
	uint8_t *z;
	FILE *m = open_memstream(&json, &len), *c = open_memstream(&cols, &clen);
	int r = -ENOMEM;

	if (!m || !c)
		goto out;
	packed_cols = c;
	r = data(m, arg);
	packed_cols = NULL;
	fputc('\0', m);
	if ((r < 0) | ferror(m) | ferror(c) | (fclose(c) != 0)) {
		c = NULL;
		r = -ENOMEM;
		goto out;
	}
	c = NULL;
	if (fwrite(cols, 1, clen, m) != clen || fclose(m) != 0) {
		m = NULL;
		r = -ENOMEM;
		goto out;
	}
	m = NULL;
	r = gzip_compress((const uint8_t *)json, len, GZIP_SMALL, &z, &zlen);
	if (r == 0) {
		html_text_write(f, z, zlen);
		free(z);
	}
out:
	if (m)
		fclose(m);
	if (c)
		fclose(c);
	free(json);
	free(cols);
	return r < 0 ? r : 0;
}

/* MARKUP with the style, data and script in their places. 0 or -ENOMEM. */
static int write_page(FILE *f, const char *markup, const char *script, int (*data)(FILE *, void *),
		      void *arg)
{
	const char *p = markup;

	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) + 1 : strlen(p);

		if (strncmp(p, "@STYLE@\n", len) == 0 && len == 8)
			fputs(html_page_style, f);
		else if (strncmp(p, "@SCRIPT@\n", len) == 0 && len == 9)
			fputs(script, f);
		else if (strncmp(p, "@DATA@\n", len) == 0 && len == 7) {
			if (write_packed(f, data, arg) < 0)
				return -ENOMEM;
			fputc('\n', f);
		} else
			fwrite(p, 1, len, f);
		p += len;
	}
	return 0;
}

int html_page_write(const char *path, const char *markup, const char *script,
		    int (*data)(FILE *, void *), void *arg, char *why, size_t why_size)
{
	FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
	int r;

	if (!f) {
		r = -errno;
		snprintf(why, why_size, "%s: %s", path, strerror(-r));
		return r;
	}
	r = write_page(f, markup, script, data, arg);
	if (r < 0) {
		if (f != stdout)
			fclose(f);
		snprintf(why, why_size, "out of memory");
		return r;
	}
	if (ferror(f) | (f == stdout ? fflush(f) != 0 : fclose(f) != 0)) {
		r = errno ? -errno : -EIO;
		snprintf(why, why_size, "%s: could not write: %s", path, strerror(-r));
		return r;
	}
	return 0;
}
