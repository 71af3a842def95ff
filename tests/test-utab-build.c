/* test-utab-build.c — unit test of lib/elf/utabbuild.c on the system's real binaries and our own,
 * and of ringprof-unwind's --fd protocol (unwind/proto.h). */
#define _GNU_SOURCE 1
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/buildid.h"
#include "elf/utabbuild.h"
#include "check.h"
#include "unwind/proto.h"
#include "unwind/utab.h"
#include "unwind/walk.h"

#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"
#define LDSO "/lib64/ld-linux-x86-64.so.2"
#define LIBSTDCXX "/usr/lib/x86_64-linux-gnu/libstdc++.so.6"

/* A built table and the file it came from. */
struct built {
	const char *path;
	void *buf;
	size_t size;
	struct utab t;
	struct utabbuild_stats st;
};

static char *builddir_path(const char *rel)
{
	const char *top = getenv("top_builddir");
	char *p;

	if (asprintf(&p, "%s/%s", top ? top : ".", rel) < 0)
		abort();
	return p;
}

/* ---- ringprof-unwind --fd: the sandboxed helper ---- */

struct helper {
	pid_t pid;
	int sock; /* our end */
};

static bool helper_start(struct helper *h)
{
	const char *env = getenv("RP_UNWIND_HELPER");
	char *path = env ? strdup(env) : builddir_path("ringprof-unwind"), arg[16];
	int sv[2];

	if (!CHECK(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == 0))
		return false;
	h->pid = fork();
	if (h->pid == 0) {
		fcntl(sv[1], F_SETFD, 0);
		snprintf(arg, sizeof(arg), "%d", sv[1]);
		execl(path, "ringprof-unwind", "--fd", arg, (char *)NULL);
		_exit(127);
	}
	free(path);
	close(sv[1]);
	h->sock = sv[0];
	return CHECK(h->pid > 0);
}

static int send_kind(int sock, uint32_t magic, uint32_t id, uint32_t kind, int fd)
{
	struct uwp_request req = { .magic = magic, .id = id, .kind = kind };

	return uwp_send(sock, &req, sizeof(req), fd, 0) == (ssize_t)sizeof(req) ? 0 : -errno;
}

static int send_request(int sock, uint32_t magic, uint32_t id, int fd)
{
	return send_kind(sock, magic, id, UWP_TABLE, fd);
}

/* One reply: its bytes (0 at EOF, -errno), the attached fd in *ret_fd (-1 if none). */
static ssize_t recv_reply(int sock, struct uwp_reply *rep, int *ret_fd)
{
	bool trunc;
	ssize_t n = uwp_recv(sock, rep, sizeof(*rep), 0, ret_fd, &trunc);

	return n < 0 ? -errno : n;
}

/* The sandboxed helper every table of this test is built by, as the recorder has them built:
 * under its seccomp filter, so that a system call the filter refuses fails a test. Started on
 * first use, again after it died. */
static struct helper sandbox;
static uint32_t sandbox_id;

/* How the helper ended, into why; the helper is gone afterwards. */
static void sandbox_died(char *why, size_t why_size)
{
	int status = 0;

	close(sandbox.sock);
	if (waitpid(sandbox.pid, &status, 0) != sandbox.pid)
		snprintf(why, why_size, "the sandboxed helper is gone (waitpid: %s)",
			 strerror(errno));
	else if (WIFSIGNALED(status))
		snprintf(why, why_size, "the sandboxed helper died of signal %d%s",
			 WTERMSIG(status),
			 WTERMSIG(status) == SIGSYS
			     ? " (SIGSYS: a system call its seccomp filter does not allow)"
			     : "");
	else
		snprintf(why, why_size, "the sandboxed helper exited with status %d",
			 WEXITSTATUS(status));
	sandbox.pid = 0;
}

/* The table of the file open on fd, built by the sandboxed helper: 0 and a malloc'd copy in
 * *ret_buf (*ret_size bytes, as sent, unchecked), the reply's -errno with its why, or -EPIPE
 * when the helper died on it (why says of what). */
