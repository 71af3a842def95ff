/* rp-jit.c — a stand-in for a JIT: runs generated code from an anonymous executable mapping
 * and describes it in /tmp/perf-PID.map, as JIT runtimes do for perf. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* x86-64: "spin: dec %rdi; mov %rdi,%rax; add %rax,%rax; test %rdi,%rdi; jne spin; ret": a
 * loop of several instructions, so that samples land at several addresses in it. */
static const unsigned char code_x86_64[] = { 0x48, 0xff, 0xcf, 0x48, 0x89, 0xf8, 0x48, 0x01,
					     0xc0, 0x48, 0x85, 0xff, 0x75, 0xf2, 0xc3 };

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1.0;
	unsigned char *mem;
	char path[64];
	FILE *map;
	struct timespec t0, t;
	void (*spin)(unsigned long);

#if !defined(__x86_64__)
	fprintf(stderr, "rp-jit: only x86-64 code is generated\n");
	return 77;
#endif
	mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		   0);
	if (mem == MAP_FAILED) {
		perror("rp-jit: mmap");
		return 1;
	}
	memcpy(mem + 64, code_x86_64, sizeof(code_x86_64));
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	map = fopen(path, "w");
	if (!map) {
		perror(path);
		return 1;
	}
	fprintf(map, "%lx %zx jitted loop::spin (generated)\n", (unsigned long)(mem + 64),
		sizeof(code_x86_64));
	fclose(map);
	spin = (void (*)(unsigned long))(void *)(mem + 64);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		spin(1000000);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
	printf("rp-jit: pid %d\n", (int)getpid());
	return 0;
}
