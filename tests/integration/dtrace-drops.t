# Records go through per-thread buffers (-b sets their size); when one is
# full, records are dropped, counted, and reported as DTrace does.  A
# firing from a kernel thread gets a buffer of its own.
minikern> kldload dtrace_probes
minikern> dtrace -q -b 4k -n 'dtt:::tick { trace(arg0); }' -c 'dtprobe tick 200'
0123456789101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899100101102103104105106107108109110111112113114115116117118119120121122123124125126127dtrace: 72 drops on CPU 0
minikern> dtrace -q -n 'dtt:::tick { @[cpu] = count(); }' -c 'dtprobe thread 10; dtprobe tick 5'

        0                5
       -1               10
minikern> kldunload dtrace_probes
