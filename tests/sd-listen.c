/* sd-listen.c — test helper: a NOTIFY_SOCKET stand-in printing each datagram on one line. */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/*
 * Usage: sd-listen PATH|@NAME
 * Binds a unix datagram socket (a name starting with '@' is in the abstract namespace) and
 * prints "# listening on NAME", then one line per datagram: "pid=SENDER FIELD FIELD ...",
 * the datagram's newlines turned into spaces, flushed at once. Ends on SIGTERM or SIGINT
 * and removes the socket file.
 */
static volatile sig_atomic_t done;

static void on_signal(int sig)
{
	(void)sig;
	done = 1;
}

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct sigaction sact = { .sa_handler = on_signal };
	socklen_t len;
	size_t n;
	int fd, one = 1;

	if (argc != 2 || (argv[1][0] != '/' && argv[1][0] != '@') ||
	    (n = strlen(argv[1])) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "usage: sd-listen PATH|@NAME\n");
		return 2;
	}
	memcpy(sa.sun_path, argv[1], n);
	if (argv[1][0] == '@')
		sa.sun_path[0] = '\0';
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + (argv[1][0] == '/'));
	sigaction(SIGTERM, &sact, NULL);
	sigaction(SIGINT, &sact, NULL);

	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&sa, len) < 0) {
		fprintf(stderr, "sd-listen: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	printf("# listening on %s\n", argv[1]);
	fflush(stdout);
	while (!done) {
		char buf[4096], cbuf[CMSG_SPACE(sizeof(struct ucred))];
		struct iovec iov = { buf, sizeof(buf) - 1 };
		struct msghdr mh = { .msg_iov = &iov,
				     .msg_iovlen = 1,
				     .msg_control = cbuf,
				     .msg_controllen = sizeof(cbuf) };
		struct cmsghdr *c;
		ssize_t r = recvmsg(fd, &mh, 0);
		long pid = 0;

		if (r < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "sd-listen: recvmsg: %s\n", strerror(errno));
			break;
		}
		for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
				struct ucred uc;

				memcpy(&uc, CMSG_DATA(c), sizeof(uc));
				pid = (long)uc.pid;
			}
		}
		buf[r] = '\0';
		for (ssize_t i = 0; i < r; i++)
			if (buf[i] == '\n' || buf[i] == '\0')
				buf[i] = ' ';
		while (r > 0 && buf[r - 1] == ' ')
			buf[--r] = '\0';
		printf("pid=%ld %s\n", pid, buf);
		fflush(stdout);
	}
	close(fd);
	if (argv[1][0] == '/')
		unlink(argv[1]);
	return 0;
}
