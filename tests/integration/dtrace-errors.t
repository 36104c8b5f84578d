# Compile errors as DTrace words them ("invalid probe specifier TEXT: why",
# with -x errtags the error's tag; a prototype mismatch adds the two
# types on lines of their own; a syntax error at a name DTrace's lexer
# had not met names the rest of its line, as DTrace's does, and digits
# then letters are a number and a name): bad probe descriptions, syntax and type
# errors (an action where a value goes is void, named as its context
# names it), descriptions that match nothing, bad options, calls of
# DTrace functions this kernel has nothing for (checked against DTrace's
# prototype, then refused); and run-time
# faults (a bad pointer, a division by zero) as DTrace reports them,
# without stopping the trace.
# status: 1
# setup: printf '/* nothing but a comment */\n' > empty.d
minikern> dtrace
dtrace: usage: dtrace [-CeFlqSvwZ] [-b size] [-x opt[=val]] [-D name[=def]] [-U name] [-I dir] [-n desc] [-s file [arg ...]] [-P prov] [-m mod] [-f func] [-i id] [-c cmd] [&] | -j | -o id | -k id
minikern> dtrace -y
dtrace: illegal option -- y (usage: dtrace [-CeFlqSvwZ] [-b size] [-x opt[=val]] [-D name[=def]] [-U name] [-I dir] [-n desc] [-s file [arg ...]] [-P prov] [-m mod] [-f func] [-i id] [-c cmd] [&] | -j | -o id | -k id)
minikern> dtrace -n
dtrace: option requires an argument -- n (usage: dtrace [-CeFlqSvwZ] [-b size] [-x opt[=val]] [-D name[=def]] [-U name] [-I dir] [-n desc] [-s file [arg ...]] [-P prov] [-m mod] [-f func] [-i id] [-c cmd] [&] | -j | -o id | -k id)
minikern> dtrace -n 'x(y)'
dtrace: invalid probe specifier x(y): invalid probe description "x(y)": invalid character '('
minikern> dtrace -n 'a:b:c:d:e'
dtrace: invalid probe specifier a:b:c:d:e: invalid probe description "a:b:c:d:e": too many fields (provider:module:function:name)
minikern> dtrace -n 'nosuch:::'
dtrace: invalid probe specifier nosuch:::: probe description nosuch::: does not match any probes
minikern> dtrace -n 'BEGIN { trace(1) '
dtrace: invalid probe specifier BEGIN { trace(1) : syntax error near end of input
minikern> dtrace -x errtags -n 'BEGIN { trace(offsetof(nosuch_t, member)); }'
dtrace: invalid probe specifier BEGIN { trace(offsetof(nosuch_t, member)); }: [D_SYNTAX] syntax error near "nosuch_t, member)); }"
minikern> dtrace -x errtags -n 'BEGIN { x = 7days; }'
dtrace: invalid probe specifier BEGIN { x = 7days; }: [D_SYNTAX] syntax error near "days; }"
minikern> dtrace -x errtags -n 'BEGIN { y = 1; x = 2 y; }'
dtrace: invalid probe specifier BEGIN { y = 1; x = 2 y; }: [D_SYNTAX] syntax error near "y"
minikern> dtrace -x errtags -n 'BEGIN { x = a->b c; }'
dtrace: invalid probe specifier BEGIN { x = a->b c; }: [D_SYNTAX] syntax error near "c; }"
minikern> dtrace -x errtags -n 'int 9lives; BEGIN { exit(0); }'
dtrace: invalid probe specifier int 9lives; BEGIN { exit(0); }: [D_SYNTAX] syntax error near "9l"
minikern> dtrace -n 'BEGIN { foo(1); }'
dtrace: invalid probe specifier BEGIN { foo(1); }: undefined function name: foo
minikern> dtrace -n 'BEGIN { trace(nosuchvar); }'
dtrace: invalid probe specifier BEGIN { trace(nosuchvar); }: failed to resolve nosuchvar: Unknown variable name
minikern> dtrace -n 'BEGIN { printf("%s\n", arg0); }'
dtrace: invalid probe specifier BEGIN { printf("%s\n", arg0); }: printf( ) argument #2 is incompatible with conversion #1 prototype:
	conversion: %s
	 prototype: char [] or string (or use stringof)
	  argument: int64_t
minikern> dtrace -n 'BEGIN { printf("%d %d\n", 1); }'
dtrace: invalid probe specifier BEGIN { printf("%d %d\n", 1); }: printf( ) prototype mismatch: conversion #2 (%d) is missing a corresponding value argument
minikern> dtrace -n 'BEGIN { @a = count(); } END { @a = sum(1); }'
dtrace: invalid probe specifier BEGIN { @a = count(); } END { @a = sum(1); }: @a is used with count( ) and with sum( )
minikern> dtrace -n 'BEGIN { trace("a" == 1); }'
dtrace: invalid probe specifier BEGIN { trace("a" == 1); }: operands have incompatible types: "string" == "int"
minikern> dtrace -n 'BEGIN { printf("%f", 1); }'
dtrace: invalid probe specifier BEGIN { printf("%f", 1); }: printf( ) argument #2 is incompatible with conversion #1 prototype:
	conversion: %f
	 prototype: double
	  argument: int
minikern> dtrace -n 'double d; BEGIN { printf("%d", d); }'
dtrace: invalid probe specifier double d; BEGIN { printf("%d", d); }: printf( ) argument #2 is incompatible with conversion #1 prototype:
	conversion: %d
	 prototype: char, short, int, long, or long long
	  argument: double
minikern> dtrace -n 'double d; BEGIN { x = d * 2; }'
dtrace: invalid probe specifier double d; BEGIN { x = d * 2; }: floating-point operands are not supported by D operators: a float or double is copied and printed (%e, %f, %g)
minikern> dtrace -x errtags -n 'BEGIN { exit(); }'
dtrace: invalid probe specifier BEGIN { exit(); }: [D_PROTO_LEN] exit( ) prototype mismatch: 0 args passed, 1 expected
minikern> dtrace -x errtags -n 'BEGIN { substr("minikern", "4"); }'
dtrace: invalid probe specifier BEGIN { substr("minikern", "4"); }: [D_PROTO_ARG] substr( ) argument #2 is incompatible with prototype:
	prototype: int
	 argument: string
minikern> dtrace -x errtags -n 'BEGIN { @a = count(); printf("%d", @a); }'
dtrace: invalid probe specifier BEGIN { @a = count(); printf("%d", @a); }: [D_PRINTF_ARG_TYPE] printf( ) argument #2 is incompatible with conversion #1 prototype:
	conversion: %d
	 prototype: char, short, int, long, or long long
	  argument: aggregation
minikern> dtrace -x version=99.1 -n 'BEGIN { exit(0); }'
dtrace: failed to set -x version: Requested version is not supported by compiler
minikern> dtrace -x strsize=1 -n 'BEGIN { exit(0); }'
dtrace: failed to set -x strsize: Invalid value for specified option
minikern> dtrace -x iregs=12 -n 'BEGIN { exit(0); }'
dtrace: failed to set -x iregs: Invalid value for specified option
minikern> dtrace -x errtags -n 'register x; BEGIN { exit(0); }'
dtrace: invalid probe specifier register x; BEGIN { exit(0); }: [D_DECL_BADCLASS] specified storage class not appropriate in D
minikern> dtrace -x errtags -n 'extern int; BEGIN { exit(0); }'
dtrace: invalid probe specifier extern int; BEGIN { exit(0); }: [D_DECL_USELESS] useless declaration
minikern> dtrace -x errtags -n 'BEGIN { i = (char long)0; }'
dtrace: invalid probe specifier BEGIN { i = (char long)0; }: [D_DECL_CHARATTR] invalid type declaration: short and long may not be used with char type
minikern> dtrace -x errtags -n 'BEGIN { i = (long short)0; }'
dtrace: invalid probe specifier BEGIN { i = (long short)0; }: [D_UNKNOWN] failed to resolve type short long : Unknown type name
minikern> dtrace -x errtags -n 'BEGIN { i = (double double)0; }'
dtrace: invalid probe specifier BEGIN { i = (double double)0; }: [D_DECL_COMBO] invalid type combination
minikern> dtrace -x errtags -n 'BEGIN { trace(args[0]); }'
dtrace: invalid probe specifier BEGIN { trace(args[0]); }: [D_ARGS_IDX] index 0 is out of range for dtrace:::BEGIN args[ ]
minikern> dtrace -x errtags -n 'int a[string, void]; BEGIN { exit(0); }'
dtrace: invalid probe specifier int a[string, void]; BEGIN { exit(0); }: [D_DECL_PROTO_TYPE] array prototype may not use parameter of type void: (anonymous), parameter #2
minikern> dtrace -x errtags -n 'int x[5]; BEGIN { x[1, 2] = 1; }'
dtrace: invalid probe specifier int x[5]; BEGIN { x[1, 2] = 1; }: [D_ARR_BADREF] cannot access scalar x as an associative array
minikern> dtrace -x errtags -n 'int *p; BEGIN { p->a = 1; }'
dtrace: invalid probe specifier int *p; BEGIN { p->a = 1; }: [D_OP_SOU] operator -> cannot be applied to pointer to type "int"; must be applied to a struct or union pointer
minikern> dtrace -x errtags -n 'BEGIN { trace(1)); }'
dtrace: invalid probe specifier BEGIN { trace(1)); }: [D_SYNTAX] extra ) in input stream
minikern> dtrace -n 'BEGIN /a[1/ { }'
dtrace: invalid probe specifier BEGIN /a[1/ { }: closing ] expected in predicate before /
minikern> dtrace -q -n 'BEGIN /(4/2) == 2/ { trace("a division"); exit(0); }'
a division
minikern> dtrace -x errtags -n 'BEGIN { mutex_owned(0, 99); }'
dtrace: invalid probe specifier BEGIN { mutex_owned(0, 99); }: [D_PROTO_LEN] mutex_owned( ) prototype mismatch: 2 args passed, 1 expected
minikern> dtrace -x errtags -n 'BEGIN { x = progenyof(trace(1)); }'
dtrace: invalid probe specifier BEGIN { x = progenyof(trace(1)); }: [D_PROTO_ARG] progenyof( ) argument #1 is incompatible with prototype:
	prototype: pid_t
	 argument: void
