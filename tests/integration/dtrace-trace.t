# Enabling probes with D clauses: the default CPU/ID/FUNCTION:NAME line,
# trace(), printf(), stringof(), predicates, several clauses and -n
# options, BEGIN and END, -q, exit() and its status (its firing's later
# clauses do not run), -c to run a command.
# status: 1
minikern> kldload dtrace_probes
minikern> dtrace -n dtt:::tick -c 'dtprobe tick 2'
dtrace: description 'dtt:::tick' matched 1 probe
CPU     ID                    FUNCTION:NAME
  0 {{ *[0-9]+}}                    dtt_tick:tick 
  0 {{ *[0-9]+}}                    dtt_tick:tick 
minikern> dtrace -n 'dtt:::tick { trace(arg0); trace(stringof(arg1)); trace(arg0 > 0); }' -c 'dtprobe tick 3'
dtrace: description 'dtt:::tick ' matched 1 probe
CPU     ID                    FUNCTION:NAME
  0 {{ *[0-9]+}}                    dtt_tick:tick                    0  tick                                       0
  0 {{ *[0-9]+}}                    dtt_tick:tick                    1  tick                                       1
  0 {{ *[0-9]+}}                    dtt_tick:tick                    2  tick                                       1
minikern> dtrace -q -n 'dtt:::tick /arg0 % 2 == 1/ { printf("%d squared is %d\n", arg0, arg2); }' -c 'dtprobe tick 6'
1 squared is 1
3 squared is 9
5 squared is 25
minikern> dtrace -q -n 'dtt:::word { printf("[%s] [%-6s] [%6s] [%.2s] %d\n", stringof(arg0), stringof(arg0), stringof(arg0), stringof(arg0), strlen(stringof(arg0))); }' -c 'dtprobe word hello world'
[hello] [hello ] [ hello] [he] 5
[world] [world ] [ world] [wo] 5
minikern> dtrace -q -n 'dtt:::value { printf("%d %u %x %X %o %c %p %#p|%5d|%-5d|%05d\n", arg0, arg0, arg0, arg0, arg0, arg0 + 64, arg0, arg0, arg0, arg0, arg0); }' -c 'dtprobe value 10 42'
10 10 a A 12 J a 0xa|   10|10   |00010
42 42 2a 2A 52 j 2a 0x2a|   42|42   |00042
minikern> dtrace -q -n 'dtt:::word /stringof(arg0) == "b"/ { printf("%s:%s:%s:%s %s\n", probeprov, probemod, probefunc, probename, stringof(args[0])); }' -c 'dtprobe word a b c'
dtt:dtrace_probes:dtt_word:word b
minikern> dtrace -q -n 'BEGIN { printf("begin\n"); }' -n 'dtt:::value { printf("value %d\n", arg0); }' -n 'END { printf("end\n"); }' -c 'dtprobe value 1 2'
begin
value 1
value 2
end
minikern> dtrace -n 'BEGIN { exit(0); }'
dtrace: description 'BEGIN ' matched 1 probe
CPU     ID                    FUNCTION:NAME
  0      1                           :BEGIN 
minikern> dtrace -q -n 'dtt:::value /arg0 == 3/ { printf("exiting\n"); exit(4); } dtt:::value { printf("%d\n", arg0); }' -c 'dtprobe value 1 2 3 4 5'
1
2
exiting
minikern> dtrace -q -n 'BEGIN { trace(5); exit(0); }'
5
minikern> kldunload dtrace_probes
