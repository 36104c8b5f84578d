/*
 * Callouts: functions run once after a delay on one of the kernel's CPU
 * threads.  A callout re-arms itself by calling callout_reset from its own
 * function.  Drain callouts before unloading; the kernel drains any that a
 * module forgot, and says so.
 */
#ifndef _SYS_CALLOUT_H_
#define _SYS_CALLOUT_H_

#ifdef __cplusplus
extern "C" {
#endif

typedef void callout_func_t(void *);

struct callout {
	void *c_impl;         /* kernel-private */
};

void callout_init(struct callout *c);
/* Arm (or re-arm) `c` to run fn(arg) in `ms` milliseconds. */
void callout_reset(struct callout *c, unsigned ms, callout_func_t *fn, void *arg);
/* Disarm; returns 1 if it was pending.  Does not wait for a running call. */
int callout_stop(struct callout *c);
/* Disarm and wait until no call is running; frees the kernel's state. */
int callout_drain(struct callout *c);
int callout_pending(struct callout *c);

#ifdef __cplusplus
}
#endif
#endif
