/* print.c — perf-like text reports: entries keyed by the sort keys, Children and Self shares. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/grow.h"
#include "base/intern.h"
#include "base/util.h"
#include "format/format.h"
#include "profile/print.h"
#include "profile/dsotab.h"
#include "profile/focus.h"
#include "profile/session.h"
#include "profile/unit.h"
#include "profile/symbolizer.h"

static const char *const key_names[PRINT_N_KEYS] = { "comm", "pid", "tid",  "dso",
						     "sym",  "cpu", "unit", "srcline" };
static const char *const key_titles[PRINT_N_KEYS] = { "Command", "Pid", "Tid",	"Shared Object",
						      "Symbol",	 "CPU", "Unit", "Source:Line" };

const char *print_key_title(enum print_key k)
{
	return key_titles[k];
}

bool print_has_key(const struct print_opts *o, enum print_key k)
{
	for (size_t i = 0; i < o->n_keys; i++)
		if (o->keys[i] == k)
			return true;
	return false;
}

int print_parse_sort(const char *s, struct print_opts *o)
{
	char buf[256], *save = NULL;
	size_t n = 0;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int k;

		if (strcmp(t, "symbol") == 0) /* perf's name */
			t = "sym";
		for (k = 0; k < PRINT_N_KEYS && strcmp(t, key_names[k]); k++)
			;
		if (k == PRINT_N_KEYS)
			return -EINVAL;
		for (size_t i = 0; i < n; i++)
			if (o->keys[i] == (enum print_key)k)
				return -EINVAL;
		o->keys[n++] = (enum print_key)k;
	}
	if (!n)
		return -EINVAL;
	o->n_keys = n;
	return 0;
}

/* SYM's name as trees and --folded show it: an unknown frame with its object and address. */
static const char *sym_name(const struct session *s, uint32_t sym)
{
	return session_sym_text(s, sym);
}

/* SYM's srcline as a frame suffix (" FILE:LINE"), or "" without one or when not asked. */
static const char *sym_line(const struct session *s, uint32_t sym, bool srcline, char *buf,
			    size_t size)
{
	const struct session_sym *ss = session_sym(s, sym);

	if (!srcline || !ss->srcline)
		return "";
	snprintf(buf, size, " %s", ss->srcline);
	return buf;
}

/* The objects where the most incomplete user stacks stop, worst first, at most 3 of them. */
static void print_unwind_objects(FILE *f, const struct session *s, const struct session_totals *t)
{
	size_t best[3];
	int n = 0;

	for (; n < 3; n++) {
		size_t b = SIZE_MAX;

		for (size_t i = 0; i < t->n_unwind_dso; i++) {
			bool taken = false;

			for (int k = 0; k < n; k++)
				taken |= best[k] == i;
			if (!taken && t->unwind_dso[i] &&
			    (b == SIZE_MAX || t->unwind_dso[i] > t->unwind_dso[b]))
				b = i;
		}
		if (b == SIZE_MAX || (double)t->unwind_dso[b] < 0.01 * (double)t->unwound)
			break;
		best[n] = b;
	}
	for (int k = 0; k < n; k++)
		fprintf(f, "%s %s (%.1f%%)", k ? "," : "# incomplete stacks end most in:",
			session_dso_name(s, (uint32_t)best[k]),
			100.0 * (double)t->unwind_dso[best[k]] / (double)t->unwound);
	if (n)
		fputc('\n', f);
}

/* How complete the user stacks unwound while recording are, what cut the others, what to do. */
/* OBJECT has .eh_frame or .debug_frame: whether it covers the code its walks stopped in (the
 * offsets the replay kept), checked in the file; the advice follows. */
static void print_noinfo_cfi(FILE *f, const struct session *s, const struct session_parts *p,
			     uint32_t dso, int info)
{
	const struct session_totals *t = session_totals(s);
	const char *cfi = info & SYMBOLIZER_EH_FRAME ? ".eh_frame" : ".debug_frame";
	unsigned in = 0, out = 0;

	if ((info & SYMBOLIZER_EH_FRAME) && dso < t->n_unwind_noinfo_at) {
		const struct session_stop_offs *at = &t->unwind_noinfo_at[dso];

		for (uint32_t i = 0; i < at->n; i++) {
			/* A return address may be just past its call's function: either byte. */
			int a = symbolizer_eh_covers(p->symz, dsotab_sym(p->dsos, dso), at->off[i]);
			int b = at->off[i] ? symbolizer_eh_covers(p->symz, dsotab_sym(p->dsos, dso),
								  at->off[i] - 1)
					   : a;

			if (a > 0 || b > 0)
				in++;
			else if (a == 0 && b == 0)
				out++;
		}
	}
	/* Code outside .eh_frame may be in .debug_frame: then "not covered" decides nothing. */
	if (out && !in && !(info & SYMBOLIZER_DEBUG_FRAME))
		fprintf(f,
			"its .eh_frame does not cover the code they stop in (%u address%s checked in "
			"the file): that code was built without unwind tables%s\n",
			out, out == 1 ? "" : "es",
			info & SYMBOLIZER_FRAME_POINTERS
			    ? "; the file keeps frame pointers: --call-graph fp walks it"
			    : "");
	else if (in && !out)
		fprintf(f,
			"its .eh_frame covers the code they stop in (%u address%s checked in the "
			"file), but no table was used for it while recording (not built in time, or "
			"refused)\n",
			in, in == 1 ? "" : "es");
	else
		fprintf(f,
			"it has %s, but no table was used for this code while recording (not "
			"built, or not covering it: the recording does not say which)\n",
			cfi);
}

/* Why OBJECT's frames had no unwind information, from its file, and what would help. */
static void print_noinfo_object(FILE *f, const struct session *s, uint32_t dso, double pct)
{
	struct session_parts p;
	const char *name = session_dso_name(s, dso);
	int info = -ENOENT;

	session_parts(s, &p);
	if (dsotab_kind(p.dsos, dso) == DSOTAB_FILE)
		info = symbolizer_unwind_info(p.symz, dsotab_sym(p.dsos, dso));
	fprintf(f, "# note: %.0f%% of the user stacks stop in %s for want of unwind information: ",
		pct, name);
	if (dsotab_kind(p.dsos, dso) != DSOTAB_FILE)
		fprintf(f,
			"it has no file (JIT code); --call-graph fp walks it where the code keeps "
			"frame pointers\n");
	else if (info < 0)
		fprintf(f, "its file is not here to say why\n");
	else if (info & SYMBOLIZER_GO)
		fprintf(f,
			"it is a Go program, which keeps frame pointers, and its .debug_frame was "
			"not used while recording: record with --call-graph fp\n");
	else if (info & (SYMBOLIZER_EH_FRAME | SYMBOLIZER_DEBUG_FRAME))
		print_noinfo_cfi(f, s, &p, dso, info);
	else if (info & SYMBOLIZER_FRAME_POINTERS)
		fprintf(f, "it has no .eh_frame or .debug_frame but keeps frame pointers: record "
			   "with --call-graph fp\n");
	else
		fprintf(f,
			"it has no .eh_frame or .debug_frame and no frame pointers: build it with "
			"frame pointers (-fno-omit-frame-pointer) to see its callers\n");
}

/* The objects most of the RP_UNWIND_NO_INFO stops are in (at most 3, each >= 1 % of the
 * user stacks), each with the advice that applies to it, and the stops in no mapping. */
static void print_noinfo_advice(FILE *f, const struct session *s, const struct session_totals *t)
{
	double n = (double)t->unwound;
	uint64_t in_objects = 0;
	size_t done[3];
	int k = 0;

	for (size_t i = 0; i < t->n_unwind_noinfo; i++)
		in_objects += t->unwind_noinfo[i];
	for (; k < 3; k++) {
		size_t b = SIZE_MAX;

		for (size_t i = 0; i < t->n_unwind_noinfo; i++) {
			bool taken = false;

			for (int j = 0; j < k; j++)
				taken |= done[j] == i;
			if (!taken && (b == SIZE_MAX || t->unwind_noinfo[i] > t->unwind_noinfo[b]))
				b = i;
		}
		if (b == SIZE_MAX || (double)t->unwind_noinfo[b] < 0.01 * n)
			break;
		done[k] = b;
		print_noinfo_object(f, s, (uint32_t)b, 100.0 * (double)t->unwind_noinfo[b] / n);
	}
	if (t->unwind_stop[RP_UNWIND_NO_INFO] > in_objects &&
	    (double)(t->unwind_stop[RP_UNWIND_NO_INFO] - in_objects) >= 0.01 * n)
		fprintf(f,
			"# note: %.0f%% of the user stacks stop in code in no known mapping (JIT code "
			"without a perf map, or mappings lost with lost records)\n",
			100.0 * (double)(t->unwind_stop[RP_UNWIND_NO_INFO] - in_objects) / n);
}

