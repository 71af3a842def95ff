/* session.h — turns recordings into a profile: replays side-band into the process model,
 * filters and aggregates samples by unique stack, then symbolizes each unique address once.
 *
 * session.c owns the parts and runs them in order: replay.c reads the records and applies
 * the filters, aggregate.c counts the samples and builds the rows, symstacks.c symbolizes,
 * dsotab.c knows the objects (kernel, modules, files, JIT code, [vdso]). */
#ifndef RP_SESSION_H
#define RP_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/format.h"

struct focus;
struct rp_header_rec;
struct strtab;

/*
 * Which samples count; an empty list (n_* 0) does not filter. Every array, and every string
 * in comms, units and dsos, is borrowed: it must stay valid and unchanged until session_free().
 */
struct session_filter {
	const int32_t *pids;
	size_t n_pids;
	const int32_t *tids;
	size_t n_tids;
	const char *const *comms;
	size_t n_comms;
	const char *const *units; /* systemd units or containers (profile/unit.h names) */
	size_t n_units;
	const char *const *dsos; /* the sample's own (leaf) object, by short name or path */
	size_t n_dsos;
	const int *cpus;
	size_t n_cpus;
	/* perf's -S 0xADDR: only the samples taken at these addresses (the sample's own
	 * instruction pointer, in the process's address space, as script prints it). */
	const uint64_t *addrs;
	size_t n_addrs;
	/* Which stacks count by their symbols (-S, --focus, --ignore: profile/focus.h), NULL:
	 * all. Applied once symbolized: to the rows, the streamed samples and pprof's counts. */
	struct focus *focus;
	/* Only the samples of the event of this name (as recorded, e.g. "cpu-clock:u"), for
	 * recordings of several events; NULL: every event's. */
	const char *event;
	/* Time window in wall-clock time (CLOCK_REALTIME ns), see session_file_bounds(). */
	bool have_since, have_until;
	int64_t since, until;
};

/*
 * session_new() copies this struct, not what it points to: symfs (NULL: none; JIT perf maps
 * are looked up under it in session_finish()), the filter's arrays and warn_arg are borrowed
 * and must outlive the session. warn is called with warn_arg, from session_add_file() and
 * session_finish() only, with a message valid for the call.
 */
/* What a sample weighs: its period (CPU samples), the time its thread then stayed off CPU
 * (the sched:sched_switch samples of record --off-cpu, up to the thread's next switch-in), or
 * both (a thread's wall time: on-CPU periods, which must be times, plus off-CPU time). */
enum session_weight { SESSION_CPU, SESSION_OFFCPU, SESSION_WALL };

struct session_opts {
	const char *symfs;
	enum session_weight weight;
	bool inline_frames;
	bool no_demangle; /* C++ and Rust names as in the symbol tables */
	/* Each frame's source line (session_sym.srcline): symbols are then kept apart by line.
	 * Lines come from DWARF line tables, each distinct address looked up once. */
	bool srcline;
	/* srcline: the source file's whole path as DWARF gives it, not its last component
	 * (perf's --full-source-path). */
	bool full_source_path;
	/* srcline: only the frames samples were taken in (the leaves) are kept apart by line,
	 * for outputs that show no other frame's line (a flat table without Children or
	 * trees); the other frames' line tables are not read. */
	bool srcline_leaves;
	/* File:line in the symbolizer's frames (pprof's Line), without splitting symbols. */
	bool lines;
	bool debuginfod;
	int debuginfod_timeout;
	bool no_debug_cache;	/* symbolizer_opts.no_debug_cache */
	unsigned int max_stack; /* frames kept per sample, leaf first; 0 = all */
	/* A timeline (report --html): rows are kept apart by time bucket, bucket_ns wide from
	 * bucket_origin (wall-clock ns, at or before the first sample; one earlier goes to
	 * bucket 0); 0: one bucket. An off-CPU interval is placed at the switch-in that ends it. */
	uint64_t bucket_ns;
	int64_t bucket_origin;
	/* Stacks unwound while recording that stopped short (stack copy exhausted, no unwind
	 * information, table pending, bad frame, depth limit) get an outermost frame saying so
	 * (session_sym name "[cut: REASON]", in the object "[cut]"), so that a partial stack is
	 * not taken for a whole one. Off for the text outputs. */
	bool mark_cut;
	struct session_filter filter;
	void (*warn)(void *arg, const char *msg);
	void *warn_arg;
};

