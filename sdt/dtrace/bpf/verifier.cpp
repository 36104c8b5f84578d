// The verifier: a program runs only after it has been proved safe here.
//
// Two passes.  The structural pass decodes every instruction (known opcode,
// registers in range, reserved fields zero, ld_imm64 complete), finds the
// functions (the entry and every pseudo-call target), and checks that jumps
// stay inside their function, that no function falls off its end, and that
// the call graph has no cycle.
//
// The abstract pass follows every path with an abstract state per register
// and per 8-byte stack slot: uninitialised, a number (known or not), a
// pointer into a region (the probe context, the stack, a map's values) with
// a known or unknown offset and whether it may be null, or a map handle.
// Paths join at jump targets (known values that differ become unknown, so
// loops converge); calls are analysed in the caller's context, with the
// whole frame stack, so a callee that writes through a pointer into its
// caller's frame is seen doing it.  On the way it records, per instruction,
// what the engines must check at run time: an access through a pointer with
// a known offset is checked here, once; one whose offset is not known gets
// a run-time check against its region.  Loops are allowed: every backward
// jump taken costs one unit of the run's budget (Env::loop_budget), so every
// run stops.
#include "bpf.h"
#include "semantics.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace mk::bpf {

const Helper *Env::helper(u32 id) const {
  for (const Helper &h : helpers)
    if (h.id == id)
      return &h;
  return nullptr;
}

namespace {

enum class Kind : u8 { Uninit, Mixed, Scalar, Ptr, MapHandle };

// A pointer whose region depends on the path (a function that returns a
// map value or a constant's address): every access is checked at run time
// against all regions.
constexpr u16 kSomeRegion = 0xffff;

struct Reg {
  Kind kind = Kind::Uninit;
  bool known = false;      // Scalar: value known; Ptr: offset known
  bool maybe_null = false; // Ptr from a lookup not yet compared with 0
  u16 region = 0;          // Ptr: region; MapHandle: map index
  u32 id = 0;              // which lookup a maybe-null pointer came from
  i64 val = 0;             // the value, or the offset (stack: from its top)
  bool operator==(const Reg &) const = default;
};

Reg scalar() { return Reg{Kind::Scalar}; }
Reg scalar(u64 v) {
  Reg r{Kind::Scalar};
  r.known = true;
  r.val = (i64)v;
  return r;
}
Reg ptr(u16 region, i64 off) {
  Reg r{Kind::Ptr};
  r.region = region;
  r.known = true;
  r.val = off;
  return r;
}

Reg join(const Reg &a, const Reg &b) {
  if (a == b)
    return a;
  if (a.kind == Kind::Uninit || b.kind == Kind::Uninit)
    return Reg{};
  if (a.kind != b.kind)
    return Reg{Kind::Mixed};
  switch (a.kind) {
  case Kind::Scalar:
    return scalar();
  case Kind::Ptr: {
    Reg r = a;
    if (a.region != b.region) {
      r.region = kSomeRegion;
      r.known = false;
      r.val = 0;
      r.maybe_null = a.maybe_null || b.maybe_null;
      r.id = 0;
      return r;
    }
    if (!(a.known && b.known && a.val == b.val)) {
      r.known = false;
      r.val = 0;
    }
    r.maybe_null = a.maybe_null || b.maybe_null;
    r.id = a.id == b.id ? a.id : 0;
    return r;
  }
  case Kind::MapHandle:
    return a.region == b.region ? a : Reg{Kind::Mixed};
  default:
    return Reg{Kind::Mixed};
  }
}

constexpr unsigned kSlots = kFrameSize / 8;

struct Slot {
  u8 init = 0;        // which of the 8 bytes have been written
  bool spill = false; // holds a register stored whole (8 bytes, aligned)
  u8 known = 0;       // which bytes hold a number known at load time
  u64 bytes = 0;      // their values (little-endian; unknown bytes are 0)
  Reg reg;
  bool operator==(const Slot &) const = default;
};

u64 byte_mask(u8 known) {
  u64 m = 0;
  for (unsigned k = 0; k < 8; k++)
    if (known & (1u << k))
      m |= 0xffull << (8 * k);
  return m;
}

struct Frame {
  Reg r[kRegs];
  Slot s[kSlots];
  bool operator==(const Frame &) const = default;
};

struct State {
  std::vector<Frame> f;
  bool operator==(const State &) const = default;
  Frame &cur() { return f.back(); }
};

State join(const State &a, const State &b) {
  State s = a;
  for (size_t i = 0; i < s.f.size(); i++) {
    Frame &x = s.f[i];
    const Frame &y = b.f[i];
    for (unsigned r = 0; r < kRegs; r++)
      x.r[r] = join(x.r[r], y.r[r]);
    for (unsigned k = 0; k < kSlots; k++) {
      Slot &p = x.s[k];
      const Slot &q = y.s[k];
      if (p == q)
        continue;
      p.init &= q.init;
      for (unsigned b = 0; b < 8; b++) // a byte stays known where both agree
        if (((p.bytes ^ q.bytes) >> (8 * b)) & 0xff)
          p.known &= u8(~(1u << b));
      p.known &= q.known;
      p.bytes &= byte_mask(p.known);
      if (p.spill && q.spill) {
        p.reg = join(p.reg, q.reg);
        if (p.reg.kind == Kind::Uninit || p.reg.kind == Kind::Mixed)
          p.spill = false;
      } else {
        p.spill = false;
      }
      if (!p.spill)
        p.reg = Reg{};
    }
  }
  return s;
}

// Each register and spilled slot holding a maybe-null pointer from lookup
// `id` becomes what `f` makes of it (a null check refines them all).
template <class F> void for_id(State &s, u32 id, F f) {
  if (id == 0)
    return;
  for (Frame &fr : s.f) {
    for (Reg &r : fr.r)
      if (r.kind == Kind::Ptr && r.id == id)
        f(r);
    for (Slot &sl : fr.s)
      if (sl.spill && sl.reg.kind == Kind::Ptr && sl.reg.id == id)
        f(sl.reg);
  }
}

const char *reg_name(unsigned r) {
  static const char *names[] = {"r0", "r1", "r2", "r3", "r4", "r5",
                                "r6", "r7", "r8", "r9", "r10"};
  return r < kRegs ? names[r] : "r?";
}

} // namespace

