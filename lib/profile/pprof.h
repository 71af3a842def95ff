/* pprof.h — a session's profile as pprof's gzip-compressed profile.proto (the protobuf-c and
 * zlib adapter). */
#ifndef RP_PPROF_H
#define RP_PPROF_H

#include <stddef.h>
#include <stdint.h>

struct session;

struct pprof_opts {
	/* The window the profile covers, wall-clock ns (time_nanos, duration_nanos); start and
	 * end 0: from the first to the last sample kept. */
	int64_t start, end;
	/* Only the samples of one unit (a session_unit() id), for one series per unit. */
	bool one_unit;
	uint32_t unit;
};

/*
 * The profile of S (after session_finish()): every sample the session kept, with values
 * samples/count and the period's sum (cpu/nanoseconds for cpu-clock and task-clock, else
 * EVENT/count; off_cpu/nanoseconds with off-CPU weights; with wall-time weights cpu/nanoseconds,
 * off_cpu/nanoseconds and their sum wall/nanoseconds, the default), labels pid, tid, comm and unit;
 * one Mapping per object (build-id in hex), whose Locations hold file offsets for files (memory_start
 * 0, file_offset 0, so one Mapping serves every process) and addresses for the kernel and JIT code;
 * Lines innermost first, Functions with the demangled name and the raw (mangled) system_name. O may
 * be NULL. 0 with *ret_buf (malloc'd, the caller frees it) of *ret_len bytes, or -ENOMEM.
 */
int pprof_encode(const struct session *s, const struct pprof_opts *o, uint8_t **ret_buf,
		 size_t *ret_len);

/* pprof_encode() into PATH ("-": standard output), through PATH.tmp renamed over it so that
 * an existing file is replaced whole or not at all. 0, or -errno with a sentence in why
 * (which names the path). */
int pprof_write(const struct session *s, const struct pprof_opts *o, const char *path, char *why,
		size_t why_size);

#endif