/* Whether ringprofd made the recording (its header's command line): advice then names its
 * settings, not record's options. */
static bool by_daemon(const struct session *s)
{
	const struct rp_header_rec *h = session_header(s);
	const char *cmd = h && h->hdr.size > sizeof(*h) ? (const char *)(h + 1) : "";

	return strncmp(cmd, "ringprofd", 9) == 0 && (cmd[9] == ' ' || cmd[9] == '\0');
}

static void print_unwind_header(FILE *f, const struct session *s, const struct session_totals *t)
{
	double n = (double)t->unwound, pct[RP_CONTEXT_UNWIND_N];

	for (size_t i = 0; i < RP_CONTEXT_UNWIND_N; i++)
		pct[i] = 100.0 * (double)t->unwind_stop[i] / n;
	fprintf(f, "# user stacks: %.1f%% %s", pct[RP_UNWIND_COMPLETE],
		format_unwind_stop_name(RP_UNWIND_COMPLETE));
	if (t->unwind_stop[RP_UNWIND_JOINED])
		fprintf(f, ", %.1f%% %s the thread's earlier stacks ([joined])",
			pct[RP_UNWIND_JOINED], format_unwind_stop_name(RP_UNWIND_JOINED));
	if (t->unwind_stop[RP_UNWIND_FPCHAIN])
		fprintf(f, ", %.1f%% %s where the copy's walk stopped ([frame pointers])",
			pct[RP_UNWIND_FPCHAIN], format_unwind_stop_name(RP_UNWIND_FPCHAIN));
	if (pct[RP_UNWIND_COMPLETE] + pct[RP_UNWIND_JOINED] + pct[RP_UNWIND_FPCHAIN] < 99.95)
		fprintf(f, "; incomplete: %.1f%% %s, %.1f%% %s, %.1f%% %s, %.1f%% %s",
			pct[RP_UNWIND_STACK_END], format_unwind_stop_name(RP_UNWIND_STACK_END),
			pct[RP_UNWIND_NO_INFO], format_unwind_stop_name(RP_UNWIND_NO_INFO),
			pct[RP_UNWIND_PENDING], format_unwind_stop_name(RP_UNWIND_PENDING),
			pct[RP_UNWIND_BAD_FRAME] + pct[RP_UNWIND_MAX_DEPTH],
			format_unwind_stop_name(RP_UNWIND_BAD_FRAME));
	fputc('\n', f);
	print_unwind_objects(f, s, t);
	if (pct[RP_UNWIND_STACK_END] >= 5.0)
		fprintf(f,
			"# note: %.0f%% of the user stacks were deeper than the %u-byte stack copy: %s%u)\n",
			pct[RP_UNWIND_STACK_END], t->stack_user,
			by_daemon(s) ? "give ringprofd a larger one (UserStackSize="
				     : "record with a larger one (--call-graph dwarf,",
			t->stack_user && t->stack_user * 4 < RP_STACK_USER_MAX ? t->stack_user * 4
									       : RP_STACK_USER_MAX);
	if (pct[RP_UNWIND_NO_INFO] >= 5.0)
		print_noinfo_advice(f, s, t);
}

/* Off-CPU and wall-time weights: the total, its kinds, what was clipped or dropped. */
static void print_offcpu_header(FILE *f, const struct session_totals *t)
{
	fprintf(f,
		"# weights: time in ns%s; off-CPU: %.3f s (waiting %.3f s, preempted %.3f s) after "
		"%" PRIu64 " switch-outs\n",
		t->offcpu_ns == t->period ? "" : " (on-CPU sample periods + off-CPU time)",
		(double)t->offcpu_ns / 1e9, (double)(t->offcpu_ns - t->offcpu_preempt_ns) / 1e9,
		(double)t->offcpu_preempt_ns / 1e9, t->offcpu_switchouts);
	fprintf(f,
		"# off-CPU clipped: %" PRIu64
		" thread%s still off at the end of a recording, %.3f s "
		"counted up to it; dropped: %" PRIu64 " switch-out%s whose switch-in was lost\n",
		t->offcpu_clipped, t->offcpu_clipped == 1 ? "" : "s",
		(double)t->offcpu_clipped_ns / 1e9, t->offcpu_dropped,
		t->offcpu_dropped == 1 ? "" : "s");
	if (t->offcpu_lost)
		fprintf(f,
			"# off-CPU lost: %" PRIu64 " interval%s open while records were lost, "
			"%.3f s not counted (the thread may have run meanwhile)\n",
			t->offcpu_lost, t->offcpu_lost == 1 ? "" : "s",
			(double)t->offcpu_lost_ns / 1e9);
	if (t->offcpu_rate)
		fprintf(f,
			"# off-CPU stacks sampled at most %" PRIu64 " times a second per CPU: "
			"%" PRIu64 " of the %" PRIu64
			" switch-outs have theirs; the time of the others "
			"goes to the thread's next stack of the same kind (totals are exact)\n",
			t->offcpu_rate, t->offcpu_stacks, t->offcpu_switchouts);
}

/* --since/--until skipped some inputs: name what the report covers, not the first input. */
static void print_covered(FILE *f, const char *first, size_t n_cov, size_t n_inputs)
{
	if (!n_cov) {
		fprintf(f,
			"# ringprof report of no recording: none of the %zu has samples in the "
			"--since/--until window\n",
			n_inputs);
		return;
	}
	fprintf(f, "# ringprof report of %s", first);
	if (n_cov > 1)
		fprintf(f, " and %zu more recording%s", n_cov - 1, n_cov > 2 ? "s" : "");
	fprintf(f, " (%zu of %zu recording%s %s samples in the --since/--until window)\n", n_cov,
		n_inputs, n_inputs > 1 ? "s" : "", n_cov > 1 ? "have" : "has");
}

/* What the report is of: the inputs, or those the --since/--until window covers. */
static void print_inputs(FILE *f, const char *const *inputs, size_t n_inputs, const char *cov,
			 size_t n_cov)
{
	if (cov && n_cov < n_inputs) {
		print_covered(f, cov, n_cov, n_inputs);
		return;
	}
	fprintf(f, "# ringprof report of %s", inputs[0]);
	if (n_inputs > 1)
		fprintf(f, " and %zu more recording%s", n_inputs - 1, n_inputs > 2 ? "s" : "");
	fputc('\n', f);
}

/* The first and last sample the --since/--until window kept, in local time. */
static void print_window(FILE *f, uint64_t first, uint64_t last, int64_t realtime_offset)
{
	char a[64], b[64];
	uint64_t t[2] = { first, last };
	char *out[2] = { a, b };

	for (int i = 0; i < 2; i++) {
		int64_t ns = util_wall_ns(t[i], realtime_offset);
		time_t sec = (time_t)(ns / 1000000000);
		struct tm tm;
		size_t n;

		localtime_r(&sec, &tm);
		n = strftime(out[i], sizeof(a), "%Y-%m-%d %H:%M:%S", &tm);
		snprintf(out[i] + n, sizeof(a) - n, ".%03d", (int)(ns % 1000000000 / 1000000));
	}
	fprintf(f, "# window: samples from %s to %s\n", a, b);
}

/* What the recorder could not see, from the header's flags. */
/* Objects whose file on this host was missing or another build: named from the symbols the
 * recorder captured (no inline frames or lines for them). */
static void print_captured_header(FILE *f, const struct session *s)
{
	struct session_parts p;
	const struct symbolizer_stats *st;

	session_parts(s, &p);
	st = p.symz ? symbolizer_stats(p.symz) : NULL;
	if (st && st->dsos_captured)
		fprintf(f,
			"# %" PRIu64
			" object%s named from symbols captured at record time (the file "
			"on this host is missing or another build)\n",
			st->dsos_captured, st->dsos_captured == 1 ? "" : "s");
}