class Verifier {
public:
  Verifier(Program &p, const Env &env, const std::string &name)
      : p_(p), code_(p.insns_), env_(env), name_(name) {}

  Result<void> run() {
    MK_TRY(structure());
    p_.info_.assign(code_.size(), InsnInfo{});
    State s;
    s.f.resize(1);
    Frame &f = s.f[0];
    if (env_.ctx_size)
      f.r[1] = ptr(kRegionCtx, 0);
    else
      f.r[1] = scalar();
    for (unsigned k = 0; k < env_.scalar_args && k < 4; k++)
      f.r[2 + k] = scalar();
    f.r[10] = ptr(kRegionStack, 0);
    auto r = analyze(0, std::move(s));
    if (!r)
      return r.take_error();
    return {};
  }

private:
  // ---- messages -----------------------------------------------------------
  Error fail(u32 pc, const char *fmt, ...) __attribute__((format(printf, 3, 4))) {
    va_list ap;
    va_start(ap, fmt);
    std::string why = vstrf(fmt, ap);
    va_end(ap);
    const Insn *next = pc + 1 < code_.size() ? &code_[pc + 1] : nullptr;
    return error(strf("%s: insn %u '%s': %s", name_.c_str(), pc,
                      disasm(code_[pc], next).c_str(), why.c_str()));
  }

  // ---- the structural pass ---------------------------------------------------
  Result<void> structure() {
    const u32 n = (u32)code_.size();
    if (n == 0)
      return error(strf("%s: program has no instructions", name_.c_str()));
    if (n > env_.max_insns)
      return error(strf("%s: program has %u instructions, more than the "
                        "limit of %u", name_.c_str(), n, env_.max_insns));
    second_.assign(n, false);
    for (u32 pc = 0; pc < n; pc++) {
      if (second_[pc])
        continue;
      MK_TRY(decode(pc));
      if (is_ld_imm64(code_[pc])) {
        if (pc + 1 >= n)
          return fail(pc, "ld_imm64 has no second slot");
        const Insn &x = code_[pc + 1];
        if (x.code || x.dst || x.src || x.off)
          return fail(pc, "the second slot of ld_imm64 has reserved fields "
                          "set");
        second_[pc + 1] = true;
      }
    }
    // Functions: the entry and every pseudo-call target.
    std::set<u32> starts{0};
    for (u32 pc = 0; pc < n; pc++) {
      const Insn &i = code_[pc];
      if (second_[pc] || !is_pseudo_call(i))
        continue;
      const i64 t = (i64)pc + 1 + i.imm;
      if (t < 0 || t >= n)
        return fail(pc, "call target %lld is outside the program [0, %u)",
                    (long long)t, n);
      if (second_[t])
        return fail(pc, "call target %lld is the second slot of ld_imm64",
                    (long long)t);
      starts.insert((u32)t);
    }
    funcs_.assign(starts.begin(), starts.end());
    func_of_.assign(n, 0);
    for (u32 f = 0; f < funcs_.size(); f++) {
      const u32 end = f + 1 < funcs_.size() ? funcs_[f + 1] : n;
      for (u32 pc = funcs_[f]; pc < end; pc++)
        func_of_[pc] = f;
    }
    // Jumps stay in their function and land on an instruction; a function
    // ends in exit or an unconditional jump.
    for (u32 pc = 0; pc < n; pc++) {
      if (second_[pc])
        continue;
      const Insn &i = code_[pc];
      const u8 cls = insn_class(i.code);
      if ((cls == kJMP || cls == kJMP32) && alu_op(i.code) != kCALL &&
          alu_op(i.code) != kEXIT) {
        const i64 t = jump_target(pc);
        if (t < 0 || t >= n)
          return fail(pc, "jump target %lld is outside the program [0, %u)",
                      (long long)t, n);
        if (second_[t])
          return fail(pc, "jump target %lld is the second slot of ld_imm64",
                      (long long)t);
        if (func_of_[t] != func_of_[pc])
          return fail(pc, "jump target %lld is in another function",
                      (long long)t);
      }
      const u32 last = is_ld_imm64(i) ? pc + 1 : pc;
      const bool ends_func = last + 1 == n || func_of_[last + 1] != func_of_[pc];
      if (ends_func && !ends_flow(i))
        return fail(pc, "the function falls off its end (the last instruction "
                        "must be exit or a jump)");
    }
    // No recursion: the call graph has no cycle.
    callees_.assign(funcs_.size(), {});
    for (u32 pc = 0; pc < n; pc++)
      if (!second_[pc] && is_pseudo_call(code_[pc]))
        callees_[func_of_[pc]].push_back(pc);
    std::vector<u8> mark(funcs_.size(), 0);
    for (u32 f = 0; f < funcs_.size(); f++)
      MK_TRY(acyclic(f, mark));
    p_.funcs_ = funcs_;
    return {};
  }

