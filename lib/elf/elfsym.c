/* elfsym.c — which symbols of an ELF file name code, and which one names an address (see
 * elfsym.h). */
#include "elf/elfsym.h"

#include <elfutils/libdw.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"

bool elfsym_wanted(const GElf_Sym *sym, const char *name, bool exec)
{
	int type = GELF_ST_TYPE(sym->st_info);
	unsigned int vis = GELF_ST_VISIBILITY(sym->st_other);

	if (!name || !*name || sym->st_shndx == SHN_UNDEF || sym->st_shndx == SHN_ABS ||
	    sym->st_shndx == SHN_COMMON || !sym->st_value)
		return false;
	if (type == STT_FUNC || type == STT_GNU_IFUNC)
		return true;
	if (type != STT_NOTYPE || !exec || name[0] == '$' || (name[0] == '.' && name[1] == 'L'))
		return false;
	return GELF_ST_BIND(sym->st_info) != STB_LOCAL ||
	       (vis != STV_HIDDEN && vis != STV_INTERNAL);
}

uint32_t elfsym_rank(const GElf_Sym *sym, const char *name)
{
	unsigned int bind = GELF_ST_BIND(sym->st_info), b, us = 0;

	b = bind == STB_GLOBAL ? 3 : bind == STB_WEAK ? 2 : bind == STB_GNU_UNIQUE ? 2 : 1;
	while (name[us] == '_' && us < 15)
		us++;
	return (uint32_t)(sym->st_size > 0) << 24 | b << 20 |
	       (uint32_t)(GELF_ST_TYPE(sym->st_info) != STT_NOTYPE) << 16 | (15 - us) << 8;
}

static int cmp_cand(const void *a, const void *b)
{
	const struct elfsym_cand *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank > y->rank ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

size_t elfsym_select(struct elfsym_cand *c, size_t n)
{
	uint64_t sized_end = 0;
	size_t w = 0;

	qsort(c, n, sizeof(*c), cmp_cand);
	for (size_t i = 0; i < n; i++) {
		uint64_t end;

		if (w && c[i].start == c[w - 1].start)
			continue; /* an alias ranked lower */
		if (c[i].size && c[i].start + c[i].size > c[i].start) {
			end = c[i].start + c[i].size;
			if (end > sized_end)
				sized_end = end;
		} else if (c[i].start < sized_end) {
			continue; /* a label inside a function: the function keeps its name */
		} else {
			size_t j = i + 1;

			while (j < n && c[j].start == c[i].start)
				j++;
			end = j < n ? c[j].start : c[i].start + 1;
			if (c[i].limit > c[i].start && c[i].limit < end)
				end = c[i].limit;
		}
		c[w] = c[i];
		c[w++].size = end - c[i].start;
	}
	return w;
}

/* ---- PLT stubs: synthesized symbols "name@plt", as objdump and perf name them ---- */

/* A dynamic relocation that fills a GOT slot a PLT entry jumps through. */
struct got_slot {
	uint64_t got;	    /* r_offset: the slot's ELF address */
	const char *target; /* the symbol's name in libelf's data; NULL: IRELATIVE */
	uint64_t addend;
};

static int cmp_got_slot(const void *a, const void *b)
{
	const struct got_slot *x = a, *y = b;

	return x->got < y->got ? -1 : x->got > y->got;
}

/* The x86_64 relocations of one SHT_RELA section that name a PLT target, into *SLOTS. */
static int got_slots_of(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct got_slot **slots,
			size_t *n, size_t *cap)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	Elf_Scn *symscn = elf_getscn(elf, sh->sh_link);
	Elf_Data *symdata = symscn ? elf_getdata(symscn, NULL) : NULL;
	GElf_Shdr symsh;
	size_t nrel;

	if (!data || !symdata || !gelf_getshdr(symscn, &symsh) || !sh->sh_entsize)
		return 0;
	nrel = sh->sh_size / sh->sh_entsize;
	for (size_t i = 0; i < nrel; i++) {
		unsigned int type;
		const char *target = NULL;
		GElf_Rela r;
		GElf_Sym sym;

		if (!gelf_getrela(data, (int)i, &r))
			break;
		type = GELF_R_TYPE(r.r_info);
		if (type == R_X86_64_JUMP_SLOT || type == R_X86_64_GLOB_DAT) {
			if (gelf_getsym(symdata, (int)GELF_R_SYM(r.r_info), &sym))
				target = elf_strptr(elf, symsh.sh_link, sym.st_name);
			if (!target || !*target)
				continue;
		} else if (type != R_X86_64_IRELATIVE) {
			continue;
		}
		if (GROW(*slots, *cap, *n + 1) < 0)
			return -ENOMEM;
		(*slots)[(*n)++] = (struct got_slot){ r.r_offset, target, (uint64_t)r.r_addend };
	}
	return 0;
}

