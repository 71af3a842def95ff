#!/bin/bash
# layering.sh — the include rules between lib/'s layers and the programs (lib/README):
#
#   lib/base     includes nothing of ours but base
#   lib/format   base, format
#   lib/unwind   base, unwind
#   lib/capture  base, format, unwind, capture
#   lib/elf      base, unwind, elf
#   lib/profile  base, format, elf, profile
#   lib/cli      base, cli
#   record/, daemon/   base, format, capture, cli (and their own files): the privileged programs
#   report/            base, format, profile, cli (and its own files)
#   push/              base, format, profile, cli (and its own files): the pusher
#   helper/            base, unwind, elf, cli (the unprivileged unwind-table builder)
#   front/             cli only
#
# and one adapter per third-party library: <zstd.h> only in lib/format/zframe.c, libdw and
# libelf headers (elfutils/*, gelf.h, libelf.h, dwarf.h; not glibc's elf.h) only in
# lib/profile/symbolizer.c, lib/profile/srcinfo.c (annotate's lines and code) and lib/elf/*
# (symbols, digests, the helper's unwind-table builder and symbol capture), capstone's <capstone/*.h>
# only in lib/profile/disasm.c (annotate's disassembler), libiberty's
# <libiberty/*.h> only in lib/profile/demangle.c, <protobuf-c/*.h> only in lib/profile/pprof.c
# (the generated pprof.pb-c.h includes protobuf-c; it is not in the tree), <zlib.h> only in
# lib/profile/gzip.c, <curl/curl.h> only in push/http.c (the pusher's HTTP adapter). A
# program folder never includes another's files. Each broken rule is named with the file.
# And the binaries: the privileged programs (ringprof-record, ringprofd) need no libdw or
# libelf (readelf -d: their NEEDED entries), the helper does (else the check sees nothing).
. "$(dirname "$0")/lib.sh"

S=$top_srcdir
allowed() { # allowed DIR: the lib layers a file in DIR may include
	case "$1" in
	lib/base) echo "base" ;;
	lib/format) echo "base format" ;;
	lib/unwind) echo "base unwind" ;;
	lib/capture) echo "base format unwind capture" ;;
	lib/elf) echo "base unwind elf" ;;
	lib/profile) echo "base format elf profile" ;;
	lib/cli) echo "base cli" ;;
	record | daemon) echo "base format capture cli" ;;
	report | push) echo "base format profile cli" ;;
	helper) echo "base unwind elf cli" ;;
	front) echo "cli" ;;
	*) echo "?" ;;
	esac
}

errors="$T/errors"
: >"$errors"
n_files=0
cd "$S" || fail "no source tree at $S"
for f in lib/*/*.[ch] record/*.[ch] report/*.[ch] push/*.[ch] helper/*.[ch] daemon/*.[ch] front/*.[ch]; do
	[ -f "$f" ] || continue
	n_files=$((n_files + 1))
	dir=$(dirname "$f")
	ok_layers=$(allowed "$dir")
	[ "$ok_layers" != "?" ] || { echo "$f: in a folder the layering rules do not know ($dir)" >>"$errors"; continue; }
	grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" | while IFS= read -r line; do
		inc=$(printf '%s\n' "$line" | sed 's/.*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/')
		case "$inc" in
		*/*)
			layer=${inc%%/*}
			case " $ok_layers " in
			*" $layer "*) ;;
			*) echo "$f:${line%%:*}: includes \"$inc\": ${dir} may include only ${ok_layers:-nothing of lib/} (the $layer layer is off limits)" ;;
			esac
			;;
		*)
			# A bare name is a file of the same folder (programs' own headers, config.h).
			[ -f "$dir/$inc" ] || [ "$inc" = config.h ] ||
				echo "$f:${line%%:*}: includes \"$inc\", which is not in $dir: name lib headers by their layer (\"base/util.h\")"
			;;
		esac
	done >>"$errors"
	grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*<\(zstd\|zstd_errors\)\.h>' "$f" | while IFS=: read -r ln _; do
		[ "$f" = lib/format/zframe.c ] ||
			echo "$f:$ln: includes zstd: only lib/format/zframe.c, the zstd adapter, may"
	done >>"$errors"
	grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*<\(elfutils/[^>]*\|gelf\.h\|libelf\.h\|dwarf\.h\)>' "$f" |
		while IFS=: read -r ln _; do
			[ "$f" = lib/profile/symbolizer.c ] || [ "$f" = lib/profile/srcinfo.c ] ||
				[ "${f%/*}" = lib/elf ] ||
				echo "$f:$ln: includes a libdw/libelf header: only lib/profile/symbolizer.c, lib/profile/srcinfo.c, the libdw adapters, and lib/elf may"
		done >>"$errors"
	grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*<libiberty/' "$f" | while IFS=: read -r ln _; do
		[ "$f" = lib/profile/demangle.c ] ||
			echo "$f:$ln: includes libiberty: only lib/profile/demangle.c, the demangler's adapter, may"
	done >>"$errors"
	grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*<protobuf-c/[^>]*>' "$f" | while IFS=: read -r ln _; do
		[ "$f" = lib/profile/pprof.c ] ||
			echo "$f:$ln: includes protobuf-c: only lib/profile/pprof.c, the pprof adapter, may"
	done >>"$errors"
	grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*<capstone/' "$f" | while IFS=: read -r ln _; do
		[ "$f" = lib/profile/disasm.c ] ||
			echo "$f:$ln: includes capstone: only lib/profile/disasm.c, the disassembler's adapter, may"
	done >>"$errors"
	grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*<zlib\.h>' "$f" | while IFS=: read -r ln _; do
		[ "$f" = lib/profile/gzip.c ] ||
			echo "$f:$ln: includes zlib: only lib/profile/gzip.c, the zlib adapter, may"
	done >>"$errors"
	grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*<curl/' "$f" | while IFS=: read -r ln _; do
		[ "$f" = push/http.c ] ||
			echo "$f:$ln: includes curl: only push/http.c, the pusher's HTTP adapter, may"
	done >>"$errors"
done
[ "$n_files" -gt 50 ] || fail "only $n_files source files found under $S: is this the source tree?"
ok "$n_files source files read"
if [ -s "$errors" ]; then
	cat "$errors" >&2
	fail "$(wc -l <"$errors") include(s) break the layering rules (see lib/README)"
fi
ok "every include follows the layering rules"

# The binaries' dynamic dependencies: no ELF or DWARF library where the rings are drained.
needed() { readelf -d "$1" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
command -v readelf >/dev/null || fail "no readelf (binutils) to read the binaries' dynamic dependencies"
for b in ringprof-unwind ringprof-record ringprofd; do
	[ -x "$top_builddir/$b" ] || fail "no $b in $top_builddir: build it first"
done
needed "$top_builddir/ringprof-unwind" | grep -q '^libdw\.so' ||
	fail "ringprof-unwind does not list libdw among its dynamic dependencies: cannot tell"
for b in ringprof-record ringprofd; do
	bad=$(needed "$top_builddir/$b" | grep -E '^lib(dw|elf)\.so' | tr '\n' ' ')
	[ -z "$bad" ] || fail "$b links ${bad% }: the privileged programs must not (lib/README)"
done
ok "ringprof-record and ringprofd link neither libdw nor libelf; ringprof-unwind does"