  Result<void> acyclic(u32 f, std::vector<u8> &mark) {
    if (mark[f] == 2)
      return {};
    mark[f] = 1;
    for (u32 pc : callees_[f]) {
      const u32 g = func_of_[pc + 1 + code_[pc].imm];
      if (mark[g] == 1)
        return fail(pc, "recursive call (function at insn %u is already on "
                        "the call path)", funcs_[g]);
      MK_TRY(acyclic(g, mark));
    }
    mark[f] = 2;
    return {};
  }

  static bool is_pseudo_call(const Insn &i) {
    return i.code == (kJMP | kCALL) && i.src == kPseudoCall;
  }
  bool ends_flow(const Insn &i) const {
    if (i.code == (kJMP | kEXIT))
      return true;
    if (i.code == (kJMP | kJA) || i.code == (kJMP32 | kJA))
      return true;
    return false;
  }
  i64 jump_target(u32 pc) const {
    const Insn &i = code_[pc];
    if (i.code == (kJMP32 | kJA))
      return (i64)pc + 1 + i.imm;
    return (i64)pc + 1 + i.off;
  }

  Result<void> decode(u32 pc) {
    const Insn &i = code_[pc];
    const u8 cls = insn_class(i.code);
    if (i.dst >= kRegs)
      return fail(pc, "invalid destination register %u", i.dst);
    if (i.src >= kRegs && !is_ld_imm64(i))
      return fail(pc, "invalid source register %u", i.src);
    switch (cls) {
    case kALU:
    case kALU64: {
      const u8 op = alu_op(i.code);
      const bool x = i.code & kX;
      if (i.dst == 10)
        return fail(pc, "r10 is read-only");
      if (op == kEND) {
        if (cls == kALU64 && x)
          return fail(pc, "unknown opcode 0x%02x", i.code);
        if (i.imm != 16 && i.imm != 32 && i.imm != 64)
          return fail(pc, "byte swap width %d is not 16, 32 or 64", i.imm);
        if (i.src || i.off)
          return fail(pc, "reserved fields of a byte swap are set");
        return {};
      }
      if (op == kNEG) {
        if (x || i.src || i.off || i.imm)
          return fail(pc, "reserved fields of neg are set");
        return {};
      }
      if (op > kEND)
        return fail(pc, "unknown opcode 0x%02x", i.code);
      if (x ? i.imm != 0 : i.src != 0)
        return fail(pc, "reserved field %s is set", x ? "imm" : "src");
      if (i.off) {
        const bool ok = ((op == kDIV || op == kMOD) && i.off == 1) ||
                        (op == kMOV && x &&
                         (i.off == 8 || i.off == 16 ||
                          (i.off == 32 && cls == kALU64)));
        if (!ok)
          return fail(pc, "reserved field off is %d", i.off);
      }
      return {};
    }
    case kJMP:
    case kJMP32: {
      const u8 op = alu_op(i.code);
      const bool x = i.code & kX;
      if (op == kJA) {
        if (x || i.src || i.dst || (cls == kJMP ? i.imm != 0 : i.off != 0))
          return fail(pc, "reserved fields of a jump are set");
        return {};
      }
      if (op == kCALL) {
        if (cls != kJMP)
          return fail(pc, "unknown opcode 0x%02x", i.code);
        if (x)
          return fail(pc, "indirect calls (callx) are not supported");
        if (i.dst || i.off)
          return fail(pc, "reserved fields of call are set");
        if (i.src == 0) {
          const Helper *h = env_.helper((u32)i.imm);
          if (!h)
            return fail(pc, "unknown helper %d", i.imm);
          if (!h->fn)
            return fail(pc, "helper %d (%s) has no implementation", i.imm,
                        h->name.c_str());
          return {};
        }
        if (i.src == kPseudoCall)
          return {};
        return fail(pc, "call of kind %u is not supported (helpers by id and "
                        "BPF functions only)", i.src);
      }
      if (op == kEXIT) {
        if (cls != kJMP || x || i.src || i.dst || i.off || i.imm)
          return fail(pc, "reserved fields of exit are set");
        return {};
      }
      if (op > kJSLE)
        return fail(pc, "unknown opcode 0x%02x", i.code);
      if (x ? i.imm != 0 : i.src != 0)
        return fail(pc, "reserved field %s is set", x ? "imm" : "src");
      return {};
    }
    case kLD:
      if (!is_ld_imm64(i)) {
        if (mem_mode(i.code) == kABS || mem_mode(i.code) == kIND)
          return fail(pc, "legacy packet loads (ABS/IND) are not supported");
        return fail(pc, "unknown opcode 0x%02x", i.code);
      }
      if (i.dst == 10)
        return fail(pc, "r10 is read-only");
      if (i.off)
        return fail(pc, "reserved field off is set");
      if (i.src > kPseudoMapValue)
        return fail(pc, "ld_imm64 of kind %u is not supported", i.src);
      if (i.src && (i.imm < 0 || (size_t)i.imm >= env_.maps.size()))
        return fail(pc, "map %d does not exist (the program has %zu)", i.imm,
                    env_.maps.size());
      return {};
    case kLDX:
      if (mem_mode(i.code) != kMEM &&
          !(mem_mode(i.code) == kMEMSX && mem_size(i.code) != kDW))
        return fail(pc, "unknown opcode 0x%02x", i.code);
      if (i.imm)
        return fail(pc, "reserved field imm is set");
      if (i.dst == 10)
        return fail(pc, "r10 is read-only");
      return {};
    case kST:
      if (mem_mode(i.code) != kMEM)
        return fail(pc, "unknown opcode 0x%02x", i.code);
      if (i.src)
        return fail(pc, "reserved field src is set");
      return {};
    case kSTX:
      if (mem_mode(i.code) == kMEM) {
        if (i.imm)
          return fail(pc, "reserved field imm is set");
        return {};
      }
      if (mem_mode(i.code) == kATOMIC &&
          (mem_size(i.code) == kW || mem_size(i.code) == kDW)) {
        const i32 op = i.imm;
        const i32 base = op & ~kFETCH;
        if (op == kXCHG || op == kCMPXCHG || base == kADD || base == kOR ||
            base == kAND || base == kXOR)
          return {};
        return fail(pc, "unknown atomic operation 0x%x", op);
      }
      return fail(pc, "unknown opcode 0x%02x", i.code);
    }
    return fail(pc, "unknown opcode 0x%02x", i.code);
  }

