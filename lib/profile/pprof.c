/* pprof.c — a session's profile as pprof's gzip-compressed profile.proto (the protobuf-c
 * adapter; gzip.c compresses it). */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/grow.h"
#include "base/intern.h"
#include "base/util.h"
#include "format/format.h"
#include "profile/aggregate.h"
#include "profile/dsotab.h"
#include "profile/focus.h"
#include "profile/gzip.h"
#include "profile/pprof.h"
#include "profile/pprof.pb-c.h"
#include "profile/session.h"
#include "profile/symbolizer.h"
#include "profile/symstacks.h"
#include "profile/unit.h"

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__ValueType ValueType;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Label Label;
typedef Perftools__Profiles__Mapping Mapping;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;

/* A sample while it is built: its location ids are ids[first .. first + n). The messages
 * that point into these arrays are made once every array has its final place (finish()). */
/* Values, in the order of the sample types (see describe()): samples/count, then the period's
 * sum (the event's, or off_cpu/nanoseconds with --off-cpu); with --wall cpu/nanoseconds,
 * off_cpu/nanoseconds and wall/nanoseconds (their sum). */
enum { VAL_COUNT, VAL_PERIOD, VAL_OFFCPU, VAL_WALL, N_VALS };

struct psample {
	uint32_t first, n;
	int64_t val[N_VALS];
	int32_t pid, tid;
	uint32_t comm, unit;
};

/* A location's lines are lines[first .. first + n). */
struct ploc {
	uint32_t first, n;
};

struct enc {
	const struct session *s;
	struct session_parts p;
	struct strtab *strs; /* the string table: id 0 is "" */
	struct pairtab *fn_ids;
	Function *fns;
	size_t n_fns, cap_fns;
	Mapping *maps;
	size_t n_maps, cap_maps;
	uint32_t *map_of_dso; /* dsotab id -> mapping index + 1, 0 when none yet */
	size_t cap_map_of_dso;
	Location *locs;
	struct ploc *plocs;
	size_t n_locs, cap_locs, cap_plocs;
	Line *lines;
	size_t n_lines, cap_lines;
	uint64_t *loc_ids; /* aggregate location id -> pprof location id, 0 when none yet */
	struct pairtab *smp_ids;
	struct pairtab *cu_ids; /* (comm, unit) -> a dense id, part of a sample's key */
	struct psample *smps;
	size_t n_smps, cap_smps;
	uint64_t *ids;
	size_t n_ids, cap_ids;
	int64_t k_pid, k_tid, k_comm, k_unit; /* label keys */
	enum session_weight weight;
	uint32_t *syms; /* a stack's symbols, for the focus filter */
	size_t cap_syms;
};

/* STR's index in the string table; -ENOMEM. */
static int64_t str(struct enc *e, const char *s)
{
	return strtab_intern(e->strs, s ? s : "");
}

/* The Function of NAME (as shown) and RAW (as in the symbol table): its id; -ENOMEM. */
static int64_t function(struct enc *e, const char *name, const char *raw, const char *file)
{
	bool added;
	int64_t i = pairtab_intern(e->fn_ids, (uintptr_t)name, (uintptr_t)raw, &added);
	int64_t n, r, f;

	if (i < 0 || !added)
		return i < 0 ? i : i + 1;
	n = str(e, name);
	r = str(e, raw ? raw : name);
	f = str(e, file);
	if (n < 0 || r < 0 || f < 0 || GROW(e->fns, e->cap_fns, e->n_fns + 1) < 0)
		return -ENOMEM;
	perftools__profiles__function__init(&e->fns[e->n_fns]);
	e->fns[e->n_fns].id = (uint64_t)i + 1;
	e->fns[e->n_fns].name = n;
	e->fns[e->n_fns].system_name = r;
	e->fns[e->n_fns].filename = f;
	e->n_fns++;
	return i + 1;
}

/* Lowercase hex of a build-id into out (2 * len + 1 bytes). */
static void hex(const uint8_t *id, size_t len, char *out)
{
	for (size_t i = 0; i < len; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * len] = '\0';
}

