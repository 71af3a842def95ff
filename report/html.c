/* html.c — `ringprof report --html`: the session's stacks and their time buckets as JSON and
 * columns of numbers, gzip-compressed, as text (html-out.c), in one page with the script and style
 * of report/html/ (no request leaves the page). */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/grow.h"
#include "base/intern.h"
#include "html-counts.h"
#include "html-pack.h"
#include "html.h"
#include "profile/annotate.h"
#include "profile/dsotab.h"
#include "profile/print.h"
#include "profile/session.h"
#include "profile/symfile.h"
#include "timeline.h"

#define HTML_BUCKETS 500
#define HTML_MIN_BUCKET_NS 1000000ull

void html_buckets(const char *const *paths, size_t n_paths, const struct session_filter *f,
		  struct html_timeline *ret)
{
	int64_t start, end;
	uint64_t span, raw, w = HTML_MIN_BUCKET_NS;
	bool some = timeline_span(paths, n_paths, f, &start, &end);

	*ret = (struct html_timeline){ 0, 0, 1, ret->max_counts };
	if (!some)
		return;
	span = (uint64_t)(end - start);
	raw = (span + HTML_BUCKETS - 1) / HTML_BUCKETS;
	/* 1, 2, 5 times a power of ten: bucket edges read well on the time axis. */
	for (uint64_t p = HTML_MIN_BUCKET_NS; w < raw; p *= 10)
		for (int k = 0; k < 3 && w < raw; k++)
			w = p * (uint64_t)(k == 0 ? 2 : k == 1 ? 5 : 10);
	ret->ns = w;
	ret->origin = start / (int64_t)w * (int64_t)w;
	ret->n = (uint32_t)((uint64_t)(end - ret->origin) / w + 1);
}

/* ---- what the page holds ---- */

/* Frame kinds, as the page colours them. */
enum html_kind {
	HTML_USER = 'u',
	HTML_KERNEL = 'k',
	HTML_JIT = 'j',
	HTML_UNKNOWN = '?',
	HTML_MARK = 'm', /* made up by ringprof: [joined], [frame pointers], [cut: ...], [waiting],
			    [preempted] */
};

struct html_data {
	const struct session *s;
	struct dsotab *dsos;
	struct pairtab *frames; /* session_sym id -> page frame */
	struct pairtab *objs;	/* dso id -> page object */
	struct pairtab *comms;	/* comm id -> page command */
	struct pairtab *units;	/* unit id -> page unit */
	struct pairtab *stacks; /* (page command, node of its leaf) -> page stack */
	struct pairtab *nodes;	/* (parent node + 1, page frame) -> node: stacks share prefixes */
	uint32_t *stack_node;	/* page stack -> the node of its leaf */
	size_t cap_stack_node;
	uint32_t *sstack_node; /* session stack -> the node of its leaf + 1 (0: not yet) */
	size_t cap_sstack_node;
	struct pairtab *counts; /* (page stack, page unit << 32 | bucket) -> count index */
	uint64_t *count, *period;
	size_t cap_count, cap_period;
	uint32_t *flat; /* page frame -> the page frame flat output counts it under */
	size_t cap_flat;
};

static void data_done(struct html_data *d)
{
	pairtab_free(d->frames);
	pairtab_free(d->objs);
	pairtab_free(d->comms);
	pairtab_free(d->units);
	pairtab_free(d->stacks);
	pairtab_free(d->nodes);
	free(d->stack_node);
	free(d->sstack_node);
	pairtab_free(d->counts);
	free(d->count);
	free(d->period);
	free(d->flat);
}

/* The page frame of session symbol SYM (and of the symbol flat output counts it under). A
 * frame without a symbol is its object's one "[unknown]", as in the flat table: the page
 * does not tell code it cannot name apart by address (a JIT function's return addresses
 * would split it into as many frames; `report -g` and --folded keep the addresses). */