  // ---- the abstract pass ---------------------------------------------------

  // Records what the engines must check at run time for the access at pc.
  void note_check(u32 pc, Check c, u16 region, bool write) {
    InsnInfo &in = p_.info_[pc];
    in.write = in.write || write;
    if (c == Check::None || in.check == Check::AnyRegion)
      return;
    if (in.check == Check::Region && (c == Check::AnyRegion || in.region != region)) {
      in.check = Check::AnyRegion;
      return;
    }
    in.check = c;
    in.region = region;
  }

  u64 region_size(const State &s, u16 region) const {
    if (region == kRegionCtx)
      return env_.ctx_size;
    if (region == kRegionStack)
      return u64(kFrameSize) * s.f.size();
    return env_.maps[region - kRegionMap0]->spec().value_size;
  }

  std::string region_name(u16 region) const {
    if (region == kRegionCtx)
      return "the probe context";
    if (region == kRegionStack)
      return "the stack";
    return strf("a value of map '%s'",
                env_.maps[region - kRegionMap0]->spec().name.c_str());
  }

  Result<void> check_pointer(u32 pc, const Reg &b, unsigned regno,
                             bool write) {
    switch (b.kind) {
    case Kind::Uninit:
      return fail(pc, "%s is not initialised", reg_name(regno));
    case Kind::Mixed:
      return fail(pc, "%s holds different kinds of value on different paths",
                  reg_name(regno));
    case Kind::Scalar:
      return fail(pc, "%s is a number, not a pointer", reg_name(regno));
    case Kind::MapHandle:
      return fail(pc, "%s is a map handle; its memory is not addressable",
                  reg_name(regno));
    case Kind::Ptr:
      break;
    }
    if (b.maybe_null)
      return fail(pc, "%s may be null (compare it with 0 first)",
                  reg_name(regno));
    if (write && b.region == kRegionCtx && !env_.ctx_writable)
      return fail(pc, "the probe context is read-only");
    if (write && b.region >= kRegionMap0 && b.region != kSomeRegion &&
        env_.maps[b.region - kRegionMap0]->spec().read_only)
      return fail(pc, "map '%s' is read-only",
                  env_.maps[b.region - kRegionMap0]->spec().name.c_str());
    return {};
  }

