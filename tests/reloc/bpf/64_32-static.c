/*
 * R_BPF_64_32 against a section symbol: a static function in another
 * section is called through the section's symbol, with the callee's
 * instruction offset there (minus one) in imm.  Also what libbpf's static
 * linker writes when it merges objects.
 */
__attribute__((noinline, section(".text.helpers"))) static long
twice(long x) { return x * 2; }
__attribute__((noinline, section(".text.helpers"))) static long
thrice(long x) { return x * 3; }
long entry(long x) { return twice(x) + thrice(x); }
