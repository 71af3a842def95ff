/* synth.c — start-up synthesis: the /proc state of running processes turned into records. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/grow.h"
#include "base/procfs.h"
#include "capture/synth.h"
#include "format/format.h"
#include "format/perfrec.h"
#include "format/writer.h"

void synth_init(struct synth *s, struct writer *w, uint64_t sample_type, uint64_t time)
{
	memset(s, 0, sizeof(*s));
	s->w = w;
	s->sample_type = sample_type;
	s->time = time;
}

static void emit_comm(struct synth *s, pid_t pid, pid_t tid, const char *comm)
{
	struct perfrec_comm c = { (uint32_t)pid, (uint32_t)tid, comm, false };
	struct perfrec_id id = { (uint32_t)pid, (uint32_t)tid, s->time, RP_CPU_SYNTH };
	size_t size = perfrec_comm_size(s->sample_type, comm);
	void *h = writer_reserve(s->w, size);

	if (h)
		perfrec_comm_write(h, size, s->sample_type, &c, &id);
}

struct maps_ctx {
	struct synth *s;
	pid_t pid;
};

static int on_map(const struct procfs_map *m, void *arg)
{
	struct maps_ctx *c = arg;
	struct synth *s = c->s;
	struct perfrec_id id = { (uint32_t)c->pid, (uint32_t)c->pid, s->time, RP_CPU_SYNTH };
	struct perfrec_mmap r = { .misc = PERF_RECORD_MISC_USER,
				  .pid = (uint32_t)c->pid,
				  .tid = (uint32_t)c->pid,
				  .addr = m->start,
				  .len = m->end - m->start,
				  .pgoff = m->pgoff,
				  .maj = m->maj,
				  .min = m->min,
				  .ino = m->ino,
				  .prot = m->prot,
				  .flags = m->flags,
				  .path = m->path }; /* no generation in /proc: 0 */
	size_t size;
	void *h;

	if (!(m->prot & PROT_EXEC) || strlen(m->path) > 4096)
		return 0;
	size = perfrec_mmap2_size(s->sample_type, m->path);
	h = size <= 65535 ? writer_reserve(s->w, size) : NULL;
	if (!h)
		return 0;
	perfrec_mmap2_write(h, size, s->sample_type, &r, &id);
	if (s->on_record)
		s->on_record(s->on_record_arg, h);
	s->st.maps++;
	return 0;
}

static int on_tid(int tid, void *arg)
{
	struct maps_ctx *c = arg;
	char comm[64];

	if (procfs_read_comm(c->pid, tid, comm, sizeof(comm)) < 0)
		return 0; /* the thread ended meanwhile */
	emit_comm(c->s, c->pid, tid, comm);
	c->s->st.threads++;
	return 0;
}

int synth_process(struct synth *s, pid_t pid)
{
	struct maps_ctx c = { s, pid };
	int tgid = 0, r;

	/* perf users pass thread ids (top -H): the records name the process, as samples do. */
	if (procfs_read_status(pid, &tgid, NULL) == 0 && tgid > 0)
		c.pid = tgid;
	pid = c.pid;
	r = procfs_for_each_tid(pid, on_tid, &c);
	if (r < 0) {
		s->st.vanished++;
		return -ESRCH;
	}
	r = procfs_read_maps(pid, on_map, &c, NULL);
	if (r == -ENOENT || r == -ESRCH)
		s->st.vanished++;
	else if (r < 0)
		s->st.unreadable++;
	s->st.processes++;
	return 0;
}

static int on_pid(int pid, void *arg)
{
	struct synth *s = arg;

	synth_process(s, pid);
	if (s->tick)
		s->tick(s->tick_arg);
	return 0;
}

int synth_all(struct synth *s)
{
	return procfs_for_each_pid(on_pid, s);
}

struct tree {
	struct synth *s;
	pid_t root;
};

/* Whether pid is root or one of its descendants, following parents up (a bounded walk: a
 * process may exit and its pid be reused while we read). */
static bool descends_from(int pid, pid_t root)
{
	for (int depth = 0; depth < 64 && pid > 1; depth++) {
		int ppid;

		if (pid == root)
			return true;
		if (procfs_read_status(pid, NULL, &ppid) < 0)
			return false;
		pid = ppid;
	}
	return pid == root;
}

static int on_tree_pid(int pid, void *arg)
{
	struct tree *t = arg;

	if (!descends_from(pid, t->root))
		return 0;
	return on_pid(pid, t->s);
}

int synth_tree(struct synth *s, pid_t root)
{
	struct tree t = { s, root };

	return procfs_for_each_pid(on_tree_pid, &t);
}