static void print_recorded_notes(FILE *f, const struct rp_header_rec *h)
{
	if ((h->flags & RP_HDR_KERNEL) && (h->flags & RP_HDR_KSYMS_HIDDEN))
		fprintf(f, "# note: kernel symbols were hidden from the recorder "
			   "(kernel.kptr_restrict without CAP_SYSLOG): kernel frames are "
			   "[unknown]\n");
	if (h->flags & RP_HDR_PIDNS)
		fprintf(f, "# note: recorded inside a PID namespace (a container): tasks "
			   "outside it have no pid there; their samples are shown as "
			   "[outside the PID namespace]\n");
}

void print_focus(FILE *f, const struct session *s, const char *shares)
{
	const struct session_totals *t = session_totals(s);
	struct focus *fo = session_focus(s);
	char desc[512];

	if (!fo)
		return;
	focus_describe(fo, desc, sizeof(desc));
	fprintf(f,
		"# focus: %s: kept %" PRIu64 " of %" PRIu64 " samples (%.2f%%), %.2f%% of the "
		"period; %s\n",
		desc, t->samples, t->samples_focus_in,
		t->samples_focus_in ? 100.0 * (double)t->samples / (double)t->samples_focus_in : 0.0,
		t->period_focus_in ? 100.0 * (double)t->period / (double)t->period_focus_in : 0.0,
		shares);
}

/* "# samples: ..., lost: ..., unresolved frames: ...". */
static void print_samples_line(FILE *f, const struct session *s, const struct session_totals *t)
{
	double all = (double)t->samples + (double)t->lost; /* no wrap with absurd counts */

	fprintf(f, "# samples: %" PRIu64, t->samples);
	if (t->samples + t->samples_nomem != t->samples_seen)
		fprintf(f, " of %" PRIu64 " (filtered)", t->samples_seen);
	if (session_filters_samples(s) && t->lost) {
		/* Losses are not the filtered samples': say the recording's as such. */
		all = (double)t->samples_window + (double)t->lost;
		fprintf(f, ", lost: the recording lost %" PRIu64 " sample%s (%.2f%% of all)",
			t->lost, t->lost == 1 ? "" : "s",
			all > 0 ? 100.0 * (double)t->lost / all : 0.0);
	} else {
		fprintf(f, ", lost: %" PRIu64 " (%.2f%%)", t->lost,
			all > 0 ? 100.0 * (double)t->lost / all : 0.0);
	}
	if (t->throttles)
		fprintf(f, ", throttled %" PRIu64 " times", t->throttles);
	fprintf(f, ", unresolved frames: %.1f%%\n",
		t->frames ? 100.0 * (double)t->frames_unknown / (double)t->frames : 0.0);
	print_focus(f, s, "shares are of the samples kept unless --percentage absolute");
}

void print_header(FILE *f, const struct session *s, const char *const *inputs, size_t n_inputs)
{
	const struct rp_header_rec *h = session_header(s);
	const struct session_totals *t = session_totals(s);
	size_t n_cov;
	const char *cov = session_covered(s, &n_cov);

	print_inputs(f, inputs, n_inputs, cov, n_cov);
	if (h) {
		int64_t ns = util_wall_ns(h->time, h->realtime_offset);
		time_t sec = (time_t)(ns / 1000000000);
		struct tm tm;
		char when[64];
		const char *cmd = (const char *)(h + 1);

		localtime_r(&sec, &tm);
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S %Z", &tm);
		fprintf(f, "# host: %.72s, Linux %.72s %.24s, %u CPUs\n", h->hostname, h->release,
			h->arch, h->n_cpus_online);
		fprintf(f, "# recorded: %s, %.3f s of samples\n", when,
			t->t_last > t->t_first ? (double)(t->t_last - t->t_first) / 1e9 : 0.0);
		if (cov && t->t_first)
			print_window(f, t->t_first, t->t_last, h->realtime_offset);
		if (h->hdr.size > sizeof(*h) && *cmd)
			fprintf(f, "# command: %s\n", cmd);
		/* With several events, the one this report is of. */
		const struct rp_event_desc *ev = session_selected_event(s);
		struct rp_event_desc ev0 = { .freq = h->flags & RP_HDR_FREQ ? h->freq : 0,
					     .period = h->period };

		snprintf(ev0.name, sizeof(ev0.name), "%.63s", h->event_name);
		if (!ev)
			ev = &ev0;
		fprintf(f, "# event: %s, ", ev->name);
		if (ev->freq)
			fprintf(f, "%" PRIu64 " Hz", ev->freq);
		else
			fprintf(f, "period %" PRIu64, ev->period);
		fprintf(f, "%s%s\n",
			!(h->flags & RP_HDR_CALLCHAIN) ? ", no callchains"
			: h->flags & RP_HDR_UNWIND ? ", callchains unwound while recording (dwarf)"
						   : ", frame-pointer callchains",
			h->flags & RP_HDR_KERNEL ? ", kernel and user" : ", user space only");
		print_recorded_notes(f, h);
	} else {
		fprintf(f, "# header: lost (damaged first frame); host and event unknown\n");
	}
	print_samples_line(f, s, t);
	print_captured_header(f, s);
	if (t->time_weighted)
		print_offcpu_header(f, t);
	if (t->unwound)
		print_unwind_header(f, s, t);
	if (t->samples_unmapped && t->lost)
		fprintf(f,
			"# note: %.1f%% of the samples run code in no known mapping ([unknown]), and "
			"records were lost: the mappings were probably among them; record with a larger "
			"buffer (-m) or a lower rate (-F)\n",
			t->samples ? 100.0 * (double)t->samples_unmapped / (double)t->samples : 0.0);
	if (t->files_unfinished)
		fprintf(f,
			"# note: %zu recording%s did not finish (killed or still running): read up to the last "
			"complete frame\n",
			t->files_unfinished, t->files_unfinished > 1 ? "s" : "");
	if (t->frames_bad)
		fprintf(f, "# note: %zu damaged frame%s skipped\n", t->frames_bad,
			t->frames_bad > 1 ? "s" : "");
	if (t->sideband_malformed)
		fprintf(f,
			"# note: %" PRIu64
			" malformed mapping record%s skipped (file name not terminated): "
			"samples in %s cannot be placed in their file\n",
			t->sideband_malformed, t->sideband_malformed > 1 ? "s" : "",
			t->sideband_malformed > 1 ? "those mappings" : "that mapping");
	if (t->samples_malformed)
		fprintf(f,
			"# note: %" PRIu64
			" malformed sample%s skipped (fields that do not fit the record)\n",
			t->samples_malformed, t->samples_malformed > 1 ? "s" : "");
	if (t->samples_nomem)
		fprintf(f,
			"# note: %" PRIu64
			" sample%s dropped (out of memory while reading): not counted above\n",
			t->samples_nomem, t->samples_nomem > 1 ? "s" : "");
	if (t->sideband_nomem)
		fprintf(f,
			"# note: %" PRIu64
			" side-band record%s (tasks, mappings, kernel symbols) not applied "
			"(out of memory): some samples may be attributed to the wrong task, object or symbol\n",
			t->sideband_nomem, t->sideband_nomem > 1 ? "s" : "");
	fprintf(f, "#\n");
}

/* ---- entries ---- */

struct entry {
	uint32_t key[PRINT_N_KEYS];
	uint64_t self, children, n_self, n_children;
	uint32_t id;	/* in the table, before sorting */
	uint32_t graph; /* index into the graph lists + 1, 0: no call graph printed */
};

struct table {
	struct seqtab *ids;
	struct entry *e;
	size_t n, cap;
	/* A frame's entry by (its row's key fields, its symbol): parts interns the rows' fields,
	 * pairs the (part, symbol) pairs, entry_of[pair] is the entry's id in ids. */
	struct seqtab *parts;
	struct pairtab *pairs;
	uint32_t *entry_of;
	size_t cap_entry_of;
	/* Per entry id: the last row (+ 1) that counted it, so a row counts an entry once. */
	uint32_t *stamp;
	size_t cap_stamp;
};

/* The fields of KEY that a frame's symbol SYM decides (object, symbol, source line). */
static void sym_key(const struct print_opts *o, const struct session *s, uint32_t sym, uint32_t *key)
{
	for (size_t i = 0; i < o->n_keys; i++) {
		switch (o->keys[i]) {
		case PRINT_DSO:
			key[PRINT_DSO] = session_sym(s, sym)->dso;
			break;
		case PRINT_SYM:
			key[PRINT_SYM] = session_sym(s, sym)->flat; /* one [unknown] per object */
			break;
		case PRINT_SRCLINE:
			key[PRINT_SRCLINE] = session_sym(s, sym)->line_rep;
			break;
		default:
			break;
		}
	}
}

