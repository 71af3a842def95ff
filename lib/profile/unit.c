/* unit.c — cgroup v2 paths turned into the systemd unit or container they stand for. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "profile/unit.h"

/* Container runtimes' scope names: prefix, and the label reports give. */
static const struct {
	const char *prefix, *label;
} runtimes[] = {
	{ "docker-", "docker" },
	{ "cri-containerd-", "containerd" },
	{ "crio-", "crio" },
	{ "libpod-", "podman" },
};

/* The number of lowercase hex digits the LEN bytes at S start with. */
static size_t hex_run(const char *s, size_t len)
{
	size_t n = 0;

	while (n < len && s[n] && strchr("0123456789abcdef", s[n]))
		n++;
	return n;
}

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && memcmp(s + len - n, suffix, n) == 0;
}

/* A container's label for the component C (LEN bytes) whose parent is PARENT (PLEN bytes; 0
 * for none) into BUF; false when C names no container. */
static bool container(const char *c, size_t len, const char *parent, size_t plen, char *buf,
		      size_t size)
{
	for (size_t i = 0; i < sizeof(runtimes) / sizeof(runtimes[0]); i++) {
		size_t p = strlen(runtimes[i].prefix);

		/* <prefix><hex>.scope, the hex being a container id (at least 12 digits) */
		if (len > p + 6 && memcmp(c, runtimes[i].prefix, p) == 0 &&
		    ends_with(c, len, ".scope") && hex_run(c + p, len - p - 6) == len - p - 6 &&
		    len - p - 6 >= 12) {
			snprintf(buf, size, "%s:%.12s", runtimes[i].label, c + p);
			return true;
		}
	}
	/* cgroupfs drivers: /docker/<hex>, /containerd/<hex>, /kubepods/.../<hex> */
	if (len == 64 && hex_run(c, len) == 64) {
		const char *label = plen == 6 && memcmp(parent, "docker", 6) == 0 ? "docker"
				    : plen == 10 && memcmp(parent, "containerd", 10) == 0
					? "containerd"
					: "container";

		snprintf(buf, size, "%s:%.12s", label, c);
		return true;
	}
	return false;
}

char *unit_from_path(const char *path, char *buf, size_t size)
{
	size_t end = strlen(path);
	const char *inner = NULL;
	size_t inner_len = 0;

	while (end > 0 && path[end - 1] == '/')
		end--;
	while (end > 0) {
		size_t start = end, pstart, pend;

		while (start > 0 && path[start - 1] != '/')
			start--;
		pend = start;
		while (pend > 0 && path[pend - 1] == '/')
			pend--;
		pstart = pend;
		while (pstart > 0 && path[pstart - 1] != '/')
			pstart--;
		if (!inner) {
			inner = path + start;
			inner_len = end - start;
		}
		if (container(path + start, end - start, path + pstart, pend - pstart, buf, size))
			return buf;
		if (ends_with(path + start, end - start, ".service") ||
		    ends_with(path + start, end - start, ".scope")) {
			snprintf(buf, size, "%.*s", (int)(end - start), path + start);
			return buf;
		}
		end = pend;
	}
	if (inner)
		snprintf(buf, size, "%.*s", (int)inner_len, inner);
	else
		snprintf(buf, size, "-");
	return buf;
}