/*
 * The entries of one PLT section. Each entry that jumps through a GOT slot (jmp
 * *disp32(%rip), "ff 25", with or without a bnd or endbr64 in front) is named by the
 * relocation of that slot: this holds for lazy and IBT layouts alike, where counting entries
 * in .rela.plt order would not.
 */
static int plt_section(const GElf_Shdr *sh, Elf_Data *data, const struct got_slot *slots,
		       size_t n_slots, elfsym_plt_fn add, void *arg)
{
	uint64_t esz = sh->sh_entsize == 8 || sh->sh_entsize == 16 ? sh->sh_entsize : 16;
	const unsigned char *code = data->d_buf;

	for (uint64_t at = 0; at + esz <= data->d_size && at + esz <= sh->sh_size; at += esz) {
		struct got_slot key, *hit;
		char name[512];
		int32_t disp;
		uint64_t k;
		int rc;

		for (k = 0; k + 6 <= esz && !(code[at + k] == 0xff && code[at + k + 1] == 0x25); k++)
			;
		if (k + 6 > esz)
			continue; /* the PLT header, or a lazy IBT stub: no slot of its own */
		memcpy(&disp, code + at + k + 2, 4);
		key.got = sh->sh_addr + at + k + 6 + (uint64_t)(int64_t)disp;
		hit = bsearch(&key, slots, n_slots, sizeof(*slots), cmp_got_slot);
		if (!hit)
			continue;
		if (hit->target)
			snprintf(name, sizeof(name), "%s@plt", hit->target);
		else
			snprintf(name, sizeof(name), "*ABS*+0x%" PRIx64 "@plt", hit->addend);
		rc = add(arg, sh->sh_addr + at, esz, sh->sh_addr + sh->sh_size, name);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int elfsym_plt(Elf *elf, elfsym_plt_fn add, void *arg)
{
	struct got_slot *slots = NULL;
	size_t n_slots = 0, cap_slots = 0, shstrndx;
	GElf_Ehdr eh;
	Elf_Scn *scn = NULL;
	int rc = 0;

	if (!elf || !gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64 ||
	    elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 0;
	while (rc == 0 && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_RELA && sh.sh_link)
			rc = got_slots_of(elf, scn, &sh, &slots, &n_slots, &cap_slots);
	}
	if (rc == 0 && n_slots)
		qsort(slots, n_slots, sizeof(*slots), cmp_got_slot);
	while (rc == 0 && n_slots && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name ||
		    (strcmp(name, ".plt") && strcmp(name, ".plt.sec") && strcmp(name, ".plt.got")))
			continue;
		data = elf_getdata(scn, NULL);
		if (data && data->d_buf)
			rc = plt_section(&sh, data, slots, n_slots, add, arg);
	}
	free(slots);
	return rc;
}

/* Whether a symbol of ELF's .symtab or .dynsym starts at, or spans, ADDR; the end of the code
 * section holding ADDR in *RET_LIMIT (0 when none does). */
static bool entry_named(Elf *elf, uint64_t addr, uint64_t *ret_limit)
{
	Elf_Scn *scn = NULL;
	bool named = false;

	*ret_limit = 0;
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		GElf_Shdr sh;
		size_t n;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_PROGBITS && (sh.sh_flags & SHF_EXECINSTR) &&
		    addr >= sh.sh_addr && addr < sh.sh_addr + sh.sh_size)
			*ret_limit = sh.sh_addr + sh.sh_size;
		if ((sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) || !sh.sh_entsize ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (size_t i = 1; i < n && !named; i++) {
			GElf_Sym sym;
			int type;

			if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
			    sym.st_shndx >= SHN_LORESERVE)
				continue;
			type = GELF_ST_TYPE(sym.st_info);
			if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_NOTYPE)
				continue;
			named = sym.st_value == addr ||
				(sym.st_value < addr && addr - sym.st_value < sym.st_size);
		}
	}
	return named;
}

static bool has_interp(Elf *elf)
{
	size_t phnum;

	if (elf_getphdrnum(elf, &phnum) != 0)
		return false;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_INTERP)
			return true;
	}
	return false;
}

/* Whether CFI's row at ADDR says the code there has no caller (the return address, x86_64's
 * DWARF register 16, undefined: the outermost frame); the row's range in [*RET_START, *RET_END). */