static int64_t data_frame(struct html_data *d, uint32_t sym)
{
	const struct session_sym *ss = session_sym(d->s, sym);
	bool added;
	int64_t id, flat;

	if (!ss->name && ss->flat != sym)
		return data_frame(d, ss->flat);
	id = pairtab_intern(d->frames, sym, 0, &added);
	if (id < 0 || !added)
		return id;
	if (pairtab_intern(d->objs, ss->dso, 0, NULL) < 0)
		return -ENOMEM;
	flat = ss->flat == sym ? id : data_frame(d, ss->flat);
	if (flat < 0 || GROW(d->flat, d->cap_flat, (size_t)id + 1) < 0)
		return -ENOMEM;
	d->flat[id] = (uint32_t)flat;
	return id;
}

/* Session stack SSTACK's frames as a path of nodes from the outermost frame, each node once
 * (parent, frame): the node of its leaf, or -ENOMEM. Stacks that differ only in frames the
 * page shows alike share it. */
static int64_t data_nodes(struct html_data *d, uint32_t sstack)
{
	uint32_t n;
	const uint32_t *st;
	int64_t node = -1;

	if (sstack < d->cap_sstack_node && d->sstack_node[sstack])
		return d->sstack_node[sstack] - 1;
	st = session_stack(d->s, sstack, &n);
	for (uint32_t k = n; k-- > 0;) {
		int64_t frame = data_frame(d, st[k]);

		if (frame < 0)
			return -ENOMEM;
		node = pairtab_intern(d->nodes, (uint64_t)(node + 1), (uint64_t)frame, NULL);
		if (node < 0)
			return -ENOMEM;
	}
	if (node < 0 || node >= UINT32_MAX) /* a stack has a frame at least */
		return -ENOMEM;
	if (sstack >= d->cap_sstack_node) {
		size_t old = d->cap_sstack_node;

		if (GROW(d->sstack_node, d->cap_sstack_node, (size_t)sstack + 1) < 0)
			return -ENOMEM;
		memset(d->sstack_node + old, 0,
		       (d->cap_sstack_node - old) * sizeof(*d->sstack_node));
	}
	d->sstack_node[sstack] = (uint32_t)node + 1;
	return node;
}

/* One row into the page's stacks and counts. 0 or -ENOMEM. */
static int data_row(struct html_data *d, const struct session_row *r)
{
	int64_t comm = pairtab_intern(d->comms, r->comm, 0, NULL), stack, c;
	int64_t unit = pairtab_intern(d->units, r->unit, 0, NULL), node = data_nodes(d, r->stack);
	bool added;

	if (comm < 0 || unit < 0 || node < 0)
		return -ENOMEM;
	stack = pairtab_intern(d->stacks, (uint64_t)comm, (uint64_t)node, &added);
	if (stack < 0)
		return -ENOMEM;
	if (added) {
		if (GROW(d->stack_node, d->cap_stack_node, (size_t)stack + 1) < 0)
			return -ENOMEM;
		d->stack_node[stack] = (uint32_t)node;
	}
	c = pairtab_intern(d->counts, (uint64_t)stack, (uint64_t)unit << 32 | r->bucket, &added);
	if (c < 0 || GROW(d->count, d->cap_count, (size_t)c + 1) < 0 ||
	    GROW(d->period, d->cap_period, (size_t)c + 1) < 0)
		return -ENOMEM;
	if (added)
		d->count[c] = d->period[c] = 0;
	d->count[c] += r->count;
	d->period[c] += r->period;
	return 0;
}