static int sandbox_build(int fd, void **ret_buf, size_t *ret_size, char *why, size_t why_size)
{
	struct uwp_reply rep;
	ssize_t n;
	void *m;
	int mfd;

	if (!sandbox.pid && !helper_start(&sandbox)) {
		snprintf(why, why_size, "the helper did not start");
		return -ECHILD;
	}
	if (send_request(sandbox.sock, UWP_MAGIC, ++sandbox_id, fd) < 0 ||
	    (n = recv_reply(sandbox.sock, &rep, &mfd)) != (ssize_t)sizeof(rep)) {
		sandbox_died(why, why_size);
		return -EPIPE;
	}
	rep.why[sizeof(rep.why) - 1] = 0;
	if (rep.id != sandbox_id || rep.status != 0 || mfd < 0) {
		snprintf(why, why_size, "%s",
			 rep.id != sandbox_id ? "a reply to another request"
			 : rep.status	      ? rep.why
					      : "no memfd with the table");
		if (mfd >= 0)
			close(mfd);
		return rep.status ? rep.status : -EPROTO;
	}
	m = mmap(NULL, rep.size, PROT_READ, MAP_PRIVATE, mfd, 0);
	close(mfd);
	if (m == MAP_FAILED || !(*ret_buf = malloc(rep.size))) {
		snprintf(why, why_size, "cannot map the table: %s", strerror(errno));
		if (m != MAP_FAILED)
			munmap(m, rep.size);
		return -ENOMEM;
	}
	memcpy(*ret_buf, m, rep.size);
	munmap(m, rep.size);
	*ret_size = rep.size;
	return 0;
}

/* The helper ends at EOF with status 0: it never died on any of this test's files. */
static void sandbox_stop(void)
{
	int status = -1;

	if (!sandbox.pid)
		return;
	shutdown(sandbox.sock, SHUT_WR);
	CHECK(waitpid(sandbox.pid, &status, 0) == sandbox.pid && WIFEXITED(status) &&
		  WEXITSTATUS(status) == 0,
	      "the sandboxed helper's status %#x", status);
	close(sandbox.sock);
	sandbox.pid = 0;
}

/* Build path's table through the sandboxed helper and check it; false (and a failed check)
 * if either fails. The builder also runs here, for its figures (b->st), and must have built
 * the very same bytes. */
static bool build(const char *path, struct built *b)
{
	char why[256] = "";
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;
	void *local = NULL;
	size_t local_size = 0;

	memset(b, 0, sizeof(*b));
	b->path = path;
	if (!CHECK(fd >= 0, "%s: %s", path, strerror(errno)))
		return false;
	rc = utabbuild_fd(fd, &local, &local_size, &b->st, why, sizeof(why));
	if (!CHECK(rc == 0, "%s: %d %s", path, rc, why)) {
		close(fd);
		return false;
	}
	rc = sandbox_build(fd, &b->buf, &b->size, why, sizeof(why));
	close(fd);
	if (!CHECK(rc == 0, "%s: through the sandboxed helper: %d %s", path, rc, why)) {
		free(local);
		return false;
	}
	CHECK(b->size == local_size && !memcmp(b->buf, local, local_size),
	      "%s: the helper's table (%zu bytes) is the builder's (%zu bytes)", path, b->size,
	      local_size);
	free(local);
	rc = utab_check(b->buf, b->size, &b->t, why, sizeof(why));
	if (!CHECK(rc == 0, "%s: table refused: %s", path, why))
		return false;
	printf("%s: %u FDEs, %u rows read, %u rows, %u rules, %zu bytes, %.1f ms; rows read: sp "
	       "%u bp %u plt %u end %u signal %u unknown %u\n",
	       path, b->st.n_fdes, b->st.n_rows_read, b->t.n_rows, b->t.n_rules, b->size,
	       b->st.build_ns / 1e6, b->st.n_read_by_cfa[UTAB_CFA_SP],
	       b->st.n_read_by_cfa[UTAB_CFA_BP], b->st.n_read_by_cfa[UTAB_CFA_PLT],
	       b->st.n_read_by_cfa[UTAB_CFA_END], b->st.n_read_by_cfa[UTAB_CFA_SIGNAL],
	       b->st.n_read_by_cfa[UTAB_CFA_UNKNOWN]);
	return true;
}

/* ---- finding places in an ELF file with libelf, independently of the builder ---- */

static uint64_t vaddr_to_off(Elf *elf, uint64_t vaddr)
{
	size_t n = 0;

	elf_getphdrnum(elf, &n);
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && vaddr >= ph.p_vaddr &&
		    vaddr < ph.p_vaddr + ph.p_filesz)
			return vaddr - ph.p_vaddr + ph.p_offset;
	}
	return UINT64_MAX;
}

/* Where: "entry" (e_entry), "section:NAME" (file offset of a section), or a symbol name
 * (.symtab, then .dynsym). The file offset, or UINT64_MAX; *ret_size the section's or
 * symbol's size. */
