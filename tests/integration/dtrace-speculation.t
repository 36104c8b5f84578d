# Speculations: speculation() claims a buffer, speculate() sends the rest
# of the clause's record to it, commit() prints what it holds after the
# committing record and discard() drops it (without -q a record that only
# commits or discards prints no line of its own); nspec and specsize (-x and
# #pragma); DTrace's messages for failed speculations and speculative drops;
# speculate( ) of no active speculation (0, an id beyond nspec, one not
# claimed) ends its clause without a word, as dtrace-utils' does; commit( )
# of an id beyond nspec is an illegal operation; the placement rules of
# DTrace on BPF (discard( ) may go anywhere; speculate( ) is refused after
# speculate( ) before what it refuses after a record).
# status: 1
# setup: printf '#pragma D option nspec=2\nBEGIN { printf("%%d %%d\\n", speculation(), speculation()); exit(0); }\n' > nspec.d
minikern> kldload dtrace_probes
minikern> dtrace -n 'BEGIN { self->s = speculation(); } BEGIN { speculate(self->s); printf("kept"); } BEGIN { commit(self->s); } BEGIN { exit(0); }'
dtrace: description 'BEGIN ' matched 4 probes
CPU     ID                    FUNCTION:NAME
  0      1                           :BEGIN kept
  0      1                           :BEGIN 

minikern> dtrace -q -n 'BEGIN { s = speculation(); printf("got %d\n", s); } BEGIN { speculate(s); printf("speculative %d\n", s); } BEGIN { printf("first\n"); } BEGIN { commit(s); } BEGIN { printf("last\n"); exit(0); }'
got 1
first
speculative 1
last
minikern> dtrace -n 'BEGIN { s = speculation(); } BEGIN { speculate(s); trace(s); } BEGIN { commit(s); } BEGIN { exit(0); }'
dtrace: description 'BEGIN ' matched 4 probes
CPU     ID                    FUNCTION:NAME
  0      1                           :BEGIN           1
  0      1                           :BEGIN 
