/* ringprof-push.c — `ringprof push`: each closed recording of a directory, as a pprof profile,
 * to a Pyroscope-compatible ingest endpoint (the libcurl adapter), remembered in a cursor. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <curl/curl.h>

#include "base/grow.h"
#include "base/util.h"
#include "profile/pprof.h"
#include "profile/session.h"

#define PROG "ringprof push"
#define MAX_HEADERS 32
#define MAX_LABELS 32
#define NAME_MAX_LEN 255

struct push {
	const char *dir, *url, *app, *cursor_path, *auth_file, *cacert, *header_file;
	const char *headers[MAX_HEADERS], *labels[MAX_LABELS];
	size_t n_headers, n_labels;
	char *header_buf; /* --header-file's text: its lines are headers[] entries */
	bool once, verbose, debuginfod;
	unsigned interval, retry_max, timeout, debuginfod_timeout;
	char userpwd[512];
	char cursor[NAME_MAX_LEN + 1]; /* the last file sent ("" none yet) */
	/* The file after it, of whose units (in name order) the first partial_sent were sent
	 * (one series per unit): a restart goes on from there. */
	char partial[NAME_MAX_LEN + 1];
	unsigned partial_sent;
};

static volatile sig_atomic_t stopping;

static void on_signal(int sig)
{
	(void)sig;
	stopping = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ringprof push --dir DIR --url URL [OPTIONS]\n"
		"\n"
		"Send each closed recording in DIR (*.data; the *.data.partial being written waits)\n"
		"as pprof profiles to a Pyroscope-compatible server, one series per systemd unit or\n"
		"container (the units of ringprof report --sort unit):\n"
		"  POST URL/ingest?name=APP{host=HOST,unit=UNIT,...}&from=START&until=END&format=pprof\n"
		"in name (= time) order. The last file sent is kept in a cursor file, so that nothing\n"
		"is sent twice or skipped across restarts; recordings are never changed or deleted.\n"
		"\n"
		"  -d, --dir DIR           the recordings (ringprofd's /var/lib/ringprof)\n"
		"  -u, --url URL           the server, e.g. http://pyroscope:4040 (https:// with TLS)\n"
		"      --app NAME          the application name of the series (default ringprof)\n"
		"  -l, --label KEY=VALUE   a label of the series besides host (repeat)\n"
		"      --cursor FILE       where the last file sent is kept (default\n"
		"                          $STATE_DIRECTORY/push.cursor, else ./ringprof-push.cursor)\n"
		"      --once              send what is closed now and exit (1 when a send failed)\n"
		"      --interval SECS     otherwise look for new files every SECS (default 60)\n"
		"      --retry-max SECS    a failed send is retried after 1, 2, 4 ... up to SECS\n"
		"                          (default 300) seconds until it succeeds\n"
		"      --timeout SECS      per request (default 30)\n"
		"  -H, --header 'NAME: VALUE'  an extra HTTP header, e.g. an X-Scope-OrgID or an\n"
		"                          Authorization: Bearer token (repeat; what is on the\n"
		"                          command line shows in ps: secrets in --header-file)\n"
		"      --header-file FILE  more headers, 'NAME: VALUE' a line, e.g.\n"
		"                          'Authorization: Bearer TOKEN' (read once at start)\n"
		"      --basic-auth-file FILE  'USER:PASSWORD' on its first line, for HTTP basic auth\n"
		"      --cacert FILE       the CA certificates (PEM) to check the server's against\n"
		"                          (default: the system's)\n"
		"      --debuginfod        name frames with debug info fetched from the servers in\n"
		"                          DEBUGINFOD_URLS (as ringprof report --debuginfod)\n"
		"      --debuginfod-timeout SECS  per request (default 5)\n"
		"  -v, --verbose           a line per file sent\n"
		"  -h, --help              this help\n"
		"  -V, --version           version\n"
		"\n"
		"SIGTERM and SIGINT stop it at once (a request in flight is dropped and sent again\n"
		"next time); exit status 0. A cursor that names no recording of DIR and sorts\n"
		"after all of them, or counts more units of a file than it has, is an error (exit\n"
		"1): nothing would ever be sent. The server's answers are not printed; a failure\n"
		"quotes the start of its first line, escaped. Credentials in URL are not shown.\n");
}

