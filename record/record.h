/* record.h — what the parts of `ringprof record` share: the command line as parsed (args), the
 * recording in progress (record), and the functions each part offers the others. */
#ifndef RP_RECORD_H
#define RP_RECORD_H

#include <signal.h> /* sigset_t */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h> /* pid_t */
#include <time.h>      /* time_t */

#include "base/cpulist.h"
#include "base/procfs.h"
#include "base/util.h"
#include "cli/cli.h"
#include "capture/evsel.h"
#include "capture/evset.h"
#include "capture/recorder.h"
#include "capture/tracefs.h"
#include "capture/unwinder.h"
#include "format/format.h"
#include "format/recdir.h"
#include "format/writer.h"

#define PROG "ringprof record"
#define MAX_PIDS 1024
#define RECORD_UNWIND_CACHE_MAX (256ull << 20) /* --unwind-cache's bound */

enum { TAG_SIGNAL = 1, TAG_PIDFD = 2 };

/* Long options without a short one (beyond any character). */
enum {
	OPT_MAX_SIZE = 256,
	OPT_SWITCH_OUTPUT,
	OPT_SWITCH_MAX_FILES,
	OPT_BUILDID_MMAP,
	OPT_UNWIND_MEMORY,
	OPT_UNWIND_CACHE,
	OPT_OFF_CPU_RATE,
	OPT_NO_CALL_GRAPH,
	OPT_NO_SYMBOLS,
	OPT_JOIN_CUT_STACKS,
	OPT_DATA
};

/* --switch-output: when the recording continues in a new file. */
enum switch_mode { SWITCH_NONE, SWITCH_SIGNAL, SWITCH_SIZE, SWITCH_TIME };

/* Exit statuses besides EXIT_SUCCESS, EXIT_FAILURE and EXIT_USAGE (cli.h); a command's own
 * status passes through. */
enum {
	EXIT_EXEC = 127, /* the command could not be run, as in the shell */
};

/* What the command line asks for. */
struct args {
	struct recorder_opts o; /* the sampling options; the target is set when recording */
	int cpus[RP_MAX_CPUS];	/* -C */
	size_t n_cpus;
	bool cpus_set;
	pid_t pids[MAX_PIDS]; /* -p */
	size_t n_pids;
	bool procs, threads; /* -p, -t (n_pids of them) */
	bool all;	     /* -a */
	char **command;	     /* -- COMMAND [ARGS]; NULL with -a or -p */
	const char *output;
	uint64_t duration; /* ns; 0: until the target ends or a signal */
	int level;	   /* zstd */
	bool quiet;
	bool verbose;		       /* -v: say the settings and what was opened */
	uint64_t max_size;	       /* --max-size: bytes of all files together; 0: no limit */
	enum switch_mode switch_mode;  /* --switch-output (SIGUSR2 switches in every mode) */
	uint64_t switch_size;	       /* SWITCH_SIZE: bytes per file */
	uint64_t switch_ns;	       /* SWITCH_TIME: time per file */
	unsigned int switch_max_files; /* --switch-max-files: keep the newest; 0: all */
	uint64_t delay_ns;	       /* -D: events enabled this long after the start */
	char events[1024];	       /* every -e, joined by commas */
	bool freq_set, period_set;
	bool call_graph_set;	  /* -g, --call-graph or --no-call-graph */
	bool off_cpu_stacks;	  /* --off-cpu turned on the default call graph: say so */
	bool list;		  /* --list-events [GLOB] */
	const char *unwind_cache; /* --unwind-cache DIR, "no"; NULL: the default */
};

/* One recording and what it watches. */
struct record {
	struct args a;
	char *cmdline;
	struct recorder *r;
	struct writer *w;
	int sfd;
	sigset_t saved;	      /* the signal mask the command gets back */
	pid_t child;	      /* the command until it is reaped, else 0 */
	int go, errp;	      /* its hand-shake pipes, until it is released (spawn_stopped) */
	int exit_status;      /* its wait status, -1 before it ended */
	int pidfds[MAX_PIDS]; /* -p: one per target process, -1 where pidfd_open failed */
	uint64_t t0;	      /* when the events were enabled: -d counts from here */
	uint64_t t_release;   /* when the command was let go (or recording began): -D's origin */
	bool enabled;	      /* the events are on (false only during -D) */
	uint64_t t_file;      /* --switch-output: when the current file began */
	bool switch_asked;    /* SIGUSR2 came */
	time_t file_start;    /* --switch-output: when the current file began (UTC), its name */
	uint64_t seq;	      /* --switch-output: the next name's sequence number (0: not known) */
	uint64_t prev_file_bytes, prev_raw_bytes; /* of the files already switched away from */
	char **kept; /* --switch-max-files: the finished files, oldest first */
	size_t n_kept;
	bool size_limit; /* --max-size was reached */
	bool interrupted;
	int code; /* after a failure (said): the exit status */
};

/* options.c: the command line */
int parse_argv(struct args *a, int argc, char **argv);

/* command.c: the workload command and the processes watched */
void explain_nofile(int err);
int exit_code_of(int status);
int block_signals(struct record *x);
int spawn_command(struct record *x);
void abandon_command(struct record *x);
void release_command(struct record *x);
void pids_to_processes(struct args *a, bool quiet);
void end_command(struct record *x);
void watch_signals(struct record *x);
void watch_pids(struct record *x);
bool any_pid_alive(const struct record *x);

/* output.c: the output file, --switch-output and --max-size */
int check_output(const char *output);
void keep_old_output(const char *output, bool quiet);
int open_output(struct record *x);
char *finish_output(struct record *x, time_t start);
void finished_file(struct record *x, char *name);
void switch_output(struct record *x);

/* summary.c: what is said at the start and at the end */
void print_verbose(const struct record *x);
void print_summary(const struct record *x, const struct recorder_totals *t,
		   const struct writer_stats *ws);
void print_unwind_summary(const struct record *x);
void print_helper_deaths(const struct record *x);

#endif
