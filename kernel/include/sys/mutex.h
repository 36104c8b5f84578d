/* Sleepable kernel mutexes. */
#ifndef _SYS_MUTEX_H_
#define _SYS_MUTEX_H_

#ifdef __cplusplus
extern "C" {
#endif

struct mtx {
	void *mtx_impl;       /* kernel-private */
	const char *mtx_name;
};

void mtx_init(struct mtx *m, const char *name);
void mtx_destroy(struct mtx *m);
void mtx_lock(struct mtx *m);
void mtx_unlock(struct mtx *m);
int mtx_trylock(struct mtx *m);

#ifdef __cplusplus
}
#endif
#endif
