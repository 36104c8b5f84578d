# Function-boundary tracing: every function of a module built with entry
# sites (the default, FBT=fentry) has fbt:MODULE:FUNCTION:entry and
# :return.  Entry arguments are the function's (memdev_write's first, the
# softc, was folded in by the compiler: its clone takes data and length),
# a return's arg1 is the value and arg0 0 (the ret taken is not known);
# -F indents entries and returns by call depth; stack() at an entry starts
# at the caller (maxframes caps its frames, %-Nk pads each); -S shows the
# entry site; the probes go with the module.
# (On i386 gcc passes the arguments of memdev_write's clone, a local
# function, in registers: its arg1 is whatever is on the stack.)
# status: 1
minikern> kldload memdev
minikern> dtrace -n 'fbt:memdev:memdev_write:entry, fbt:memdev:memdev_write:return { trace(arg1); }' -c 'memdev write hi'
dtrace: description 'fbt:memdev:memdev_write:entry, fbt:memdev:memdev_write:return ' matched 2 probes
CPU     ID                    FUNCTION:NAME
[x86_64]   0 {{ *[0-9]+}}               memdev_write:entry                    3
[i386]   0 {{ *[0-9]+}}               memdev_write:entry {{ *[0-9]+}}
  0 {{ *[0-9]+}}              memdev_write:return                    0
minikern> dtrace -l -n fbt:memdev::
   ID   PROVIDER            MODULE                          FUNCTION NAME
{{ *[0-9]+}}        fbt            memdev                      memdev_clear entry
{{ *[0-9]+}}        fbt            memdev                      memdev_clear return
{{ *[0-9]+}}        fbt            memdev                   memdev_modevent entry
{{ *[0-9]+}}        fbt            memdev                   memdev_modevent return
{{ *[0-9]+}}        fbt            memdev                       memdev_stat entry
{{ *[0-9]+}}        fbt            memdev                       memdev_stat return
{{ *[0-9]+}}        fbt            memdev                       memdev_read entry
{{ *[0-9]+}}        fbt            memdev                       memdev_read return
{{ *[0-9]+}}        fbt            memdev                      memdev_write entry
{{ *[0-9]+}}        fbt            memdev                      memdev_write return
{{ *[0-9]+}}        fbt            memdev                        memdev_cmd entry
{{ *[0-9]+}}        fbt            memdev                        memdev_cmd return
minikern> dtrace -F -n 'fbt:memdev::entry, fbt:memdev::return' -c 'memdev write hello; memdev read'
dtrace: description 'fbt:memdev::entry, fbt:memdev::return' matched 12 probes
hi
hello
CPU FUNCTION                                 
  0  -> memdev_cmd                            
  0    -> memdev_write                        
  0    <- memdev_write                        
  0  <- memdev_cmd                            
  0  -> memdev_cmd                            
  0    -> memdev_read                         
  0    <- memdev_read                         
  0  <- memdev_cmd                            
minikern> dtrace -q -n 'fbt:memdev:memdev_write:return { printf("%s returned %d (arg0 %d)\n", probefunc, arg1, arg0); }' -c 'memdev write a; sysctl memdev.max_bytes=1; memdev write toolong; sysctl memdev.max_bytes=65536'
memdev.max_bytes: 65536 -> 1
memdev: write: device full
memdev.max_bytes: 1 -> 65536
memdev_write returned 0 (arg0 0)
memdev_write returned 28 (arg0 0)
minikern> # stack() at an entry: the caller first; at an SDT probe: its function.
minikern> dtrace -n 'fbt:memdev:memdev_write:entry { stack(1); }' -c 'memdev write hi'
dtrace: description 'fbt:memdev:memdev_write:entry ' matched 1 probe
CPU     ID                    FUNCTION:NAME
  0 {{ *[0-9]+}}               memdev_write:entry 
              memdev`memdev_cmd+0x{{[0-9a-f]+}}

minikern> dtrace -n 'memdev:::write-done { stack(2); }' -c 'memdev write hi'
dtrace: description 'memdev:::write-done ' matched 1 probe
CPU     ID                    FUNCTION:NAME
  0 {{ *[0-9]+}}          memdev_write:write-done 
              memdev`memdev_write+0x{{[0-9a-f]+}}
              memdev`memdev_cmd+0x{{[0-9a-f]+}}

minikern> # maxframes caps every stack( ); %-Nk puts each frame in the width.
minikern> dtrace -q -x maxframes=1 -n 'fbt:memdev:memdev_write:entry { @[stack(5)] = count(); } END { printa("%-24k|%@d\n", @); }' -c 'memdev write hi'

              memdev`memdev_cmd+0x{{[0-9a-f]+ *}}
|1

minikern> dtrace -S -n fbt:memdev:memdev_read:
   ID   PROVIDER            MODULE                          FUNCTION NAME
{{ *[0-9]+}}        fbt            memdev                       memdev_read entry
        0x{{[0-9a-f]+}} memdev_read+0x0: entry site, 5 bytes, disabled
            {{[0-9a-f]+}}:  0f 1f 44 00 00        nopl (%{{[er]}}ax, %{{[er]}}ax)
{{ *[0-9]+}}        fbt            memdev                       memdev_read return
        0x{{[0-9a-f]+}} memdev_read+0x0: return via entry site, 5 bytes, disabled
            {{[0-9a-f]+}}:  0f 1f 44 00 00        nopl (%{{[er]}}ax, %{{[er]}}ax)
minikern> # The kernel's own functions are probes too.
minikern> dtrace -q -n 'fbt:kernel:kern_malloc:entry { @[probefunc] = count(); }' -c 'memdev write hello'

  kern_malloc                                                       1
minikern> dtrace -n 'fbt:memdev:nosuch:entry'
dtrace: invalid probe specifier fbt:memdev:nosuch:entry: probe description fbt:memdev:nosuch:entry does not match any probes
minikern> kldunload memdev
minikern> dtrace -l -n fbt:memdev::
   ID   PROVIDER            MODULE                          FUNCTION NAME
dtrace: description 'fbt:memdev::' matched 0 probes
