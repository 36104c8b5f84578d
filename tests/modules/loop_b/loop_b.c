/* loop_b: depends on loop_a, which depends on loop_b: a dependency loop. */
#include <sys/kernel.h>

DECLARE_MODULE(loop_b, NULL);
MODULE_DEPEND(loop_b, loop_a, 1, 1, 1);
