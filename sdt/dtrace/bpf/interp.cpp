// The interpreter: runs a verified program on any host (the i386 kernel
// uses it; x86_64 uses it when asked to, and the tests compare it with the
// JIT).  It trusts the verifier for everything proved at load time and
// performs only the checks the verifier asked for (InsnInfo).
#include "bpf.h"
#include "semantics.h"

#include <cstring>

namespace mk::bpf {

namespace {

inline unsigned log2_width(unsigned w) {
  return w == 1 ? 0 : w == 2 ? 1 : w == 4 ? 2 : 3;
}

template <class T> inline T load(u64 addr) {
  T v;
  std::memcpy(&v, reinterpret_cast<const void *>(static_cast<uintptr_t>(addr)),
              sizeof v);
  return v;
}
template <class T> inline void store(u64 addr, T v) {
  std::memcpy(reinterpret_cast<void *>(static_cast<uintptr_t>(addr)), &v,
              sizeof v);
}

u64 load_n(u64 addr, unsigned w, bool sx) {
  switch (w) {
  case 1: return sx ? (u64)(i64)load<i8>(addr) : load<u8>(addr);
  case 2: return sx ? (u64)(i64)load<i16>(addr) : load<u16>(addr);
  case 4: return sx ? (u64)(i64)load<i32>(addr) : load<u32>(addr);
  default: return load<u64>(addr);
  }
}
void store_n(u64 addr, unsigned w, u64 v) {
  switch (w) {
  case 1: store<u8>(addr, (u8)v); break;
  case 2: store<u16>(addr, (u16)v); break;
  case 4: store<u32>(addr, (u32)v); break;
  default: store<u64>(addr, v); break;
  }
}

template <class T> u64 atomic_op(u64 addr, i32 op, u64 src, u64 &r0) {
  T *p = reinterpret_cast<T *>(static_cast<uintptr_t>(addr));
  const T v = (T)src;
  switch (op) {
  case kADD: case kADD | kFETCH: return (u64)__atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
  case kOR: case kOR | kFETCH: return (u64)__atomic_fetch_or(p, v, __ATOMIC_SEQ_CST);
  case kAND: case kAND | kFETCH: return (u64)__atomic_fetch_and(p, v, __ATOMIC_SEQ_CST);
  case kXOR: case kXOR | kFETCH: return (u64)__atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST);
  case kXCHG: return (u64)__atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);
  case kCMPXCHG: {
    T expected = (T)r0;
    __atomic_compare_exchange_n(p, &expected, v, false, __ATOMIC_SEQ_CST,
                                __ATOMIC_SEQ_CST);
    r0 = (u64)expected; // the old value, whether or not it was replaced
    return 0;
  }
  }
  return 0;
}

} // namespace

bool any_region_allows(RunCtx &rc, u64 addr, unsigned width, bool write) {
  Region *g = rc.regions();
  const unsigned k = log2_width(width);
  for (u32 n = 0; n < rc.nregions; n++) {
    if (addr - g[n].base >= g[n].span[k])
      continue;
    if (!write)
      return true;
    if (n == kRegionCtx)
      return rc.env->ctx_writable;
    if (n >= kRegionMap0)
      return !rc.env->maps[n - kRegionMap0]->spec().read_only;
    return true;
  }
  return false;
}