/*
 * A symbol as reported: an interned name (NULL = unknown) in an object. An unknown frame is
 * one symbol per object and address, as perf keeps them in call graphs, so trees and --folded
 * do not merge different code into one "[unknown]"; flat output counts them all under their
 * object's one "[unknown]".
 */
struct session_sym {
	const char *name;
	uint32_t dso;
	bool kernel;
	const char *label; /* an unknown frame's text in trees and --folded: "[unknown] OBJ+0xOFF"
			    * (a file's offset) or "[unknown] 0xADDR"; NULL otherwise */
	uint32_t flat;	   /* the session_sym() id flat output counts it under: itself, or for
			    * an unknown frame its object's "[unknown]"; with srcline, the
			    * symbol's own (all its lines) */
	/* session_opts.srcline: "FILE:LINE" (the file's last component) of the frame, or
	 * "OBJECT+0xOFFSET" where its object has no line for it; NULL without srcline. */
	const char *srcline;
	uint32_t line_rep; /* the first session_sym() id with this srcline (a key for it) */
};

/* One aggregated row: every sample with the same symbolized stack, task and CPU. */
struct session_row {
	uint32_t stack; /* symbol stack id: leaf first */
	uint32_t comm;	/* id in session_comms() */
	int32_t pid, tid;
	uint32_t cpu;
	uint64_t count;
	uint64_t period;
	uint32_t unit;	 /* id in session_unit() */
	uint32_t bucket; /* time bucket (session_opts.bucket_ns), 0 without */
};

/* The first distinct file offsets of an object's frames where walks stopped for "no unwind
 * information" (the last frame's address: a return address or the sampled pc). */
#define SESSION_STOP_OFFS 8
struct session_stop_offs {
	uint64_t off[SESSION_STOP_OFFS];
	uint32_t n;
};

struct session_totals {
	uint64_t samples; /* after filters */
	uint64_t period;
	/* In the --since/--until window, before the other filters (--percentage absolute). */
	uint64_t samples_window, period_window;
	uint64_t samples_seen; /* before filters */
	/* With a focus filter: the samples and period the other filters kept, before it. */
	uint64_t samples_focus_in, period_focus_in;
	uint64_t samples_malformed;  /* samples whose fields do not fit their record: skipped */
	uint64_t sideband_malformed; /* MMAP records whose file name is not terminated: skipped */
	uint64_t samples_nomem;	     /* samples dropped because memory ran out while replaying them
				      * (some perhaps before the --comm filter could reject them) */
	uint64_t
	    sideband_nomem; /* side-band records (COMM, MMAP, FORK, KSYMS) not applied for
			     * lack of memory: samples may be placed in the wrong task or object */
	uint64_t lost;	    /* LOST records + losses reported only at the end */
	uint64_t throttles;
	uint64_t frames, frames_unknown; /* sample-weighted */
	uint64_t samples_unmapped; /* samples with a user frame in no known mapping (no perf map
				    * either), after filters */
	/* Recordings unwound while recording (--call-graph dwarf): samples with a user stack, by
	 * why its walk stopped (enum rp_unwind_stop), after filters. */
	uint64_t unwound, unwind_stop[RP_CONTEXT_UNWIND_N];
	uint64_t *unwind_dso; /* incomplete user stacks by the dsotab id of their last frame */
	size_t n_unwind_dso;
	uint64_t *unwind_noinfo; /* of those, the ones that stopped RP_UNWIND_NO_INFO */
	size_t n_unwind_noinfo;
	struct session_stop_offs *unwind_noinfo_at; /* where in the file, by dsotab id */
	size_t n_unwind_noinfo_at;
	uint32_t stack_user; /* bytes of stack copied per sample (the first header's) */
	uint64_t t_first, t_last;
	size_t files, files_unfinished, frames_bad;
	/* SESSION_OFFCPU and _WALL: periods are ns of time. Off-CPU intervals charged (samples
	 * counts them), their ns, the ns of preemptions among them; the threads still off at the
	 * end of a recording (clipped there) and their ns; switch-outs never followed by their
	 * switch-in (lost records: dropped); switch-out samples of the idle task (ignored). */
	bool time_weighted;
	uint64_t offcpu_ns, offcpu_preempt_ns, offcpu_clipped, offcpu_clipped_ns;
	uint64_t offcpu_dropped, offcpu_switchouts;
	/* Intervals open while records were lost (dropped: the thread may have run meanwhile)
	 * and their ns. */
	uint64_t offcpu_lost, offcpu_lost_ns;
	/* Switch-outs that came with their stack, and the recorder's --off-cpu-rate (switch-outs
	 * sampled a second per CPU at most; 0: every one). */
	uint64_t offcpu_stacks, offcpu_rate;
};