/* A number of seconds, 1 .. max. */
static int parse_secs(const char *opt, const char *arg, unsigned max, unsigned *ret)
{
	uint64_t v;

	if (util_parse_u64(arg, &v) < 0 || v == 0 || v > max) {
		fprintf(stderr, PROG ": invalid %s '%s' (1 to %u seconds)\n", opt, arg, max);
		return 2;
	}
	*ret = (unsigned)v;
	return 0;
}

/* --basic-auth-file: its first line, USER:PASSWORD. 0 or the exit status (said). */
static int read_auth(struct push *p)
{
	FILE *f = fopen(p->auth_file, "re");
	char *nl;

	if (!f) {
		fprintf(stderr, PROG ": --basic-auth-file %s: %s\n", p->auth_file, strerror(errno));
		return 1;
	}
	if (!fgets(p->userpwd, sizeof(p->userpwd), f))
		p->userpwd[0] = '\0';
	fclose(f);
	nl = strpbrk(p->userpwd, "\r\n");
	if (nl)
		*nl = '\0';
	if (!strchr(p->userpwd, ':')) {
		fprintf(stderr,
			PROG ": --basic-auth-file %s: the first line is not USER:PASSWORD\n",
			p->auth_file);
		return 1;
	}
	return 0;
}

/* A header 'NAME: VALUE' joins the request's. 0 or -EINVAL (not NAME:, too many). */
static int add_header(struct push *p, const char *h)
{
	if (!strchr(h, ':') || h[0] == ':' || p->n_headers >= MAX_HEADERS)
		return -EINVAL;
	p->headers[p->n_headers++] = h;
	return 0;
}

#define HEADER_FILE_MAX 65536

/* --header-file: each non-empty line a header (a final CR is dropped). 0 or the exit status
 * (said). The text stays in p->header_buf, freed at exit. */
static int read_header_file(struct push *p)
{
	FILE *f = fopen(p->header_file, "re");
	size_t len, n_line = 0;
	char *line, *next;
	int err;

	if (!f || !(p->header_buf = malloc(HEADER_FILE_MAX + 1))) {
		fprintf(stderr, PROG ": --header-file %s: %s\n", p->header_file, strerror(errno));
		if (f)
			fclose(f);
		return 1;
	}
	len = fread(p->header_buf, 1, HEADER_FILE_MAX + 1, f);
	err = ferror(f) ? errno : 0;
	fclose(f);
	if (err || len > HEADER_FILE_MAX) {
		fprintf(stderr, PROG ": --header-file %s: %s\n", p->header_file,
			err ? strerror(err) : "larger than 64 KiB");
		return 1;
	}
	p->header_buf[len] = '\0';
	for (line = p->header_buf; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		n_line++;
		line[strcspn(line, "\r")] = '\0';
		if (*line && add_header(p, line) < 0) {
			fprintf(stderr, PROG ": --header-file %s: line %zu: %s\n", p->header_file,
				n_line,
				p->n_headers < MAX_HEADERS ? "not 'NAME: VALUE'"
							   : "too many headers");
			return 1;
		}
	}
	return 0;
}

/* Options that take a value; 0, 1 (not one of them) or the exit status (said). */
static int parse_value(struct push *p, int c, char *arg)
{
	switch (c) {
	case 'd':
		p->dir = arg;
		return 0;
	case 'u':
		p->url = arg;
		return 0;
	case 'a':
		p->app = arg;
		return 0;
	case 'c':
		p->cursor_path = arg;
		return 0;
	case 'b':
		p->auth_file = arg;
		return 0;
	case 'C':
		p->cacert = arg;
		return 0;
	case 'l':
		if (!strchr(arg, '=') || arg[0] == '=' || p->n_labels >= MAX_LABELS) {
			fprintf(stderr, PROG ": invalid --label '%s' (KEY=VALUE, at most %d)\n",
				arg, MAX_LABELS);
			return 2;
		}
		p->labels[p->n_labels++] = arg;
		return 0;
	case 'H':
		if (add_header(p, arg) < 0) {
			fprintf(stderr,
				PROG ": invalid --header '%s' ('NAME: VALUE', at most %d)\n", arg,
				MAX_HEADERS);
			return 2;
		}
		return 0;
	case 'F':
		p->header_file = arg;
		return 0;
	case 'i':
		return parse_secs("--interval", arg, 86400, &p->interval);
	case 'r':
		return parse_secs("--retry-max", arg, 86400, &p->retry_max);
	case 't':
		return parse_secs("--timeout", arg, 3600, &p->timeout);
	case 'T':
		return parse_secs("--debuginfod-timeout", arg, 3600, &p->debuginfod_timeout);
	default:
		return 1;
	}
}

