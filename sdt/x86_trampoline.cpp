// Probe trampolines with the one-handler fast path (see x86_trampoline.h).
//
// Registers: at a call site the trampoline may clobber what a call may
// (x86_64: rax, rcx, rdx, rsi, rdi, r8-r11; i386: eax, ecx, edx) and must
// return with the stack as it found it.  The site's arguments: x86_64 in
// rdi, rsi, rdx, rcx, r8, r9; i386 on the stack above the return address.
// A handler takes (data, a0..a5): on x86_64 the six registers shift up by
// one and a5 goes to the stack; on i386 the six words are pushed again
// below the data pointer.  Every call is made with the stack 16-byte
// aligned, as both psABIs require (the site's call left it at 8 mod 16 on
// x86_64, 12 mod 16 on i386).
#include "x86_trampoline.h"

#include "x86.h"

#include <cstdlib>
#include <cstring>

namespace mk::x86 {

namespace {

// Emits bytes and resolves forward branches.
class Code {
public:
  Code(u8 *out, u64 at) : p_(out), start_(out), at_(at) {}
  void b(std::initializer_list<u8> bytes) {
    for (u8 x : bytes)
      *p_++ = x;
  }
  void d32(u32 v) { std::memcpy(p_, &v, 4), p_ += 4; }
  void q(u64 v) { std::memcpy(p_, &v, 8), p_ += 8; }
  void ptr(u64 v) {
#if defined(__x86_64__)
    q(v);
#else
    d32((u32)v);
#endif
  }
  size_t here() const { return (size_t)(p_ - start_); }
  // A rel32 field whose target is known.
  void rel32_to(u64 target) { d32((u32)(target - (at_ + here() + 4))); }
  // A rel8 or rel32 field to fill in later: its position.
  size_t rel8() { *p_++ = 0; return here() - 1; }
  size_t rel32() { d32(0); return here() - 4; }
  void bind8(size_t field) { bind8_to(field, here()); }
  void bind32(size_t field) {
    const u32 d = (u32)((i64)here() - (i64)(field + 4));
    std::memcpy(start_ + field, &d, 4);
  }
  void bind8_to(size_t field, size_t label) {
    const i64 d = (i64)label - (i64)(field + 1);
    if (d != (i8)d)
      std::abort(); // the layout below outgrew a short branch
    start_[field] = (u8)(i8)d;
  }
  u64 addr(size_t off) const { return at_ + off; }

private:
  u8 *p_, *start_;
  u64 at_;
};

} // namespace

size_t write_probe_trampoline(u8 *out, u64 at, u64 slot,
                              const TrampolinePlan &plan) {
  Code c(out, at);
  if (!plan.inline_rcu)
    return write_trampoline(out, at, slot, plan.fire);
  const u64 list_addr = slot + plan.slot_list;
  size_t to_generic1, to_generic2, to_unlock, to_multi1, to_multi2;
#if defined(__x86_64__)
  // Not a registered reader yet, or nested: the generic body.
  c.b({0x64, 0x80, 0x3c, 0x25}), c.d32((u32)plan.tls_reader), c.b({0x00});
  c.b({0x0f, 0x84}), to_generic1 = c.rel32(); // cmpb $0,%fs:reader; je
  c.b({0x64, 0x48, 0x8b, 0x04, 0x25}), c.d32((u32)plan.tls_ctr);
  c.b({0x85, 0xc0});                          // mov %fs:ctr,%rax; test %eax
  c.b({0x0f, 0x85}), to_generic2 = c.rel32(); // jne (nested)
  // _urcu_memb_read_lock: the reader counter takes the grace-period
  // counter (its nesting field is 1).
  c.b({0x48, 0xa1}), c.q(plan.gp_ctr);        // movabs gp.ctr,%rax
  c.b({0x64, 0x48, 0x89, 0x04, 0x25}), c.d32((u32)plan.tls_ctr);
  // The list; none: done.
  c.b({0x48, 0xa1}), c.q(list_addr);          // movabs slot->list,%rax
  c.b({0x48, 0x85, 0xc0});                    // test %rax,%rax
  c.b({0x74}), to_unlock = c.rel8();          // je unlock
  c.b({0x83, 0x78, (u8)plan.list_n, 0x01});   // cmpl $1,n(%rax)
  c.b({0x75}), to_multi1 = c.rel8();          // jne multi
  c.b({0x4c, 0x8b, 0x58, (u8)plan.list_mfn}); // mov mfn(%rax),%r11
  c.b({0x4d, 0x85, 0xdb});                    // test %r11,%r11
  c.b({0x74}), to_multi2 = c.rel8();          // je multi (a callback)
  // handler(data, a0..a5): a5 to the stack, the rest up one register.
  c.b({0x41, 0x51});                          // push %r9
  c.b({0x4d, 0x89, 0xc1, 0x49, 0x89, 0xc8, 0x48, 0x89, 0xd1, 0x48, 0x89,
       0xf2, 0x48, 0x89, 0xfe});              // r8->r9 ... rdi->rsi
  c.b({0x48, 0x8b, 0x78, (u8)plan.list_ctx}); // mov ctx(%rax),%rdi
  c.b({0x64, 0xc6, 0x04, 0x25}), c.d32((u32)plan.tls_context), c.b({0x01});
  c.b({0x41, 0xff, 0xd3});                    // movb $1,%fs:context; call *%r11
  c.b({0x64, 0xc6, 0x04, 0x25}), c.d32((u32)plan.tls_context), c.b({0x00});
  c.b({0x48, 0x83, 0xc4, 0x08});              // movb $0,%fs:context; add $8,%rsp
  c.bind8(to_unlock);
  // _urcu_memb_read_unlock at nesting 1: the counter drops to 0; a
  // synchronize_rcu sleeping on this reader is woken.
  c.b({0x64, 0x48, 0x83, 0x2c, 0x25}), c.d32((u32)plan.tls_ctr), c.b({0x01});
  c.b({0xa1}), c.q(plan.gp_futex);            // movabs gp.futex,%eax
  c.b({0x83, 0xf8, 0xff, 0x74, 0x01, 0xc3});  // cmp $-1; je wake; ret
  c.b({0x48, 0x83, 0xec, 0x08, 0xe8}), c.rel32_to(plan.rcu_wake);
  c.b({0x48, 0x83, 0xc4, 0x08, 0xc3});        // sub 8; call wake; add; ret
  // Any other list: the shared slow path, with the slot.
  c.bind8(to_multi1), c.bind8(to_multi2);
  c.b({0x49, 0xba}), c.q(slot);               // movabs $slot,%r10
  c.b({0xe9}), c.rel32_to(plan.slow);         // jmp slow
#else
  c.b({0x65, 0x80, 0x3d}), c.d32((u32)plan.tls_reader), c.b({0x00});
  c.b({0x0f, 0x84}), to_generic1 = c.rel32(); // cmpb $0,%gs:reader; je
  c.b({0x65, 0xa1}), c.d32((u32)plan.tls_ctr);
  c.b({0x66, 0x85, 0xc0});                    // mov %gs:ctr,%eax; test %ax
  c.b({0x0f, 0x85}), to_generic2 = c.rel32(); // jne (nested)
  c.b({0xa1}), c.d32((u32)plan.gp_ctr);       // mov gp.ctr,%eax
  c.b({0x65, 0xa3}), c.d32((u32)plan.tls_ctr); // mov %eax,%gs:ctr
  c.b({0xa1}), c.d32((u32)list_addr);         // mov slot->list,%eax
  c.b({0x85, 0xc0});                          // test %eax,%eax
  c.b({0x74}), to_unlock = c.rel8();
  c.b({0x83, 0x78, (u8)plan.list_n, 0x01});   // cmpl $1,n(%eax)
  c.b({0x75}), to_multi1 = c.rel8();
  c.b({0x8b, 0x48, (u8)plan.list_mfn});       // mov mfn(%eax),%ecx
  c.b({0x85, 0xc9});                          // test %ecx,%ecx
  c.b({0x74}), to_multi2 = c.rel8();
  // handler(data, a0..a5): the six words again, then the data pointer.
  for (int i = 0; i < 6; i++)
    c.b({0xff, 0x74, 0x24, 0x18});            // pushl 24(%esp)
  c.b({0xff, 0x70, (u8)plan.list_ctx});       // pushl ctx(%eax)
  c.b({0x65, 0xc6, 0x05}), c.d32((u32)plan.tls_context), c.b({0x01});
  c.b({0xff, 0xd1});                          // movb $1,%gs:context; call *%ecx
  c.b({0x65, 0xc6, 0x05}), c.d32((u32)plan.tls_context), c.b({0x00});
  c.b({0x83, 0xc4, 0x1c});                    // movb $0,%gs:context; add $28,%esp
  c.bind8(to_unlock);
  c.b({0x65, 0x83, 0x2d}), c.d32((u32)plan.tls_ctr), c.b({0x01});
  c.b({0xa1}), c.d32((u32)plan.gp_futex);     // mov gp.futex,%eax
  c.b({0x83, 0xf8, 0xff, 0x74, 0x01, 0xc3});  // cmp $-1; je wake; ret
  c.b({0x83, 0xec, 0x0c, 0xe8}), c.rel32_to(plan.rcu_wake);
  c.b({0x83, 0xc4, 0x0c, 0xc3});              // sub 12; call wake; add; ret
  c.bind8(to_multi1), c.bind8(to_multi2);
  c.b({0xb9}), c.d32((u32)slot);              // mov $slot,%ecx
  c.b({0xe9}), c.rel32_to(plan.slow);         // jmp slow
#endif
  // The generic body.
  c.bind32(to_generic1), c.bind32(to_generic2);
  const size_t g = c.here();
  const size_t n = g + write_trampoline(out + g, c.addr(g), slot, plan.fire);
  if (n > kProbeTrampolineSize)
    std::abort(); // trampolines are laid out kProbeTrampolineSize apart
  return n;
}

size_t write_probe_slow_path(u8 *out, u64 at, const TrampolinePlan &plan) {
  Code c(out, at);
  size_t to_loop, to_done;
#if defined(__x86_64__)
  // The frame generic trampolines make (trampoline_frame()): the six
  // argument registers as an array, the site's %rbp below them, which
  // also leaves the stack 16-byte aligned.  The probe frame is that
  // array, tagged: probe_frame() works the ProbeFrame out from it only if
  // a handler asks.
  c.b({0x41, 0x51, 0x41, 0x50, 0x51, 0x52, 0x56, 0x57}); // push r9..rdi
  c.b({0x55});                                // push %rbp
  c.b({0x4c, 0x8d, 0x5c, 0x24, 0x09});        // lea 9(%rsp),%r11 (args | 1)
  c.b({0x64, 0x4c, 0x89, 0x1c, 0x25}), c.d32((u32)plan.tls_frame);
  c.b({0x64, 0xc6, 0x04, 0x25}), c.d32((u32)plan.tls_context), c.b({0x01});
  // mov %r11,%fs:frame; movb $1,%fs:context
  c.b({0x48, 0x8d, 0x54, 0x24, 0x08});        // lea 8(%rsp),%rdx (args)
  c.b({0x83, 0x78, (u8)plan.list_n, 0x01});   // cmpl $1,n(%rax)
  c.b({0x75}), to_loop = c.rel8();            // jne loop
  // One callback: fn(ctx, id, args).
  c.b({0x48, 0x8b, 0x78, (u8)plan.list_ctx}); // mov ctx(%rax),%rdi
  c.b({0x41, 0x8b, 0x72, (u8)plan.slot_id});  // mov id(%r10),%esi
  c.b({0xff, 0x50, (u8)plan.list_fn});        // call *fn(%rax)
  const size_t done = c.here();
  c.b({0x64, 0x48, 0xc7, 0x04, 0x25}), c.d32((u32)plan.tls_frame), c.d32(0);
  c.b({0x64, 0xc6, 0x04, 0x25}), c.d32((u32)plan.tls_context), c.b({0x00});
  c.b({0x48, 0x83, 0xc4, 0x38});              // add $56,%rsp
  // The read-side unlock, as in the trampolines.
  c.b({0x64, 0x48, 0x83, 0x2c, 0x25}), c.d32((u32)plan.tls_ctr), c.b({0x01});
  c.b({0xa1}), c.q(plan.gp_futex);            // movabs gp.futex,%eax
  c.b({0x83, 0xf8, 0xff, 0x74, 0x01, 0xc3});  // cmp $-1; je wake; ret
  c.b({0x48, 0x83, 0xec, 0x08, 0xe8}), c.rel32_to(plan.rcu_wake);
  c.b({0x48, 0x83, 0xc4, 0x08, 0xc3});        // sub 8; call wake; add; ret
  // Several handlers: the registry's loop, fire_list(list, slot, args).
  c.bind8(to_loop);
  c.b({0x48, 0x89, 0xc7, 0x4c, 0x89, 0xd6});  // mov %rax,%rdi; mov %r10,%rsi
  c.b({0xe8}), c.rel32_to(plan.fire_list);
  c.b({0xeb}), to_done = c.rel8();
#else
  // %ebp below the site's return address (trampoline_frame()); the probe
  // frame is the site's argument array, tagged, as on x86_64.
  c.b({0x55});                                // push %ebp
  c.b({0x8d, 0x54, 0x24, 0x09});              // lea 9(%esp),%edx (args | 1)
  c.b({0x65, 0x89, 0x15}), c.d32((u32)plan.tls_frame);
  c.b({0x65, 0xc6, 0x05}), c.d32((u32)plan.tls_context), c.b({0x01});
  // Either call takes three words; 12 more bytes align the stack.
  c.b({0x83, 0xec, 0x0c});                    // sub $12,%esp
  c.b({0x8d, 0x54, 0x24, 0x14, 0x52});        // lea 20(%esp),%edx; push (args)
  c.b({0x83, 0x78, (u8)plan.list_n, 0x01});   // cmpl $1,n(%eax)
  c.b({0x75}), to_loop = c.rel8();            // jne loop
  c.b({0xff, 0x71, (u8)plan.slot_id});        // push id(%ecx)
  c.b({0xff, 0x70, (u8)plan.list_ctx});       // push ctx(%eax)
  c.b({0xff, 0x50, (u8)plan.list_fn});        // call *fn(%eax)
  const size_t done = c.here();
  c.b({0x65, 0xc7, 0x05}), c.d32((u32)plan.tls_frame), c.d32(0);
  c.b({0x65, 0xc6, 0x05}), c.d32((u32)plan.tls_context), c.b({0x00});
  c.b({0x83, 0xc4, 0x1c});                    // add $28,%esp
  c.b({0x65, 0x83, 0x2d}), c.d32((u32)plan.tls_ctr), c.b({0x01});
  c.b({0xa1}), c.d32((u32)plan.gp_futex);     // mov gp.futex,%eax
  c.b({0x83, 0xf8, 0xff, 0x74, 0x01, 0xc3});  // cmp $-1; je wake; ret
  c.b({0x83, 0xec, 0x0c, 0xe8}), c.rel32_to(plan.rcu_wake);
  c.b({0x83, 0xc4, 0x0c, 0xc3});              // sub 12; call wake; add; ret
  c.bind8(to_loop);
  c.b({0x51, 0x50});                          // push %ecx; push %eax
  c.b({0xe8}), c.rel32_to(plan.fire_list);
  c.b({0xeb}), to_done = c.rel8();
#endif
  c.bind8_to(to_done, done);
  if (c.here() > kProbeSlowPathSize)
    std::abort();
  return c.here();
}

} // namespace mk::x86
