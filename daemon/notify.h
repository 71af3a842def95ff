/* notify.h — the sd_notify protocol without libsystemd: one datagram to $NOTIFY_SOCKET. */
#ifndef RP_DAEMON_NOTIFY_H
#define RP_DAEMON_NOTIFY_H

#include <stdbool.h>
#include <stdint.h>

/* Send state (e.g. "READY=1\nSTATUS=recording") to the service manager. Returns 1 when
 * sent, 0 when NOTIFY_SOCKET is unset (not run by systemd), -errno on failure. A socket
 * name starting with '@' is in the abstract namespace. */
int notify_send(const char *state);
int notify_sendf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The watchdog interval the manager expects pings within, in ns: WATCHDOG_USEC when it is
 * set and WATCHDOG_PID is unset or ours; 0 otherwise. */
uint64_t notify_watchdog_ns(void);

#endif
