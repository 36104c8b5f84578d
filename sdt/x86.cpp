// x86 probe-site encodings, trampolines and trap emulation (see x86.h).
//
// A site is 5 bytes (call/jmp rel32) or 6 (call/jmp through the GOT).
// Disabled forms keep the instruction's length: a multi-byte NOP; `ret` plus
// NOPs for a tail call (the probe call was the function's last act);
// `xor %eax,%eax` plus NOPs for is-enabled.  Enabled forms call or jump to
// the probe's trampoline, which calls the firing path with the probe's
// slot and a pointer to the site's six arguments (x86_64: the argument
// registers, pushed; i386: the arguments already on the stack).  The trampoline may clobber only what a call may
// clobber at the site: the caller-saved registers.
#include "x86.h"

#include <cstring>
#include <signal.h>
#include <ucontext.h>

namespace mk::x86 {

namespace {
const u8 kNop[7][6] = {
    {},
    {0x90},
    {0x66, 0x90},
    {0x0f, 0x1f, 0x00},
    {0x0f, 0x1f, 0x40, 0x00},
    {0x0f, 0x1f, 0x44, 0x00, 0x00},
    {0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00},
};

void nops(u8 *out, unsigned n) {
  if (n)
    std::memcpy(out, kNop[n], n);
}

void put32(u8 *p, u32 v) { std::memcpy(p, &v, 4); }
u32 get32(const u8 *p) {
  u32 v;
  std::memcpy(&v, p, 4);
  return v;
}
} // namespace

std::optional<SiteInsn> recognise(const u8 *text, u64 off, RelExpr expr,
                                  bool is64) {
  if (expr == RelExpr::PC && off >= 1) {
    if (text[off - 1] == 0xe8)
      return SiteInsn{off - 1, 5, false};
    if (text[off - 1] == 0xe9)
      return SiteInsn{off - 1, 5, true};
    return std::nullopt;
  }
  if (off < 2 || text[off - 2] != 0xff)
    return std::nullopt;
  u8 modrm = text[off - 1];
  u8 mod = modrm >> 6, reg = (modrm >> 3) & 7, rm = modrm & 7;
  if (reg != 2 && reg != 4)
    return std::nullopt;
  if (is64) {
    // call/jmp *sym@GOTPCREL(%rip)
    if (expr != RelExpr::GotSlotPC || mod != 0 || rm != 5)
      return std::nullopt;
  } else {
    // call/jmp *sym@GOT(%reg), or *sym@GOT without a base register
    bool based = mod == 2 && rm != 4;
    bool absolute = mod == 0 && rm == 5;
    if (!(expr == RelExpr::GotSlotOff && based) &&
        !(expr == RelExpr::GotSlotAbs && absolute))
      return std::nullopt;
  }
  return SiteInsn{off - 2, 6, reg == 4};
}

bool is_address_load(const u8 *text, u64 off, RelExpr expr, u8 width,
                     bool is64) {
  if (off < 2)
    return false;
  u8 op = text[off - 2], modrm = text[off - 1];
  if (width == 8) {
    // movabs $imm64, %reg: REX.W (+B) B8+r, the field right after.
    return is64 && (op == 0x48 || op == 0x49) && (modrm & 0xf8) == 0xb8 &&
           (expr == RelExpr::Abs || expr == RelExpr::GotRel ||
            expr == RelExpr::GotSlotOff);
  }
  // mov disp32(...), %reg: 8B /r with a 32-bit displacement.
  if (op != 0x8b || width != 4)
    return false;
  u8 mod = modrm >> 6, rm = modrm & 7;
  if (is64)
    return expr == RelExpr::GotSlotPC && mod == 0 && rm == 5;
  return (expr == RelExpr::GotSlotOff && mod == 2 && rm != 4) ||
         (expr == RelExpr::GotSlotAbs && mod == 0 && rm == 5);
}

void nop_fill(u8 *out, size_t n) {
  for (size_t l; n; out += l, n -= l)
    nops(out, (unsigned)(l = n < 6 ? n : 6));
}

void disabled_bytes(SiteKind kind, u8 len, u8 *out) {
  switch (kind) {
  case SiteKind::Call:
  case SiteKind::Goto:
    nops(out, len);
    break;
  case SiteKind::TailJump:
    out[0] = 0xc3; // ret
    nops(out + 1, len - 1);
    break;
  case SiteKind::IsEnabled:
    out[0] = 0x31, out[1] = 0xc0; // xor %eax,%eax
    nops(out + 2, len - 2);
    break;
  case SiteKind::IsEnabledTail:
    out[0] = 0x31, out[1] = 0xc0, out[2] = 0xc3; // xor %eax,%eax; ret
    nops(out + 3, len - 3);
    break;
  case SiteKind::Entry:
    nops(out, len);
    break;
  }
}

void enabled_bytes(SiteKind kind, u8 len, u64 site, u64 target, u8 *out) {
  if (kind == SiteKind::IsEnabled) {
    out[0] = 0xb8; // mov $1,%eax
    put32(out + 1, 1);
  } else {
#if defined(__x86_64__)
    // x86_64 entry sites jump: the fbt entry code calls the function
    // itself when it takes the return over (fbt.cpp).
    const bool call = kind == SiteKind::Call;
#else
    const bool call = kind == SiteKind::Call || kind == SiteKind::Entry;
#endif
    out[0] = call ? 0xe8 : 0xe9;
    put32(out + 1, (u32)(target - (site + 5)));
  }
  nops(out + 5, len - 5);
}

void breakpoint_bytes(const u8 *disabled, u8 len, u8 *out) {
  std::memcpy(out, disabled, len);
  out[0] = 0xcc;
}

size_t write_trampoline(u8 *out, u64 at, u64 slot, u64 fire) {
  u8 *p = out;
#if defined(__x86_64__)
  // The site's six argument registers become an array on the stack; the
  // site's %rbp below them keeps the stack 16-byte aligned at the call and
  // lets stack() start from the site's frame (trampoline_frame()).
  const u8 save[] = {
      0x41, 0x51,             // push %r9
      0x41, 0x50,             // push %r8
      0x51,                   // push %rcx
      0x52,                   // push %rdx
      0x56,                   // push %rsi
      0x57,                   // push %rdi
      0x55,                   // push %rbp
      0x48, 0x8d, 0x74, 0x24, 0x08, // lea 8(%rsp),%rsi
  };
  std::memcpy(p, save, sizeof save);
  p += sizeof save;
  *p++ = 0x48; // movabs $slot,%rdi
  *p++ = 0xbf;
  std::memcpy(p, &slot, 8), p += 8;
  *p++ = 0xe8; // call fire
  put32(p, (u32)(fire - (at + (p - out) + 4))), p += 4;
  const u8 tail[] = {0x48, 0x83, 0xc4, 0x38, 0xc3}; // add $56,%rsp; ret
  std::memcpy(p, tail, sizeof tail);
  p += sizeof tail;
#else
  // The arguments are on the stack above the return address already; pass
  // their address.  The site's %ebp keeps the stack 16-byte aligned at the
  // call and lets stack() start from the site's frame.
  const u8 head[] = {
      0x8d, 0x44, 0x24, 0x04, // lea 4(%esp),%eax
      0x55,                   // push %ebp
      0x50,                   // push %eax
  };
  std::memcpy(p, head, sizeof head);
  p += sizeof head;
  *p++ = 0x68; // push $slot
  put32(p, (u32)slot), p += 4;
  *p++ = 0xe8; // call fire
  put32(p, (u32)(fire - (at + (p - out) + 4))), p += 4;
  const u8 tail[] = {0x83, 0xc4, 0x0c, 0xc3}; // add $12,%esp; ret
  std::memcpy(p, tail, sizeof tail);
  p += sizeof tail;
#endif
  return p - out;
}

MK_READS_RAW_STACK ProbeFrame trampoline_frame(const uintptr_t *args) {
  ProbeFrame f;
#if defined(__x86_64__)
  // rbp, rdi..r9 (args), the return address into the site's function.
  f.pc_loc = (uintptr_t)&args[6];
  f.fp = args[-1];
#else
  // ebp, the return address, the arguments the site pushed.
  f.pc_loc = (uintptr_t)&args[-1];
  f.fp = args[-2];
#endif
  f.pc = *(const uintptr_t *)f.pc_loc;
  f.sp = f.pc_loc + sizeof(uintptr_t);
  return f;
}

size_t write_return_one(u8 *out) {
  const u8 code[] = {0xb8, 0x01, 0x00, 0x00, 0x00, 0xc3};
  std::memcpy(out, code, sizeof code);
  return sizeof code;
}

TrapAction decode_final(const u8 *b, u8 len, u64 site) {
  TrapAction a{Emul::Skip, Emul::Skip, len, 0};
  switch (b[0]) {
  case 0xe8:
    a.emul = Emul::Call;
    a.target = site + 5 + (u64)(i64)(i32)get32(b + 1);
    break;
  case 0xe9:
    a.emul = Emul::Jump;
    a.target = site + 5 + (u64)(i64)(i32)get32(b + 1);
    break;
  case 0xc3:
    a.emul = Emul::Ret;
    break;
  case 0xc2: // ret $N (an i386 function's ret, in fbt's breakpoint mode)
    a.emul = Emul::Ret;
    a.pop = (u16)(b[1] | b[2] << 8);
    break;
  case 0xb8:
    a.emul = Emul::SetOne;
    break;
  case 0x31:
    a.emul = b[2] == 0xc3 ? Emul::ZeroRet : Emul::Zero;
    break;
  default:
    a.emul = Emul::Skip; // a NOP sled
  }
#if defined(__x86_64__)
  a.target &= ~0ull;
#else
  a.target &= 0xffffffffull;
#endif
  return a;
}

#if defined(__x86_64__)
#define PC_REG REG_RIP
#define SP_REG REG_RSP
#define AX_REG REG_RAX
#else
#define PC_REG REG_EIP
#define SP_REG REG_ESP
#define AX_REG REG_EAX
#endif

u64 trap_pc(void *uctx) {
  auto *uc = (ucontext_t *)uctx;
  return (u64)(uintptr_t)uc->uc_mcontext.gregs[PC_REG] - 1;
}

void restart_at(void *uctx, u64 pc) {
  ((ucontext_t *)uctx)->uc_mcontext.gregs[PC_REG] = (greg_t)pc;
}

void emulate(void *uctx, u64 site, const TrapAction &a) {
  auto *uc = (ucontext_t *)uctx;
  greg_t *g = uc->uc_mcontext.gregs;
  auto pop = [&] {
    uintptr_t *sp = (uintptr_t *)(uintptr_t)g[SP_REG];
    g[PC_REG] = (greg_t)*sp;
    g[SP_REG] += sizeof(uintptr_t);
  };
  switch (a.emul) {
  case Emul::Skip:
  case Emul::Fire:
    g[PC_REG] = (greg_t)(site + a.len);
    break;
  case Emul::Call: {
    // Nothing lives below the stack pointer at a call site, so pushing the
    // return address on the interrupted thread's stack is safe.
    g[SP_REG] -= sizeof(uintptr_t);
    *(uintptr_t *)(uintptr_t)g[SP_REG] = (uintptr_t)(site + a.len);
    g[PC_REG] = (greg_t)a.target;
    break;
  }
  case Emul::Jump:
    g[PC_REG] = (greg_t)a.target;
    break;
  case Emul::Ret:
    pop();
    g[SP_REG] += a.pop; // ret $N
    break;
  case Emul::SetOne:
    g[AX_REG] = 1;
    g[PC_REG] = (greg_t)(site + a.len);
    break;
  case Emul::Zero:
    g[AX_REG] = 0;
    g[PC_REG] = (greg_t)(site + a.len);
    break;
  case Emul::ZeroRet:
    g[AX_REG] = 0;
    pop();
    break;
  }
}

void trap_args(void *uctx, uintptr_t *args, TrapArgs kind, u64 func) {
  auto *uc = (ucontext_t *)uctx;
  greg_t *g = uc->uc_mcontext.gregs;
  if (kind == TrapArgs::Return) {
    // FreeBSD fbt's: the returning instruction's offset, the value (and
    // its high half: rdx/edx).
    args[0] = (uintptr_t)(trap_pc(uctx) - func);
    args[1] = (uintptr_t)g[AX_REG];
#if defined(__x86_64__)
    args[2] = (uintptr_t)g[REG_RDX];
#else
    args[2] = (uintptr_t)g[REG_EDX];
#endif
    args[3] = args[4] = args[5] = 0;
    return;
  }
#if defined(__x86_64__)
  args[0] = g[REG_RDI], args[1] = g[REG_RSI], args[2] = g[REG_RDX];
  args[3] = g[REG_RCX], args[4] = g[REG_R8], args[5] = g[REG_R9];
#else
  // At a call the arguments sit at the top of the stack; at a function's
  // first instruction, above its return address.
  const uintptr_t *sp = (const uintptr_t *)(uintptr_t)g[REG_ESP];
  if (kind == TrapArgs::Entry)
    sp++;
  for (int i = 0; i < 6; i++)
    args[i] = sp[i];
#endif
}

ProbeFrame trap_frame(void *uctx) {
  ProbeFrame f = signal_frame(uctx);
  f.pc = (uintptr_t)trap_pc(uctx);
  return f;
}

ProbeFrame signal_frame(void *uctx) {
  greg_t *g = ((ucontext_t *)uctx)->uc_mcontext.gregs;
  ProbeFrame f;
  f.pc = (uintptr_t)g[PC_REG];
  f.sp = (uintptr_t)g[SP_REG];
#if defined(__x86_64__)
  f.fp = (uintptr_t)g[REG_RBP];
#else
  f.fp = (uintptr_t)g[REG_EBP];
#endif
  f.exact = true;
  return f;
}

} // namespace mk::x86
