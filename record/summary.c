/* summary.c — what `ringprof record` says: the settings with -v, the summary at the end. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "record.h"

/* -v: what perf's -v says of its setup (events, rate, buffers, compression), from what was
 * asked and what the recorder opened. On stderr, as perf does. */
void print_verbose(const struct record *x)
{
	const struct args *a = &x->a;
	const char *target = a->all	  ? "system-wide"
			     : a->threads ? "threads"
			     : a->n_pids  ? "processes"
					  : "a command and its children";

	for (size_t i = 0; i < recorder_n_events(x->r); i++)
		fprintf(stderr, PROG ": event %zu: %s\n", i, recorder_event(x->r, i));
	if (recorder_freq(x->r))
		fprintf(stderr, PROG ": sampling: %llu Hz per CPU\n",
			(unsigned long long)recorder_freq(x->r));
	else
		fprintf(stderr, PROG ": sampling: every %llu events\n",
			(unsigned long long)a->o.period);
	if (!a->o.callchain)
		fprintf(stderr, PROG ": call graph: none\n");
	else if (a->o.stack_user)
		fprintf(stderr, PROG ": call graph: dwarf, %u-byte user stack copies\n",
			a->o.stack_user);
	else
		fprintf(stderr, PROG ": call graph: fp (frame pointers)\n");
	fprintf(stderr, PROG ": target: %s, events open on %zu CPUs\n", target,
		recorder_n_cpus(x->r));
	if (a->o.ring_pages)
		fprintf(stderr, PROG ": mmap pages: %u per CPU\n", a->o.ring_pages);
	else
		fprintf(stderr, PROG ": mmap pages: the default (see -m)\n");
	fprintf(stderr, PROG ": output: %s, zstd level %d, a frame at least every %.2f s\n",
		a->output, a->level, (a->o.flush_ns ? a->o.flush_ns : NSEC_PER_SEC) / 1e9);
	if (a->duration)
		fprintf(stderr, PROG ": duration: %.2f s\n", a->duration / 1e9);
}

void print_summary(const struct record *x, const struct recorder_totals *t,
		   const struct writer_stats *ws)
{
	double total = (double)(t->samples + t->lost);
	uint64_t raw = ws->raw_bytes, file = ws->file_bytes;
	char b[32];

	fprintf(stderr,
		"[ ringprof record: %llu samples, %llu lost (%.2f%%), %s written (%.1fx compression), "
		"%.2f s%s -> %s ]\n",
		(unsigned long long)t->samples, (unsigned long long)t->lost,
		total > 0 ? 100.0 * (double)t->lost / total : 0.0,
		util_format_bytes(file, b, sizeof(b)), file ? (double)raw / (double)file : 0.0,
		(double)t->duration_ns / 1e9,
		x->interrupted	? ", interrupted"
		: x->size_limit ? ", size limit reached"
				: "",
		x->n_kept && x->a.switch_mode ? x->kept[x->n_kept - 1] : x->a.output);
	if (ws->dropped_records)
		fprintf(stderr, PROG ": %llu records could not be written\n",
			(unsigned long long)ws->dropped_records);
	if (t->lost)
		fprintf(stderr,
			PROG
			": samples were lost because the rings filled up: larger rings (-m %u) or a "
			"lower rate (-F) keep them\n",
			x->a.o.ring_pages ? x->a.o.ring_pages * 4 : 2048);
}

/* ", N dropped to stay within SIZE" when tables were dropped for memory, else "". */
static const char *dropped_note(const struct unwinder_stats *u, uint64_t max, char *buf, size_t size)
{
	char b[32];

	if (!u->evicted)
		return "";
	snprintf(buf, size, ", %llu dropped to stay within %s, %llu of them needed again",
		 (unsigned long long)u->evicted,
		 util_format_bytes(max ? max : UNWINDER_MEMORY_DEFAULT, b, sizeof(b)),
		 (unsigned long long)u->reasked);
	return buf;
}