static uint64_t find_off(const char *path, const char *what, uint64_t *ret_size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	size_t shstrndx;
	uint64_t off = UINT64_MAX;

	if (fd < 0)
		return off;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || !gelf_getehdr(elf, &eh) || elf_getshdrstrndx(elf, &shstrndx) != 0)
		goto out;
	if (!strcmp(what, "entry")) {
		off = vaddr_to_off(elf, eh.e_entry);
		goto out;
	}
	for (int pass = 0; pass < 2 && off == UINT64_MAX; pass++) {
		while ((scn = elf_nextscn(elf, scn)) && off == UINT64_MAX) {
			GElf_Shdr sh;
			Elf_Data *d;

			if (!gelf_getshdr(scn, &sh))
				continue;
			if (!strncmp(what, "section:", 8)) {
				const char *n = elf_strptr(elf, shstrndx, sh.sh_name);

				if (n && !strcmp(n, what + 8)) {
					off = sh.sh_offset;
					*ret_size = sh.sh_size;
				}
				continue;
			}
			if (sh.sh_type != (pass ? SHT_DYNSYM : SHT_SYMTAB) ||
			    !(d = elf_getdata(scn, NULL)))
				continue;
			for (size_t i = 0; sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
				GElf_Sym sym;
				const char *n;

				if (!gelf_getsym(d, (int)i, &sym) || !sym.st_value)
					continue;
				n = elf_strptr(elf, sh.sh_link, sym.st_name);
				if (n && !strcmp(n, what)) {
					off = vaddr_to_off(elf, sym.st_value);
					*ret_size = sym.st_size;
					break;
				}
			}
		}
		scn = NULL;
	}
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return off;
}

/* The file offset of the first occurrence of bytes pat in path, or UINT64_MAX. */
static uint64_t find_bytes(const char *path, const void *pat, size_t n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	uint64_t off = UINT64_MAX;
	void *m;

	if (fd < 0 || fstat(fd, &st) < 0)
		return off;
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return off;
	const char *p = memmem(m, (size_t)st.st_size, pat, n);

	if (p)
		off = (uint64_t)(p - (const char *)m);
	munmap(m, (size_t)st.st_size);
	return off;
}

static const struct utab_rule *rule_at(const struct built *b, uint64_t off)
{
	return off == UINT64_MAX ? NULL : utab_find(&b->t, off);
}

#define CHECK_KIND(b, off, kind, what)                                                             \
	({                                                                                         \
		const struct utab_rule *r_ = rule_at((b), (off));                                  \
		CHECK(r_ && r_->cfa == (kind), "%s: %s at %#llx: %s, expected %s", (b)->path,      \
		      (what), (unsigned long long)(off),                                           \
		      r_ ? utabbuild_cfa_name(r_->cfa) : "no rule", utabbuild_cfa_name(kind));     \
	})

/* A function's first byte: CFA = rsp + 8, return address at CFA - 8, rbp not saved. */
static void check_entry_rule(const struct built *b, const char *sym)
{
	uint64_t size = 0, off = find_off(b->path, sym, &size);
	const struct utab_rule *r = rule_at(b, off);

	test_ctx = sym;
	if (CHECK(r, "%s: no rule at %s (%#llx)", b->path, sym, (unsigned long long)off)) {
		CHECK_INT(r->cfa, UTAB_CFA_SP);
		CHECK_INT(r->cfa_off, 8);
		CHECK_INT(r->ra_off, -8);
		CHECK_INT(r->flags, 0);
	}
	test_ctx = "";
}

/* Every byte of the .plt after PLT0 is the .plt expression. */
static void check_plt(const struct built *b)
{
	uint64_t size = 0, off = find_off(b->path, "section:.plt", &size);

	if (!CHECK(off != UINT64_MAX && size > 16, "%s: no .plt", b->path))
		return;
	CHECK_INT(b->st.n_read_by_cfa[UTAB_CFA_PLT], 1);
	CHECK_KIND(b, off + 16, UTAB_CFA_PLT, ".plt entry 1");
	CHECK_KIND(b, off + size - 1, UTAB_CFA_PLT, ".plt's last byte");
	CHECK_KIND(b, off, UTAB_CFA_SP, "PLT0");
}

static void free_built(struct built *b)
{
	free(b->buf);
	b->buf = NULL;
}

/* ---- walks with a built table: the binary mapped at 0, so that a pc is its file offset ---- */

static enum uw_where find_identity(void *arg, uint64_t pc, const struct utab **tab, uint64_t *off)
{
	*tab = arg;
	*off = pc;
	return UW_WHERE_TABLE;
}