  // An access of `w` bytes at b + off.  For the stack, updates the slots
  // (store) or produces the loaded register (load).
  Result<void> access(State &s, u32 pc, const Reg &b, unsigned regno, i64 off,
                      unsigned w, bool write, Reg *loaded, const Reg *stored,
                      bool atomic) {
    MK_TRY(check_pointer(pc, b, regno, write));
    if (loaded)
      *loaded = scalar();
    if (!b.known) {
      if (atomic)
        return fail(pc, "an atomic access needs a pointer with a known "
                        "offset");
      note_check(pc, b.region == kSomeRegion ? Check::AnyRegion : Check::Region,
                 b.region, write);
      if (write && (b.region == kRegionStack || b.region == kSomeRegion))
        for (Frame &f : s.f) // any slot may have been overwritten
          for (Slot &sl : f.s)
            sl.spill = false, sl.reg = Reg{}, sl.known = 0, sl.bytes = 0;
      return {};
    }
    const i64 o = b.val + off;
    if (b.region != kRegionStack) {
      const u64 size = region_size(s, b.region);
      if (o < 0 || (u64)o + w > size)
        return fail(pc, "%s %u bytes at offset %lld is outside %s (%llu "
                        "bytes)", write ? "writing" : "reading", w,
                    (long long)o, region_name(b.region).c_str(),
                    (unsigned long long)size);
      if (atomic && o % w)
        return fail(pc, "atomic access at offset %lld is not aligned to %u",
                    (long long)o, w);
      note_check(pc, Check::None, 0, write);
      return {};
    }
    // The stack: frame k spans [-(k+1)*512, -k*512) from the stack's top.
    const i64 lo = -(i64)(kFrameSize * s.f.size());
    if (o < lo || o + (i64)w > 0)
      return fail(pc, "%s %u bytes at %s%lld is outside the stack frames "
                      "[%lld, 0)", write ? "writing" : "reading", w,
                  o < 0 ? "-" : "+", (long long)(o < 0 ? -o : o),
                  (long long)lo);
    const i64 frame = (-o - 1) / (i64)kFrameSize;
    const i64 top = -frame * (i64)kFrameSize;
    if (o + (i64)w > top)
      return fail(pc, "the access crosses a stack frame's boundary");
    if (atomic && (o % w))
      return fail(pc, "atomic access at %lld is not aligned to %u",
                  (long long)o, w);
    note_check(pc, Check::None, 0, write);
    Frame &f = s.f[frame];
    const i64 rel = o - top + kFrameSize; // bytes from the frame's bottom
    if (write) {
      const bool num = stored && stored->kind == Kind::Scalar && stored->known;
      for (unsigned k = 0; k < w; k++) {
        Slot &sl = f.s[(rel + k) / 8];
        const unsigned b = (rel + k) % 8;
        sl.init |= u8(1u << b);
        sl.spill = false;
        sl.reg = Reg{};
        sl.bytes &= ~(0xffull << (8 * b));
        if (num) { // the stored number's byte k (the engines are little-endian)
          sl.known |= u8(1u << b);
          sl.bytes |= (((u64)stored->val >> (8 * k)) & 0xff) << (8 * b);
        } else {
          sl.known &= u8(~(1u << b));
        }
      }
      if (stored && w == 8 && rel % 8 == 0 && !atomic) {
        Slot &sl = f.s[rel / 8];
        if (stored->kind != Kind::Scalar || stored->known) {
          sl.spill = true;
          sl.reg = *stored;
        }
      }
      return {};
    }
    for (unsigned k = 0; k < w; k++) {
      const Slot &sl = f.s[(rel + k) / 8];
      if (!(sl.init & (1u << ((rel + k) % 8))))
        return fail(pc, "reading %u bytes at %lld of the stack: byte %lld is "
                        "not initialised", w, (long long)o,
                    (long long)(o + k));
    }
    if (loaded && w == 8 && rel % 8 == 0 && f.s[rel / 8].spill)
      *loaded = f.s[rel / 8].reg;
    return {};
  }

  // The number in `w` bytes at stack offset `o` (from the top), when every
  // byte of it is known; the access was checked already.
  static bool stack_number(const State &s, i64 o, unsigned w, u64 *out) {
    const i64 frame = (-o - 1) / (i64)kFrameSize;
    const i64 rel = o + (frame + 1) * (i64)kFrameSize;
    if (o >= 0 || frame >= (i64)s.f.size() || rel + w > kFrameSize)
      return false; // a key across two frames: not worth knowing
    const Frame &f = s.f[frame];
    u64 v = 0;
    for (unsigned k = 0; k < w; k++) {
      const Slot &sl = f.s[(rel + k) / 8];
      const unsigned b = (rel + k) % 8;
      if (!(sl.known & (1u << b)))
        return false;
      v |= ((sl.bytes >> (8 * b)) & 0xff) << (8 * k);
    }
    *out = v;
    return true;
  }

  // What the lookup at `pc` learns about its key on this path.
  void note_key(const State &s, u32 pc, const Reg &k, u32 key_size) {
    InsnInfo &in = p_.info_[pc];
    u64 v = 0;
    const bool known = k.kind == Kind::Ptr && k.region == kRegionStack &&
                       k.known && key_size <= 8 &&
                       stack_number(s, k.val, key_size, &v);
    if (!known || (in.key_seen == InsnInfo::ConstKey && in.key != v)) {
      in.key_seen = InsnInfo::VaryingKey;
      in.key = 0;
    } else if (in.key_seen == InsnInfo::NoKey) {
      in.key_seen = InsnInfo::ConstKey;
      in.key = v;
    }
  }

  Result<Reg> read_reg(const State &s, u32 pc, unsigned r) {
    const Reg &x = s.f.back().r[r];
    if (x.kind == Kind::Uninit)
      return fail(pc, "%s is not initialised", reg_name(r));
    return x;
  }

  // A helper's memory argument: `size` bytes at register `regno`.
  Result<void> helper_mem(State &s, u32 pc, unsigned regno, u64 size,
                          bool write) {
    const Reg b = s.cur().r[regno];
    MK_TRY(check_pointer(pc, b, regno, write));
    if (!b.known)
      return fail(pc, "%s: a helper's memory argument needs a pointer with a "
                      "known offset", reg_name(regno));
    if (size == 0)
      return {};
    // Check (and, for the stack, mark) the range byte by byte in chunks.
    for (u64 done = 0; done < size;) {
      const unsigned w = size - done >= 8 ? 8 : 1;
      Reg dummy;
      MK_TRY(access(s, pc, b, regno, (i64)done, w, write,
                    write ? nullptr : &dummy, nullptr, false));
      done += w;
    }
    return {};
  }

