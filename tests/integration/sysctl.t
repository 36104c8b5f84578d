# sysctl: read one node or a subtree, -a for all, -d for descriptions, -n
# for bare values; write integers and strings; the errors for unknown and
# read-only nodes and for values that do not fit.  A module's nodes live
# exactly as long as the module.
# args: --cpus 2
# status: 1
minikern> sysctl kern.ostype hw.machine hw.ncpu
kern.ostype: minikern
hw.machine: $ARCH
hw.ncpu: 2
minikern> # -a lists every node in name order (other subsystems may add more)
minikern> sysctl -a
hw.machine: $ARCH
hw.ncpu: 2
...
kern.malloc.inuse: 0
kern.malloc.memuse: 0
kern.module_path: $MODULES;$TESTMODULES
kern.module_sig_enforce: 0
kern.osrelease: {{[0-9]+\.[0-9]+\.[0-9]+}}
kern.ostype: minikern
kern.tainted: 0
kern.uptime_ms: {{[0-9]+}}
...
vm.arena.base: 0x{{[0-9a-f]+}}
vm.arena.size: {{[0-9]+}}
vm.arena.used: 0
...
minikern> kldload hello
Hello, world!
minikern> sysctl -a
...
hello.greeting: Hello, world!
hello.loads: 1
hw.machine: $ARCH
...
minikern> sysctl hello
hello.greeting: Hello, world!
hello.loads: 1
minikern> sysctl -d hello
hello.greeting: What hello says
hello.loads: Times MOD_LOAD ran
minikern> sysctl -n hello.greeting
Hello, world!
minikern> sysctl hello.greeting="Hi there"
hello.greeting: Hello, world! -> Hi there
minikern> sysctl -n hello.greeting=Bye
Bye
minikern> sysctl hello.greeting
hello.greeting: Bye
minikern> sysctl hello.greeting=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
sysctl: hello.greeting: value too long (at most 63 bytes)
minikern> sysctl hello.loads=5
sysctl: oid 'hello.loads' is read only
minikern> sysctl kern.ostype=linux
sysctl: oid 'kern.ostype' is read only
minikern> sysctl hello.nosuch
sysctl: unknown oid 'hello.nosuch'
minikern> sysctl hello.nosuch=1
sysctl: unknown oid 'hello.nosuch'
minikern> # one bad name does not stop the others
minikern> sysctl nosuch hello.loads
sysctl: unknown oid 'nosuch'
hello.loads: 1
minikern> kldload ticker
ticker: ticking every 100 ms
minikern> sysctl ticker.interval_ms=fast
sysctl: ticker.interval_ms: 'fast' is not an integer
minikern> sysctl ticker.interval_ms=99999999999
sysctl: ticker.interval_ms: '99999999999' is not an integer
minikern> sysctl ticker.interval_ms=0x40
ticker.interval_ms: 100 -> 64
minikern> sysctl -d ticker
ticker.interval_ms: Milliseconds between ticks (at least 1)
ticker.ticks: Times the callout has run
minikern> kldunload ticker hello
ticker: stopped after {{[0-9]+}} ticks
Goodbye from hello: Bye
minikern> sysctl hello
sysctl: unknown oid 'hello'
minikern> sysctl
sysctl: usage: sysctl [-adn] [name[=value] ...]
minikern> sysctl -x
sysctl: usage: sysctl [-adn] [name[=value] ...]