/* Walk from ip with rsp at a copy holding the return address ret: the stop and the pcs. */
static enum uw_stop walk_ret(const struct built *b, uint64_t ip, uint64_t ret, uint64_t *pcs,
			     size_t *ret_n)
{
	uint64_t stack[4] = { ret, 0, 0, 0 };
	struct uw_regs regs = { ip, 0x7ff000000000ull, 0 };
	struct uw_stack st = { (const unsigned char *)stack, sizeof(stack) };
	struct uw_result res;

	*ret_n = uw_walk(&regs, &st, find_identity, (void *)&b->t, pcs, 8, &res);
	return res.stop;
}

/* ---- the builder on real binaries ---- */

static void test_libc(void)
{
	static const unsigned char restore_rt[] = {
		0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05
	}; /* mov $15,%rax; syscall */
	struct built b;
	uint8_t id[20];
	size_t id_len = 0;

	if (!build(LIBC, &b))
		return;
	/* UNWIND.md: 3713 FDEs, ~23k rows; rows read here count every libdw row. */
	CHECK(b.st.n_fdes > 2000 && b.st.n_fdes < 10000, "%u FDEs", b.st.n_fdes);
	CHECK(b.st.n_rows_read > 15000 && b.st.n_rows_read < 60000, "%u rows read",
	      b.st.n_rows_read);
	CHECK(b.t.n_rows > 15000 && b.t.n_rows < 80000, "%u rows", b.t.n_rows);
	CHECK(b.t.n_rules > 100 && b.t.n_rules < 2000, "%u rules", b.t.n_rules);
	CHECK(b.st.n_read_by_cfa[UTAB_CFA_SP] > b.st.n_rows_read / 100 * 95);
	CHECK_INT(b.st.n_read_by_cfa[UTAB_CFA_SIGNAL], 1);
	CHECK(b.st.n_read_by_cfa[UTAB_CFA_END] >= 1, "clone, clone3: undefined rip");
	CHECK_INT(b.t.hdr->flags, UTAB_F_EH_FRAME);
	CHECK_INT(b.t.hdr->n_fdes, b.st.n_fdes);
	if (CHECK(buildid_read_path(LIBC, id, sizeof(id), &id_len) == 0)) {
		CHECK_INT(b.t.hdr->build_id_len, id_len);
		CHECK(!memcmp(b.t.hdr->build_id, id, id_len), "build-id");
	}
	CHECK_KIND(&b, find_bytes(LIBC, restore_rt, sizeof(restore_rt)), UTAB_CFA_SIGNAL,
		   "__restore_rt");
	check_entry_rule(&b, "qsort");
	check_entry_rule(&b, "malloc");
	check_plt(&b);
	CHECK(!rule_at(&b, 0), "the ELF header has no rule");
	CHECK(!rule_at(&b, b.t.rows[b.t.n_rows - 1].off), "nothing past the last FDE");
	free_built(&b);
}

/* ld.so's entry code, _start and _dl_start_user (no FDE: RTLD_START's asm), is the outermost
 * frame to its last instruction, the jmp *%r12 to the program (41 ff e4); the bytes after it
 * are not claimed. Found here by that jmp, at most 64 bytes after a "mov %rsp,%rdi; call"
 * entry (glibc 2.36); another ld.so is reported, not checked. */
static void check_rtld_start(const struct built *b)
{
	static const uint8_t start[] = { 0x48, 0x89, 0xe7, 0xe8 }, jmp_r12[] = { 0x41, 0xff, 0xe4 };
	uint64_t size = 0, entry = find_off(b->path, "entry", &size), end = 0;
	uint8_t code[64];
	int fd = open(b->path, O_RDONLY | O_CLOEXEC);
	bool read_ok = fd >= 0 && pread(fd, code, sizeof(code), (off_t)entry) == sizeof(code);

	if (fd >= 0)
		close(fd);
	if (!CHECK(read_ok, "%s: the entry's code", b->path))
		return;
	for (size_t i = 8; i + 3 <= sizeof(code) && !end; i++)
		if (!memcmp(code + i, jmp_r12, 3))
			end = entry + i + 3;
	if (memcmp(code, start, sizeof(start)) || !end) {
		printf("%s: its entry is not glibc 2.36's RTLD_START: not checked\n", b->path);
		return;
	}
	test_ctx = "RTLD_START";
	for (uint64_t a = entry; a < end; a++)
		CHECK_KIND(b, a, UTAB_CFA_END, "_start/_dl_start_user");
	/* A function called from _dl_start_user (its call to _dl_init returns at end - 13): the
	 * walk ends there, complete. */
	{
		uint64_t pcs[8], dsize = 0, f = find_off(b->path, "_dl_debug_state", &dsize);
		size_t n = 0;

		CHECK_INT(walk_ret(b, f, end - 13, pcs, &n), UW_COMPLETE);
		CHECK(n == 2 && pcs[1] == end - 13, "%zu pcs", n);
	}
	CHECK(!rule_at(b, end) || rule_at(b, end)->cfa != UTAB_CFA_END, "%s: END past the jmp",
	      b->path);
	test_ctx = "";
}