static int parse_argv(struct push *p, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "url", required_argument, NULL, 'u' },
		{ "app", required_argument, NULL, 'a' },
		{ "label", required_argument, NULL, 'l' },
		{ "cursor", required_argument, NULL, 'c' },
		{ "once", no_argument, NULL, 'o' },
		{ "interval", required_argument, NULL, 'i' },
		{ "retry-max", required_argument, NULL, 'r' },
		{ "timeout", required_argument, NULL, 't' },
		{ "header", required_argument, NULL, 'H' },
		{ "header-file", required_argument, NULL, 'F' },
		{ "basic-auth-file", required_argument, NULL, 'b' },
		{ "cacert", required_argument, NULL, 'C' },
		{ "debuginfod", no_argument, NULL, 'D' },
		{ "debuginfod-timeout", required_argument, NULL, 'T' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c, r;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:u:l:H:vhV", longopts, NULL)) != -1) {
		if ((r = parse_value(p, c, optarg)) != 1) {
			if (r)
				return r;
			continue;
		}
		switch (c) {
		case 'o':
			p->once = true;
			break;
		case 'v':
			p->verbose = true;
			break;
		case 'D':
			p->debuginfod = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			printf("ringprof push %s\n", PACKAGE_VERSION);
			exit(0);
		case ':':
			fprintf(stderr, PROG ": option '%s' needs an argument\n", argv[optind - 1]);
			return 2;
		default:
			fprintf(stderr, PROG ": unknown option '%s'\nTry '" PROG " --help'.\n",
				argv[optind - 1]);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (!p->dir || !p->url) {
		fprintf(stderr, PROG ": --dir DIR and --url URL are required (see --help)\n");
		return 2;
	}
	if (p->cacert && access(p->cacert, R_OK) < 0) {
		fprintf(stderr, PROG ": --cacert %s: %s\n", p->cacert, strerror(errno));
		return 1;
	}
	if (p->header_file && (r = read_header_file(p)))
		return r;
	if (p->debuginfod && !(getenv("DEBUGINFOD_URLS") && *getenv("DEBUGINFOD_URLS")))
		fprintf(stderr, PROG
			": note: --debuginfod: DEBUGINFOD_URLS is not set, no server is asked\n");
	return p->auth_file ? read_auth(p) : 0;
}

/* ---- the cursor: the name of the last file sent ---- */

static void cursor_load(struct push *p)
{
	FILE *f = fopen(p->cursor_path, "re");

	char line[NAME_MAX_LEN + 32];

	p->cursor[0] = p->partial[0] = '\0';
	p->partial_sent = 0;
	if (!f)
		return; /* none yet: everything closed is sent */
	if (fgets(p->cursor, sizeof(p->cursor), f))
		p->cursor[strcspn(p->cursor, "\r\n")] = '\0';
	/* A second line "NAME K": K units of the next file were sent already. */
	if (fgets(line, sizeof(line), f)) {
		char *sp = strrchr(line, ' ');

		if (sp && sp != line && sp - line <= NAME_MAX_LEN) {
			*sp = '\0';
			util_strlcpy(p->partial, line, sizeof(p->partial));
			p->partial_sent = (unsigned)strtoul(sp + 1, NULL, 10);
		}
	}
	fclose(f);
}

/* NAME becomes the cursor (or, with SENT > 0, the file after it whose first SENT units were
 * sent): written beside it and renamed over it, synced, so that a crash leaves the old cursor
 * or the new one. 0 or -errno (said). */
static int cursor_save_units(struct push *p, const char *name, unsigned sent)
{
	char tmp[4096];
	int fd, rc = 0, w;

	snprintf(tmp, sizeof(tmp), "%s.tmp", p->cursor_path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	w = fd < 0 ? -1
	    : sent ? dprintf(fd, "%s\n%s %u\n", p->cursor, name, sent)
		   : dprintf(fd, "%s\n", name);
	if (fd < 0 || w < 0 || fsync(fd) < 0)
		rc = -errno;
	if (fd >= 0 && close(fd) < 0 && !rc)
		rc = -errno;
	if (!rc && rename(tmp, p->cursor_path) < 0)
		rc = -errno;
	if (rc) {
		fprintf(stderr, PROG ": cannot write the cursor %s: %s\n", p->cursor_path,
			strerror(-rc));
		unlink(tmp);
		return rc;
	}
	if (sent) {
		util_strlcpy(p->partial, name, sizeof(p->partial));
		p->partial_sent = sent;
	} else {
		util_strlcpy(p->cursor, name, sizeof(p->cursor));
		p->partial[0] = '\0';
		p->partial_sent = 0;
	}
	return 0;
}

static int cursor_save(struct push *p, const char *name)
{
	return cursor_save_units(p, name, 0);
}

/* ---- the recordings ---- */

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n > k && strcmp(s + n - k, suffix) == 0;
}

/* The cursor names no recording of the directory and sorts after every one there: a clock
 * that ran ahead when it was written, or a damaged cursor. Nothing would ever be sent, and
 * silently: an error. Returns CURSOR_BAD. */
#define CURSOR_BAD (-2)
static int cursor_ahead(const struct push *p, size_t n_all)
{
	fprintf(stderr,
		PROG
		": the cursor %s names '%s', which is not in %s and sorts after all %zu "
		"recordings there (a clock that ran ahead, or a damaged cursor): nothing would "
		"ever be sent. Write the name of the last recording sent into it, or remove "
		"it to send every recording again\n",
		p->cursor_path, p->cursor, p->dir, n_all);
	return CURSOR_BAD;
}

/* The recordings of the directory after the cursor, in name order, up to the first one still
 * being written (a later closed file must wait for it, or the cursor would pass it by):
 * malloc'd names in *ret, *ret_n of them. 0, -errno (said) or CURSOR_BAD (said). */
static int pending(const struct push *p, char ***ret, size_t *ret_n)
{
	DIR *d = opendir(p->dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0, k, n_all = 0;
	bool named = false;

	if (!d) {
		fprintf(stderr, PROG ": cannot read %s: %s\n", p->dir, strerror(errno));
		return -errno;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || strlen(e->d_name) > NAME_MAX_LEN ||
		    !(ends_with(e->d_name, ".data") || ends_with(e->d_name, ".data.partial")))
			continue;
		n_all++;
		named |= strcmp(e->d_name, p->cursor) == 0;
		if (strcmp(e->d_name, p->cursor) <= 0)
			continue;
		if (GROW(names, cap, n + 1) < 0 || !(names[n] = strdup(e->d_name))) {
			closedir(d);
			for (k = 0; k < n; k++)
				free(names[k]);
			free(names);
			fprintf(stderr, PROG ": out of memory\n");
			return -ENOMEM;
		}
		n++;
	}
	closedir(d);
	if (p->cursor[0] && !named && n_all && !n) {
		free(names);
		return cursor_ahead(p, n_all);
	}
	if (n)
		qsort(names, n, sizeof(*names), cmp_names);
	for (k = 0; k < n && !ends_with(names[k], ".partial"); k++)
		;
	for (size_t i = k; i < n; i++)
		free(names[i]);
	*ret = names;
	*ret_n = k;
	return 0;
}

static void on_session_warn(void *arg, const char *msg)
{
	const struct push *p = arg;

	if (p->verbose)
		fprintf(stderr, PROG ": warning: %s\n", msg);
}

/* A recording read for sending: its session (finished), wall-clock bounds, sample count and
 * units, in name order. */
struct fileprof {
	struct session *s;
	int64_t bounds[2];
	uint64_t samples;
	uint32_t *units;
	size_t n_units;
	struct session_event ev; /* its first event: the session's filter points at its name */
};

static void fileprof_done(struct fileprof *fp)
{
	session_free(fp->s);
	free(fp->units);
}

static const struct session *sort_session;

static int cmp_units(const void *a, const void *b)
{
	return strcmp(session_unit(sort_session, *(const uint32_t *)a),
		      session_unit(sort_session, *(const uint32_t *)b));
}

/* The distinct units of the session's rows, sorted by name. 0 or -ENOMEM. */
static int list_units(struct fileprof *fp)
{
	size_t n_rows, cap = 0;
	const struct session_row *rows = session_rows(fp->s, &n_rows);

	for (size_t i = 0; i < n_rows; i++) {
		size_t k = 0;

		while (k < fp->n_units && fp->units[k] != rows[i].unit)
			k++;
		if (k < fp->n_units)
			continue;
		if (GROW(fp->units, cap, fp->n_units + 1) < 0)
			return -ENOMEM;
		fp->units[fp->n_units++] = rows[i].unit;
	}
	sort_session = fp->s;
	if (fp->n_units)
		qsort(fp->units, fp->n_units, sizeof(*fp->units), cmp_units);
	return 0;
}

/* Read recording PATH (its first event) into *fp. 0, or -errno with a sentence in why. */
static int read_file(struct push *p, const char *path, struct fileprof *fp, char *why,
		     size_t why_size)
{
	struct session_opts so = { .lines = true, /* pprof -list works on what is pushed */
				   .debuginfod = p->debuginfod,
				   .debuginfod_timeout = (int)p->debuginfod_timeout,
				   .warn = on_session_warn,
				   .warn_arg = p };
	size_t n_ev = 0;
	int rc;

	memset(fp, 0, sizeof(*fp));
	rc = session_file_bounds(path, &fp->bounds[0], &fp->bounds[1], why, why_size);
	if (rc < 0)
		return rc;
	/* The session keeps the filter's pointer: the name lives as long as fp. */
	if (session_list_events((const char *const *)&path, 1, &fp->ev, 1, &n_ev) == 0 && n_ev)
		so.filter.event = fp->ev.name;
	fp->s = session_new(&so);
	if (!fp->s) {
		snprintf(why, why_size, "out of memory");
		return -ENOMEM;
	}
	rc = session_add_file(fp->s, path, why, why_size);
	if (rc >= 0 && ((rc = session_finish(fp->s)) < 0 || (rc = list_units(fp)) < 0))
		snprintf(why, why_size, "out of memory");
	if (rc < 0) {
		fileprof_done(fp);
		return rc;
	}
	fp->samples = session_totals(fp->s)->samples;
	return 0;
}

/* ---- sending (libcurl) ---- */

/* URL of the ingest request for a profile of UNIT in FROM .. UNTIL (wall-clock ns), malloc'd;
 * NULL when out of memory. The series is APP{host=HOST,unit=UNIT,labels...}. */
static char *ingest_url(const struct push *p, CURL *curl, const char *unit, int64_t from,
			int64_t until)
{
	char host[256] = "unknown", name[4096], *esc, *url = NULL;
	size_t len, base = strlen(p->url);
	int n;

	gethostname(host, sizeof(host) - 1);
	len = (size_t)snprintf(name, sizeof(name), "%s{host=%s,unit=%s", p->app, host, unit);
	for (size_t i = 0; i < p->n_labels && len < sizeof(name); i++)
		len += (size_t)snprintf(name + len, sizeof(name) - len, ",%s", p->labels[i]);
	if (len < sizeof(name))
		snprintf(name + len, sizeof(name) - len, "}");
	esc = curl_easy_escape(curl, name, 0);
	while (base && p->url[base - 1] == '/')
		base--;
	n = esc ? asprintf(&url, "%.*s/ingest?name=%s&from=%lld&until=%lld&format=pprof", (int)base,
			   p->url, esc, (long long)(from / 1000000000),
			   (long long)((until + 999999999) / 1000000000))
		: -1;
	curl_free(esc);
	return n < 0 ? NULL : url;
}

/* URL for messages: "user:password@" (credentials in the URL) shown as "***@". */
static const char *url_shown(const char *url, char *buf, size_t n)
{
	const char *auth = strstr(url, "://"), *at, *end;

	auth = auth ? auth + 3 : url;
	end = auth + strcspn(auth, "/?#");
	at = memchr(auth, '@', (size_t)(end - auth));
	while (at && memchr(at + 1, '@', (size_t)(end - at - 1)))
		at = memchr(at + 1, '@', (size_t)(end - at - 1)); /* the last '@' ends them */
	if (!at)
		return url;
	snprintf(buf, n, "%.*s***%s", (int)(auth - url), url, at);
	return buf;
}

/* What is kept of the server's answer: the start of its first line, for a failure's message.
 * The rest is read and dropped (never copied to stdout, which is the journal under the unit). */
#define ANSWER_KEPT 120
struct answer {
	char text[ANSWER_KEPT + 1];
	size_t len;
	bool line_done;
};

static size_t on_answer(char *data, size_t size, size_t n, void *arg)
{
	struct answer *a = arg;

	for (size_t i = 0; i < size * n && !a->line_done && a->len < ANSWER_KEPT; i++) {
		if (data[i] == '\n' || data[i] == '\r')
			a->line_done = a->len > 0;
		else
			a->text[a->len++] = data[i];
	}
	return size * n;
}

/* The answer's first line for a message, every byte outside printable ASCII as \xHH (no
 * escape sequences, no forged log lines), cut with "..." where it was longer. */
static void answer_escape(const struct answer *a, char *out, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < a->len && k + 5 < n; i++) {
		unsigned char c = (unsigned char)a->text[i];

		if (c >= 0x20 && c < 0x7f && c != '\\')
			out[k++] = (char)c;
		else
			k += (size_t)snprintf(out + k, n - k, "\\x%02x", c);
	}
	out[k] = '\0';
	if (a->len == ANSWER_KEPT && k + 4 < n)
		strcat(out, "...");
}

