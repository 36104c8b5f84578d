# fbt on Debian's Linux modules, from the __fentry__ calls their
# __mcount_loc lists: counting lz4_compress.ko's functions while a
# kbuild-built module calls it, stack() through the modules' ORC frames,
# and a module's own probes enabled before it loads (-Z).  The stacks are
# named as the aggregation prints, after lzcrc's init returned: its init
# code is freed by then, and a frame there is only an address.
# arch: x86_64
# args: -m $LINUX -m $LINUXTEST
minikern> modprobe lz4_compress
lz4_compress.ko: module verification failed: no trusted key to check its signature - tainting kernel
minikern> dtrace -l -n 'fbt:lz4_compress:LZ4_compress_default:'
   ID   PROVIDER            MODULE                          FUNCTION NAME
{{ *\d+}}        fbt      lz4_compress              LZ4_compress_default entry
{{ *\d+}}        fbt      lz4_compress              LZ4_compress_default return
minikern> dtrace -q -n 'fbt:lz4_compress::entry { @[probefunc] = count(); }' -c 'insmod $LINUXTEST/lzcrc.ko'
...
lzcrc: 3 chunks, 54 bytes

  LZ4_compress_default                                              1
  LZ4_compress_fast_extState                                        1
minikern> rmmod lzcrc
lzcrc: freed 3 chunks
minikern> dtrace -q -n 'fbt:lz4_compress:LZ4_compress_default:entry { @[stack()] = count(); }' -c 'insmod $LINUXTEST/lzcrc.ko'
...
              lzcrc`0x{{[0-9a-f]+}}
              kernel`mk_module_call+{{0x[0-9a-f]+}}
              kernel`KernelLinker::run_init+{{0x[0-9a-f]+}}
...
minikern> rmmod lzcrc
lzcrc: freed 3 chunks
minikern> dtrace -q -Z -n 'fbt:lzcrc::return { printf("%s returned %d\n", probefunc, arg1); }' -c 'insmod $LINUXTEST/lzcrc.ko copies=2'
...
init_module returned 0
minikern> rmmod lzcrc
lzcrc: freed 3 chunks
