/* recdir.h — the recording directory: the names of its files, the active .partial file, their
 * time order, finishing a file, and how big the active file is. ringprofd's store, record's
 * --switch-output, report's --dir and push all follow these rules. */
#ifndef RP_FORMAT_RECDIR_H
#define RP_FORMAT_RECDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct writer;

/*
 * A recording is a regular file whose name ends in ".data", or ".data.partial" while it is
 * being written (the active file: readable up to its last complete frame, renamed to the
 * ".data" name once it is finished). A name starting with '.' is no recording (hidden, or a
 * file being created), nor is one of RECDIR_NAME_MAX bytes or more.
 *
 * The files ringprof writes into a directory are named
 *
 *     STEM-YYYYmmddTHHMMSSZ-NNNN.data[.partial]
 *
 * STEM "ringprof" for ringprofd (record --switch-output: the output's name without ".data"),
 * then the UTC time the file began and a sequence number of at least four digits that grows
 * with each file of the directory. Time order is the order of those times, then of the
 * sequence numbers as numbers (10000 after 9999: not the order of the names as strings);
 * other recordings come after them, in the order of their names.
 */
#define RECDIR_SUFFIX ".data"
#define RECDIR_PARTIAL ".partial"
#define RECDIR_STEM "ringprof"
#define RECDIR_NAME_MAX 256 /* NAME_MAX and its '\0' */

/* What a recording's name says. */
struct recdir_name {
	bool partial;  /* ".data.partial": still being written */
	bool timed;    /* STEM-YYYYmmddTHHMMSSZ-NNNN: the fields below are set */
	size_t stem;   /* the length of STEM */
	int64_t start; /* when the file began, Unix seconds */
	uint64_t seq;
};

/* True when NAME is a recording's name (above), with what it says in *ret. */
bool recdir_parse(const char *name, struct recdir_name *ret);

/* The name of the file of STEM that began at START with sequence number SEQ (".partial"
 * added when PARTIAL). 0, or -ENAMETOOLONG (STEM too long for RECDIR_NAME_MAX or SIZE). */
int recdir_format(char *buf, size_t size, const char *stem, time_t start, uint64_t seq,
		  bool partial);

/* Time order of two recordings' names (strcmp's sign convention). Names that are no
 * recording's sort after every recording, by strcmp. */
int recdir_cmp(const char *a, const char *b);

/* The finished name of the active file NAME (".partial" dropped). 0 or -EINVAL (not a
 * .partial recording's name). */
int recdir_finished_name(const char *name, char *buf, size_t size);

struct recdir_entry {
	char name[RECDIR_NAME_MAX];
	struct recdir_name n;
	uint64_t bytes; /* allocated on disk */
	int64_t mtime;
};

/* Every recording of the directory DFD, in time order; with STEM, only the timed ones of that
 * stem (a daemon's own files). What is passed by: names that are no recording's, symbolic
 * links, directories, devices, FIFOs and sockets. The array is malloc'd. 0 or -errno. */
int recdir_list(int dfd, const char *stem, struct recdir_entry **ret, size_t *ret_n);
/* The same for the directory at PATH. */
int recdir_list_path(const char *path, const char *stem, struct recdir_entry **ret, size_t *ret_n);

/* The sequence number after the highest of the N entries (1 when none). */
uint64_t recdir_next_seq(const struct recdir_entry *v, size_t n);

/* A new active file of STEM in DFD, begun now: STEM-TIME-SEQ.data.partial, created with
 * O_EXCL and MODE, *seq the first free number from *seq on (and after it on return). The file
 * descriptor in *ret_fd, its name in ret_name. 0 or -errno. */
int recdir_create(int dfd, const char *stem, uint64_t *seq, int mode, int *ret_fd, char *ret_name,
		  size_t name_size);

/* Finish the active file NAME in DFD: renamed to its finished name, the rename made durable
 * (fsync of the directory). 0 or -errno. */
int recdir_finish(int dfd, const char *name);

/* Give the finished file at PATH its name in the directory DFD: STEM-TIME-SEQ.data with TIME
 * START, SEQ the first free number from *seq on (never replacing a file; *seq after it on
 * return). Its name in ret_name. 0 or -errno. */
int recdir_finish_as(const char *path, int dfd, const char *stem, time_t start, uint64_t *seq,
		     char *ret_name, size_t name_size);

/* The size the file being written by W will have once its open frame is written: the bytes
 * in the file and the pending ones at the compression ratio so far (a quarter before the
 * first frame). A frame is written at least every flush interval but can hold 8 MiB. */
uint64_t recdir_file_estimate(const struct writer *w);

#endif
