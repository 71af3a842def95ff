/* log.c — ringprofd's log lines on stderr: syslog priority prefixes under systemd, rate limits. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "base/util.h"

static const char *log_prog = "ringprofd";
static bool log_prefix; /* "<N>" prefixes for the journal */
static int log_max = LOG_INFO;

static const char *const level_names[] = {
	[LOG_EMERG] = "emerg", [LOG_ALERT] = "alert",	  [LOG_CRIT] = "crit",
	[LOG_ERR] = "err",     [LOG_WARNING] = "warning", [LOG_NOTICE] = "notice",
	[LOG_INFO] = "info",   [LOG_DEBUG] = "debug",
};

/* JOURNAL_STREAM is "DEV:INODE" of the stream systemd connected; it counts only when it is
 * still our stderr (a child of a service may have had stderr redirected). */
static bool stderr_is_journal(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (!js || sscanf(js, "%llu:%llu", &dev, &ino) != 2)
		return false;
	return fstat(STDERR_FILENO, &st) == 0 && (unsigned long long)st.st_dev == dev &&
	       (unsigned long long)st.st_ino == ino;
}

void log_init(const char *prog)
{
	log_prog = prog;
	log_prefix = stderr_is_journal() || getenv("INVOCATION_ID");
}

void log_set_max_level(int level)
{
	log_max = level;
}

int log_parse_level(const char *s)
{
	for (int i = 0; i <= LOG_DEBUG; i++)
		if (!strcmp(s, level_names[i]))
			return i;
	if (!strcmp(s, "error"))
		return LOG_ERR;
	if (!strcmp(s, "warn"))
		return LOG_WARNING;
	return -EINVAL;
}

const char *log_level_name(int level)
{
	return level >= 0 && level <= LOG_DEBUG ? level_names[level] : "?";
}

static void log_va(int prio, const char *suffix, const char *fmt, va_list ap)
{
	char line[2048];
	int n;

	if (prio > log_max)
		return;
	if (log_prefix)
		n = snprintf(line, sizeof(line), "<%d>", prio);
	else if (prio <= LOG_WARNING)
		n = snprintf(line, sizeof(line), "%s: %s: ", log_prog,
			     prio <= LOG_ERR ? "error" : "warning");
	else
		n = snprintf(line, sizeof(line), "%s: ", log_prog);
	vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	n = (int)strlen(line);
	snprintf(line + n, sizeof(line) - (size_t)n, "%s\n", suffix ? suffix : "");
	n = (int)strlen(line);
	if (line[n - 1] != '\n')
		line[n - 1] = '\n'; /* truncated: still one line */
	/* One write per line, so lines of concurrent writers to the same stream do not mix. */
	if (write(STDERR_FILENO, line, (size_t)n) < 0) {
		/* Nowhere left to say it. */
	}
}

void log_msg(int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_va(prio, NULL, fmt, ap);
	va_end(ap);
}

void log_ratelimited(struct ratelimit *rl, int prio, const char *fmt, ...)
{
	uint64_t now = util_now_ns(),
		 interval = rl->interval_ns ? rl->interval_ns : 60 * NSEC_PER_SEC;
	char suffix[96] = "";
	va_list ap;

	if (rl->used && now - rl->last_ns < interval) {
		rl->suppressed++;
		return;
	}
	if (rl->suppressed)
		snprintf(suffix, sizeof(suffix), " (%llu similar messages suppressed)",
			 (unsigned long long)rl->suppressed);
	rl->used = true;
	rl->last_ns = now;
	rl->suppressed = 0;
	va_start(ap, fmt);
	log_va(prio, suffix, fmt, ap);
	va_end(ap);
}
