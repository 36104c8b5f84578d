#!/usr/bin/env python3
"""Make a damaged copy of a Linux module for the loader's refusal tests.

    patch-ko.py flip-crc IN SYMBOL OUT       one bit of SYMBOL's __versions CRC
    patch-ko.py vermagic IN STRING OUT       .modinfo's vermagic= replaced
    patch-ko.py drop-versions IN OUT         __versions emptied (all zero)
    patch-ko.py ex-far IN OUT                __ex_table entry 0's instruction
                                             1 MiB past where it was
    patch-ko.py ex-type IN TYPE OUT          __ex_table entry 0's fixup type
    patch-ko.py alt-long IN OUT              .altinstructions entry 0's
                                             replacement 1 byte longer than
                                             its original
    patch-ko.py orc-far IN OUT               .orc_unwind_ip entry 0 1 MiB
                                             past where it was
    patch-ko.py orc-type IN OUT              .orc_unwind entry 0 of type 3
    patch-ko.py tp-far IN OUT                __tracepoints_ptrs entry 0 1 MiB
                                             past its tracepoint
    patch-ko.py sc-key-far IN OUT            .static_call_sites entry 0's key
                                             1 MiB past its static call
    patch-ko.py percpu-big IN SIZE OUT       .data..percpu SIZE bytes of
                                             zeros (NOBITS)

The appended signature is left as it is (it no longer matches: the tests
run without trusted keys, where an unverified signature only taints).
"""
import struct
import sys


def is64(data):
    """Whether the file is ELF64 (x86_64) rather than ELF32 (i386)."""
    return data[4] == 2


def shdr(data, i):
    """Section header i: (name, type, flags, addr, offset, size, header's
    file offset), little-endian ELF64 or ELF32."""
    if is64(data):
        shoff, = struct.unpack_from("<Q", data, 0x28)
        shentsize, = struct.unpack_from("<H", data, 0x3a)
        h = shoff + i * shentsize
        f = struct.unpack_from("<IIQQQQ", data, h)
    else:
        shoff, = struct.unpack_from("<I", data, 0x20)
        shentsize, = struct.unpack_from("<H", data, 0x2e)
        h = shoff + i * shentsize
        f = struct.unpack_from("<IIIIII", data, h)
    return f + (h,)


def find(data, name):
    shnum, shstrndx = struct.unpack_from(
        "<HH", data, 0x3c if is64(data) else 0x30)
    strtab = shdr(data, shstrndx)[4]
    for i in range(shnum):
        h = shdr(data, i)
        end = data.index(b"\0", strtab + h[0])
        if data[strtab + h[0]:end] == name.encode():
            return h
    sys.exit("patch-ko: no section %s" % name)


def header_at(data, name):
    """File offset of section `name`'s header."""
    return find(data, name)[6]


def section(data, name):
    """(file offset, size) of section `name`."""
    h = find(data, name)
    return h[4], h[5]


def main():
    op, src = sys.argv[1], sys.argv[2]
    data = bytearray(open(src, "rb").read())
    if op == "flip-crc":
        off, size = section(data, "__versions")
        want = sys.argv[3].encode() + b"\0"
        # struct modversion_info: unsigned long crc, then the name.
        at = 8 if is64(data) else 4
        for e in range(off, off + size, 64):
            if data[e + at:e + at + len(want)] == want:
                data[e] ^= 1
                break
        else:
            sys.exit("patch-ko: %s not in __versions" % sys.argv[3])
        out = sys.argv[4]
    elif op == "vermagic":
        off, size = section(data, ".modinfo")
        info = bytes(data[off:off + size]).split(b"\0")
        info = [b"vermagic=" + sys.argv[3].encode() if i.startswith(b"vermagic=")
                else i for i in info]
        new = b"\0".join(info)
        if len(new) > size:
            sys.exit("patch-ko: the new vermagic is longer than the section")
        data[off:off + size] = new.ljust(size, b"\0")
        out = sys.argv[4]
    elif op == "drop-versions":
        off, size = section(data, "__versions")
        data[off:off + size] = bytes(size)
        out = sys.argv[3]
    elif op in ("ex-far", "orc-far", "tp-far"):
        # The entry's address field is a PC32 relocation at offset 0 of
        # the section: its addend moves it.
        rela = {"ex-far": ".rela__ex_table", "orc-far": ".rela.orc_unwind_ip",
                "tp-far": ".rela__tracepoints_ptrs"}[op]
        off, size = section(data, rela)
        for r in range(off, off + size, 24):
            r_offset, = struct.unpack_from("<Q", data, r)
            if r_offset == 0:
                addend, = struct.unpack_from("<q", data, r + 16)
                struct.pack_into("<q", data, r + 16, addend + (1 << 20))
                break
        else:
            sys.exit("patch-ko: no relocation of %s entry 0" % rela[5:])
        out = sys.argv[3]
    elif op == "orc-type":
        # struct orc_entry: s16 sp_offset, bp_offset; u16 sp_reg:4,
        # bp_reg:4, type:2, end:1
        off, size = section(data, ".orc_unwind")
        data[off + 5] = (data[off + 5] & ~3) | 3
        out = sys.argv[3]
    elif op == "ex-type":
        off, size = section(data, "__ex_table")
        data[off + 8] = int(sys.argv[3], 0)  # the data word's low byte
        out = sys.argv[4]
    elif op == "alt-long":
        # struct alt_instr: s32, s32, u16 cpuid, u8 instrlen, u8 replacementlen
        off, size = section(data, ".altinstructions")
        data[off + 11] = data[off + 10] + 1
        out = sys.argv[3]
    elif op == "sc-key-far":
        # struct static_call_site { s32 addr, key; }: entry 0's key is the
        # PC32 relocation at offset 4.
        off, size = section(data, ".rela.static_call_sites")
        for r in range(off, off + size, 24):
            r_offset, = struct.unpack_from("<Q", data, r)
            if r_offset == 4:
                addend, = struct.unpack_from("<q", data, r + 16)
                struct.pack_into("<q", data, r + 16, addend + (1 << 20))
                break
        else:
            sys.exit("patch-ko: no relocation of the key of entry 0")
        out = sys.argv[3]
    elif op == "percpu-big":
        # sh_type at 4; sh_size at 32 (Elf64_Shdr) or 20 (Elf32_Shdr).
        h = header_at(data, ".data..percpu")
        struct.pack_into("<I", data, h + 4, 8)  # SHT_NOBITS
        if is64(data):
            struct.pack_into("<Q", data, h + 32, int(sys.argv[3], 0))
        else:
            struct.pack_into("<I", data, h + 20, int(sys.argv[3], 0))
        out = sys.argv[4]
    else:
        sys.exit("patch-ko: unknown operation %s" % op)
    open(out, "wb").write(data)


if __name__ == "__main__":
    main()