  Result<void> call_helper(State &s, u32 pc) {
    const Insn &i = code_[pc];
    const Helper *h = env_.helper((u32)i.imm);
    int map = -1;
    for (unsigned k = 0; k < 5; k++) {
      const ArgType t = h->args[k];
      if (t == ArgType::None)
        break;
      const unsigned regno = k + 1;
      const Reg a = s.cur().r[regno];
      if (a.kind == Kind::Uninit)
        return fail(pc, "%s (argument %u of %s) is not initialised",
                    reg_name(regno), regno, h->name.c_str());
      switch (t) {
      case ArgType::None:
      case ArgType::Anything:
        break;
      case ArgType::Scalar:
      case ArgType::Size:
        if (a.kind != Kind::Scalar)
          return fail(pc, "%s (argument %u of %s) must be a number",
                      reg_name(regno), regno, h->name.c_str());
        if (t == ArgType::Size && !a.known)
          return fail(pc, "%s (argument %u of %s) must be a size known at "
                          "load time", reg_name(regno), regno,
                      h->name.c_str());
        break;
      case ArgType::Map:
        if (a.kind != Kind::MapHandle)
          return fail(pc, "%s (argument %u of %s) must be a map handle",
                      reg_name(regno), regno, h->name.c_str());
        map = a.region;
        {
          i32 &seen = p_.info_[pc].map;
          seen = seen == -1 || seen == map ? map : -2;
        }
        if ((h->id == kHelperMapUpdate || h->id == kHelperMapDelete) &&
            env_.maps[map]->spec().read_only)
          return fail(pc, "map '%s' is read-only",
                      env_.maps[map]->spec().name.c_str());
        break;
      case ArgType::MapKey:
      case ArgType::MapValue: {
        if (map < 0)
          return fail(pc, "helper %s: a key or value argument without a map",
                      h->name.c_str());
        const MapSpec &ms = env_.maps[map]->spec();
        MK_TRY(helper_mem(s, pc, regno,
                          t == ArgType::MapKey ? ms.key_size : ms.value_size,
                          false));
        if (t == ArgType::MapKey && h->id == kHelperMapLookup)
          note_key(s, pc, a, ms.key_size);
        break;
      }
      case ArgType::Mem:
      case ArgType::MemW: {
        const Reg n = k + 1 < 5 ? s.cur().r[regno + 1] : Reg{};
        if (k + 1 >= 5 || h->args[k + 1] != ArgType::Size)
          return fail(pc, "helper %s: a memory argument without a size",
                      h->name.c_str());
        if (n.kind != Kind::Scalar || !n.known)
          return fail(pc, "%s (argument %u of %s) must be a size known at "
                          "load time", reg_name(regno + 1), regno + 1,
                      h->name.c_str());
        if (n.val < 0 || n.val > (i64)kStackSize * 16)
          return fail(pc, "size %lld (argument %u of %s) is out of range",
                      (long long)n.val, regno + 1, h->name.c_str());
        MK_TRY(helper_mem(s, pc, regno, (u64)n.val, t == ArgType::MemW));
        break;
      }
      }
    }
    Frame &f = s.cur();
    for (unsigned r = 1; r <= 5; r++)
      f.r[r] = Reg{};
    if (h->ret == RetType::MapValueOrNull) {
      if (map < 0)
        return fail(pc, "helper %s returns a map value but takes no map",
                    h->name.c_str());
      const u32 id = pc + 1;
      // An older pointer from this same call site cannot be refined by a
      // check of the new one.
      for_id(s, id, [](Reg &r) { r.id = 0; });
      Reg r = ptr((u16)(kRegionMap0 + map), 0);
      r.maybe_null = true;
      r.id = id;
      f.r[0] = r;
    } else {
      f.r[0] = scalar();
    }
    return {};
  }

  Result<void> alu(State &s, u32 pc) {
    const Insn &i = code_[pc];
    const bool is64 = insn_class(i.code) == kALU64;
    const u8 op = alu_op(i.code);
    Frame &f = s.cur();
    Reg &d = f.r[i.dst];
    Reg src;
    if (op == kEND || op == kNEG) {
      src = scalar(0);
    } else if (i.code & kX) {
      auto r = read_reg(s, pc, i.src);
      if (!r)
        return r.take_error();
      src = *r;
    } else {
      src = scalar((u64)(i64)i.imm);
    }
    if (op != kMOV && d.kind == Kind::Uninit)
      return fail(pc, "%s is not initialised", reg_name(i.dst));
    if (op == kMOV) {
      if (is64 && i.off == 0) {
        d = src;
      } else if (src.kind == Kind::Scalar && src.known) {
        d = scalar(alu_eval(op, is64, 0, (u64)src.val, i.off, i.imm, false,
                            false));
      } else {
        d = scalar();
      }
      return {};
    }
    if (d.kind == Kind::Mixed && op != kMOV)
      d = scalar(); // a pointer or a number: either way now a number
    if (d.kind == Kind::Scalar && src.kind == Kind::Scalar) {
      if (d.known && src.known)
        d = scalar(alu_eval(op, is64, (u64)d.val, (u64)src.val, i.off, i.imm,
                            (i.code & kX) != 0, is64));
      else
        d = scalar();
      return {};
    }
    // Pointer arithmetic: only 64-bit add and subtract keep a pointer.
    const bool dptr = d.kind == Kind::Ptr, sptr = src.kind == Kind::Ptr;
    if ((dptr && d.maybe_null) || (sptr && src.maybe_null))
      return fail(pc, "arithmetic on a pointer that may be null");
    if (is64 && op == kADD && (dptr != sptr) &&
        (dptr ? src.kind == Kind::Scalar : d.kind == Kind::Scalar)) {
      const Reg p = dptr ? d : src, n = dptr ? src : d;
      Reg r = p;
      if (p.known && n.known)
        r.val = p.val + n.val;
      else
        r.known = false, r.val = 0;
      d = r;
      return {};
    }
    if (is64 && op == kSUB && dptr && src.kind == Kind::Scalar) {
      if (d.known && src.known)
        d.val -= src.val;
      else
        d.known = false, d.val = 0;
      return {};
    }
    if (is64 && op == kSUB && dptr && sptr && d.region == src.region &&
        d.known && src.known) {
      d = scalar((u64)(d.val - src.val));
      return {};
    }
    // Anything else turns pointers into numbers (never back).
    d = scalar();
    return {};
  }