static int data_build(struct html_data *d, const struct session *s)
{
	struct session_parts parts;
	const struct session_row *rows;
	size_t n_rows;

	memset(d, 0, sizeof(*d));
	d->s = s;
	session_parts(s, &parts);
	d->dsos = parts.dsos;
	d->frames = pairtab_new();
	d->objs = pairtab_new();
	d->comms = pairtab_new();
	d->units = pairtab_new();
	d->stacks = pairtab_new();
	d->counts = pairtab_new();
	d->nodes = pairtab_new();
	if (!d->frames || !d->objs || !d->comms || !d->units || !d->stacks || !d->counts ||
	    !d->nodes)
		return -ENOMEM;
	rows = session_rows(s, &n_rows);
	for (size_t i = 0; i < n_rows; i++)
		if (data_row(d, &rows[i]) < 0)
			return -ENOMEM;
	return 0;
}

static char frame_kind(const struct html_data *d, const struct session_sym *ss)
{
	if (!ss->name)
		return HTML_UNKNOWN;
	if (ss->kernel)
		return HTML_KERNEL;
	switch (dsotab_kind(d->dsos, ss->dso)) {
	case DSOTAB_JIT:
		return HTML_JIT;
	case DSOTAB_PSEUDO:
		return ss->name[0] == '[' ? HTML_MARK : HTML_USER;
	default:
		return HTML_USER;
	}
}

/* ---- the page's order: nodes depth first, frames and stacks as the walk meets them ---- */

/* Renumberings that make the data small once compressed: nodes and frames as html_tree_order()
 * numbers them, stacks by their leaf's place in that walk. */
struct order {
	struct html_tree t;
	uint32_t *stack_new; /* stack -> page stack */
	uint32_t *stack_old; /* page stack -> stack */
};

static void order_done(struct order *o)
{
	html_tree_done(&o->t);
	free(o->stack_new);
	free(o->stack_old);
}

static const struct html_data *sort_d;
static const struct order *sort_o;

/* Stacks by their leaf's place, then command. */
static int cmp_stacks(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint32_t px = sort_o->t.node_at[sort_d->stack_node[x]],
		 py = sort_o->t.node_at[sort_d->stack_node[y]];
	uint64_t cx, cy, unused;

	if (px != py)
		return px < py ? -1 : 1;
	pairtab_get(sort_d->stacks, x, &cx, &unused);
	pairtab_get(sort_d->stacks, y, &cy, &unused);
	return cx < cy ? -1 : cx > cy ? 1 : (x > y) - (x < y);
}

/* Nodes and frames in the page's order; stacks by leaf. 0 or -ENOMEM. */
static int order_build(const struct html_data *d, struct order *o)
{
	uint32_t n_stacks = pairtab_count(d->stacks);

	memset(o, 0, sizeof(*o));
	if (html_tree_order(d->nodes, pairtab_count(d->frames), &o->t) < 0)
		return -ENOMEM;
	o->stack_new = malloc((n_stacks + 1) * sizeof(*o->stack_new));
	o->stack_old = malloc((n_stacks + 1) * sizeof(*o->stack_old));
	if (!o->stack_new || !o->stack_old)
		return -ENOMEM;
	for (uint32_t i = 0; i < n_stacks; i++)
		o->stack_old[i] = i;
	sort_d = d;
	sort_o = o;
	qsort(o->stack_old, n_stacks, sizeof(*o->stack_old), cmp_stacks);
	for (uint32_t i = 0; i < n_stacks; i++)
		o->stack_new[o->stack_old[i]] = i;
	return 0;
}

/* "objs", "comms", "units": names; the frames in columns: "frame_names", "frame_objs",
 * "frame_kinds" (a letter each), "frame_flat" (the page frame flat output counts it under,
 * plus 1; 0: itself). */
/* The session symbol of page frame I. */
static uint32_t frame_sym_id(const struct html_data *d, const struct order *o, uint32_t i)
{
	uint64_t sym, unused;

	pairtab_get(d->frames, o->t.frame_old[i], &sym, &unused);
	return (uint32_t)sym;
}

static const struct session_sym *frame_sym(const struct html_data *d, const struct order *o,
					   uint32_t i)
{
	return session_sym(d->s, frame_sym_id(d, o, i));
}

