# Errors are one line each: bad probe descriptions, syntax and type errors
# with the token they were found near, descriptions that match nothing, bad
# options; and run-time faults (a bad pointer, a division by zero) as DTrace
# reports them, without stopping the trace.
# status: 1
minikern> dtrace
dtrace: usage: dtrace [-CeFlqSvwZ] [-b size] [-x opt[=val]] [-D name[=def]] [-U name] [-I dir] [-n desc] [-s file [arg ...]] [-P prov] [-m mod] [-f func] [-i id] [-c cmd] [&] | -j | -o id | -k id
minikern> dtrace -y
dtrace: illegal option -- y (usage: dtrace [-CeFlqSvwZ] [-b size] [-x opt[=val]] [-D name[=def]] [-U name] [-I dir] [-n desc] [-s file [arg ...]] [-P prov] [-m mod] [-f func] [-i id] [-c cmd] [&] | -j | -o id | -k id)
minikern> dtrace -n
dtrace: option requires an argument -- n (usage: dtrace [-CeFlqSvwZ] [-b size] [-x opt[=val]] [-D name[=def]] [-U name] [-I dir] [-n desc] [-s file [arg ...]] [-P prov] [-m mod] [-f func] [-i id] [-c cmd] [&] | -j | -o id | -k id)
minikern> dtrace -n 'x(y)'
dtrace: invalid probe description "x(y)": invalid character '('
minikern> dtrace -n 'a:b:c:d:e'
dtrace: invalid probe description "a:b:c:d:e": too many fields (provider:module:function:name)
minikern> dtrace -n 'nosuch:::'
dtrace: description 'nosuch:::' matched 0 probes
minikern> dtrace -n 'BEGIN { trace(1) '
dtrace: syntax error at end of input: expected ';' or '}' after a statement
minikern> dtrace -n 'BEGIN { foo(1); }'
dtrace: syntax error near "foo": unknown action (trace, printf, printa, exit, stack, normalize, denormalize, trunc, clear, speculate, commit, discard, setopt, system, freopen)
minikern> dtrace -n 'BEGIN { trace(nosuchvar); }'
dtrace: syntax error near "nosuchvar": undefined variable
minikern> dtrace -n 'BEGIN { printf("%s\n", arg0); }'
dtrace: semantic error near "printf": printf( ) argument #2 is an integer but conversion #1 (%s) wants a string; use stringof( )
minikern> dtrace -n 'BEGIN { printf("%d %d\n", 1); }'
dtrace: semantic error near "printf": printf( ) format needs more arguments (conversion #2, %d, has none)
minikern> dtrace -n 'BEGIN { @a = count(); } END { @a = sum(1); }'
dtrace: semantic error near "@a": @a is used with count( ) and with sum( )
minikern> dtrace -n 'BEGIN { trace("a" == 1); }'
dtrace: semantic error near "==": operands of == have incompatible types: string and int
minikern> dtrace -n 'BEGIN { printf("%f", 1); }'
dtrace: semantic error near "printf": printf( ) conversion "%f" is not supported: D here has no floating point
minikern> dtrace -b 0 -n BEGIN
dtrace: -b: size '0' is below the minimum of 1 byte
minikern> dtrace -s $TMP/nosuch.d
dtrace: failed to open $TMP/nosuch.d: No such file or directory
minikern> kldload dtrace_probes
minikern> dtrace -n 'dtt:::word { printf("%s\n", stringof(arg0)); }' -c 'dtprobe word before; dtprobe badptr; dtprobe word after'
dtrace: description 'dtt:::word ' matched 1 probe
CPU     ID                    FUNCTION:NAME
  0 {{ *[0-9]+}}                    dtt_word:word before

dtrace: error on enabled probe ID 1 (ID {{[0-9]+}}: dtt:dtrace_probes:dtt_word:word): invalid address (0x10) in action #1
  0 {{ *[0-9]+}}                    dtt_word:word after
minikern> dtrace -q -n 'dtt:::value { printf("%d\n", 100 / arg0); }' -c 'dtprobe value 5 0 20'
20
dtrace: error on enabled probe ID 1 (ID {{[0-9]+}}: dtt:dtrace_probes:dtt_value:value): divide-by-zero in action #1
5
minikern> dtrace -q -n 'dtt:::value /(10 / arg0) > 1/ { printf("%d\n", arg0); } dtrace:::ERROR { printf("ERROR: enabled probe %d, action %d, fault %d\n", arg1, arg2, arg4); }' -c 'dtprobe value 0 2'
dtrace: error on enabled probe ID 1 (ID {{[0-9]+}}: dtt:dtrace_probes:dtt_value:value): divide-by-zero in predicate
ERROR: enabled probe 1, action 0, fault 4
2
minikern> kldunload dtrace_probes
minikern> dtrace -n 'BEGIN { x = 1; y = x % 0; }'
dtrace: semantic error near "%": operator % divides by the constant 0
