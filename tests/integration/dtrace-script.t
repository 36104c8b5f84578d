# dtrace -s runs a D script file: comments, #pragma D option quiet, several
# clauses over several lines, the pragmas DTrace's scripts carry
# (attributes, binding, depends_on: checked, then without effect here);
# errors name the file and line.  A file's description needs a predicate
# or actions (only -n takes one bare); with #pragma D option pspec a word
# running on in glob characters is a description, else a type and a
# declarator, whose unmet last name meets the end as DTrace's lexer does.
# status: 1
# setup: printf 'BEGIN { exit(0); }\n\nEND\n' > bare.d
# setup: printf '#pragma D option pspec\nchar*\n' > pspec.d
# setup: printf 'char*\nglob\n' > nopspec.d
# setup: printf '#!/usr/sbin/dtrace -s\n#pragma D option quiet\n\n/* ticks by parity, and their sum */\ndtt:::tick\n/arg0 > 0/\n{\n\t@parity[arg0 %% 2 ? "odd" : "even"] = count();  // keyed by a string\n\t@total = sum(arg0);\n}\n\nEND\n{\n\tprinta("%%-4s %%@d\\n", @parity);\n}\n' > ticks.d
# setup: printf 'dtt:::tick\n{\n\t@ = count();\n\ttrace(arg0 +);\n}\n' > bad.d
# setup: printf 'inline int lim = 3;\n#pragma D attributes Stable/Evolving/Common lim\n#pragma D binding "1.1" lim\n#pragma D depends_on provider dtt\nBEGIN { printf("%%d\\n", lim); exit(0); }\n' > pragmas.d
# setup: printf '#pragma D attributes Stable/Sturdy lim\n' > badattr.d
# setup: printf '#pragma D depends_on library net.d\n' > libdep.d
minikern> kldload dtrace_probes
minikern> dtrace -s $TMP/ticks.d -c 'dtprobe tick 7'
even 3
odd  3

               21
minikern> dtrace -s $TMP/bad.d
dtrace: failed to compile script $TMP/bad.d: line 4: syntax error near ")"
minikern> dtrace -q -s $TMP/pragmas.d
3
minikern> dtrace -x errtags -s $TMP/badattr.d
dtrace: failed to compile script $TMP/badattr.d: [D_PRAGMA_INVAL] line 1: invalid attributes specified by #pragma attributes
minikern> dtrace -x errtags -s $TMP/libdep.d
dtrace: failed to compile script $TMP/libdep.d: [D_PRAGMA_DEPEND] line 1: main program may not explicitly depend on a library
minikern> dtrace -s $TMP/bare.d
dtrace: failed to compile script $TMP/bare.d: line 3: expected predicate and/or actions following probe description
minikern> dtrace -s $TMP/pspec.d
dtrace: failed to compile script $TMP/pspec.d: line 2: expected predicate and/or actions following probe description
minikern> dtrace -s $TMP/nopspec.d
dtrace: failed to compile script $TMP/nopspec.d: line 3: syntax error near end-of-input
minikern> kldunload dtrace_probes