/* The frames' names, in the page's order: "frame_names". */
static void write_frame_names(FILE *f, const struct html_data *d, const struct order *o)
{
	uint32_t n = pairtab_count(d->frames);

	fputs("],\n\"frame_names\":[", f);
	for (uint32_t i = 0; i < n; i++) {
		fputs(i ? (i % 32 ? "," : ",\n") : "", f);
		html_json_str(f, session_sym_text(d->s, frame_sym_id(d, o, i)));
	}
	fputc(']', f);
}

static int write_names(FILE *f, const struct html_data *d, const struct order *o)
{
	uint32_t n = pairtab_count(d->frames);
	const struct pairtab *tabs[] = { d->objs, d->comms, d->units };
	struct html_col objs, flat;

	for (int t = 0; t < 3; t++) {
		fputs(t == 0 ? "\"objs\":[" : t == 1 ? "],\n\"comms\":[" : "],\n\"units\":[", f);
		for (uint32_t i = 0; i < pairtab_count(tabs[t]); i++) {
			uint64_t id, unused;

			pairtab_get(tabs[t], i, &id, &unused);
			fputs(i ? "," : "", f);
			html_json_str(f, t == 0	  ? session_dso_name(d->s, (uint32_t)id)
					 : t == 1 ? session_comm(d->s, (uint32_t)id)
						  : session_unit(d->s, (uint32_t)id));
		}
	}
	write_frame_names(f, d, o);
	fputs(",\n\"frame_kinds\":\"", f);
	for (uint32_t i = 0; i < n; i++)
		fputc(frame_kind(d, frame_sym(d, o, i)), f);
	fputs("\",\n", f);
	html_col_begin(&objs, "frame_objs", 'u');
	for (uint32_t i = 0; i < n; i++)
		html_col_put(&objs, pairtab_find(d->objs, frame_sym(d, o, i)->dso, 0));
	html_col_end(f, &objs);
	fputs(",\n", f);
	html_col_begin(&flat, "frame_flat", 'u');
	for (uint32_t i = 0; i < n; i++) {
		uint32_t old = o->t.frame_old[i];

		html_col_put(&flat, o->t.frame_new[d->flat[old]] == i
					? 0
					: (int64_t)o->t.frame_new[d->flat[old]] + 1);
	}
	html_col_end(f, &flat);
	fputs(",\n", f);
	return 0;
}

/* The counts (html-counts.h): each (stack, unit, bucket) with its stack's command. -ENOMEM. */
static int write_counts(FILE *f, const struct html_data *d, const struct order *o,
			const struct html_timeline *tl, uint64_t max)
{
	uint32_t n = pairtab_count(d->counts);
	struct html_count *c = malloc((n ? n : 1) * sizeof(*c));
	int r;

	if (!c)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t stack, unit_bucket, comm, node;

		pairtab_get(d->counts, i, &stack, &unit_bucket);
		pairtab_get(d->stacks, (uint32_t)stack, &comm, &node);
		c[i] = (struct html_count){ (uint32_t)unit_bucket, o->stack_new[stack],
					    (uint32_t)comm,	   (uint32_t)(unit_bucket >> 32),
					    d->count[i],	   d->period[i] };
	}
	r = html_counts_write(f, c, n, tl, max);
	free(c);
	return r;
}

/* The nodes (html_tree_write()); "stack_comms", "stack_leaves" (the leaf node's place, less
 * the previous stack's); then the counts. -ENOMEM. */