minikern> dtrace -x errtags -n 'BEGIN { copyout("buf", "addr", 5); }'
dtrace: invalid probe specifier BEGIN { copyout("buf", "addr", 5); }: [D_PROTO_ARG] copyout( ) argument #2 is incompatible with prototype:
	prototype: uintptr_t
	 argument: string
minikern> dtrace -x errtags -n 'BEGIN { ustack(0, 200); }'
dtrace: invalid probe specifier BEGIN { ustack(0, 200); }: [D_USTACK_FRAMES] ustack( ) argument #1 must be a non-zero positive integer constant
minikern> dtrace -x errtags -n 'BEGIN { jstack(1, -1); }'
dtrace: invalid probe specifier BEGIN { jstack(1, -1); }: [D_USTACK_STRSIZE] jstack( ) argument #2 must be a positive integer constant
minikern> dtrace -n 'BEGIN { ustack(); }'
dtrace: invalid probe specifier BEGIN { ustack(); }: ustack( ) is not available: this kernel has no user stacks
minikern> dtrace -n 'BEGIN { chill(1); exit(0); }'
dtrace: description 'BEGIN ' matched 1 probe
dtrace: could not enable tracing: Destructive actions not allowed
minikern> dtrace -q -n 'BEGIN { exit(0); }' 12
dtrace: invalid probe specifier BEGIN { exit(0); }: extraneous argument '12' ($1 is not referenced)
minikern> dtrace -b 0 -n BEGIN
dtrace: -b: size '0' is below the minimum of 1 byte
minikern> dtrace -s $TMP/nosuch.d
dtrace: failed to open $TMP/nosuch.d: No such file or directory
minikern> kldload dtrace_probes
minikern> dtrace -n 'dtt:::word { printf("%s\n", stringof(arg0)); }' -c 'dtprobe word before; dtprobe badptr; dtprobe word after'
dtrace: description 'dtt:::word ' matched 1 probe
CPU     ID                    FUNCTION:NAME
  0 {{ *[0-9]+}}                    dtt_word:word before

