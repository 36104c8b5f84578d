# Destructive actions, refused unless -w (or -x destructive, or the
# destructive pragma) allows them: system() runs a host command with
# printf()'s arguments, its output in order with the records'; freopen()
# sends the output to a file and freopen("") back; chill() holds the
# probe's thread; panic() panics the kernel through its panic path, the
# backtrace starting at the probe's site (exit status 3).  Also setopt()
# of the options the consumer reads while printing (its errors in
# dtrace-utils' words), the rate options checked as DTrace reads them, and
# -C for -n.
# status: 3
minikern> dtrace -q -n 'BEGIN { system("echo from %s %d", "system", 42); exit(0); }'
dtrace: could not enable tracing: Destructive actions not allowed
minikern> dtrace -q -n 'BEGIN { panic(); }'
dtrace: could not enable tracing: Destructive actions not allowed
minikern> dtrace -q -w -n 'BEGIN { printf("before\n"); system("echo from %s %d", "system", 42); printf("after\n"); exit(0); }'
before
from system 42
after
minikern> dtrace -n 'BEGIN { chill(1000); exit(0); }' -x destructive
dtrace: description 'BEGIN ' matched 1 probe
dtrace: allowing destructive actions
CPU     ID                    FUNCTION:NAME
{{ +}}0      1                           :BEGIN 
minikern> dtrace -q -w -n 'BEGIN { t = walltimestamp; chill(2000000); printf("%d\n", walltimestamp - t >= 2000000); exit(0); }'
1
minikern> dtrace -q -w -n 'BEGIN { freopen("$TMP/out.txt"); printf("to the file\n"); freopen(""); printf("back\n"); system("cat $TMP/out.txt"); exit(0); }'
back
to the file
minikern> dtrace -q -n 'BEGIN { setopt("aggsortkey", "maybe"); setopt("bogus"); setopt("bufsize", "1m"); setopt("aggrate", "0.5hz"); setopt("aggrate", "10msec"); setopt("quiet", "no"); } BEGIN { printf("loud now"); exit(0); }'
dtrace: error in dt_clause_0 for probe ID 1 (dtrace:::BEGIN): couldn't set option "aggsortkey" to "maybe": Invalid value for specified option

dtrace: error in dt_clause_0 for probe ID 1 (dtrace:::BEGIN): couldn't set option "bogus" to "1": Invalid option name

dtrace: error in dt_clause_0 for probe ID 1 (dtrace:::BEGIN): couldn't set option "bufsize" to "1m": Operation illegal when tracing is active

dtrace: error in dt_clause_0 for probe ID 1 (dtrace:::BEGIN): couldn't set option "aggrate" to "0.5hz": Invalid value for specified option

CPU     ID                    FUNCTION:NAME
{{ +}}0      1                           :BEGIN loud now
minikern> dtrace -q -n 'BEGIN { setopt(1); }'
dtrace: invalid probe specifier BEGIN { setopt(1); }: setopt( ) argument #1 is incompatible with prototype:
	prototype: char *
	 argument: int
minikern> dtrace -q -C -DN=21 -n 'BEGIN { printf("%d\n", N * 2); exit(0); }'
42
minikern> kldload dtrace_probes
minikern> dtrace -n '#pragma D option statusrate=10sec' -n '#pragma D option cleanrate=3000hz' -n '#pragma D option switchrate=1NSEC' -n 'BEGIN { exit(0); }' -q
minikern> dtrace -n '#pragma D option aggrate=0.5hz'
dtrace: invalid probe specifier #pragma D option aggrate=0.5hz: failed to set option 'aggrate' to '0.5hz': Invalid value for specified option
minikern> dtrace -n '#pragma D option switchrate=5fortnights'
dtrace: invalid probe specifier #pragma D option switchrate=5fortnights: failed to set option 'switchrate' to '5fortnights': Invalid value for specified option
minikern> dtrace -x aggrate=10ms -x dynvarsize=1m -x statusrate=2 -q -n 'BEGIN { exit(0); }'

minikern> dtrace -x aggrate=0.5hz -n 'BEGIN { exit(0); }'
dtrace: failed to set -x aggrate: Invalid value for specified option
minikern> dtrace -x dynvarsize=lots -n 'BEGIN { exit(0); }'
dtrace: failed to set -x dynvarsize: Invalid value for specified option
minikern> dtrace -w -q -n 'BEGIN { freopen("."); exit(0); }'
dtrace: invalid probe specifier BEGIN { freopen("."); exit(0); }: freopen( ) argument #1 cannot be "."
minikern> dtrace -w -q -n 'dtt:::tick { panic(); }' -c 'dtprobe tick 1'
panic: dtrace: panic( ) called by a D clause of dtt:dtrace_probes:dtt_tick:tick
called from: {{0x[0-9a-f]+}} dtrace_probes`dtt_tick+{{0x[0-9a-f]+}}
thread: shell (tid {{[0-9]+}})
backtrace:
  #0 {{0x[0-9a-f]+}} dtrace_probes`dtt_tick+{{0x[0-9a-f]+}}
  #1 {{0x[0-9a-f]+}} dtrace_probes`dtt_cmd+{{0x[0-9a-f]+}}
...
dmesg (last lines):
...
panic: kernel stopped (exit status 3)
