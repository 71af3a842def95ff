/* host.c — for tests/record-dlopen.sh: for SECONDS, dlopen each plugin given, call its
 * plugin_work 20 times, dlclose it: the next one is mapped where the last one was. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#define NOI __attribute__((noipa))
static double now_s(void) { struct timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts); return ts.tv_sec + ts.tv_nsec / 1e9; }
NOI static uint64_t call_plugin(const char *path, uint64_t x)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	uint64_t (*f)(uint64_t);
	if (!h) { fprintf(stderr, "%s\n", dlerror()); exit(1); }
	f = (uint64_t (*)(uint64_t))dlsym(h, "plugin_work");
	for (int i = 0; i < 20; i++) x = f(x);
	dlclose(h);
	return x;
}
int main(int argc, char **argv)
{
	double end = now_s() + atof(argv[1]);
	uint64_t x = 1; unsigned long n = 0;
	do { for (int i = 2; i < argc; i++) x = call_plugin(argv[i], x); n++; } while (now_s() < end);
	printf("rounds %lu %llu\n", n, (unsigned long long)x);
	return 0;
}
