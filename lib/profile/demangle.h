/* demangle.h — C++ and Rust symbol names made readable, as perf shows them (the libiberty adapter). */
#ifndef RP_DEMANGLE_H
#define RP_DEMANGLE_H

/*
 * NAME demangled the way perf 6.1 (linked with libiberty) prints it: C++ (Itanium ABI, "_Z"),
 * Rust legacy ("_ZN...17h<hash>E", the hash dropped) and Rust v0 ("_R..."), without parameter
 * lists ("ByMixedKey::operator()", "core::fmt::write"). Returns a malloc'd string the caller
 * frees, or NULL when NAME is not a mangled name (plain C names, "main") or memory ran out:
 * then the caller shows NAME as it is.
 */
char *demangle_name(const char *name);

#endif
