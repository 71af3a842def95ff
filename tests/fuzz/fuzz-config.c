/* fuzz-config.c — fuzz target: ringprofd's config file parser and value parsers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	struct conf c, c0;
	char path[64], err[512], buf[64], *s;
	uint64_t u;
	bool b;
	int fd;

	if (!null)
		null = fopen("/dev/null", "w");
	fd = fuzz_memfile(data, size, path, sizeof(path));
	if (fd >= 0) {
		conf_init(&c0);
		if (conf_load(path, true, NULL, &c, err, sizeof(err)) == 0) {
			conf_print(&c, null);
			conf_recording_differs(&c, &c0);
			conf_format_size(&c.max_use, buf, sizeof(buf));
			conf_format_size(&c.keep_free, buf, sizeof(buf));
			conf_format_duration(c.max_file_ns, buf, sizeof(buf));
			conf_size_resolve(&c.max_use, (uint64_t)1 << 40);
			conf_size_resolve(&c.keep_free, UINT64_MAX);
		}
		close(fd);
	}

	/* The input as one value of each kind, and as KEY=VALUE for conf_set. */
	s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0;
	if (conf_parse_size(s, &u) == 0)
		conf_format_size(&(struct conf_size){ .bytes = u }, buf, sizeof(buf));
	if (conf_parse_duration(s, &u) == 0)
		conf_format_duration(u, buf, sizeof(buf));
	conf_parse_bool(s, &b);
	char *eq = strchr(s, '=');

	if (eq) {
		*eq = 0;
		conf_init(&c);
		conf_set(&c, s, eq + 1, err, sizeof(err));
		conf_print(&c, null);
	}
	free(s);
	return 0;
}
