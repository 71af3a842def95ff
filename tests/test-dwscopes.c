/* test-dwscopes.c — unit test of lib/elf/dwscopes.c: for addresses across every compile unit
 * of real DWARF (this test's own binary, built with -g and inlining; and libc's debug file
 * when libc6-dbg is there), the chain the index gives is the one libdw's dwarf_getscopes()
 * and dwarf_getscopes_die() give, kept to functions and inline expansions. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buildid.h"
#include "check.h"
#include "elf/dwscopes.h"

#define CHAIN_MAX 64

/* libdw's answer, as symbolizer.c's inline_chain() walked it before the index. */
static int libdw_chain(Dwarf_Die *cudie, Dwarf_Addr pc, Dwarf_Off *out)
{
	Dwarf_Die *scopes = NULL, *chain = NULL;
	int n, k = 0;

	n = dwarf_getscopes(cudie, pc, &scopes);
	if (n > 0)
		n = dwarf_getscopes_die(&scopes[0], &chain);
	for (int i = 0; i < n && k < CHAIN_MAX; i++) {
		int tag = dwarf_tag(&chain[i]);

		if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
			continue;
		out[k++] = dwarf_dieoffset(&chain[i]);
		if (tag == DW_TAG_subprogram)
			break; /* inline_chain() stops at the function */
	}
	free(chain);
	free(scopes);
	return k;
}

struct tally {
	long addrs, same, inlined, units;
};

/* Compare at every STEPth address of each unit's ranges. */
static void compare_file(const char *path, int step, struct tally *t)
{
	int fd = open(path, O_RDONLY);
	Dwarf *dw = fd < 0 ? NULL : dwarf_begin(fd, DWARF_C_READ);
	struct dwscopes *x = dwscopes_new();
	Dwarf_Off off = 0, next;
	size_t hsize;

	if (!CHECK(dw != NULL, "%s has DWARF", path) || !CHECK(x != NULL)) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cudie;
		Dwarf_Addr base, lo, hi;
		ptrdiff_t r = 0;

		if (dwarf_offdie(dw, off + hsize, &cudie)) {
			t->units++;
			while ((r = dwarf_ranges(&cudie, r, &base, &lo, &hi)) > 0) {
				for (Dwarf_Addr pc = lo; pc < hi; pc += (Dwarf_Addr)step) {
					Dwarf_Off want[CHAIN_MAX];
					Dwarf_Die got[CHAIN_MAX];
					int nw = libdw_chain(&cudie, pc, want);
					int ng = dwscopes_chain(x, &cudie, pc, got, CHAIN_MAX);
					bool same = ng >= 0;

					/* The index goes on to the outermost function; libdw's walk
					 * above stopped at the innermost one. */
					for (int i = 0; same && i < ng; i++)
						if (dwarf_tag(&got[i]) == DW_TAG_subprogram) {
							ng = i + 1;
							break;
						}
					same = same && ng == nw;
					for (int i = 0; same && i < nw; i++)
						same = dwarf_dieoffset(&got[i]) == want[i];
					t->addrs++;
					t->same += same;
					t->inlined += nw > 1;
					if (!same && t->addrs - t->same <= 5)
						CHECK(same, "%s: %#llx: libdw %d frames, index %d",
						      path, (unsigned long long)pc, nw, ng);
				}
			}
		}
		off = next;
	}
	dwscopes_free(x);
	dwarf_end(dw);
	close(fd);
}

int main(void)
{
	struct tally self = { 0 }, libc = { 0 };
	uint8_t id[64];
	size_t len = 0;
	char hex[129], path[300] = "";

	test_ctx = "this test's binary";
	compare_file("/proc/self/exe", 1, &self);
	printf("# %ld units, %ld addresses, %ld in inline code, %ld the same\n", self.units,
	       self.addrs, self.inlined, self.same);
	CHECK(self.addrs > 1000);
	CHECK(self.inlined > 0, "some addresses lie in inlined code");
	CHECK(self.same == self.addrs);

	/* libc's separate debug file (libc6-dbg, which setup.sh installs): larger units, more
	 * nesting. Every 31st address: libdw's walk is what is slow here. */
	test_ctx = "libc's debug file";
	if (buildid_read_path("/lib/x86_64-linux-gnu/libc.so.6", id, sizeof(id), &len) == 0 && len) {
		buildid_to_hex(id, len, hex);
		snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
	}
	if (path[0] && access(path, R_OK) == 0) {
		compare_file(path, 31, &libc);
		printf("# %ld units, %ld addresses, %ld in inline code, %ld the same\n", libc.units,
		       libc.addrs, libc.inlined, libc.same);
		CHECK(libc.inlined > 1000, "some addresses lie in inlined code");
		CHECK(libc.same == libc.addrs);
	} else {
		printf("# no debug file for libc (libc6-dbg): only this binary compared\n");
	}
	return check_done("test-dwscopes");
}
