# Probe handlers in modules: writecount attaches a C function to
# memdev:::write-done by the probe's name and counts memdev's writes into
# its sysctls.  A handler and a DTrace enabling share the probe; dtrace -lv
# lists who is attached.  Attached by name, the handler joins memdev's probe
# whenever memdev loads; writecount detaches it at unload.
# status: 1
minikern> kldload memdev
minikern> kldload writecount
minikern> memdev write a
minikern> memdev write b
minikern> sysctl -n writecount.writes
2
minikern> dtrace -q -n 'memdev:::write-done { printf("dtrace sees %d bytes\n", arg0); }' -c 'memdev write hello'
dtrace sees 6 bytes
minikern> sysctl writecount.writes writecount.bytes
writecount.writes: 3
writecount.bytes: 10
minikern> dtrace -q -n memdev:::write-done &
dtrace: enabling 3 started in the background
minikern> dtrace -lv -n memdev:::write-done
   ID   PROVIDER            MODULE                          FUNCTION NAME
{{ *[0-9]+}}     memdev            memdev                      memdev_write write-done

	Argument Types
		args[0]: size_t
		args[1]: int

	Sites
		call: 1

	Handlers
		writecount`writecount_write, priority 10
		dtrace enabling 3, priority 10

minikern> dtrace -k 3
minikern> # a failed write (more than memdev.max_bytes) is not counted
minikern> sysctl memdev.max_bytes=12
memdev.max_bytes: 65536 -> 12
minikern> memdev write this is far too long
memdev: write: device full
minikern> sysctl -n writecount.writes
3
minikern> # memdev goes and comes back: the handler follows its probe
minikern> kldunload memdev
minikern> kldload memdev
minikern> memdev write again
minikern> sysctl writecount.writes writecount.bytes
writecount.writes: 4
writecount.bytes: 16
minikern> kldunload writecount
minikern> memdev write more
minikern> dtrace -lv -n memdev:::write-done
   ID   PROVIDER            MODULE                          FUNCTION NAME
{{ *[0-9]+}}     memdev            memdev                      memdev_write write-done

	Argument Types
		args[0]: size_t
		args[1]: int

	Sites
		call: 1

minikern> dtrace -S -n memdev:::write-done
   ID   PROVIDER            MODULE                          FUNCTION NAME
{{ *[0-9]+}}     memdev            memdev                      memdev_write write-done
        0x{{[0-9a-f]+}} memdev_write+0x{{[0-9a-f]+}}: call site, 5 bytes, disabled
{{ +[0-9a-f]+}}:  0f 1f 44 00 00        nopl {{.*}}