minikern> dtrace -q -n 'BEGIN { s = speculation(); } BEGIN { speculate(s); printf("never\n"); } BEGIN { discard(s); } BEGIN { printf("discarded\n"); exit(0); }'
discarded
minikern> dtrace -q -n 'BEGIN { a = speculation(); b = speculation(); printf("%d %d\n", a, b); exit(0); }'
1 0
dtrace: 1 failed speculation (no speculative buffer available)
minikern> dtrace -q -n 'BEGIN { a = speculation(); } BEGIN { discard(a); } BEGIN { b = speculation(); printf("%d %d\n", a, b); exit(0); }'
1 0
dtrace: 1 failed speculation (available buffer(s) still busy)
minikern> dtrace -q -x nspec=3 -n 'BEGIN { a = speculation(); b = speculation(); c = speculation(); d = speculation(); printf("%d %d %d %d\n", a, b, c, d); exit(0); }'
1 2 3 0
dtrace: 1 failed speculation (no speculative buffer available)
minikern> dtrace -q -s $TMP/nspec.d
1 2
minikern> dtrace -q -n 'BEGIN { speculate(0); printf("dropped\n"); } BEGIN { printf("kept\n"); exit(0); }'
kept
minikern> dtrace -q -n 'BEGIN { speculate(1); printf("inactive\n"); } BEGIN { exit(0); }'
minikern> dtrace -q -n 'BEGIN { speculate(2); printf("no such\n"); } BEGIN { speculate(-1); } BEGIN { exit(0); }'
minikern> dtrace -q -n 'BEGIN { x = 1; } BEGIN { speculate(0); x = 2; } BEGIN { printf("%d\n", x); exit(0); }'
1
minikern> dtrace -q -n 'BEGIN { commit(2); } BEGIN { exit(0); }'
dtrace: error in dt_clause_0 for probe ID 1 (dtrace:::BEGIN): illegal operation at BPF pc {{[0-9]+}}
minikern> dtrace -q -x specsize=4k -n 'BEGIN { s = speculation(); } BEGIN { speculate(s); printf("%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s\n", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"); } BEGIN { speculate(s); printf("fits\n"); } BEGIN { commit(s); } BEGIN { exit(0); }'
fits
dtrace: 1 speculative drop
minikern> dtrace -q -x nspec=5 -n 'dtt:::tick /arg0 % 2 == 0/ { self->s = speculation(); } dtt:::tick /self->s/ { speculate(self->s); printf("tick %d\n", arg0); } dtt:::tick /self->s && arg0 % 4 == 0/ { commit(self->s); self->s = 0; } dtt:::tick /self->s && arg0 % 4 != 0/ { discard(self->s); self->s = 0; }' -c 'dtprobe tick 9'
tick 0
tick 4
tick 8
minikern> dtrace -x engine=interp -q -n 'BEGIN { s = speculation(); } BEGIN { speculate(s); printf("interp %d\n", s); } BEGIN { commit(s); } BEGIN { exit(0); }'
interp 1
minikern> dtrace -n 'BEGIN { speculate(1); speculate(1); }'
dtrace: invalid probe specifier BEGIN { speculate(1); speculate(1); }: speculate( ) may not follow speculate( )
minikern> dtrace -n 'BEGIN { printf("x"); speculate(1); }'
dtrace: invalid probe specifier BEGIN { printf("x"); speculate(1); }: speculate( ) may not follow data-recording action(s)
minikern> dtrace -n 'BEGIN { speculate(1); @ = count(); }'
dtrace: invalid probe specifier BEGIN { speculate(1); @ = count(); }: aggregating actions may not follow speculate( )
minikern> dtrace -n 'BEGIN { speculate(1); exit(0); }'
dtrace: invalid probe specifier BEGIN { speculate(1); exit(0); }: exit( ) may not follow speculate( )
minikern> dtrace -n 'BEGIN { trace(1); commit(1); }'
dtrace: invalid probe specifier BEGIN { trace(1); commit(1); }: commit( ) may not follow data-recording action(s)
minikern> dtrace -n 'BEGIN { commit(1); trace(1); }'
dtrace: invalid probe specifier BEGIN { commit(1); trace(1); }: data-recording actions may not follow commit( )
minikern> dtrace -n 'BEGIN { speculate(1); printf("x"); speculate(2); }'
dtrace: invalid probe specifier BEGIN { speculate(1); printf("x"); speculate(2); }: speculate( ) may not follow speculate( )
minikern> dtrace -q -n 'BEGIN { s = speculation(); } BEGIN { printf("before "); discard(s); printf("after\n"); exit(0); }'
before after
minikern> dtrace -n 'BEGIN { speculate("x"); }'
dtrace: invalid probe specifier BEGIN { speculate("x"); }: speculate( ) argument #1 is incompatible with prototype:
	prototype: int
	 argument: string
minikern> dtrace -n 'BEGIN { commit(); }'
dtrace: invalid probe specifier BEGIN { commit(); }: commit( ) prototype mismatch: 0 args passed, 1 expected
minikern> dtrace -n 'BEGIN { trace(speculation(1)); }'
dtrace: invalid probe specifier BEGIN { trace(speculation(1)); }: speculation( ) prototype mismatch: 1 arg passed, 0 expected
minikern> dtrace -x nspec=0 -n 'BEGIN'
dtrace: failed to set -x nspec: Invalid value for specified option
minikern> dtrace -x specsize=0 -n 'BEGIN'
dtrace: failed to set -x specsize: Invalid value for specified option
minikern> dtrace -q -x specsize=16 -n 'BEGIN { s = speculation(); speculate(s); printf("held\n"); } BEGIN { commit(s); } BEGIN { exit(0); }'
dtrace: 1 speculative drop
