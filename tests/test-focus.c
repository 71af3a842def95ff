/* test-focus.c — focus filters (-S, --focus, --ignore) and source lines on the golden recording.
 *
 * The filters' own parsing (names, regexes, the description), then the golden v2 recording
 * read without a filter, each filter's expected kept samples counted from its rows by name,
 * and read again with the filter: the session keeps exactly those, and says how many there
 * were before. With srcline, every symbol of the workload's own code has a line of
 * rp-workload.c, symbols of one line share its key, and a symbol's lines count under it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "golden.h"
#include "profile/focus.h"
#include "profile/session.h"

/* The golden recording read with focus F (NULL: none) and srcline as asked; NULL on failure. */
static struct session *read_golden(struct focus *f, bool srcline)
{
	struct session_opts so = { .symfs = symfs, .debuginfod_timeout = 5, .srcline = srcline };
	struct session *s;
	char why[256];

	so.filter.focus = f;
	s = session_new(&so);
	if (!CHECK(s != NULL))
		return NULL;
	if (!CHECK_INT(session_add_file(s, rec_path, why, sizeof(why)), 0) ||
	    !CHECK_INT(session_finish(s), 0))
		return session_free(s);
	return s;
}

static const char *name_of(const struct session *s, uint32_t sym)
{
	const char *n = session_sym(s, sym)->name;

	return n ? n : "";
}

/* Whether a row passes: -S LEAF (NULL: any), a frame named FOCUS (NULL: any), none IGNORE. */
static bool row_passes(const struct session *s, const struct session_row *r, const char *leaf,
		       const char *focus, const char *ignore)
{
	uint32_t n;
	const uint32_t *st = session_stack(s, r->stack, &n);
	bool focused = !focus;

	if (leaf && (!n || strcmp(name_of(s, st[0]), leaf)))
		return false;
	for (uint32_t k = 0; k < n; k++) {
		if (ignore && strcmp(name_of(s, st[k]), ignore) == 0)
			return false;
		focused |= focus && strcmp(name_of(s, st[k]), focus) == 0;
	}
	return focused;
}

static uint64_t expected(const struct session *s, const char *leaf, const char *focus,
			 const char *ignore)
{
	size_t n;
	const struct session_row *r = session_rows(s, &n);
	uint64_t sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += row_passes(s, &r[i], leaf, focus, ignore) ? r[i].count : 0;
	return sum;
}

static void test_parse(void)
{
	struct focus *f = focus_new();
	char why[256] = "", desc[256];

	test_ctx = "parse";
	CHECK(!focus_active(f));
	CHECK_INT(focus_add_symbols(f, "a,,b"), -EINVAL);
	CHECK_INT(focus_add_symbols(f, ""), -EINVAL);
	CHECK_INT(focus_set_focus(f, "(", why, sizeof(why)), -EINVAL);
	CHECK(why[0] != '\0', "no sentence for a bad regex");
	focus_free(f);
	f = focus_new();
	CHECK_INT(focus_add_symbols(f, "x,y"), 0);
	CHECK_INT(focus_set_focus(f, "^main$", why, sizeof(why)), 0);
	CHECK_INT(focus_set_ignore(f, "spin", why, sizeof(why)), 0);
	CHECK(focus_active(f));
	focus_describe(f, desc, sizeof(desc));
	CHECK_STR(desc, "-S x,y, --focus '^main$', --ignore 'spin'");
	CHECK(focus_free(f) == NULL);
	CHECK(focus_free(NULL) == NULL);
}

/* Read with a filter of LEAF, FOCUS, IGNORE (regexes anchored to match the whole name). */
static void test_filter(const struct session *all, const char *leaf, const char *focus,
			const char *ignore)
{
	struct focus *f = focus_new();
	char why[256], re[128];
	struct session *s;
	uint64_t want = expected(all, leaf, focus, ignore);

	if (leaf)
		CHECK_INT(focus_add_symbols(f, leaf), 0);
	snprintf(re, sizeof(re), "^%s$", focus ? focus : "");
	if (focus)
		CHECK_INT(focus_set_focus(f, re, why, sizeof(why)), 0);
	snprintf(re, sizeof(re), "^%s$", ignore ? ignore : "");
	if (ignore)
		CHECK_INT(focus_set_ignore(f, re, why, sizeof(why)), 0);
	s = read_golden(f, false);
	if (s) {
		const struct session_totals *t = session_totals(s);

		CHECK_U64(t->samples, want);
		CHECK_U64(t->samples_focus_in, session_totals(all)->samples);
		CHECK(want > 0, "the filter keeps nothing: the test proves little");
		CHECK(session_focus(s) == f);
	}
	session_free(s);
	focus_free(f);
}

static void test_srcline(void)
{
	struct session *s = read_golden(NULL, true);
	size_t n, lines = 0;
	const struct session_row *r;

	test_ctx = "srcline";
	if (!s)
		return;
	r = session_rows(s, &n);
	for (size_t i = 0; i < n; i++) {
		uint32_t len;
		const uint32_t *st = session_stack(s, r[i].stack, &len);

		for (uint32_t k = 0; k < len; k++) {
			const struct session_sym *y = session_sym(s, st[k]), *rep;

			if (!CHECK(y->srcline != NULL, "a frame without srcline"))
				continue;
			rep = session_sym(s, y->line_rep);
			CHECK_STR(rep->srcline, y->srcline);
			if (y->name && !strcmp(y->name, "hot_leaf")) {
				CHECK(!strncmp(y->srcline, "rp-workload.c:", 14), "hot_leaf at %s",
				      y->srcline);
				lines++;
				/* Counted under the symbol itself by -s sym. */
				CHECK_STR(session_sym(s, y->flat)->name, "hot_leaf");
				CHECK(session_sym(s, y->flat)->srcline == NULL);
			}
		}
	}
	CHECK(lines > 0, "no hot_leaf frame");
	session_free(s);
}

int main(void)
{
	struct session *all;

	find_golden();
	test_parse();
	all = read_golden(NULL, false);
	if (all) {
		test_ctx = "-S hot_leaf";
		test_filter(all, "hot_leaf", NULL, NULL);
		test_ctx = "--focus hot_outer_b";
		test_filter(all, NULL, "hot_outer_b", NULL);
		test_ctx = "--ignore hot_outer_b";
		test_filter(all, NULL, NULL, "hot_outer_b");
		test_ctx = "--focus main --ignore warm_func";
		test_filter(all, NULL, "main", "warm_func");
		test_ctx = "kept + dropped";
		CHECK_U64(expected(all, NULL, "hot_outer_b", NULL) +
			      expected(all, NULL, NULL, "hot_outer_b"),
			  session_totals(all)->samples);
	}
	session_free(all);
	test_srcline();
	return check_done("test-focus");
}
