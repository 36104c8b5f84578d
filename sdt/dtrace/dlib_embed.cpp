// The D library object (build/ARCH/dtrace/bpf_dlib.o), built into the
// kernel image so that the consumer links clauses against it without
// looking for a file: the bytes between mk_dlib_start and mk_dlib_end.
// The Makefile passes its path as MK_DLIB_PATH (without it, assembling
// fails on a file that does not exist; a syntax-only check passes).
#ifndef MK_DLIB_PATH
#define MK_DLIB_PATH "MK_DLIB_PATH-is-not-set/bpf_dlib.o"
#endif

asm(".section .rodata.mk_dlib,\"a\"\n"
    ".balign 8\n"
    ".globl mk_dlib_start\n"
    "mk_dlib_start:\n"
    ".incbin \"" MK_DLIB_PATH "\"\n"
    ".globl mk_dlib_end\n"
    "mk_dlib_end:\n"
    ".previous\n");
