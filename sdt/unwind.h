// Walking the stack of the thread a probe fires on, from the probe's frame
// (ProbeFrame), with the call-frame information compilers emit for every
// function (.eh_frame: DWARF CFI) of the kernel image and the modules
// (CodeMap).  No frame pointers are needed, and a frame interrupted
// anywhere (a timer signal in a prologue) unwinds exactly.
//
// Probe-context safe: no lock, no allocation, no system call; it reads the
// thread's own stack and the CodeMap's tables, and stops at the first
// frame outside the kernel and its modules (libc, the thread's start; that
// one is left out) or after one whose unwind rule it does not follow.  A
// return address a provider's return trampoline put on the stack reads as
// the real one (real_return_address(), probe.h).
//
// Module code can corrupt its own stack, and a panic walks it: every word
// the walk reads lies between the frame's stack pointer and the top of the
// thread's stack (unwind_set_thread_stacks), each frame's CFA lies above
// the last, and there are at most `max` frames.  A module's .eh_frame is
// checked when it loads (check_eh_frame), and read only inside its
// section even so.
//
// Shared by stack() and by anything else that wants a backtrace (a panic):
// current_frame() starts from the caller.
#pragma once

#include "codemap.h"
#include "probe.h"

namespace mk {

// The program counters of up to `max` frames, the probe's frame first.
size_t unwind(const CodeMap &code, const ProbeFrame &from, u64 *pcs,
              size_t max);

// A thread's stack or alternate signal stack: [lo, hi).
struct StackRange {
  uintptr_t lo = 0, hi = 0;
};
// The calling thread's stacks: a walk on this thread reads only inside the
// one its stack pointer is in (and nothing if it is in neither).  Without
// them (a thread the kernel did not start) it reads at most 64 MiB above
// the stack pointer.
void unwind_set_thread_stacks(StackRange stack, StackRange alt);
// The calling thread's stack as the threads library knows it (empty if it
// cannot say).
StackRange current_thread_stack();

// `at` stopped at an address that is no code (a call through a null or
// wild function pointer): the call pushed its return address at the stack
// pointer.  The frame of the caller there, if the stack holds a word.
bool caller_of_jump(const ProbeFrame &at, ProbeFrame &out);

// The frame of the function that calls this, at the call: what a
// backtrace from here starts with.  (mk_current_frame reports the frame of
// its own caller, which current_frame() is inlined into.)
extern "C" void mk_current_frame(ProbeFrame *out);
__attribute__((always_inline)) inline ProbeFrame current_frame() {
  ProbeFrame f;
  mk_current_frame(&f);
  return f;
}

// ---- reading call-frame information (CodeMap builds its tables with these)

// Add the FDEs of the .eh_frame section loaded at [at, at + size) to
// `out` (unsorted); false if it is malformed.
bool parse_eh_frame(std::vector<CodeImage::Fde> &out, const u8 *at, u64 size);
// Add the FDEs the binary-search table of a PT_GNU_EH_FRAME segment at
// `hdr` lists; false if it is malformed or not a table.
bool parse_eh_frame_hdr(std::vector<CodeImage::Fde> &out, const u8 *hdr);
// The FDE of the .eh_frame section loaded at [at, at + size) that
// describes `pc`, found by reading the section in place (probe-context
// safe: no table needed); false if none.
bool find_fde(const u8 *at, u64 size, u64 pc, CodeImage::Fde &out);

// Code a module's FDEs may describe: [lo, hi).
struct CodeRange {
  u64 lo, hi;
};
// Check a module's relocated .eh_frame loaded at [at, at + size) before
// anything walks it: every record's length, every CIE pointer (inside the
// section, at a CIE), augmentation and call-frame instruction stream lies
// inside the section and is understood, and every FDE describes code in
// one of `code`.  The error names the record by its offset:
// ".eh_frame FDE at 0x40: CIE pointer 0x1000 outside the section".
Result<void> check_eh_frame(const u8 *at, u64 size,
                            const std::vector<CodeRange> &code);

} // namespace mk