/* The Mapping of object DSO: its index; -ENOMEM. Its address range grows with its locations
 * (update_range()). */
static int64_t mapping(struct enc *e, uint32_t dso)
{
	struct dsotab *d = e->p.dsos;
	char bid[2 * 64 + 1] = "";
	Mapping *m;
	int64_t fname, b;
	size_t old = e->cap_map_of_dso;

	if (GROW(e->map_of_dso, e->cap_map_of_dso, (size_t)dso + 1) < 0)
		return -ENOMEM;
	memset(e->map_of_dso + old, 0, (e->cap_map_of_dso - old) * sizeof(*e->map_of_dso));
	if (e->map_of_dso[dso])
		return e->map_of_dso[dso] - 1;
	if (dsotab_kind(d, dso) == DSOTAB_FILE) {
		size_t len;
		const uint8_t *id = sym_dso_build_id(dsotab_sym(d, dso), &len);

		if (id && len <= 64)
			hex(id, len, bid);
	}
	fname = str(e, session_dso_path(e->s, dso));
	b = str(e, bid);
	if (fname < 0 || b < 0 || GROW(e->maps, e->cap_maps, e->n_maps + 1) < 0)
		return -ENOMEM;
	m = &e->maps[e->n_maps];
	perftools__profiles__mapping__init(m);
	m->id = e->n_maps + 1;
	m->filename = fname;
	m->build_id = b;
	m->memory_start = UINT64_MAX;
	e->map_of_dso[dso] = (uint32_t)++e->n_maps;
	return (int64_t)e->n_maps - 1;
}

/* Files (and pseudo-files) are located by file offset: a mapping from 0, offset 0, so that
 * address - memory_start + file_offset is the offset. Kernel and JIT code by address. */
static void update_range(struct enc *e, Mapping *m, uint32_t dso, uint64_t addr)
{
	enum dsotab_kind k = dsotab_kind(e->p.dsos, dso);
	bool by_offset = k == DSOTAB_FILE || k == DSOTAB_PSEUDO;
	uint64_t lo = by_offset ? 0 : addr;

	if (lo < m->memory_start)
		m->memory_start = lo;
	if (addr + 1 > m->memory_limit)
		m->memory_limit = addr + 1;
}

/* The lines of location LOC (object DSO, address ADDR) into e->lines, innermost first:
 * 0 or -ENOMEM. Unknown code has none (a backend may symbolize it by build-id). */
static int loc_lines(struct enc *e, uint32_t loc, uint32_t dso, uint64_t addr, Mapping *m)
{
	struct sym_frame fr[SYM_INLINE_MAX];
	uint32_t n;
	const uint32_t *syms = symstacks_loc(e->p.ss, loc, &n);
	const char *file;
	int k = 0, line;

	if (dsotab_kind(e->p.dsos, dso) == DSOTAB_FILE)
		k = symbolizer_lookup(e->p.symz, dsotab_sym(e->p.dsos, dso), addr, fr,
				      SYM_INLINE_MAX);
	for (uint32_t i = 0; i < n; i++) {
		const char *name = session_sym(e->s, syms[i])->name;
		bool have = (int)i < k && fr[i].name == name;
		int64_t f;

		if (!name)
			break;
		/* Without inline frames, the line in the function itself (the call site of
		 * inlined code), so that pprof -list FUNC shows FUNC's own source. */
		file = !have ? NULL : k == 1 && fr[i].fn_file ? fr[i].fn_file : fr[i].file;
		line = !have || !file ? 0 : k == 1 && fr[i].fn_file ? fr[i].fn_line : fr[i].line;
		f = function(e, name, have ? fr[i].raw : name, file);
		if (f < 0 || GROW(e->lines, e->cap_lines, e->n_lines + 1) < 0)
			return -ENOMEM;
		perftools__profiles__line__init(&e->lines[e->n_lines]);
		e->lines[e->n_lines].function_id = (uint64_t)f;
		e->lines[e->n_lines].line = line;
		e->n_lines++;
		m->has_functions = true;
		m->has_filenames |= file != NULL;
		m->has_line_numbers |= line > 0;
		m->has_inline_frames |= n > 1;
	}
	return 0;
}