  // The two successor states of a conditional jump; either may be absent
  // when the condition is decided at load time.
  Result<void> branch(State &s, u32 pc, std::optional<State> &taken,
                      std::optional<State> &fall) {
    const Insn &i = code_[pc];
    const bool is64 = insn_class(i.code) == kJMP;
    const u8 op = alu_op(i.code);
    auto a = read_reg(s, pc, i.dst);
    if (!a)
      return a.take_error();
    Reg b;
    if (i.code & kX) {
      auto r = read_reg(s, pc, i.src);
      if (!r)
        return r.take_error();
      b = *r;
    } else {
      b = scalar((u64)(i64)i.imm);
    }
    if (a->kind == Kind::Scalar && b.kind == Kind::Scalar && a->known &&
        b.known) {
      if (jmp_eval(op, is64, (u64)a->val, (u64)b.val))
        taken = s;
      else
        fall = s;
      return {};
    }
    taken = s;
    fall = s;
    // A null check refines every copy of the pointer.
    const bool zero = b.kind == Kind::Scalar && b.known && b.val == 0;
    if (is64 && zero && a->kind == Kind::Ptr && a->maybe_null &&
        (op == kJEQ || op == kJNE)) {
      State &null_s = op == kJEQ ? *taken : *fall;
      State &ptr_s = op == kJEQ ? *fall : *taken;
      const u32 id = a->id;
      if (id) {
        for_id(null_s, id, [](Reg &r) { r = scalar(0); });
        for_id(ptr_s, id, [](Reg &r) { r.maybe_null = false, r.id = 0; });
      } else {
        null_s.cur().r[i.dst] = scalar(0);
        ptr_s.cur().r[i.dst].maybe_null = false;
      }
      return {};
    }
    if (is64 && op == kJEQ && a->kind == Kind::Scalar && b.kind == Kind::Scalar &&
        b.known)
      taken->cur().r[i.dst] = b;
    if (is64 && op == kJNE && a->kind == Kind::Scalar && b.kind == Kind::Scalar &&
        b.known)
      fall->cur().r[i.dst] = b;
    return {};
  }

  struct Memo {
    u32 func;
    State in;
    std::optional<State> out;
  };

