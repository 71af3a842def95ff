/* conf.c — ringprofd's configuration: defaults, the config file and its drop-ins, overrides. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf.h"
#include "base/cpulist.h"
#include "capture/evset.h"
#include "format/format.h"
#include "log.h"
#include "base/util.h"

#define MAX_LINE 4096
#define GIB (1024ull * 1024 * 1024)

static char sources[4096];
/* conf_check(): where every error goes, and how many there were; NULL: stop at the first. */
static FILE *errors_to;
static unsigned int n_errors;

/* An error of a file or of the command line: said and counted when checking (0: go on),
 * else the error R itself. */
static int conf_error(int r, const char *why)
{
	if (!errors_to)
		return r;
	fprintf(errors_to, "ringprofd: %s\n", why);
	n_errors++;
	return 0;
}

enum kind {
	K_DIR,
	K_CACHE,
	K_EVENT,
	K_FREQ,
	K_BOOL,
	K_PAGES,
	K_CPUS,
	K_DURATION,
	K_LEVEL,
	K_SIZE,
	K_BUDGET,
	K_LOG
};

struct key {
	const char *name;
	enum kind kind;
	size_t off;
	const char *dflt;
	uint64_t lo, hi; /* bounds for numbers, sizes and durations (ns); hi 0: none */
};

#define F(m) offsetof(struct conf, m)
#define SEC NSEC_PER_SEC

static const struct key keys[] = {
	{ "Directory", K_DIR, F(directory), "", 0, 0 },
	{ "Event", K_EVENT, F(event), "", 0, 0 },
	{ "Frequency", K_FREQ, F(frequency), "49", 1, 100000 },
	{ "CallChain", K_BOOL, F(callchain), "yes", 0, 0 },
	{ "UserStackSize", K_SIZE, F(stack_size), "8K", 0, RP_STACK_USER_MAX },
	{ "UnwindCache", K_CACHE, F(unwind_cache), "", 0, 0 },
	{ "UnwindMemory", K_SIZE, F(unwind_memory), "64M", 1024 * 1024, 0 },
	{ "CaptureSymbols", K_BOOL, F(symbols), "yes", 0, 0 },
	{ "SwitchEvents", K_BOOL, F(switch_events), "no", 0, 0 },
	{ "OffCpu", K_BOOL, F(off_cpu), "no", 0, 0 },
	{ "BuildIdMmap", K_BOOL, F(buildid_mmap), "no", 0, 0 },
	{ "RingPages", K_PAGES, F(ring_pages), "128", 1, 65536 },
	{ "CPUs", K_CPUS, F(cpus), "", 0, 0 },
	{ "FlushInterval", K_DURATION, F(flush_ns), "1s", SEC / 100, 3600 * SEC },
	{ "Compression", K_LEVEL, F(compression), "6", 1, 19 },
	{ "MaxFileSize", K_SIZE, F(max_file_size), "64M", 64 * 1024, 0 },
	{ "MaxFileSec", K_DURATION, F(max_file_ns), "1h", 0, 0 },
	{ "MaxUse", K_BUDGET, F(max_use), "", 0, 0 },
	{ "KeepFree", K_BUDGET, F(keep_free), "", 0, 0 },
	{ "MaxRetentionSec", K_DURATION, F(max_retention_ns), "0", 0, 0 },
	{ "SymbolsMaxUse", K_SIZE, F(symbols_max_use), "256M", 0, 0 },
	{ "LogLevel", K_LOG, F(log_level), "info", 0, 0 },
	{ NULL, 0, 0, NULL, 0, 0 },
};

static const struct key *key_find(const char *name)
{
	for (const struct key *k = keys; k->name; k++)
		if (!strcasecmp(k->name, name))
			return k;
	return NULL;
}

int conf_parse_bool(const char *s, bool *ret)
{
	static const char *const yes[] = { "1", "yes", "y", "true", "on" };
	static const char *const no[] = { "0", "no", "n", "false", "off" };

	for (size_t i = 0; i < 5; i++) {
		if (!strcasecmp(s, yes[i])) {
			*ret = true;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*ret = false;
			return 0;
		}
	}
	return -EINVAL;
}