/* The fields of KEY that row R decides (the task, CPU, unit); the others unset. */
static void row_key(const struct print_opts *o, const struct session_row *r, uint32_t *key)
{
	memset(key, 0xff, PRINT_N_KEYS * sizeof(uint32_t));
	for (size_t i = 0; i < o->n_keys; i++) {
		switch (o->keys[i]) {
		case PRINT_COMM:
			key[PRINT_COMM] = r->comm;
			break;
		case PRINT_PID:
			key[PRINT_PID] = (uint32_t)r->pid;
			break;
		case PRINT_TID:
			key[PRINT_TID] = (uint32_t)r->tid;
			break;
		case PRINT_CPU:
			key[PRINT_CPU] = r->cpu;
			break;
		case PRINT_UNIT:
			key[PRINT_UNIT] = r->unit;
			break;
		default:
			break;
		}
	}
}

static void frame_key(const struct print_opts *o, const struct session *s,
		      const struct session_row *r, uint32_t sym, uint32_t *key)
{
	row_key(o, r, key);
	sym_key(o, s, sym, key);
}

static int64_t table_entry(struct table *t, const uint32_t *key)
{
	int64_t id;

	/* Room first: an id in ids always has its entry. */
	if (GROW(t->e, t->cap, t->n + 1) < 0)
		return -ENOMEM;
	id = seqtab_intern(t->ids, key, PRINT_N_KEYS);
	if (id < 0)
		return id;
	if ((size_t)id == t->n) {
		memset(&t->e[t->n], 0, sizeof(t->e[0]));
		memcpy(t->e[t->n].key, key, sizeof(t->e[0].key));
		t->e[t->n].id = (uint32_t)t->n;
		t->n++;
	}
	return id;
}

static void table_free(struct table *t)
{
	seqtab_free(t->ids);
	seqtab_free(t->parts);
	pairtab_free(t->pairs);
	free(t->e);
	free(t->entry_of);
	free(t->stamp);
}

/* The id of row R's key fields in the table's parts. */
static int64_t table_part(struct table *t, const struct print_opts *o, const struct session_row *r)
{
	uint32_t key[PRINT_N_KEYS];

	row_key(o, r, key);
	return seqtab_intern(t->parts, key, PRINT_N_KEYS);
}

/* The id of the entry of frame SYM of a row whose key fields are PART, adding it when new. */
static int64_t frame_entry(struct table *t, const struct print_opts *o, const struct session *s,
			   const struct session_row *r, uint32_t part, uint32_t sym)
{
	uint32_t key[PRINT_N_KEYS];
	bool added;
	int64_t pair = pairtab_intern(t->pairs, part, sym, &added), id;

	if (pair < 0)
		return pair;
	if (!added)
		return t->entry_of[pair];
	if (GROW(t->entry_of, t->cap_entry_of, (size_t)pair + 1) < 0)
		return -ENOMEM;
	frame_key(o, s, r, sym, key);
	id = table_entry(t, key);
	if (id < 0)
		return id;
	t->entry_of[pair] = (uint32_t)id;
	return id;
}

/* Whether row I has not counted entry ID yet (and now has). -ENOMEM. */
static int first_in_row(struct table *t, int64_t id, size_t i)
{
	size_t cap = t->cap_stamp;

	if ((size_t)id >= cap) {
		if (GROW(t->stamp, t->cap_stamp, (size_t)id + 1) < 0)
			return -ENOMEM;
		memset(t->stamp + cap, 0, (t->cap_stamp - cap) * sizeof(*t->stamp));
	}
	if (t->stamp[id] == i + 1)
		return 0;
	t->stamp[id] = (uint32_t)(i + 1);
	return 1;
}

static const struct print_opts *sort_opts;

static int cmp_entries(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	uint64_t xa = sort_opts->children ? x->children : x->self,
		 ya = sort_opts->children ? y->children : y->self;

	if (xa != ya)
		return xa > ya ? -1 : 1;
	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	return memcmp(x->key, y->key, sizeof(x->key));
}

/* ---- call-graph trees ---- */

struct node {
	uint32_t sym;
	uint32_t child, sibling; /* node indexes, 0 = none (node 0 is the root) */
	uint64_t weight;
};

struct tree {
	struct node *n;
	size_t len, cap;
	/* (parent, sym) -> node - 1: nodes are made in the order the pairs are first met, so
	 * the pair's id is the node's index less the root. The siblings' list stays as it was
	 * (newest first) for the order of equal weights; only the search goes by the index. */
	struct pairtab *idx;
	uint32_t *last; /* the nodes of the path added last, from the root's child */
	size_t len_last, cap_last;
};

static int64_t tree_child(struct tree *t, uint32_t parent, uint32_t sym)
{
	int64_t id;
	bool added;

	if (GROW(t->n, t->cap, t->len + 1) < 0)
		return -ENOMEM;
	id = pairtab_intern(t->idx, parent, sym, &added);
	if (id < 0)
		return -ENOMEM;
	if (!added)
		return id + 1;
	t->n[t->len] = (struct node){ sym, 0, t->n[parent].child, 0 };
	t->n[parent].child = (uint32_t)t->len;
	return (int64_t)t->len++;
}

static void tree_print(FILE *f, const struct session *s, const struct tree *t, uint32_t parent,
		       double total, const struct print_opts *o, char *prefix, size_t plen)
{
	double threshold = o->graph_threshold;
	char lb[512];
	uint32_t kids[4096];
	size_t n = 0;

	for (uint32_t c = t->n[parent].child; c && n < 4096; c = t->n[c].sibling)
		if (100.0 * (double)t->n[c].weight / total >= threshold)
			kids[n++] = c;
	/* Heaviest branch first. */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && t->n[kids[j]].weight > t->n[kids[j - 1]].weight; j--) {
			uint32_t tmp = kids[j];

			kids[j] = kids[j - 1];
			kids[j - 1] = tmp;
		}
	for (size_t i = 0; i < n; i++) {
		const struct node *nd = &t->n[kids[i]];
		bool last = i + 1 == n;

		fprintf(f, "%s%s%.2f%%--%s%s%s\n", prefix, last ? "`--" : "|--",
			100.0 * (double)nd->weight / total, sym_name(s, nd->sym),
			session_sym(s, nd->sym)->kernel ? " [k]" : "",
			sym_line(s, nd->sym, o->srcline, lb, sizeof(lb)));
		if (plen + 5 < 1024) {
			memcpy(prefix + plen, last ? "    " : "|   ", 5);
			tree_print(f, s, t, kids[i], total, o, prefix, plen + 4);
			prefix[plen] = '\0';
		}
	}
}

/* Add the path st[from..] (callee: outward from at + 1; caller: inward from at - 1; self only:
 * the whole stack from its outermost frame) with weight w. Paths added one after the other
 * often begin alike: as long as this one goes the previous one's way (t->last), its nodes are
 * taken from there without a search. 0 or -ENOMEM. */
static int tree_add(struct tree *t, const struct print_opts *o, const uint32_t *st, uint32_t n,
		    uint32_t at, uint64_t w)
{
	bool callee = o->graph == PRINT_GRAPH_CALLEE;
	uint32_t from = callee ? at + 1 : o->children ? at : n;
	uint32_t end = callee ? n : o->children ? 0 : 1;
	uint32_t len = callee ? end - from : from - end, cur = 0, d = 0;

	if (GROW(t->last, t->cap_last, len) < 0)
		return -ENOMEM;
	t->n[0].weight += w;
	for (; d < len; d++) {
		uint32_t sym = st[callee ? from + d : from - 1 - d];
		int64_t c;

		if (d < t->len_last && t->n[t->last[d]].sym == sym) {
			c = t->last[d];
		} else {
			t->len_last = 0; /* the rest of the previous path is another branch */
			c = tree_child(t, cur, sym);
			if (c < 0)
				return -ENOMEM;
		}
		t->n[c].weight += w;
		t->last[d] = (uint32_t)c;
		cur = (uint32_t)c;
	}
	t->len_last = len;
	return 0;
}