/* Run the transfer, giving up as soon as SIGTERM or SIGINT arrives (the multi interface polls
 * in steps of 100 ms: a request must not hold the stop for up to --timeout). */
static CURLcode perform(CURL *curl)
{
	CURLM *m = curl_multi_init();
	CURLcode rc = CURLE_OUT_OF_MEMORY;
	int running = 1;

	if (!m || curl_multi_add_handle(m, curl) != CURLM_OK) {
		curl_multi_cleanup(m);
		return rc;
	}
	while (running && !stopping) {
		if (curl_multi_perform(m, &running) != CURLM_OK)
			break;
		if (running)
			curl_multi_poll(m, NULL, 0, 100, NULL);
	}
	rc = CURLE_RECV_ERROR; /* unless the transfer says how it ended */
	for (int left = 0;;) {
		CURLMsg *msg = curl_multi_info_read(m, &left);

		if (!msg)
			break;
		if (msg->msg == CURLMSG_DONE)
			rc = msg->data.result;
	}
	if (running && stopping)
		rc = CURLE_ABORTED_BY_CALLBACK;
	curl_multi_remove_handle(m, curl);
	curl_multi_cleanup(m);
	return rc;
}

/* POST the profile BUF of UNIT in FROM .. UNTIL. 0, or -1 with a sentence in why (the
 * server's status and the start of its answer, escaped, or curl's reason). */
