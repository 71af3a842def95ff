/* perfrec.h — PERF_RECORD_* layouts as the kernel writes them (and as ringprof synthesizes
 * them): samples, sample_id trailers, side-band records, times and names. */
#ifndef RP_PERFREC_H
#define RP_PERFREC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <linux/perf_event.h>

#include "format/format.h"

/* The sample_type bits this version of ringprof knows how to lay out. */
#define PERFREC_SAMPLE_KNOWN                                                                       \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |            \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |             \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)

/* Identity fields (PERF_RECORD_SAMPLE's, or a side-band record's sample_id trailer). */
struct perfrec_id {
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu;
};

/* A decoded sample; ips points into the record (8-byte aligned storage). */
struct perfrec_sample {
	struct perfrec_id id;
	uint64_t ip;
	uint64_t period;
	uint64_t nr;
	const uint64_t *ips;
	uint16_t misc;
	uint64_t identifier; /* PERF_SAMPLE_IDENTIFIER's event id; 0 without */
	uint64_t cgroup;     /* PERF_SAMPLE_CGROUP's id (the recorder's rings only); 0 without */
};

/*
 * A sample's callchain walked the way every reader resolves it (the recorder choosing which
 * kernel symbols to store, the report, script): context markers switch between kernel and
 * user and are not addresses; the first address of a context is where the sample was taken,
 * each later one a return address, whose call instruction is just before it (so it is looked
 * up at address - 1: a call at the very end of a function returns to the next one). Any other
 * marker (guest, hypervisor, ringprof's end-of-unwind marker) ends the walk. Past ringprof's
 * RP_CONTEXT_JOINED the user chain goes on with callers inferred from the thread's previous
 * stack, past RP_CONTEXT_FPCHAIN with the kernel's frame-pointer chain: `via` says which from
 * the first of them on.
 */
struct perfrec_chain {
	const uint64_t *ips; /* possibly unaligned: read with memcpy */
	uint64_t nr, i;
	bool kernel; /* the context of the address last returned */
	bool first;
	/* 0: the address last returned was read from the stack copy (or is the kernel's);
	 * RP_CONTEXT_JOINED: it (and every later one) was inferred by joining;
	 * RP_CONTEXT_FPCHAIN: it (and every later one) is the kernel's frame-pointer chain's */
	uint64_t via;
};