/* An entry's tree from the rows whose stacks hold it (list; at_list: where on each row's stack,
 * graph_lists()): only those can add to it. Rows that differ only in fields the tree does not
 * show (pid, CPU, ...) add the same path: each distinct (stack,
 * where the entry is on it) is summed first and added once, in the order first met, which
 * makes the nodes in the same order as adding row by row. */
static int print_graph(FILE *f, const struct session *s, const struct print_opts *o, double total,
		       const uint32_t *list, const uint16_t *at_list, size_t n_list)
{
	const struct session_row *rows;
	size_t n_rows;
	struct tree t = { .idx = pairtab_new() };
	struct pairtab *paths = pairtab_new(); /* (stack, at) -> its weight's index */
	uint64_t *pw = NULL;
	size_t cap_pw = 0;
	char prefix[1024] = "            ";

	rows = session_rows(s, &n_rows);
	if (!t.idx || !paths || GROW(t.n, t.cap, 1) < 0)
		goto oom;
	t.n[0] = (struct node){ 0 }; /* the root */
	t.len = 1;
	for (size_t li = 0; li < n_list; li++) {
		size_t i = list[li];
		int64_t id;
		bool added;

		id = pairtab_intern(paths, rows[i].stack, at_list[li], &added);
		if (id < 0 || (added && GROW(pw, cap_pw, (size_t)id + 1) < 0))
			goto oom;
		if (added)
			pw[id] = 0;
		pw[id] += rows[i].period;
	}
	for (uint32_t id = 0, n_paths = pairtab_count(paths); id < n_paths; id++) {
		uint64_t stack, at;
		uint32_t n;
		const uint32_t *st;

		pairtab_get(paths, id, &stack, &at);
		st = session_stack(s, (uint32_t)stack, &n);
		if (tree_add(&t, o, st, n, (uint32_t)at, pw[id]) < 0)
			goto oom;
	}
	bool any = false;

	for (uint32_t c = t.n[0].child; c && !any; c = t.n[c].sibling)
		any = 100.0 * (double)t.n[c].weight / total >= o->graph_threshold;
	if (any) {
		fprintf(f, "%s|\n", prefix);
		tree_print(f, s, &t, 0, total, o, prefix, strlen(prefix));
		fputc('\n', f);
	}
	free(t.n);
	free(t.last);
	free(pw);
	pairtab_free(t.idx);
	pairtab_free(paths);
	return 0;
oom:
	free(t.n);
	free(t.last);
	free(pw);
	pairtab_free(t.idx);
	pairtab_free(paths);
	return -ENOMEM;
}

/* For each entry whose tree is printed, the rows whose stacks hold it, in row order. */
struct graph_lists {
	uint32_t *start; /* per graph entry g, its rows are rows[start[g] .. start[g + 1]) */
	uint32_t *rows;
	uint16_t *at; /* beside rows: where on the row's stack the entry is (the frame its tree
		       * starts from: the outermost of its places for callers, else the
		       * innermost); symbol stacks are at most 514 locations of 16 frames */
};

static int graph_lists(const struct session *s, const struct print_opts *o, struct table *t,
		       double total, struct graph_lists *gl)
{
	const struct session_row *rows;
	size_t n_rows, n_graphs = 0;
	uint32_t *by_id = NULL, *fill = NULL, *seen = NULL;
	int rc = -ENOMEM;

	rows = session_rows(s, &n_rows);
	by_id = calloc(t->n ? t->n : 1, sizeof(*by_id)); /* table id -> graph number + 1 */
	if (!by_id)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		struct entry *e = &t->e[i];
		double share = 100.0 * (double)(o->children ? e->children : e->self) / total;

		/* A branch never weighs more than its entry: below the threshold there is no tree. */
		if (share >= o->percent_limit && share >= o->graph_threshold) {
			e->graph = (uint32_t)++n_graphs;
			by_id[e->id] = e->graph;
		}
	}
	gl->start = calloc(n_graphs + 2, sizeof(*gl->start));
	fill = calloc(n_graphs + 1, sizeof(*fill));
	seen = calloc(n_graphs + 1, sizeof(*seen)); /* per graph: the last row (+ 1) in it */
	if (!gl->start || !fill || !seen)
		goto out;
	/* Two passes over the rows: count, then fill. */
	for (int pass = 0; pass < 2; pass++) {
		memset(seen, 0, (n_graphs + 1) * sizeof(*seen));
		for (size_t i = 0; i < n_rows; i++) {
			uint32_t n;
			const uint32_t *st = session_stack(s, rows[i].stack, &n);
			int64_t part = table_part(t, o, &rows[i]);

			if (part < 0)
				goto out;
			/* Self only: a tree takes the rows whose leaf is the entry. */
			for (uint32_t k = 0; k < (o->children ? n : 1) && k <= UINT16_MAX; k++) {
				int64_t id = frame_entry(t, o, s, &rows[i], (uint32_t)part, st[k]);
				uint32_t g;

				if (id < 0)
					goto out;
				if ((size_t)id >= t->n)
					continue; /* cannot happen: every key was counted */
				g = by_id[id];
				if (!g)
					continue;
				if (seen[g] == i + 1) {
					/* Again on this row's stack: callers are drawn from its
					 * outermost place (the row's slot is g's last). */
					if (pass == 1 && o->graph == PRINT_GRAPH_CALLER)
						gl->at[gl->start[g - 1] + fill[g - 1] - 1] =
						    (uint16_t)k;
					continue;
				}
				seen[g] = (uint32_t)(i + 1);
				if (pass == 0) {
					gl->start[g]++;
				} else {
					gl->at[gl->start[g - 1] + fill[g - 1]] = (uint16_t)k;
					gl->rows[gl->start[g - 1] + fill[g - 1]++] = (uint32_t)i;
				}
			}
		}
		if (pass == 0) {
			for (size_t g = 1; g <= n_graphs; g++)
				gl->start[g] += gl->start[g - 1];
			gl->rows = malloc((gl->start[n_graphs] ? gl->start[n_graphs] : 1) *
					  sizeof(*gl->rows));
			gl->at = malloc((gl->start[n_graphs] ? gl->start[n_graphs] : 1) *
					sizeof(*gl->at));
			if (!gl->rows || !gl->at)
				goto out;
		}
	}
	rc = 0;
out:
	free(by_id);
	free(fill);
	free(seen);
	return rc;
}

/* Whether --symbol-filter hides entry E: its symbol does not contain the string. */
static bool entry_hidden(const struct session *s, const struct print_opts *o, const struct entry *e)
{
	uint32_t sym = e->key[PRINT_SYM];

	return o->symbol_filter && sym != UINT32_MAX && !strstr(sym_name(s, sym), o->symbol_filter);
}

/* An entry's share of all samples in the sort column, in percent. */
static double entry_share(const struct print_opts *o, const struct entry *e, double total)
{
	return 100.0 * (double)(o->children ? e->children : e->self) / total;
}

/* One entry per key: Self from each row's leaf, Children from every distinct entry on its
 * stack, once per sample. 0 or -ENOMEM. */
static int count_entries(const struct session *s, const struct print_opts *o, struct table *t)
{
	const struct session_row *rows;
	size_t n_rows;

	rows = session_rows(s, &n_rows);
	for (size_t i = 0; i < n_rows; i++) {
		const struct session_row *r = &rows[i];
		uint32_t n;
		const uint32_t *st = session_stack(s, r->stack, &n);
		int64_t part = table_part(t, o, r), id;

		if (part < 0 || (id = frame_entry(t, o, s, r, (uint32_t)part, st[0])) < 0)
			return -ENOMEM;
		t->e[id].self += r->period;
		t->e[id].n_self += r->count;
		for (uint32_t k = 0; k < n && o->children; k++) {
			int first;

			id = frame_entry(t, o, s, r, (uint32_t)part, st[k]);
			if (id < 0 || (first = first_in_row(t, id, i)) < 0)
				return -ENOMEM;
			if (!first)
				continue;
			t->e[id].children += r->period;
			t->e[id].n_children += r->count;
		}
	}
	return 0;
}

/* An entry's srcline key as text. */
static const char *srcline_text(const struct session *s, uint32_t key)
{
	const char *t = key == UINT32_MAX ? NULL : session_sym(s, key)->srcline;

	return t ? t : "??:0";
}

