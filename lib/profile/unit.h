/* unit.h — the systemd unit or container a cgroup v2 path stands for, as reports name it. */
#ifndef RP_UNIT_H
#define RP_UNIT_H

#include <stddef.h>

/* The name reports give samples whose thread's cgroup is unknown (recorded before ringprof
 * recorded cgroups, or whose thread was never seen to have one). */
#define UNIT_UNKNOWN "[unknown]"

/*
 * The unit of the cgroup at PATH (as the kernel gives it: "/system.slice/cron.service"),
 * written into BUF (SIZE bytes, NUL-terminated, truncated to fit). The components are read
 * from the innermost out; the first that names something wins:
 *
 *   docker-<hex>.scope, /docker/<hex>        docker:<first 12 hex digits>
 *   cri-containerd-<hex>.scope, containerd   containerd:<12 hex>
 *   crio-<hex>.scope                          crio:<12 hex>
 *   libpod-<hex>.scope                        podman:<12 hex>
 *   <64 hex> (kubepods with cgroupfs)         container:<12 hex>
 *   NAME.service, NAME.scope                  NAME.service, NAME.scope
 *
 * so a service started inside a container that runs systemd is named by its own unit. Else the
 * innermost component (a slice, or a cgroup some other manager made); the root is "-".
 * Returns BUF.
 */
char *unit_from_path(const char *path, char *buf, size_t size);

#endif
