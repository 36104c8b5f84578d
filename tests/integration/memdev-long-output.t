# One printf of more than 1 KiB from a module (memdev read prints the
# whole device, here 1116 bytes, in one call) reaches the console whole,
# not cut at the kernel's formatting buffer.
minikern> kldload memdev
minikern> memdev write line 01: the quick brown fox jumps over the lazy dog while the kernel keeps every byte of it
minikern> memdev write line 02: the quick brown fox jumps over the lazy dog while the kernel keeps every byte of it
minikern> memdev write line 03: the quick brown fox jumps over the lazy dog while the kernel keeps every byte of it
minikern> memdev write line 04: the quick brown fox jumps over the lazy dog while the kernel keeps every byte of it
minikern> memdev write line 05: the quick brown fox jumps over the lazy dog while the kernel keeps every byte of it
minikern> memdev write line 06: the quick brown fox jumps over the lazy dog while the kernel keeps every byte of it
minikern> memdev write line 07: the quick brown fox jumps over the lazy dog while the kernel keeps every byte of it
minikern> memdev write line 08: the quick brown fox jumps over the lazy dog while the kernel keeps every byte of it
minikern> memdev write line 09: the quick brown fox jumps over the lazy dog while the kernel keeps every byte of it
minikern> memdev write line 10: the quick brown fox jumps over the lazy dog while the kernel keeps every byte of it
minikern> memdev write line 11: the quick brown fox jumps over the lazy dog while the kernel keeps every byte of it
minikern> memdev write line 12: the quick brown fox jumps over the lazy dog while the kernel keeps every byte of it
minikern> memdev stat
memdev: 1116 bytes stored, 2048 allocated, 12 writes, 0 reads
minikern> memdev read
line 01: the quick brown fox jumps over the lazy dog while the kernel keeps every byte of it
line 02: the quick brown fox jumps over the lazy dog while the kernel keeps every byte of it
line 03: the quick brown fox jumps over the lazy dog while the kernel keeps every byte of it
line 04: the quick brown fox jumps over the lazy dog while the kernel keeps every byte of it
line 05: the quick brown fox jumps over the lazy dog while the kernel keeps every byte of it
line 06: the quick brown fox jumps over the lazy dog while the kernel keeps every byte of it
line 07: the quick brown fox jumps over the lazy dog while the kernel keeps every byte of it
line 08: the quick brown fox jumps over the lazy dog while the kernel keeps every byte of it
line 09: the quick brown fox jumps over the lazy dog while the kernel keeps every byte of it
line 10: the quick brown fox jumps over the lazy dog while the kernel keeps every byte of it
line 11: the quick brown fox jumps over the lazy dog while the kernel keeps every byte of it
line 12: the quick brown fox jumps over the lazy dog while the kernel keeps every byte of it
minikern> kldunload memdev
