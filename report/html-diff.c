/* html-diff.c — `ringprof diff --html`: both sides' stacks merged into one tree (frames
 * matched by name and object, as diff matches entries), each node with its weight on each
 * side, and the diff's table, in one page that draws the differential flame graph. The tree
 * is stored as report --html's page stores its own (html_tree_write()). */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/intern.h"
#include "html.h"
#include "profile/session.h"

struct hd {
	const struct html_diff *in;
	struct strtab *names, *objs;
	struct pairtab *frames; /* (name, object + 1; 0: a command) -> frame */
	struct pairtab *nodes;	/* (parent node + 1, frame) -> node */
	struct pairtab *leaves; /* (node, 0) -> leaf: where stacks end */
	uint64_t *w;		/* leaf -> its weight on each side, DIFF_SIDES each */
	size_t cap_w;
};

static void hd_done(struct hd *h)
{
	strtab_free(h->names);
	strtab_free(h->objs);
	pairtab_free(h->frames);
	pairtab_free(h->nodes);
	pairtab_free(h->leaves);
	free(h->w);
}

/* The node of frame NAME (in OBJ, NULL for a command) under PARENT (-1: none). */
static int64_t hd_node(struct hd *h, int64_t parent, const char *name, const char *obj)
{
	int64_t n = strtab_intern(h->names, name), o = obj ? strtab_intern(h->objs, obj) : -1;
	int64_t frame = n < 0 || (obj && o < 0)
			    ? -ENOMEM
			    : pairtab_intern(h->frames, (uint64_t)n, (uint64_t)(o + 1), NULL);

	return frame < 0 ? frame
			 : pairtab_intern(h->nodes, (uint64_t)(parent + 1), (uint64_t)frame, NULL);
}

/* SIDE's rows into the tree: the command, then the frames from the outermost. */
static int hd_side(struct hd *h, int side)
{
	const struct session *s = h->in->s[side];
	size_t n_rows;
	const struct session_row *rows = session_rows(s, &n_rows);

	for (size_t i = 0; i < n_rows; i++) {
		uint32_t n;
		const uint32_t *st = session_stack(s, rows[i].stack, &n);
		int64_t node = hd_node(h, -1, session_comm(s, rows[i].comm), NULL), leaf;
		bool added;

		for (uint32_t k = n; node >= 0 && k-- > 0;) {
			/* Code without a name is its object's one "[unknown]", as on the
			 * report's page and in the diff's table. */
			uint32_t sym =
			    session_sym(s, st[k])->name ? st[k] : session_sym(s, st[k])->flat;

			node = hd_node(h, node, session_sym_text(s, sym),
				       session_dso_name(s, session_sym(s, sym)->dso));
		}
		leaf = node < 0 ? node : pairtab_intern(h->leaves, (uint64_t)node, 0, &added);
		if (leaf < 0 || GROW(h->w, h->cap_w, (size_t)(leaf + 1) * DIFF_SIDES) < 0)
			return -ENOMEM;
		if (added)
			memset(&h->w[leaf * DIFF_SIDES], 0, DIFF_SIDES * sizeof(*h->w));
		h->w[leaf * DIFF_SIDES + side] += rows[i].period;
	}
	return 0;
}

static const struct html_tree *leaf_tree;
static const struct hd *leaf_hd;

/* Leaves by their node's place. */
static int cmp_leaves(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint64_t nx, ny, unused;

	pairtab_get(leaf_hd->leaves, x, &nx, &unused);
	pairtab_get(leaf_hd->leaves, y, &ny, &unused);
	return (leaf_tree->node_at[nx] > leaf_tree->node_at[ny]) -
	       (leaf_tree->node_at[nx] < leaf_tree->node_at[ny]);
}

/* "objs"; the frames in T's order: "frame_names", and in columns
 * "frame_objs" (-1: a command); the nodes (html_tree_write()); the leaves by place, in
 * columns: "leaf_places" (the node's place less the previous leaf's), "leaf_base" and
 * "leaf_new" (the weight of the stacks ending there on each side). 0 or -ENOMEM. */
