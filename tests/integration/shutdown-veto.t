# At halt every module is unloaded, newest first, after MOD_SHUTDOWN.  A
# veto cannot keep a module loaded then, but it is reported.
minikern> kldload hello veto
Hello, world!
veto: loaded; unloading is refused while veto.refuse_quiesce or veto.refuse_unload is set
minikern> halt
veto: shutting down
shutdown: veto.ko: module veto refused to unload (MOD_QUIESCE returned 16); unloading anyway
veto: unloaded
Goodbye from hello: Hello, world!
minikern> echo not reached
