/* test-disasm.c — the capstone adapter: known x86-64 and AArch64 bytes give objdump's
 * instructions (AT&T on x86) at the right addresses and sizes; bytes that do not decode end
 * the list with "(bad)" covering the rest; an unknown machine is refused with a sentence. */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>

#include "check.h"
#include "profile/disasm.h"

static void x86_64(void)
{
	/* mov %rdi,%rax; add $0x1,%rdx; ret */
	static const uint8_t code[] = { 0x48, 0x89, 0xf8, 0x48, 0x83, 0xc2, 0x01, 0xc3 };
	struct disasm_insn *in = NULL;
	size_t n = 0;
	char why[256] = "";

	test_ctx = "x86-64";
	if (!CHECK_INT(disasm_code(EM_X86_64, code, sizeof(code), 0x1000, &in, &n, why, sizeof(why)),
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
	if (!CHECK_INT(disasm_code(EM_X86_64, code, sizeof(code), 0x10, &in, &n, why, sizeof(why)),
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
	if (!CHECK_INT(disasm_code(EM_AARCH64, code, sizeof(code), 0, &in, &n, why, sizeof(why)), 0))
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
	CHECK_INT(disasm_code(EM_NONE, code, sizeof(code), 0, &in, &n, why, sizeof(why)), -ENOTSUP);
	CHECK_STR(why, "no disassembler for ELF machine 0");
	CHECK(in == NULL && n == 0, "out-parameters touched on failure");
}

int main(void)
{
	x86_64();
	bad_bytes();
	aarch64();
	unknown_machine();
	return check_done("test-disasm");
}