dtrace: error in dt_clause_0 for probe ID {{[0-9]+}} (dtt:dtrace_probes:dtt_word:word): invalid address (0x10) at BPF pc {{[0-9]+}}
  0 {{ *[0-9]+}}                    dtt_word:word after
minikern> dtrace -q -n 'dtt:::value { printf("%d\n", 100 / arg0); }' -c 'dtprobe value 5 0 20'
20
dtrace: error in dt_clause_0 for probe ID {{[0-9]+}} (dtt:dtrace_probes:dtt_value:value): divide-by-zero at BPF pc {{[0-9]+}}
5
minikern> dtrace -q -n 'dtt:::value /(10 / arg0) > 1/ { printf("%d\n", arg0); } dtrace:::ERROR { printf("ERROR: probe %s, statement %d, fault %d\n", arg1 == id ? "same" : "other", arg2, arg4); }' -c 'dtprobe value 0 2'
dtrace: error in dt_clause_0 for probe ID {{[0-9]+}} (dtt:dtrace_probes:dtt_value:value): divide-by-zero at BPF pc {{[0-9]+}}
ERROR: probe other, statement 0, fault 4
2
minikern> dtrace -q -n 'BEGIN, dtt:::value /(10 / arg0) > 1/ { printf("%d\n", arg0); } dtrace:::ERROR { printf("ERROR: statement %d\n", arg2); }' -c 'dtprobe value 0 2'
dtrace: error in dt_clause_0 for probe ID 1 (dtrace:::BEGIN): divide-by-zero at BPF pc {{[0-9]+}}
ERROR: statement 0
dtrace: error in dt_clause_1 for probe ID {{[0-9]+}} (dtt:dtrace_probes:dtt_value:value): divide-by-zero at BPF pc {{[0-9]+}}
ERROR: statement 1
2
minikern> kldunload dtrace_probes
minikern> dtrace -n 'BEGIN { x = 1; y = x % 0; }'
dtrace: invalid probe specifier BEGIN { x = 1; y = x % 0; }: expression contains division by zero

