# dtrace -s runs a D script file: comments, #pragma D option quiet, several
# clauses over several lines; errors name the file and line.
# status: 1
# setup: printf '#!/usr/sbin/dtrace -s\n#pragma D option quiet\n\n/* ticks by parity, and their sum */\ndtt:::tick\n/arg0 > 0/\n{\n\t@parity[arg0 %% 2 ? "odd" : "even"] = count();  // keyed by a string\n\t@total = sum(arg0);\n}\n\nEND\n{\n\tprinta("%%-4s %%@d\\n", @parity);\n}\n' > ticks.d
# setup: printf 'dtt:::tick\n{\n\t@ = count();\n\ttrace(arg0 +);\n}\n' > bad.d
minikern> kldload dtrace_probes
minikern> dtrace -s $TMP/ticks.d -c 'dtprobe tick 7'
even 3
odd  3

               21
minikern> dtrace -s $TMP/bad.d
dtrace: failed to compile script $TMP/bad.d: line 4: syntax error near ")"
minikern> kldunload dtrace_probes
