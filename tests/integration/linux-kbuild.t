# A module built out of tree with Debian's kbuild (tests/linux/lzcrc) on
# Debian's own library modules: modprobe-style dependency loading from its
# depends=, LZ4_compress_default from lz4_compress.ko with
# LZ4_decompress_safe from the kernel (liblz4), crc16 and crc_itu_t from
# crc16.ko and crc-itu-t.ko, kmalloc, a list under a mutex, and a charp
# parameter from insmod, shown and set as a sysctl.  The check values are
# the host's: CRC-16/ARC and CRC-16/XMODEM of "123456789" are bb3d and
# 31c3, of "hello" 34d2 and c362; the i386 kernel prints the same, with
# the module built by the 686 kbuild on Debian's 686 modules.
# arch: x86_64 i386
# args: -m $LINUX -m $LINUXTEST
# status: 1
minikern> insmod $LINUXTEST/lzcrc.ko
...
lzcrc: text "123456789": crc16 bb3d crc_itu_t 31c3
lzcrc: lz4 576 bytes -> 21 -> 576, same
lzcrc: 3 chunks, 54 bytes
minikern> lsmod
Module                  Size  Used by
lzcrc                  {{\d+}}  0
lz4_compress           {{\d+}}  1 lzcrc
crc16                  {{\d+}}  1 lzcrc
crc_itu_t              {{\d+}}  1 lzcrc
minikern> rmmod crc16
rmmod: crc16.ko: in use by lzcrc.ko
minikern> sysctl module.lzcrc
module.lzcrc.copies: 64
module.lzcrc.text: 123456789
minikern> sysctl module.lzcrc.copies=3
sysctl: oid 'module.lzcrc.copies' is read only
minikern> sysctl module.lzcrc.text=abc
module.lzcrc.text: 123456789 -> abc
minikern> rmmod lzcrc
lzcrc: freed 3 chunks
minikern> insmod $LINUXTEST/lzcrc.ko text=hello copies=2
lzcrc: text "hello": crc16 34d2 crc_itu_t c362
lzcrc: lz4 10 bytes -> 11 -> 10, same
lzcrc: 3 chunks, 30 bytes
minikern> insmod $LINUXTEST/lzcrc.ko
insmod: lzcrc.ko: module already loaded (id {{\d+}})
minikern> modprobe -r lzcrc
lzcrc: freed 3 chunks
minikern> lsmod
Module                  Size  Used by
minikern> insmod $LINUXTEST/lzcrc.ko copies=-1
...
insmod: lzcrc: init_module failed: Cannot allocate memory (-12)
minikern> lsmod
Module                  Size  Used by
