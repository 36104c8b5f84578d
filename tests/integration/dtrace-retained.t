# Enablings are retained, as DTrace's are: probes of a module loaded while
# an enabling runs join it before the module's code first runs.  With -Z a
# description may match nothing at first, so this counts the probes
# tp_goto fires from its MOD_LOAD (three).  A module unloaded and loaded
# again under an enabling keeps being traced; its old probes' records are
# not counted twice under the reused ids.
# status: 1
minikern> dtrace -n 'tpgoto:::fire { @ = count(); }' -c 'kldload tp_goto'
dtrace: invalid probe specifier tpgoto:::fire { @ = count(); }: probe description tpgoto:::fire does not match any probes
minikern> dtrace -Z -n 'tpgoto:::fire { @ = count(); }' -c 'kldload tp_goto'
dtrace: description 'tpgoto:::fire ' matched 0 probes

                3
minikern> tpgoto sums
tpgoto: 3 checksums
minikern> dtrace -n 'tpgoto:::fire { @[probefunc] = count(); }' -c 'tpgoto fire 5; kldunload tp_goto; kldload tp_goto; tpgoto fire 2'
dtrace: description 'tpgoto:::fire ' matched 2 probes
dtrace: enabling 2: 2 probes of tp_goto.ko removed at unload

  tpgoto_fire                                                      10
minikern> kldunload tp_goto
