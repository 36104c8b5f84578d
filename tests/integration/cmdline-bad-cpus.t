# --cpus must be between 1 and 256.
# args: --cpus 0
# status: 2
kernel: --cpus must be between 1 and 256
Usage: kernel [options]
...
