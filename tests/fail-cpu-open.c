/* fail-cpu-open.c — LD_PRELOAD shim for tests: perf_event_open(2) fails on chosen CPUs.
 *
 *	RP_FAIL_CPUS=1,3     the CPUs whose events cannot be opened (a cpu argument of -1, i.e.
 *	                     "any CPU" for a task, is never failed)
 *	RP_FAIL_ERRNO=EBUSY  the error: a name (EBUSY, ENODEV, EACCES, EPERM, EINVAL, ENOENT,
 *	                     EOPNOTSUPP, EMFILE, ENOMEM) or a number; default EBUSY
 *
 * It interposes syscall(), through which lib/evsel.c calls perf_event_open; every other
 * system call goes to the real syscall(). Each refusal is counted in RP_FAIL_LOG (a file,
 * one line "cpu N errno E" per refused open) when that is set, so a test can tell that the
 * shim was in effect.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

typedef long (*syscall_fn)(long, ...);

static int parse_errno(const char *s)
{
	static const struct {
		const char *name;
		int e;
	} names[] = {
		{ "EBUSY", EBUSY },	      { "ENODEV", ENODEV }, { "EACCES", EACCES },
		{ "EPERM", EPERM },	      { "EINVAL", EINVAL }, { "ENOENT", ENOENT },
		{ "EOPNOTSUPP", EOPNOTSUPP }, { "EMFILE", EMFILE }, { "ENOMEM", ENOMEM },
	};

	if (!s || !*s)
		return EBUSY;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i].name))
			return names[i].e;
	return atoi(s) > 0 ? atoi(s) : EBUSY;
}

static int cpu_listed(int cpu)
{
	const char *s = getenv("RP_FAIL_CPUS");

	while (s && *s) {
		char *end;
		long a = strtol(s, &end, 10), b = a;

		if (end == s)
			return 0;
		if (*end == '-') {
			s = end + 1;
			b = strtol(s, &end, 10);
			if (end == s)
				return 0;
		}
		if (cpu >= a && cpu <= b)
			return 1;
		s = *end == ',' ? end + 1 : end;
		if (*end != ',')
			break;
	}
	return 0;
}

static void log_refusal(int cpu, int e)
{
	const char *path = getenv("RP_FAIL_LOG");
	char line[64];
	int fd, n;

	if (!path || !*path)
		return;
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	n = snprintf(line, sizeof(line), "cpu %d errno %d\n", cpu, e);
	if (write(fd, line, (size_t)n) < 0) {
		/* nothing to do: the log is a courtesy */
	}
	close(fd);
}

long syscall(long nr, ...)
{
	static syscall_fn real;
	long a[6];
	va_list ap;

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == SYS_perf_event_open) {
		int cpu = (int)a[2];

		if (cpu >= 0 && cpu_listed(cpu)) {
			int e = parse_errno(getenv("RP_FAIL_ERRNO"));

			log_refusal(cpu, e);
			errno = e;
			return -1;
		}
	}
	if (!real)
		real = (syscall_fn)dlsym(RTLD_NEXT, "syscall");
	return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