static bool no_caller_row(Dwarf_CFI *cfi, uint64_t addr, Dwarf_Addr *ret_start, Dwarf_Addr *ret_end)
{
	Dwarf_Op ops_mem[3], *ops = NULL;
	Dwarf_Frame *frame = NULL;
	size_t nops = 1;
	bool undefined;

	if (dwarf_cfi_addrframe(cfi, addr, &frame) != 0)
		return false;
	undefined = dwarf_frame_info(frame, ret_start, ret_end, NULL) >= 0 &&
		    dwarf_frame_register(frame, 16, ops_mem, &ops, &nops) == 0 && nops == 0 &&
		    ops == ops_mem;
	free(frame);
	return undefined;
}

int elfsym_entry(Elf *elf, elfsym_plt_fn add, void *arg)
{
	Dwarf_Addr start, end, s, e;
	uint64_t limit;
	Dwarf_CFI *cfi;
	GElf_Ehdr eh;
	int rc = 0;

	if (!elf || !gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64 || !eh.e_entry ||
	    (eh.e_type != ET_EXEC && (eh.e_type != ET_DYN || !has_interp(elf))) ||
	    entry_named(elf, eh.e_entry, &limit) || !limit)
		return 0;
	cfi = dwarf_getcfi_elf(elf);
	if (!cfi)
		return 0;
	/* The entry code: the rows from e_entry on that say "no caller" (glibc's _start is
	 * cfi_undefined(rip) throughout), at most 16 of them. */
	if (no_caller_row(cfi, eh.e_entry, &start, &end) && start == eh.e_entry) {
		for (int i = 0;
		     i < 16 && end < limit && no_caller_row(cfi, end, &s, &e) && s == end; i++)
			end = e;
		if (end > start && end <= limit)
			rc = add(arg, start, end - start, limit, "_start");
	}
	dwarf_cfi_end(cfi);
	return rc;
}

/* Whether the sized functions of symbol table SCN set up frame pointers. */
static bool frame_pointers(Elf *elf, Elf_Scn *scn)
{
	static const unsigned char push_mov[] = { 0x55, 0x48, 0x89, 0xe5 };
	static const unsigned char endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n_funcs = 0, n_fp = 0, n;
	GElf_Shdr sh;

	if (!data || !gelf_getshdr(scn, &sh) || !sh.sh_entsize)
		return false;
	n = sh.sh_size / sh.sh_entsize;
	for (size_t i = 1; i < n && n_funcs < 4096; i++) {
		unsigned char code[8];
		GElf_Shdr csh;
		Elf_Scn *cscn;
		Elf_Data *cd;
		uint64_t at;
		GElf_Sym sym;

		if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_size < 8 || sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE)
			continue;
		cscn = elf_getscn(elf, sym.st_shndx);
		if (!cscn || !gelf_getshdr(cscn, &csh) || csh.sh_type != SHT_PROGBITS ||
		    sym.st_value < csh.sh_addr || sym.st_value - csh.sh_addr + 8 > csh.sh_size)
			continue;
		cd = elf_getdata(cscn, NULL);
		at = sym.st_value - csh.sh_addr;
		if (!cd || !cd->d_buf || at + 8 > cd->d_size)
			continue;
		memcpy(code, (const char *)cd->d_buf + at, 8);
		n_funcs++;
		n_fp += !memcmp(code, push_mov, 4) ||
			(!memcmp(code, endbr64, 4) && !memcmp(code + 4, push_mov, 4));
	}
	/* Leaf functions go without one also where frame pointers are kept
	 * (-momit-leaf-frame-pointer), and code built without them hardly ever starts so (only
	 * functions with alloca or VLAs do): a quarter tells them apart. */
	return n_fp >= 2 && 4 * n_fp >= n_funcs;
}

unsigned elfsym_unwind_info(Elf *elf)
{
	Elf_Scn *symtab = NULL, *dynsym = NULL;
	GElf_Ehdr eh;
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	unsigned flags = 0;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			symtab = scn;
		else if (sh.sh_type == SHT_DYNSYM)
			dynsym = scn;
		if (!strcmp(name, ".eh_frame") && sh.sh_type != SHT_NOBITS && sh.sh_size > 4)
			flags |= ELFSYM_EH_FRAME;
		else if (!strcmp(name, ".debug_frame") || !strcmp(name, ".zdebug_frame"))
			flags |= ELFSYM_DEBUG_FRAME;
		else if (!strcmp(name, ".go.buildinfo") || !strcmp(name, ".gopclntab") ||
			 !strcmp(name, ".note.go.buildid"))
			flags |= ELFSYM_GO;
	}
	if (gelf_getehdr(elf, &eh) && eh.e_machine == EM_X86_64 &&
	    frame_pointers(elf, symtab ? symtab : dynsym))
		flags |= ELFSYM_FRAME_POINTERS;
	return flags;
}
