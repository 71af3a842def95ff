/* http.h — the libcurl adapter of `ringprof push`: the only file that includes curl. */
#ifndef RP_PUSH_HTTP_H
#define RP_PUSH_HTTP_H

#include <stddef.h>
#include <stdint.h>

struct push;

/* curl's global state, once at start and at exit. 0, or -1 when it cannot be set up. */
int http_init(void);
void http_done(void);

/* POST the pprof profile BUF of UNIT in FROM .. UNTIL (wall-clock ns) to p->url's ingest
 * endpoint. 0, or -1 with a sentence in why (the server's status and the start of its answer,
 * escaped, or curl's reason). Ends early when push_stopping is set. */
int http_post(const struct push *p, const uint8_t *buf, size_t len, const char *unit, int64_t from,
	      int64_t until, char *why, size_t why_size);

/* URL for messages: "user:password@" (credentials in the URL) shown as "***@". */
const char *http_url_shown(const char *url, char *buf, size_t n);

#endif
