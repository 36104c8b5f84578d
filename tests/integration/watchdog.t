# The soft-lockup watchdog: the shell, then a CPU thread, each stuck in
# module code for longer than kern.watchdog_thresh seconds, is reported
# once with its stack; the shell sleeping in the kernel is not.
# args: --cpus 1
# status: 1
minikern> sysctl kern.watchdog_thresh=1
kern.watchdog_thresh: 10 -> 1
minikern> kldload spinner
minikern> spinner spin 3000
watchdog: soft lockup: shell (tid {{[0-9]+}}) stuck for {{[0-9]+}} s in module code, at spinner`spinner_spin+0x{{[0-9a-f]+}}
  #0 {{0x[0-9a-f]+}} spinner`spinner_spin+0x{{[0-9a-f]+}}
  #1 {{0x[0-9a-f]+}} spinner`spinner_cmd+0x{{[0-9a-f]+}}
  #2 {{0x[0-9a-f]+}} kernel`mk_module_call+0x{{[0-9a-f]+}}
  #3 {{0x[0-9a-f]+}} kernel`std::_Function_handler<...>::_M_invoke+0x{{[0-9a-f]+}}
  #4 {{0x[0-9a-f]+}} kernel`Shell::run_line+0x{{[0-9a-f]+}}
...
spinner: done
minikern> spinner spin-callout 3000
minikern> sleep 4000
watchdog: soft lockup: cpu0 (tid {{[0-9]+}}) stuck for {{[0-9]+}} s in module code, at spinner`spinner_spin+0x{{[0-9a-f]+}}
  #0 {{0x[0-9a-f]+}} spinner`spinner_spin+0x{{[0-9a-f]+}}
  #1 {{0x[0-9a-f]+}} spinner`spinner_tick+0x{{[0-9a-f]+}}
  #2 {{0x[0-9a-f]+}} kernel`Cpus::run+0x{{[0-9a-f]+}}
...
spinner: callout done
minikern> sysctl kern.watchdog_lockups
kern.watchdog_lockups: 2
minikern> sysctl kern.watchdog_thresh=-1
sysctl: kern.watchdog_thresh: '-1' is not a number of seconds in [0, 3600]