/* Column widths from what is printed: the title, at most 40 for names. */
static void column_widths(const struct session *s, const struct print_opts *o,
			  const struct table *t, double total, size_t *w)
{
	for (size_t k = 0; k < o->n_keys; k++)
		w[o->keys[k]] = strlen(key_titles[o->keys[k]]);
	for (size_t i = 0; i < t->n; i++) {
		const struct entry *e = &t->e[i];
		char buf[32];

		if (entry_share(o, e, total) < o->percent_limit || entry_hidden(s, o, e))
			continue;
		for (size_t k = 0; k < o->n_keys; k++) {
			size_t len = 0;

			switch (o->keys[k]) {
			case PRINT_COMM:
				len = strlen(session_comm(s, e->key[PRINT_COMM]));
				break;
			case PRINT_DSO:
				len = strlen(session_dso_name(s, e->key[PRINT_DSO]));
				break;
			case PRINT_UNIT:
				len = strlen(session_unit(s, e->key[PRINT_UNIT]));
				break;
			case PRINT_SRCLINE:
				len = strlen(srcline_text(s, e->key[PRINT_SRCLINE]));
				break;
			case PRINT_PID:
			case PRINT_TID:
			case PRINT_CPU:
				len = (size_t)snprintf(buf, sizeof(buf), "%d",
						       (int)e->key[o->keys[k]]);
				break;
			default:
				break;
			}
			if (len > w[o->keys[k]])
				w[o->keys[k]] = len < 60 ? len : 60;
		}
	}
}

/* -t: text with the separator turned into '.', as perf does, so that a field never splits. */
void print_field_sep(FILE *f, char sep, const char *text)
{
	for (; *text; text++)
		fputc(*text == sep ? '.' : *text, f);
}

/* -t: the title line, the columns joined by the separator. */
static void print_titles_sep(FILE *f, const struct session *s, const struct print_opts *o)
{
	if (o->children)
		fprintf(f, "# Children%cSelf", o->field_sep);
	else
		fputs("# Self", f);
	if (o->show_samples)
		fprintf(f, "%c%s", o->field_sep,
			session_totals(s)->time_weighted ? "Time ms" : "Samples");
	for (size_t k = 0; k < o->n_keys; k++) {
		fputc(o->field_sep, f);
		print_field_sep(f, o->field_sep, key_titles[o->keys[k]]);
	}
	fputc('\n', f);
}

/* -t: one entry, its fields joined by the separator, none padded. */
static void print_entry_sep(FILE *f, const struct session *s, const struct print_opts *o,
			    const struct entry *e, double total)
{
	char sep = o->field_sep;

	if (o->children)
		fprintf(f, "%.2f%%%c", 100.0 * (double)e->children / total, sep);
	fprintf(f, "%.2f%%", 100.0 * (double)e->self / total);
	if (o->show_samples && session_totals(s)->time_weighted)
		fprintf(f, "%c%.3f", sep, (double)(o->children ? e->children : e->self) / 1e6);
	else if (o->show_samples)
		fprintf(f, "%c%" PRIu64, sep, o->children ? e->n_children : e->n_self);
	for (size_t k = 0; k < o->n_keys; k++) {
		enum print_key key = o->keys[k];

		fputc(sep, f);
		switch (key) {
		case PRINT_COMM:
			print_field_sep(f, sep, session_comm(s, e->key[key]));
			break;
		case PRINT_DSO:
			print_field_sep(f, sep, session_dso_name(s, e->key[key]));
			break;
		case PRINT_UNIT:
			print_field_sep(f, sep, session_unit(s, e->key[key]));
			break;
		case PRINT_SRCLINE:
			print_field_sep(f, sep, srcline_text(s, e->key[key]));
			break;
		case PRINT_SYM:
			fprintf(f, "[%s] ", session_sym(s, e->key[key])->kernel ? "k" : ".");
			print_field_sep(f, sep, sym_name(s, e->key[key]));
			break;
		default:
			fprintf(f, "%d", (int)e->key[key]);
		}
	}
	fputc('\n', f);
}

/* The title line. The last column is not padded (no trailing blanks): its width becomes 0. */
static void print_titles(FILE *f, const struct session *s, const struct print_opts *o, size_t *w)
{
	if (o->no_titles) {
		w[o->keys[o->n_keys - 1]] = 0;
		return;
	}
	fprintf(f, "#%s%9s %s", o->children ? " Children " : "", "Self",
		!o->show_samples		   ? ""
		: session_totals(s)->time_weighted ? "    Time ms "
						   : "    Samples ");
	for (size_t k = 0; k + 1 < o->n_keys; k++)
		fprintf(f, " %-*s", (int)w[o->keys[k]], key_titles[o->keys[k]]);
	fprintf(f, " %s", key_titles[o->keys[o->n_keys - 1]]);
	w[o->keys[o->n_keys - 1]] = 0;
	fputc('\n', f);
}

static void print_entry(FILE *f, const struct session *s, const struct print_opts *o,
			const struct entry *e, const size_t *w, double total)
{
	fputs(" ", f);
	if (o->children)
		fprintf(f, "%8.2f%% ", 100.0 * (double)e->children / total);
	fprintf(f, "%8.2f%%", 100.0 * (double)e->self / total);
	if (o->show_samples && session_totals(s)->time_weighted)
		fprintf(f, " %11.3f", (double)(o->children ? e->children : e->self) / 1e6);
	else if (o->show_samples)
		fprintf(f, " %11" PRIu64, o->children ? e->n_children : e->n_self);
	for (size_t k = 0; k < o->n_keys; k++) {
		enum print_key key = o->keys[k];

		switch (key) {
		case PRINT_COMM:
			fprintf(f, " %-*.40s", (int)w[key], session_comm(s, e->key[key]));
			break;
		case PRINT_DSO:
			fprintf(f, " %-*.40s", (int)w[key], session_dso_name(s, e->key[key]));
			break;
		case PRINT_UNIT:
			fprintf(f, " %-*.40s", (int)w[key], session_unit(s, e->key[key]));
			break;
		case PRINT_SRCLINE:
			fprintf(f, " %-*s", (int)w[key], srcline_text(s, e->key[key]));
			break;
		case PRINT_SYM:
			fprintf(f, " [%s] %s", session_sym(s, e->key[key])->kernel ? "k" : ".",
				sym_name(s, e->key[key]));
			break;
		default:
			fprintf(f, " %*d", (int)w[key], (int)e->key[key]);
		}
	}
	fputc('\n', f);
}

/* The sorted entries above the percent limit, each with its tree when it has one. */
static int print_entries(FILE *f, const struct session *s, const struct print_opts *o,
			 const struct table *t, const struct graph_lists *gl, double total)
{
	size_t w[PRINT_N_KEYS] = { 0 };

	column_widths(s, o, t, total, w);
	if (o->field_sep && !o->no_titles)
		print_titles_sep(f, s, o);
	else if (!o->field_sep)
		print_titles(f, s, o, w);
	for (size_t i = 0; i < t->n; i++) {
		const struct entry *e = &t->e[i];

		if (entry_share(o, e, total) < o->percent_limit || entry_hidden(s, o, e))
			continue;
		if (o->field_sep) {
			print_entry_sep(f, s, o, e, total);
			continue; /* one line an entry: -t's tables have no trees */
		}
		print_entry(f, s, o, e, w, total);
		/* A branch never weighs more than its entry: below the threshold there is no tree. */
		if (e->graph && print_graph(f, s, o, total, gl->rows + gl->start[e->graph - 1],
					    gl->at + gl->start[e->graph - 1],
					    gl->start[e->graph] - gl->start[e->graph - 1]) < 0)
			return -ENOMEM;
	}
	return 0;
}

int print_flat(FILE *f, const struct session *s, const struct print_opts *o)
{
	const struct session_totals *tot = session_totals(s);
	struct table t = { .ids = seqtab_new(), .parts = seqtab_new(), .pairs = pairtab_new() };
	uint64_t all = o->absolute ? tot->period_window : tot->period;
	double total = all ? (double)all : 1.0;
	struct graph_lists gl = { NULL, NULL, NULL };
	bool has_sym = print_has_key(o, PRINT_SYM) || print_has_key(o, PRINT_SRCLINE);
	int rc;

	if (!t.ids || !t.parts || !t.pairs) {
		table_free(&t);
		return -ENOMEM;
	}
	rc = count_entries(s, o, &t);
	sort_opts = o;
	if (rc == 0 && t.n) /* t.e is NULL when nothing was counted; qsort must not see NULL */
		qsort(t.e, t.n, sizeof(*t.e), cmp_entries);
	if (rc == 0 && o->graph != PRINT_GRAPH_NONE && has_sym)
		rc = graph_lists(s, o, &t, total, &gl);
	if (rc == 0 && o->symbol_filter && !o->no_titles)
		fprintf(f,
			"# symbol filter: only entries whose symbol contains '%s' (shares of all)\n",
			o->symbol_filter);
	if (rc == 0)
		rc = print_entries(f, s, o, &t, &gl, total);
	if (rc == 0 && !t.n)
		fprintf(f, "# no samples%s\n", tot->samples_seen ? " match the filters" : "");
	table_free(&t);
	free(gl.rows);
	free(gl.at);
	free(gl.start);
	return rc;
}

