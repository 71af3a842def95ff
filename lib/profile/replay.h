/* replay.h — a recording's records in order: side-band to the models, samples through filters. */
#ifndef RP_REPLAY_H
#define RP_REPLAY_H

#include <stddef.h>
#include <stdint.h>

struct aggregate;
struct dsotab;
struct perf_event_header;
struct perfrec_sample;
struct ksymtab;
struct procmodel;
struct reader;
struct session_opts;
struct session_totals;

/*
 * One per report run, for every recording in turn. Everything given to replay_new() is
 * borrowed and must outlive the replay: the options (their filter and max_stack apply), the
 * process model, object table and kernel symbols it fills from side-band, the aggregate
 * samples are counted in, and the totals it counts into.
 */
struct replay;

struct replay *replay_new(const struct session_opts *o, struct procmodel *pm, struct dsotab *dsos,
			  struct ksymtab *ksyms, struct aggregate *agg, struct session_totals *t);
struct replay *replay_free(struct replay *rp);

/*
 * Every record of R (open; borrowed for the call), in order. 0; 1 without reading it when it
 * lies wholly outside the time window; -ENODATA with a sentence in why when its wall-clock
 * time is unknown while a window is set, or when it has no intact frame.
 */
int replay_file(struct replay *rp, struct reader *r, char *why, size_t why_size);
/* replay_file() in three steps, for a file read as it grows (reader_follow()): begin (its
 * return as replay_file()'s; on 0, nothing else may be replayed until end), then more each
 * time the reader has more records, then end (what replay_file() returns after reading). */
int replay_begin(struct replay *rp, struct reader *r, char *why, size_t why_size);
void replay_more(struct replay *rp, struct reader *r);
int replay_end(struct replay *rp, struct reader *r, char *why, size_t why_size);

/*
 * The side tables of the file PRE is a second reader of (open, at its start; borrowed): its
 * kernel symbols and the build-ids of its files, added before the next replay_file() of that
 * file, which then does not add its kernel symbols again. A streamed sample is named at once,
 * and a kernel symbol written as samples first need it, or a build-id read while recording,
 * may come after the first sample that uses it. 1, or 0 when the file has no header.
 */
int replay_preload(struct replay *rp, struct reader *pre);

/*
 * One record applied to PM as a replay applies it when it names threads (COMM, FORK, EXIT) or
 * places them in cgroups (CGROUP, RP_REC_TASKCG); other records are left alone. For --dump,
 * which selects samples by their thread's name and unit without a replay. 0, -EINVAL when the
 * record is damaged (skipped), -ENOMEM.
 */
int replay_task_record(struct procmodel *pm, const struct perf_event_header *h,
		       uint64_t sample_type);

/*
 * Call FN(ARG, sample, location stack id, comm id, unit id) for every sample counted, in the order
 * read, after it is counted (`ringprof script` streams them). The sample is valid only
 * during the call. FN NULL: none (the default). With a hook and on-CPU weights, samples are
 * handed to it alone: neither their stacks nor their counts are kept, the stack id is
 * REPLAY_LOCS and replay_sample_locs() has the locations (memory then grows with the
 * distinct locations, not with the stacks or the samples).
 */
#define REPLAY_LOCS UINT32_MAX
/* During the hook's call for a sample of REPLAY_LOCS: its location ids, leaf first. */
const uint32_t *replay_sample_locs(const struct replay *rp, uint32_t *ret_n);
/* The name of the event of the sample being replayed (for the sample hook): the header's
 * event, or in a recording of several the sample's own (the header's when its description
 * was lost); NULL outside a replay. */
const char *replay_event_name(const struct replay *rp);
/* The length of the longest event name of the recording being replayed (perf script aligns
 * the event names of a recording of several on it); 0 outside a replay. */
size_t replay_event_width(const struct replay *rp);
struct offcpu_charge;
/* Off-CPU weights: FN(ARG, charge) for each interval charged (after the sample hook saw its
 * switch-out sample, which it gets too with these weights). */
void replay_set_offcpu_hook(struct replay *rp, void (*fn)(void *arg, const struct offcpu_charge *c),
			    void *arg);
void replay_set_sample_hook(struct replay *rp,
			    void (*fn)(void *arg, const struct perfrec_sample *smp, uint32_t stack,
				       uint32_t comm, uint32_t unit),
			    void *arg);

#endif
