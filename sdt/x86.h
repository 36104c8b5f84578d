// The x86 side of probe sites, shared by x86_64 and i386 (the instructions
// involved encode the same way on both): recognising a call or jump to a
// probe function, the bytes a site holds when disabled and when enabled,
// trampolines, and emulating a site's instruction from the SIGTRAP handler.
#pragma once

#include "../linker/arch.h"
#include "probe.h"
#include "site.h"

#include <optional>

namespace mk::x86 {

// The instruction a relocation against a probe function sits in.
struct SiteInsn {
  u64 offset; // of the instruction in its section
  u8 len;
  bool jump;  // jmp (tail call) rather than call
};

// Recognise the instruction around a relocation at `field_off` of `text`:
// e8/e9 rel32 for PC-relative types, ff /2 or ff /4 through the GOT for
// GOT types.  Empty if it is neither.
std::optional<SiteInsn> recognise(const u8 *text, u64 field_off, RelExpr expr,
                                  bool is64);

// Code that loads a probe function's address into a register to call it
// through the register (-mcmodel=large's movabs, a hoisted GOT load):
// movabs $imm64,%reg; mov disp(%rip),%reg; mov disp(%reg),%reg.
bool is_address_load(const u8 *text, u64 field_off, RelExpr expr, u8 width,
                     bool is64);

void disabled_bytes(SiteKind kind, u8 len, u8 *out);
// `n` bytes of NOP instructions (of at most 6 bytes each): padding that is
// run, never patched.
void nop_fill(u8 *out, size_t n);
// The enabled instruction: call/jmp to `target` for Call/TailJump,
// IsEnabledTail (target: the return-1 stub) and Goto (target: the
// out-of-line block), mov $1,%eax for IsEnabled; for Entry a jmp on x86_64
// (fbt's entry code resumes the function itself), a call on i386.
void enabled_bytes(SiteKind kind, u8 len, u64 site, u64 target, u8 *out);
void breakpoint_bytes(const u8 *disabled, u8 len, u8 *out);

// A trampoline at `at` that calls `fire(slot, args)`, `args` pointing at
// the site's six arguments; returns its size.
size_t write_trampoline(u8 *out, u64 at, u64 slot, u64 fire);
constexpr size_t kTrampolineSize = 48;
// The site's frame, from the `args` such a trampoline passed.
ProbeFrame trampoline_frame(const uintptr_t *args);
// mov $1,%eax; ret
size_t write_return_one(u8 *out);

// What the SIGTRAP handler does in place of the instruction at a site.
enum class Emul : u8 {
  Skip,      // NOPs: continue after the site
  Call,      // push the return address, go to target
  Jump,      // go to target
  Ret,       // pop the return address
  SetOne,    // eax = 1, continue after the site
  Zero,      // eax = 0, continue after the site
  ZeroRet,   // eax = 0, return
  Fire,      // breakpoint mode: fire probe `target`, then as `then`
};

// Where a breakpoint's probe arguments come from.
enum class TrapArgs : u8 {
  Call,   // a call site: the arguments of the call
  Entry,  // a function's first instruction: its arguments
  Return, // a function's ret: offset of the ret, return value (low, high)
};

struct TrapAction {
  Emul emul;
  Emul then; // for Fire: the disabled instruction's emulation
  u8 len;
  u64 target; // Call/Jump: the target; Fire: the function (TrapArgs::Return)
  TrapArgs args = TrapArgs::Call;
  u16 pop = 0; // Ret: bytes of arguments popped above the return address
};

TrapAction decode_final(const u8 *bytes, u8 len, u64 site);
// Apply `a` for the site at `site` to a signal context (ucontext_t *).
void emulate(void *uctx, u64 site, const TrapAction &a);
// The probe arguments at a breakpoint: x86_64 argument registers, i386 the
// stack (see TrapArgs); `func` is the function a Return trap is in.
void trap_args(void *uctx, uintptr_t *args, TrapArgs kind = TrapArgs::Call,
               u64 func = 0);
// The trapped code's frame, for stack().
ProbeFrame trap_frame(void *uctx);
// The frame a signal interrupted (its pc the next instruction to run).
ProbeFrame signal_frame(void *uctx);
// The address of the int3 that trapped.
u64 trap_pc(void *uctx);
// Resume the interrupted thread at `pc`.
void restart_at(void *uctx, u64 pc);

} // namespace mk::x86