struct unit {
	const char *suffix;
	double mult;
};

/* A number times the multiplier of its unit suffix, matched exactly, as systemd does for
 * durations (sizes ignore case: util_parse_size). */
static int parse_unit(const char *s, const struct unit *units, size_t n_units, uint64_t *ret)
{
	const char *unit;
	double v;

	if (util_parse_decimal(s, &v, &unit) < 0)
		return -EINVAL;
	for (size_t i = 0; i < n_units; i++) {
		if (!strcmp(unit, units[i].suffix)) {
			double x = v * units[i].mult;

			if (x >= 1.8e19)
				return -ERANGE;
			*ret = (uint64_t)(x + 0.5);
			return 0;
		}
	}
	return -EINVAL;
}

int conf_parse_size(const char *s, uint64_t *ret)
{
	return util_parse_size(s, ret); /* the same sizes as ringprof record's --max-size */
}

int conf_parse_duration(const char *s, uint64_t *ret_ns)
{
	static const struct unit units[] = {
		{ "", 1e9 },	    { "s", 1e9 },	  { "sec", 1e9 },
		{ "second", 1e9 },  { "seconds", 1e9 },	  { "ms", 1e6 },
		{ "msec", 1e6 },    { "m", 60e9 },	  { "min", 60e9 },
		{ "minute", 60e9 }, { "minutes", 60e9 },  { "h", 3600e9 },
		{ "hr", 3600e9 },   { "hour", 3600e9 },	  { "hours", 3600e9 },
		{ "d", 86400e9 },   { "day", 86400e9 },	  { "days", 86400e9 },
		{ "w", 604800e9 },  { "week", 604800e9 }, { "weeks", 604800e9 },
	};

	return parse_unit(s, units, sizeof(units) / sizeof(units[0]), ret_ns);
}

/* "10%" or a size; "infinity" for no limit. */
static int parse_budget(const char *s, struct conf_size *ret)
{
	struct conf_size b = { 0 };
	const char *unit;
	double v;

	if (!strcasecmp(s, "infinity")) {
		b.infinity = true;
	} else if (util_parse_decimal(s, &v, &unit) == 0 && !strcmp(unit, "%")) {
		if (v <= 0 || v > 100)
			return -ERANGE;
		b.percent = v;
	} else if (conf_parse_size(s, &b.bytes) < 0) {
		return -EINVAL;
	}
	*ret = b;
	return 0;
}

const char *conf_format_size(const struct conf_size *s, char *buf, size_t size)
{
	static const char units[] = "BKMGT";
	uint64_t v;
	int u = 0;

	if (s->infinity) {
		snprintf(buf, size, "infinity");
		return buf;
	}
	if (s->percent > 0) {
		snprintf(buf, size, "%g%%", s->percent);
		return buf;
	}
	v = s->bytes;
	while (u < 4 && v && v % 1024 == 0) {
		v /= 1024;
		u++;
	}
	if (u)
		snprintf(buf, size, "%llu%c", (unsigned long long)v, units[u]);
	else
		snprintf(buf, size, "%llu", (unsigned long long)v);
	return buf;
}

const char *conf_format_duration(uint64_t ns, char *buf, size_t size)
{
	static const struct {
		const char *suffix;
		uint64_t mult;
	} units[] = {
		{ "w", 604800 * SEC }, { "d", 86400 * SEC }, { "h", 3600 * SEC },
		{ "min", 60 * SEC },   { "s", SEC },	     { "ms", 1000000 },
	};

	if (ns == 0) {
		snprintf(buf, size, "0");
		return buf;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (ns % units[i].mult == 0) {
			snprintf(buf, size, "%llu%s", (unsigned long long)(ns / units[i].mult),
				 units[i].suffix);
			return buf;
		}
	}
	snprintf(buf, size, "%gs", (double)ns / 1e9);
	return buf;
}

