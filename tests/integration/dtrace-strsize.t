# strsize (issue 22): -x strsize=N and #pragma D option strsize=N set how
# many characters a string keeps, as DTrace counts them; literals,
# stringof( ), string functions' results, variables, keys and the probe's
# names (probeprov ...), on either engine, are cut there.  A script's pragma wins over -x; a bad value names the option.
# status: 1
# setup: printf '#pragma D option strsize=3\n#pragma D option quiet\nBEGIN { a["abcdef"] = 1; a["abcxyz"]++; printf("%%s %%s %%d\\n", toupper("hello"), substr("minikern", 2), a["abc"]); exit(0); }\n' > three.d
# setup: printf '#pragma D option strsize=300\nBEGIN { exit(0); }\n' > big.d
minikern> dtrace -q -x strsize=5 -n 'BEGIN { s = "abcdefgh"; printf("%s %d %s %d\n", s, strlen("123456789"), strjoin("abc", "def"), strlen(strjoin(s, s))); exit(0); }'
abcde 5 abcde 5
minikern> dtrace -s $TMP/three.d
HEL n 2
minikern> dtrace -x strsize=8 -s $TMP/three.d
HEL n 2
minikern> dtrace -q -n 'BEGIN { printf("%d\n", strlen(lltostr(123456789012))); exit(0); }'
12
minikern> dtrace -q -x strsize=5 -n 'BEGIN { x = probeprov; printf("%s %s %s %d\n", probeprov, x, probename, strlen(probeprov)); trace(probeprov); exit(0); }'
dtrac dtrac BEGIN 5
dtrac
minikern> dtrace -q -x engine=interp -x strsize=5 -n 'BEGIN { printf("%s %s\n", probeprov, probename); exit(0); }'
dtrac BEGIN
minikern> kldload dtrace_probes
minikern> dtrace -q -x strsize=4 -n 'dtt:::word { printf("%s %d\n", stringof(arg0), stringof(arg0) == "abcd"); }' -c 'dtprobe word abcdefgh'
abcd 1
minikern> dtrace -x strsize=0 -n 'BEGIN { exit(0); }'
dtrace: failed to set -x strsize: Invalid value for specified option
minikern> dtrace -x strsize=1k -n 'BEGIN { exit(0); }'
dtrace: failed to set -x strsize: Invalid value for specified option
minikern> dtrace -s $TMP/big.d
dtrace: failed to compile script $TMP/big.d: line 1: failed to set option 'strsize' to '300': Invalid value for specified option
