// Kernel panics.  A fault in kernel or module code (SIGSEGV, SIGBUS,
// SIGILL, SIGFPE) or a call of panic() stops the kernel the way a kernel
// stops: one report on stderr naming the fault, the faulting address and
// the instruction as module`function+0xoffset, a symbolized backtrace
// through kernel and module frames (sdt/unwind.h over the CodeMap), and
// the last lines of the message buffer; then the process exits with
// kPanicStatus.  Only the first thread to panic reports; any other that
// faults meanwhile waits for the exit.
//
// The handlers run on an alternate signal stack, so a module that
// overflows its stack still gets a report.  SIGTRAP stays the patch
// engine's (sdt/patch.cpp): probe breakpoints are not faults.
#pragma once

#include "../linker/base.h"

#include <cstdarg>
#include <string>
#include <string_view>

namespace mk {

class Kernel;
struct ProbeFrame;

// The exit status of a panicked kernel (documented in docs/shell.md).
constexpr int kPanicStatus = 3;

// Install the fault handlers (once per process) and remember `k` as the
// kernel to report for a thread that belongs to none.
void panic_init(Kernel &k);
// `k` is going away: a later fault no longer reports its state.
void panic_forget(Kernel &k);
// Give the calling thread an alternate signal stack and a name for panic
// and watchdog reports ("shell", "cpu1", "kthread:name"); the name is
// copied.  Call on every thread a kernel starts.
void panic_thread_init(const char *name);
const char *panic_thread_name();

// The code at `pc`, for a panic message: module`function+0x12 (0x... in
// a kernel without a code map).
std::string code_name(u64 pc);

// `name` (a symbolized address) without C++ template arguments, so a
// backtrace line stays one readable line: std::_Function_handler<...>::f.
std::string brief_name(std::string_view name);

// An illegal instruction that means something: Linux's WARN (report and
// go on) and BUG (a panic) are ud2 instructions a module's __bug_table
// describes.  The hook runs in the SIGILL handler on the faulting thread
// and returns 0 (not one of its), 1 (reported: resume, it moved the pc
// past the instruction) or 2 (a BUG: its line is printed, the panic
// follows).
using BugHook = int (*)(void *uctx);
void set_bug_hook(BugHook h);

// A fault that code expected: Linux's exception tables (__ex_table) list
// instructions that may fault (a probe of memory that may not be there, a
// privileged instruction tried) with where to resume.  The hook runs in
// the SIGSEGV, SIGBUS and SIGFPE handlers on the faulting thread and
// returns true when it has redirected the context (its pc is the fixup):
// the code goes on there; false, and the fault is a panic.
using FaultHook = bool (*)(int sig, void *uctx);
void set_fault_hook(FaultHook h);

// Report and exit: the backtrace starts at the caller.
[[noreturn]] void panic(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
// The same for a call of panic() made at return address `caller`.
[[noreturn]] void vpanic_at(u64 caller, const char *fmt, va_list ap);
// The same with the backtrace from `from`, a frame further out than the
// caller's (a probe's site, when the panic comes from code with no unwind
// tables, such as a D clause's JIT-compiled program).
[[noreturn]] void panic_from(const ProbeFrame &from, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

} // namespace mk
