/* conf.h — ringprofd's configuration: defaults, the config file and its drop-ins, overrides. */
#ifndef RP_DAEMON_CONF_H
#define RP_DAEMON_CONF_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CONF_DEFAULT_DIRECTORY "/var/lib/ringprof"
#define CONF_DEFAULT_CACHE "/var/cache/ringprof"

/* A disk budget: absolute bytes, or a percentage of the file system's size with an optional
 * cap (journald's defaults: 10% and 15%, at most 4G). */
struct conf_size {
	uint64_t bytes;
	double percent; /* > 0: percent of the file system instead of bytes */
	uint64_t cap;	/* with percent: at most this many bytes; 0: no cap */
	bool infinity;
};

struct conf {
	char directory[PATH_MAX];
	/* Recording settings: changing one on reload restarts the recorder into a new file. */
	char event[256];    /* "": cycles, or cpu-clock without a hardware PMU; else
			     * record -e spellings, a comma list for several */
	uint64_t frequency; /* Hz per CPU */
	bool callchain;
	uint64_t stack_size; /* user stack bytes copied and unwound per sample; 0: frame pointers */
	char unwind_cache[PATH_MAX]; /* where unwind tables are kept; "": nowhere */
	uint64_t unwind_memory;	     /* bytes of unwind tables in memory at most */
	bool symbols;		     /* capture function symbols (into directory/symbols) */
	bool switch_events;
	bool off_cpu;	   /* switch-outs sampled with their stacks, and context switches */
	bool buildid_mmap; /* the kernel writes build-ids into MMAP2 (breaks other perf users) */
	unsigned int ring_pages; /* per CPU, a power of two */
	char cpus[256];		 /* "": every online CPU */
	uint64_t flush_ns;
	/* Storage: applied on reload without a restart. */
	int compression;
	uint64_t max_file_size;
	uint64_t max_file_ns; /* 0: no age limit */
	struct conf_size max_use;
	struct conf_size keep_free;
	uint64_t max_retention_ns; /* 0: no age limit */
	uint64_t symbols_max_use;  /* bytes of captured symbol tables kept */
	int log_level;
};

/* Command-line settings, applied after the files on every load. */
struct conf_override {
	const char *key;
	const char *value;
};

struct conf_overrides {
	struct conf_override v[64];
	size_t n;
};

/* Everything at its default; the directory from $STATE_DIRECTORY (the first one) when set. */
void conf_init(struct conf *c);

/* Set KEY to VALUE (an empty VALUE restores the default). 0, or -EINVAL / -ENOENT (unknown
 * key) with a reason in why. */
int conf_set(struct conf *c, const char *key, const char *value, char *why, size_t why_size);

/* Defaults, then PATH (missing is fine unless required), then PATH.d/ *.conf in lexical
 * order, then the overrides. On failure *ret is untouched and why says "FILE:LINE: ...". */
int conf_load(const char *path, bool required, const struct conf_overrides *o, struct conf *ret,
	      char *why, size_t why_size);

/* conf_load() going on past errors, for --check-config: each error written to ERRORS as
 * "ringprofd: FILE:LINE: ...", its line ignored; *ret the configuration of the other lines.
 * The number of errors. */
unsigned int conf_check(const char *path, bool required, const struct conf_overrides *o,
			struct conf *ret, FILE *errors);

/* The files conf_load read, for messages: "PATH, PATH.d/10-x.conf". */
const char *conf_sources(void);

/* Write the effective configuration in the config file's syntax. */
void conf_print(const struct conf *c, FILE *f);

/* Whether a and b record differently (the recorder must be restarted). */
bool conf_recording_differs(const struct conf *a, const struct conf *b);

/* The bytes a budget means on a file system of fs_bytes. */
uint64_t conf_size_resolve(const struct conf_size *s, uint64_t fs_bytes);
/* "1.5G", "10%", "infinity" into buf. */
const char *conf_format_size(const struct conf_size *s, char *buf, size_t size);
/* "1h", "30min", "0.2s" into buf. */
const char *conf_format_duration(uint64_t ns, char *buf, size_t size);

/* Value parsers, exported for the command line and the tests. 0 or -EINVAL / -ERANGE. */
int conf_parse_size(const char *s, uint64_t *ret);
int conf_parse_duration(const char *s, uint64_t *ret_ns);
int conf_parse_bool(const char *s, bool *ret);

#endif
