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


#include <pthread.h>

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

// ---- reading a record

// Bytes from `p` to `end` (`end` may be "no limit": UINTPTR_MAX, for the
// kernel's own tables, which its link wrote).
inline u64 avail(const u8 *p, const u8 *end) {
  return (uintptr_t)end > (uintptr_t)p ? (uintptr_t)end - (uintptr_t)p : 0;
}

// A reader of [p, end): every field of a record is read through one.  A
// read past `end` yields zero, leaves the cursor at `end` and clears `ok`,
// so no length or count in a hostile record moves a read outside it; and
// every read consumes at least a byte, so a loop over a record ends.
struct Cursor {
  const u8 *p, *end;
  bool ok = true;

  u64 left() const { return avail(p, end); }
  bool fail() {
    ok = false;
    p = end;
    return false;
  }
  bool skip(u64 n) {
    if (left() < n)
      return fail();
    p += n;
    return true;
  }
  template <class T> T fixed() {
    T v{};
    if (left() < sizeof v) {
      fail();
      return v;
    }
    std::memcpy(&v, p, sizeof v);
    p += sizeof v;
    return v;
  }
  u64 uleb() {
    u64 v = 0;
    for (unsigned shift = 0;; shift += 7) {
      if (!left()) {
        fail();
        return 0;
      }
      const u8 b = *p++;
      if (shift < 64)
        v |= (u64)(b & 0x7f) << shift;
      if (!(b & 0x80))
        return v;
    }
  }
  i64 sleb() {
    u64 v = 0;
    for (unsigned shift = 0;; shift += 7) {
      if (!left()) {
        fail();
        return 0;
      }
      const u8 b = *p++;
      if (shift < 64)
        v |= (u64)(b & 0x7f) << shift;
      if (!(b & 0x80)) {
        if (shift + 7 < 64 && (b & 0x40))
          v |= ~0ull << (shift + 7);
        return (i64)v;
      }
    }
  }
};

