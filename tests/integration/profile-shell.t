# The profile provider samples the shell's thread while it runs a command,
# as a kernel's CPU is interrupted in a system call like anywhere else:
# stack() shows a module command's own work through its frames, and the
# samples say CPU 0 (curcpu() in a command).  At the prompt, and in the
# dtrace command's own code, the thread is not sampled (tests/unit,
# test_fbt.cpp).  Sampling is noisy: these check what appears, not how
# often.
# args: --cpus 2
minikern> kldload busywork
minikern> dtrace -n 'profile-997 { @[stack()] = count(); }' -c 'busyloop 300'
dtrace: description 'profile-997 ' matched 1 probe
...
              busywork`busywork_{{primes|hash}}+0x{{[0-9a-f]+}}
              busywork`busyloop_cmd+0x{{[0-9a-f]+}}
              kernel`mk_module_call+0x{{[0-9a-f]+}}
              kernel`{{.*}}Shell::add_module_command{{.*}}
              kernel`Shell::run_line+0x{{[0-9a-f]+}}
...
minikern> dtrace -q -n 'profile-997 /arg0/ { @[cpu, stack(2)] = count(); }' -c 'busyloop 300'
...
        0
              busywork`busywork_{{primes|hash}}+0x{{[0-9a-f]+}}
              busywork`busyloop_cmd+0x{{[0-9a-f]+}}
...
minikern> kldunload busywork
