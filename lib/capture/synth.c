/* synth.c — start-up synthesis: the /proc state of running processes turned into records. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/buildid.h"
#include "base/grow.h"
#include "base/procfs.h"
#include "capture/synth.h"
#include "format/format.h"
#include "format/perfrec.h"
#include "format/writer.h"

/* Build-ids looked up during one synthesis, by device and inode. */
struct synth_bid {
	uint32_t maj, min;
	uint64_t ino;
	uint8_t len; /* 0: the file has none or could not be read */
	uint8_t id[20];
};

void synth_init(struct synth *s, struct writer *w, uint64_t sample_type, uint64_t time)
{
	memset(s, 0, sizeof(*s));
	s->w = w;
	s->sample_type = sample_type;
	s->time = time;
}

void synth_done(struct synth *s)
{
	free(s->cache);
	s->cache = NULL;
	s->n_cache = s->cap_cache = 0;
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

static const struct synth_bid *lookup_bid(struct synth *s, pid_t pid, const struct procfs_map *m)
{
	struct synth_bid *b;
	char path[4200];
	size_t len = 0;
	int r;

	for (size_t i = 0; i < s->n_cache; i++) {
		b = &s->cache[i];
		if (b->ino == m->ino && b->maj == m->maj && b->min == m->min)
			return b;
	}
	if (GROW(s->cache, s->cap_cache, s->n_cache + 1) < 0)
		return NULL;
	b = &s->cache[s->n_cache++];
	memset(b, 0, sizeof(*b));
	b->maj = m->maj;
	b->min = m->min;
	b->ino = m->ino;
	/* Through the process's root, so files in other mount namespaces resolve. */
	snprintf(path, sizeof(path), "/proc/%d/root%s", (int)pid, m->path);
	r = buildid_read_path(path, b->id, sizeof(b->id), &len);
	if (r == 0 && len <= sizeof(b->id))
		b->len = (uint8_t)len;
	return b;
}

struct maps_ctx {
	struct synth *s;
	pid_t pid;
};

static int on_map(const struct procfs_map *m, void *arg)
{
	struct maps_ctx *c = arg;
	struct synth *s = c->s;
	const struct synth_bid *b = NULL;
	struct perfrec_id id = { (uint32_t)c->pid, (uint32_t)c->pid, s->time, RP_CPU_SYNTH };
	struct perfrec_mmap r = { PERF_RECORD_MISC_USER,
				  (uint32_t)c->pid,
				  (uint32_t)c->pid,
				  m->start,
				  m->end - m->start,
				  m->pgoff,
				  NULL,
				  0,
				  m->maj,
				  m->min,
				  m->ino,
				  m->prot,
				  m->flags,
				  m->path };
	size_t size;
	void *h;

	if (!(m->prot & PROT_EXEC) || strlen(m->path) > 4096)
		return 0;
	if (m->path[0] == '/' && m->ino && !m->deleted)
		b = lookup_bid(s, c->pid, m);
	if (b && b->len) {
		r.misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
		r.build_id = b->id;
		r.build_id_len = b->len;
	}
	size = perfrec_mmap2_size(s->sample_type, m->path);
	h = size <= 65535 ? writer_reserve(s->w, size) : NULL;
	if (!h)
		return 0;
	perfrec_mmap2_write(h, size, s->sample_type, &r, &id);
	if (s->on_record)
		s->on_record(s->on_record_arg, h);
	s->st.build_ids += b && b->len;
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