static void test_ldso_libstdcxx(void)
{
	struct built b;

	if (build(LDSO, &b)) {
		CHECK_INT(b.st.n_read_by_cfa[UTAB_CFA_SIGNAL], 1);
		check_plt(&b);
		check_entry_rule(&b, "_dl_debug_state");
		check_rtld_start(&b);
		free_built(&b);
	}
	if (access(LIBSTDCXX, R_OK) != 0) {
		printf("%s: not installed, skipped\n", LIBSTDCXX);
		return;
	}
	if (build(LIBSTDCXX, &b)) {
		CHECK(b.t.n_rows > 10000, "%u rows", b.t.n_rows);
		check_plt(&b);
		check_entry_rule(&b, "_ZNSt6chrono3_V212system_clock3nowEv");
		free_built(&b);
	}
}

/* Our own binaries: rp-workload (frame pointers, .eh_frame), utab-dbgframe (its own code with
 * .debug_frame only, the C runtime's with .eh_frame). */
static void test_own(void)
{
	char *wl = builddir_path("tests/workload/rp-workload");
	char *dbg = builddir_path("tests/utab-dbgframe");
	struct built b;
	uint64_t size;

	if (build(wl, &b)) {
		CHECK_KIND(&b, find_off(wl, "entry", &size), UTAB_CFA_END, "_start");
		CHECK_KIND(&b, find_off(wl, "_start", &size), UTAB_CFA_END, "_start");
		check_entry_rule(&b, "main");
		CHECK(b.st.n_read_by_cfa[UTAB_CFA_BP] > 10, "frame pointers: %u rbp rows",
		      b.st.n_read_by_cfa[UTAB_CFA_BP]);
		free_built(&b);
	}
	if (build(dbg, &b)) {
		CHECK_INT(b.t.hdr->flags, UTAB_F_EH_FRAME | UTAB_F_DEBUG_FRAME);
		CHECK(b.st.n_fdes > b.st.n_fdes_eh, "FDEs from .debug_frame");
		CHECK_KIND(&b, find_off(dbg, "entry", &size), UTAB_CFA_END, "_start (.eh_frame)");
		check_entry_rule(&b, "main");
		check_entry_rule(&b, "utab_dbgframe_leaf");
		free_built(&b);
	}
	free(wl);
	free(dbg);
}

/* Every byte of function sym has a CFA = rsp + N rule (N >= 8, return address at CFA - 8),
 * and somewhere in it the frame grows past the return address: rows read from its CFI, not
 * one rule over the whole function. */
static void check_function_rows(const struct built *b, const char *sym)
{
	uint64_t size = 0, off = find_off(b->path, sym, &size);
	uint64_t bad = UINT64_MAX;
	int32_t max_cfa = 0;

	test_ctx = sym;
	if (!CHECK(off != UINT64_MAX && size > 0 && size < 65536, "%s: symbol %s", b->path, sym)) {
		test_ctx = "";
		return;
	}
	for (uint64_t a = off; a < off + size; a++) {
		const struct utab_rule *r = rule_at(b, a);

		if (!r || r->cfa != UTAB_CFA_SP || r->cfa_off < 8 || r->ra_off != -8) {
			bad = a;
			break;
		}
		if (r->cfa_off > max_cfa)
			max_cfa = r->cfa_off;
	}
	CHECK(bad == UINT64_MAX, "%s: %s+%#llx has no rsp rule", b->path, sym,
	      (unsigned long long)(bad - off));
	CHECK(max_cfa > 8, "%s: %s's frame never grows (CFA at most rsp + %d)", b->path, sym,
	      max_cfa);
	test_ctx = "";
}

/* The section's flags (sh_flags) in path, or 0 when it has none of that name. */
static uint64_t section_flags(const char *path, const char *name)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	uint64_t flags = 0;

	if (elf && elf_getshdrstrndx(elf, &shstrndx) == 0) {
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			const char *n;

			if (gelf_getshdr(scn, &sh) && (n = elf_strptr(elf, shstrndx, sh.sh_name)) &&
			    !strcmp(n, name))
				flags = sh.sh_flags | 1ull << 63; /* found */
		}
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return flags;
}