static int write_stacks(FILE *f, const struct html_data *d, const struct order *o,
			const struct html_timeline *tl)
{
	uint32_t n = pairtab_count(d->stacks);
	struct html_col comms, leaves;

	if (html_tree_write(f, d->nodes, &o->t) < 0)
		return -ENOMEM;
	html_col_begin(&comms, "stack_comms", 'u');
	for (uint32_t i = 0; i < n; i++) {
		uint64_t comm, unused;

		pairtab_get(d->stacks, o->stack_old[i], &comm, &unused);
		html_col_put(&comms, (int64_t)comm);
	}
	html_col_end(f, &comms);
	fputs(",\n", f);
	html_col_begin(&leaves, "stack_leaves", 'u');
	for (uint32_t i = 0; i < n; i++)
		html_col_put(&leaves,
			     o->t.node_at[d->stack_node[o->stack_old[i]]] -
				 (i ? o->t.node_at[d->stack_node[o->stack_old[i - 1]]] : 0));
	html_col_end(f, &leaves);
	fputs(",\n", f);
	return write_counts(f, d, o, tl, tl->max_counts);
}

/* ---- annotated source (what `ringprof annotate` shows) ---- */

#define HTML_ANNOT_MAX 50	    /* functions annotated in the page, the hottest first */
#define HTML_ANNOT_MIN_PERMYRIAD 50 /* ... of 0.5 % self or more */
#define HTML_ANNOT_GAP 3	    /* lines without code shown between two with code */
#define HTML_ANNOT_TEXT 400	    /* characters of a source line kept */

/* Lines LO..HI of the file at PATH into TEXT[0..HI-LO] (each malloc'd, NULL past the end).
 * 0 or -errno. */
static int source_lines(const char *path, int lo, int hi, char **text)
{
	/* The name is the binary's DWARF's: only a regular file is read (a FIFO would block, a
	 * device such as /dev/zero would give one line without end). */
	int fd = symfile_open_regular(path);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int n = 0, r = 0;

	if (!f) {
		r = fd < 0 ? fd : -errno;
		if (fd >= 0)
			close(fd);
		return r;
	}
	while (n < hi && (len = getline(&line, &cap, f)) >= 0) {
		if (++n < lo)
			continue;
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		if (len > HTML_ANNOT_TEXT)
			line[HTML_ANNOT_TEXT] = '\0';
		if (!(text[n - lo] = strdup(line))) {
			r = -ENOMEM;
			break;
		}
	}
	free(line);
	fclose(f);
	return r;
}

/* One line: [number, weight (-1: no code on it), samples, text or null, inlined or null]. */
static void annot_line(FILE *f, int line, const struct annotate_line *l, const char *text)
{
	fprintf(f, "[%d,%" PRId64 ",%" PRIu64 ",", line, l ? (int64_t)l->period : -1,
		l ? l->count : 0);
	if (text)
		html_json_str(f, text);
	else
		fputs("null", f);
	fputc(',', f);
	if (l && l->inlined)
		html_json_str(f, l->inlined);
	else
		fputs("null", f);
	fputc(']', f);
}

/* The lines of one file, L[0..N), with up to HTML_ANNOT_GAP lines between them, and their text
 * where the file is on this host: {"file", "missing" (why not: "" when read), "lines"}. */
static int annot_file(FILE *f, const struct annotate_line *l, size_t n)
{
	int lo = l[0].line, hi = l[n - 1].line, r;
	char **text = calloc((size_t)(hi - lo + 1), sizeof(*text));

	if (!text)
		return -ENOMEM;
	r = lo > 0 ? source_lines(l[0].file, lo, hi, text) : -ENOENT;
	if (r == -ENOMEM)
		goto out;
	fputs("{\"file\":", f);
	html_json_str(f, l[0].file);
	fputs(",\"missing\":", f);
	html_json_str(f, r == -EINVAL ? "not a regular file" : r < 0 ? strerror(-r) : "");
	fputs(",\"lines\":[", f);
	for (size_t i = 0; i < n; i++) {
		int gap = i ? l[i].line - l[i - 1].line - 1 : 0;

		if (gap > 0 && gap <= HTML_ANNOT_GAP && r == 0)
			for (int k = l[i - 1].line + 1; k < l[i].line; k++) {
				annot_line(f, k, NULL, text[k - lo]);
				fputc(',', f);
			}
		else if (gap > 0)
			fputs("null,", f); /* lines left out */
		annot_line(f, l[i].line, &l[i], r == 0 ? text[l[i].line - lo] : NULL);
		fputs(i + 1 < n ? "," : "", f);
	}
	fputs("]}", f);
	r = 0;
out:
	for (int k = 0; k <= hi - lo; k++)
		free(text[k]);
	free(text);
	return r;
}

