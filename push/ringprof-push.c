/* ringprof-push.c — `ringprof push`: each closed recording of a directory, as a pprof profile,
 * to a Pyroscope-compatible ingest endpoint. Its options and main; the cursor (cursor.c), the
 * loop (loop.c) and the libcurl adapter (http.c) are beside it. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "cli/cli.h"
#include "cursor.h"
#include "http.h"
#include "loop.h"
#include "push.h"

volatile sig_atomic_t push_stopping;

static void on_signal(int sig)
{
	(void)sig;
	push_stopping = 1;
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
		"in time order (as ringprof report --dir reads them). The last file sent is kept in\n"
		"a cursor file, so that nothing is sent twice or skipped across restarts;\n"
		"recordings are never changed or deleted.\n"
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
		return EXIT_USAGE;
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

#define HEADER_FILE_MAX (64 << 10)

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
			return EXIT_USAGE;
		}
		p->labels[p->n_labels++] = arg;
		return 0;
	case 'H':
		if (add_header(p, arg) < 0) {
			fprintf(stderr,
				PROG ": invalid --header '%s' ('NAME: VALUE', at most %d)\n", arg,
				MAX_HEADERS);
			return EXIT_USAGE;
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

	cli_options(longopts);
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
		default:
			return cli_option_error(PROG, c, argv);
		}
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s'\n", argv[optind]);
		return EXIT_USAGE;
	}
	if (!p->dir || !p->url) {
		fprintf(stderr, PROG ": --dir DIR and --url URL are required (see --help)\n");
		return EXIT_USAGE;
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
	if (http_init() < 0) {
		fprintf(stderr, PROG ": libcurl could not be initialized\n");
		free(p.header_buf);
		return 1;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	cursor_load(&p);
	do {
		r = push_pending(&p);
		if (p.once || push_stopping || r == CURSOR_BAD)
			break;
		push_pause(p.interval);
	} while (!push_stopping);
	http_done();
	free(p.header_buf);
	return r == CURSOR_BAD || (p.once && r < 0) ? 1 : 0;
}