static int hd_tree(FILE *f, const struct hd *h, const struct html_tree *t)
{
	uint32_t n_frames = pairtab_count(h->frames), n_leaves = pairtab_count(h->leaves);
	uint32_t *leaf = malloc(((size_t)n_leaves + 1) * sizeof(*leaf));
	uint64_t name, obj1, node, unused, prev = 0;
	struct html_col col;

	if (!leaf)
		return -ENOMEM;
	fputs("\"objs\":[", f);
	for (uint32_t i = 0; i < strtab_count(h->objs); i++) {
		fputs(i ? "," : "", f);
		html_json_str(f, strtab_get(h->objs, i));
	}
	fputs("],\n\"frame_names\":[", f);
	for (uint32_t i = 0; i < n_frames; i++) {
		pairtab_get(h->frames, t->frame_old[i], &name, &obj1);
		fputs(i ? (i % 16 ? "," : ",\n") : "", f);
		html_json_str(f, strtab_get(h->names, (uint32_t)name));
	}
	fputs("],\n", f);
	html_col_begin(&col, "frame_objs", 's');
	for (uint32_t i = 0; i < n_frames; i++) {
		pairtab_get(h->frames, t->frame_old[i], &name, &obj1);
		html_col_put(&col, (int64_t)obj1 - 1);
	}
	html_col_end(f, &col);
	fputs(",\n", f);
	if (html_tree_write(f, h->nodes, t) < 0) {
		free(leaf);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < n_leaves; i++)
		leaf[i] = i;
	leaf_tree = t;
	leaf_hd = h;
	qsort(leaf, n_leaves, sizeof(*leaf), cmp_leaves);
	html_col_begin(&col, "leaf_places", 'u');
	for (uint32_t i = 0; i < n_leaves; i++) {
		pairtab_get(h->leaves, leaf[i], &node, &unused);
		html_col_put(&col, (int64_t)(t->node_at[node] - prev));
		prev = t->node_at[node];
	}
	html_col_end(f, &col);
	for (int side = 0; side < DIFF_SIDES; side++) {
		fputs(",\n", f);
		html_col_begin(&col, side == DIFF_BASE ? "leaf_base" : "leaf_new", 'U');
		for (uint32_t i = 0; i < n_leaves; i++)
			html_col_put(&col, (int64_t)h->w[leaf[i] * DIFF_SIDES + side]);
		html_col_end(f, &col);
	}
	fputs(",\n", f);
	free(leaf);
	return 0;
}

/* "keys" (the columns' titles), "rows" (weight on each side, then the keys' texts), in the
 * text's order, the rows it hides (--percent-limit) left out. */
static void hd_table(FILE *f, const struct html_diff *in)
{
	size_t shown = 0;

	fputs("\"keys\":[", f);
	for (size_t k = 0; k < in->n_keys; k++) {
		fputs(k ? "," : "", f);
		html_json_str(f, print_key_title(in->keys[k]));
	}
	fputs("],\n\"rows\":[", f);
	for (size_t i = 0; i < in->n; i++) {
		const struct diff_entry *e = &in->e[i];
		double b = 100.0 * (double)e->w[DIFF_BASE] / in->total[DIFF_BASE],
		       nw = 100.0 * (double)e->w[DIFF_NEW] / in->total[DIFF_NEW];

		if (b < in->percent_limit && nw < in->percent_limit)
			continue;
		fprintf(f, "%s[%" PRIu64 ",%" PRIu64, shown++ ? ",\n" : "", e->w[DIFF_BASE],
			e->w[DIFF_NEW]);
		for (size_t k = 0; k < in->n_keys; k++) {
			fputc(',', f);
			html_json_str(f, e->field[in->keys[k]] ? e->field[in->keys[k]] : "");
		}
		fputc(']', f);
	}
	fputs("],\n", f);
}

static int hd_json(FILE *f, void *arg)
{
	const struct hd *h = arg;
	const struct html_diff *in = h->in;
	struct html_tree t;
	int r;

	fputs("{\"version\":3,\n\"header\":", f);
	html_json_str(f, in->header);
	fputs(",\n\"inputs\":[", f);
	for (int side = 0; side < DIFF_SIDES; side++) {
		fputs(side ? ",[" : "[", f);
		for (size_t i = 0; i < in->n_inputs[side]; i++) {
			fputs(i ? "," : "", f);
			html_json_str(f, in->inputs[side][i]);
		}
		fputc(']', f);
	}
	fprintf(f,
		"],\n\"samples\":[%" PRIu64 ",%" PRIu64 "],\"totals\":[%.17g,%.17g],"
		"\"time_weighted\":%s,\"children\":%s,\n",
		session_totals(in->s[DIFF_BASE])->samples, session_totals(in->s[DIFF_NEW])->samples,
		in->total[DIFF_BASE], in->total[DIFF_NEW],
		session_totals(in->s[DIFF_BASE])->time_weighted ? "true" : "false",
		in->children ? "true" : "false");
	r = html_tree_order(h->nodes, pairtab_count(h->frames), &t);
	if (r == 0)
		r = hd_tree(f, h, &t);
	html_tree_done(&t);
	if (r < 0)
		return r;
	hd_table(f, in);
	fputs("\"end\":0}", f);
	return 0;
}

int html_diff_write(const struct html_diff *in, const char *path, char *why, size_t why_size)
{
	struct hd h = { .in = in };
	int r = 0;

	h.names = strtab_new();
	h.objs = strtab_new();
	h.frames = pairtab_new();
	h.nodes = pairtab_new();
	h.leaves = pairtab_new();
	if (!h.names || !h.objs || !h.frames || !h.nodes || !h.leaves)
		r = -ENOMEM;
	for (int side = 0; side < DIFF_SIDES && r == 0; side++)
		r = hd_side(&h, side);
	if (r == 0)
		r = html_page_write(path, html_diff_markup, html_diff_script, hd_json, &h, why,
				    why_size);
	else
		snprintf(why, why_size, "out of memory");
	hd_done(&h);
	return r;
}
