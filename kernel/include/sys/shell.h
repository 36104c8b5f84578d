/*
 * Shell commands registered by modules.  A command is live while its module
 * is loaded; `help` lists it with its usage line.  The handler prints with
 * printf and returns 0 on success, anything else on failure.
 */
#ifndef _SYS_SHELL_H_
#define _SYS_SHELL_H_

#include <sys/linker_set.h>

typedef int shell_cmd_func_t(int argc, char **argv);

struct shell_cmd {
	const char *sc_name;
	shell_cmd_func_t *sc_func;
	const char *sc_usage;  /* e.g. "mydev write TEXT" */
	const char *sc_descr;  /* one line for `help` */
};

#define SHELL_COMMAND(name, func, usage, descr)                                \
	static struct shell_cmd __shell_cmd_##name = { #name, func, usage,     \
		descr };                                                       \
	DATA_SET(shell_cmd_set, __shell_cmd_##name)

#endif