  // Analyses function `func` entered with `in`; returns the join of the
  // states at its exits (with its frame popped), or nothing if no path
  // returns.
  Result<std::optional<State>> analyze(u32 func, State in) {
    for (const Memo &m : memo_)
      if (m.func == func && m.in == in)
        return m.out;
    const u32 start = funcs_[func];
    const u32 end = func + 1 < funcs_.size() ? funcs_[func + 1] : (u32)code_.size();
    const State entry = in;
    std::map<u32, State> at;
    std::set<u32> work;
    std::optional<State> out;
    at.emplace(start, std::move(in));
    work.insert(start);
    // Jump targets and fall-throughs of conditional jumps start blocks.
    std::vector<bool> leader(end - start, false);
    leader[0] = true;
    for (u32 pc = start; pc < end; pc++) {
      if (second_[pc])
        continue;
      const Insn &i = code_[pc];
      const u8 cls = insn_class(i.code);
      if ((cls == kJMP || cls == kJMP32) && alu_op(i.code) != kCALL &&
          alu_op(i.code) != kEXIT) {
        leader[jump_target(pc) - start] = true;
        if (pc + 1 < end)
          leader[pc + 1 - start] = true;
      }
    }
    auto propagate = [&](u32 target, State &&st) {
      auto it = at.find(target);
      if (it == at.end()) {
        at.emplace(target, std::move(st));
        work.insert(target);
        return;
      }
      State j = join(it->second, st);
      if (!(j == it->second)) {
        it->second = std::move(j);
        work.insert(target);
      }
    };
    while (!work.empty()) {
      u32 pc = *work.begin();
      work.erase(work.begin());
      State s = at[pc];
      for (;;) {
        if (++steps_ > env_.max_analysis_steps)
          return fail(pc, "the program is too complex to verify (more than "
                          "%llu steps)",
                      (unsigned long long)env_.max_analysis_steps);
        p_.info_[pc].reached = true;
        const Insn &i = code_[pc];
        const u8 cls = insn_class(i.code);
        u32 next = pc + 1;
        Frame &f = s.cur();
        switch (cls) {
        case kALU:
        case kALU64:
          MK_TRY(alu(s, pc));
          break;
        case kLD: {
          Reg r;
          if (i.src == 0) {
            r = scalar((u64)(u32)i.imm | ((u64)(u32)code_[pc + 1].imm << 32));
          } else {
            const Map *m = env_.maps[i.imm];
            if (i.src == kPseudoMapHandle) {
              r = Reg{Kind::MapHandle};
              r.region = (u16)i.imm;
            } else {
              if (m->spec().type != MapType::Array)
                return fail(pc, "the address of a value is only available "
                                "for array maps, not map '%s'",
                            m->spec().name.c_str());
              const i32 off = code_[pc + 1].imm;
              if (off < 0 || (u32)off >= m->spec().value_size)
                return fail(pc, "offset %d is outside the value of map '%s' "
                                "(%u bytes)", off, m->spec().name.c_str(),
                            m->spec().value_size);
              r = ptr((u16)(kRegionMap0 + i.imm), off);
            }
          }
          f.r[i.dst] = r;
          next = pc + 2;
          break;
        }
        case kLDX: {
          const Reg b = f.r[i.src];
          Reg loaded;
          MK_TRY(access(s, pc, b, i.src, i.off, size_bytes(i.code), false,
                        &loaded, nullptr, false));
          if (mem_mode(i.code) == kMEMSX || size_bytes(i.code) < 8)
            loaded = scalar();
          s.cur().r[i.dst] = loaded;
          break;
        }
        case kST: {
          const Reg b = f.r[i.dst];
          const Reg v = scalar((u64)(i64)i.imm);
          MK_TRY(access(s, pc, b, i.dst, i.off, size_bytes(i.code), true,
                        nullptr, &v, false));
          break;
        }
        case kSTX: {
          const Reg b = f.r[i.dst];
          auto v = read_reg(s, pc, i.src);
          if (!v)
            return v.take_error();
          if (mem_mode(i.code) == kATOMIC) {
            const unsigned w = size_bytes(i.code);
            if (i.imm == kCMPXCHG && f.r[0].kind == Kind::Uninit)
              return fail(pc, "r0 is not initialised");
            // Atomics read and write: a pointer stored this way is lost.
            Reg dummy;
            MK_TRY(access(s, pc, b, i.dst, i.off, w, false, &dummy, nullptr,
                          true));
            const Reg sc = scalar();
            MK_TRY(access(s, pc, b, i.dst, i.off, w, true, nullptr, &sc, true));
            if (i.imm == kCMPXCHG)
              s.cur().r[0] = scalar();
            else if (i.imm & kFETCH)
              s.cur().r[i.src] = scalar();
          } else {
            const Reg val = *v;
            MK_TRY(access(s, pc, b, i.dst, i.off, size_bytes(i.code), true,
                          nullptr, &val, false));
          }
          break;
        }
        case kJMP:
        case kJMP32: {
          const u8 op = alu_op(i.code);
          if (op == kEXIT) {
            if (f.r[0].kind == Kind::Uninit)
              return fail(pc, "r0 is not initialised at exit");
            if (out)
              *out = join(*out, s);
            else
              out = s;
            goto next_block;
          }
          if (op == kCALL) {
            if (i.src == 0) {
              MK_TRY(call_helper(s, pc));
              break;
            }
            if (s.f.size() >= kMaxCallDepth)
              return fail(pc, "calls nest more than %u deep", kMaxCallDepth);
            const u32 callee = pc + 1 + i.imm;
            State cs = s;
            cs.f.emplace_back();
            Frame &nf = cs.f.back();
            for (unsigned r = 1; r <= 5; r++)
              nf.r[r] = f.r[r];
            nf.r[10] = ptr(kRegionStack, -(i64)kFrameSize * (i64)(cs.f.size() - 1));
            auto res = analyze(func_of_[callee], std::move(cs));
            if (!res)
              return res.take_error();
            if (!*res)
              goto next_block; // the callee never returns
            State back = std::move(**res);
            const Reg r0 = back.cur().r[0];
            back.f.pop_back();
            Frame &cf = back.cur();
            cf.r[0] = r0;
            for (unsigned r = 1; r <= 5; r++)
              cf.r[r] = Reg{};
            s = std::move(back);
            break;
          }
          if (op == kJA) {
            const u32 t = (u32)jump_target(pc);
            if (t <= pc)
              p_.info_[pc].back_edge = true;
            propagate(t, std::move(s));
            goto next_block;
          }
          std::optional<State> taken, fall;
          MK_TRY(branch(s, pc, taken, fall));
          const u32 t = (u32)jump_target(pc);
          if (taken) {
            if (t <= pc)
              p_.info_[pc].back_edge = true;
            propagate(t, std::move(*taken));
          }
          if (fall)
            propagate(pc + 1, std::move(*fall));
          goto next_block;
        }
        }
        if (next >= end)
          return fail(pc, "the function falls off its end");
        if (leader[next - start]) {
          propagate(next, std::move(s));
          goto next_block;
        }
        pc = next;
      }
    next_block:;
    }
    std::optional<State> result;
    if (out) {
      State r = std::move(*out);
      // What the caller sees: its frames as the callee left them.
      result = std::move(r);
    }
    memo_.push_back(Memo{func, entry, result});
    return result;
  }

  Program &p_;
  const std::vector<Insn> &code_;
  const Env &env_;
  const std::string &name_;
  std::vector<bool> second_;
  std::vector<u32> funcs_, func_of_;
  std::vector<std::vector<u32>> callees_;
  std::vector<Memo> memo_;
  u64 steps_ = 0;
};

Result<void> verify_program(Program &p, const Env &env, const std::string &name) {
  Verifier v(p, env, name);
  return v.run();
}

} // namespace mk::bpf