/* C built -O2 -g -fno-asynchronous-unwind-tables (plain and with -gz), and Go: their own
 * functions have .debug_frame only, which libdw opens with dwarf_begin_elf. */
static void test_dbgframe(void)
{
	static const char *const c_fixtures[] = { "tests/workload/rp-dbgframe",
						  "tests/workload/rp-dbgframe-gz" };
	char *go = builddir_path("tests/workload/rp-go");
	struct built b;
	uint64_t size;

	for (size_t i = 0; i < 2; i++) {
		char *path = builddir_path(c_fixtures[i]);
		uint64_t fl = section_flags(path, ".debug_frame");

		CHECK(fl, "%s has a .debug_frame", path);
		CHECK(!!(fl & SHF_COMPRESSED) == (i == 1), "%s: .debug_frame %scompressed", path,
		      fl & SHF_COMPRESSED ? "" : "not ");
		if (build(path, &b)) {
			CHECK_INT(b.t.hdr->flags, UTAB_F_EH_FRAME | UTAB_F_DEBUG_FRAME);
			CHECK(b.st.n_fdes >= b.st.n_fdes_eh + 3, "%u FDEs, %u from .eh_frame",
			      b.st.n_fdes, b.st.n_fdes_eh);
			CHECK_KIND(&b, find_off(path, "entry", &size), UTAB_CFA_END, "_start");
			check_entry_rule(&b, "main");
			check_function_rows(&b, "outer");
			check_entry_rule(&b, "inner");
			free_built(&b);
		}
		free(path);
	}
	if (access(go, X_OK) != 0) {
		printf("%s: not built (no Go compiler), skipped\n", go);
		free(go);
		return;
	}
	if (build(go, &b)) {
		CHECK_INT(b.t.hdr->flags, UTAB_F_DEBUG_FRAME);
		CHECK_INT(b.st.n_fdes_eh, 0);
		CHECK(b.st.n_fdes > 500, "%u FDEs", b.st.n_fdes);
		check_entry_rule(&b, "main.main");
		check_entry_rule(&b, "main.inner");
		check_function_rows(&b, "main.outer");
		check_function_rows(&b, "runtime.mallocgc");
		free_built(&b);
	}
	free(go);
}

/* A static binary's .plt: IRELATIVE stubs (jmp *GOT(%rip); xchg %ax,%ax) that no FDE covers,
 * every byte CFA = rsp + 8 with the return address at rsp. */
static void check_static_plt(const struct built *b)
{
	uint64_t size = 0, off = find_off(b->path, "section:.plt", &size);

	test_ctx = "static .plt";
	if (!CHECK(off != UINT64_MAX && size >= 8 && size % 8 == 0, "%s: .plt of %llu bytes",
		   b->path, (unsigned long long)size)) {
		test_ctx = "";
		return;
	}
	CHECK_INT(b->st.n_plt_stubs, size / 8);
	/* Sampled in the second stub, called from _start (whose CFI ends the stack). */
	{
		uint64_t pcs[8], esize = 0, entry = find_off(b->path, "entry", &esize);
		size_t n = 0;

		CHECK_INT(walk_ret(b, off + 8, entry + 5, pcs, &n), UW_COMPLETE);
		CHECK(n == 2 && pcs[1] == entry + 5, "the stub's caller: %zu pcs", n);
	}
	for (uint64_t a = off; a < off + size; a++) {
		const struct utab_rule *r = rule_at(b, a);

		if (!CHECK(r && r->cfa == UTAB_CFA_SP && r->cfa_off == 8 && r->ra_off == -8 &&
			       !r->flags,
			   "%s: .plt+%#llx: %s", b->path, (unsigned long long)(a - off),
			   r ? utabbuild_cfa_name(r->cfa) : "no rule"))
			break;
	}
	test_ctx = "";
}

/* A static binary: libc's code and ours in one file, with .eh_frame. */
static void test_static(void)
{
	char *path = builddir_path("tests/workload/rp-static");
	struct built b;
	uint64_t size;

	if (build(path, &b)) {
		CHECK_INT(b.t.hdr->flags, UTAB_F_EH_FRAME);
		CHECK_KIND(&b, find_off(path, "entry", &size), UTAB_CFA_END, "_start");
		check_entry_rule(&b, "main");
		check_function_rows(&b, "outer");
		check_entry_rule(&b, "inner");
		check_entry_rule(&b, "__libc_start_main");
		check_static_plt(&b);
		free_built(&b);
	}
	free(path);
}

