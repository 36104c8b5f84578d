/* Kernel threads started by modules. */
#ifndef _SYS_KTHREAD_H_
#define _SYS_KTHREAD_H_

#ifdef __cplusplus
extern "C" {
#endif

struct kthread;

/* Start fn(arg) on a new kernel thread; 0 or an errno value. */
int kthread_add(void (*fn)(void *), void *arg, const char *name,
    struct kthread **out);
/* Wait for the thread to return and release it. */
void kthread_join(struct kthread *td);

#ifdef __cplusplus
}
#endif
#endif
