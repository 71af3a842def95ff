/* synth.c — start-up synthesis: the /proc state of running processes turned into records. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>

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
	h = size <= RP_RECORD_MAX ? writer_reserve(s->w, size) : NULL;
	if (!h)
		return 0;
	perfrec_mmap2_write(h, size, s->sample_type, &r, &id);
	if (s->on_record)
		s->on_record(s->on_record_arg, h);
	s->st.maps++;
	return 0;
}

#define CGROUP2_MAGIC 0x63677270 /* CGROUP2_SUPER_MAGIC */

/* Where the cgroup v2 hierarchy is mounted, or NULL. */
static const char *cgroup2_root(void)
{
	static const char *const roots[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified" };
	struct statfs fs;

	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++)
		if (statfs(roots[i], &fs) == 0 && (uint32_t)fs.f_type == CGROUP2_MAGIC)
			return roots[i];
	return NULL;
}

int synth_cgroup_id(const char *path, uint64_t *ret_id)
{
	struct {
		struct file_handle fh;
		uint64_t id;
	} h;
	struct stat st;
	int mount_id;

	h.fh.handle_bytes = sizeof(h.id);
	if (name_to_handle_at(AT_FDCWD, path, &h.fh, &mount_id, 0) == 0 &&
	    h.fh.handle_bytes == sizeof(h.id)) {
		memcpy(ret_id, h.fh.f_handle, sizeof(h.id));
		return 0;
	}
	if (stat(path, &st) < 0)
		return -errno;
	*ret_id = st.st_ino;
	return 0;
}

/* The cgroup at ROOT + REL (REL "" for the root itself, named "/"). */
static void emit_cgroup(struct synth *s, const char *root, const char *rel)
{
	struct perfrec_id id = { 0, 0, s->time, RP_CPU_SYNTH };
	struct perfrec_cgroup c;
	char path[PATH_MAX];
	size_t size;
	void *h;

	if (snprintf(path, sizeof(path), "%s%s", root, rel) >= (int)sizeof(path) ||
	    synth_cgroup_id(path, &c.id) < 0)
		return;
	c.path = *rel ? rel : "/";
	size = perfrec_cgroup_size(s->sample_type, c.path);
	if (size > RP_RECORD_MAX || !(h = writer_reserve(s->w, size)))
		return;
	perfrec_cgroup_write(h, size, s->sample_type, &c, &id);
	s->st.cgroups++;
}

/* ROOT + REL and the cgroups below it, depth first; REL is a buffer of PATH_MAX bytes. */
static void walk_cgroups(struct synth *s, const char *root, char *rel, int depth)
{
	size_t len = strlen(rel);
	struct dirent *d;
	char path[PATH_MAX];
	DIR *dir;

	emit_cgroup(s, root, rel);
	if (depth > 32 || snprintf(path, sizeof(path), "%s%s", root, rel) >= (int)sizeof(path) ||
	    !(dir = opendir(path)))
		return;
	while ((d = readdir(dir))) {
		if (d->d_type != DT_DIR || d->d_name[0] == '.')
			continue;
		if (len + 1 + strlen(d->d_name) >= PATH_MAX)
			continue;
		rel[len] = '/';
		strcpy(rel + len + 1, d->d_name);
		walk_cgroups(s, root, rel, depth + 1);
		rel[len] = '\0';
	}
	closedir(dir);
}

int synth_cgroups(struct synth *s)
{
	const char *root = cgroup2_root();
	char rel[PATH_MAX] = "";
	size_t before = s->st.cgroups;

	if (!root)
		return -ENOENT;
	walk_cgroups(s, root, rel, 0);
	return (int)(s->st.cgroups - before);
}

/* The process's cgroup v2 id from /proc/PID/cgroup ("0::/PATH"); 0 or -errno. */
static int read_task_cgroup(pid_t pid, uint64_t *ret_id)
{
	const char *root = cgroup2_root();
	char buf[4096], path[PATH_MAX], file[64];
	const char *line;
	char *nl;

	snprintf(file, sizeof(file), "/proc/%d/cgroup", (int)pid);
	if (!root || procfs_read_file(file, buf, sizeof(buf)) < 0)
		return -ENOENT;
	line = strncmp(buf, "0::", 3) == 0 ? buf : strstr(buf, "\n0::");
	if (!line)
		return -ENOENT;
	line += line == buf ? 3 : 4;
	if ((nl = strchr(line, '\n')))
		*nl = '\0';
	if (snprintf(path, sizeof(path), "%s%s", root, line) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	return synth_cgroup_id(path, ret_id);
}

static void emit_taskcg(struct synth *s, pid_t pid, pid_t tid)
{
	struct rp_taskcg_rec *rec;
	uint64_t id;

	if (read_task_cgroup(tid, &id) == 0 && (rec = writer_reserve(s->w, sizeof(*rec))))
		format_taskcg_put(rec, s->time, (uint32_t)pid, (uint32_t)tid, id);
}

static int on_tid(int tid, void *arg)
{
	struct maps_ctx *c = arg;
	char comm[64];

	if (procfs_read_comm(c->pid, tid, comm, sizeof(comm)) < 0)
		return 0; /* the thread ended meanwhile */
	emit_comm(c->s, c->pid, tid, comm);
	if (c->s->taskcg)
		emit_taskcg(c->s, c->pid, tid);
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