/* Function I of ANN as the page shows it: {"frame" (its flat page frame), "samples",
 * "weight", "note", "unplaced", "files"}. 0 or -ENOMEM. */
static int annot_function(FILE *f, struct html_data *d, const struct order *o, struct annotate *ann,
			  size_t i, const char *symfs)
{
	size_t n;
	const struct annotate_fn *fn = &annotate_functions(ann, &n)[i];
	struct annotate_view v;
	int64_t frame = data_frame(d, fn->sym); /* interned by annot_select() */
	int r;

	if (frame < 0 || (r = annotate_view(ann, d->s, i, symfs, &v)) < 0)
		return -ENOMEM;
	fprintf(f,
		"{\"frame\":%" PRIu32 ",\"samples\":%" PRIu64 ",\"weight\":%" PRIu64 ",\"note\":",
		o->t.frame_new[d->flat[frame]], fn->count, fn->period);
	html_json_str(f, !v.n_insns	 ? (v.no_insns[0] ? v.no_insns : "no instructions")
			 : v.no_lines[0] ? v.no_lines
			 : !v.n_lines	 ? "no line information"
					 : "");
	fprintf(f, ",\"unplaced\":[%" PRIu64 ",%" PRIu64 "],\"files\":[",
		v.n_insns ? v.unplaced_period : 0, v.n_insns ? v.unplaced_count : 0);
	for (size_t k = 0, first = 0; v.n_insns && !v.no_lines[0] && k < v.n_lines; k++)
		if (k + 1 == v.n_lines || strcmp(v.lines[k + 1].file, v.lines[first].file) != 0) {
			fputs(first ? "," : "", f);
			if ((r = annot_file(f, v.lines + first, k + 1 - first)) < 0)
				break;
			first = k + 1;
		}
	fputs("]}", f);
	annotate_view_done(&v);
	return r < 0 ? r : 0;
}

/* The functions to annotate: the hottest (at least 0.5 % self, at most 50), their indexes
 * into *ret_ann's functions in SEL, their frames interned. 0 or -ENOMEM. */
static int annot_select(struct html_data *d, struct annotate **ret_ann, size_t *sel, size_t *ret_n)
{
	uint64_t total = session_totals(d->s)->period;
	size_t n;
	const struct annotate_fn *fns;

	*ret_n = 0;
	if (annotate_new(d->s, ret_ann) < 0)
		return -ENOMEM;
	fns = annotate_functions(*ret_ann, &n);
	for (size_t i = 0; i < n && *ret_n < HTML_ANNOT_MAX; i++) {
		if (fns[i].period * 10000 < total * HTML_ANNOT_MIN_PERMYRIAD)
			break;
		if (data_frame(d, fns[i].sym) < 0)
			return -ENOMEM;
		sel[(*ret_n)++] = i;
	}
	return 0;
}

/* "annotated": the source lines of the functions SEL[0..N) of ANN, as `ringprof annotate`
 * gives them. 0 or -ENOMEM. */
static int annot_write(FILE *f, struct html_data *d, const struct order *o, struct annotate *ann,
		       const size_t *sel, size_t n, const char *symfs)
{
	fprintf(f, "\"annotated_min\":%.1f,\"annotated_max\":%d,\"annotated\":[",
		HTML_ANNOT_MIN_PERMYRIAD / 100.0, HTML_ANNOT_MAX);
	for (size_t k = 0; k < n; k++) {
		fputs(k ? ",\n" : "", f);
		if (annot_function(f, d, o, ann, sel[k], symfs) < 0)
			return -ENOMEM;
	}
	fputs("],\n", f);
	return 0;
}

