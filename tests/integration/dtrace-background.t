# A trailing & leaves an enabling running in the background while the shell
# goes on: dtrace -j lists them, -o prints what one has collected so far,
# -k stops one and prints the rest with its aggregations.  exit() ends a
# background enabling by itself; unloading a module takes its probes out of
# the enablings that use them.
# status: 1
minikern> kldload dtrace_probes
minikern> dtrace -q -n 'dtt:::word { printf("word %s\n", stringof(arg0)); } dtt:::tick { @ticks = count(); }' &
dtrace: enabling 1 started in the background
minikern> dtrace -n 'dtt:::value /arg0 == 99/ { exit(0); }' &
dtrace: description 'dtt:::value ' matched 1 probe
dtrace: enabling 2 started in the background
minikern> dtrace -j
   ID STATE       RECORDS    DROPS DESCRIPTION
    1 running           0        0 dtt:::word, dtt:::tick
    2 running           0        0 dtt:::value
minikern> dtprobe word one two
minikern> dtprobe tick 4
minikern> dtrace -o 1
word one
word two
minikern> dtrace -o 1
minikern> dtprobe word three
minikern> dtprobe value 99
minikern> sleep 500
minikern> dtrace -j
   ID STATE       RECORDS    DROPS DESCRIPTION
    1 running           3        0 dtt:::word, dtt:::tick
    2 exited            1        0 dtt:::value
minikern> dtrace -k 1
word three

                4
minikern> dtrace -k 2
CPU     ID                    FUNCTION:NAME
  0 {{ *[0-9]+}}                  dtt_value:value 
minikern> dtrace -j
minikern> dtrace -k 1
dtrace: no background enabling 1 (dtrace -j lists them)
minikern> dtrace -o 7
dtrace: no background enabling 7 (dtrace -j lists them)
minikern> dtrace -k 99999999999999999999
dtrace: -k: invalid enabling id '99999999999999999999': larger than any enabling id (2147483647)
minikern> dtrace -o 0
dtrace: -o: invalid enabling id '0'
minikern> dtrace -q -n 'dtt:::value { printf("%d\n", arg0); }' &
dtrace: enabling 3 started in the background
minikern> dtprobe value 5
minikern> kldunload dtrace_probes
dtrace: enabling 3: 1 probe of dtrace_probes.ko removed at unload
minikern> dtrace -k 3
5
