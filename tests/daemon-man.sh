#!/bin/bash
# daemon-man.sh — the man pages: every option of each --help is documented in its page, and
# the pages format without warnings.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
. "$top_srcdir/tests/daemon-lib.sh"

M="$top_srcdir/man"
# options HELP-FILE: the long options a text mentions, one per line.
options() {
	sed 's/\\-/-/g' "$1" | grep -oE -- '--[a-z][a-z-]+' | sort -u
}
check_page() { # check_page PAGE COMMAND...
	local page=$1
	shift
	"$@" --help >"$T/help" || fail "$* --help"
	options "$T/help" >"$T/help.opts"
	options "$M/$page" >"$T/page.opts"
	missing=$(comm -23 "$T/help.opts" "$T/page.opts" | tr '\n' ' ')
	[ -z "$missing" ] || fail "$page does not document what '$* --help' shows: $missing"
	ok "$page documents every option of '$* --help'"
}
check_page ringprof-record.1 "$RP" record
check_page ringprof-report.1 "$RP" report
check_page ringprofd.8 "$RPD"
for key in $(sed -n 's/^#\([A-Z][A-Za-z]*\)=.*/\1/p' "$top_srcdir/systemd/ringprofd.conf"); do
	grep -q "^\.BI $key= " "$M/ringprofd.conf.5" || fail "ringprofd.conf.5 does not document $key="
done
ok "ringprofd.conf.5 documents every setting of the shipped ringprofd.conf"

command -v groff >/dev/null || skip "groff is not installed: formatting not checked"
for page in ringprof-record.1 ringprof-report.1 ringprofd.8 ringprofd.conf.5; do
	groff -man -Tutf8 -ww -z "$M/$page" >"$T/groff" 2>&1
	[ ! -s "$T/groff" ] || fail "$page: $(head -3 "$T/groff")"
	ok "$page formats without warnings"
done
exit 0