/* The report's "#" header lines, as text for the page. */
static void write_header(FILE *f, const struct session *s, const char *const *inputs,
			 size_t n_inputs)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (m) {
		print_header(m, s, inputs, n_inputs);
		fclose(m);
	}
	html_json_str(f, text ? text : "");
	free(text);
}

static const char *weight_name(enum session_weight w)
{
	return w == SESSION_OFFCPU ? "off-cpu" : w == SESSION_WALL ? "wall" : "cpu";
}

/* The data element's JSON. 0 or -ENOMEM. */
static int write_data(FILE *f, struct html_data *d, const char *const *inputs, size_t n_inputs,
		      const struct html_timeline *tl, const char *symfs)
{
	struct annotate *ann = NULL;
	struct order o = { 0 };
	size_t sel[HTML_ANNOT_MAX], n_sel = 0;
	int r = -ENOMEM;
	const struct rp_event_desc *ev = session_selected_event(d->s);
	size_t n_ev;
	const struct rp_event_desc *evs = session_events(d->s, &n_ev);

	fputs("{\"version\":4,\n\"header\":", f);
	write_header(f, d->s, inputs, n_inputs);
	fputs(",\n\"inputs\":[", f);
	for (size_t i = 0; i < n_inputs; i++) {
		fputs(i ? "," : "", f);
		html_json_str(f, inputs[i]);
	}
	fputs("],\n\"event\":", f);
	/* With off-CPU weights the samples are the switch-outs, whatever --event says. */
	html_json_str(f, session_weight(d->s) == SESSION_OFFCPU ? "sched:sched_switch"
			 : ev					? ev->name
			 : n_ev					? evs[0].name
								: "");
	fprintf(f,
		",\n\"weight\":\"%s\",\"time_weighted\":%s,\n"
		"\"origin_s\":%" PRId64 ",\"origin_ns\":%" PRId64 ",\"bucket_ns\":%" PRIu64
		",\"n_buckets\":%" PRIu32 ",\n",
		weight_name(session_weight(d->s)),
		session_totals(d->s)->time_weighted ? "true" : "false", tl->origin / 1000000000,
		tl->origin % 1000000000, tl->ns, tl->n);
	/* The annotated functions' frames first: the order numbers every frame. */
	if (annot_select(d, &ann, sel, &n_sel) < 0 || order_build(d, &o) < 0 ||
	    annot_write(f, d, &o, ann, sel, n_sel, symfs) < 0)
		goto out;
	if (write_names(f, d, &o) < 0 || write_stacks(f, d, &o, tl) < 0)
		goto out;
	fputs("}", f);
	r = 0;
out:
	annotate_free(ann);
	order_done(&o);
	return r;
}

/* The data element's JSON, for html_page_write(). */
struct data_arg {
	struct html_data *d;
	const char *const *inputs;
	size_t n_inputs;
	const struct html_timeline *tl;
	const char *symfs;
};

static int data_json(FILE *f, void *arg)
{
	struct data_arg *a = arg;

	return write_data(f, a->d, a->inputs, a->n_inputs, a->tl, a->symfs);
}

int html_write(const struct session *s, const char *path, const char *const *inputs,
	       size_t n_inputs, const struct html_timeline *tl, const char *symfs, char *why,
	       size_t why_size)
{
	struct html_data d;
	struct data_arg a = { &d, inputs, n_inputs, tl, symfs };
	int r = data_build(&d, s);

	if (r < 0) {
		data_done(&d);
		snprintf(why, why_size, "out of memory");
		return r;
	}
	r = html_page_write(path, html_page_markup, html_page_script, data_json, &a, why, why_size);
	data_done(&d);
	return r;
}