/* ---- what the builder refuses ---- */

static int memfile(const void *data, size_t size)
{
	int fd = memfd_create("test", MFD_CLOEXEC);

	if (fd >= 0 && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return -1;
	}
	return fd;
}

static void check_refused(const char *what, const void *data, size_t size, int want_rc,
			  const char *want_why)
{
	char why[256] = "";
	void *buf = NULL;
	size_t out_size = 0;
	int fd = memfile(data, size), rc;

	test_ctx = what;
	if (!CHECK(fd >= 0))
		return;
	rc = utabbuild_fd(fd, &buf, &out_size, NULL, why, sizeof(why));
	CHECK_INT(rc, want_rc);
	CHECK(strstr(why, want_why), "why: \"%s\", expected \"%s\" in it", why, want_why);
	CHECK(!buf && !out_size, "outputs untouched on failure");
	/* The same answer from the sandboxed helper, which goes on serving. */
	why[0] = 0;
	rc = sandbox_build(fd, &buf, &out_size, why, sizeof(why));
	close(fd);
	CHECK_INT(rc, want_rc);
	CHECK(strstr(why, want_why), "helper's why: \"%s\", expected \"%s\" in it", why, want_why);
	free(buf);
	test_ctx = "";
}

static void test_errors(void)
{
	Elf64_Ehdr eh = {
		.e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB,
			     EV_CURRENT },
		.e_type = ET_DYN,
		.e_machine = EM_X86_64,
		.e_version = EV_CURRENT,
		.e_ehsize = sizeof(Elf64_Ehdr),
	};

	check_refused("text", "hello, world\n", 13, -ENOEXEC, "not an ELF file");
	check_refused("empty", "", 0, -ENOEXEC, "not an ELF file");
	check_refused("bare ELF header", &eh, sizeof(eh), -ENOENT, "no .eh_frame or .debug_frame");
	eh.e_machine = EM_AARCH64;
	check_refused("aarch64", &eh, sizeof(eh), -ENOEXEC, "x86_64 only");
}

/* The reply to a build-id request: status 0, no fd, the build-id the file has. */
static void check_build_id_reply(int sock, uint32_t id, int file)
{
	struct uwp_reply rep;
	uint8_t want[20];
	size_t len = 0;
	int fd;
	ssize_t n = recv_reply(sock, &rep, &fd);

	if (!CHECK_INT(n, sizeof(rep)))
		return;
	CHECK_INT(rep.id, id);
	CHECK_INT(rep.status, 0);
	CHECK(fd < 0, "no fd with a build-id");
	if (CHECK_INT(buildid_read_fd(file, want, sizeof(want), &len), 0))
		CHECK(rep.build_id_len == len && !memcmp(rep.build_id, want, len),
		      "the helper's build-id is the file's (%u bytes)", rep.build_id_len);
	if (fd >= 0)
		close(fd);
}