/* What else the walks did, when it happened: "; N% cut because a table came too late",
 * "; N joins contradicted by a later walk", "; N joins taken back"; else "". */
static const char *walk_notes(const struct unwinder_stats *u, char *buf, size_t size)
{
	int n = 0;

	buf[0] = '\0';
	if (u->late)
		n = snprintf(buf, size, "; %.1f%% cut because their table came too late",
			     100.0 * (double)u->late / (double)u->samples);
	if (u->joins_contradicted && n >= 0 && (size_t)n < size)
		n +=
		    snprintf(buf + n, size - (size_t)n,
			     "; %llu joins went through a frame a later walk read with another caller",
			     (unsigned long long)u->joins_contradicted);
	if (u->joins_undone && n >= 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n,
			 "; %llu joins taken back before they were stored (a frame had two callers)",
			 (unsigned long long)u->joins_undone);
	return buf;
}

/* --call-graph dwarf: how complete the user stacks are, what cut the others, what to do. */
void print_unwind_summary(const struct record *x)
{
	const struct unwinder_stats *u = recorder_unwind_stats(x->r);
	struct unwinder_object o, worst = { 0 };
	char b[32], d[80], l[320], j[160] = "";
	double n;

	if (!u || !u->samples)
		return;
	n = (double)u->samples;
	for (size_t i = 0; recorder_unwind_object(x->r, i, &o); i++)
		if (o.stopped > worst.stopped)
			worst = o;
	if (x->a.o.join_cut_stacks)
		snprintf(j, sizeof(j), ", %.1f%% completed by joining the thread's earlier stacks",
			 100.0 * (double)u->stop[UW_JOINED] / n);
	if (u->stop[UW_FPCHAIN])
		snprintf(j + strlen(j), sizeof(j) - strlen(j),
			 ", %.1f%% continued by frame pointers",
			 100.0 * (double)u->stop[UW_FPCHAIN] / n);
	fprintf(stderr,
		"[ user stacks: %.1f%% complete%s, %.1f%% cut "
		"by the %u-byte stack copy, %.1f%% without unwind information, %.1f%% waiting for a "
		"table; %llu table%s built, %llu from the disk cache (%s)%s%s ]\n",
		100.0 * (double)u->stop[UW_COMPLETE] / n, j,
		100.0 * (double)u->stop[UW_STACK_END] / n, x->a.o.stack_user,
		100.0 * (double)u->stop[UW_NO_INFO] / n, 100.0 * (double)u->stop[UW_PENDING] / n,
		(unsigned long long)u->tables, u->tables == 1 ? "" : "s",
		(unsigned long long)u->cached, util_format_bytes(u->table_bytes, b, sizeof(b)),
		dropped_note(u, x->a.o.unwind_memory, d, sizeof(d)), walk_notes(u, l, sizeof(l)));
	if ((double)u->stop[UW_STACK_END] / n > 0.05 && x->a.o.stack_user < RP_STACK_USER_MAX)
		fprintf(stderr,
			PROG
			": %.0f%% of the user stacks did not fit the %u-byte copy: a larger one "
			"(--call-graph dwarf,%u) keeps more of them\n",
			100.0 * (double)u->stop[UW_STACK_END] / n, x->a.o.stack_user,
			x->a.o.stack_user * 4 < RP_STACK_USER_MAX ? x->a.o.stack_user * 4
								  : RP_STACK_USER_MAX);
	if (worst.stopped && (double)worst.stopped / n > 0.05)
		fprintf(stderr, PROG ": %.0f%% of the user stacks stop in %s%s%s\n",
			100.0 * (double)worst.stopped / n, worst.path, worst.why[0] ? ": " : "",
			worst.why);
}

/* A helper that died is never silent, even with -q. */
void print_helper_deaths(const struct record *x)
{
	char buf[700];

	if (recorder_helper_deaths(x->r, buf, sizeof(buf)))
		fprintf(stderr, PROG ": warning: %s\n", buf);
}