u64 interpret(const Program &prog, RunCtx &rc, const u64 args[5]) {
  const Insn *code = prog.insns_.data();
  const InsnInfo *info = prog.info_.data();
  const Env &env = *prog.env_;
  Region *regions = rc.regions();
  u64 r[kRegs] = {};
  for (unsigned k = 0; k < 5; k++)
    r[1 + k] = args[k];
  r[10] = rc.stack_top;
  struct Return {
    u32 pc;
    u64 saved[5]; // r6..r10
  } frames[kMaxCallDepth];
  unsigned depth = 0;
  u32 pc = 0;

  auto fault = [&](Fault f, u64 addr) {
    rc.fault = f;
    rc.fault_pc = pc;
    rc.fault_addr = addr;
    return (u64)0;
  };
  // The run-time check the verifier asked for, if any.
  auto allowed = [&](u64 addr, unsigned w, bool write) {
    const InsnInfo &in = info[pc];
    switch (in.check) {
    case Check::None: return true;
    case Check::Region:
      return addr - regions[in.region].base < regions[in.region].span[log2_width(w)];
    case Check::AnyRegion: return any_region_allows(rc, addr, w, write);
    }
    return false;
  };

  for (;;) {
    const Insn &i = code[pc];
    if (!info[pc].reached)
      return fault(Fault::Unreachable, 0);
    const u8 cls = insn_class(i.code);
    switch (cls) {
    case kALU:
    case kALU64: {
      const u8 op = alu_op(i.code);
      const bool is64 = cls == kALU64;
      const u64 src = (i.code & kX) && op != kEND ? r[i.src] : (u64)(i64)i.imm;
      r[i.dst] = alu_eval(op, is64, r[i.dst], src, i.off, i.imm,
                          (i.code & kX) != 0, is64);
      pc++;
      break;
    }
    case kJMP:
    case kJMP32: {
      const u8 op = alu_op(i.code);
      if (op == kEXIT) {
        if (depth == 0)
          return r[0];
        Return &f = frames[--depth];
        for (unsigned k = 0; k < 5; k++)
          r[6 + k] = f.saved[k];
        pc = f.pc;
        break;
      }
      if (op == kCALL) {
        if (i.src == kPseudoCall) {
          Return &f = frames[depth++]; // the verifier bounded the depth
          f.pc = pc + 1;
          for (unsigned k = 0; k < 5; k++)
            f.saved[k] = r[6 + k];
          r[10] -= kFrameSize;
          pc = pc + 1 + i.imm;
          break;
        }
        const Helper *h = prog.helper_at_[pc];
        r[0] = h->fn(r[1], r[2], r[3], r[4], r[5], &rc);
        if (h->may_abort && rc.fault != Fault::None) {
          rc.fault_pc = pc;
          return 0;
        }
        pc++;
        break;
      }
      bool taken;
      i32 delta;
      if (op == kJA) {
        taken = true;
        delta = cls == kJMP32 ? i.imm : i.off;
      } else {
        const u64 b = (i.code & kX) ? r[i.src] : (u64)(i64)i.imm;
        taken = jmp_eval(op, cls == kJMP, r[i.dst], b);
        delta = i.off;
      }
      if (taken) {
        if (info[pc].back_edge && rc.budget-- == 0)
          return fault(Fault::LoopBudget, 0);
        pc = pc + 1 + delta;
      } else {
        pc++;
      }
      break;
    }
    case kLD: {
      u64 v;
      if (i.src == kPseudoMapHandle)
        v = (u64)(uintptr_t)env.maps[i.imm];
      else if (i.src == kPseudoMapValue)
        v = (u64)(uintptr_t)env.maps[i.imm]->slab() + (u64)(u32)code[pc + 1].imm;
      else
        v = (u64)(u32)i.imm | ((u64)(u32)code[pc + 1].imm << 32);
      r[i.dst] = v;
      pc += 2;
      break;
    }
    case kLDX: {
      const unsigned w = size_bytes(i.code);
      const u64 addr = r[i.src] + (u64)(i64)i.off;
      if (!allowed(addr, w, false))
        return fault(Fault::OutOfBounds, addr);
      r[i.dst] = load_n(addr, w, mem_mode(i.code) == kMEMSX);
      pc++;
      break;
    }
    case kST:
    case kSTX: {
      const unsigned w = size_bytes(i.code);
      const u64 addr = r[i.dst] + (u64)(i64)i.off;
      if (!allowed(addr, w, true))
        return fault(Fault::OutOfBounds, addr);
      if (cls == kSTX && mem_mode(i.code) == kATOMIC) {
        u64 old = w == 8 ? atomic_op<u64>(addr, i.imm, r[i.src], r[0])
                         : atomic_op<u32>(addr, i.imm, r[i.src], r[0]);
        if (i.imm != kCMPXCHG && (i.imm & kFETCH))
          r[i.src] = old;
      } else {
        store_n(addr, w, cls == kST ? (u64)(i64)i.imm : r[i.src]);
      }
      pc++;
      break;
    }
    default:
      return fault(Fault::Unreachable, 0);
    }
  }
}

} // namespace mk::bpf
