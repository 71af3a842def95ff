/* driver.c — runs a fuzz target over every file in the directories (or files) given, so that
 * builds without libFuzzer replay the corpus as a regression test. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	for (;;) {
		if (len == cap) {
			unsigned char *b = realloc(buf, cap ? cap * 2 : 65536);

			if (!b) {
				fprintf(stderr, "%s: out of memory\n", path);
				fclose(f);
				free(buf);
				return -1;
			}
			buf = b;
			cap = cap ? cap * 2 : 65536;
		}
		n = fread(buf + len, 1, cap - len, f);
		if (!n)
			break;
		len += n;
	}
	fclose(f);
	/* An exact-size copy, so that reads past the end stand out under ASan or valgrind. */
	unsigned char *in = malloc(len ? len : 1);

	if (!in) {
		free(buf);
		return -1;
	}
	memcpy(in, buf, len);
	free(buf);
	LLVMFuzzerTestOneInput(in, len);
	free(in);
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	size_t n_run = 0;
	int failed = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;
		struct dirent **ents;
		int n;

		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
			failed = 1;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			failed |= run_file(argv[i]) < 0;
			n_run++;
			continue;
		}
		n = scandir(argv[i], &ents, NULL, NULL);
		if (n < 0) {
			fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
			failed = 1;
			continue;
		}
		qsort(ents, (size_t)n, sizeof(*ents), cmp_name);
		for (int j = 0; j < n; j++) {
			char path[4096];

			snprintf(path, sizeof(path), "%s/%s", argv[i], ents[j]->d_name);
			if (ents[j]->d_name[0] != '.' && stat(path, &st) == 0 &&
			    S_ISREG(st.st_mode)) {
				failed |= run_file(path) < 0;
				n_run++;
			}
			free(ents[j]);
		}
		free(ents);
	}
	printf("%zu inputs run\n", n_run);
	return failed;
}