/* The pprof id of aggregate location LOC, adding it when new; -ENOMEM. */
static int64_t location(struct enc *e, uint32_t loc)
{
	uint32_t dso;
	uint64_t addr;
	int64_t mi;
	Location *l;
	uint32_t first = (uint32_t)e->n_lines;

	if (e->loc_ids[loc])
		return (int64_t)e->loc_ids[loc];
	aggregate_loc(e->p.agg, loc, &dso, &addr);
	mi = mapping(e, dso);
	if (mi < 0 || GROW(e->locs, e->cap_locs, e->n_locs + 1) < 0 ||
	    GROW(e->plocs, e->cap_plocs, e->n_locs + 1) < 0)
		return -ENOMEM;
	update_range(e, &e->maps[mi], dso, addr);
	if (loc_lines(e, loc, dso, addr, &e->maps[mi]) < 0)
		return -ENOMEM;
	l = &e->locs[e->n_locs];
	perftools__profiles__location__init(l);
	l->id = e->n_locs + 1;
	l->mapping_id = e->maps[mi].id;
	l->address = addr;
	e->plocs[e->n_locs] = (struct ploc){ first, (uint32_t)e->n_lines - first };
	e->loc_ids[loc] = l->id;
	e->n_locs++;
	return (int64_t)l->id;
}

/* Is location LOC the [off-cpu] frame that ends every off-CPU stack? */
static bool offcpu_leaf(const struct enc *e, uint32_t loc)
{
	uint32_t dso;
	uint64_t addr;

	const char *name;

	aggregate_loc(e->p.agg, loc, &dso, &addr);
	name = dsotab_name(e->p.dsos, dso);
	return name && strcmp(name, "[off-cpu]") == 0;
}

/* One aggregate count into the samples, merged with the others of its stack and task (they
 * differ by CPU only). 0 or -ENOMEM. */
static int add_count(struct enc *e, const struct aggregate_count *c)
{
	uint32_t n;
	const uint32_t *stack = aggregate_stack(e->p.agg, c->stack, &n);
	bool added;
	int64_t i, cu = pairtab_intern(e->cu_ids, c->comm, c->unit, NULL);

	if (!n)
		return 0;
	if (cu < 0)
		return -ENOMEM;
	i = pairtab_intern(e->smp_ids, (uint64_t)c->stack << 32 | (uint64_t)cu,
			   (uint64_t)(uint32_t)c->pid << 32 | (uint32_t)c->tid, &added);
	if (i < 0)
		return -ENOMEM;
	if (added) {
		if (GROW(e->smps, e->cap_smps, e->n_smps + 1) < 0 ||
		    GROW(e->ids, e->cap_ids, e->n_ids + n) < 0)
			return -ENOMEM;
		for (uint32_t k = 0; k < n; k++) {
			int64_t id = location(e, stack[k]);

			if (id < 0)
				return -ENOMEM;
			e->ids[e->n_ids + k] = (uint64_t)id;
		}
		e->smps[e->n_smps++] = (struct psample){
			(uint32_t)e->n_ids, n, { 0 }, c->pid, c->tid, c->comm, c->unit
		};
		e->n_ids += n;
	}
	e->smps[i].val[VAL_COUNT] += (int64_t)c->count;
	if (e->weight != SESSION_WALL) {
		e->smps[i].val[VAL_PERIOD] += (int64_t)c->period;
		return 0;
	}
	/* Wall time: on-CPU periods and off-CPU time apart, and together. */
	e->smps[i].val[offcpu_leaf(e, stack[0]) ? VAL_OFFCPU : VAL_PERIOD] += (int64_t)c->period;
	e->smps[i].val[VAL_WALL] += (int64_t)c->period;
	return 0;
}

/* Is the leaf frame of count C's stack in an object --dso keeps (and its stack one the focus
 * filter keeps)? */
