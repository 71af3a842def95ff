/* proto.c — one message with at most one file descriptor over the helper's SOCK_SEQPACKET
 * socket, for both ends (see proto.h). */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "unwind/proto.h"

#define MAX_FDS_IN 4 /* fds taken from one message; more are closed */

ssize_t uwp_send(int sock, const void *buf, size_t len, int fd, int flags)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { (void *)buf, len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (fd >= 0) {
		struct cmsghdr *c;

		memset(&ctl, 0, sizeof(ctl));
		msg.msg_control = ctl.buf;
		msg.msg_controllen = sizeof(ctl.buf);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	do
		n = sendmsg(sock, &msg, flags | MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n;
}

/* The first descriptor the message carried; the others are closed. */
static int take_fds(struct msghdr *msg)
{
	int ret = -1;

	for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
		    c->cmsg_len < CMSG_LEN(0))
			continue;
		for (size_t i = 0; i < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int); i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (ret < 0)
				ret = fd;
			else
				close(fd);
		}
	}
	return ret;
}

ssize_t uwp_recv(int sock, void *buf, size_t len, int flags, int *ret_fd, bool *ret_trunc)
{
	union {
		char buf[CMSG_SPACE(MAX_FDS_IN * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { buf, len };
	struct msghdr msg = { .msg_iov = &iov,
			      .msg_iovlen = 1,
			      .msg_control = ctl.buf,
			      .msg_controllen = sizeof(ctl.buf) };
	ssize_t n;

	*ret_fd = -1;
	*ret_trunc = false;
	do
		n = recvmsg(sock, &msg, flags | MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return n;
	*ret_fd = take_fds(&msg);
	*ret_trunc = (msg.msg_flags & MSG_TRUNC) != 0;
	return n;
}