static inline void perfrec_chain_init(struct perfrec_chain *c, const struct perfrec_sample *s)
{
	*c = (struct perfrec_chain){
		.ips = s->ips,
		.nr = s->nr,
		.kernel = (s->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL,
		.first = true,
	};
}

/* The next address and whether it is a return address; false at the end. */
static inline bool perfrec_chain_next(struct perfrec_chain *c, uint64_t *ret_addr,
				      bool *ret_is_return)
{
	while (c->i < c->nr) {
		uint64_t v;

		memcpy(&v, &c->ips[c->i++], 8);
		if (v >= (uint64_t)PERF_CONTEXT_MAX) {
			if ((v == RP_CONTEXT_JOINED || v == RP_CONTEXT_FPCHAIN) && !c->kernel &&
			    !c->first && !c->via) {
				c->via = v;
				continue;
			}
			if (v != (uint64_t)PERF_CONTEXT_KERNEL && v != (uint64_t)PERF_CONTEXT_USER)
				break;
			c->kernel = v == (uint64_t)PERF_CONTEXT_KERNEL;
			c->first = true;
			continue;
		}
		*ret_addr = v;
		*ret_is_return = !c->first;
		c->first = false;
		return true;
	}
	c->i = c->nr;
	return false;
}

/* PERF_RECORD_COMM. */
struct perfrec_comm {
	uint32_t pid, tid;
	const char *comm; /* into the record; NULL when not terminated before the trailer */
	bool exec;	  /* PERF_RECORD_MISC_COMM_EXEC */
};

/* PERF_RECORD_MMAP2 (and the older PERF_RECORD_MMAP, which has no device or build-id). */
struct perfrec_mmap {
	uint16_t misc; /* the header's: cpumode, PERF_RECORD_MISC_MMAP_BUILD_ID */
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	const uint8_t *build_id; /* with PERF_RECORD_MISC_MMAP_BUILD_ID: into the record */
	size_t build_id_len;	 /* at most 20 */
	uint32_t maj, min;	 /* when build_id is NULL */
	uint64_t ino;
	uint64_t ino_gen; /* the inode's generation (0: unknown, as in records from /proc) */
	uint32_t prot, flags;
	const char *path; /* into the record; NULL when not terminated before the trailer */
};

/* PERF_RECORD_FORK and PERF_RECORD_EXIT. */
struct perfrec_task {
	uint32_t pid, ppid, tid, ptid;
};

/* PERF_RECORD_LOST, and PERF_RECORD_LOST_SAMPLES (id 0). */
struct perfrec_lost {
	uint64_t id, lost;
};

/* PERF_RECORD_SWITCH_CPU_WIDE: the task switched to (out) or from (in). */
struct perfrec_switch {
	uint32_t pid, tid;
};

/* PERF_RECORD_THROTTLE and PERF_RECORD_UNTHROTTLE. */
struct perfrec_throttle {
	uint64_t time, id;
};

/* PERF_RECORD_CGROUP: a cgroup's id (its directory's inode) and path below the cgroup2 mount. */
struct perfrec_cgroup {
	uint64_t id;
	const char *path; /* into the record; NULL when not terminated before the trailer */
};

/* PERF_RECORD_KSYMBOL. */
struct perfrec_ksymbol {
	uint64_t addr;
	uint32_t len;
	const char *name; /* into the record; NULL when not terminated before the trailer */
};

/*
 * Decoders of side-band records. Each fills the fields that fit in the record (0 or NULL for
 * the rest), so that a damaged record can still be shown, and returns 0 when the whole
 * record was there, -EINVAL when it was not (a field missing, a string not terminated).
 */
int perfrec_parse_comm(const struct perf_event_header *h, uint64_t sample_type,
		       struct perfrec_comm *ret);
int perfrec_parse_mmap(const struct perf_event_header *h, uint64_t sample_type,
		       struct perfrec_mmap *ret);
int perfrec_parse_task(const struct perf_event_header *h, struct perfrec_task *ret);
int perfrec_parse_lost(const struct perf_event_header *h, struct perfrec_lost *ret);
int perfrec_parse_switch(const struct perf_event_header *h, struct perfrec_switch *ret);
int perfrec_parse_throttle(const struct perf_event_header *h, struct perfrec_throttle *ret);
int perfrec_parse_ksymbol(const struct perf_event_header *h, uint64_t sample_type,
			  struct perfrec_ksymbol *ret);
int perfrec_parse_cgroup(const struct perf_event_header *h, uint64_t sample_type,
			 struct perfrec_cgroup *ret);

/* Encoders for synthesized side-band: the size of the record, then the record itself written
 * at dst (size bytes, as returned; the trailer from id). Sizes above RP_RECORD_MAX cannot be stored. */
size_t perfrec_comm_size(uint64_t sample_type, const char *comm);
void perfrec_comm_write(void *dst, size_t size, uint64_t sample_type, const struct perfrec_comm *c,
			const struct perfrec_id *id);
size_t perfrec_mmap2_size(uint64_t sample_type, const char *path);
void perfrec_mmap2_write(void *dst, size_t size, uint64_t sample_type, const struct perfrec_mmap *m,
			 const struct perfrec_id *id);
size_t perfrec_cgroup_size(uint64_t sample_type, const char *path);
void perfrec_cgroup_write(void *dst, size_t size, uint64_t sample_type,
			  const struct perfrec_cgroup *c, const struct perfrec_id *id);

/* A PERF_RECORD_SAMPLE of sample_type (bits of PERFREC_SAMPLE_KNOWN; fields the struct does not
 * hold are written as 0) with nr callchain words: its size, then the record written at dst. */
size_t perfrec_sample_size(uint64_t sample_type, uint64_t nr);
void perfrec_sample_write(void *dst, size_t size, uint64_t sample_type,
			  const struct perfrec_sample *s);

/* Size of the sample_id trailer for a sample_type. */
size_t perfrec_id_size(uint64_t sample_type);
/* Write a trailer for id at dst (perfrec_id_size bytes); fields not in sample_type are skipped. */
void perfrec_id_write(void *dst, uint64_t sample_type, const struct perfrec_id *id);

/* Decode a PERF_RECORD_SAMPLE. 0, or -EINVAL when the record is shorter than its fields say
 * or uses sample_type bits outside PERFREC_SAMPLE_KNOWN and PERF_SAMPLE_CGROUP (which only
 * the recorder's rings have: stored samples never carry it). */
int perfrec_parse_sample(const struct perf_event_header *h, uint64_t sample_type,
			 struct perfrec_sample *ret);
/* The user registers and stack copy of a sample (PERF_SAMPLE_REGS_USER, _STACK_USER). */
struct perfrec_user {
	uint64_t abi;	      /* PERF_SAMPLE_REGS_ABI_*; NONE: no user context (regs NULL) */
	const uint64_t *regs; /* n_regs words, in the order of the mask's bits */
	unsigned n_regs;
	const unsigned char *stack; /* stack_size bytes copied from the user sp; NULL when 0 */
	uint64_t stack_size;
	uint64_t dyn_size; /* how many of them are valid (at most stack_size) */
};

/* Decode a sample whose sample_type may also have PERF_SAMPLE_REGS_USER (n_regs = the number
 * of bits in sample_regs_user) and PERF_SAMPLE_STACK_USER after the callchain, and
 * PERF_SAMPLE_CGROUP after those. 0 or -EINVAL. */
int perfrec_parse_sample_user(const struct perf_event_header *h, uint64_t sample_type,
			      unsigned n_regs, struct perfrec_sample *ret,
			      struct perfrec_user *ret_user);
/* Decode the trailer of a kernel side-band record (or our own record's time). */
int perfrec_parse_id(const struct perf_event_header *h, uint64_t sample_type,
		     struct perfrec_id *ret);
/* Time of any stored record, 0 when it has none. */
uint64_t perfrec_time(const struct perf_event_header *h, uint64_t sample_type);

/* "SAMPLE", "MMAP2", ... or NULL for an unknown type. */
const char *perfrec_type_name(uint32_t type);

/* A NUL-terminated string that starts at off inside the record and must end before
 * end (the start of the trailer); NULL when it does not. */
const char *perfrec_string(const struct perf_event_header *h, size_t off, size_t end);

/* A COMM, MMAP, MMAP2, FORK, EXIT or NAMESPACES record whose task is pid 0, tid 0. The
 * kernel gives tasks outside the recorder's PID namespace as pid 0; the idle task, the only
 * real pid 0, has no side-band of its own. Such records would rename and map the idle task
 * after other processes: recorder and report drop them. */
bool perfrec_pid0_side_band(const struct perf_event_header *h);

#endif
