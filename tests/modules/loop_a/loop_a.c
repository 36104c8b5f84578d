/* loop_a: depends on loop_b, which depends on loop_a: a dependency loop. */
#include <sys/kernel.h>

DECLARE_MODULE(loop_a, NULL);
MODULE_DEPEND(loop_a, loop_b, 1, 1, 1);