static bool kept(struct enc *e, const struct aggregate_count *c)
{
	uint32_t n, n_syms;
	const uint32_t *stack = aggregate_stack(e->p.agg, c->stack, &n);
	const uint32_t *syms;

	if (!n)
		return false;
	syms = symstacks_loc(e->p.ss, stack[0], &n_syms);
	if (!n_syms || !session_dso_kept(e->s, session_sym(e->s, syms[0])->dso))
		return false;
	return focus_keep_locs(session_focus(e->s), session_sym_text, e->s, e->p.ss, stack, n,
			       &e->syms, &e->cap_syms);
}

/* Whether mapping file PATH is the program COMM runs: its base name starts with COMM (the
 * kernel keeps 15 characters of it: "python3" runs python3.11). */
static bool runs(const char *path, const char *comm)
{
	const char *base = strrchr(path, '/');

	return comm[0] && path[0] == '/' && strncmp(base + 1, comm, strlen(comm)) == 0;
}

/* The mapping of the program that the heaviest command of the profile runs, index MI, made
 * mapping 0 (pprof names the first mapping's file as the profile's "File:"): the locations'
 * references follow it. Where none is found the order stays. -ENOMEM. */
static int program_first(struct enc *e)
{
	uint64_t *by_comm = NULL, *by_map = calloc(e->n_maps + 1, sizeof(*by_map));
	size_t cap = 0, mi = 0;
	uint32_t heavy = 0;
	const char *comm;

	if (!by_map)
		return -ENOMEM;
	for (size_t i = 0; i < e->n_smps; i++) {
		uint32_t c = e->smps[i].comm;

		if (c >= cap) {
			size_t old = cap;

			if (GROW(by_comm, cap, (size_t)c + 1) < 0) {
				free(by_map);
				return -ENOMEM;
			}
			memset(by_comm + old, 0, (cap - old) * sizeof(*by_comm));
		}
		by_comm[c] += (uint64_t)e->smps[i].val[0];
		if (by_comm[c] > by_comm[heavy]) /* heavy < cap: cap > 0 from here on */
			heavy = c;
	}
	comm = e->n_smps ? session_comm(e->s, heavy) : "";
	for (size_t i = 0; i < e->n_smps; i++) {
		const struct psample *ps = &e->smps[i];

		for (uint32_t k = 0; ps->comm == heavy && k < ps->n; k++) {
			size_t m = (size_t)e->locs[e->ids[ps->first + k] - 1].mapping_id - 1;

			if (m < e->n_maps &&
			    runs(strtab_get(e->strs, (uint32_t)e->maps[m].filename), comm))
				by_map[m] += (uint64_t)ps->val[0];
		}
	}
	for (size_t m = 1; m < e->n_maps; m++)
		mi = by_map[m] > by_map[mi] ? m : mi;
	if (mi > 0 && by_map[mi]) {
		Mapping t = e->maps[0];

		e->maps[0] = e->maps[mi];
		e->maps[mi] = t;
		e->maps[0].id = 1;
		e->maps[mi].id = mi + 1;
		for (size_t l = 0; l < e->n_locs; l++)
			e->locs[l].mapping_id = e->locs[l].mapping_id == 1 ? mi + 1
						: e->locs[l].mapping_id == mi + 1
						    ? 1
						    : e->locs[l].mapping_id;
		for (size_t d = 0; d < e->cap_map_of_dso; d++)
			e->map_of_dso[d] = e->map_of_dso[d] == 1	? (uint32_t)mi + 1
					   : e->map_of_dso[d] == mi + 1 ? 1
									: e->map_of_dso[d];
	}
	free(by_comm);
	free(by_map);
	return 0;
}

static int add_counts(struct enc *e, const struct pprof_opts *o)
{
	size_t n = aggregate_n_counts(e->p.agg);
	uint32_t n_locs = aggregate_n_locs(e->p.agg);

	e->loc_ids = calloc(n_locs ? n_locs : 1, sizeof(*e->loc_ids));
	if (!e->loc_ids)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct aggregate_count c;

		aggregate_count(e->p.agg, i, &c);
		if (o && o->one_unit && c.unit != o->unit)
			continue;
		if (kept(e, &c) && add_count(e, &c) < 0)
			return -ENOMEM;
	}
	return program_first(e);
}

