/* test-unit.c — cgroup paths to units (systemd services and scopes, containers, the root), and
 * the process model's units by thread (cgroup records, moves, inheritance at fork). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "base/intern.h"
#include "profile/procmodel.h"
#include "profile/unit.h"

static const char *unit(const char *path)
{
	static char buf[64];

	return unit_from_path(path, buf, sizeof(buf));
}

#define HEX64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static void test_paths(void)
{
	test_ctx = "paths";
	CHECK_STR(unit("/"), "-");
	CHECK_STR(unit(""), "-");
	CHECK_STR(unit("/system.slice/cron.service"), "cron.service");
	CHECK_STR(unit("/system.slice/cron.service/"), "cron.service");
	CHECK_STR(unit("/user.slice/user-1000.slice/session-3.scope"), "session-3.scope");
	CHECK_STR(unit("/user.slice/user-1000.slice/user@1000.service/app.slice/"
		       "app-foo.scope"),
		  "app-foo.scope");
	/* A service's own sub-cgroups keep its name. */
	CHECK_STR(unit("/system.slice/nginx.service/worker"), "nginx.service");
	/* Containers, by the runtimes' scope names and the cgroupfs layout. */
	CHECK_STR(unit("/system.slice/docker-" HEX64 ".scope"), "docker:0123456789ab");
	CHECK_STR(unit("/docker/" HEX64), "docker:0123456789ab");
	CHECK_STR(unit("/system.slice/containerd.service/kubepods-besteffort-pod1.slice:cri-"
		       "containerd:" HEX64),
		  "containerd.service");
	CHECK_STR(unit("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podab_cd.slice/"
		       "cri-containerd-" HEX64 ".scope"),
		  "containerd:0123456789ab");
	CHECK_STR(unit("/kubepods/burstable/podab/" HEX64), "container:0123456789ab");
	CHECK_STR(unit("/machine.slice/libpod-" HEX64 ".scope/container"), "podman:0123456789ab");
	CHECK_STR(unit("/kubepods.slice/crio-" HEX64 ".scope"), "crio:0123456789ab");
	/* A service inside a container that runs systemd is named by its own unit. */
	CHECK_STR(unit("/machine.slice/systemd-nspawn@rp.service/payload/system.slice/"
		       "rp-attr-test.service"),
		  "rp-attr-test.service");
	/* Not a container id: too short, or not hex. */
	CHECK_STR(unit("/system.slice/docker-12ab.scope"), "docker-12ab.scope");
	CHECK_STR(unit("/system.slice/docker-xyz0123456789abc.scope"),
		  "docker-xyz0123456789abc.scope");
	/* Nothing systemd or a runtime named: the innermost component. */
	CHECK_STR(unit("/rp-test.slice"), "rp-test.slice");
	CHECK_STR(unit("/process_api/be83f5f8"), "be83f5f8");
	/* Truncated to the buffer, terminated. */
	{
		char small[8];

		CHECK_STR(unit_from_path("/system.slice/cron.service", small, sizeof(small)),
			  "cron.se");
	}
}

static const char *unit_of(struct procmodel *m, int32_t pid, int32_t tid)
{
	int64_t id = procmodel_unit_id(m, pid, tid);

	return id < 0 ? NULL : strtab_get(procmodel_units(m), (uint32_t)id);
}

static void test_model(void)
{
	struct procmodel *m = procmodel_new();

	test_ctx = "model";
	procmodel_comm(m, 10, 10, "app", false);
	CHECK_STR(unit_of(m, 10, 10), UNIT_UNKNOWN);
	CHECK_STR(unit_of(m, 0, 0), "-");
	procmodel_cgroup(m, 1, "/");
	procmodel_cgroup(m, 77, "/system.slice/a.service");
	procmodel_taskcg(m, 10, 10, 77);
	CHECK_STR(unit_of(m, 10, 10), "a.service");
	/* A thread and a process forked from it start in its cgroup. */
	procmodel_fork(m, 10, 10, 11, 10);
	procmodel_fork(m, 12, 10, 12, 10);
	CHECK_STR(unit_of(m, 10, 11), "a.service");
	CHECK_STR(unit_of(m, 12, 12), "a.service");
	/* A move; a cgroup whose path comes later is named by its id until then. */
	procmodel_taskcg(m, 12, 12, 99);
	CHECK_STR(unit_of(m, 12, 12), "cgroup:99");
	procmodel_cgroup(m, 99, "/b.slice/b.service");
	CHECK_STR(unit_of(m, 12, 12), "b.service");
	CHECK_STR(unit_of(m, 10, 10), "a.service");
	procmodel_taskcg(m, 10, 10, 1);
	CHECK_STR(unit_of(m, 10, 10), "-");
	/* The root's path is not needed (a recorder in a container does not see it). */
	procmodel_taskcg(m, 12, 12, 1);
	CHECK_STR(unit_of(m, 12, 12), "-");
	procmodel_taskcg(m, 12, 12, 99);
	/* A thread's first TASKCG may come before its FORK: the FORK does not undo it. */
	procmodel_taskcg(m, 10, 13, 99);
	procmodel_fork(m, 10, 10, 13, 10);
	CHECK_STR(unit_of(m, 10, 13), "b.service");
	/* An exit forgets the thread's cgroup: its tid may come back elsewhere. */
	procmodel_exit(m, 10, 13);
	CHECK_STR(unit_of(m, 10, 13), UNIT_UNKNOWN);
	procmodel_free(m);
}

int main(void)
{
	test_paths();
	test_model();
	return check_done("test-unit");
}