/* The events of the recordings at paths (reading only their first frames), in order of first
 * appearance, at most max into ret. 0, or -errno (out of memory). Files that cannot be read
 * are left out (session_add_file says why). */
int session_list_events(const char *const *paths, size_t n_paths, struct rp_event_desc *ret,
			size_t max, size_t *ret_n);

struct session;

struct session *session_new(const struct session_opts *o);
struct session *session_free(struct session *s);

/* Wall-clock bounds of a recording from its header and frame descriptors, without reading
 * its records: 0, or -errno with a sentence in why. */
int session_file_bounds(const char *path, int64_t *ret_start, int64_t *ret_end, char *why,
			size_t why_size);

/* A frame of a streamed sample. */
struct session_frame {
	uint64_t addr;	 /* as recorded: the sampled address, or a return address */
	uint32_t sym;	 /* a session_sym() id */
	uint64_t offset; /* addr - the start of the symbol (or inline instance); 0 when unknown */
};

/* A sample as `ringprof script` prints it; it and what it points to are valid during the
 * callback only. */
struct session_sample {
	uint64_t time; /* CLOCK_MONOTONIC ns, as recorded */
	int32_t pid, tid;
	uint32_t cpu;
	uint64_t period;
	const char *comm;
	const char *unit;		    /* the thread's systemd unit or container */
	const char *event;		    /* the recording's event name */
	int event_width;		    /* its longest event name's length */
	const struct session_frame *frames; /* leaf first; an inline chain shares its addr */
	uint32_t n_frames;
	/* SESSION_OFFCPU and _WALL: a switch-out, handed out when its thread switched in again
	 * (time is still the switch-out's), with the ns it then stayed off CPU (and the time of
	 * switch-outs without a stack before it), and whether it was preempted. */
	bool offcpu, preempted;
	uint64_t offcpu_ns;
};

/*
 * Stream rather than aggregate: from then on session_add_file() hands FN(ARG, sample) every
 * sample that passes the filters (--dso included), symbolized, in the order read (time
 * order within a recording; with off-CPU weights a switch-out comes when its thread switches
 * in again); session_finish() and the rows are not needed. Memory grows with
 * the unique locations and stacks met, not with the samples. Call before the first file.
 * 0 or -ENOMEM.
 */
int session_stream(struct session *s, void (*fn)(void *arg, const struct session_sample *smp),
		   void *arg);

/* Read one recording into the session. Returns 1 without reading it when it lies wholly
 * outside the time window; frames that start after the window are not decompressed. -errno with a
 * sentence in why when the file cannot be used at all; damage inside it goes to the warn callback. */
int session_add_file(struct session *s, const char *path, char *why, size_t why_size);

/*
 * A recording its writer still appends to (ringprofd's active NAME.data.partial), read as it
 * grows: session_follow_open() reads it to its last complete frame, as session_add_file()
 * would; each session_follow_more() reads only the frames appended since; and
 * session_follow_close() reads the rest as a finished file (a cut last frame is then damage)
 * and frees FW: the samples add up to those of one session_add_file() of the whole file. The
 * open file stays the same file when it is renamed (NAME.data once closed). No other file may
 * be added between open and close. Open: as session_add_file() (on success *RET is set), or
 * -EAGAIN while the first frame is not all written;
 * close: 0, or -ENODATA with a sentence in why when it had no intact frame.
 */