uint64_t conf_size_resolve(const struct conf_size *s, uint64_t fs_bytes)
{
	uint64_t v;
	double d;

	if (s->infinity)
		return UINT64_MAX;
	if (s->percent <= 0)
		return s->bytes;
	d = (double)fs_bytes * s->percent / 100.0;
	/* A percentage that resolves beyond what 64 bits hold is no limit (found by fuzz-config:
	 * the cast alone is undefined there). */
	v = d >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)d;
	return s->cap && v > s->cap ? s->cap : v;
}

/* The first of the directories systemd names in the environment variable var, else dflt. */
static void unit_directory(const char *var, const char *dflt, char *buf, size_t size)
{
	const char *sd = getenv(var);
	size_t n;

	if (!sd || sd[0] != '/') {
		util_strlcpy(buf, dflt, size);
		return;
	}
	/* systemd lists several directories separated by ':' when the unit names several. */
	n = strcspn(sd, ":");
	if (n >= size)
		n = size - 1;
	memcpy(buf, sd, n);
	buf[n] = '\0';
}

/* Event=: empty, or events as record -e spells them (NAME, NAME:u, SYSTEM:TRACEPOINT, a comma
 * list for several). */
static int set_event(struct conf *c, const struct key *k, const char *v, char *why, size_t why_size)
{
	if (*v) {
		struct evset_event evs[EVSET_MAX_EVENTS];
		size_t n;
		int rc;

		if (strlen(v) >= sizeof(c->event)) {
			snprintf(why, why_size, "too long (at most %zu characters)",
				 sizeof(c->event) - 1);
			return -EINVAL;
		}
		rc = evset_parse_events(v, evs, &n, why, why_size);
		if (rc < 0)
			return rc;
	}
	util_strlcpy((char *)c + k->off, v, sizeof(c->event));
	return 0;
}

/* CPUs=: empty (every online CPU), or a list cpulist_parse() takes. */
static int set_cpus(struct conf *c, const struct key *k, const char *v, char *why, size_t why_size)
{
	if (*v) {
		static int cpus[RP_MAX_CPUS];
		size_t n;

		if (strlen(v) >= sizeof(c->cpus) || cpulist_parse(v, cpus, RP_MAX_CPUS, &n) < 0 ||
		    !n) {
			snprintf(why, why_size, "expected a CPU list such as 0-3,6");
			return -EINVAL;
		}
	}
	util_strlcpy((char *)c + k->off, v, sizeof(c->cpus));
	return 0;
}

/* A duration within the key's bounds; 0 is "no limit" unless the key has a lower bound. */
static int set_duration(struct conf *c, const struct key *k, const char *v, char *why,
			size_t why_size)
{
	uint64_t u;

	if (conf_parse_duration(v, &u) < 0 || (u && u < k->lo) || (k->lo && !u) ||
	    (k->hi && u > k->hi)) {
		char a[32], z[32];

		if (k->lo && k->hi)
			snprintf(why, why_size,
				 "expected a duration from %s to %s, e.g. 1s or 500ms",
				 conf_format_duration(k->lo, a, sizeof(a)),
				 conf_format_duration(k->hi, z, sizeof(z)));
		else
			snprintf(why, why_size,
				 "expected a duration such as 30s, 15min, 1h or 7d (0: no limit)");
		return -EINVAL;
	}
	*(uint64_t *)((char *)c + k->off) = u;
	return 0;
}

/* MaxUse= and KeepFree=: empty for the default, a size, a percentage or infinity. */
static int set_budget(struct conf *c, const struct key *k, const char *v, char *why, size_t why_size)
{
	struct conf_size *p = (struct conf_size *)((char *)c + k->off);

	if (!*v) {
		/* journald's defaults: MaxUse 10%, KeepFree 15% of the file system, both at
		 * most 4G. */
		*p = (struct conf_size){
			.percent = k->off == F(max_use) ? 10 : 15,
			.cap = 4 * GIB,
		};
		return 0;
	}
	if (parse_budget(v, p) < 0) {
		snprintf(why, why_size,
			 "expected a size such as 500M or 4G, a percentage of the file system "
			 "such as 10%%, or infinity");
		return -EINVAL;
	}
	return 0;
}

