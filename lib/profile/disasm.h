/* disasm.h — machine code to instruction text (the capstone adapter of ringprof annotate). */
#ifndef RP_DISASM_H
#define RP_DISASM_H

#include <stddef.h>
#include <stdint.h>

struct disasm_insn {
	uint64_t addr;	/* as given: the first instruction is at the ADDR passed */
	uint32_t size;	/* bytes */
	char text[128]; /* "mov    %rdi,%rax": AT&T syntax on x86, as perf annotate (objdump) */
};

/*
 * The instructions of CODE (LEN bytes at address ADDR) for the ELF machine MACHINE (EM_X86_64,
 * EM_386, EM_AARCH64): 0 with *ret (malloc'd, the caller frees it) and *ret_n, or -errno with a
 * sentence in why (a machine not supported, out of memory). Bytes that do not decode get one
 * entry whose text is "(bad)", as objdump says, covering them up to the next of STARTS (N_STARTS
 * addresses known to begin an instruction, sorted: sampled addresses, line-table rows), where
 * decoding goes on, else to the end; so every byte is accounted for, and an instruction the
 * disassembler does not know (capstone 4 and some AVX-512 mask instructions) hides only the
 * bytes up to the next known start.
 */
int disasm_code(int machine, const uint8_t *code, size_t len, uint64_t addr, const uint64_t *starts,
		size_t n_starts, struct disasm_insn **ret, size_t *ret_n, char *why,
		size_t why_size);

#endif