struct session_follow;
int session_follow_open(struct session *s, const char *path, struct session_follow **ret, char *why,
			size_t why_size);
void session_follow_more(struct session *s, struct session_follow *fw);
int session_follow_close(struct session *s, struct session_follow *fw, char *why, size_t why_size);
/* Symbolize and build the rows; call once, after the last file. */
int session_finish(struct session *s);

/*
 * Every pointer returned below is owned by the session and valid until session_free(); before
 * session_finish() only the header and totals are meaningful. Ids link them: a row's stack is
 * a session_stack() id, whose elements are session_sym() ids, whose dso is a
 * session_dso_name() id; a row's comm is a session_comm() id.
 */
const struct rp_header_rec *session_header(const struct session *s); /* first file's, or NULL */
/* The events of the files read, as session_list_events(); the filter's event when one is set
 * (NULL when none is). */
const struct rp_event_desc *session_events(const struct session *s, size_t *ret_n);
const struct rp_event_desc *session_selected_event(const struct session *s);
/* With --since/--until: the first input that had samples in the window ("" when none had)
 * and, in *ret_n, how many had some; session_header() is then that input's header. NULL
 * without a window. */
const char *session_covered(const struct session *s, size_t *ret_n);
const struct session_totals *session_totals(const struct session *s);
/* What the sample periods are (session_opts.weight). */
enum session_weight session_weight(const struct session *s);
const struct session_row *session_rows(const struct session *s, size_t *ret_n);
const uint32_t *session_stack(const struct session *s, uint32_t id, uint32_t *ret_n);
const struct session_sym *session_sym(const struct session *s, uint32_t id);
/* Symbol ID's text as filters match it (profile/focus.h): its name, an unknown frame's label,
 * or "[unknown]". S is a const struct session *, passed as a focus_text_fn's context. */
const char *session_sym_text(const void *s, uint32_t id);
const char *session_dso_name(const struct session *s, uint32_t dso);
/* A file's path as recorded; other objects' names as session_dso_name() gives them. */
const char *session_dso_path(const struct session *s, uint32_t dso);
const char *session_comm(const struct session *s, uint32_t comm);
/* A row's or count's unit (profile/unit.h). */
const char *session_unit(const struct session *s, uint32_t unit);

/*
 * For outputs in lib/profile that keep locations (addresses, objects) rather than symbol
 * stacks, as pprof.c does: the parts the session built, borrowed, meaningful after
 * session_finish() and valid until session_free(). The aggregate's counts are by location
 * stack and task, before --dso (session_dso_kept() applies it); a location's symbols are
 * symstacks_loc() of its id.
 */
struct aggregate;
struct dsotab;
struct symbolizer;
struct symstacks;
struct session_parts {
	const struct aggregate *agg;
	const struct symstacks *ss;
	struct dsotab *dsos;
	struct symbolizer *symz;
};
void session_parts(const struct session *s, struct session_parts *ret);
/* With srcline: the objects (session_dso_name() ids) with frames and no DWARF to give their
 * lines, *ret_n of them, in the order met. */
const uint32_t *session_nolines(const struct session *s, size_t *ret_n);
/* The focus filter (session_filter.focus), NULL without one. */
struct focus *session_focus(const struct session *s);
/* Does --dso keep a sample whose leaf frame is in object DSO? (Always without --dso.) */
bool session_dso_kept(const struct session *s, uint32_t dso);
/* Whether a filter picks samples by task, object or CPU (--pid, --tid, --comm, --unit, --dso,
 * --cpu): lost samples cannot be told apart that way (a LOST record says how many a CPU's
 * ring dropped, not whose they were), so totals.lost is the recording's (in the time window)
 * and not the filtered samples'. */
bool session_filters_samples(const struct session *s);

#endif
