/* http.c — the libcurl adapter of `ringprof push`: one POST per profile, interrupted by SIGTERM
 * and SIGINT, with what the server answered quoted safely. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <curl/curl.h>

#include "http.h"
#include "push.h"

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

const char *http_url_shown(const char *url, char *buf, size_t n)
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
	while (running && !push_stopping) {
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
	if (running && push_stopping)
		rc = CURLE_ABORTED_BY_CALLBACK;
	curl_multi_remove_handle(m, curl);
	curl_multi_cleanup(m);
	return rc;
}

/* POST the profile BUF of UNIT in FROM .. UNTIL. 0, or -1 with a sentence in why (the
 * server's status and the start of its answer, escaped, or curl's reason). */
int http_post(const struct push *p, const uint8_t *buf, size_t len, const char *unit, int64_t from,
	      int64_t until, char *why, size_t why_size)
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

int http_init(void)
{
	return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? 0 : -1;
}

void http_done(void)
{
	curl_global_cleanup();
}