int print_each_entry(const struct session *s, const struct print_opts *o,
		     void (*fn)(void *arg, const struct print_entry *e, double total), void *arg)
{
	const struct session_totals *tot = session_totals(s);
	struct table t = { .ids = seqtab_new(), .parts = seqtab_new(), .pairs = pairtab_new() };
	uint64_t all = o->absolute ? tot->period_window : tot->period;
	double total = all ? (double)all : 1.0;
	int rc;

	if (!t.ids || !t.parts || !t.pairs) {
		table_free(&t);
		return -ENOMEM;
	}
	rc = count_entries(s, o, &t);
	sort_opts = o;
	if (rc == 0 && t.n)
		qsort(t.e, t.n, sizeof(*t.e), cmp_entries);
	for (size_t i = 0; rc == 0 && i < t.n; i++) {
		const struct entry *e = &t.e[i];
		struct print_entry pe = { .self = e->self,
					  .children = e->children,
					  .n_self = e->n_self,
					  .n_children = e->n_children };

		if (entry_share(o, e, total) < o->percent_limit || entry_hidden(s, o, e))
			continue;
		memcpy(pe.key, e->key, sizeof(pe.key));
		fn(arg, &pe, total);
	}
	table_free(&t);
	return rc;
}

const char *print_key_text(const struct session *s, enum print_key k, uint32_t key)
{
	switch (k) {
	case PRINT_COMM:
		return session_comm(s, key);
	case PRINT_DSO:
		return session_dso_name(s, key);
	case PRINT_UNIT:
		return session_unit(s, key);
	case PRINT_SYM:
		return sym_name(s, key);
	case PRINT_SRCLINE:
		return srcline_text(s, key);
	default:
		return NULL;
	}
}

/* ---- folded stacks ---- */

static char *put_folded(char *p, const char *name)
{
	for (; *name; name++)
		*p++ = *name == ';' ? ':' : *name;
	return p;
}

char *print_folded_stack(const struct session *s, uint32_t comm, uint32_t stack, bool srcline)
{
	char lb[512];
	uint32_t n;
	const uint32_t *st = session_stack(s, stack, &n);
	size_t len = strlen(session_comm(s, comm)) + 1;
	char *text, *p;

	for (uint32_t k = 0; k < n; k++)
		len +=
		    strlen(sym_name(s, st[k])) + 5 + strlen(sym_line(s, st[k], srcline, lb, 512));
	text = p = malloc(len);
	if (!p)
		return NULL;
	/* ';' separates frames: inside a name it becomes ':'. */
	p = put_folded(p, session_comm(s, comm));
	for (uint32_t k = n; k-- > 0;) {
		*p++ = ';';
		p = put_folded(p, sym_name(s, st[k]));
		if (session_sym(s, st[k])->kernel)
			p += sprintf(p, "_[k]");
		p = put_folded(p, sym_line(s, st[k], srcline, lb, sizeof(lb)));
	}
	*p = '\0';
	return text;
}

struct line {
	char *text;
	uint64_t count;
};

static int cmp_lines(const void *a, const void *b)
{
	return strcmp(((const struct line *)a)->text, ((const struct line *)b)->text);
}

int print_folded(FILE *f, const struct session *s, bool srcline)
{
	const struct session_row *rows;
	size_t n_rows, n_lines = 0;
	struct pairtab *ids = pairtab_new();
	struct line *lines = NULL;
	int rc = 0;

	if (!ids)
		return -ENOMEM;
	rows = session_rows(s, &n_rows);
	lines = calloc(n_rows ? n_rows : 1, sizeof(*lines));
	if (!lines) {
		pairtab_free(ids);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n_rows; i++) {
		bool added;
		int64_t id = pairtab_intern(ids, rows[i].comm, rows[i].stack, &added);

		if (id < 0) {
			rc = -ENOMEM;
			break;
		}
		if (added) {
			lines[id].text =
			    print_folded_stack(s, rows[i].comm, rows[i].stack, srcline);
			if (!lines[id].text) {
				rc = -ENOMEM;
				break;
			}
			n_lines++;
		}
		/* Time weights: microseconds, so that flamegraph.pl draws time as it is. */
		lines[id].count +=
		    session_totals(s)->time_weighted ? rows[i].period / 1000 : rows[i].count;
	}
	if (rc == 0 && n_lines) {
		qsort(lines, n_lines, sizeof(*lines), cmp_lines);
		for (size_t i = 0; i < n_lines; i++)
			fprintf(f, "%s %" PRIu64 "\n", lines[i].text, lines[i].count);
	}
	for (size_t i = 0; i < n_rows; i++)
		free(lines[i].text);
	free(lines);
	pairtab_free(ids);
	return rc;
}

/* ---- samples one by one (ringprof script) ---- */

/*
 * `ringprof script`'s printer. Script prints millions of frame lines: a few stdio calls per
 * line cost more than the rest of the line, so the output is built in a buffer of the
 * printer's own and written when it fills; and each symbol's text around the offset (" NAME+0x"
 * and " (OBJECT)\n", or a mark's whole line) is formatted once, the first time a frame shows it,
 * so that a frame line is two copies and two numbers.
 */
#define PS_BUF (64u << 10)

struct sym_text {
	uint32_t off;	    /* in texts; UINT32_MAX: not formatted yet */
	uint32_t pre, post; /* lengths of " NAME+0x" (or " [unknown]") and " (OBJECT)\n" */
	bool mark;	    /* a mark's whole line: pre holds it, no address or offset */
};

struct print_script {
	FILE *f;
	const struct session *s;
	struct sym_text *sym; /* by session_sym() id */
	size_t cap_sym;
	char *texts;
	size_t n_texts, cap_texts;
	size_t n;
	char b[PS_BUF];
};

struct print_script *print_script_new(FILE *f, const struct session *s)
{
	struct print_script *ps = malloc(sizeof(*ps));

	if (ps)
		*ps = (struct print_script){ .f = f, .s = s };
	return ps;
}

static void ps_flush(struct print_script *ps)
{
	fwrite(ps->b, 1, ps->n, ps->f);
	ps->n = 0;
}

void print_script_free(struct print_script *ps)
{
	if (!ps)
		return;
	ps_flush(ps);
	free(ps->sym);
	free(ps->texts);
	free(ps);
}

static void ps_put(struct print_script *ps, const char *p, size_t len)
{
	if (ps->n + len > sizeof(ps->b)) {
		ps_flush(ps);
		if (len > sizeof(ps->b)) {
			fwrite(p, 1, len, ps->f);
			return;
		}
	}
	memcpy(ps->b + ps->n, p, len);
	ps->n += len;
}

static void ps_str(struct print_script *ps, const char *s)
{
	ps_put(ps, s, strlen(s));
}

/* Append len bytes to the texts: 0, or -ENOMEM. */
static int text_add(struct print_script *ps, const char *p, size_t len)
{
	if (GROW(ps->texts, ps->cap_texts, ps->n_texts + len) < 0)
		return -ENOMEM;
	memcpy(ps->texts + ps->n_texts, p, len);
	ps->n_texts += len;
	return 0;
}

/* Symbol ID's texts, formatted when first asked for; NULL without memory (the caller then
 * formats the frame itself). */