/* The event the profile is of: the one selected, else the first file's. */
static void event_of(const struct session *s, struct rp_event_desc *ret)
{
	const struct rp_event_desc *ev = session_selected_event(s);
	const struct rp_header_rec *h = session_header(s);

	if (ev) {
		*ret = *ev;
		return;
	}
	memset(ret, 0, sizeof(*ret));
	if (h) {
		snprintf(ret->name, sizeof(ret->name), "%.63s", h->event_name);
		ret->freq = h->flags & RP_HDR_FREQ ? h->freq : 0;
		ret->period = h->period;
	}
}

/* Sample type VT: TYPE/UNIT. 0 or -ENOMEM. */
static int value_type(struct enc *e, ValueType *vt, const char *type, const char *unit)
{
	int64_t t = str(e, type), u = str(e, unit);

	if (t < 0 || u < 0)
		return -ENOMEM;
	perftools__profiles__value_type__init(vt);
	vt->type = t;
	vt->unit = u;
	return 0;
}

/* The sample types (VAL_*, as many as *ret_n), the period and the window. cpu-clock and
 * task-clock count nanoseconds; other events count themselves; off-CPU time is a type of its
 * own. VT has N_VALS + 1 entries (the last for period_type). 0 or -ENOMEM. */
static int describe(struct enc *e, Profile *pr, ValueType *vt, size_t *ret_n,
		    const struct pprof_opts *o)
{
	const struct session_totals *t = session_totals(e->s);
	const struct rp_header_rec *h = session_header(e->s);
	struct rp_event_desc ev;
	char base[64];
	bool ns;
	size_t n = e->weight == SESSION_WALL ? N_VALS : 2;
	int rc;

	event_of(e->s, &ev);
	snprintf(base, sizeof(base), "%s", ev.name[0] ? ev.name : "events");
	base[strcspn(base, ":")] = '\0'; /* "cpu-clock:u" counts what cpu-clock counts */
	ns = strcmp(base, "cpu-clock") == 0 || strcmp(base, "task-clock") == 0;
	rc = value_type(e, &vt[VAL_COUNT], "samples", "count");
	if (rc == 0 && e->weight == SESSION_OFFCPU)
		rc = value_type(e, &vt[VAL_PERIOD], "off_cpu", "nanoseconds");
	else if (rc == 0)
		rc =
		    value_type(e, &vt[VAL_PERIOD], ns ? "cpu" : base, ns ? "nanoseconds" : "count");
	if (rc == 0 && e->weight == SESSION_WALL)
		rc = value_type(e, &vt[VAL_OFFCPU], "off_cpu", "nanoseconds");
	if (rc == 0 && e->weight == SESSION_WALL)
		rc = value_type(e, &vt[VAL_WALL], "wall", "nanoseconds");
	if (rc < 0)
		return rc;
	*ret_n = n;
	vt[N_VALS] = vt[VAL_PERIOD];
	pr->default_sample_type = vt[n - 1].type;
	pr->period_type = &vt[N_VALS];
	/* Frequency mode: the mean period (1e9 / Hz for a clock). Off-CPU time has none. */
	if (e->weight == SESSION_OFFCPU)
		pr->period = 0;
	else if (ev.freq && ns)
		pr->period = (int64_t)(1000000000u / ev.freq);
	else if (ev.freq)
		pr->period = t->samples ? (int64_t)(t->period / t->samples) : 0;
	else
		pr->period = (int64_t)ev.period;
	if (o && (o->start || o->end)) {
		pr->time_nanos = o->start;
		pr->duration_nanos = o->end > o->start ? o->end - o->start : 0;
	} else if (h && t->samples) {
		pr->time_nanos = util_wall_ns(t->t_first, h->realtime_offset);
		pr->duration_nanos = (int64_t)(t->t_last - t->t_first);
	}
	return 0;
}

/* Each sample's labels: pid, tid, comm, unit (the last left out where there is none). */
#define N_LABELS 4

static bool has_unit(const char *unit)
{
	return strcmp(unit, "-") != 0 && strcmp(unit, UNIT_UNKNOWN) != 0;
}

