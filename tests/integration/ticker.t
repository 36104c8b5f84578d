# ticker's callout runs on the CPU threads every ticker.interval_ms and
# counts in ticker.ticks; the interval can be changed while it runs, and
# unloading drains the callout.
# args: --cpus 2
# status: 1
minikern> kldload ticker
ticker: ticking every 100 ms
minikern> sysctl ticker.interval_ms=10
ticker.interval_ms: 100 -> 10
minikern> sleep 300
minikern> # at least one tick by now (a busy machine may manage fewer than 20)
minikern> sysctl ticker.ticks
ticker.ticks: {{[1-9][0-9]*}}
minikern> sysctl ticker.ticks=0
sysctl: oid 'ticker.ticks' is read only
minikern> kldunload ticker
ticker: stopped after {{[1-9][0-9]*}} ticks
minikern> sysctl ticker
sysctl: unknown oid 'ticker'
minikern> # loaded again it starts from its initial values
minikern> kldload ticker
ticker: ticking every 100 ms
minikern> sysctl ticker.interval_ms
ticker.interval_ms: 100
minikern> kldunload ticker
ticker: stopped after {{[0-9]+}} ticks
