/* notify.c — the sd_notify protocol without libsystemd: one datagram to $NOTIFY_SOCKET. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "notify.h"
#include "base/util.h"

int notify_send(const char *state)
{
	const char *e = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	socklen_t len;
	size_t n;
	ssize_t w;
	int fd, r = 1;

	if (!e || !*e)
		return 0;
	n = strlen(e);
	if ((e[0] != '/' && e[0] != '@') || n >= sizeof(sa.sun_path))
		return -EINVAL;
	memcpy(sa.sun_path, e, n);
	if (e[0] == '@')
		sa.sun_path[0] = '\0'; /* abstract: no terminator, the length says where it ends */
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + (e[0] == '/'));

	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	w = sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa, len);
	if (w < 0)
		r = -errno;
	else if ((size_t)w != strlen(state))
		r = -EMSGSIZE;
	close(fd);
	return r;
}

int notify_sendf(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return notify_send(buf);
}

uint64_t notify_watchdog_ns(void)
{
	const char *usec = getenv("WATCHDOG_USEC"), *pid = getenv("WATCHDOG_PID");
	uint64_t v, p;

	if (!usec || util_parse_u64(usec, &v) < 0 || v == 0)
		return 0;
	if (pid && *pid && (util_parse_u64(pid, &p) < 0 || p != (uint64_t)getpid()))
		return 0;
	return v * 1000;
}
