// The stack walker (see unwind.h): an interpreter for the part of DWARF
// call-frame information x86 compilers emit.
//
// Per frame it needs three things: the canonical frame address (CFA, the
// stack pointer before the call that made the frame: always a register
// plus an offset in compiled code, the register being %rsp, or %rbp once
// a frame pointer is set up), where the return address was saved (CFA - 1
// word on x86), and where the caller's frame pointer was saved (if this
// function saved it), so that a caller with a frame pointer can be unwound
// in turn.  Every other register's rule is read and ignored.  A CFA given
// as a DWARF expression (stack realignment, PLT entries) ends the walk.
//
// DWARF register numbers: x86_64 %rbp 6, %rsp 7, return address 16; i386
// %esp 4, %ebp 5, return address 8.
#include "unwind.h"

#include "fbt.h"

#include <algorithm>
#include <cstring>

namespace mk {

namespace {

#if defined(__x86_64__)
constexpr unsigned kSp = 7, kFp = 6, kRa = 16;
#else
constexpr unsigned kSp = 4, kFp = 5, kRa = 8;
#endif
constexpr size_t kWord = sizeof(uintptr_t);

// ---- DWARF encodings

u64 uleb(const u8 *&p, const u8 *end) {
  u64 v = 0;
  unsigned shift = 0;
  while (p < end) {
    u8 b = *p++;
    if (shift < 64)
      v |= (u64)(b & 0x7f) << shift;
    shift += 7;
    if (!(b & 0x80))
      break;
  }
  return v;
}

i64 sleb(const u8 *&p, const u8 *end) {
  i64 v = 0;
  unsigned shift = 0;
  u8 b = 0;
  while (p < end) {
    b = *p++;
    if (shift < 64)
      v |= (i64)((u64)(b & 0x7f) << shift);
    shift += 7;
    if (!(b & 0x80))
      break;
  }
  if (shift < 64 && (b & 0x40))
    v |= -((i64)1 << shift);
  return v;
}

// Bytes from `p` to `end` (`end` may be "no limit": UINTPTR_MAX).
inline u64 avail(const u8 *p, const u8 *end) {
  return (uintptr_t)end > (uintptr_t)p ? (uintptr_t)end - (uintptr_t)p : 0;
}

template <class T> T rd(const u8 *p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// DW_EH_PE_* pointer encodings.
constexpr u8 kOmit = 0xff, kPcrel = 0x10, kDatarel = 0x30, kIndirect = 0x80;

// Read a pointer in encoding `enc`; `data` is the base of datarel values.
// False for an encoding not used in .eh_frame on x86.
bool encoded(const u8 *&p, const u8 *end, u8 enc, u64 data, u64 &out) {
  if (enc == kOmit) {
    out = 0;
    return true;
  }
  const u8 *field = p;
  u64 v;
  switch (enc & 0x0f) {
  case 0x00: // absptr
    if (avail(p, end) < kWord)
      return false;
    v = kWord == 8 ? rd<u64>(p) : rd<u32>(p);
    p += kWord;
    break;
  case 0x01: v = uleb(p, end); break;
  case 0x02: if (avail(p, end) < 2) return false; v = rd<u16>(p); p += 2; break;
  case 0x03: if (avail(p, end) < 4) return false; v = rd<u32>(p); p += 4; break;
  case 0x04: if (avail(p, end) < 8) return false; v = rd<u64>(p); p += 8; break;
  case 0x09: v = (u64)sleb(p, end); break;
  case 0x0a: if (avail(p, end) < 2) return false; v = (u64)(i64)rd<i16>(p); p += 2; break;
  case 0x0b: if (avail(p, end) < 4) return false; v = (u64)(i64)rd<i32>(p); p += 4; break;
  case 0x0c: if (avail(p, end) < 8) return false; v = rd<u64>(p); p += 8; break;
  default: return false;
  }
  switch (enc & 0x70) {
  case 0x00: break;
  case kPcrel: v += (u64)(uintptr_t)field; break;
  case kDatarel: v += data; break;
  default: return false;
  }
  if (kWord == 4)
    v &= 0xffffffffull;
  if (enc & kIndirect)
    v = *(const uintptr_t *)(uintptr_t)v;
  out = v;
  return true;
}

// ---- CIEs and FDEs

struct Cie {
  u64 code_align = 1;
  i64 data_align = 1;
  u32 ra_reg = kRa;
  u8 fde_enc = 0;
  bool has_aug_data = false; // 'z': FDEs carry augmentation data too
  const u8 *insns = nullptr, *insns_end = nullptr;
};

// The entry at `p`: its body [body, end) and the CIE pointer field; false
// at the zero terminator or if malformed.
bool entry_at(const u8 *p, const u8 *limit, const u8 *&body, const u8 *&end) {
  if (avail(p, limit) < 4)
    return false;
  u64 len = rd<u32>(p);
  body = p + 4;
  if (len == 0)
    return false;
  if (len == 0xffffffffu) { // 64-bit DWARF
    if (avail(p, limit) < 12)
      return false;
    len = rd<u64>(p + 4);
    body = p + 12;
  }
  if (avail(body, limit) < len || len < 4)
    return false;
  end = body + len;
  return true;
}

bool parse_cie(const u8 *p, const u8 *limit, Cie &c) {
  const u8 *body, *end;
  if (!entry_at(p, limit, body, end) || rd<u32>(body) != 0)
    return false;
  const u8 *q = body + 4;
  const u8 version = *q++;
  const char *aug = (const char *)q;
  while (q < end && *q)
    q++;
  if (q >= end)
    return false;
  q++;
  c.code_align = uleb(q, end);
  c.data_align = sleb(q, end);
  c.ra_reg = version == 1 ? *q++ : (u32)uleb(q, end);
  for (const char *a = aug; *a && q <= end; a++) {
    switch (*a) {
    case 'z': {
      u64 n = uleb(q, end);
      c.has_aug_data = true;
      // Everything after 'z' lives in the augmentation data.
      const u8 *data_end = q + n;
      for (const char *b = a + 1; *b; b++) {
        u64 ignored;
        if (*b == 'R')
          c.fde_enc = *q++;
        else if (*b == 'P') {
          u8 enc = *q++;
          if (!encoded(q, data_end, enc, 0, ignored))
            return false;
        } else if (*b == 'L')
          q++;
        else if (*b != 'S')
          return false;
      }
      q = data_end;
      a += std::strlen(a) - 1; // done with the string
      break;
    }
    case 'e': // "eh": a word of GCC 2 vintage
      if (a[1] != 'h')
        return false;
      q += kWord;
      a++;
      break;
    default:
      return false;
    }
  }
  if (q > end)
    return false;
  c.insns = q;
  c.insns_end = end;
  return true;
}

// An FDE at `p` (its section is [start, limit); start null: a table the
// kernel's own link wrote): its CIE, code range and instructions.  The
// CIE pointer comes from the file: it must point back into the section.
struct Fde {
  Cie cie;
  u64 lo = 0, hi = 0;
  const u8 *insns = nullptr, *insns_end = nullptr;
};

bool parse_fde(const u8 *start, const u8 *p, const u8 *limit, Fde &f) {
  const u8 *body, *end;
  if (!entry_at(p, limit, body, end))
    return false;
  const u32 id = rd<u32>(body);
  if (id == 0)
    return false; // a CIE
  if ((uintptr_t)body - (uintptr_t)start < id)
    return false; // before the section (or the address space)
  const u8 *cie = (const u8 *)((uintptr_t)body - id);
  if (!parse_cie(cie, limit, f.cie))
    return false;
  const u8 *q = body + 4;
  u64 range;
  if (!encoded(q, end, f.cie.fde_enc, 0, f.lo) ||
      !encoded(q, end, f.cie.fde_enc & 0x0f, 0, range))
    return false;
  f.hi = f.lo + range;
  if (f.cie.has_aug_data) {
    u64 n = uleb(q, end);
    q += n;
  }
  if (q > end)
    return false;
  f.insns = q;
  f.insns_end = end;
  return true;
}

// ---- running the CFA program

struct Rule {
  enum Kind : u8 { Same, Undefined, Offset, ValOffset, Register, Other } kind;
  i64 off;
  u32 reg;
};

struct State {
  u32 cfa_reg = kSp;
  i64 cfa_off = (i64)kWord;
  bool cfa_ok = true; // false: a CFA expression
  Rule fp{Rule::Same, 0, 0}, ra{Rule::Undefined, 0, 0};
};

// The two rules kept; nullptr for any other register.
Rule *rule_for(State &s, u64 reg) {
  return reg == kFp ? &s.fp : reg == kRa ? &s.ra : nullptr;
}
Rule initial_rule(const State &s, u64 reg) { return reg == kFp ? s.fp : s.ra; }

// Run `[p, end)` until the location passes `target` (from `loc`); false
// on an instruction this interpreter does not know.
bool run_cfa(const Cie &cie, const u8 *p, const u8 *end, u64 loc, u64 target,
             State &s, const State &initial) {
  constexpr int kMaxRemember = 8;
  State saved[kMaxRemember];
  int nsaved = 0;
  while (p < end) {
    u8 op = *p++;
    u8 hi = op & 0xc0, low = op & 0x3f;
    if (hi == 0x40) { // advance_loc
      loc += low * cie.code_align;
      if (loc > target)
        return true;
      continue;
    }
    if (hi == 0x80) { // offset
      i64 off = (i64)uleb(p, end) * cie.data_align;
      if (Rule *r = rule_for(s, low))
        *r = Rule{Rule::Offset, off, 0};
      continue;
    }
    if (hi == 0xc0) { // restore
      if (Rule *r = rule_for(s, low))
        *r = initial_rule(initial, low);
      continue;
    }
    switch (op) {
    case 0x00: break; // nop
    case 0x01: {      // set_loc
      u64 v;
      if (!encoded(p, end, cie.fde_enc, 0, v))
        return false;
      loc = v;
      if (loc > target)
        return true;
      break;
    }
    case 0x02: case 0x03: case 0x04: { // advance_loc1/2/4
      u64 d = op == 0x02 ? *p : op == 0x03 ? rd<u16>(p) : rd<u32>(p);
      p += op == 0x02 ? 1 : op == 0x03 ? 2 : 4;
      loc += d * cie.code_align;
      if (loc > target)
        return true;
      break;
    }
    case 0x05: case 0x11: case 0x14: case 0x15: { // offset_extended(_sf), val_offset(_sf)
      u64 reg = uleb(p, end);
      i64 off = (op == 0x05 || op == 0x14) ? (i64)uleb(p, end) * cie.data_align
                                           : sleb(p, end) * cie.data_align;
      if (Rule *r = rule_for(s, reg))
        *r = Rule{op <= 0x11 ? Rule::Offset : Rule::ValOffset, off, 0};
      break;
    }
    case 0x06: { // restore_extended
      u64 reg = uleb(p, end);
      if (Rule *r = rule_for(s, reg))
        *r = initial_rule(initial, reg);
      break;
    }
    case 0x07: case 0x08: { // undefined, same_value
      u64 reg = uleb(p, end);
      if (Rule *r = rule_for(s, reg))
        *r = Rule{op == 0x07 ? Rule::Undefined : Rule::Same, 0, 0};
      break;
    }
    case 0x09: { // register
      u64 reg = uleb(p, end), other = uleb(p, end);
      if (Rule *r = rule_for(s, reg))
        *r = Rule{Rule::Register, 0, (u32)other};
      break;
    }
    case 0x0a: // remember_state
      if (nsaved == kMaxRemember)
        return false;
      saved[nsaved++] = s;
      break;
    case 0x0b: // restore_state
      if (nsaved == 0)
        return false;
      s = saved[--nsaved];
      break;
    case 0x0c: // def_cfa
      s.cfa_reg = (u32)uleb(p, end);
      s.cfa_off = (i64)uleb(p, end);
      s.cfa_ok = true;
      break;
    case 0x0d: // def_cfa_register
      s.cfa_reg = (u32)uleb(p, end);
      break;
    case 0x0e: // def_cfa_offset
      s.cfa_off = (i64)uleb(p, end);
      break;
    case 0x12: // def_cfa_sf
      s.cfa_reg = (u32)uleb(p, end);
      s.cfa_off = sleb(p, end) * cie.data_align;
      s.cfa_ok = true;
      break;
    case 0x13: // def_cfa_offset_sf
      s.cfa_off = sleb(p, end) * cie.data_align;
      break;
    case 0x0f: { // def_cfa_expression
      u64 n = uleb(p, end);
      p += n;
      s.cfa_ok = false;
      break;
    }
    case 0x10: case 0x16: { // expression, val_expression
      u64 reg = uleb(p, end), n = uleb(p, end);
      p += n;
      if (Rule *r = rule_for(s, reg))
        *r = Rule{Rule::Other, 0, 0};
      break;
    }
    case 0x2e: // GNU_args_size
      (void)uleb(p, end);
      break;
    case 0x2f: { // GNU_negative_offset_extended
      u64 reg = uleb(p, end);
      i64 off = -(i64)uleb(p, end) * cie.data_align;
      if (Rule *r = rule_for(s, reg))
        *r = Rule{Rule::Offset, off, 0};
      break;
    }
    default:
      return false;
    }
  }
  return true;
}

// The rules in effect at `pc` in the function an FDE describes.
bool rules_at(const u8 *fde_at, u64 pc, State &s) {
  Fde f;
  // The CIE and FDE lie in one loaded section; the length fields bound
  // every read, so no section end is needed here.
  const u8 *limit = (const u8 *)UINTPTR_MAX;
  if (!parse_fde(nullptr, fde_at, limit, f) || pc < f.lo || pc >= f.hi)
    return false;
  State initial;
  if (!run_cfa(f.cie, f.cie.insns, f.cie.insns_end, f.lo, ~0ull, initial,
               initial))
    return false;
  s = initial;
  return run_cfa(f.cie, f.insns, f.insns_end, f.lo, pc, s, initial) &&
         f.cie.ra_reg == kRa;
}

} // namespace

// ---- tables -------------------------------------------------------------------------

bool parse_eh_frame(std::vector<CodeImage::Fde> &out, const u8 *at,
                    u64 size) {
  const u8 *limit = at + size;
  // Consecutive FDEs share their CIE: read it once.
  const u8 *cie_at = nullptr;
  Cie cie;
  for (const u8 *p = at; p < limit;) {
    const u8 *body, *end;
    if (!entry_at(p, limit, body, end))
      return avail(p, limit) < 4 || rd<u32>(p) == 0; // the terminator, or the end
    const u32 id = rd<u32>(body);
    if (id != 0) {
      // The CIE pointer comes from the file: back into the section.
      if ((uintptr_t)body - (uintptr_t)at < id)
        return false;
      const u8 *c = (const u8 *)((uintptr_t)body - id);
      if (c != cie_at) {
        if (!parse_cie(c, limit, cie))
          return false;
        cie_at = c;
      }
      const u8 *q = body + 4;
      u64 lo, range;
      if (!encoded(q, end, cie.fde_enc, 0, lo) ||
          !encoded(q, end, cie.fde_enc & 0x0f, 0, range))
        return false;
      if (range) // a zero-length FDE: a discarded function's
        out.push_back(CodeImage::Fde{lo, lo + range, p});
    }
    p = end;
  }
  return true;
}

bool find_fde(const u8 *at, u64 size, u64 pc, CodeImage::Fde &out) {
  const u8 *limit = at + size;
  const u8 *cie_at = nullptr;
  Cie cie;
  for (const u8 *p = at; p < limit;) {
    const u8 *body, *end;
    if (!entry_at(p, limit, body, end))
      return false;
    const u32 id = rd<u32>(body);
    if (id != 0) {
      const u8 *c = body - id;
      if (c != cie_at) {
        if (!parse_cie(c, limit, cie))
          return false;
        cie_at = c;
      }
      const u8 *q = body + 4;
      u64 lo, range;
      if (!encoded(q, end, cie.fde_enc, 0, lo) ||
          !encoded(q, end, cie.fde_enc & 0x0f, 0, range))
        return false;
      if (pc >= lo && pc - lo < range) {
        out = CodeImage::Fde{lo, lo + range, p};
        return true;
      }
    }
    p = end;
  }
  return false;
}

bool parse_eh_frame_hdr(std::vector<CodeImage::Fde> &out, const u8 *hdr) {
  // version, eh_frame_ptr encoding, fde_count encoding, table encoding.
  if (hdr[0] != 1)
    return false;
  const u8 *p = hdr + 4;
  const u8 *end = (const u8 *)UINTPTR_MAX;
  u64 eh_frame, count;
  if (!encoded(p, end, hdr[1], (u64)(uintptr_t)hdr, eh_frame) ||
      !encoded(p, end, hdr[2], (u64)(uintptr_t)hdr, count))
    return false;
  // The sorted table: (initial location, FDE address) pairs, relative to
  // the header; linkers write it datarel|sdata4.
  if (hdr[3] != (kDatarel | 0x0b))
    return false;
  out.reserve(out.size() + count);
  for (u64 i = 0; i < count; i++) {
    u64 lo, fde;
    if (!encoded(p, end, hdr[3], (u64)(uintptr_t)hdr, lo) ||
        !encoded(p, end, hdr[3], (u64)(uintptr_t)hdr, fde))
      return false;
    Fde f;
    if (!parse_fde(nullptr, (const u8 *)(uintptr_t)fde, end, f))
      return false;
    if (f.hi > f.lo)
      out.push_back(CodeImage::Fde{f.lo, f.hi, (const u8 *)(uintptr_t)fde});
  }
  return true;
}

// ---- the walk -----------------------------------------------------------------------

size_t unwind(const CodeMap &code, const ProbeFrame &from, u64 *pcs,
              size_t max) {
  // A frame larger than this, or a stack deeper, is a broken rule: stop
  // rather than read far from the stack.
  constexpr uintptr_t kMaxFrame = 1u << 20, kMaxStack = 64u << 20;
  uintptr_t pc = fbt_real_return(from.pc, from.pc_loc);
  uintptr_t sp = from.sp, fp = from.fp;
  bool exact = from.exact;
  size_t n = 0;
  while (n < max && pc) {
    // A return address is one past its call; look up the call.
    const u64 at = exact ? pc : pc - 1;
    const CodeImage *img = code.image_at(at);
    if (!img)
      break; // the kernel's stack ends where its code does
    pcs[n++] = pc;
    CodeImage::Fde fde;
    State s;
    if (!img->fde_at(at, fde) || !rules_at(fde.at, at, s) || !s.cfa_ok ||
        s.ra.kind != Rule::Offset)
      break;
    uintptr_t base;
    if (s.cfa_reg == kSp)
      base = sp;
    else if (s.cfa_reg == kFp)
      base = fp;
    else
      break;
    const uintptr_t cfa = base + (uintptr_t)s.cfa_off;
    if (cfa <= sp || cfa - sp > kMaxFrame || cfa - from.sp > kMaxStack)
      break;
    const uintptr_t ra_loc = cfa + (uintptr_t)s.ra.off;
    if (ra_loc < sp || ra_loc % kWord)
      break;
    uintptr_t next_fp = fp;
    if (s.fp.kind == Rule::Offset) {
      const uintptr_t fp_loc = cfa + (uintptr_t)s.fp.off;
      if (fp_loc < sp || fp_loc % kWord)
        break;
      next_fp = *(const uintptr_t *)fp_loc;
    } else if (s.fp.kind != Rule::Same && s.fp.kind != Rule::Undefined) {
      break;
    }
    pc = fbt_real_return(*(const uintptr_t *)ra_loc, ra_loc);
    sp = cfa;
    fp = next_fp;
    exact = false;
  }
  return n;
}

// The caller's frame: its return address, the stack pointer it returns
// to, and the frame pointer register as it is (this function does not
// touch it).  Written in assembly so no prologue comes first.
#if defined(__x86_64__)
asm(R"(
  .text
  .globl mk_current_frame
  .type mk_current_frame, @function
mk_current_frame:
  .cfi_startproc
  mov (%rsp), %rax
  mov %rax, 0(%rdi)      # pc: our return address
  lea (%rsp), %rax
  mov %rax, 8(%rdi)      # pc_loc
  lea 8(%rsp), %rax
  mov %rax, 16(%rdi)     # sp after our return
  mov %rbp, 24(%rdi)     # fp
  movb $0, 32(%rdi)      # a return address, not exact
  ret
  .cfi_endproc
  .size mk_current_frame, .-mk_current_frame
)");
#else
asm(R"(
  .text
  .globl mk_current_frame
  .type mk_current_frame, @function
mk_current_frame:
  .cfi_startproc
  mov 4(%esp), %edx      # out
  mov (%esp), %eax
  mov %eax, 0(%edx)
  lea (%esp), %eax
  mov %eax, 4(%edx)
  lea 4(%esp), %eax
  mov %eax, 8(%edx)
  mov %ebp, 12(%edx)
  movb $0, 16(%edx)
  ret
  .cfi_endproc
  .size mk_current_frame, .-mk_current_frame
)");
#endif
static_assert(offsetof(ProbeFrame, pc) == 0 &&
              offsetof(ProbeFrame, pc_loc) == kWord &&
              offsetof(ProbeFrame, sp) == 2 * kWord &&
              offsetof(ProbeFrame, fp) == 3 * kWord &&
              offsetof(ProbeFrame, exact) == 4 * kWord,
              "mk_current_frame writes ProbeFrame's layout");

} // namespace mk