static int post(const struct push *p, const uint8_t *buf, size_t len, const char *unit,
		int64_t from, int64_t until, char *why, size_t why_size)
{
	CURL *curl = curl_easy_init();
	struct curl_slist *hdrs = NULL;
	char err[CURL_ERROR_SIZE] = "", said[4 * ANSWER_KEPT + 8];
	char *url = curl ? ingest_url(p, curl, unit, from, until) : NULL;
	struct answer answer = { .len = 0 };
	long status = 0;
	CURLcode rc = CURLE_OUT_OF_MEMORY;

	hdrs = curl_slist_append(hdrs, "Content-Type: application/octet-stream");
	for (size_t i = 0; hdrs && i < p->n_headers; i++)
		hdrs = curl_slist_append(hdrs, p->headers[i]);
	if (curl && url && hdrs) {
		curl_easy_setopt(curl, CURLOPT_URL, url);
		curl_easy_setopt(curl, CURLOPT_POST, 1L);
		curl_easy_setopt(curl, CURLOPT_POSTFIELDS, (const char *)buf);
		curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
		curl_easy_setopt(curl, CURLOPT_HTTPHEADER, hdrs);
		curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, err);
		curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_answer);
		curl_easy_setopt(curl, CURLOPT_WRITEDATA, &answer);
		curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
		curl_easy_setopt(curl, CURLOPT_TIMEOUT, (long)p->timeout);
		curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT,
				 (long)(p->timeout < 10 ? p->timeout : 10));
		curl_easy_setopt(curl, CURLOPT_USERAGENT, "ringprof-push/" PACKAGE_VERSION);
		/* Only the protocols a server URL may name: no file://, no redirects elsewhere. */
		curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
		if (p->userpwd[0]) {
			curl_easy_setopt(curl, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
			curl_easy_setopt(curl, CURLOPT_USERPWD, p->userpwd);
		}
		if (p->cacert)
			curl_easy_setopt(curl, CURLOPT_CAINFO, p->cacert);
		rc = perform(curl);
		curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
	}
	answer_escape(&answer, said, sizeof(said));
	if (rc == CURLE_ABORTED_BY_CALLBACK)
		snprintf(why, why_size, "stopped (SIGTERM or SIGINT)");
	else if (rc == CURLE_PEER_FAILED_VERIFICATION)
		snprintf(why, why_size, "%s (--cacert FILE names the CA that signed it)",
			 err[0] ? err : curl_easy_strerror(rc));
	else if (rc != CURLE_OK)
		snprintf(why, why_size, "%s", err[0] ? err : curl_easy_strerror(rc));
	else if (status < 200 || status > 299)
		snprintf(why, why_size, "the server answered HTTP %ld%s%s%s", status,
			 said[0] ? " (\"" : "", said, said[0] ? "\")" : "");
	curl_slist_free_all(hdrs);
	curl_easy_cleanup(curl);
	free(url);
	return rc == CURLE_OK && status >= 200 && status <= 299 ? 0 : -1;
}

