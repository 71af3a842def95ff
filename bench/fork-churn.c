/* fork-churn.c — a neighbour for bench/fork-churn.sh: maps one page of a file N times as
 * separate executable mappings, then forks F times a second (each child exits at once) for
 * SECS seconds. Each fork is a FORK record whose mappings the recorder copies. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 60000, rate = argc > 3 ? atoi(argv[3]) : 40;
	double secs = argc > 4 ? atof(argv[4]) : 10;
	struct timespec gap = { 0, 1000000000L / (rate > 0 ? rate : 1) };
	int fd = argc > 1 ? open(argv[1], O_RDONLY) : -1, forks = 0;

	if (fd < 0) {
		fprintf(stderr, "usage: fork-churn FILE [MAPPINGS [FORKS_PER_S [SECS]]]\n");
		return 2;
	}
	/* Offset 0 each time: the kernel cannot merge them into one mapping. */
	for (int i = 0; i < n; i++)
		if (mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED) {
			perror("fork-churn: mmap");
			return 1;
		}
	for (double t = 0; t < secs; t += 1.0 / rate) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(0);
		if (pid > 0) {
			waitpid(pid, NULL, 0);
			forks++;
		}
		nanosleep(&gap, NULL);
	}
	printf("fork-churn: %d mappings, %d forks\n", n, forks);
	return 0;
}
