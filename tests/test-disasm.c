/* test-disasm.c — the capstone adapter: known x86-64 and AArch64 bytes give objdump's
 * instructions (AT&T on x86) at the right addresses and sizes; bytes that do not decode end
 * the list with "(bad)" covering the rest, or up to the next known instruction start; an unknown
 * machine is refused with a sentence. */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>

#include "check.h"
#include "profile/disasm.h"

/* Bytes that do not decode (0x06, push %es, invalid in 64-bit mode; capstone 4 says the same
 * of some AVX-512 mask moves, kmovd %ecx,%k2 in libc's memcmp-evex) between known instruction
 * starts: "(bad)" covers them up to the next start, and decoding goes on there; without known
 * starts, to the end. */
static void resync(void)
{
	/* mov $-1,%ecx; four bad bytes; test %eax,%eax; ret */
	static const uint8_t code[] = { 0xb9, 0xff, 0xff, 0xff, 0xff, 0x06,
					0x06, 0x06, 0x06, 0x85, 0xc0, 0xc3 };
	static const uint64_t starts[] = { 0x100, 0x105, 0x109, 0x10b, 0x200 };
	struct disasm_insn *in = NULL;
	size_t n = 0;
	char why[256] = "";

	test_ctx = "resync";
	if (!CHECK_INT(disasm_code(EM_X86_64, code, sizeof(code), 0x100, starts, 5, &in, &n, why,
				   sizeof(why)),
		       0))
		return;
	if (CHECK_INT(n, 4)) {
		CHECK_U64(in[0].addr, 0x100);
		CHECK_U64(in[1].addr, 0x105);
		CHECK_STR(in[1].text, "(bad)");
		CHECK_INT(in[1].size, 4);
		CHECK_U64(in[2].addr, 0x109);
		CHECK_STR(in[2].text, "testl  %eax, %eax");
		CHECK_U64(in[3].addr, 0x10b);
		CHECK_STR(in[3].text, "retq");
	}
	free(in);
	in = NULL;
	test_ctx = "resync, no starts";
	if (CHECK_INT(disasm_code(EM_X86_64, code, sizeof(code), 0x100, NULL, 0, &in, &n, why,
				  sizeof(why)),
		      0) &&
	    CHECK_INT(n, 2)) {
		CHECK_STR(in[1].text, "(bad)");
		CHECK_INT(in[1].size, 7);
	}
	free(in);
}

static void x86_64(void)
{
	/* mov %rdi,%rax; add $0x1,%rdx; ret */
	static const uint8_t code[] = { 0x48, 0x89, 0xf8, 0x48, 0x83, 0xc2, 0x01, 0xc3 };
	struct disasm_insn *in = NULL;
	size_t n = 0;
	char why[256] = "";

	test_ctx = "x86-64";
	if (!CHECK_INT(disasm_code(EM_X86_64, code, sizeof(code), 0x1000, NULL, 0, &in, &n, why,
				   sizeof(why)),
		       0))
		return;
	if (CHECK_INT(n, 3)) {
		CHECK_U64(in[0].addr, 0x1000);
		CHECK_INT(in[0].size, 3);
		CHECK_STR(in[0].text, "movq   %rdi, %rax");
		CHECK_U64(in[1].addr, 0x1003);
		CHECK_STR(in[1].text, "addq   $1, %rdx");
		CHECK_U64(in[2].addr, 0x1007);
		CHECK_STR(in[2].text, "retq");
	}
	free(in);
}

static void bad_bytes(void)
{
	/* nop, then 0x06 (push %es: invalid in 64-bit mode) and a byte after it */
	static const uint8_t code[] = { 0x90, 0x06, 0x90 };
	struct disasm_insn *in = NULL;
	size_t n = 0;
	char why[256] = "";

	test_ctx = "bad bytes";
	if (!CHECK_INT(disasm_code(EM_X86_64, code, sizeof(code), 0x10, NULL, 0, &in, &n, why,
				   sizeof(why)),
		       0))
		return;
	if (CHECK_INT(n, 2)) {
		CHECK_STR(in[0].text, "nop");
		CHECK_U64(in[1].addr, 0x11);
		CHECK_INT(in[1].size, 2); /* the rest, accounted for */
		CHECK_STR(in[1].text, "(bad)");
	}
	free(in);
}

static void aarch64(void)
{
	/* ret */
	static const uint8_t code[] = { 0xc0, 0x03, 0x5f, 0xd6 };
	struct disasm_insn *in = NULL;
	size_t n = 0;
	char why[256] = "";

	test_ctx = "aarch64";
	if (!CHECK_INT(disasm_code(EM_AARCH64, code, sizeof(code), 0, NULL, 0, &in, &n, why,
				   sizeof(why)),
		       0))
		return;
	if (CHECK_INT(n, 1))
		CHECK_STR(in[0].text, "ret");
	free(in);
}

static void unknown_machine(void)
{
	static const uint8_t code[] = { 0 };
	struct disasm_insn *in = NULL;
	size_t n = 0;
	char why[256] = "";

	test_ctx = "unknown machine";
	CHECK_INT(disasm_code(EM_NONE, code, sizeof(code), 0, NULL, 0, &in, &n, why, sizeof(why)),
		  -ENOTSUP);
	CHECK_STR(why, "no disassembler for ELF machine 0");
	CHECK(in == NULL && n == 0, "out-parameters touched on failure");
}

int main(void)
{
	x86_64();
	bad_bytes();
	resync();
	aarch64();
	unknown_machine();
	return check_done("test-disasm");
}