static const struct sym_text *sym_text(struct print_script *ps, uint32_t id)
{
	const struct session_sym *sym;
	const char *obj;
	struct sym_text *t;
	size_t cap = ps->cap_sym, start = ps->n_texts;
	int rc = 0;

	if (id >= cap) {
		if (GROW(ps->sym, ps->cap_sym, (size_t)id + 1) < 0)
			return NULL;
		for (size_t i = cap; i < ps->cap_sym; i++)
			ps->sym[i].off = UINT32_MAX;
	}
	t = &ps->sym[id];
	if (t->off != UINT32_MAX)
		return t;
	if (start > UINT32_MAX - 8192)
		return NULL;
	sym = session_sym(ps->s, id);
	obj = session_dso_path(ps->s, sym->dso);
	/* Where the callers inferred by joining, or the kernel's frame-pointer chain's, start: a
	 * mark, not an address. */
	if (obj[0] == '[' &&
	    (strcmp(obj, "[joined]") == 0 || strcmp(obj, "[frame pointers]") == 0)) {
		rc = text_add(ps, "\t               0 ", 18);
		rc = rc ? rc : text_add(ps, obj, strlen(obj));
		rc = rc ? rc : text_add(ps, " (", 2);
		rc = rc ? rc : text_add(ps, obj, strlen(obj));
		rc = rc ? rc : text_add(ps, ")\n", 2);
		if (rc)
			return NULL;
		*t = (struct sym_text){ (uint32_t)start, (uint32_t)(ps->n_texts - start), 0, true };
		return t;
	}
	if (sym->name) {
		rc = text_add(ps, " ", 1);
		rc = rc ? rc : text_add(ps, sym->name, strlen(sym->name));
		rc = rc ? rc : text_add(ps, "+0x", 3);
	} else {
		rc = text_add(ps, " [unknown]", 10);
	}
	if (rc)
		return NULL;
	t->pre = (uint32_t)(ps->n_texts - start);
	rc = text_add(ps, " (", 2);
	rc = rc ? rc : text_add(ps, obj, strlen(obj));
	rc = rc ? rc : text_add(ps, ")\n", 2);
	if (rc)
		return NULL;
	t->post = (uint32_t)(ps->n_texts - start - t->pre);
	t->mark = false;
	t->off = (uint32_t)start;
	return t;
}

/* Two hex digits a byte: "000102...ff". */
static const char hex2[513] = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
			      "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
			      "404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
			      "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
			      "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
			      "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
			      "c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
			      "e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

/* V in hex at W, as "%" PRIx64 (WIDTH 0) or "%16" PRIx64 (WIDTH 16) prints it: past its end. */
static char *hex_at(char *w, uint64_t v, int width)
{
	int digits = v ? (64 - __builtin_clzll(v) + 3) / 4 : 1;
	char *end;

	for (int k = digits; k < width; k++)
		*w++ = ' ';
	end = w + digits;
	w = end;
	for (; v >= 0x100; v >>= 8) {
		w -= 2;
		memcpy(w, hex2 + 2 * (v & 0xff), 2);
	}
	if (v >= 0x10) {
		w -= 2;
		memcpy(w, hex2 + 2 * v, 2);
	} else {
		*--w = "0123456789abcdef"[v];
	}
	return end;
}

/* One frame, as fprintf("\t%16" PRIx64 " %s+0x%" PRIx64 " (%s)\n") or, without a name,
 * "\t%16" PRIx64 " [unknown] (%s)\n" would print it: into the buffer directly when the
 * symbol's texts are there, else piece by piece. */
static void put_frame(struct print_script *ps, const struct session_frame *fr)
{
	const struct sym_text *t = sym_text(ps, fr->sym);
	const struct session_sym *sym = session_sym(ps->s, fr->sym);
	size_t need;
	char a[17], *w;

	if (t && t->mark) {
		ps_put(ps, ps->texts + t->off, t->pre);
		return;
	}
	if (t) {
		need = 1 + 16 + t->pre + 16 + t->post;
		if (ps->n + need > sizeof(ps->b))
			ps_flush(ps);
		if (need <= sizeof(ps->b)) {
			w = ps->b + ps->n;
			*w++ = '\t';
			w = hex_at(w, fr->addr, 16);
			memcpy(w, ps->texts + t->off, t->pre);
			w += t->pre;
			if (sym->name)
				w = hex_at(w, fr->offset, 0);
			memcpy(w, ps->texts + t->off + t->pre, t->post);
			ps->n = (size_t)(w + t->post - ps->b);
			return;
		}
	}
	/* No memory for the symbol's texts, or a name longer than the buffer. */
	a[0] = '\t';
	ps_put(ps, a, (size_t)(hex_at(a + 1, fr->addr, 16) - a));
	if (sym->name) {
		ps_put(ps, " ", 1);
		ps_str(ps, sym->name);
		ps_put(ps, "+0x", 3);
		ps_put(ps, a, (size_t)(hex_at(a, fr->offset, 0) - a));
	} else {
		ps_put(ps, " [unknown]", 10);
	}
	ps_put(ps, " (", 2);
	ps_str(ps, session_dso_path(ps->s, sym->dso));
	ps_put(ps, ")\n", 2);
}

/* V in decimal, at least WIDTH characters: padded with PAD on the left ('0' after a sign, as
 * "%0*d"), or with spaces on the right when LEFT (as "%-*d"). V below 0 only with ' '. */
static void put_dec(struct print_script *ps, int64_t v, int width, char pad, bool left)
{
	char b[48], *end = b + 24, *p = end;
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*--p = '-';
	if (!left)
		while (end - p < width && p > b)
			*--p = pad;
	while (left && end - p < width && end < b + sizeof(b))
		*end++ = ' ';
	ps_put(ps, p, (size_t)(end - p));
}

void print_script_sample(struct print_script *ps, const struct session_sample *smp)
{
	char head[512];
	int n;

	/* perf script's default layout (perf 6.1, -F comm,pid,tid,cpu,time,period,event,ip,sym,
	 * symoff,dso) for an event with callchains: the command from column 0, "%5d/%-5d ",
	 * "[%03d] ", "%12s: " for seconds.microseconds, "%10" PRIu64 " ", the event name aligned
	 * on the recording's longest and followed by ": ", then one line per frame. As
	 * "%s %5d/%-5d [%03u] %5lu.%06lu: %10lu %*s: " would print it, without printf's cost on
	 * every sample. */
	ps_str(ps, smp->comm);
	ps_put(ps, " ", 1);
	put_dec(ps, smp->pid, 5, ' ', false);
	ps_put(ps, "/", 1);
	put_dec(ps, smp->tid, 5, ' ', true);
	ps_put(ps, " [", 2);
	put_dec(ps, smp->cpu, 3, '0', false);
	ps_put(ps, "] ", 2);
	put_dec(ps, (int64_t)(smp->time / 1000000000u), 5, ' ', false);
	ps_put(ps, ".", 1);
	put_dec(ps, (int64_t)(smp->time % 1000000000u / 1000u), 6, '0', false);
	ps_put(ps, ": ", 2);
	put_dec(ps, (int64_t)smp->period, 10, ' ', false);
	ps_put(ps, " ", 1);
	for (int k = (int)strlen(smp->event); k < smp->event_width; k++)
		ps_put(ps, " ", 1);
	ps_str(ps, smp->event);
	ps_put(ps, ": ", 2);
	/* Where perf script -F +cgroup puts the cgroup; recordings without cgroups have none. */
	if (smp->unit && strcmp(smp->unit, UNIT_UNKNOWN) != 0) {
		ps_put(ps, " ", 1);
		ps_str(ps, smp->unit);
	}
	/* A switch-out (script --off-cpu): how long its thread then stayed off, and why. */
	if (smp->offcpu) {
		n = snprintf(head, sizeof(head), " off-cpu %" PRIu64 " ns %s", smp->offcpu_ns,
			     smp->preempted ? "preempted" : "waiting");
		ps_put(ps, head, n < 0 ? 0 : (size_t)n);
	}
	ps_put(ps, "\n", 1);
	for (uint32_t i = 0; i < smp->n_frames; i++) {
		const struct session_frame *fr = &smp->frames[i];
		const struct session_sym *sym;

		put_frame(ps, fr);
		sym = session_sym(ps->s, fr->sym);
		if (sym->srcline) {
			ps_put(ps, "  ", 2);
			ps_str(ps, sym->srcline);
			ps_put(ps, "\n", 1);
		}
	}
	ps_put(ps, "\n", 1);
}

int print_parse_field_sep(struct print_opts *po, const char *prog, const char *arg)
{
	if (!arg[0] || arg[1]) {
		fprintf(stderr,
			"%s: -t takes one character to put between the columns (e.g. -t ',' or "
			"-t $'\\t'), not '%s'\n",
			prog, arg);
		return -1;
	}
	po->field_sep = arg[0];
	return 0;
}