/* Every array has its final place: point the messages at their parts and at each other.
 * 0 or -ENOMEM. */
/*
 * The samples, encoded by hand. They are most of a profile's messages: protobuf-c's structs
 * for each (a Sample, its four Labels and their pointers, ~350 bytes) would all be held at
 * once before packing. They are written after the rest of the Profile instead, as the
 * repeated field 2 they are (a reader takes a message's fields in any order), in the wire
 * format of profile.proto's Sample and Label (proto3: zero scalars left out, as protobuf-c
 * leaves them, repeated numbers packed).
 */
static size_t varint_len(uint64_t v)
{
	size_t n = 1;

	for (; v >= 0x80; v >>= 7)
		n++;
	return n;
}

static uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	for (; v >= 0x80; v >>= 7)
		*p++ = (uint8_t)(v | 0x80);
	*p++ = (uint8_t)v;
	return p;
}

/* A field of wire type 0 (varint) when V is not zero: its size, and its bytes at P. */
static size_t num_field_len(uint64_t v)
{
	return v ? 1 + varint_len(v) : 0;
}

static uint8_t *put_num_field(uint8_t *p, unsigned field, uint64_t v)
{
	if (!v)
		return p;
	*p++ = (uint8_t)(field << 3);
	return put_varint(p, v);
}

struct slabel {
	int64_t key, str, num;
};

/* Sample I's labels into L (pid, tid, comm and, where there is one, unit): how many, or
 * -ENOMEM. Their strings are interned, so call it once before the string table is packed. */
static int sample_labels(struct enc *e, const struct psample *ps, struct slabel *l)
{
	const char *unit = session_unit(e->s, ps->unit);

	l[0] = (struct slabel){ e->k_pid, 0, ps->pid };
	l[1] = (struct slabel){ e->k_tid, 0, ps->tid };
	l[2] = (struct slabel){ e->k_comm, str(e, session_comm(e->s, ps->comm)), 0 };
	l[3] = (struct slabel){ e->k_unit, str(e, unit), 0 };
	if (l[2].str < 0 || l[3].str < 0)
		return -ENOMEM;
	/* No unit label where there is none: the root cgroup ("-"), or none recorded. */
	return has_unit(unit) ? N_LABELS : N_LABELS - 1;
}

static size_t label_len(const struct slabel *l)
{
	return num_field_len((uint64_t)l->key) + num_field_len((uint64_t)l->str) +
	       num_field_len((uint64_t)l->num);
}

/* Sample PS's message (without its tag and length): its size; its bytes at P when P. */
static size_t sample_msg(struct enc *e, const struct psample *ps, uint8_t *p)
{
	struct slabel l[N_LABELS];
	int n_labels = sample_labels(e, ps, l); /* strings already there: cannot fail */
	size_t n_vals = e->weight == SESSION_WALL ? N_VALS : 2, ids = 0, vals = 0, len;

	for (uint32_t k = 0; k < ps->n; k++)
		ids += varint_len(e->ids[ps->first + k]);
	for (size_t k = 0; k < n_vals; k++)
		vals += varint_len((uint64_t)ps->val[k]);
	len = (ps->n ? 1 + varint_len(ids) + ids : 0) + 1 + varint_len(vals) + vals;
	for (int k = 0; k < n_labels; k++)
		len += 1 + varint_len(label_len(&l[k])) + label_len(&l[k]);
	if (!p)
		return len;
	if (ps->n) {
		*p++ = 1 << 3 | 2;
		p = put_varint(p, ids);
		for (uint32_t k = 0; k < ps->n; k++)
			p = put_varint(p, e->ids[ps->first + k]);
	}
	*p++ = 2 << 3 | 2;
	p = put_varint(p, vals);
	for (size_t k = 0; k < n_vals; k++)
		p = put_varint(p, (uint64_t)ps->val[k]);
	for (int k = 0; k < n_labels; k++) {
		*p++ = 3 << 3 | 2;
		p = put_varint(p, label_len(&l[k]));
		p = put_num_field(p, 1, (uint64_t)l[k].key);
		p = put_num_field(p, 2, (uint64_t)l[k].str);
		p = put_num_field(p, 3, (uint64_t)l[k].num);
	}
	return len;
}

