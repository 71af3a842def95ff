/* session.c — a report run: owns its models and tables, runs replay, symbolization and rows. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/intern.h"
#include "base/util.h"
#include "format/format.h"
#include "format/reader.h"
#include "profile/aggregate.h"
#include "profile/dsotab.h"
#include "profile/ksymtab.h"
#include "profile/procmodel.h"
#include "profile/replay.h"
#include "profile/session.h"
#include "profile/symbolizer.h"
#include "profile/symstacks.h"

struct session {
	struct session_opts o;
	struct symbolizer *symz;
	struct ksymtab *ksyms;
	struct procmodel *pm;
	struct dsotab *dsos;
	struct aggregate *agg;
	struct symstacks *ss;
	struct replay *rp;
	struct rp_header_rec *header;
	struct session_totals t;
};

struct session *session_new(const struct session_opts *o)
{
	struct session *s = calloc(1, sizeof(*s));
	struct symbolizer_opts so;

	if (!s)
		return NULL;
	s->o = *o;
	memset(&so, 0, sizeof(so));
	so.symfs = o->symfs;
	so.inline_frames = o->inline_frames;
	so.no_demangle = o->no_demangle;
	so.debuginfod = o->debuginfod;
	so.debuginfod_timeout = o->debuginfod_timeout;
	so.warn = o->warn;
	so.warn_arg = o->warn_arg;
	s->symz = symbolizer_new(&so);
	s->ksyms = ksymtab_new();
	s->pm = procmodel_new();
	s->agg = aggregate_new();
	if (!s->symz || !s->ksyms || !s->pm || !s->agg)
		return session_free(s);
	s->dsos = dsotab_new(s->symz, s->o.symfs);
	if (!s->dsos)
		return session_free(s);
	s->ss = symstacks_new(s->dsos, s->symz, s->ksyms);
	s->rp = replay_new(&s->o, s->pm, s->dsos, s->ksyms, s->agg, &s->t);
	if (!s->ss || !s->rp)
		return session_free(s);
	return s;
}

struct session *session_free(struct session *s)
{
	if (!s)
		return NULL;
	replay_free(s->rp);
	free(s->t.unwind_dso);
	symstacks_free(s->ss);
	aggregate_free(s->agg);
	dsotab_free(s->dsos);
	procmodel_free(s->pm);
	ksymtab_free(s->ksyms);
	symbolizer_free(s->symz);
	free(s->header);
	free(s);
	return NULL;
}

int session_file_bounds(const char *path, int64_t *ret_start, int64_t *ret_end, char *why,
			size_t why_size)
{
	struct reader *r;
	const struct rp_header_rec *h;
	uint64_t first, last;
	int rc = reader_open(path, &r, why, why_size);

	if (rc < 0)
		return rc;
	h = reader_header(r);
	if (!h) {
		snprintf(why, why_size, "its header is lost, so its wall-clock time is unknown");
		rc = -ENODATA;
	} else if (reader_time_bounds(r, &first, &last) < 0) {
		snprintf(why, why_size, "no intact frame");
		rc = -ENODATA;
	} else {
		*ret_start = util_wall_ns(first, h->realtime_offset);
		*ret_end = util_wall_ns(last, h->realtime_offset);
	}
	reader_free(r);
	return rc;
}

int session_add_file(struct session *s, const char *path, char *why, size_t why_size)
{
	const struct rp_header_rec *hdr;
	struct reader *r;
	int rc;

	rc = reader_open(path, &r, why, why_size);
	if (rc < 0)
		return rc;
	reader_set_warn(r, s->o.warn, s->o.warn_arg);
	hdr = reader_header(r);
	if (hdr && !s->header) {
		s->header = malloc(hdr->hdr.size + 1);
		if (!s->header) {
			snprintf(why, why_size, "out of memory");
			reader_free(r);
			return -ENOMEM;
		}
		memcpy(s->header, hdr, hdr->hdr.size);
		((char *)s->header)[hdr->hdr.size] = '\0';
	}
	rc = replay_file(s->rp, r, why, why_size);
	reader_free(r);
	return rc;
}

/* Samples with a frame in no known mapping: with lost records, the header says why. */
static uint64_t count_unmapped(const struct session *s)
{
	size_t n_rows;
	const struct session_row *rows = aggregate_rows(s->agg, &n_rows);
	uint64_t n = 0;

	for (size_t i = 0; i < n_rows; i++) {
		uint32_t len;
		const uint32_t *st = symstacks_get(s->ss, rows[i].stack, &len);

		for (uint32_t k = 0; k < len; k++) {
			if (dsotab_unmapped(s->dsos, symstacks_sym(s->ss, st[k])->dso)) {
				n += rows[i].count;
				break;
			}
		}
	}
	return n;
}

int session_finish(struct session *s)
{
	uint32_t n_locs = aggregate_n_locs(s->agg);
	int rc;

	ksymtab_finish(s->ksyms);
	/* Each unique location is symbolized once, in id order. */
	for (uint32_t l = 0; l < n_locs; l++) {
		uint32_t dso;
		uint64_t addr;

		aggregate_loc(s->agg, l, &dso, &addr);
		if (symstacks_add_loc(s->ss, dso, addr) < 0)
			return -ENOMEM;
	}
	rc = aggregate_build_rows(s->agg, s->ss, &s->t);
	if (rc < 0)
		return rc;
	/* --dso keeps samples whose own (leaf) frame is in one of the objects. */
	if (s->o.filter.n_dsos)
		aggregate_keep_dsos(s->agg, s->ss, s->dsos, s->o.filter.dsos, s->o.filter.n_dsos,
				    &s->t);
	s->t.samples_unmapped = count_unmapped(s);
	return 0;
}

/* ---- accessors ---- */

const struct rp_header_rec *session_header(const struct session *s)
{
	return s->header;
}

const struct session_totals *session_totals(const struct session *s)
{
	return &s->t;
}

const struct session_row *session_rows(const struct session *s, size_t *ret_n)
{
	return aggregate_rows(s->agg, ret_n);
}

const uint32_t *session_stack(const struct session *s, uint32_t id, uint32_t *ret_n)
{
	return symstacks_get(s->ss, id, ret_n);
}

const struct session_sym *session_sym(const struct session *s, uint32_t id)
{
	return symstacks_sym(s->ss, id);
}

const char *session_dso_name(const struct session *s, uint32_t dso)
{
	return dsotab_name(s->dsos, dso);
}

const char *session_comm(const struct session *s, uint32_t comm)
{
	return strtab_get(procmodel_comms(s->pm), comm);
}
