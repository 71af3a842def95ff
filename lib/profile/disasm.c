/* disasm.c — instruction text from machine code with capstone. */
#include "profile/disasm.h"

#include <capstone/capstone.h>
#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/util.h"

/* Capstone's architecture and mode for an ELF machine: false when not supported. */
static bool arch_of(int machine, cs_arch *ret_arch, cs_mode *ret_mode)
{
	switch (machine) {
	case EM_X86_64:
		*ret_arch = CS_ARCH_X86;
		*ret_mode = CS_MODE_64;
		return true;
	case EM_386:
		*ret_arch = CS_ARCH_X86;
		*ret_mode = CS_MODE_32;
		return true;
	case EM_AARCH64:
		*ret_arch = CS_ARCH_ARM64;
		*ret_mode = CS_MODE_ARM;
		return true;
	}
	return false;
}

/* One decoded instruction onto the list. 0 or -ENOMEM. */
static int add(struct disasm_insn **list, size_t *n, size_t *cap, uint64_t addr, uint32_t size,
	       const char *mnemonic, const char *ops)
{
	struct disasm_insn *in;

	if (GROW(*list, *cap, *n + 1) < 0)
		return -ENOMEM;
	in = &(*list)[(*n)++];
	in->addr = addr;
	in->size = size;
	if (ops && ops[0])
		snprintf(in->text, sizeof(in->text), "%-6s %s", mnemonic, ops);
	else
		snprintf(in->text, sizeof(in->text), "%s", mnemonic);
	return 0;
}

/* The bytes from ADDR (LEN left) to the first of STARTS after it, or LEN. */
static size_t bad_span(uint64_t addr, size_t len, const uint64_t *starts, size_t n_starts)
{
	size_t i = starts ? util_count_le(starts, n_starts, addr) : 0;

	return i < n_starts && starts[i] - addr < len ? (size_t)(starts[i] - addr) : len;
}

int disasm_code(int machine, const uint8_t *code, size_t len, uint64_t addr, const uint64_t *starts,
		size_t n_starts, struct disasm_insn **ret, size_t *ret_n, char *why,
		size_t why_size)
{
	struct disasm_insn *list = NULL;
	size_t n = 0, cap = 0;
	cs_arch arch;
	cs_mode mode;
	csh h;
	cs_insn *insn;
	int r = 0;

	if (!arch_of(machine, &arch, &mode)) {
		snprintf(why, why_size, "no disassembler for ELF machine %d", machine);
		return -ENOTSUP;
	}
	if (cs_open(arch, mode, &h) != CS_ERR_OK) {
		snprintf(why, why_size, "capstone cannot open its disassembler for machine %d",
			 machine);
		return -ENOTSUP;
	}
	if (arch == CS_ARCH_X86)
		cs_option(h, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	insn = cs_malloc(h);
	while (insn && len && r == 0) {
		const uint8_t *p = code;
		size_t left = len;
		uint64_t a = addr;

		if (!cs_disasm_iter(h, &p, &left, &a, insn)) {
			size_t skip = bad_span(addr, len, starts, n_starts);

			r = add(&list, &n, &cap, addr, (uint32_t)skip, "(bad)", NULL);
			code += skip;
			len -= skip;
			addr += skip;
			continue;
		}
		r = add(&list, &n, &cap, addr, insn->size, insn->mnemonic, insn->op_str);
		code = p;
		len = left;
		addr = a;
	}
	if (insn)
		cs_free(insn, 1);
	else
		r = -ENOMEM;
	cs_close(&h);
	if (r < 0) {
		free(list);
		snprintf(why, why_size, "out of memory");
		return r;
	}
	*ret = list;
	*ret_n = n;
	return 0;
}
