/* push.h — `ringprof push`'s state, shared by its main, its cursor, its loop and its HTTP
 * adapter. */
#ifndef RP_PUSH_PUSH_H
#define RP_PUSH_PUSH_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "format/recdir.h"

#define PROG "ringprof push"
#define MAX_HEADERS 32
#define MAX_LABELS 32

struct push {
	const char *dir, *url, *app, *cursor_path, *auth_file, *cacert, *header_file;
	const char *headers[MAX_HEADERS], *labels[MAX_LABELS];
	size_t n_headers, n_labels;
	char *header_buf; /* --header-file's text: its lines are headers[] entries */
	bool once, verbose, debuginfod;
	unsigned interval, retry_max, timeout, debuginfod_timeout;
	char userpwd[512];
	char cursor[RECDIR_NAME_MAX]; /* the last file sent ("" none yet) */
	/* The file after it, of whose units (in name order) the first partial_sent were sent
	 * (one series per unit): a restart goes on from there. */
	char partial[RECDIR_NAME_MAX];
	unsigned partial_sent;
};

/* Set by SIGTERM and SIGINT: every wait and every request ends as soon as it is. */
extern volatile sig_atomic_t push_stopping;

/* The cursor names no recording it could (said): exit 1, nothing would ever be sent. */
#define CURSOR_BAD (-2)

#endif
