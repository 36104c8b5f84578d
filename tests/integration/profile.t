# The profile provider: DTrace's usual profile-N and tick-N probes exist
# from boot, any other rate (DTrace's units, at most 5000 a second) when a
# description names it; profile-N fires on every CPU, tick-N on one; arg0
# is the interrupted PC when it was in kernel or module code, and stack()
# shows where a module's time goes.
# args: --cpus 2
# status: 1
minikern> dtrace -l -P profile
   ID   PROVIDER            MODULE                          FUNCTION NAME
{{ *[0-9]+}}    profile                                                     profile-97
{{ *[0-9]+}}    profile                                                     profile-199
{{ *[0-9]+}}    profile                                                     profile-499
{{ *[0-9]+}}    profile                                                     profile-997
{{ *[0-9]+}}    profile                                                     profile-1999
{{ *[0-9]+}}    profile                                                     profile-4001
{{ *[0-9]+}}    profile                                                     profile-4999
{{ *[0-9]+}}    profile                                                     tick-1
{{ *[0-9]+}}    profile                                                     tick-10
{{ *[0-9]+}}    profile                                                     tick-100
{{ *[0-9]+}}    profile                                                     tick-500
{{ *[0-9]+}}    profile                                                     tick-1000
{{ *[0-9]+}}    profile                                                     tick-5000
minikern> dtrace -l -n profile-1234 -n profile:::tick-2s
   ID   PROVIDER            MODULE                          FUNCTION NAME
{{ *[0-9]+}}    profile                                                     profile-1234
{{ *[0-9]+}}    profile                                                     tick-2s
minikern> dtrace -l -n profile-100us
   ID   PROVIDER            MODULE                          FUNCTION NAME
dtrace: description 'profile-100us' matched 0 probes
minikern> dtrace -q -n 'tick-50ms { printf("tick on cpu %d\n", cpu); exit(0); }'
tick on cpu 0
minikern> # profile-N on both CPUs; tick-N on one.
minikern> dtrace -q -n 'profile-200 { @lo = min(cpu); @hi = max(cpu); } tick-300ms { exit(0); }'

                0
                1
minikern> dtrace -q -n 'tick-20ms { @[cpu] = count(); } tick-300ms { exit(0); }'

        0 {{ +[0-9]+}}
minikern> kldload busywork
minikern> dtrace -q -n 'profile-997 /arg0/ { @[stack(3)] = count(); }' -c 'busywork 300'
...
              busywork`busywork_{{primes|hash}}+0x{{[0-9a-f]+}}
              busywork`busywork_run+0x{{[0-9a-f]+}}
              kernel`Cpus::run+0x{{[0-9a-f]+}}
{{ +[0-9]+}}
minikern> kldunload busywork
