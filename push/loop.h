/* loop.h — `ringprof push`'s loop: every closed recording after the cursor, read and sent one
 * series per unit. */
#ifndef RP_PUSH_LOOP_H
#define RP_PUSH_LOOP_H

struct push;

/* Send every closed file after the cursor. 0, -1 (a failure, said), CURSOR_BAD (said) or 1
 * (stopping). */
int push_pending(struct push *p);

/* Sleep SECS, or less when asked to stop. */
void push_pause(unsigned secs);

#endif