/* Sleep SECS, or less when asked to stop. */
static void pause_for(unsigned secs)
{
	struct timespec ts = { (time_t)secs, 0 };

	while (!stopping && nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* POST unit K of FP until it is accepted (loop) or once (--once). 0 when sent, -1 when it
 * failed with --once or could not be encoded (said), 1 when stopping. */
static int send_unit(struct push *p, const char *name, struct fileprof *fp, size_t k, size_t *bytes)
{
	struct pprof_opts po = { fp->bounds[0], fp->bounds[1], true, fp->units[k] };
	const char *unit = session_unit(fp->s, fp->units[k]);
	uint8_t *buf = NULL;
	size_t len = 0;
	unsigned backoff = 1;
	char why[1024], shown[4096];

	if (pprof_encode(fp->s, &po, &buf, &len) < 0) {
		fprintf(stderr, PROG ": %s: out of memory while encoding\n", name);
		return -1;
	}
	while (post(p, buf, len, unit, fp->bounds[0], fp->bounds[1], why, sizeof(why)) < 0) {
		if (stopping) {
			free(buf);
			return 1;
		}
		fprintf(stderr, PROG ": %s: sending to %s failed: %s%s", name,
			url_shown(p->url, shown, sizeof(shown)), why, p->once ? "\n" : "");
		if (p->once) {
			free(buf);
			return -1;
		}
		fprintf(stderr, "; again in %u s\n", backoff);
		pause_for(backoff);
		if (stopping) {
			free(buf);
			return 1;
		}
		backoff = backoff * 2 > p->retry_max ? p->retry_max : backoff * 2;
	}
	free(buf);
	*bytes += len;
	return 0;
}

/* Send recording NAME, one series per unit, each until it is accepted (loop) or once
 * (--once); then it becomes the cursor. 0 when sent (or nothing to send), -1 when a send
 * failed with --once, CURSOR_BAD when the cursor cannot hold for it (said), 1 when
 * stopping. */
static int send_file(struct push *p, const char *name)
{
	char path[4096 + NAME_MAX_LEN + 2], why[512];
	struct fileprof fp;
	size_t bytes = 0, k = 0;
	int rc = 0;

	snprintf(path, sizeof(path), "%s/%s", p->dir, name);
	if (read_file(p, path, &fp, why, sizeof(why)) < 0) {
		/* Retrying cannot mend a damaged file: said, and passed by. */
		fprintf(stderr, PROG ": %s: not sent: %s\n", path, why);
		return cursor_save(p, name) < 0 ? -1 : 0;
	}
	/* Units sent before a failure or a restart are not sent again. */
	if (strcmp(name, p->partial) == 0)
		k = p->partial_sent;
	if (k && k >= fp.n_units) { /* the cursor never says all were sent, or more */
		fprintf(stderr,
			PROG
			": the cursor %s says %zu units of %s were sent, but it has %zu: a damaged "
			"cursor (or a changed file). Correct or remove its second line\n",
			p->cursor_path, k, name, fp.n_units);
		fileprof_done(&fp);
		return CURSOR_BAD;
	}
	for (; fp.samples && k < fp.n_units && rc == 0; k++) {
		rc = send_unit(p, name, &fp, k, &bytes);
		if (rc == 0 && k + 1 < fp.n_units && cursor_save_units(p, name, (unsigned)k + 1) < 0)
			rc = -1;
	}
	if (rc == 0 && p->verbose)
		fprintf(stderr, PROG ": %s: %s (%llu samples, %zu bytes)\n", name,
			fp.samples ? "sent" : "no samples, nothing to send",
			(unsigned long long)fp.samples, bytes);
	fileprof_done(&fp);
	if (rc)
		return rc;
	return cursor_save(p, name) < 0 ? -1 : 0;
}

/* Send every closed file after the cursor. 0, -1 (a failure, said), CURSOR_BAD (said) or 1
 * (stopping). */
static int push_pending(struct push *p)
{
	char **names = NULL;
	size_t n = 0;
	int rc = 0;

	rc = pending(p, &names, &n);
	if (rc < 0)
		return rc == CURSOR_BAD ? rc : -1;
	if (!n && p->verbose)
		fprintf(stderr, PROG ": nothing closed after %s%s in %s\n",
			p->cursor[0] ? "the cursor's " : "", p->cursor[0] ? p->cursor : "the start",
			p->dir);
	for (size_t i = 0; i < n; i++) {
		if (rc == 0 && !stopping)
			rc = send_file(p, names[i]);
		free(names[i]);
	}
	free(names);
	return stopping ? 1 : rc;
}

int main(int argc, char **argv)
{
	static struct push p = {
		.app = "ringprof",
		.interval = 60,
		.retry_max = 300,
		.timeout = 30,
		.debuginfod_timeout = 5,
	};
	static char cursor_default[4096];
	const char *state = getenv("STATE_DIRECTORY");
	struct sigaction sa = { .sa_handler = on_signal };
	int r = parse_argv(&p, argc, argv);

	if (r) {
		free(p.header_buf);
		return r;
	}
	if (!p.cursor_path) {
		/* systemd's StateDirectory= may list several, separated by ':'. */
		if (state && *state)
			snprintf(cursor_default, sizeof(cursor_default), "%.*s/push.cursor",
				 (int)strcspn(state, ":"), state);
		else
			snprintf(cursor_default, sizeof(cursor_default), "ringprof-push.cursor");
		p.cursor_path = cursor_default;
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		fprintf(stderr, PROG ": libcurl could not be initialized\n");
		free(p.header_buf);
		return 1;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	cursor_load(&p);
	do {
		r = push_pending(&p);
		if (p.once || stopping || r == CURSOR_BAD)
			break;
		pause_for(p.interval);
	} while (!stopping);
	curl_global_cleanup();
	free(p.header_buf);
	return r == CURSOR_BAD || (p.once && r < 0) ? 1 : 0;
}
