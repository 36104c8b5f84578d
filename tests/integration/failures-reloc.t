# A relocation whose value does not fit its field fails the load with a
# message naming module:(section+offset), the relocation type, the symbol,
# the value and the allowed range; nothing is truncated and nothing of the
# module stays behind.  The fields come from the assembly in
# tests/modules/reloc_*.
# status: 1
minikern> # a byte (.byte far_away) against the absolute value 0x1234
minikern> kldload reloc_abs8
[x86_64] kldload: reloc_abs8.ko:(.data+0x3): relocation R_X86_64_8 against far_away out of range: 0x1234 is not in [-128, 255]
[i386] kldload: reloc_abs8.ko:(.data+0x3): relocation R_386_8 against far_away out of range: 0x1234 is not in [-128, 255]
minikern> kldstat
Id Refs {{ +}}Address     Size Name
 1    1 {{ *0x[0-9a-f]+}} {{ *[0-9a-f]+}} kernel
minikern> sysctl kern.malloc.memuse vm.arena.used
kern.malloc.memuse: 0
vm.arena.used: 0
minikern> # a short jump's displacement to 0x1234, far below the module arena
minikern> kldload reloc_pc8
[x86_64] kldload: reloc_pc8.ko:(.text+0x2): relocation R_X86_64_PC8 against pc8_target out of range: -0x{{[0-9a-f]+}} is not in [-128, 127]
[i386] kldload: reloc_pc8.ko:(.text+0x2): relocation R_386_PC8 against pc8_target out of range: -0x{{[0-9a-f]+}} is not in [-128, 127]
minikern> kldstat
Id Refs {{ +}}Address     Size Name
 1    1 {{ *0x[0-9a-f]+}} {{ *[0-9a-f]+}} kernel
minikern> sysctl kern.malloc.memuse vm.arena.used
kern.malloc.memuse: 0
vm.arena.used: 0
minikern> # x86_64: a sign-extended 32-bit field; i386: a 16-bit field
minikern> kldload reloc_wide
[x86_64] kldload: reloc_wide.ko:(.rodata+0x4): relocation R_X86_64_32S against wide_value out of range: 0x123456789 is not in [-2147483648, 2147483647]
[i386] kldload: reloc_wide.ko:(.rodata+0x4): relocation R_386_16 against wide_value out of range: 0x12345 is not in [-32768, 65535]
minikern> kldstat
Id Refs {{ +}}Address     Size Name
 1    1 {{ *0x[0-9a-f]+}} {{ *[0-9a-f]+}} kernel
minikern> sysctl kern.malloc.memuse vm.arena.used
kern.malloc.memuse: 0
vm.arena.used: 0