minikern> dtrace -q -x errtags -n 'BEGIN { exit(exit(0)); }'
dtrace: invalid probe specifier BEGIN { exit(exit(0)); }: [D_PROTO_ARG] exit( ) argument #1 is incompatible with prototype:
	prototype: int
	 argument: void

minikern> dtrace -q -x errtags -n 'BEGIN { printf("%d", printf("")); }'
dtrace: invalid probe specifier BEGIN { printf("%d", printf("")); }: [D_PRINTF_ARG_TYPE] printf( ) argument #2 is incompatible with conversion #1 prototype:
	conversion: %d
	 prototype: char, short, int, long, or long long
	  argument: void

minikern> dtrace -q -x errtags -n 'BEGIN { trace(trace(1)); }'
dtrace: invalid probe specifier BEGIN { trace(trace(1)); }: [D_TRACE_VOID] trace( ) may not be applied to a void expression
minikern> # A cast to void is a void expression: it may be evaluated, not traced or stored.
minikern> dtrace -q -x errtags -n 'BEGIN { trace((void)`max_pfn); }'
dtrace: invalid probe specifier BEGIN { trace((void)`max_pfn); }: [D_TRACE_VOID] trace( ) may not be applied to a void expression
minikern> dtrace -q -x errtags -n 'BEGIN { x = (void)1; }'
dtrace: invalid probe specifier BEGIN { x = (void)1; }: [D_DECL_VOIDOBJ] cannot declare void object: x
minikern> dtrace -q -n 'BEGIN { (void)(n = 2); printf("%d\n", n); exit(0); }'
2

minikern> dtrace -q -x errtags -n 'BEGIN { x = 1 ? trace(0) : trace(1); }'
dtrace: invalid probe specifier BEGIN { x = 1 ? trace(0) : trace(1); }: [D_OP_ACT] action cannot be used in a conditional context

minikern> dtrace -q -x errtags -n 'BEGIN { x = -trace(0); }'
dtrace: invalid probe specifier BEGIN { x = -trace(0); }: [D_OP_ARITH] operator - requires an operand of arithmetic type

minikern> dtrace -q -x errtags -n 'BEGIN { x = trace(1); }'
dtrace: invalid probe specifier BEGIN { x = trace(1); }: [D_OP_ACT] trace( ) is an action, not a value

minikern> dtrace -q -x errtags -n 'BEGIN { printf("%s", stringof(trace(0))); }'
dtrace: invalid probe specifier BEGIN { printf("%s", stringof(trace(0))); }: [D_STRINGOF_TYPE] cannot apply stringof to a value of type void

minikern> dtrace -q -x errtags -n 'BEGIN { x = 1 ? printf("a") : trace(); }'
dtrace: invalid probe specifier BEGIN { x = 1 ? printf("a") : trace(); }: [D_PROTO_LEN] trace( ) prototype mismatch: 0 args passed, 1 expected

minikern> dtrace -q -n 'BEGIN { commit(1); exit(0); }'
dtrace: invalid probe specifier BEGIN { commit(1); exit(0); }: data-recording actions may not follow commit( )

minikern> dtrace -q -n 'int a[]; BEGIN { exit(0); }'
dtrace: invalid probe specifier int a[]; BEGIN { exit(0); }: array declaration requires array dimension or tuple signature: a

minikern> dtrace -q -n 'BEGIN { i = (char int)0; }'
dtrace: invalid probe specifier BEGIN { i = (char int)0; }: invalid type combination

minikern> dtrace -q -n 'void *p; BEGIN { trace((int)(p + 1)); }'
dtrace: invalid probe specifier void *p; BEGIN { trace((int)(p + 1)); }: operands have incompatible types: "void *" + "int"

minikern> dtrace -q -n 'BEGIN { c = 123/(7-7); }'
dtrace: invalid probe specifier BEGIN { c = 123/(7-7); }: expression contains division by zero

minikern> dtrace -q -n 'BEGIN { x = alloca(300); }'
dtrace: invalid probe specifier BEGIN { x = alloca(300); }: alloca(300) size larger than scratchsize 256

minikern> dtrace -q -n 'int a[4]; BEGIN /a/ { exit(0); }'
dtrace: invalid probe specifier int a[4]; BEGIN /a/ { exit(0); }: predicate result must be of scalar type

minikern> dtrace -q -n 'extern int e[]; BEGIN { exit(0); }'

minikern> dtrace -s $TMP/empty.d
dtrace: failed to compile script $TMP/empty.d: line 2: empty D program translation unit
minikern> dtrace -x empty -s $TMP/empty.d
dtrace: script '$TMP/empty.d' matched 0 probes
dtrace: no probes matched
