#!/bin/bash
# html-lint.sh — the lint of report --html's page scripts (report/html/*.js): eslint, at the
# version tests/web/package.json pins (setup.sh installs it), with report/html's own
# eslint.config.cjs: eslint's recommended rules, only the browser globals the pages use, no
# request or evaluated code, and the format (tabs, semicolons, quotes). It must find what it is
# for: a script with an undefined name, a request and a misindented line fails it, each named.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

WEB="$top_srcdir/tests/web"
ESLINT="$WEB/node_modules/.bin/eslint"
CONF="$top_srcdir/report/html/eslint.config.cjs"
command -v node >/dev/null || fail "node is not installed: run setup.sh"
[ -x "$ESLINT" ] || fail "eslint is not installed in $WEB/node_modules: run setup.sh"
want=$(sed -n 's/.*"eslint": "\([0-9.]*\)".*/\1/p' "$WEB/package.json")
have=$("$ESLINT" --version)
check_eq "$have" "v$want" "eslint is the version tests/web/package.json pins"

# From the scripts' folder: eslint lints no file outside the folder it runs in (it warns, and
# a warning fails here).
for f in common.js page.js diff.js; do
	(cd "$top_srcdir/report/html" && "$ESLINT" --max-warnings 0 --config eslint.config.cjs "$f") >"$T/lint.out" 2>&1 ||
		fail "report/html/$f: $(grep -v "^$" "$T/lint.out")"
	ok "report/html/$f: no lint error or warning"
done

# The lint itself: a copy of page.js with three faults, each reported by its rule.
mkdir -p "$T/html"
cp "$top_srcdir/report/html/page.js" "$T/html/page.js"
cat >>"$T/html/page.js" <<'JS'
function lintProbe() {
	return fetch(undefinedName);
}
lintProbe();
function lintIndent() {
  return 1;
}
lintIndent();
JS
if (cd "$T" && "$ESLINT" --config "$CONF" html/page.js) >"$T/bad.out" 2>&1; then
	fail "eslint passed a script with faults: $(cat "$T/bad.out")"
fi
check_grep "'undefinedName' is not defined +no-undef" "$T/bad.out" "an undefined name is found"
check_grep "Unexpected use of 'fetch' +no-restricted-globals" "$T/bad.out" "a request (fetch) is found"
check_grep "Expected indentation of 1 tab but found 2 spaces +indent" "$T/bad.out" "a line indented with spaces is found"
