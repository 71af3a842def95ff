/* focus.c — which stacks count by the symbols in them: perf's -S and pprof's --focus/--ignore. */
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "profile/focus.h"
#include "profile/symstacks.h"

/* A symbol's cached matches: computed once per session_sym() id. */
enum {
	M_DONE = 1 << 0,
	M_LEAF = 1 << 1,   /* may be the leaf: one of -S names and containing the substring */
	M_FOCUS = 1 << 2,  /* matches --focus */
	M_IGNORE = 1 << 3, /* matches --ignore */
};

struct focus {
	char **names;
	size_t n_names, cap_names;
	char *substr;
	regex_t re_focus, re_ignore;
	char *focus_text, *ignore_text;
	bool have_focus, have_ignore;
	uint8_t *cache; /* by symbol id of cache_of */
	size_t cap_cache;
	const void *cache_of;
};

struct focus *focus_new(void)
{
	return calloc(1, sizeof(struct focus));
}

struct focus *focus_free(struct focus *f)
{
	if (!f)
		return NULL;
	for (size_t i = 0; i < f->n_names; i++)
		free(f->names[i]);
	free(f->names);
	free(f->substr);
	if (f->have_focus)
		regfree(&f->re_focus);
	if (f->have_ignore)
		regfree(&f->re_ignore);
	free(f->focus_text);
	free(f->ignore_text);
	free(f->cache);
	free(f);
	return NULL;
}

int focus_add_symbols(struct focus *f, const char *list)
{
	const char *p = list;

	do {
		size_t len = strcspn(p, ",");

		if (!len)
			return -EINVAL;
		if (GROW(f->names, f->cap_names, f->n_names + 1) < 0 ||
		    !(f->names[f->n_names] = strndup(p, len)))
			return -ENOMEM;
		f->n_names++;
		p += len;
	} while (*p++ == ',');
	return 0;
}

int focus_set_leaf_substr(struct focus *f, const char *substr)
{
	free(f->substr);
	f->substr = strdup(substr);
	return f->substr ? 0 : -ENOMEM;
}

/* Compile REGEX into RE (freeing an earlier one) and keep its text. */
static int set_regex(regex_t *re, bool *have, char **text, const char *regex, char *why,
		     size_t why_size)
{
	regex_t tmp;
	int rc = regcomp(&tmp, regex, REG_EXTENDED | REG_NOSUB);

	if (rc) {
		regerror(rc, &tmp, why, why_size);
		regfree(&tmp);
		return -EINVAL;
	}
	free(*text);
	*text = strdup(regex);
	if (!*text) {
		regfree(&tmp);
		snprintf(why, why_size, "out of memory");
		return -ENOMEM;
	}
	if (*have)
		regfree(re);
	*re = tmp;
	*have = true;
	return 0;
}

int focus_set_focus(struct focus *f, const char *regex, char *why, size_t why_size)
{
	return set_regex(&f->re_focus, &f->have_focus, &f->focus_text, regex, why, why_size);
}

int focus_set_ignore(struct focus *f, const char *regex, char *why, size_t why_size)
{
	return set_regex(&f->re_ignore, &f->have_ignore, &f->ignore_text, regex, why, why_size);
}

bool focus_active(const struct focus *f)
{
	return f && (f->n_names || f->substr || f->have_focus || f->have_ignore);
}

void focus_describe(const struct focus *f, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	if (!f)
		return;
	for (size_t i = 0; i < f->n_names && len < size; i++)
		len +=
		    (size_t)snprintf(buf + len, size - len, "%s%s", i ? "," : "-S ", f->names[i]);
	if (f->substr && len < size)
		len += (size_t)snprintf(buf + len, size - len, "%s--symbol-filter '%s'",
					len ? ", " : "", f->substr);
	if (f->have_focus && len < size)
		len += (size_t)snprintf(buf + len, size - len, "%s--focus '%s'", len ? ", " : "",
					f->focus_text);
	if (f->have_ignore && len < size)
		snprintf(buf + len, size - len, "%s--ignore '%s'", len ? ", " : "", f->ignore_text);
}

/* Symbol SYM's matches, computed on first use; 0 when out of memory (nothing matches). */
static uint8_t matches(struct focus *f, focus_text_fn text, const void *s, uint32_t sym)
{
	const char *name;
	uint8_t m = M_DONE;
	bool leaf = !f->n_names;

	if (s != f->cache_of) {
		/* Symbol ids are a session's own: another session starts afresh (diff's sides). */
		if (f->cache)
			memset(f->cache, 0, f->cap_cache);
		f->cache_of = s;
	}
	if (sym >= f->cap_cache) {
		size_t old = f->cap_cache;

		if (GROW(f->cache, f->cap_cache, (size_t)sym + 1) < 0)
			return 0;
		memset(f->cache + old, 0, f->cap_cache - old);
	}
	if (f->cache[sym])
		return f->cache[sym];
	name = text(s, sym);
	for (size_t i = 0; i < f->n_names && !leaf; i++)
		leaf = strcmp(name, f->names[i]) == 0;
	if (leaf && (!f->substr || strstr(name, f->substr)))
		m |= M_LEAF;
	if (f->have_focus && regexec(&f->re_focus, name, 0, NULL, 0) == 0)
		m |= M_FOCUS;
	if (f->have_ignore && regexec(&f->re_ignore, name, 0, NULL, 0) == 0)
		m |= M_IGNORE;
	f->cache[sym] = m;
	return m;
}

bool focus_keep(struct focus *f, focus_text_fn text, const void *s, const uint32_t *syms,
		uint32_t n, size_t stride)
{
	const char *p = (const char *)syms;
	bool focused = !f->have_focus;

	if (!focus_active(f))
		return true;
	if ((f->n_names || f->substr) && (!n || !(matches(f, text, s, syms[0]) & M_LEAF)))
		return false;
	for (uint32_t k = 0; k < n; k++) {
		uint8_t m = matches(f, text, s, *(const uint32_t *)(const void *)(p + k * stride));

		if (m & M_IGNORE)
			return false;
		focused |= (m & M_FOCUS) != 0;
	}
	return focused;
}

bool focus_keep_locs(struct focus *f, focus_text_fn text, const void *s, const struct symstacks *ss,
		     const uint32_t *locs, uint32_t n, uint32_t **buf, size_t *cap)
{
	uint32_t m = 0;

	if (!focus_active(f))
		return true;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t n_syms;
		const uint32_t *syms = symstacks_loc(ss, locs[k], &n_syms);

		if (GROW(*buf, *cap, (size_t)m + n_syms) < 0)
			return false;
		memcpy(*buf + m, syms, n_syms * sizeof(*syms));
		m += n_syms;
	}
	return focus_keep(f, text, s, *buf, m, sizeof(**buf));
}