/* The reply to request id carries a sealed memfd with a table utab_check() accepts. */
static void check_table_reply(int sock, uint32_t id)
{
	struct uwp_reply rep;
	int fd, seals;
	ssize_t n = recv_reply(sock, &rep, &fd);
	struct stat st;
	struct utab t;
	char why[256];
	void *m;

	if (!CHECK_INT(n, sizeof(rep)))
		return;
	CHECK_INT(rep.magic, UWP_MAGIC);
	CHECK_INT(rep.id, id);
	CHECK_INT(rep.status, 0);
	if (!CHECK(fd >= 0, "a memfd with the table: %s", rep.why))
		return;
	seals = fcntl(fd, F_GET_SEALS);
	CHECK_INT(seals, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
	CHECK(fstat(fd, &st) == 0 && (uint64_t)st.st_size == rep.size, "size %llu",
	      (unsigned long long)rep.size);
	m = mmap(NULL, rep.size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (CHECK(m != MAP_FAILED)) {
		CHECK(utab_check(m, rep.size, &t, why, sizeof(why)) == 0, "%s", why);
		munmap(m, rep.size);
	}
	CHECK(rep.build_ns > 0);
	CHECK(rep.build_id_len == 20, "the table reply carries the build-id (%u bytes)",
	      rep.build_id_len);
	close(fd);
}

static void check_error_reply(int sock, uint32_t id, int status, const char *want_why)
{
	struct uwp_reply rep;
	int fd;
	ssize_t n = recv_reply(sock, &rep, &fd);

	if (!CHECK_INT(n, sizeof(rep)))
		return;
	CHECK_INT(rep.id, id);
	CHECK_INT(rep.status, status);
	CHECK(fd < 0, "no fd with an error");
	rep.why[sizeof(rep.why) - 1] = 0;
	CHECK(strstr(rep.why, want_why), "why \"%s\", expected \"%s\" in it", rep.why, want_why);
	if (fd >= 0)
		close(fd);
}

/* Privileges as /proc says: under root the helper must have given everything up. */
static void check_privileges(pid_t pid)
{
	char path[64], line[256];
	FILE *f;
	bool nnp = false, capeff0 = false, capbnd0 = false, filter = false;
	unsigned uid = 0;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!CHECK((f = fopen(path, "re")) != NULL))
		return;
	while (fgets(line, sizeof(line), f)) {
		nnp |= !strcmp(line, "NoNewPrivs:\t1\n");
		capeff0 |= !strcmp(line, "CapEff:\t0000000000000000\n");
		capbnd0 |= !strcmp(line, "CapBnd:\t0000000000000000\n");
		filter |= !strcmp(line, "Seccomp:\t2\n");
		sscanf(line, "Uid:\t%*u\t%u", &uid);
	}
	fclose(f);
	CHECK(nnp, "no_new_privs set");
	CHECK(capeff0, "no effective capability");
	CHECK(filter, "a seccomp filter");
	if (geteuid() == 0) {
		CHECK(capbnd0, "empty bounding set");
		CHECK_INT(uid, 65534);
	}
}

static void test_protocol(void)
{
	struct helper h;
	int libc = open(LIBC, O_RDONLY | O_CLOEXEC), null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	int txt = memfile("not ELF\n", 8), status = -1;

	test_ctx = "protocol";
	if (!helper_start(&h))
		return;
	CHECK_INT(send_request(h.sock, UWP_MAGIC, 1, libc), 0);
	CHECK_INT(send_request(h.sock, UWP_MAGIC, 2, null), 0);
	CHECK_INT(send_request(h.sock, UWP_MAGIC, 3, -1), 0);
	CHECK_INT(send_request(h.sock, 0x12345678, 4, libc), 0);
	CHECK_INT(send_request(h.sock, UWP_MAGIC, 5, txt), 0);
	CHECK_INT(send_request(h.sock, UWP_MAGIC, 6, libc), 0);
	check_table_reply(h.sock, 1);
	check_error_reply(h.sock, 2, -ENOEXEC, "not a regular file");
	check_error_reply(h.sock, 3, -EBADF, "no file descriptor");
	check_error_reply(h.sock, 4, -EINVAL, "bad request");
	check_error_reply(h.sock, 5, -ENOEXEC, "not an ELF file");
	check_table_reply(h.sock, 6);
	/* Only the build-id (the recorder asks this for every mapped file). */
	CHECK_INT(send_kind(h.sock, UWP_MAGIC, 10, UWP_BUILD_ID, libc), 0);
	CHECK_INT(send_kind(h.sock, UWP_MAGIC, 11, UWP_BUILD_ID, txt), 0);
	CHECK_INT(send_kind(h.sock, UWP_MAGIC, 12, 7, libc), 0);
	check_build_id_reply(h.sock, 10, libc);
	check_error_reply(h.sock, 11, -ENOEXEC, "its build-id could not be read");
	check_error_reply(h.sock, 12, -EINVAL, "unknown request kind 7");
	check_privileges(h.pid);
	shutdown(h.sock, SHUT_WR); /* EOF: the helper ends with status 0 */
	CHECK(waitpid(h.pid, &status, 0) == h.pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "helper status %#x", status);
	close(h.sock);

	/* Killed in the middle of a request: the recorder sees EOF, not a hang. */
	if (helper_start(&h)) {
		struct uwp_reply rep;
		int fd;

		CHECK_INT(send_request(h.sock, UWP_MAGIC, 7, libc), 0);
		kill(h.pid, SIGKILL);
		waitpid(h.pid, &status, 0);
		ssize_t n = recv_reply(h.sock, &rep, &fd);

		/* A peer that dies with our request unread resets the connection. */
		CHECK(n == 0 || n == -ECONNRESET, "recv after the helper died: %zd", n);
		close(h.sock);
	}
	close(libc);
	close(null);
	close(txt);
	test_ctx = "";
}

int main(void)
{
	test_libc();
	test_ldso_libstdcxx();
	test_own();
	test_dbgframe();
	test_static();
	test_errors();
	test_protocol();
	sandbox_stop();
	return check_done("test-utab-build");
}
