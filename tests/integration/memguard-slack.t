# --memguard: a write past the end that stays inside the block's rounding
# (100 bytes are 112 with the alignment) cannot fault; the redzone there
# is checked when the block is freed.
# args: --memguard
# status: 3
minikern> kldload memabuse
minikern> memabuse slack
memabuse: freeing
panic: memguard: overflow: the redzone around the block was written, at free of {{0x[0-9a-f]+}} (100-byte block allocated by memabuse at memabuse`memabuse_alloc+0x{{[0-9a-f]+}}) from memabuse`memabuse_cmd+0x{{[0-9a-f]+}}
...
  #{{[0-9]+}} {{0x[0-9a-f]+}} memabuse`memabuse_cmd+0x{{[0-9a-f]+}}
...
panic: kernel stopped (exit status 3)
