/* demangle.c — C++ and Rust symbol names made readable, as perf shows them (the libiberty adapter). */
#include "profile/demangle.h"

#include <libiberty/demangle.h>
#include <stddef.h>

char *demangle_name(const char *name)
{
	/*
	 * Only names that can be mangled reach libiberty: every C symbol of every binary passes
	 * here, and cplus_demangle's auto style would also try old GNU, Java and D spellings
	 * on them. "_Z" is the Itanium C++ ABI and Rust's legacy scheme, "_R" Rust's v0.
	 */
	if (!name || name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return NULL;
	/*
	 * perf's flags when not verbose: no parameter lists, no const qualifiers. The auto
	 * style tries Rust before C++, because legacy Rust names are also valid C++ names
	 * (then "17h<hash>E" would show as a name component).
	 */
	return cplus_demangle(name, DMGL_NO_OPTS);
}