/* Check v as the key's kind wants and store it at the key's offset. */
static int set_key(struct conf *c, const struct key *k, const char *v, char *why, size_t why_size)
{
	void *p = (char *)c + k->off;
	uint64_t u;
	bool b;

	switch (k->kind) {
	case K_CACHE:
		if (!*v) {
			unit_directory("CACHE_DIRECTORY", CONF_DEFAULT_CACHE, p,
				       sizeof(c->unwind_cache));
			return 0;
		}
		if (strcasecmp(v, "no") == 0) {
			*(char *)p = '\0';
			return 0;
		}
		__attribute__((fallthrough)); /* a path */
	case K_DIR:
		if (!*v) {
			unit_directory("STATE_DIRECTORY", CONF_DEFAULT_DIRECTORY, p,
				       sizeof(c->directory));
			return 0;
		}
		if (v[0] != '/' || strlen(v) >= sizeof(c->directory)) {
			snprintf(why, why_size, "expected an absolute path");
			return -EINVAL;
		}
		util_strlcpy(p, v, sizeof(c->directory));
		return 0;
	case K_EVENT:
		return set_event(c, k, v, why, why_size);
	case K_FREQ:
	case K_LEVEL:
		if (util_parse_u64(v, &u) < 0 || u < k->lo || u > k->hi) {
			snprintf(why, why_size, "expected %s from %llu to %llu",
				 k->kind == K_FREQ ? "a frequency in Hz" : "a zstd level",
				 (unsigned long long)k->lo, (unsigned long long)k->hi);
			return -EINVAL;
		}
		if (k->kind == K_FREQ)
			*(uint64_t *)p = u;
		else
			*(int *)p = (int)u;
		return 0;
	case K_BOOL:
		if (conf_parse_bool(v, &b) < 0) {
			snprintf(why, why_size, "expected yes or no");
			return -EINVAL;
		}
		*(bool *)p = b;
		return 0;
	case K_PAGES:
		if (util_parse_u64(v, &u) < 0 || u < k->lo || u > k->hi || (u & (u - 1))) {
			snprintf(why, why_size, "expected a power of two from %llu to %llu",
				 (unsigned long long)k->lo, (unsigned long long)k->hi);
			return -EINVAL;
		}
		*(unsigned int *)p = (unsigned int)u;
		return 0;
	case K_CPUS:
		return set_cpus(c, k, v, why, why_size);
	case K_DURATION:
		return set_duration(c, k, v, why, why_size);
	case K_SIZE:
		if (conf_parse_size(v, &u) < 0 || u < k->lo || (k->hi && u > k->hi)) {
			if (k->hi)
				snprintf(why, why_size,
					 "expected a size of at most %llu bytes, e.g. 8K",
					 (unsigned long long)k->hi);
			else
				snprintf(why, why_size,
					 "expected a size of at least %lluK, e.g. 64M or 1G",
					 (unsigned long long)k->lo / 1024);
			return -EINVAL;
		}
		*(uint64_t *)p = u;
		return 0;
	case K_BUDGET:
		return set_budget(c, k, v, why, why_size);
	case K_LOG: {
		int l = log_parse_level(v);

		if (l < LOG_ERR) {
			snprintf(why, why_size, "expected err, warning, notice, info or debug");
			return -EINVAL;
		}
		*(int *)p = l;
		return 0;
	}
	}
	return -EINVAL;
}

int conf_set(struct conf *c, const char *key, const char *value, char *why, size_t why_size)
{
	const struct key *k = key_find(key);
	char reason[512];
	int r;

	if (!k) {
		snprintf(why, why_size, "unknown setting '%s'", key);
		return -ENOENT;
	}
	r = set_key(c, k, *value ? value : k->dflt, reason, sizeof(reason));
	if (r < 0)
		snprintf(why, why_size, "%s=%s: %s", k->name, value, reason);
	return r;
}