/* Intern every sample's label strings (before the string table is packed). 0 or -ENOMEM. */
static int label_strings(struct enc *e)
{
	struct slabel l[N_LABELS];

	for (size_t i = 0; i < e->n_smps; i++)
		if (sample_labels(e, &e->smps[i], l) < 0)
			return -ENOMEM;
	return 0;
}

/* Pointer arrays for the tables, as protobuf-c wants them; freed with one free() each by
 * the caller. 0 or -ENOMEM. */
struct ptrs {
	Mapping **maps;
	Location **locs;
	Line **lines;
	Function **fns;
	char **strs;
};

static void ptrs_free(struct ptrs *p)
{
	free(p->maps);
	free(p->locs);
	free(p->lines);
	free(p->fns);
	free(p->strs);
}

static int tables(struct enc *e, Profile *pr, struct ptrs *p)
{
	size_t n_strs;

	p->maps = calloc(e->n_maps + 1, sizeof(*p->maps));
	p->locs = calloc(e->n_locs + 1, sizeof(*p->locs));
	p->lines = calloc(e->n_lines + 1, sizeof(*p->lines));
	p->fns = calloc(e->n_fns + 1, sizeof(*p->fns));
	if (!p->maps || !p->locs || !p->lines || !p->fns || label_strings(e) < 0)
		return -ENOMEM;
	/* The labels' strings are in: the string table is complete. */
	n_strs = strtab_count(e->strs);
	p->strs = calloc(n_strs + 1, sizeof(*p->strs));
	if (!p->strs)
		return -ENOMEM;
	for (size_t i = 0; i < n_strs; i++)
		p->strs[i] = (char *)strtab_get(e->strs, (uint32_t)i);
	for (size_t i = 0; i < e->n_maps; i++)
		p->maps[i] = &e->maps[i];
	for (size_t i = 0; i < e->n_lines; i++)
		p->lines[i] = &e->lines[i];
	for (size_t i = 0; i < e->n_locs; i++) {
		e->locs[i].n_line = e->plocs[i].n;
		e->locs[i].line = p->lines + e->plocs[i].first;
		p->locs[i] = &e->locs[i];
	}
	for (size_t i = 0; i < e->n_fns; i++)
		p->fns[i] = &e->fns[i];
	pr->n_mapping = e->n_maps;
	pr->mapping = p->maps;
	pr->n_location = e->n_locs;
	pr->location = p->locs;
	pr->n_function = e->n_fns;
	pr->function = p->fns;
	pr->n_string_table = n_strs;
	pr->string_table = p->strs;
	return 0;
}

static void enc_done(struct enc *e)
{
	strtab_free(e->strs);
	pairtab_free(e->fn_ids);
	pairtab_free(e->smp_ids);
	pairtab_free(e->cu_ids);
	free(e->fns);
	free(e->maps);
	free(e->map_of_dso);
	free(e->locs);
	free(e->plocs);
	free(e->lines);
	free(e->syms);
	free(e->loc_ids);
	free(e->smps);
	free(e->ids);
}

