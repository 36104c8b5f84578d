# Shell commands registered by modules (SHELL_COMMAND): memdev's `memdev`
# appears in help while memdev is loaded, runs like a built-in, and is gone
# after unload.  Its data lives in malloc'd memory charged to memdev and
# freed at unload.
# status: 1
minikern> help memdev
help: no such command: memdev
minikern> kldload memdev
minikern> help
...
  kldunload [-v] name | id ...             unload a module
  lsdev                                    list the Linux devices modules registered
  lsmod                                    list loaded modules (Linux)
  memdev write TEXT | read | stat | clear  a tiny in-memory device (module memdev)
  modinfo [-F field] FILE|NAME             show a module's information without loading it
...
minikern> help memdev
usage: memdev write TEXT | read | stat | clear
  a tiny in-memory device (module memdev)
minikern> memdev stat
memdev: 0 bytes stored, 0 allocated, 0 writes, 0 reads
minikern> memdev write hello, device
minikern> memdev write "a second   line"
minikern> memdev read
hello, device
a second   line
minikern> memdev stat
memdev: 30 bytes stored, 32 allocated, 2 writes, 1 reads
minikern> vmstat -m
         Type InUse MemUse Requests
       memdev     1     1K        4
minikern> sysctl kern.malloc.inuse kern.malloc.memuse
kern.malloc.inuse: 1
kern.malloc.memuse: 32
minikern> memdev
memdev: usage: memdev write TEXT | read | stat | clear
minikern> memdev erase
memdev: usage: memdev write TEXT | read | stat | clear
minikern> memdev clear
minikern> memdev stat
memdev: 0 bytes stored, 0 allocated, 2 writes, 1 reads
minikern> # a write that would pass memdev.max_bytes fails and changes nothing
minikern> sysctl memdev.max_bytes=20
memdev.max_bytes: 65536 -> 20
minikern> memdev write 0123456789
minikern> memdev write 0123456789
memdev: write: device full
minikern> memdev read
0123456789
minikern> sysctl memdev.max_bytes=65536
memdev.max_bytes: 20 -> 65536
minikern> memdev write kept until unload
minikern> kldunload memdev
minikern> sysctl kern.malloc.inuse kern.malloc.memuse
kern.malloc.inuse: 0
kern.malloc.memuse: 0
minikern> memdev read
memdev: command not found
minikern> help memdev
help: no such command: memdev
minikern> help
...
  lsdev                                    list the Linux devices modules registered
  lsmod                                    list loaded modules (Linux)
  modinfo [-F field] FILE|NAME             show a module's information without loading it
...
