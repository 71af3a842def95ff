/* pager.h — output to a terminal goes through $PAGER, as perf and git do. */
#ifndef RP_CLI_PAGER_H
#define RP_CLI_PAGER_H

#include <stdbool.h>

/* When stdout is a terminal and not OFF: start $PAGER (unset: less, with LESS=FRX unless
 * LESS is set; empty or "cat": none) through /bin/sh and send stdout, and stderr when it is
 * the terminal too, to it. Without a pager (it cannot start) output stays as it was. */
void pager_start(bool off);
/* Close the pager's input and wait for the user to leave it; returns STATUS. */
int pager_done(int status);

#endif
