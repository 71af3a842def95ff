/* log.h — ringprofd's log lines on stderr: syslog priority prefixes under systemd, rate limits. */
#ifndef RP_DAEMON_LOG_H
#define RP_DAEMON_LOG_H

#include <stdbool.h>
#include <stdint.h>
#include <syslog.h>

/* Decide the line format once: "<N>message" when stderr goes to the journal (JOURNAL_STREAM
 * names our stderr) or we run under systemd (INVOCATION_ID), "ringprofd: level: message"
 * otherwise. */
void log_init(const char *prog);
/* Messages above this priority (LOG_DEBUG ... LOG_ERR) are dropped. */
void log_set_max_level(int level);
int log_parse_level(const char *s); /* "err", "warning", "notice", "info", "debug"; -EINVAL */
const char *log_level_name(int level);

void log_msg(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* One message per interval; what is suppressed meanwhile is counted and the count is
 * appended to the next message that passes. Zero-initialize; interval 0 means 60 s. */
struct ratelimit {
	uint64_t interval_ns;
	uint64_t last_ns;
	uint64_t suppressed;
	bool used;
};

void log_ratelimited(struct ratelimit *rl, int prio, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
