# Every fbt return probe at once, while commands run: loading and
# unloading modules, their commands, sysctls.  Each traced call's return
# comes back through the return trampoline to its caller; the kernel
# keeps running and exits 0.  On i386 this takes the returns of functions
# whose `ret $4` pops a struct return's hidden pointer
# (std::_Rb_tree<...>::find, which the shell's command lookup calls), of
# functions that only tail-call, and of those that return only through an
# indirect tail call (std::function's invokers).
minikern> kldload memdev
minikern> dtrace -q -n 'fbt:::return { @ = count(); }' -c 'memdev write hi'

{{ *[1-9][0-9]*}}
minikern> # Entries and returns counted together: returns fired, no more of
minikern> # them than entries, but nearly as many (a call still in flight when
minikern> # the count ends fired only its entry).
minikern> dtrace -q -n 'fbt:::entry { e++; } fbt:::return { r++; } END { printf("%d entries, %d returns\n", e, r); printf("returns %s; %s; %s\n", r > 0 ? "fired" : "none", r <= e ? "no more than entries" : "MORE THAN ENTRIES", r * 10 >= e * 9 ? "at least 90% of them" : "FEWER THAN 90%"); }' -c 'kldunload memdev; kldload memdev; memdev write hello; memdev read; sysctl memdev.max_bytes=100; kldunload memdev'
dtrace: enabling 2: 12 probes of memdev.ko removed at unload
hello
memdev.max_bytes: 65536 -> 100
dtrace: enabling 2: 12 probes of memdev.ko removed at unload
{{[0-9]+}} entries, {{[0-9]+}} returns
returns fired; no more than entries; at least 90% of them
minikern> # A module's handlers on every fbt entry and return (attached at its
minikern> # load), counting while other modules come and go; its own functions
minikern> # that return a struct in memory, tail-call one, or tail-call through a
minikern> # function pointer return through their probes once per call.
minikern> kldload fbt_ret_handler
minikern> fbtrh mark
minikern> fbtrh pairs 10
fbtrh: sum 340
minikern> kldload memdev
minikern> memdev write hi
minikern> memdev read
hi
minikern> kldunload memdev
minikern> fbtrh count
fbtrh: {{[0-9]+}} entries, {{[0-9]+}} returns
minikern> fbtrh check
fbtrh: returns fired: yes
fbtrh: returns <= entries: yes
fbtrh: returns >= 90% of entries: yes
fbtrh: pair returns 40 of 40: yes
minikern> kldunload fbt_ret_handler