void conf_init(struct conf *c)
{
	char why[512];

	memset(c, 0, sizeof(*c));
	for (const struct key *k = keys; k->name; k++)
		set_key(c, k, k->dflt, why, sizeof(why));
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static void add_source(const char *path)
{
	size_t n = strlen(sources);

	snprintf(sources + n, sizeof(sources) - n, "%s%s", n ? ", " : "", path);
}

/* One file of KEY=VALUE lines; '#' and ';' start comment lines. */
static int load_file(struct conf *c, const char *path, bool required, char *why, size_t why_size)
{
	FILE *f = fopen(path, "re");
	char line[MAX_LINE + 2], reason[768];
	unsigned int lineno = 0;
	int r = 0;

	if (!f) {
		if (errno == ENOENT && !required)
			return 0;
		r = -errno;
		snprintf(why, why_size, "%s: cannot read: %s", path, strerror(errno));
		return conf_error(r, why);
	}
	add_source(path);
	while (fgets(line, sizeof(line), f)) {
		char *s, *eq;

		lineno++;
		if (strlen(line) > MAX_LINE) {
			snprintf(why, why_size, "%s:%u: line longer than %d characters", path,
				 lineno, MAX_LINE);
			r = conf_error(-EINVAL, why);
			while (!strchr(line, '\n') && fgets(line, sizeof(line), f))
				; /* the rest of the long line */
			if (r < 0)
				break;
			continue;
		}
		s = trim(line);
		if (!*s || *s == '#' || *s == ';')
			continue;
		eq = strchr(s, '=');
		if (!eq) {
			snprintf(why, why_size, "%s:%u: '%s': expected KEY=VALUE", path, lineno, s);
			r = conf_error(-EINVAL, why);
			if (r < 0)
				break;
			continue;
		}
		*eq = '\0';
		r = conf_set(c, trim(s), trim(eq + 1), reason, sizeof(reason));
		if (r < 0) {
			snprintf(why, why_size, "%s:%u: %s", path, lineno, reason);
			r = conf_error(r, why);
			if (r < 0)
				break;
		}
	}
	if (r == 0 && ferror(f)) {
		snprintf(why, why_size, "%s: read error", path);
		r = conf_error(-EIO, why);
	}
	fclose(f);
	return r;
}

static int conf_name_filter(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return d->d_name[0] != '.' && n > 5 && !strcmp(d->d_name + n - 5, ".conf");
}

static int name_cmp(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

int conf_load(const char *path, bool required, const struct conf_overrides *o, struct conf *ret,
	      char *why, size_t why_size)
{
	struct conf c;
	char dir[PATH_MAX], file[PATH_MAX + 256], reason[768];
	struct dirent **names = NULL;
	int n, r;

	sources[0] = '\0';
	conf_init(&c);
	r = load_file(&c, path, required, why, why_size);
	if (r < 0)
		return r;
	snprintf(dir, sizeof(dir), "%s.d", path);
	n = scandir(dir, &names, conf_name_filter, name_cmp);
	for (int i = 0; i < n; i++) {
		if (r == 0) {
			snprintf(file, sizeof(file), "%s/%s", dir, names[i]->d_name);
			r = load_file(&c, file, true, why, why_size);
		}
		free(names[i]);
	}
	free(names);
	if (r < 0)
		return r;
	for (size_t i = 0; o && i < o->n; i++) {
		r = conf_set(&c, o->v[i].key, o->v[i].value, reason, sizeof(reason));
		if (r < 0) {
			snprintf(why, why_size, "command line: %s", reason);
			r = conf_error(r, why);
			if (r < 0)
				return r;
		}
	}
	if (o && o->n)
		add_source("command line");
	*ret = c;
	return 0;
}

unsigned int conf_check(const char *path, bool required, const struct conf_overrides *o,
			struct conf *ret, FILE *errors)
{
	char why[1024];

	errors_to = errors;
	n_errors = 0;
	conf_load(path, required, o, ret, why, sizeof(why));
	errors_to = NULL;
	return n_errors;
}

const char *conf_sources(void)
{
	return sources[0] ? sources : "built-in defaults";
}

void conf_print(const struct conf *c, FILE *f)
{
	char a[64], b[64];

	fprintf(f, "# ringprofd: effective configuration (from %s)\n", conf_sources());
	fprintf(f, "Directory=%s\n", c->directory);
	fprintf(f, "Event=%s\n", c->event);
	fprintf(f, "Frequency=%llu\n", (unsigned long long)c->frequency);
	fprintf(f, "CallChain=%s\n", c->callchain ? "yes" : "no");
	fprintf(f, "UserStackSize=%llu\n", (unsigned long long)c->stack_size);
	fprintf(f, "UnwindCache=%s\n", c->unwind_cache[0] ? c->unwind_cache : "no");
	{
		struct conf_size s = { .bytes = c->unwind_memory };

		fprintf(f, "UnwindMemory=%s\n", conf_format_size(&s, a, sizeof(a)));
	}
	fprintf(f, "CaptureSymbols=%s\n", c->symbols ? "yes" : "no");
	fprintf(f, "SwitchEvents=%s\n", c->switch_events ? "yes" : "no");
	fprintf(f, "OffCpu=%s\n", c->off_cpu ? "yes" : "no");
	fprintf(f, "BuildIdMmap=%s\n", c->buildid_mmap ? "yes" : "no");
	fprintf(f, "RingPages=%u\n", c->ring_pages);
	fprintf(f, "CPUs=%s\n", c->cpus);
	fprintf(f, "FlushInterval=%s\n", conf_format_duration(c->flush_ns, a, sizeof(a)));
	fprintf(f, "Compression=%d\n", c->compression);
	{
		struct conf_size s = { .bytes = c->max_file_size };

		fprintf(f, "MaxFileSize=%s\n", conf_format_size(&s, a, sizeof(a)));
	}
	fprintf(f, "MaxFileSec=%s\n", conf_format_duration(c->max_file_ns, a, sizeof(a)));
	if (c->max_use.cap)
		fprintf(f, "# %s of the file system, at most %s\n",
			conf_format_size(&c->max_use, a, sizeof(a)),
			conf_format_size(&(struct conf_size){ .bytes = c->max_use.cap }, b,
					 sizeof(b)));
	fprintf(f, "MaxUse=%s\n", c->max_use.cap ? "" : conf_format_size(&c->max_use, a, sizeof(a)));
	if (c->keep_free.cap)
		fprintf(f, "# %s of the file system, at most %s\n",
			conf_format_size(&c->keep_free, a, sizeof(a)),
			conf_format_size(&(struct conf_size){ .bytes = c->keep_free.cap }, b,
					 sizeof(b)));
	fprintf(f, "KeepFree=%s\n",
		c->keep_free.cap ? "" : conf_format_size(&c->keep_free, a, sizeof(a)));
	fprintf(f, "MaxRetentionSec=%s\n", conf_format_duration(c->max_retention_ns, a, sizeof(a)));
	fprintf(f, "SymbolsMaxUse=%s\n",
		conf_format_size(&(struct conf_size){ .bytes = c->symbols_max_use }, a, sizeof(a)));
	fprintf(f, "LogLevel=%s\n", log_level_name(c->log_level));
}

bool conf_recording_differs(const struct conf *a, const struct conf *b)
{
	if (a->symbols != b->symbols)
		return true;
	return strcmp(a->event, b->event) || a->frequency != b->frequency ||
	       a->callchain != b->callchain || a->stack_size != b->stack_size ||
	       strcmp(a->unwind_cache, b->unwind_cache) || a->unwind_memory != b->unwind_memory ||
	       a->switch_events != b->switch_events || a->buildid_mmap != b->buildid_mmap ||
	       a->ring_pages != b->ring_pages || a->off_cpu != b->off_cpu ||
	       strcmp(a->cpus, b->cpus) || a->flush_ns != b->flush_ns;
}