/* The profile's messages, packed: a malloc'd *ret_buf of *ret_len bytes. 0 or -ENOMEM. */
static int pack(struct enc *e, const struct pprof_opts *o, uint8_t **ret_buf, size_t *ret_len)
{
	Profile pr = PERFTOOLS__PROFILES__PROFILE__INIT;
	ValueType vt[N_VALS + 1];
	ValueType *vtp[N_VALS] = { &vt[0], &vt[1], &vt[2], &vt[3] };
	size_t n_types = 2;
	struct ptrs p = { 0 };
	uint8_t *buf = NULL;
	size_t len, head = 0;
	int rc;

	e->k_pid = str(e, "pid");
	e->k_tid = str(e, "tid");
	e->k_comm = str(e, "comm");
	e->k_unit = str(e, "unit");
	rc = e->k_pid < 0 || e->k_tid < 0 || e->k_comm < 0 || e->k_unit < 0 ? -ENOMEM
									    : add_counts(e, o);
	if (rc == 0)
		rc = describe(e, &pr, vt, &n_types, o);
	if (rc == 0)
		rc = tables(e, &pr, &p);
	if (rc == 0) {
		pr.n_sample_type = n_types;
		pr.sample_type = vtp;
		head = len = perftools__profiles__profile__get_packed_size(&pr);
		for (size_t i = 0; i < e->n_smps; i++) {
			size_t m = sample_msg(e, &e->smps[i], NULL);

			len += 1 + varint_len(m) + m;
		}
		buf = malloc(len ? len : 1);
		rc = buf ? 0 : -ENOMEM;
	}
	if (rc == 0) {
		uint8_t *w = buf + perftools__profiles__profile__pack(&pr, buf);

		for (size_t i = 0; i < e->n_smps; i++) {
			size_t m = sample_msg(e, &e->smps[i], NULL);

			*w++ = 2 << 3 | 2; /* Profile.sample */
			w = put_varint(w, m);
			w += sample_msg(e, &e->smps[i], w);
		}
		rc = (size_t)(w - buf) == len && head <= len ? 0 : -EIO;
		*ret_buf = buf;
		*ret_len = len;
	}
	ptrs_free(&p);
	return rc;
}

int pprof_encode(const struct session *s, const struct pprof_opts *o, uint8_t **ret_buf,
		 size_t *ret_len)
{
	struct enc e = { .s = s, .weight = session_weight(s) };
	uint8_t *raw = NULL;
	size_t len = 0;
	int rc = -ENOMEM;

	session_parts(s, &e.p);
	e.strs = strtab_new();
	e.fn_ids = pairtab_new();
	e.smp_ids = pairtab_new();
	e.cu_ids = pairtab_new();
	/* String 0 must be "". */
	if (e.strs && e.fn_ids && e.smp_ids && e.cu_ids && strtab_intern(e.strs, "") == 0)
		rc = pack(&e, o, &raw, &len);
	enc_done(&e);
	if (rc == 0)
		rc = gzip_compress(raw, len, GZIP_FAST, ret_buf, ret_len);
	free(raw);
	return rc;
}

/* All of BUF to FD: 0 or -errno. */
static int write_all(int fd, const uint8_t *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* BUF to PATH through PATH.tmp: 0 or -errno with why. */
static int write_file(const char *path, const uint8_t *buf, size_t len, char *why, size_t why_size)
{
	char *tmp = NULL;
	int fd, rc;

	if (asprintf(&tmp, "%s.tmp", path) < 0) {
		snprintf(why, why_size, "out of memory");
		return -ENOMEM;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		rc = -errno;
		snprintf(why, why_size, "cannot create %s: %s", tmp, strerror(-rc));
		free(tmp);
		return rc;
	}
	rc = write_all(fd, buf, len);
	if (rc == 0 && fsync(fd) < 0)
		rc = -errno;
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && rename(tmp, path) < 0) {
		rc = -errno;
		snprintf(why, why_size, "cannot rename %s to %s: %s", tmp, path, strerror(-rc));
	} else if (rc < 0) {
		snprintf(why, why_size, "writing %s failed: %s", tmp, strerror(-rc));
	}
	if (rc < 0)
		unlink(tmp);
	free(tmp);
	return rc;
}

int pprof_write(const struct session *s, const struct pprof_opts *o, const char *path, char *why,
		size_t why_size)
{
	uint8_t *buf;
	size_t len;
	int rc = pprof_encode(s, o, &buf, &len);

	if (rc < 0) {
		snprintf(why, why_size, "out of memory while encoding the profile");
		return rc;
	}
	if (strcmp(path, "-") == 0) {
		rc = write_all(STDOUT_FILENO, buf, len);
		if (rc < 0)
			snprintf(why, why_size, "writing the profile to standard output failed: %s",
				 strerror(-rc));
	} else {
		rc = write_file(path, buf, len, why, why_size);
	}
	free(buf);
	return rc;
}
