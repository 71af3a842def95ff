/* evsel.c — the events ringprof can sample on and the raw perf_event_open call. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>

#include "base/util.h"
#include "capture/evsel.h"
#include "capture/tracefs.h"

static const struct evsel_def table[] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "CPU cycles (hardware PMU)" },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
	  "retired instructions (hardware PMU)" },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES,
	  "cache accesses (hardware PMU)" },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES,
	  "cache misses (hardware PMU)" },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
	  "branch instructions (hardware PMU)" },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES,
	  "mispredicted branches (hardware PMU)" },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES, "bus cycles (hardware PMU)" },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES,
	  "reference cycles (hardware PMU)" },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK,
	  "per-CPU high-resolution timer (software)" },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "per-task clock (software)" },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "page faults (software)" },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES,
	  "context switches (software)" },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS,
	  "CPU migrations (software)" },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN,
	  "minor page faults (software)" },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ,
	  "major page faults (software)" },
	{ NULL, 0, 0, NULL },
};

static const struct {
	const char *alias, *name;
} aliases[] = {
	{ "cpu-cycles", "cycles" },
	{ "faults", "page-faults" },
	{ "cs", "context-switches" },
	{ "migrations", "cpu-migrations" },
	{ "branch-instructions", "branches" },
};

int evsel_lookup(const char *name, struct evsel_def *ret)
{
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (strcmp(name, aliases[i].alias) == 0)
			name = aliases[i].name;
	for (const struct evsel_def *d = table; d->name; d++) {
		if (strcmp(d->name, name) == 0) {
			*ret = *d;
			return 0;
		}
	}
	return -ENOENT;
}

const struct evsel_def *evsel_table(void)
{
	return table;
}

int evsel_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd)
{
	long fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : (int)fd;
}

int evsel_is_unsupported(int err)
{
	return err == -ENOENT || err == -ENODEV || err == -ENXIO || err == -EOPNOTSUPP;
}

/* MODS of spec into ret: 0, or -errno with why. */
static int parse_mods(const char *spec, const char *mods, struct evsel_spec *ret, char *why,
		      size_t why_size)
{
	bool u = false, k = false;

	for (const char *m = mods; *m; m++) {
		switch (*m) {
		case 'u':
			u = true;
			break;
		case 'k':
			k = true;
			break;
		case 'p':
			if (ret->type != PERF_TYPE_HARDWARE) {
				snprintf(why, why_size,
					 "':%s' in '%s' asks for precise sampling, which needs a hardware "
					 "PMU event; drop the modifier",
					 mods, spec);
				return -EOPNOTSUPP;
			}
			if (ret->precise_ip < 3)
				ret->precise_ip++;
			break;
		default:
			snprintf(why, why_size,
				 "unknown modifier '%c' in '%s' (ringprof knows u: user space only, k: "
				 "kernel only, p: precise, hardware events)",
				 *m, spec);
			return -EINVAL;
		}
	}
	if (!*mods) {
		snprintf(why, why_size, "empty modifier in '%s' (e.g. %.*s:u)", spec,
			 (int)(mods - spec - 1), spec);
		return -EINVAL;
	}
	if (u || k) {
		ret->exclude_user = !u;
		ret->exclude_kernel = !k;
	}
	if (ret->type == PERF_TYPE_TRACEPOINT && ret->exclude_kernel) {
		snprintf(why, why_size,
			 "tracepoints fire in the kernel: ':%s' in '%s' would drop every sample",
			 mods, spec);
		return -EINVAL;
	}
	return 0;
}

/* SYSTEM:TRACEPOINT into ret: 0, or -errno with why. */
static int parse_tracepoint(const char *sys, const char *name, struct evsel_spec *ret, char *why,
			    size_t why_size)
{
	uint64_t id;
	int rc = tracefs_event_id(sys, name, &id, why, why_size);

	if (rc < 0)
		return rc;
	ret->type = PERF_TYPE_TRACEPOINT;
	ret->config = id;
	return 0;
}

int evsel_parse(const char *spec, struct evsel_spec *ret, char *why, size_t why_size)
{
	char buf[EVSEL_MAX_SPEC + 1], *part[4] = { buf, NULL, NULL, NULL };
	char name[2 * EVSEL_MAX_SPEC + 4];
	const char *mods = NULL;
	struct evsel_spec s = { .type = PERF_TYPE_SOFTWARE };
	struct evsel_def d;
	size_t n = 1;
	int rc;

	if (strlen(spec) > EVSEL_MAX_SPEC) {
		snprintf(why, why_size, "event name too long: '%.40s...'", spec);
		return -EINVAL;
	}
	util_strlcpy(buf, spec, sizeof(buf));
	for (char *c = buf; *c && n < 4; c++)
		if (*c == ':') {
			*c = '\0';
			part[n++] = c + 1;
		}
	if (evsel_lookup(part[0], &d) == 0 && n <= 2) {
		s.type = d.type;
		s.config = d.config;
		mods = part[1];
		util_strlcpy(name, d.name, sizeof(name));
	} else if (n == 1) {
		snprintf(why, why_size,
			 "unknown event '%s' (see ringprof record --list-events; tracepoints are "
			 "spelt SYSTEM:EVENT)",
			 spec);
		return -ENOENT;
	} else if (n <= 3) {
		rc = parse_tracepoint(part[0], part[1], &s, why, why_size);
		if (rc < 0)
			return rc;
		mods = part[2];
		snprintf(name, sizeof(name), "%s:%s", part[0], part[1]);
	} else {
		snprintf(why, why_size, "'%s' is not an event (NAME[:MODIFIERS] or SYSTEM:EVENT)",
			 spec);
		return -EINVAL;
	}
	if (mods) {
		rc = parse_mods(spec, mods, &s, why, why_size);
		if (rc < 0)
			return rc;
	}
	if (mods)
		snprintf(name + strlen(name), sizeof(name) - strlen(name), ":%s", mods);
	if (strlen(name) >= sizeof(s.name)) {
		snprintf(why, why_size, "event name too long: '%.40s...' (at most %zu characters)",
			 spec, sizeof(s.name) - 1);
		return -EINVAL;
	}
	util_strlcpy(s.name, name, sizeof(s.name));
	*ret = s;
	return 0;
}

int evsel_probe(const struct evsel_def *d)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = d->type;
	a.config = d->config;
	a.disabled = 1;
	a.exclude_kernel = 1; /* allowed at every perf_event_paranoid level but 3 */
	a.exclude_hv = 1;
	fd = evsel_open(&a, 0, -1, -1);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}