// A record's first word (its length or CIE pointer field), where the
// record's bounds were checked already.
u32 rd_u32(const u8 *p) {
  u32 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// DW_EH_PE_* pointer encodings.
constexpr u8 kOmit = 0xff, kPcrel = 0x10, kDatarel = 0x30, kIndirect = 0x80;

// Read a pointer in encoding `enc`; `data` is the base of datarel values.
// False for an encoding not used in .eh_frame on x86, or an indirect one:
// nothing here follows a pointer a record holds.
bool encoded(Cursor &c, u8 enc, u64 data, u64 &out) {
  out = 0;
  if (enc == kOmit)
    return true;
  if (enc & kIndirect)
    return false;
  const u8 *field = c.p;
  u64 v;
  switch (enc & 0x0f) {
  case 0x00: v = kWord == 8 ? c.fixed<u64>() : c.fixed<u32>(); break; // absptr
  case 0x01: v = c.uleb(); break;
  case 0x02: v = c.fixed<u16>(); break;
  case 0x03: v = c.fixed<u32>(); break;
  case 0x04: v = c.fixed<u64>(); break;
  case 0x09: v = (u64)c.sleb(); break;
  case 0x0a: v = (u64)(i64)c.fixed<i16>(); break;
  case 0x0b: v = (u64)(i64)c.fixed<i32>(); break;
  case 0x0c: v = c.fixed<u64>(); break;
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
  out = v;
  return c.ok;
}

// ---- CIEs and FDEs
//
// The parsers serve the stack walker (which stops at the first thing it
// cannot follow) and the load-time check (which names it): each returns
// nullptr for a well-formed record, else what is wrong with it.

struct Cie {
  u64 code_align = 1;
  i64 data_align = 1;
  u32 ra_reg = kRa;
  u8 fde_enc = 0;
  bool has_aug_data = false; // 'z': FDEs carry augmentation data too
  const u8 *insns = nullptr, *insns_end = nullptr;
};

// What record_at() says at a zero length field: the end of the table.
constexpr const char *kTerminator = "a zero length (the table's end)";

// The record at `p`: its body [body, end) after the length field.
const char *record_at(const u8 *p, const u8 *limit, const u8 *&body,
                      const u8 *&end) {
  Cursor c{p, limit};
  u64 len = c.fixed<u32>();
  if (!c.ok)
    return "length field cut off by the section's end";
  if (len == 0)
    return kTerminator;
  if (len == 0xffffffffu) { // 64-bit DWARF
    len = c.fixed<u64>();
    if (!c.ok)
      return "length field cut off by the section's end";
  }
  body = c.p;
  if (len < 4)
    return "length too small for the CIE pointer field";
  if (c.left() < len)
    return "length runs past the section's end";
  end = body + len;
  return nullptr;
}

const char *parse_cie(const u8 *p, const u8 *limit, Cie &c) {
  const u8 *body, *end;
  if (const char *why = record_at(p, limit, body, end))
    return why;
  Cursor r{body, end};
  if (r.fixed<u32>() != 0)
    return "not a CIE";
  const u8 version = r.fixed<u8>();
  if (version != 1 && version != 3)
    return "CIE version not understood";
  const char *aug = (const char *)r.p;
  while (r.left() && *r.p)
    r.p++;
  if (!r.skip(1))
    return "augmentation string runs past the record";
  c.code_align = r.uleb();
  c.data_align = r.sleb();
  c.ra_reg = version == 1 ? r.fixed<u8>() : (u32)r.uleb();
  if (!r.ok)
    return "CIE header runs past the record";
  // "eh" (a word of GCC 2 vintage), then 'z' with its data, which every
  // later letter describes.
  if (aug[0] == 'e' && aug[1] == 'h') {
    aug += 2;
    r.skip(kWord);
  }
  if (*aug == 'z') {
    const u64 n = r.uleb();
    if (!r.ok || r.left() < n)
      return "augmentation data runs past the record";
    Cursor d{r.p, r.p + n};
    c.has_aug_data = true;
    for (aug++; *aug; aug++) {
      u64 ignored;
      switch (*aug) {
      case 'R': // how FDEs write their code range: read, never followed
        c.fde_enc = d.fixed<u8>();
        if (c.fde_enc == kOmit || (c.fde_enc & kIndirect))
          return "FDE pointer encoding not understood";
        break;
      case 'P': // the personality routine: skipped, never called
        if (!encoded(d, (u8)(d.fixed<u8>() & ~kIndirect), 0, ignored))
          return "personality encoding not understood";
        break;
      case 'L': // the FDEs' LSDA encoding: their data is skipped whole
        d.fixed<u8>();
        break;
      case 'S': // a signal frame: no data
        break;
      default:
        return "augmentation not understood";
      }
      if (!d.ok)
        return "augmentation data shorter than its letters need";
    }
    r.p += n;
  } else if (*aug) {
    return "augmentation not understood";
  }
  if (!r.ok)
    return "augmentation runs past the record";
  c.insns = r.p;
  c.insns_end = end;
  return nullptr;
}

// An FDE at `p` (its section is [start, limit); start null and limit
// UINTPTR_MAX: a table the kernel's own link wrote): its CIE, code range
// and instructions.
struct Fde {
  Cie cie;
  const u8 *cie_at = nullptr;
  u64 lo = 0, hi = 0;
  const u8 *insns = nullptr, *insns_end = nullptr;
};

// The CIE an FDE's CIE pointer field (at `body`) names: it counts back
// from the field and must stay inside the section.
const u8 *cie_of(const u8 *start, const u8 *body, u32 id) {
  if (id == 0 || (uintptr_t)body - (uintptr_t)start < id)
    return nullptr;
  return (const u8 *)((uintptr_t)body - id);
}

// The CIE an FDE names, kept from the FDE before: a compiler writes one
// CIE for a whole section's FDEs, which the load-time check would
// otherwise parse once per function.
struct CieCache {
  const u8 *at = nullptr;
  Cie cie;
};

const char *parse_fde(const u8 *start, const u8 *p, const u8 *limit,
                      Fde &f, CieCache *cache = nullptr) {
  const u8 *body, *end;
  if (const char *why = record_at(p, limit, body, end))
    return why;
  Cursor r{body, end};
  const u32 id = r.fixed<u32>();
  if (id == 0)
    return "a CIE, not an FDE";
  f.cie_at = cie_of(start, body, id);
  if (!f.cie_at)
    return "CIE pointer outside the section";
  if (cache && cache->at == f.cie_at) {
    f.cie = cache->cie;
  } else {
    if (const char *why = parse_cie(f.cie_at, limit, f.cie))
      return why;
    if (cache)
      *cache = CieCache{f.cie_at, f.cie};
  }
  u64 range;
  if (!encoded(r, f.cie.fde_enc, 0, f.lo) ||
      !encoded(r, f.cie.fde_enc & 0x0f, 0, range))
    return "code range runs past the record";
  f.hi = f.lo + range;
  if (f.hi < f.lo || (kWord == 4 && f.hi > 0x100000000ull))
    return "code range wraps around the address space";
  if (f.cie.has_aug_data && !r.skip(r.uleb()))
    return "augmentation data runs past the record";
  f.insns = r.p;
  f.insns_end = end;
  return nullptr;
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

// Run `[p, end)` until the location passes `target` (from `loc`): nullptr,
// or what stopped it (an instruction this interpreter does not know, an
// operand past the end, state saved too deep), with `at` on that
// instruction.  Every operand is read through a Cursor over [p, end), so
// the program ends within end - p instructions.
// A factored offset times the data alignment factor, wrapping as the
// machine's arithmetic does: a record's numbers are anyone's, and an
// offset no stack has fails the walk's bounds checks instead.
i64 scaled(u64 factored, i64 align) { return (i64)(factored * (u64)align); }

const char *run_cfa(const Cie &cie, const u8 *p, const u8 *end, u64 loc,
                    u64 target, State &s, const State &initial,
                    const u8 *&at) {
  constexpr int kMaxRemember = 8;
  State saved[kMaxRemember];
  int nsaved = 0;
  Cursor r{p, end};
  while (r.left()) {
    at = r.p;
    const u8 op = r.fixed<u8>();
    const u8 hi = op & 0xc0, low = op & 0x3f;
    if (hi == 0x40) { // advance_loc
      loc += low * cie.code_align;
      if (loc > target)
        return nullptr;
      continue;
    }
    if (hi == 0x80) { // offset
      const i64 off = scaled(r.uleb(), cie.data_align);
      if (Rule *rule = rule_for(s, low))
        *rule = Rule{Rule::Offset, off, 0};
      continue;
    }
    if (hi == 0xc0) { // restore
      if (Rule *rule = rule_for(s, low))
        *rule = initial_rule(initial, low);
      continue;
    }
    switch (op) {
    case 0x00: break; // nop
    case 0x01: {      // set_loc
      u64 v;
      if (!encoded(r, cie.fde_enc, 0, v))
        return "set_loc operand runs past the record";
      loc = v;
      if (loc > target)
        return nullptr;
      break;
    }
    case 0x02: case 0x03: case 0x04: { // advance_loc1/2/4
      const u64 d = op == 0x02 ? r.fixed<u8>()
                    : op == 0x03 ? r.fixed<u16>() : r.fixed<u32>();
      loc += d * cie.code_align;
      if (r.ok && loc > target)
        return nullptr;
      break;
    }
    case 0x05: case 0x11: case 0x14: case 0x15: { // offset_extended(_sf), val_offset(_sf)
      const u64 reg = r.uleb();
      const i64 off = (op == 0x05 || op == 0x14)
                          ? scaled(r.uleb(), cie.data_align)
                          : scaled((u64)r.sleb(), cie.data_align);
      if (Rule *rule = rule_for(s, reg))
        *rule = Rule{op <= 0x11 ? Rule::Offset : Rule::ValOffset, off, 0};
      break;
    }
    case 0x06: { // restore_extended
      const u64 reg = r.uleb();
      if (Rule *rule = rule_for(s, reg))
        *rule = initial_rule(initial, reg);
      break;
    }
    case 0x07: case 0x08: { // undefined, same_value
      const u64 reg = r.uleb();
      if (Rule *rule = rule_for(s, reg))
        *rule = Rule{op == 0x07 ? Rule::Undefined : Rule::Same, 0, 0};
      break;
    }
    case 0x09: { // register
      const u64 reg = r.uleb(), other = r.uleb();
      if (Rule *rule = rule_for(s, reg))
        *rule = Rule{Rule::Register, 0, (u32)other};
      break;
    }
    case 0x0a: // remember_state
      if (nsaved == kMaxRemember)
        return "remember_state nested deeper than 8";
      saved[nsaved++] = s;
      break;
    case 0x0b: // restore_state
      if (nsaved == 0)
        return "restore_state without remember_state";
      s = saved[--nsaved];
      break;
    case 0x0c: // def_cfa
      s.cfa_reg = (u32)r.uleb();
      s.cfa_off = (i64)r.uleb();
      s.cfa_ok = true;
      break;
    case 0x0d: // def_cfa_register
      s.cfa_reg = (u32)r.uleb();
      break;
    case 0x0e: // def_cfa_offset
      s.cfa_off = (i64)r.uleb();
      break;
    case 0x12: // def_cfa_sf
      s.cfa_reg = (u32)r.uleb();
      s.cfa_off = scaled((u64)r.sleb(), cie.data_align);
      s.cfa_ok = true;
      break;
    case 0x13: // def_cfa_offset_sf
      s.cfa_off = scaled((u64)r.sleb(), cie.data_align);
      break;
    case 0x0f: // def_cfa_expression
      r.skip(r.uleb());
      s.cfa_ok = false;
      break;
    case 0x10: case 0x16: { // expression, val_expression
      const u64 reg = r.uleb();
      r.skip(r.uleb());
      if (Rule *rule = rule_for(s, reg))
        *rule = Rule{Rule::Other, 0, 0};
      break;
    }
    case 0x2e: // GNU_args_size
      r.uleb();
      break;
    case 0x2f: { // GNU_negative_offset_extended
      const u64 reg = r.uleb();
      const i64 off = scaled(0 - r.uleb(), cie.data_align);
      if (Rule *rule = rule_for(s, reg))
        *rule = Rule{Rule::Offset, off, 0};
      break;
    }
    default:
      return "call-frame instruction not understood";
    }
    if (!r.ok)
      return "operand runs past the record";
  }
  return nullptr;
}

// The rules in effect at `pc` in the function the FDE at `fde_at`
// describes; its section is [start, limit) (see Fde).
bool rules_at(const u8 *start, const u8 *limit, const u8 *fde_at, u64 pc,
              State &s) {
  Fde f;
  if (parse_fde(start, fde_at, limit, f) || pc < f.lo || pc >= f.hi)
    return false;
  State initial;
  const u8 *at;
  if (run_cfa(f.cie, f.cie.insns, f.cie.insns_end, f.lo, ~0ull, initial,
              initial, at))
    return false;
  s = initial;
  return !run_cfa(f.cie, f.insns, f.insns_end, f.lo, pc, s, initial, at) &&
         f.cie.ra_reg == kRa;
}

} // namespace

// ---- tables -------------------------------------------------------------------------

bool parse_eh_frame(std::vector<CodeImage::Fde> &out, const u8 *at,
                    u64 size) {
  const u8 *limit = at + size;
  for (const u8 *p = at; p < limit;) {
    const u8 *body, *end;
    if (const char *why = record_at(p, limit, body, end))
      return why == kTerminator;
    if (rd_u32(body) != 0) {
      Fde f;
      if (parse_fde(at, p, limit, f))
        return false;
      if (f.hi > f.lo) // a zero-length FDE: a discarded function's
        out.push_back(CodeImage::Fde{f.lo, f.hi, p});
    }
    p = end;
  }
  return true;
}

bool find_fde(const u8 *at, u64 size, u64 pc, CodeImage::Fde &out) {
  const u8 *limit = at + size;
  for (const u8 *p = at; p < limit;) {
    const u8 *body, *end;
    if (record_at(p, limit, body, end))
      return false;
    if (rd_u32(body) != 0) {
      Fde f;
      if (parse_fde(at, p, limit, f))
        return false;
      if (pc >= f.lo && pc < f.hi) {
        out = CodeImage::Fde{f.lo, f.hi, p};
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
  const u8 *end = (const u8 *)UINTPTR_MAX;
  Cursor c{hdr + 4, end};
  u64 eh_frame, count;
  if (!encoded(c, hdr[1], (u64)(uintptr_t)hdr, eh_frame) ||
      !encoded(c, hdr[2], (u64)(uintptr_t)hdr, count))
    return false;
  // The sorted table: (initial location, FDE address) pairs, relative to
  // the header; linkers write it datarel|sdata4.
  if (hdr[3] != (kDatarel | 0x0b))
    return false;
  out.reserve(out.size() + count);
  for (u64 i = 0; i < count; i++) {
    u64 lo, fde;
    if (!encoded(c, hdr[3], (u64)(uintptr_t)hdr, lo) ||
        !encoded(c, hdr[3], (u64)(uintptr_t)hdr, fde))
      return false;
    Fde f;
    if (parse_fde(nullptr, (const u8 *)(uintptr_t)fde, end, f))
      return false;
    if (f.hi > f.lo)
      out.push_back(CodeImage::Fde{f.lo, f.hi, (const u8 *)(uintptr_t)fde});
  }
  return true;
}

// ---- the load-time check ------------------------------------------------------------

Result<void> check_eh_frame(const u8 *at, u64 size,
                            const std::vector<CodeRange> &code) {
  const u8 *limit = at + size;
  auto off = [&](const void *p) {
    return (unsigned long long)((uintptr_t)p - (uintptr_t)at);
  };
  // Where each CIE starts: an FDE's CIE pointer must name one of these.
  std::vector<const u8 *> cies;
  CieCache cie_cache;
  for (const u8 *p = at; p < limit;) {
    const u8 *body, *end;
    if (const char *why = record_at(p, limit, body, end)) {
      if (why == kTerminator)
        break; // what follows is no one's: every reader stops here
      return error(strf(".eh_frame record at 0x%llx: %s", off(p), why));
    }
    const u32 id = rd_u32(body);
    const char *kind = id == 0 ? "CIE" : "FDE";
    const u8 *bad = nullptr;
    const char *why = nullptr;
    if (id == 0) {
      Cie c;
      State s;
      if (!(why = parse_cie(p, limit, c)))
        why = run_cfa(c, c.insns, c.insns_end, 0, ~0ull, s, s, bad);
      cies.push_back(p);
    } else {
      const u8 *cie = cie_of(at, body, id);
      if (!cie)
        return error(strf(".eh_frame FDE at 0x%llx: CIE pointer 0x%x "
                          "outside the section",
                          off(p), id));
      if (!std::binary_search(cies.begin(), cies.end(), cie))
        return error(strf(".eh_frame FDE at 0x%llx: CIE pointer 0x%x aims "
                          "at 0x%llx, which is not a CIE",
                          off(p), id, off(cie)));
      Fde f;
      if (!(why = parse_fde(at, p, limit, f, &cie_cache))) {
        // Its code lies inside one of the module's code sections.
        const bool inside =
            f.hi == f.lo ||
            std::any_of(code.begin(), code.end(), [&](const CodeRange &r) {
              return f.lo >= r.lo && f.hi <= r.hi;
            });
        if (!inside)
          return error(strf(".eh_frame FDE at 0x%llx: code [0x%llx, 0x%llx) "
                            "is not the module's",
                            off(p), (unsigned long long)f.lo,
                            (unsigned long long)f.hi));
        State s;
        why = run_cfa(f.cie, f.insns, f.insns_end, f.lo, ~0ull, s, s, bad);
      }
    }
    if (why && bad)
      return error(strf(".eh_frame %s at 0x%llx: %s (opcode 0x%02x at "
                        "0x%llx)",
                        kind, off(p), why, *bad, off(bad)));
    if (why)
      return error(strf(".eh_frame %s at 0x%llx: %s", kind, off(p), why));
    p = end;
  }
  return {};
}

// ---- the walk -----------------------------------------------------------------------

namespace {

// The calling thread's stacks (unwind_set_thread_stacks); empty: unknown.
thread_local StackRange t_stack, t_altstack;

bool holds(const StackRange &r, uintptr_t a) { return a >= r.lo && a < r.hi; }

// What a walk from stack pointer `sp` may read: [sp, top).  On a thread
// whose stacks are known, up to the top of the one holding `sp`, and
// nothing if neither does (the stack pointer itself is wild); else a
// window above `sp`, the most a kernel thread's stack could hold.
uintptr_t stack_top(uintptr_t sp) {
  constexpr uintptr_t kMaxStack = 64u << 20;
  if (t_stack.hi || t_altstack.hi)
    return holds(t_stack, sp) ? t_stack.hi
           : holds(t_altstack, sp) ? t_altstack.hi : sp;
  return sp <= UINTPTR_MAX - kMaxStack ? sp + kMaxStack : UINTPTR_MAX;
}

// A word of the stack between `sp` and `top`, aligned: the only reads of
// the stack a walk makes.
MK_READS_RAW_STACK bool stack_word(uintptr_t addr, uintptr_t sp,
                                   uintptr_t top, uintptr_t &out) {
  if (addr < sp || addr % kWord || top - sp < kWord || addr > top - kWord)
    return false;
  out = *(const uintptr_t *)addr;
  return true;
}

} // namespace

void unwind_set_thread_stacks(StackRange stack, StackRange alt) {
  t_stack = stack;
  t_altstack = alt;
}

StackRange current_thread_stack() {
  pthread_attr_t a;
  if (pthread_getattr_np(pthread_self(), &a) != 0)
    return {};
  void *addr = nullptr;
  size_t size = 0;
  const bool ok = pthread_attr_getstack(&a, &addr, &size) == 0;
  pthread_attr_destroy(&a);
  if (!ok)
    return {};
  return StackRange{(uintptr_t)addr, (uintptr_t)addr + size};
}

bool caller_of_jump(const ProbeFrame &at, ProbeFrame &out) {
  const uintptr_t top = stack_top(at.sp);
  uintptr_t ra;
  if (!stack_word(at.sp, at.sp, top, ra) || !ra)
    return false;
  out.pc = real_return_address(ra, at.sp);
  out.pc_loc = at.sp;
  out.sp = at.sp + kWord;
  out.fp = at.fp;
  out.exact = false;
  return true;
}

namespace {

// One frame's unwind rule, from either table: the CFA (the caller's stack
// pointer) as a register plus an offset, the return address and the
// caller's frame pointer as offsets from it.
struct FrameRule {
  bool cfa_from_fp = false;
  intptr_t cfa_off = 0, ra_off = 0, fp_off = 0;
  enum { Kept, AtCfa, AtFp } fp_saved = Kept; // fp_off from the CFA or fp
};

// The rule .eh_frame's CFI gives at `at` (a module's records are read
// inside its .eh_frame; the kernel's table is its own link's).
bool cfi_rule(const CodeImage &img, u64 at, FrameRule &r) {
  CodeImage::Fde fde;
  State s;
  const u8 *start = img.eh_frame;
  const u8 *limit = start ? start + img.eh_frame_size
                          : (const u8 *)UINTPTR_MAX;
  if (!img.fde_at(at, fde) || !rules_at(start, limit, fde.at, at, s) ||
      !s.cfa_ok || s.ra.kind != Rule::Offset ||
      (s.cfa_reg != kSp && s.cfa_reg != kFp))
    return false;
  r.cfa_from_fp = s.cfa_reg == kFp;
  r.cfa_off = (intptr_t)s.cfa_off;
  r.ra_off = (intptr_t)s.ra.off;
  if (s.fp.kind == Rule::Offset) {
    r.fp_saved = FrameRule::AtCfa;
    r.fp_off = (intptr_t)s.fp.off;
  } else if (s.fp.kind != Rule::Same && s.fp.kind != Rule::Undefined) {
    return false;
  }
  return true;
}

// The rule a Linux module's ORC entry gives at `at`: a call frame only
// (not the end of the stack, not an interrupt's register frame).
bool orc_rule(const CodeImage &img, u64 at, FrameRule &r) {
  constexpr u8 kUndefined = 0, kPrevSp = 1, kBp = 4, kSp = 5, kCall = 0;
  CodeImage::Orc o;
  if (!img.orc_at(at, o) || o.end || o.type != kCall ||
      (o.sp_reg != kSp && o.sp_reg != kBp))
    return false;
  r.cfa_from_fp = o.sp_reg == kBp;
  r.cfa_off = o.sp_offset;
  r.ra_off = -(intptr_t)kWord;
  r.fp_off = o.bp_offset;
  if (o.bp_reg == kPrevSp)
    r.fp_saved = FrameRule::AtCfa;
  else if (o.bp_reg == kBp)
    r.fp_saved = FrameRule::AtFp;
  else if (o.bp_reg != kUndefined)
    return false;
  return true;
}

} // namespace

size_t unwind(const CodeMap &code, const ProbeFrame &from, u64 *pcs,
              size_t max) {
  // A frame larger than this is a broken rule: stop rather than read far
  // from the stack.
  constexpr uintptr_t kMaxFrame = 1u << 20;
  const uintptr_t top = stack_top(from.sp);
  uintptr_t pc = real_return_address(from.pc, from.pc_loc);
  uintptr_t sp = from.sp, fp = from.fp;
  bool exact = from.exact;
  size_t n = 0;
  // Each frame's CFA lies above the last one's (the stack only grows back
  // towards `top`), and there are at most `max`: the walk ends.
  while (n < max && pc) {
    // A return address is one past its call; look up the call.
    const u64 at = exact ? pc : pc - 1;
    const CodeImage *img = code.image_at(at);
    if (!img)
      break; // the kernel's stack ends where its code does
    pcs[n++] = pc;
    FrameRule r;
    if (img->orc_count ? !orc_rule(*img, at, r) : !cfi_rule(*img, at, r))
      break;
    const uintptr_t cfa = (r.cfa_from_fp ? fp : sp) + (uintptr_t)r.cfa_off;
    if (cfa <= sp || cfa - sp > kMaxFrame || cfa > top)
      break;
    const uintptr_t ra_loc = cfa + (uintptr_t)r.ra_off;
    uintptr_t ra, next_fp = fp;
    if (!stack_word(ra_loc, sp, top, ra))
      break;
    if (r.fp_saved != FrameRule::Kept &&
        !stack_word((r.fp_saved == FrameRule::AtCfa ? cfa : fp) +
                        (uintptr_t)r.fp_off,
                    sp, top, next_fp))
      break;
    pc = real_return_address(ra, ra_loc);
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
