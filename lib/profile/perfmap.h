/* perfmap.h — JIT symbol maps (/tmp/perf-PID.map) as written by V8, the JVM agents, LuaJIT... */
#ifndef RP_PERFMAP_H
#define RP_PERFMAP_H

#include <stddef.h>
#include <stdint.h>

/*
 * One loaded map file. Names live in one arena owned by the map; pointers handed out stay
 * valid until perfmap_free(). Not thread-safe.
 */
struct perfmap;

/*
 * Load PATH, one symbol per line: "START SIZE name", START and SIZE in hex (an optional 0x
 * is accepted), fields separated by blanks, the name running to the end of the line (it may
 * contain spaces; trailing blanks and CR are dropped). Lines that do not parse (bad numbers,
 * SIZE 0, START + SIZE overflowing, no name) are skipped. When entries overlap, the one
 * written later wins for the addresses it covers: JITs append a new entry when they reuse
 * memory for new code.
 * Returns 0 and *ret (possibly with no entries); -ENOENT when the file is absent; -ENOMEM;
 * -errno from open/read. *ret is untouched on failure.
 */
int perfmap_load(const char *path, struct perfmap **ret);

/* Frees M; accepts NULL; returns NULL. */
struct perfmap *perfmap_free(struct perfmap *m);

/* Number of entries loaded (bad lines not counted). */
size_t perfmap_count(const struct perfmap *m);

/* Number of lines skipped as unparsable. */
size_t perfmap_bad_lines(const struct perfmap *m);

/*
 * The entry covering ADDR (START <= ADDR < START + SIZE; the latest line among overlapping
 * ones): 0 with *ret_name and *ret_off (ADDR - START), or -ENOENT leaving them untouched.
 * Either out-parameter may be NULL. O(log n) when entries do not overlap.
 */
int perfmap_find(const struct perfmap *m, uint64_t addr, const char **ret_name, uint64_t *ret_off);

#endif
