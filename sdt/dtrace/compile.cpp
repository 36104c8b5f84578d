// From the syntax tree and the probes each clause matched to a Program the
// consumer runs: type checking (integers of 4 and 8 bytes, strings), one
// bytecode sequence per clause, the layout of the clause's records, and the
// aggregations' definitions, which every use must agree on.
//
// A clause compiles to
//
//   [predicate] PRED  [RESERVE]  { <action> }  [COMMIT]  RET
//
// where a recording action pushes its values and moves them into the
// record, and an aggregation pushes its keys and value and updates the
// firing thread's table.  A keyless count() becomes COUNT0, one increment;
// a clause that is nothing but that is marked Fast::Count0 and never
// reaches the interpreter.  Which action an instruction belongs to (for
// "in action #2" in error messages) is kept beside the code, not in it.
#include "dtrace.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <optional>

namespace mk::dt {

namespace {

// What ++ and -- add to a value of type `t`: a pointer steps by what it
// points to (void * and char * by a byte), anything else by 1.
i64 step_of(const CType &t) {
  if (!t.pointer || !t.pointee || t.pointee->is_void)
    return 1;
  return std::max<i64>((i64)t.pointee->size(), 1);
}

bool is_int(Type t) {
  return t != Type::String && t != Type::Stack && t != Type::Void &&
         t != Type::Agg;
}
// 1- and 2-byte values, which C promotes to int before it computes.
bool is_small(Type t) {
  return t == Type::Int8 || t == Type::Int16 || t == Type::UInt8 ||
         t == Type::UInt16;
}
bool is_64(Type t) { return t == Type::Int64 || t == Type::UInt64; }
bool is_unsigned(Type t) {
  return t == Type::UInt8 || t == Type::UInt16 || t == Type::UInt32 ||
         t == Type::UInt64;
}
int int_bytes(Type t) {
  switch (t) {
  case Type::Int8: case Type::UInt8: return 1;
  case Type::Int16: case Type::UInt16: return 2;
  case Type::Int32: case Type::UInt32: return 4;
  default: return 8;
  }
}

// The type of a binary operation on integers of types a and b, as DTrace
// gives it: the wider of the two, unsigned if either of equal width is.
// (DTrace does not first promote char and short to int, as C would: a
// uint8_t plus an int8_t is a uint8_t.)  Values are computed in 64 bits
// and narrowed to their type only where stored or recorded.
Type promote(Type a, Type b) {
  const int wa = int_bytes(a), wb = int_bytes(b);
  if (wa != wb)
    return wa > wb ? a : b;
  return is_unsigned(a) ? a : b;
}

const char *type_name(Type t) {
  switch (t) {
  case Type::Int32: return "int";
  case Type::Int64: return "int64_t";
  case Type::String: return "string";
  case Type::Stack: return "stack";
  case Type::UInt32: return "uint32_t";
  case Type::UInt64: return "uint64_t";
  case Type::Int8: return "int8_t";
  case Type::Int16: return "int16_t";
  case Type::UInt8: return "uint8_t";
  case Type::UInt16: return "uint16_t";
  case Type::Void: return "void";
  case Type::Agg: return "aggregation";
  }
  return "?";
}

// A probe argument type that D reads as a string (args[N] of it is copied
// in like stringof(argN)).
bool string_argtype(const std::string &t) {
  std::string s;
  for (char c : t)
    if (c != ' ')
      s += c;
  return s == "char*" || s == "constchar*" || s == "string";
}

// An integer argument type's size and sign, from its C name: how args[N]
// of it is widened from the raw argument (a uintptr_t).  Unknown names are
// taken as 64-bit.
struct IntType {
  int bytes;
  bool is_signed;
};

IntType int_argtype(const std::string &t) {
  std::string s;
  for (char c : t)
    if (c != ' ' || (!s.empty() && s.back() != ' '))
      s += c;
  while (!s.empty() && s.back() == ' ')
    s.pop_back();
  if (s.rfind("const ", 0) == 0)
    s = s.substr(6);
  const int ptr = (int)sizeof(void *);
  if (s.find('*') != std::string::npos)
    return {ptr, false};
  static const struct {
    const char *name;
    int bytes; // 0: pointer-sized
    bool is_signed;
  } types[] = {
      {"char", 1, true},           {"signed char", 1, true},
      {"int8_t", 1, true},         {"unsigned char", 1, false},
      {"uint8_t", 1, false},       {"bool", 1, false},
      {"_Bool", 1, false},         {"short", 2, true},
      {"int16_t", 2, true},        {"unsigned short", 2, false},
      {"uint16_t", 2, false},      {"int", 4, true},
      {"signed", 4, true},         {"int32_t", 4, true},
      {"unsigned", 4, false},      {"unsigned int", 4, false},
      {"uint32_t", 4, false},      {"long", 0, true},
      {"ssize_t", 0, true},        {"intptr_t", 0, true},
      {"ptrdiff_t", 0, true},      {"unsigned long", 0, false},
      {"size_t", 0, false},        {"uintptr_t", 0, false},
      {"long long", 8, true},      {"int64_t", 8, true},
      {"unsigned long long", 8, false}, {"uint64_t", 8, false},
  };
  for (const auto &t : types)
    if (s == t.name)
      return {t.bytes ? t.bytes : ptr, t.is_signed};
  return {8, true};
}

class Compiler {
public:
  Compiler(ProgramAst &ast, const std::vector<std::vector<ProbeInfo>> &m,
           Program &out)
      : ast_(ast), matched_(m), prog_(out) {}

  Result<void> run();

private:
  Error sem(DTag tag, int line, const std::string &why) {
    static const DOrigin kNone;
    return d_error(origin_ ? *origin_ : kNone, line, tag, why);
  }
  Result<void> define_aggs();
  Result<void> clause(size_t i);
  Result<Type> expr(const Expr &e);
  Result<Type> type_of(const Expr &e);
  std::optional<Result<Type>> string_char(const Expr &e);
  Result<Type> call(const Expr &e); // a built-in function (builtins.cpp)
  Result<void> speculation_order(const Stmt &s, bool speculates, bool recorded,
                                 bool committed);
  // Store kids[1] into the variable kids[0]; with `value`, leave the
  // expression's value (Expr::Assign) on the stack.
  Result<Type> assign(const Expr &v, const Expr &x, int line, bool value,
                      bool post = false, ExprOp op = X_ADD);
  Result<void> take_scratch(const Expr &e);
  // floats: each argument's float_bytes( ) (none: no float arguments).
  Result<void> check_format(const Stmt &s, const Format &f,
                            const std::vector<Type> &args, bool printa,
                            size_t naggs = 1,
                            const std::vector<u8> *floats = nullptr);
  Result<i64> constant(const Expr &e);
  // The variable `e` names, defined on first use; keyed or not must agree.
  Result<const VarDef *> variable(const Expr &e);
  // The declaration of the variable `name` of `scope` (the parser keeps
  // one per name), or nullptr.
  const VarDecl *decl_of(VarScope scope, const std::string &name) const {
    for (const VarDecl &v : ast_.decls)
      if (v.scope == scope && v.name == name)
        return &v;
    for (const VarDecl &v : implicit_)
      if (v.scope == scope && v.name == name)
        return &v;
    return nullptr;
  }
  // Structs and unions.  A variable of one is held in 64-bit words, each
  // a D variable of the same scope and keys named "name#0", "name#1", ...;
  // a member is a run of bits in one word (no member crosses a word: each
  // lies aligned to its own size), read by a shift and an extension,
  // written by masking it into its word.
  // A Place in memory instead (ptr set: *p, p->x, p[i]): `off` bits
  // from the address `ptr` computes.
  static constexpr u32 kMaxSouVar = 4096; // bytes: 512 words
  struct Place {
    const Expr *root = nullptr; // the variable
    const Expr *ptr = nullptr;  // or the address
    CType type;                 // the member's type (the root's for it)
    u64 off = 0;                // bits from the root's start
    u64 width = 0;              // bits
    bool bitfield = false;
    u32 dim = 0;                // an array member's elements (of type)
  };
  // The type of `e` if it is a pointer.
  std::optional<CType> ptr_type(const Expr &e);
  // `e` may be computed twice: refused if that would change anything (an
  // assignment, ++, a function that keeps state or allocates).
  Result<void> once(const Expr &e, int line);
  // The float or double type of `e` (a variable, an element of an array
  // of them, a cast), or null; float_bytes( ): its size, or 0.
  const CType *float_type(const Expr &e) {
    const CType *t = nullptr;
    if (e.kind == Expr::Variable) {
      const VarDecl *d = decl_of(e.scope, e.name);
      t = d ? &d->type : nullptr;
    } else if (e.kind == Expr::Cast) {
      t = &e.ctype;
    }
    return t && t->is_float && !t->pointer ? t : nullptr;
  }
  u8 float_bytes(const Expr &e) {
    const CType *t = float_type(e);
    return t ? t->bytes : 0;
  }
  // `e` is a char * (a string where one is expected).
  bool is_char_ptr(const Expr &e) {
    auto t = ptr_type(e);
    return t && t->pointee && t->pointee->bytes == 1 && !t->pointee->sou &&
           !t->pointee->pointer && !t->pointee->is_void;
  }
  // p + i, p - i, p - q: scaled by the size of what p points to.
  Result<Type> ptr_arith(const Expr &e, const std::optional<CType> &l,
                         const std::optional<CType> &r);
  // The Place of *(base + index).
  Result<std::optional<Place>> element(const Expr &base, const Expr &index,
                                       const CType &ptr, int line);
  // Element `index` of the array member `a`: any index in memory, a
  // constant one in a variable's words.
  Result<std::optional<Place>> array_element(const Place &a, const Expr &index,
                                             int line);
  // The bytes a load or store of p moves (a bitfield's: its unit's).
  Result<u32> unit(const Place &p, int line);
  // The address of p (a memory Place) on the stack.
  Result<void> address(const Place &p);
  Result<void> store_mem(const Place &p, const std::function<Result<void>()> &value);
  // v = x, v undeclared and not yet used, x a pointer: v takes its type.
  void declare_ptr(const Expr &v, const CType &t);
  std::deque<ExprPtr> made_; // expressions made here (p + i for p[i])
  // alloca( )'s taint, as DTrace tracks it: a variable that holds a
  // pointer into alloca( )'s bytes is read as one wherever it is read, so
  // no variable may hold both such a pointer and any other value but 0,
  // in any clause.  By scope and name: kAllocaPtr, kOtherValue or both.
  enum : u8 { kAllocaPtr = 1, kOtherValue = 2 };
  std::map<std::pair<VarScope, std::string>, u8> alloca_use_;
  int clause_line_ = 1; // the clause being compiled: where DTrace names
                        // a variable used both ways
  // Whether `e`'s value points into alloca( )'s bytes.
  bool alloca_ptr(const Expr &e) const;
  // The variable `v` is assigned `x`: its use, checked.
  Result<void> alloca_assign(const Expr &v, const Expr &x, int line);
  // Translators: the one from `input`'s type to `out`'s struct, and a
  // member's translation of `input` (its expression with the parameter
  // replaced by `input`), or an error naming what is missing.
  Result<const Translator *> translator(const CType &out, const Expr &input,
                                        int line);
  Result<const Expr *> translated(const Translator &x, const std::string &member,
                                  const Expr &input, int line);
  // m of xlate<T>(e).m or xlate<T *>(e)->m: its translation, or null if
  // `m` is no such member.
  Result<const Expr *> xlate_member(const Expr &m);
  // Each translator's members, compiled once with a stand-in input (as
  // DTrace checks them where they are declared).
  Result<void> check_translators();
  static constexpr int kMaxXlateDepth = 16;
  static constexpr int kMaxXlateExpansions = 4096;
  int xlate_depth_ = 0, xlate_expansions_ = 0;
  // `e` as a Place: a struct or union variable, or a member of one;
  // none for anything else.
  Result<std::optional<Place>> place(const Expr &e);
  // The variable holding word `w` of p's root.
  const Expr &word(const Place &p, u64 w);
  Result<Type> load(const Place &p, int line);
  // Store `len` bits, which `value` leaves on the stack, at bit `off` of
  // p's root.
  Result<void> store_bits(const Place &p, u64 off, u64 len,
                          const std::function<Result<void>()> &value);
  Result<Type> assign_member(const Place &p, const Expr &x, int line,
                             bool value, bool post, ExprOp op);
  Result<void> copy_sou(const Place &dst, const Place &src);
  // v = src, v undeclared and not yet used: v takes src's struct type.
  void declare_sou(const Expr &v, const Place &src);
  // Words' variables, made once each (type_of( ) remembers by address).
  std::map<std::pair<const Expr *, u64>, ExprPtr> words_;
  // Struct and union variables a script declares by assigning one.
  std::deque<VarDecl> implicit_;
  // An associative array's key components, which every use must agree on.
  // Pushes them and says how many: a struct or union key is one per
  // 64 bits of it.
  Result<u16> keys(std::vector<VarDef> &defs, size_t var, const Expr &e);
  // The store into `v` of a value of type `t`: its type fixed, or checked.
  Result<void> store_type(std::vector<VarDef> &defs, size_t var,
                          const Expr &v, Type t, int line);
  // Types of the variables that scripts store strings in, before any
  // clause compiles (a clause may read one that a later clause stores).
  void infer_var_types();
  i64 var_imm(std::vector<VarDef> &defs, size_t i);
  std::vector<VarDef> locals_; // this-> variables (the program's)
  std::map<const Expr *, Type> types_; // type_of( )'s answers, per clause

  void emit(u8 op, u8 a = 0, u16 b = 0, u32 c = 0, i64 imm = 0) {
    code_->push_back(Insn{op, a, b, c, imm});
    sp_ += stack_effect(op, b);
    max_sp_ = std::max(max_sp_, sp_);
  }
  // What `op` does to the interpreter's value stack (kStackDepth entries,
  // unchecked at run time): the compiler tracks the height of every
  // instruction it emits and refuses a clause that would overflow it.
  static int stack_effect(u8 op, u16 b) {
    switch (op) {
    case OP_PUSH: case OP_ARG: case OP_STRARG: case OP_VAR: case OP_DUP:
      return 1;
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV: case OP_MOD:
    case OP_SHL: case OP_SHR: case OP_AND: case OP_OR: case OP_XOR:
    case OP_EQ: case OP_NE: case OP_LT: case OP_LE: case OP_GT: case OP_GE:
    case OP_SEQ: case OP_SNE: case OP_SLT: case OP_SLE: case OP_SGT:
    case OP_SGE: case OP_JZ: case OP_JNZ: case OP_POP: case OP_PRED:
    case OP_REC_INT: case OP_REC_STR: case OP_EXIT: case OP_SPECULATE:
    case OP_REC_MEM:
    case OP_SPECEND:
      return -1;
    case OP_BOUNDS: case OP_ALLOCA: case OP_LOAD:
      return 0;
    case OP_STRINGOF:
      return b ? -1 : 0;
    case OP_STORE: case OP_BCOPY:
      return -2;
    case OP_COPYIN:
      return -1;
    case OP_SPECULATION:
      return 1;
    case OP_AGG:
      return -(int)b - 1; // the keys and the value (count( ) has none)
    case OP_CALL:
    case OP_LDVAR:
      return 1 - (int)b;
    case OP_STVAR:
      return -1 - (int)b;
    default:
      return 0;
    }
  }
  u32 here() const { return (u32)code_->size(); }
  // A value about to be recorded or used as a key: cut to its type's
  // width (arithmetic ran in 64 bits; see promote( )).
  void narrow(Type t) {
    if (!is_int(t) || int_bytes(t) == 8)
      return;
    emit(is_unsigned(t) ? OP_ZEXT : OP_SEXT, (u8)(8 * int_bytes(t)));
  }

  ProgramAst &ast_;
  const std::vector<std::vector<ProbeInfo>> &matched_;
  Program &prog_;
  std::map<std::string, u32> agg_ids_;
  std::vector<Insn> *code_ = nullptr;
  const std::vector<ProbeInfo> *probes_ = nullptr; // the clause's
  u32 scratch_ = 0;
  int sp_ = 0, max_sp_ = 0; // value stack height, and the clause's highest
  std::vector<bool> key_types_set_;
  const DOrigin *origin_ = nullptr; // of the clause being compiled
};

Result<i64> Compiler::constant(const Expr &e) {
  if (e.kind == Expr::Int)
    return e.ival;
  if (e.kind == Expr::Unary && e.op == X_NEG) {
    auto v = constant(*e.kids[0]);
    if (!v)
      return v;
    return (i64)(0 - (u64)*v); // -INT64_MIN wraps, as at run time
  }
  return sem(DTag::D_SYNTAX, e.line, "expected an integer constant");
}

// OP_LDVAR's and OP_STVAR's imm for variable i of defs.
i64 Compiler::var_imm(std::vector<VarDef> &defs, size_t i) {
  VarDef &d = defs[i];
  if (d.scope != VarScope::Clause)
    return d.wide() ? (i64)i + 1 : 0;
  if (d.type != Type::String)
    return 0;
  if (d.strbuf < 0)
    d.strbuf = (i32)prog_.nlocal_strs++;
  return d.strbuf + 1;
}

Result<const VarDef *> Compiler::variable(const Expr &e) {
  const bool keyed = !e.kids.empty();
  if (keyed && e.scope == VarScope::Clause)
    return sem(DTag::D_DECL_LOCASSC, e.line,
               "clause-local variables are not associative arrays (" + e.near +
                   "[...]): use self-> or a global");
  std::vector<VarDef> &defs = e.scope == VarScope::Clause ? locals_ : prog_.vars;
  for (const VarDef &d : defs) {
    if (d.scope != e.scope || d.name != e.name)
      continue;
    if (d.keyed != keyed)
      return keyed ? sem(DTag::D_ARR_BADREF, e.line,
                         "cannot access scalar " + e.name +
                             " as an associative array")
                   : sem(DTag::D_IDENT_BADREF, e.line,
                         "associative array '" + e.name +
                             "' may not be referenced as scalar");
    return &d;
  }
  u32 n = 0;
  for (const VarDef &d : defs)
    n += d.scope == e.scope;
  if (e.scope == VarScope::Clause && n >= kMaxLocals)
    return sem(DTag::D_VAR_UNSUP, e.line, strf("more than %u clause-local variables", kMaxLocals));
  if (n >= 0xffff)
    return sem(DTag::D_VAR_UNSUP, e.line, "too many variables");
  VarDef d;
  d.name = e.name, d.scope = e.scope, d.keyed = keyed, d.number = n;
  if (e.name.find('#') != std::string::npos) { // a struct's word
    d.typed = true, d.type = Type::UInt64, d.bits = 64, d.is_signed = false;
  } else if (const VarDecl *v = decl_of(e.scope, e.name)) {
    d.typed = true;
    d.type = value_type(v->type);
    d.bits = v->type.string ? 64 : (u8)(v->type.bytes * 8);
    d.is_signed = v->type.is_signed;
    d.dim = v->dim;
  }
  defs.push_back(d);
  return &defs.back();
}

Result<void> Compiler::once(const Expr &e, int line) {
  std::function<bool(const Expr &)> effects = [&](const Expr &x) {
    if (x.kind == Expr::Assign)
      return true;
    if (x.kind == Expr::Call) {
      const BuiltinFn *f = find_builtin(x.name);
      if (f && ((f->flags & (BF_STATE | BF_DESTRUCTIVE)) ||
                f->how == BuiltinFn::Alloca ||
                f->how == BuiltinFn::Speculation))
        return true;
    }
    for (const ExprPtr &k : x.kids)
      if (effects(*k))
        return true;
    return false;
  };
  if (effects(e))
    return sem(DTag::D_OP_LVAL, line,
               "the keys or address of " + e.near + " are computed twice "
               "here: they may not change anything (++, =, rand( ), alloca( ))");
  return {};
}

Result<const Translator *> Compiler::translator(const CType &out,
                                                const Expr &input, int line) {
  // The input's type, named as a translator's declaration names it.
  std::string in;
  bool integer = false;
  if (auto t = ptr_type(input)) {
    in = t->name;
  } else {
    auto p = place(input);
    if (!p)
      return p.take_error();
    if (*p && (*p)->type.sou)
      in = (*p)->type.name;
    else
      integer = true, in = "int";
  }
  const Sou *want = out.pointer ? (out.pointee ? out.pointee->sou : nullptr)
                                : out.sou;
  for (const Translator &x : ast_.translators) {
    if (x.out.sou != want)
      continue;
    const bool int_in = !x.in.sou && !x.in.pointer && !x.in.string;
    if (x.in.name == in || (integer && int_in))
      return &x;
  }
  return sem(DTag::D_XLATE_NONE, line,
             "cannot translate from \"" + in + "\" to \"" +
                 (want ? want->name : out.name) + "\"");
}

Result<const Expr *> Compiler::translated(const Translator &x,
                                          const std::string &member,
                                          const Expr &input, int line) {
  for (const Translator::Member &m : x.members) {
    if (m.name != member)
      continue;
    // Each use expands the member's expression anew: bounded, as
    // translators using translators could multiply them without end.
    if (++xlate_expansions_ > kMaxXlateExpansions)
      return sem(DTag::D_XLATE_NONE, line,
                 strf("translators expanded more than %d times", kMaxXlateExpansions));
    MK_TRY(once(input, line)); // read once per use of the parameter
    // The member's expression, each read of the parameter the input
    // (p[i] of a pointer parameter its element).
    std::function<ExprPtr(const Expr &)> subst = [&](const Expr &e) {
      if (e.kind == Expr::Variable && e.scope == VarScope::Global &&
          e.name == x.param && e.kids.empty())
        return copy_expr(input);
      if (e.kind == Expr::Variable && e.scope == VarScope::Global &&
          e.name == x.param && e.kids.size() == 1) {
        auto c = std::make_unique<Expr>();
        c->kind = Expr::Call, c->name = "[]", c->line = e.line;
        c->near = e.near;
        c->kids.push_back(copy_expr(input));
        c->kids.push_back(subst(*e.kids[0]));
        return c;
      }
      auto c = copy_expr(e);
      c->kids.clear();
      for (const ExprPtr &k : e.kids)
        c->kids.push_back(subst(*k));
      return c;
    };
    made_.push_back(subst(*m.value));
    return made_.back().get();
  }
  return sem(DTag::D_XLATE_NOCONV, line,
             "translator does not define conversion for member: " + member);
}

Result<const Expr *> Compiler::xlate_member(const Expr &m) {
  if (m.kind != Expr::Member || m.kids[0]->kind != Expr::Xlate)
    return (const Expr *)nullptr;
  const Expr &x = *m.kids[0];
  auto xl = translator(x.ctype, *x.kids[0], m.line);
  if (!xl)
    return xl.take_error();
  if ((m.ival != 0) != x.ctype.pointer) // . of a struct, -> of a pointer
    return sem(DTag::D_OP_SOU, m.line,
               std::string("operator ") + (m.ival ? "->" : ".") +
                   " cannot be applied to " + x.near + " of type " +
                   x.ctype.name);
  const Sou *out = (*xl)->out.sou;
  if (!out->field(m.name))
    return sem(DTag::D_TYPE_MEMBER, m.line,
               m.name + " is not a member of " + out->name);
  return translated(**xl, m.name, *x.kids[0], m.line);
}

Result<void> Compiler::check_translators() {
  static const std::vector<ProbeInfo> kNone;
  std::vector<Insn> dry;
  // A dry compile: what the program uses is what its clauses use (the
  // library's translators read memory whether or not a clause does).
  const bool memory_used = prog_.memory_used;
  for (const Translator &x : ast_.translators) {
    origin_ = x.origin.get();
    // A stand-in for the input: (T)0 of a pointer or an integer type (a
    // struct input is checked where it is used).
    if (x.in.sou && !x.in.pointer)
      continue;
    auto in = std::make_unique<Expr>();
    in->kind = Expr::Cast, in->ctype = x.in, in->line = x.line;
    auto zero = std::make_unique<Expr>();
    zero->kind = Expr::Int, zero->line = x.line;
    in->kids.push_back(std::move(zero));
    made_.push_back(std::move(in));
    const Expr &input = *made_.back();
    for (const Translator::Member &m : x.members) {
      auto e = translated(x, m.name, input, m.line);
      if (!e)
        return e.take_error();
      probes_ = &kNone;
      code_ = &dry;
      auto t = type_of(**e);
      dry.clear();
      sp_ = max_sp_ = 0;
      if (!t)
        return t.take_error();
      // A pointer member from an integer, or the other way round.
      const Field *f = x.out.sou->field(m.name);
      auto pt = ptr_type(**e);
      const bool zero = (*e)->kind == Expr::Int && (*e)->ival == 0;
      // (An array member takes an array or a string: pr_fname = T->comm.)
      if (f && !f->type.sou && !f->dim && f->type.pointer != pt.has_value() &&
          !zero) {
        auto p = place(**e);
        const std::string got = pt                 ? pt->name
                                : p && *p && !(*p)->dim ? (*p)->type.name
                                                        : type_name(*t);
        return sem(DTag::D_XLATE_INCOMPAT, x.end_line,
                   "translator member " + m.name +
                       " definition uses incompatible types: \"" +
                       f->type.name + "\" = \"" + got + "\"");
      }
    }
  }
  types_.clear();
  prog_.strings.clear();
  prog_.memory_used = memory_used;
  return {};
}

Result<std::optional<Compiler::Place>> Compiler::place(const Expr &e) {
  if (e.kind == Expr::Unary && e.op == X_DEREF) { // *p
    auto t = ptr_type(*e.kids[0]);
    if (!t)
      return sem(DTag::D_DEREF_NONPTR, e.line,
                 "cannot dereference non-pointer type");
    if (!t->pointee || t->pointee->is_void)
      return sem(DTag::D_DEREF_NONPTR, e.line,
                 "cannot dereference a pointer to void");
    Place p;
    p.ptr = e.kids[0].get(), p.type = *t->pointee;
    p.width = p.type.size() * 8;
    return std::optional<Place>(p);
  }
  if (e.kind == Expr::Cast && e.ctype.sou && !e.ctype.pointer) {
    auto k = place(*e.kids[0]); // (struct s)v of a struct s v: v itself
    if (!k)
      return k;
    if (!*k || (*k)->type.sou != e.ctype.sou || (*k)->dim) {
      auto t = ptr_type(*e.kids[0]);
      return sem(DTag::D_CAST_INVAL, e.line,
                 "invalid cast expression: \"" +
                     (*k ? (*k)->type.name : t ? t->name : std::string("int")) +
                     "\" to \"" + e.ctype.name + "\"");
    }
    return k;
  }
  if (e.kind == Expr::Call && e.name == "[]") { // p[i] of any pointer
    auto x = xlate_member(*e.kids[0]);
    if (!x)
      return x.take_error();
    if (*x) { // xlate<T>(v)->m[i]: an element of what m translates to
      const Expr &xl = *e.kids[0]->kids[0];
      const Sou *out = xl.ctype.pointer ? xl.ctype.pointee->sou : xl.ctype.sou;
      const Field *f = out ? out->field(e.kids[0]->name) : nullptr;
      const Expr &i = *e.kids[1];
      if (f && f->dim && i.kind == Expr::Int && (i.ival < 0 || (u64)i.ival >= f->dim))
        return sem(DTag::D_ARR_BOUNDS, e.line,
                   strf("index outside array bounds: %lld, max is %u",
                        (long long)i.ival, f->dim));
      auto c = copy_expr(e);
      c->kids[0] = copy_expr(**x);
      made_.push_back(std::move(c));
      return place(*made_.back());
    }
    auto a = place(*e.kids[0]);
    if (!a)
      return a;
    if (*a && (*a)->dim) // s.b[i] of an array member
      return array_element(**a, *e.kids[1], e.line);
    auto t = ptr_type(*e.kids[0]);
    if (!t)
      return std::optional<Place>();
    return element(*e.kids[0], *e.kids[1], *t, e.line);
  }
  if (e.kind == Expr::Variable) {
    const VarDecl *d = decl_of(e.scope, e.name);
    if (d && d->type.pointer && e.kids.size() == 1 && !d->assoc &&
        d->dim == VarDecl::kNotArray) { // p[i] of a pointer variable
      auto base = copy_expr(e);
      base->kids.clear();
      made_.push_back(std::move(base));
      return element(*made_.back(), *e.kids[0], d->type, e.line);
    }
    if (!d || !d->type.sou)
      return std::optional<Place>();
    if (d->type.size() > kMaxSouVar)
      return sem(DTag::D_VAR_UNSUP, e.line,
                 strf("%s is %llu bytes: a struct or union variable holds %u "
                      "at most here", e.near.c_str(),
                      (unsigned long long)d->type.size(), kMaxSouVar));
    Place p;
    p.root = &e, p.type = d->type, p.width = d->type.size() * 8;
    return std::optional<Place>(p);
  }
  if (e.kind != Expr::Member || e.kids[0]->kind == Expr::Xlate)
    return std::optional<Place>(); // (a translated member is an expression)
  if (e.ival) { // p->x
    auto t = ptr_type(*e.kids[0]);
    if (t && t->pointee && !t->pointee->sou && !t->pointee->is_void)
      return sem(DTag::D_OP_SOU, e.line,
                 "operator -> cannot be applied to pointer to type \"" +
                     t->pointee->name + "\"; must be applied to a struct or "
                     "union pointer");
    if (!t)
      return sem(DTag::D_OP_PTR, e.line,
                 "operator -> must be applied to a pointer");
    if (!t->pointee || !t->pointee->sou)
      return sem(DTag::D_OP_PTR, e.line,
                 "operator -> must be applied to a pointer to a struct or "
                 "union (" + e.near + ")");
    if (!t->pointee->sou->complete)
      return sem(DTag::D_OP_INCOMPLETE, e.line,
                 "operator -> cannot be applied to a forward declaration: "
                 "no " + t->pointee->sou->name + " definition is available");
    const Field *f = t->pointee->sou->field(e.name);
    if (!f)
      return sem(DTag::D_TYPE_MEMBER, e.line,
                 e.name + " is not a member of " + t->pointee->sou->name);
    Place p;
    p.ptr = e.kids[0].get(), p.type = f->type, p.off = f->off;
    p.width = f->width(), p.bitfield = f->bits != 0, p.dim = f->dim;
    return std::optional<Place>(p);
  }
  auto base = place(*e.kids[0]);
  if (!base)
    return base;
  if (!*base) {
    if (auto pt = ptr_type(*e.kids[0])) // p.x where p is a pointer
      return sem(DTag::D_OP_SOU, e.line,
                 "operator . cannot be applied to type \"" + pt->name +
                     "\"; must be applied to a struct or union");
    return sem(DTag::D_OP_SOU, e.line,
               "operator . cannot be applied to " + e.kids[0]->near +
                   ": it is not a struct or union");
  }
  const CType &t = (*base)->type;
  if (!t.sou)
    return sem(DTag::D_OP_SOU, e.line,
               "operator . cannot be applied to type \"" + t.name +
                   "\"; must be applied to a struct or union");
  const Field *f = t.sou->field(e.name);
  if (!f)
    return sem(DTag::D_TYPE_MEMBER, e.line,
               e.name + " is not a member of " + t.sou->name);
  Place p = **base;
  p.type = f->type, p.off += f->off, p.width = f->width();
  p.bitfield = f->bits != 0, p.dim = f->dim;
  return std::optional<Place>(p);
}

const Expr &Compiler::word(const Place &p, u64 w) {
  // (Only a variable's Place has words: callers refuse one in memory.)
  ExprPtr &slot = words_[{p.root, w}];
  if (!slot) {
    slot = copy_expr(*p.root);
    slot->name += "#" + std::to_string(w);
  }
  return *slot;
}

Result<Type> Compiler::load(const Place &p, int line) {
  if (p.type.sou)
    return sem(DTag::D_OP_SOU, line,
               "a " + p.type.sou->name + " cannot be used as a value here "
               "(" + (p.root ? p.root : p.ptr)->near + "): use its members");
  if (p.dim && p.ptr) { // an array in memory is its address, as in C
    MK_TRY(address(p));
    return Type::UInt64;
  }
  if (p.dim)
    return sem(DTag::D_OP_SOU, line, "an array is read and written by its "
                                     "elements here");
  const bool sgn = p.type.is_signed && !p.type.pointer;
  if (p.ptr) {
    auto n = unit(p, line);
    if (!n)
      return n.take_error();
    MK_TRY(address(p));
    const bool part = p.bitfield && p.width < 8 * *n;
    emit(OP_LOAD, (u8)*n, sgn && !part);
    if (part) // at its unit's low end: members lie at whole bytes
      emit(sgn ? OP_SEXT : OP_ZEXT, (u8)p.width);
  } else {
    MK_TRY(expr(word(p, p.off / 64)));
    if (const u64 sh = p.off % 64) {
      emit(OP_PUSH, 0, 0, 0, (i64)sh);
      emit(OP_SHR, 1);
    }
    if (p.width < 64)
      emit(sgn ? OP_SEXT : OP_ZEXT, (u8)p.width);
  }
  if (!p.bitfield)
    return value_type(p.type);
  if (p.width > 32)
    return sgn ? Type::Int64 : Type::UInt64;
  return sgn ? Type::Int32 : Type::UInt32;
}

Result<void> Compiler::store_bits(const Place &p, u64 off, u64 len,
                                  const std::function<Result<void>()> &value) {
  const Expr &w = word(p, off / 64);
  auto d = variable(w);
  if (!d)
    return d.take_error();
  std::vector<VarDef> &defs = w.scope == VarScope::Clause ? locals_ : prog_.vars;
  const size_t i = *d - defs.data();
  if (len < 64) // the keys are computed again for the word's other bits
    MK_TRY(once(w, w.line));
  auto nk = keys(defs, i, w);
  if (!nk)
    return nk.take_error();
  MK_TRY(value());
  if (len < 64) { // into the word, the rest of it kept
    const u64 sh = off % 64;
    emit(OP_ZEXT, (u8)len);
    if (sh) {
      emit(OP_PUSH, 0, 0, 0, (i64)sh);
      emit(OP_SHL);
    }
    MK_TRY(keys(defs, i, w));
    emit(OP_LDVAR, (u8)w.scope, *nk, defs[i].number,
         var_imm(defs, i));
    emit(OP_PUSH, 0, 0, 0, (i64)~(((1ull << len) - 1) << sh));
    emit(OP_AND);
    emit(OP_OR);
  }
  emit(OP_STVAR, (u8)w.scope, *nk, defs[i].number,
       var_imm(defs, i));
  return {};
}

Result<void> Compiler::copy_sou(const Place &dst, const Place &src) {
  MK_TRY(once(*dst.root, dst.root->line)); // word by word
  MK_TRY(once(*src.root, src.root->line));
  for (u64 b = 0; b < dst.width;) {
    const u64 from = src.off + b, to = dst.off + b;
    const u64 len = std::min({dst.width - b, 64 - from % 64, 64 - to % 64});
    MK_TRY(store_bits(dst, to, len, [&]() -> Result<void> {
      MK_TRY(expr(word(src, from / 64)));
      if (from % 64) {
        emit(OP_PUSH, 0, 0, 0, (i64)(from % 64));
        emit(OP_SHR, 1);
      }
      return {};
    }));
    b += len;
  }
  return {};
}

static u64 pointee_size(const CType &p) {
  if (!p.pointee || p.pointee->is_void)
    return 1; // void *: bytes, as GNU C and DTrace count them
  return std::max<u64>(p.pointee->size(), 1);
}

static CType void_ptr() {
  CType v;
  v.is_void = true, v.bytes = 0, v.name = "void";
  return pointer_to(v);
}

std::optional<CType> Compiler::ptr_type(const Expr &e) {
  auto elem = [](const std::optional<CType> &b) -> std::optional<CType> {
    if (b && b->pointee && b->pointee->pointer)
      return *b->pointee;
    return std::nullopt;
  };
  switch (e.kind) {
  case Expr::Variable: {
    const VarDecl *d = decl_of(e.scope, e.name);
    if (!d || !d->type.pointer)
      return std::nullopt;
    if (!e.kids.empty() && !d->assoc && d->dim == VarDecl::kNotArray)
      return elem(d->type); // p[i]
    return d->type; // p, or an element of an array of pointers
  }
  case Expr::Cast:
    if (e.ctype.pointer)
      return e.ctype;
    return std::nullopt;
  case Expr::Call:
    if (e.name == "alloca" || e.name == "copyin")
      return void_ptr();
    if (e.name == "[]")
      return elem(ptr_type(*e.kids[0]));
    return std::nullopt;
  case Expr::Binary: {
    if (e.op != X_ADD && e.op != X_SUB)
      return std::nullopt;
    auto l = ptr_type(*e.kids[0]), r = ptr_type(*e.kids[1]);
    if (l && !r)
      return l;
    if (r && !l && e.op == X_ADD)
      return r;
    return std::nullopt;
  }
  case Expr::Ternary: {
    auto a = ptr_type(*e.kids[1]);
    return a ? a : ptr_type(*e.kids[2]);
  }
  case Expr::Assign: {
    auto a = ptr_type(*e.kids[0]);
    return a ? a : ptr_type(*e.kids[1]);
  }
  case Expr::Unary:
    if (e.op == X_DEREF)
      return elem(ptr_type(*e.kids[0]));
    if (e.op == X_ADDR) { // &p[i], &p->m: a pointer to the element
      auto p = place(*e.kids[0]);
      if (p && *p && (*p)->ptr && !(*p)->root && !(*p)->bitfield)
        return pointer_to((*p)->type);
    }
    return std::nullopt;
  case Expr::Member: {
    if (auto x = xlate_member(e); x && *x) // a translated member: its own
      return ptr_type(**x);
    auto p = place(e);
    if (p && *p && (*p)->dim && (*p)->ptr) // an array: its first element's
      return pointer_to((*p)->type);
    if (p && *p && (*p)->type.pointer)
      return (*p)->type;
    return std::nullopt;
  }
  default:
    return std::nullopt;
  }
}

Result<Type> Compiler::ptr_arith(const Expr &e, const std::optional<CType> &l,
                                 const std::optional<CType> &r) {
  // x op= y, x++ and x-- (as x = x op ...) with a pointer in them: DTrace
  // wants the left-hand side a pointer to something of known size.
  const bool vfptr = !l || !l->pointee || l->pointee->is_void;
  if ((e.near == "+=" || e.near == "-=") && vfptr)
    return sem(DTag::D_OP_VFPTR, e.line,
               "operator " + e.near +
                   " requires left-hand scalar operand of known size");
  if ((e.near == "++" || e.near == "--") && l && vfptr)
    return sem(DTag::D_OP_VFPTR, e.line,
               "operator " + e.near + " requires an operand of known size");
  auto operand = [&](const Expr &x) -> Result<void> {
    auto t = expr(x);
    if (!t)
      return t.take_error();
    if (!is_int(*t))
      return sem(DTag::D_OP_INCOMPAT, e.line,
                 "operator " + e.near + " cannot be applied to a pointer and a " +
                     type_name(*t));
    if (int_bytes(*t) < 8)
      narrow(*t);
    return {};
  };
  if (l && r) { // p - q: the elements between
    if (e.op != X_SUB || pointee_size(*l) != pointee_size(*r))
      return sem(DTag::D_OP_INCOMPAT, e.line,
                 strf("operands have incompatible types: \"%s\" %s \"%s\"",
                      l->name.c_str(), e.near.c_str(), r->name.c_str()));
    MK_TRY(operand(*e.kids[0]));
    MK_TRY(operand(*e.kids[1]));
    emit(OP_SUB);
    if (pointee_size(*l) > 1) {
      emit(OP_PUSH, 0, 0, 0, (i64)pointee_size(*l));
      emit(OP_DIV, 0);
    }
    return Type::Int64;
  }
  const CType &p = l ? *l : *r;
  // A void * has no element size to count in (DTrace refuses it).
  if (!p.pointee || p.pointee->is_void) {
    auto lt = type_of(*e.kids[0]), rt = type_of(*e.kids[1]);
    return sem(DTag::D_OP_INCOMPAT, e.line,
               strf("operands have incompatible types: \"%s\" %s \"%s\"",
                    l ? l->name.c_str() : lt ? type_name(*lt) : "?",
                    e.near.c_str(),
                    r ? r->name.c_str() : rt ? type_name(*rt) : "?"));
  }
  MK_TRY(operand(*e.kids[0]));
  if (!l && pointee_size(p) > 1) {
    emit(OP_PUSH, 0, 0, 0, (i64)pointee_size(p));
    emit(OP_MUL);
  }
  MK_TRY(operand(*e.kids[1]));
  if (l && pointee_size(p) > 1) {
    emit(OP_PUSH, 0, 0, 0, (i64)pointee_size(p));
    emit(OP_MUL);
  }
  emit(e.op == X_ADD ? OP_ADD : OP_SUB);
  return Type::UInt64;
}

Result<std::optional<Compiler::Place>>
Compiler::element(const Expr &base, const Expr &index, const CType &ptr,
                  int line) {
  if (!ptr.pointee || ptr.pointee->is_void)
    return sem(DTag::D_DEREF_NONPTR, line,
               "cannot dereference a pointer to void");
  auto add = std::make_unique<Expr>();
  add->kind = Expr::Binary, add->op = X_ADD, add->near = "+", add->line = line;
  add->kids.push_back(copy_expr(base));
  add->kids.push_back(copy_expr(index));
  made_.push_back(std::move(add));
  Place p;
  p.ptr = made_.back().get();
  p.type = *ptr.pointee;
  p.width = p.type.size() * 8;
  return std::optional<Place>(p);
}

Result<std::optional<Compiler::Place>>
Compiler::array_element(const Place &a, const Expr &index, int line) {
  const std::optional<i64> k =
      index.kind == Expr::Int ? std::optional<i64>(index.ival) : std::nullopt;
  if (k && (*k < 0 || *k >= (i64)a.dim))
    return sem(DTag::D_ARR_BOUNDS, line,
               strf("index outside array bounds: %lld, max is %u",
                    (long long)*k, a.dim));
  const u64 bits = a.type.size() * 8;
  if (!a.ptr) {
    if (!k)
      return sem(DTag::D_SYNTAX, line,
                 "an array member of a variable takes a constant index here");
    Place p = a;
    p.off += (u64)*k * bits, p.width = bits, p.dim = 0;
    return std::optional<Place>(p);
  }
  // In memory: (T *)((char *)ptr + offset), then element `index` of it.
  auto cast = [&](ExprPtr kid, const CType &to) {
    auto c = std::make_unique<Expr>();
    c->kind = Expr::Cast, c->line = line, c->near = "(" + to.name + ")";
    c->ctype = pointer_to(to);
    c->kids.push_back(std::move(kid));
    return c;
  };
  CType ch;
  ch.bytes = 1, ch.name = "char";
  auto add = std::make_unique<Expr>();
  add->kind = Expr::Binary, add->op = X_ADD, add->near = "+", add->line = line;
  add->kids.push_back(cast(copy_expr(*a.ptr), ch));
  auto off = std::make_unique<Expr>();
  off->kind = Expr::Int, off->ival = (i64)(a.off / 8), off->line = line;
  add->kids.push_back(std::move(off));
  made_.push_back(cast(std::move(add), a.type));
  const Expr &base = *made_.back();
  return element(base, index, base.ctype, line);
}

Result<u32> Compiler::unit(const Place &p, int line) {
  u64 n = p.type.size();
  if (p.bitfield)
    for (n = 1; n * 8 < p.width; n *= 2) {
    }
  if (p.dim)
    return sem(DTag::D_OP_SOU, line, "an array is read and written by its "
                                     "elements here");
  if (p.type.sou || p.type.string || (n != 1 && n != 2 && n != 4 && n != 8))
    return sem(DTag::D_OP_SOU, line,
               "a " + p.type.name + " in memory is read and written by its "
               "members here");
  return (u32)n;
}

Result<void> Compiler::address(const Place &p) {
  MK_TRY(expr(*p.ptr));
  if (p.off) {
    emit(OP_PUSH, 0, 0, 0, (i64)(p.off / 8));
    emit(OP_ADD);
  }
  prog_.memory_used = true;
  return {};
}

Result<void> Compiler::store_mem(const Place &p,
                                 const std::function<Result<void>()> &value) {
  auto n = unit(p, p.ptr->line);
  if (!n)
    return n.take_error();
  if (p.bitfield && p.width < 8 * *n) // the address is computed again
    MK_TRY(once(*p.ptr, p.ptr->line));
  MK_TRY(address(p));
  MK_TRY(value());
  if (p.bitfield && p.width < 8 * *n) { // its unit, the rest of it kept
    emit(OP_ZEXT, (u8)p.width);
    MK_TRY(address(p));
    emit(OP_LOAD, (u8)*n, 0);
    emit(OP_PUSH, 0, 0, 0, (i64)~((1ull << p.width) - 1));
    emit(OP_AND);
    emit(OP_OR);
  }
  emit(OP_STORE, (u8)*n);
  return {};
}

void Compiler::declare_ptr(const Expr &v, const CType &t) {
  if (decl_of(v.scope, v.name))
    return;
  for (const VarDef &d : v.scope == VarScope::Clause ? locals_ : prog_.vars)
    if (d.scope == v.scope && d.name == v.name)
      return;
  VarDecl d;
  d.scope = v.scope, d.name = v.name, d.type = t, d.line = v.line;
  d.assoc = !v.kids.empty(); // a[k] = p: an array of pointers
  implicit_.push_back(d);
}

void Compiler::declare_sou(const Expr &v, const Place &src) {
  if (!src.type.sou || decl_of(v.scope, v.name))
    return;
  for (const VarDef &d : v.scope == VarScope::Clause ? locals_ : prog_.vars)
    if (d.scope == v.scope && d.name == v.name)
      return; // already an integer or a string
  VarDecl d;
  d.scope = v.scope, d.name = v.name, d.type = src.type, d.line = v.line;
  implicit_.push_back(d);
}

Result<Type> Compiler::assign_member(const Place &p, const Expr &x, int line,
                                     bool value, bool post, ExprOp op) {
  if (p.type.sou) {
    auto src = place(x);
    if (!src)
      return src.take_error();
    if (!*src || (*src)->type.sou != p.type.sou) {
      auto t = type_of(x);
      return sem(DTag::D_OP_INCOMPAT, line,
                 strf("operands have incompatible types: \"%s\" = \"%s\"",
                      p.type.name.c_str(),
                      *src ? (*src)->type.name.c_str()
                      : t  ? type_name(*t)
                           : "?"));
    }
    if (value)
      return sem(DTag::D_OP_SOU, line, "a " + p.type.sou->name +
                                           " assignment has no value here");
    if (p.ptr || (*src)->ptr)
      return sem(DTag::D_OP_SOU, line,
                 "a " + p.type.sou->name + " in memory is read and written "
                 "by its members here");
    MK_TRY(copy_sou(p, **src));
    return Type::Int64;
  }
  if (p.dim)
    return sem(DTag::D_OP_SOU, line, "an array is read and written by its "
                                     "elements here");
  Type t = Type::Int64;
  auto store = [&](const std::function<Result<void>()> &v) {
    return p.ptr ? store_mem(p, v) : store_bits(p, p.off, p.width, v);
  };
  MK_TRY(store([&]() -> Result<void> {
    auto r = expr(x);
    if (!r)
      return r.take_error();
    if (!is_int(*r))
      return sem(DTag::D_OP_INCOMPAT, line,
                 strf("operands have incompatible types: \"%s\" = \"%s\"",
                      p.type.name.c_str(), type_name(*r)));
    if (int_bytes(*r) * 8 < (int)p.width)
      narrow(*r); // widened from the value its own type holds
    t = *r;
    return {};
  }));
  if (!value)
    return t;
  MK_TRY(once(p.ptr ? *p.ptr : *p.root, line)); // read back: computed again
  auto lt = load(p, line);
  if (!lt)
    return lt;
  if (post) { // s.x++ is worth s.x before
    emit(OP_PUSH, 0, 0, 0, step_of(p.type));
    emit(op == X_ADD ? OP_SUB : OP_ADD);
    if (p.width < 64)
      emit(p.type.is_signed && !p.type.pointer ? OP_SEXT : OP_ZEXT,
           (u8)p.width);
  }
  return lt;
}

// An undeclared variable takes the type of the first value stored in it,
// and its stores wrap at that width as a declared one's do.
void fix_type(VarDef &d, Type t) {
  d.type = is_small(t) ? Type::Int32 : t, d.typed = true;
  if (is_int(d.type) && int_bytes(d.type) < 8)
    d.bits = (u8)(8 * int_bytes(d.type)), d.is_signed = !is_unsigned(d.type);
}


Result<u16> Compiler::keys(std::vector<VarDef> &defs, size_t var,
                           const Expr &e) {
  if (e.kids.empty())
    return (u16)0;
  std::vector<Type> ks, as_written;
  std::vector<std::string> sous; // per key: its struct's or union's name
  if (e.kids.size() > kMaxKeys) // DTrace's words; its limit is the same
    return sem(DTag::D_UNKNOWN, 0, "Insufficient tuple registers to generate code");
  // A fixed-size array: one integer index, within its bounds (checked
  // here when it is a constant, as the program runs when not).
  const i64 dim = defs[var].dim;
  if (dim == VarDecl::kMultiDim)
    return sem(DTag::D_SYNTAX, e.line,
               "arrays of more than one dimension are not supported");
  if (dim != VarDecl::kNotArray && e.kids.size() > 1)
    return sem(DTag::D_ARR_BADREF, e.line,
               "cannot access scalar " + e.name + " as an associative array");
  if (dim != VarDecl::kNotArray && e.kids.size() != 1)
    return sem(DTag::D_PROTO_LEN, e.line,
               proto_len(e.name + "[ ]", e.kids.size(), 1, 1, "key"));
  for (const ExprPtr &k : e.kids) {
    auto p = place(*k);
    if (!p)
      return p.take_error();
    if (*p && (*p)->type.sou && (*p)->ptr)
      return sem(DTag::D_OP_SOU, k->line,
                 "a " + (*p)->type.name + " in memory is read and written by "
                 "its members here (" + k->near + ")");
    if (*p && (*p)->type.sou) { // its bits, 64 at a time
      MK_TRY(once(*k, k->line));
      for (u64 b = 0; b < (*p)->width; b += 64) {
        const u64 at = (*p)->off + b;
        const u64 len = std::min<u64>({(*p)->width - b, 64 - at % 64});
        MK_TRY(expr(word(**p, at / 64)));
        if (at % 64) {
          emit(OP_PUSH, 0, 0, 0, (i64)(at % 64));
          emit(OP_SHR, 1);
        }
        if (len < 64)
          emit(OP_ZEXT, (u8)len);
        ks.push_back(Type::Int64);
        as_written.push_back(Type::Int64);
      }
      sous.push_back((*p)->type.sou->name);
      continue;
    }
    auto t = expr(*k);
    if (!t)
      return t.take_error();
    if (dim != VarDecl::kNotArray && !is_int(*t))
      return sem(DTag::D_PROTO_ARG, e.line,
                 proto_arg(e.name + "[ ]", 1, "integer", type_name(*t), "key"));
    if (dim > 0 && k->kind == Expr::Int && (u64)k->ival >= (u64)dim)
      return sem(DTag::D_ARR_BOUNDS, e.line,
                 strf("index outside array bounds: %lld, max is %lld",
                      (long long)k->ival, (long long)dim));
    if (dim > 0 && k->kind != Expr::Int)
      emit(OP_BOUNDS, 0, 0, 0, dim);
    if (*t == Type::Stack)
      return sem(DTag::D_KEY_TYPE, k->line, "a stack( ) cannot be an associative "
                                   "array key");
    ks.push_back(is_int(*t) ? Type::Int64 : *t);
    as_written.push_back(*t);
    sous.emplace_back();
  }
  if (ks.size() > kMaxKeys)
    return sem(DTag::D_UNKNOWN, 0, "Insufficient tuple registers to generate code");
  const u16 n = (u16)ks.size();
  VarDef &d = defs[var];
  if (d.keys.empty()) {
    d.keys = ks, d.key_sous = sous;
    return n;
  }
  const std::string what = e.name + "[ ]";
  for (size_t i = 0; i < sous.size() && i < d.key_sous.size(); i++)
    if (sous[i] != d.key_sous[i] && (!sous[i].empty() || !d.key_sous[i].empty()))
      return sem(DTag::D_PROTO_ARG, e.line,
                 proto_arg(what, i + 1, d.key_sous[i].empty() ? "integer" : d.key_sous[i],
                           sous[i].empty() ? "integer" : sous[i], "key"));
  if (d.keys.size() != ks.size())
    return sem(DTag::D_PROTO_LEN, e.line,
               proto_len(what, ks.size(), d.keys.size(), d.keys.size(), "key"));
  for (size_t i = 0; i < ks.size(); i++)
    if (d.keys[i] != ks[i])
      return sem(DTag::D_PROTO_ARG, e.line,
                 proto_arg(what, i + 1, type_name(d.keys[i]),
                           type_name(as_written[i]), "key"));
  return n;
}

Result<void> Compiler::store_type(std::vector<VarDef> &defs, size_t var,
                                  const Expr &v, Type t, int line) {
  VarDef &d = defs[var];
  if (t == Type::Stack)
    return sem(DTag::D_OP_INCOMPAT, line, "a stack( ) cannot be stored in a variable");
  const Type want = is_int(t) ? Type::Int64 : Type::String;
  if (!d.typed) {
    // The first store fixes the type, as in DTrace: x = 1 makes an int.
    fix_type(d, t);
    return {};
  }
  if (is_int(d.type) != is_int(want))
    return sem(DTag::D_OP_INCOMPAT, line,
               strf("operands have incompatible types: \"%s\" = \"%s\"",
                    type_name(d.type), type_name(t)));
  return {};
}

void Compiler::infer_var_types() {
  std::vector<Insn> scratch_code;
  for (size_t ci = 0; ci < ast_.clauses.size(); ci++) {
    ClauseAst &c = ast_.clauses[ci];
    probes_ = &matched_[ci];
    origin_ = c.origin.get();
    types_.clear();
    for (const Stmt &s : c.stmts) {
      // this-> variables too: a global stored from one takes its type.
      if (s.kind != Stmt::Assign || s.args[0]->kind != Expr::Variable)
        continue;
      // x = s of a struct s declares x a struct of s's type.
      auto src = place(*s.args[1]);
      if (!src)
        continue;
      if (*src) {
        declare_sou(*s.args[0], **src);
        continue;
      }
      if (auto pt = ptr_type(*s.args[1])) {
        declare_ptr(*s.args[0], *pt);
        continue;
      }
      if (const CType *ft = float_type(*s.args[1])) {
        declare_ptr(*s.args[0], *ft);
        continue;
      }
      auto dst = place(*s.args[0]);
      if (!dst || *dst) // p[i] = x: memory, not a variable
        continue;
      // Compiled into a throwaway sequence; errors are the real pass's.
      code_ = &scratch_code;
      scratch_ = 0;
      auto t = expr(*s.args[1]);
      scratch_code.clear();
      sp_ = max_sp_ = 0;
      if (!t || *t == Type::Stack)
        continue;
      // The first store fixes the type, as in DTrace.
      auto d = variable(*s.args[0]);
      if (d && !(*d)->typed) {
        std::vector<VarDef> &defs =
            s.args[0]->scope == VarScope::Clause ? locals_ : prog_.vars;
        fix_type(defs[*d - defs.data()], *t);
      }
    }
  }
  prog_.strings.clear(); // the real pass adds the literals again
}

// Every use of an aggregation must agree on function and keys; collect the
// definitions first so printa( ) may come before the aggregating clause.
Result<void> Compiler::define_aggs() {
  for (ClauseAst &c : ast_.clauses) {
    origin_ = c.origin.get();
    for (Stmt &s : c.stmts) {
      if (s.kind != Stmt::Aggregate)
        continue;
      AggDef d;
      d.name = s.agg;
      d.fn = s.fn;
      d.line = s.line;
      // Key types need the expressions' types: compiled per clause below,
      // recorded here as unknown until then.
      if (s.fn == AggFn::LQuantize) {
        auto lo = constant(*s.args[1]);
        if (!lo)
          return lo.take_error();
        auto hi = constant(*s.args[2]);
        if (!hi)
          return hi.take_error();
        i64 step = 1;
        d.weighted = s.args.size() > 4;
        if (s.args.size() > 3) {
          auto st = constant(*s.args[3]);
          if (!st)
            return st.take_error();
          step = *st;
        }
        if (step <= 0)
          return sem(DTag::D_LQUANT_STEPVAL, s.line, "lquantize( ) step must be greater than zero");
        if (*hi <= *lo)
          return sem(DTag::D_LQUANT_MISMATCH, s.line,
                     "lquantize( ) upper bound must be greater than lower bound");
        if (*lo < INT32_MIN || *hi > INT32_MAX)
          return sem(DTag::D_LQUANT_LIMVAL, s.line, "lquantize( ) bounds must fit in 32 bits");
        i64 levels = (*hi - *lo) / step;
        if (levels < 1 || levels > 65535)
          return sem(DTag::D_LQUANT_STEPVAL, s.line,
                     strf("lquantize( ) would have %lld levels (1..65535)",
                          (long long)levels));
        d.lq_base = *lo, d.lq_limit = *hi, d.lq_step = step;
        d.nvals = (u32)levels + 2;
      } else if (s.fn == AggFn::LLQuantize) {
        d.weighted = s.args.size() > 5;
        i64 v[4];
        for (int i = 0; i < 4; i++) {
          auto c = constant(*s.args[1 + i]);
          if (!c)
            return c.take_error();
          v[i] = *c;
        }
        const i64 factor = v[0], low = v[1], high = v[2], steps = v[3];
        if (factor < 2 || factor > 65535)
          return sem(DTag::D_LLQUANT_FACTORVAL, s.line, "llquantize( ) factor (argument #2) must "
                                     "be 2..65535");
        if (low < 0 || high < low)
          return sem(DTag::D_LLQUANT_LMAGVAL, s.line, "llquantize( ) magnitudes (arguments #3 "
                                     "and #4) must be 0 <= low <= high");
        if (steps < 1 || steps > 65535) // DTrace's 16 bits, as the factor's
          return sem(DTag::D_LLQUANT_STEPVAL, s.line,
                     "llquantize( ) steps (argument #5) must be 1..65535");
        // Steps cut each magnitude evenly: fewer than the factor divide
        // it; more are a multiple of it that divides the first whole
        // magnitude's top, factor^(max(low, 1) + 1).  (Below 2^32: the
        // loop stops past the steps.)
        i64 first_top = 1;
        for (i64 m = 0; m <= std::max<i64>(low, 1) && first_top <= steps; m++)
          first_top *= factor;
        if (steps < factor ? factor % steps : steps % factor)
          return sem(DTag::D_LLQUANT_STEPVAL, s.line,
                     steps < factor
                         ? "llquantize( ) steps (argument #5) must evenly "
                           "divide the factor"
                         : "llquantize( ) steps (argument #5) must be a "
                           "multiple of the factor");
        if (steps > factor && first_top % steps)
          return sem(DTag::D_LLQUANT_STEPVAL, s.line,
                     strf("llquantize( ) steps (argument #5) must evenly "
                          "divide factor^%lld",
                          (long long)std::max<i64>(low, 1) + 1));
        i64 top = 1; // factor^(high+1) must fit: the last bucket's bound
        for (i64 m = 0; m <= high; m++)
          if (__builtin_mul_overflow(top, factor, &top))
            return sem(DTag::D_LLQUANT_HMAGVAL, s.line,
                       strf("llquantize( ) factor %lld to the power %lld "
                            "overflows 64 bits",
                            (long long)factor, (long long)high + 1));
        d.llq_factor = factor, d.llq_low = low, d.llq_high = high;
        d.llq_steps = steps;
        d.nvals = llquantize_buckets(d);
        if (d.nvals > 65535)
          return sem(DTag::D_LLQUANT_HMAGVAL, s.line, strf("llquantize( ) would have %u buckets "
                                          "(at most 65535)", d.nvals));
      } else if (s.fn == AggFn::Quantize) {
        d.nvals = kQuantBuckets;
        d.weighted = s.args.size() > 1;
      } else if (s.fn == AggFn::Avg) {
        d.nvals = 2; // count, total
      } else if (s.fn == AggFn::Stddev) {
        d.nvals = 4; // count, total, the sum of squares (128 bits, low first)
      }
      auto it = agg_ids_.find(s.agg);
      if (it == agg_ids_.end()) {
        if (prog_.aggs.size() >= kMaxAggs)
          return sem(DTag::D_AGG_REDEF, s.line, strf("more than %u aggregations", kMaxAggs));
        agg_ids_[s.agg] = (u32)prog_.aggs.size();
        prog_.aggs.push_back(d);
        continue;
      }
      AggDef &old = prog_.aggs[it->second];
      old.weighted |= d.weighted;
      std::string at = "@" + s.agg;
      if (old.fn != d.fn)
        return sem(DTag::D_AGG_REDEF, s.line, strf("@%s is used with %s( ) and with %s( )",
                                    s.agg.c_str(), agg_fn_name(old.fn),
                                    agg_fn_name(d.fn)));
      if (old.fn == AggFn::LQuantize &&
          (old.lq_base != d.lq_base || old.lq_limit != d.lq_limit ||
           old.lq_step != d.lq_step))
        return sem(DTag::D_LQUANT_MATCHBASE, s.line, strf("@%s is used with different lquantize( ) "
                                    "bounds",
                                    s.agg.c_str()));
      if (old.fn == AggFn::LLQuantize &&
          (old.llq_factor != d.llq_factor || old.llq_low != d.llq_low ||
           old.llq_high != d.llq_high || old.llq_steps != d.llq_steps))
        return sem(DTag::D_LLQUANT_MATCHFACTOR, s.line, strf("@%s is used with different llquantize( ) "
                                    "parameters",
                                    s.agg.c_str()));
    }
  }
  return {};
}

// s[i], this->s[i], self->s[i] where s holds strings: its i-th character
// (the parser cannot tell them from array elements).  None: an array.
std::optional<Result<Type>> Compiler::string_char(const Expr &e) {
  VarScope scope = e.scope;
  std::string name = e.name;
  size_t key = 0;
  if (scope == VarScope::Global && name.rfind("self->", 0) == 0) {
    scope = VarScope::Thread; // self->a[k] was made a[tid, k]
    name = name.substr(6);
    key = 1;
  }
  if (e.kids.size() != key + 1)
    return std::nullopt;
  const std::vector<VarDef> &defs =
      scope == VarScope::Clause ? locals_ : prog_.vars;
  const VarDef *d = nullptr;
  for (const VarDef &v : defs)
    if (v.scope == scope && v.name == name && !v.keyed)
      d = &v;
  if (!d || d->type != Type::String) {
    if (scope == VarScope::Clause)
      return Result<Type>(sem(DTag::D_DECL_LOCASSC, e.line,
                              "clause-local variables are not associative "
                              "arrays (" + e.near + "[...]): use self-> or "
                              "a global"));
    return std::nullopt;
  }
  Expr var;
  var.kind = Expr::Variable;
  var.scope = scope, var.name = name, var.near = e.near, var.line = e.line;
  auto t = expr(var);
  if (!t)
    return t;
  auto i = expr(*e.kids[key]);
  if (!i)
    return i;
  if (!is_int(*i))
    return Result<Type>(sem(DTag::D_OP_INT, e.line, "a string's index must be an integer"));
  const BuiltinFn &f = *find_builtin("[]");
  emit(OP_CALL, 0, 2, builtin_index(f));
  return f.ret;
}

// The type of `e`, from code compiled and thrown away; remembered for
// the clause, so that operands nested n deep cost n compilations, not 2^n.
Result<Type> Compiler::type_of(const Expr &e) {
  if (auto it = types_.find(&e); it != types_.end())
    return it->second;
  std::vector<Insn> *code = code_;
  std::vector<Insn> dry;
  code_ = &dry;
  const int sp = sp_, max_sp = max_sp_;
  const u32 scratch = scratch_;
  auto t = expr(e);
  code_ = code, sp_ = sp, max_sp_ = max_sp, scratch_ = scratch;
  if (t)
    types_[&e] = *t;
  return t;
}

Result<Type> Compiler::expr(const Expr &e) {
  switch (e.kind) {
  case Expr::Int:
    emit(OP_PUSH, 0, 0, 0, e.ival);
    if (e.ctype.name == "constant") // as written: typed by C's rules
      return value_type(e.ctype);
    return e.ival >= INT32_MIN && e.ival <= INT32_MAX ? Type::Int32 : Type::Int64;
  case Expr::Str:
    prog_.strings.push_back(e.sval.substr(0, prog_.str_chars()));
    emit(OP_PUSH, 0, 1, (u32)(prog_.strings.size() - 1),
         (i64)(uintptr_t)prog_.strings.back().c_str());
    return Type::String;
  case Expr::Member: {
    auto x = xlate_member(e);
    if (!x)
      return x.take_error();
    if (*x) {
      // A translator's member may translate again: bounded, as a cycle
      // of them would not end.
      if (xlate_depth_ >= kMaxXlateDepth)
        return sem(DTag::D_XLATE_NONE, e.line,
                   "translators nested more than " +
                       std::to_string(kMaxXlateDepth) + " deep at " + e.near);
      xlate_depth_++;
      auto t = expr(**x);
      xlate_depth_--;
      return t;
    }
    auto p = place(e);
    if (!p)
      return p.take_error();
    return load(**p, e.line);
  }
  case Expr::Void:
    return sem(DTag::D_OP_ACT, e.line, e.name + "( ) is an action, not a value");
  case Expr::AggRef:
    return sem(DTag::D_PRINTF_ARG_EXTRA, e.line,
               "printf( ) argument " + e.name + " is an aggregation, which "
               "no conversion prints (printa( ) does)");
  case Expr::Xlate:
    return sem(DTag::D_OP_SOU, e.line,
               "a translated " + e.ctype.name + " is read by its members "
               "(xlate<T>(x).member) or assigned whole here");
  case Expr::Variable: {
    auto pl = place(e); // a struct (refused by load( )), or p[i]
    if (!pl)
      return pl.take_error();
    if (*pl)
      return load(**pl, e.line);
    if (!e.kids.empty()) {
      // s[i] of a string variable reads like an array element.
      std::optional<Result<Type>> c = string_char(e);
      if (c)
        return std::move(*c);
    }
    auto v = variable(e);
    if (!v)
      return v.take_error();
    std::vector<VarDef> &defs = e.scope == VarScope::Clause ? locals_ : prog_.vars;
    const size_t i = *v - defs.data(); // the keys may define more variables
    auto nk = keys(defs, i, e);
    if (!nk)
      return nk.take_error();
    emit(OP_LDVAR, (u8)e.scope, *nk, defs[i].number,
         var_imm(defs, i));
    return defs[i].type;
  }
  case Expr::Var:
    switch (e.builtin) {
    case Builtin::Pid: emit(OP_PUSH, 0, 0, 0, getpid()); return Type::Int32;
    case Builtin::Ppid: emit(OP_PUSH, 0, 0, 0, getppid()); return Type::Int32;
    case Builtin::Uid: emit(OP_PUSH, 0, 0, 0, getuid()); return Type::UInt32;
    case Builtin::Gid: emit(OP_PUSH, 0, 0, 0, getgid()); return Type::UInt32;
    case Builtin::Ipl: emit(OP_PUSH, 0, 0, 0, 0); return Type::UInt32;
    case Builtin::Errno: emit(OP_PUSH, 0, 0, 0, 0); return Type::Int32;
    case Builtin::UCaller: emit(OP_PUSH, 0, 0, 0, 0); return Type::UInt64;
    case Builtin::UStackDepth: emit(OP_PUSH, 0, 0, 0, 0); return Type::UInt32;
    case Builtin::Execname:
      MK_TRY(take_scratch(e)); // the name is copied in
      break;
    default:
      break;
    }
    emit(OP_VAR, (u8)e.builtin);
    switch (e.builtin) {
    case Builtin::Timestamp:
    case Builtin::WallTimestamp:
    case Builtin::VTimestamp:
      return Type::Int64;
    case Builtin::StackDepth:
      return Type::UInt32;
    case Builtin::Caller:
    case Builtin::CurThread:
    case Builtin::CurCpu:
      return Type::UInt64;
    case Builtin::Cpu:
    case Builtin::Id:
    case Builtin::Epid:
    case Builtin::Tid:
      return Type::Int32;
    default:
      return Type::String;
    }
  case Expr::Arg:
    // DTrace's arg0..arg9; probes here pass six at most (the x86_64
    // argument registers), so arg6..arg9 are 0, as any argument a probe
    // does not pass is.
    if (e.ival >= 6)
      emit(OP_PUSH, 0, 0, 0, 0);
    else
      emit(OP_ARG, (u8)e.ival);
    return Type::Int64;
  case Expr::Args: {
    // BEGIN and END have no arguments to index (other probes without
    // declared types still have their raw ones).
    if (!probes_->empty() &&
        std::all_of(probes_->begin(), probes_->end(), [](const ProbeInfo &p) {
          return p.provider == "dtrace" && (p.name == "BEGIN" || p.name == "END");
        }))
      return sem(DTag::D_ARGS_IDX, e.line,
                 strf("index %lld is out of range for %s args[ ]",
                      (long long)e.ival, (*probes_)[0].full().c_str()));
    // Typed by the probes' argument types: char * reads as a string.
    int strings = 0, ints = 0;
    std::string sname, iname;
    for (const ProbeInfo &p : *probes_) {
      if ((size_t)e.ival >= p.argtypes.size())
        continue;
      if (string_argtype(p.argtypes[e.ival]))
        strings++, sname = p.argtypes[e.ival];
      else
        ints++, iname = p.argtypes[e.ival];
    }
    if (strings && ints)
      return sem(DTag::D_ARGS_TYPE, e.line, "the probes matched disagree on its type (" +
                                     sname + " and " + iname + ")");
    if (strings) {
      MK_TRY(take_scratch(e));
      emit(OP_STRARG, (u8)e.ival);
      return Type::String;
    }
    // An integer: widened by its declared size and sign (a 4-byte long on
    // i386 sign-extends, as DTrace's typed args[] do), if the probes agree.
    emit(OP_ARG, (u8)e.ival);
    std::optional<IntType> it;
    for (const ProbeInfo &p : *probes_) {
      if ((size_t)e.ival >= p.argtypes.size())
        continue;
      IntType t = int_argtype(p.argtypes[e.ival]);
      if (it && (it->bytes != t.bytes || it->is_signed != t.is_signed)) {
        it.reset();
        break;
      }
      it = t;
    }
    if (!it || it->bytes >= 8)
      return Type::Int64;
    emit(it->is_signed ? OP_SEXT : OP_ZEXT, (u8)(it->bytes * 8));
    return it->bytes == 4 && it->is_signed ? Type::Int32 : Type::Int64;
  }
  case Expr::Call:
    return call(e);
  case Expr::Assign:
    return assign(*e.kids[0], *e.kids[1], e.line, true, e.ival != 0, e.op);
  case Expr::Cast: {
    if (e.ctype.is_float != (float_bytes(*e.kids[0]) != 0) && !e.ctype.pointer)
      return sem(DTag::D_CAST_INVAL, e.line,
                 "invalid cast expression: D converts nothing to or from "
                 "float or double (" + e.ctype.name + ")");
    if (e.ctype.is_void && !e.ctype.pointer) { // (void)x: x, no value
      auto t = expr(*e.kids[0]);
      if (!t)
        return t;
      return Type::Void;
    }
    // xlate<T *>(x) points to data that exists only as translated: DTrace
    // refuses to make it an integer or another pointer.
    if (e.kids[0]->kind == Expr::Xlate && e.kids[0]->ctype.pointer)
      return sem(DTag::D_CAST_INVAL, e.line,
                 "invalid cast expression: \"pointer to translated data\" "
                 "to \"" + e.ctype.name + "\"");
    if (e.ctype.sou && !e.ctype.pointer) { // (struct s)v
      auto p = place(e);
      if (!p)
        return p.take_error();
      return load(**p, e.line);
    }
    auto t = expr(*e.kids[0]);
    if (!t)
      return t;
    if (e.ctype.string) {
      // (string)p, and as DTrace casts any scalar to a string, (string)x:
      // the string at that address.
      if (!is_int(*t) && *t != Type::String)
        return sem(DTag::D_CAST_INVAL, e.line,
                   strf("invalid cast expression: \"%s\" to \"string\"",
                        type_name(*t)));
      if (*t != Type::String) {
        MK_TRY(take_scratch(e));
        emit(OP_STRINGOF);
      }
      return Type::String;
    }
    if (!is_int(*t))
      return sem(DTag::D_CAST_INVAL, e.line, strf("a %s cannot be cast to %s",
                                      type_name(*t), e.ctype.name.c_str()));
    if (e.ctype.pointer) { // an address
      if (int_bytes(*t) < 8)
        narrow(*t);
      return Type::UInt64;
    }
    if (int_bytes(*t) < e.ctype.bytes)
      narrow(*t); // widened from the value its own type holds
    if (e.ctype.bytes < 8)
      emit(e.ctype.is_signed ? OP_SEXT : OP_ZEXT, (u8)(e.ctype.bytes * 8));
    return value_type(e.ctype);
  }
  case Expr::SizeOf: {
    // A string variable's size is strsize's (with its NUL, as in
    // DTrace); a literal's is its own.
    const i64 strsize =
        prog_.pragmas.strsize ? prog_.pragmas.strsize : kDefaultStrSize;
    i64 size = e.ctype.string ? strsize : (i64)e.ctype.size();
    if (e.kids.empty() && e.ctype.is_void && !e.ctype.pointer)
      return sem(DTag::D_SIZEOF_TYPE, e.line, "cannot apply sizeof to an "
                                              "operand of unknown size");
    if (!e.kids.empty()) { // a struct, a union or a member of one
      auto p = place(*e.kids[0]);
      if (!p)
        return p.take_error();
      if (*p && (*p)->bitfield)
        return sem(DTag::D_SIZEOF_BITFIELD, e.line,
                   "cannot apply sizeof to a bit-field");
      if (*p) {
        emit(OP_PUSH, 0, 0, 0, (i64)((*p)->width / 8));
        return Type::UInt64;
      }
    }
    // A declared global, or its element: its declaration's size.
    const VarDecl *decl =
        !e.kids.empty() && e.kids[0]->kind == Expr::Variable &&
                e.kids[0]->scope == VarScope::Global
            ? decl_of(VarScope::Global, e.kids[0]->name)
            : nullptr;
    // sizeof(a) of an int a[5]: the whole array's.
    const VarDecl *whole =
        decl && decl->dim > 0 && e.kids[0]->kids.empty() ? decl : nullptr;
    if (whole) {
      size = whole->dim * (whole->type.string ? strsize : (i64)whole->type.size());
    } else if (!e.kids.empty()) {
      // sizeof does not evaluate its operand.
      auto t = type_of(*e.kids[0]);
      if (!t)
        return t;
      if (*t == Type::Stack)
        return sem(DTag::D_SIZEOF_TYPE, e.line, "sizeof a stack( ) is not known");
      size = e.kids[0]->kind == Expr::Str ? (i64)e.kids[0]->sval.size() + 1
             : *t == Type::String         ? strsize
             : is_64(*t)                  ? 8
                                          : 4;
      if (decl && !decl->type.string)
        size = (i64)decl->type.size();
    }
    emit(OP_PUSH, 0, 0, 0, size);
    return Type::UInt64; // size_t
  }
  case Expr::Unary: {
    if (float_bytes(*e.kids[0]))
      return sem(DTag::D_OP_ARITH, e.line,
                 "floating-point operands are not supported by D operators: "
                 "a float or double is copied and printed (%e, %f, %g)");
    if (e.op == X_DEREF) {
      auto p = place(e);
      if (!p)
        return p.take_error();
      return load(**p, e.line);
    }
    if (e.op == X_ADDR) {
      auto p = place(*e.kids[0]);
      if (!p)
        return p.take_error();
      if (*p && (*p)->bitfield)
        return sem(DTag::D_ADDROF_BITFIELD, e.line,
                   "cannot take address of bit-field");
      // Something in memory through a pointer (&p[i], &p->m, &*p): its
      // address.  A D variable itself has none.
      if (*p && (*p)->ptr && !(*p)->root) {
        MK_TRY(address(**p));
        return Type::UInt64;
      }
      if (*p || e.kids[0]->kind == Expr::Variable)
        return sem(DTag::D_ADDROF_VAR, e.line,
                   "cannot take address of dynamic variable");
      // Neither a place nor a variable: a constant or a computed value.
      return sem(DTag::D_ADDROF_LVAL, e.line,
                 "unacceptable operand for unary & operator");
    }
    auto t = e.kids[0]->kind == Expr::Void ? Result<Type>(Type::Void)
                                           : expr(*e.kids[0]);
    if (!t)
      return t;
    if (!is_int(*t))
      return e.op == X_NEG
                 ? sem(DTag::D_OP_ARITH, e.line,
                       "operator - requires an operand of arithmetic type")
             : e.op == X_BNOT
                 ? sem(DTag::D_OP_INT, e.line,
                       "operator ~ requires an operand of integral type")
                 : sem(DTag::D_OP_SCALAR, e.line,
                       "operator ! requires an operand of scalar type");
    emit(e.op == X_NEG ? OP_NEG : e.op == X_BNOT ? OP_BNOT : OP_LNOT);
    if (e.op == X_LNOT)
      return Type::Int32;
    return *t; // in 64 bits, narrowed where stored (see promote( ))
  }
  case Expr::Ternary: {
    if (e.kids[1]->kind == Expr::Void || e.kids[2]->kind == Expr::Void)
      return sem(DTag::D_OP_ACT, e.line,
                 "action cannot be used in a conditional context");
    auto c = expr(*e.kids[0]);
    if (!c)
      return c;
    if (!is_int(*c))
      return sem(DTag::D_OP_SCALAR, e.line,
                 "operator ?: expression must be of scalar type");
    u32 jz = here();
    emit(OP_JZ);
    auto a = expr(*e.kids[1]);
    if (!a)
      return a;
    u32 jmp = here();
    emit(OP_JMP);
    (*code_)[jz].c = here();
    sp_--; // the else branch starts where the then branch did
    auto b = expr(*e.kids[2]);
    if (!b)
      return b;
    (*code_)[jmp].c = here();
    if (*a == Type::Stack || *b == Type::Stack)
      return sem(DTag::D_OP_INCOMPAT, e.line, "?: cannot choose a stack( )");
    if (is_int(*a) != is_int(*b))
      return sem(DTag::D_OP_INCOMPAT, e.line,
                 strf("operator ?: operands must have compatible types: \"%s\" "
                      "and \"%s\"", type_name(*a), type_name(*b)));
    if (!is_int(*a))
      return Type::String;
    if (is_64(*a) || is_64(*b))
      return *a == Type::UInt64 || *b == Type::UInt64 ? Type::UInt64
                                                      : Type::Int64;
    return *a == Type::UInt32 || *b == Type::UInt32 ? Type::UInt32
                                                    : Type::Int32;
  }
  case Expr::Binary:
    break;
  }
  // Binary operators.
  if (float_bytes(*e.kids[0]) || float_bytes(*e.kids[1]))
    return sem(DTag::D_OP_ARITH, e.line,
               "floating-point operands are not supported by D operators: "
               "a float or double is copied and printed (%e, %f, %g)");
  if (e.op == X_ADD || e.op == X_SUB) {
    auto l = ptr_type(*e.kids[0]), r = ptr_type(*e.kids[1]);
    if (l || r)
      return ptr_arith(e, l, r);
  }
  if (e.op == X_LAND || e.op == X_LOR) {
    auto l = expr(*e.kids[0]);
    if (!l)
      return l;
    if (!is_int(*l))
      return sem(DTag::D_OP_SCALAR, e.line,
                 "operator " + e.near + " requires operands of scalar type");
    u32 j = here();
    emit(e.op == X_LAND ? OP_JZ : OP_JNZ);
    auto r = expr(*e.kids[1]);
    if (!r)
      return r;
    if (!is_int(*r))
      return sem(DTag::D_OP_SCALAR, e.line,
                 "operator " + e.near + " requires operands of scalar type");
    emit(OP_BOOL);
    u32 jend = here();
    emit(OP_JMP);
    (*code_)[j].c = here();
    sp_--; // the short cut arrives without the right side's value
    emit(OP_PUSH, 0, 0, 0, e.op == X_LAND ? 0 : 1);
    (*code_)[jend].c = here();
    return Type::Int32;
  }
  bool cmp = e.op == X_LT || e.op == X_LE || e.op == X_GT || e.op == X_GE ||
             e.op == X_EQ || e.op == X_NE;
  const bool shift = e.op == X_SHL || e.op == X_SHR;
  // x / 0 and x % 0 with a constant 0 can only fault: refused here, as
  // DTrace refuses them, rather than failing at every firing.
  if ((e.op == X_DIV || e.op == X_MOD) && fold_constant(*e.kids[1]) == 0)
    return sem(DTag::D_DIV_ZERO, e.line, "expression contains division by zero");
  // A string compared with NULL (0): the string functions that find
  // nothing (strchr, strstr, strtok) give "" here, so NULL compares as
  // the empty string.
  auto null = [](const Expr &x) { return x.kind == Expr::Int && x.ival == 0; };
  if ((e.op == X_EQ || e.op == X_NE) &&
      (null(*e.kids[0]) || null(*e.kids[1]))) {
    const bool left_null = null(*e.kids[0]);
    const Expr &other = *e.kids[left_null ? 1 : 0];
    auto t = type_of(other);
    if (t && *t == Type::String) {
      auto o = expr(other);
      if (!o)
        return o;
      prog_.strings.push_back("");
      emit(OP_PUSH, 0, 1, (u32)(prog_.strings.size() - 1),
           (i64)(uintptr_t)prog_.strings.back().c_str());
      emit(e.op == X_EQ ? OP_SEQ : OP_SNE);
      return Type::Int32;
    }
  }
  auto l = expr(*e.kids[0]);
  if (!l)
    return l;
  if (*l == Type::Stack)
    return sem(DTag::D_OP_SCALAR, e.line, "a stack( ) is not a value to compute with");
  // A char * or char [] compared with a string is one: its characters
  // are compared ("dtrace" == curthread->comm), as in DTrace.
  auto as_string = [&](const Expr &k, Type &t, const Expr &other) -> Result<void> {
    if (!cmp || !is_int(t) || !is_char_ptr(k))
      return {};
    auto o = type_of(other);
    if (!o || *o != Type::String)
      return {};
    MK_TRY(take_scratch(k));
    emit(OP_STRINGOF);
    t = Type::String;
    return {};
  };
  MK_TRY(as_string(*e.kids[0], *l, *e.kids[1]));
  if (e.op == X_LXOR)
    emit(OP_BOOL);
  // An operand narrower than the operation's type (or compared) takes
  // its own type's value first: an int's x + x that overflowed is
  // negative once added to a long long, as in DTrace.
  // (A constant is exact already.)
  auto exact = [](const Expr &x) { return x.kind == Expr::Int; };
  if (is_int(*l) && int_bytes(*l) < 8 && !shift && e.op != X_LXOR &&
      !exact(*e.kids[0])) {
    auto rt = type_of(*e.kids[1]);
    if (rt && is_int(*rt) && (cmp || int_bytes(*rt) > int_bytes(*l)))
      narrow(*l);
  }
  auto r = expr(*e.kids[1]);
  if (!r)
    return r;
  if (*r == Type::Stack)
    return sem(DTag::D_OP_SCALAR, e.line, "a stack( ) is not a value to compute with");
  MK_TRY(as_string(*e.kids[1], *r, *e.kids[0]));
  if (is_int(*l) && is_int(*r) && !shift && e.op != X_LXOR &&
      !exact(*e.kids[1]) && (cmp || int_bytes(*r) < int_bytes(*l)))
    narrow(*r);
  if (cmp && *l == Type::String && *r == Type::String) {
    static const u8 sops[] = {OP_SLT, OP_SLE, OP_SGT, OP_SGE, OP_SEQ, OP_SNE};
    emit(sops[e.op - X_LT]);
    return Type::Int32;
  }
  if (!is_int(*l) || !is_int(*r)) {
    // x++ and x += y arrive here as x = x + ...: named as written.
    const bool compound = e.near.size() > 1 && e.near.back() == '=' && !cmp;
    if (e.near == "++" || e.near == "--")
      return sem(DTag::D_OP_SCALAR, e.line,
                 "operator " + e.near + " requires operand of scalar type");
    if (cmp || compound)
      return sem(DTag::D_OP_INCOMPAT, e.line,
                 strf("operands have incompatible types: \"%s\" %s \"%s\"",
                      type_name(*l), e.near.c_str(), type_name(*r)));
    return sem(DTag::D_OP_INT, e.line,
               "operator " + e.near + " requires operands of integral type");
  }
  // Comparisons, division, remainder and >> are unsigned where the
  // operation's type is (a = 1): -1 > 0u, as in C and DTrace.
  const Type type = e.op == X_SHL || e.op == X_SHR ? *l : promote(*l, *r);
  const u8 uns = is_unsigned(type) ? 1 : 0;
  if (cmp) {
    static const u8 iops[] = {OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE};
    emit(iops[e.op - X_LT], uns);
    return Type::Int32;
  }
  switch (e.op) {
  case X_ADD: emit(OP_ADD); break;
  case X_SUB: emit(OP_SUB); break;
  case X_MUL: emit(OP_MUL); break;
  case X_DIV: emit(OP_DIV, uns); break;
  case X_MOD: emit(OP_MOD, uns); break;
  case X_SHL: emit(OP_SHL); break;
  case X_SHR: emit(OP_SHR, uns); break;
  case X_BAND: emit(OP_AND); break;
  case X_BOR: emit(OP_OR); break;
  case X_BXOR: emit(OP_XOR); break;
  case X_LXOR:
    emit(OP_BOOL);
    emit(OP_XOR);
    return Type::Int32;
  default: break;
  }
  return type;
}

Result<Type> Compiler::assign(const Expr &v, const Expr &x, int line,
                              bool value, bool post, ExprOp op) {
  if (x.kind == Expr::Cast && x.ctype.is_void && !x.ctype.pointer)
    return sem(DTag::D_DECL_VOIDOBJ, line,
               "cannot declare void object: " + v.near);
  if (v.kind == Expr::Variable) {
    // DTrace types the value before it checks where it is stored (an
    // operation's: a struct's copy is no value to type).
    if (x.kind == Expr::Binary)
      if (auto t = type_of(x); !t)
        return t.take_error();
    MK_TRY(alloca_assign(v, x, line));
  }
  // An array of fixed size as a whole is no lvalue (a = b of an int
  // a[3]): C's rule, in DTrace's words.
  if (const VarDecl *d = v.kind == Expr::Variable && v.kids.empty()
                             ? decl_of(v.scope, v.name)
                             : nullptr;
      d && d->dim > 0 && !d->assoc)
    return sem(DTag::D_OP_ARRFUN, line,
               strf("operator = may not be applied to operand of type "
                    "\"%s [%lld]\"",
                    d->type.name.c_str(), (long long)d->dim));
  if (v.kind == Expr::Variable) {
    auto src = place(x);
    if (!src)
      return src.take_error();
    if (const CType *ft = float_type(x))
      declare_ptr(v, *ft); // v = d: v takes d's float or double type
    if (float_bytes(v) != float_bytes(x)) {
      const CType *vt = float_type(v), *xt = float_type(x);
      return sem(DTag::D_OP_INCOMPAT, line,
                 strf("operands have incompatible types: \"%s\" = \"%s\": "
                      "D copies a float or double only into one of its type",
                      vt ? vt->name.c_str() : "integer",
                      xt ? xt->name.c_str() : "integer"));
    }
    if (*src) {
      declare_sou(v, **src);
    } else if (auto pt = ptr_type(x)) {
      declare_ptr(v, *pt);
      // One pointer type per variable (void * goes with any).
      const VarDecl *d = decl_of(v.scope, v.name);
      auto is_void = [](const CType &t) {
        return t.pointee && t.pointee->is_void;
      };
      if (d && d->type.pointer && v.kids.empty() && d->type.name != pt->name &&
          !is_void(d->type) && !is_void(*pt))
        return sem(DTag::D_OP_INCOMPAT, line,
                   "operands have incompatible types: \"" + d->type.name +
                       "\" = \"" + pt->name + "\"");
    } else if (const VarDecl *d = decl_of(v.scope, v.name);
               d && d->type.pointer && v.kids.empty() &&
               !(x.kind == Expr::Int && x.ival == 0)) {
      // A pointer variable takes pointers (and NULL), no integer: x =
      // curthread; x = pid is DTrace's D_OP_INCOMPAT.
      auto t = type_of(x);
      if (!t)
        return t.take_error();
      if (is_int(*t))
        return sem(DTag::D_OP_INCOMPAT, line,
                   "operands have incompatible types: \"" + d->type.name +
                       "\" = \"" + type_name(*t) + "\"");
    }
  }
  auto dst = place(v);
  if (!dst)
    return dst.take_error();
  if (*dst && x.kind == Expr::Xlate) { // s = xlate<struct t>(e): by member
    const Place &d = **dst;
    if (!d.type.sou || x.ctype.pointer || d.type.sou != x.ctype.sou)
      return sem(DTag::D_OP_INCOMPAT, line,
                 "operands have incompatible types: \"" + d.type.name +
                     "\" = \"" + x.ctype.name + "\"");
    if (value)
      return sem(DTag::D_OP_SOU, line, "a " + d.type.name +
                                           " assignment has no value here");
    auto xl = translator(x.ctype, *x.kids[0], line);
    if (!xl)
      return xl.take_error();
    for (const Field &f : d.type.sou->fields) {
      if (f.name.empty() || f.dim || f.type.sou)
        continue;
      Place m = d;
      m.type = f.type, m.off += f.off, m.width = f.width();
      m.bitfield = f.bits != 0;
      auto tr = translated(**xl, f.name, *x.kids[0], line);
      Expr zero;
      zero.kind = Expr::Int, zero.line = line;
      MK_TRY(assign_member(m, tr ? **tr : zero, line, false, false, op));
    }
    return Type::Int64;
  }
  if (*dst)
    return assign_member(**dst, x, line, value, post, op);
  if (v.kind != Expr::Variable)
    return sem(DTag::D_OP_WRITE, line,
               "operator = can only be applied to a writable variable");
  auto d = variable(v);
  if (!d)
    return d.take_error();
  std::vector<VarDef> &defs = v.scope == VarScope::Clause ? locals_ : prog_.vars;
  const size_t i = *d - defs.data();
  auto nk = keys(defs, i, v);
  if (!nk)
    return nk.take_error();
  auto t = expr(x);
  if (!t)
    return t;
  MK_TRY(store_type(defs, i, v, *t, line));
  if (is_int(*t) && int_bytes(*t) * 8 < defs[i].bits)
    narrow(*t); // widened from the value its own type holds
  if (defs[i].bits < 64) // an int variable wraps at its width
    emit(defs[i].is_signed ? OP_SEXT : OP_ZEXT, defs[i].bits);
  const bool keyed = !v.kids.empty();
  if (value && !keyed)
    emit(OP_DUP); // the value stored is the expression's
  emit(OP_STVAR, (u8)v.scope, *nk, defs[i].number,
       var_imm(defs, i));
  if (!value)
    return *t;
  if (keyed) {
    // An element: read back what was stored (its keys computed again).
    MK_TRY(keys(defs, i, v));
    emit(OP_LDVAR, (u8)v.scope, *nk, defs[i].number,
         var_imm(defs, i));
  }
  if (post) { // x++ is worth x before: undo the step on the copy
    auto pt = ptr_type(v);
    emit(OP_PUSH, 0, 0, 0, pt ? step_of(*pt) : 1);
    emit(op == X_ADD ? OP_SUB : OP_ADD);
    if (defs[i].bits < 64)
      emit(defs[i].is_signed ? OP_SEXT : OP_ZEXT, defs[i].bits);
  }
  return defs[i].type;
}

// One more scratch buffer for the clause (a string copied in or made, a
// stack walked).
Result<void> Compiler::take_scratch(const Expr &e) {
  if (++scratch_ > kMaxScratch)
    return sem(DTag::D_VAR_UNSUP, e.line,
               strf("more than %u strings or stacks made in one clause",
                    kMaxScratch));
  return {};
}

// A call of a built-in function: its arguments checked against the table's
// types, then what the table says it compiles to.
Result<Type> Compiler::call(const Expr &e) {
  const BuiltinFn *f = find_builtin(e.name);
  if (!f) // the parser accepts only the table's names
    return sem(DTag::D_FUNC_UNDEF, e.line, "unknown function " + e.name + "( )");
  prog_.destructive_used |= (f->flags & BF_DESTRUCTIVE) != 0;
  if (f->how == BuiltinFn::Speculation) {
    emit(OP_SPECULATION);
    return Type::Int32;
  }
  if (f->how == BuiltinFn::Alloca || f->how == BuiltinFn::Bcopy) {
    // In the order the operation pops them: alloca(size); copyin(src,
    // size); bcopy(src, dst, size); copyinto(src, size, dst).
    const bool into = e.name == "copyinto";
    const size_t dst = into ? 2 : 1;
    if (e.name == "alloca")
      if (auto n = fold_constant(*e.kids[0]); n && (u64)*n > prog_.scratch_size())
        return sem(DTag::D_ALLOCA_SIZE, e.line,
                   strf("alloca(%llu) size larger than scratchsize %u",
                        (unsigned long long)*n, prog_.scratch_size()));
    static const size_t order[] = {0, 2, 1};
    for (size_t n = 0; n < e.kids.size(); n++) {
      const size_t i = into ? order[n] : n;
      auto t = expr(*e.kids[i]);
      if (!t)
        return t;
      if (!is_int(*t) && !(i == 0 && *t == Type::String && e.name != "alloca"))
        return sem(DTag::D_PROTO_ARG, e.line,
                   proto_arg(std::string(f->name) + "( )", i + 1,
                             f->how == BuiltinFn::Bcopy && i == dst
                                 ? "void *"
                                 : "size_t",
                             type_name(*t)));
    }
    if (f->how == BuiltinFn::Bcopy && !ptr_type(*e.kids[dst]))
      return sem(DTag::D_PROTO_ARG, e.line,
                 proto_arg(std::string(f->name) + "( )", dst + 1, "void *",
                           "integer"));
    // What D may write is alloca( )'s memory: a destination that is not
    // known to point there (NULL, a kernel address, a pointer variable
    // never given one) is refused before tracing, as DTrace refuses it.
    if (f->how == BuiltinFn::Bcopy && !alloca_ptr(*e.kids[dst]))
      return sem(DTag::D_PROTO_ARG, e.line,
                 proto_arg(std::string(f->name) + "( )", dst + 1,
                           "alloca pointer", "non-alloca pointer"));
    emit(f->how == BuiltinFn::Bcopy ? OP_BCOPY
         : e.name == "copyin"       ? OP_COPYIN
                                    : OP_ALLOCA);
    prog_.memory_used = true;
    return f->ret;
  }
  if (e.name == "[]") { // p[i] of a pointer p
    auto p = place(e);
    if (!p)
      return p.take_error();
    if (*p)
      return load(**p, e.line);
  }
  if (f->how == BuiltinFn::Stack) {
    // The walk writes into a scratch buffer, as a copied string does.
    MK_TRY(take_scratch(e));
    const u32 cap = prog_.pragmas.maxframes;
    emit(OP_STACK, (u8)(cap && (u64)e.ival > cap ? cap : e.ival));
    return Type::Stack;
  }
  u8 nulls = 0; // arguments given as NULL
  for (size_t i = 0; i < e.kids.size(); i++) {
    const Expr &k = *e.kids[i];
    const ArgT want = f->args[i];
    if (k.kind == Expr::Void)
      return f->how == BuiltinFn::CopyIn && e.name == "stringof"
                 ? sem(DTag::D_STRINGOF_TYPE, e.line,
                       "cannot apply stringof to a value of type void")
                 : sem(DTag::D_PROTO_ARG, e.line,
                       proto_arg(std::string(f->name) + "( )", i + 1,
                                 want == ArgT::Int ? "int" : "char *", "void"));
    // NULL where a string may be absent: strtok(NULL, ",").
    if (want == ArgT::StrOrNull && k.kind == Expr::Int && k.ival == 0) {
      emit(OP_PUSH, 0, 0, 0, 0);
      nulls |= (u8)(1u << i);
      continue;
    }
    auto t = expr(k);
    if (!t)
      return t;
    // A char * where a string goes: the string it points to.
    if ((want == ArgT::Str || want == ArgT::StrOrNull) && is_int(*t) &&
        is_char_ptr(k)) {
      {
        MK_TRY(take_scratch(e));
        emit(OP_STRINGOF);
        t = Type::String;
      }
    }
    const bool str = *t == Type::String;
    if (*t == Type::Stack ||
        (want == ArgT::Int && str) ||
        ((want == ArgT::Str || want == ArgT::StrOrNull) && !str))
      return sem(DTag::D_PROTO_ARG, e.line,
                 proto_arg(std::string(f->name) + "( )", i + 1,
                           want == ArgT::Int ? "int" : "char *", type_name(*t)));
    if (f->how == BuiltinFn::CopyIn && str)
      return Type::String; // a string stays as it is
  }
  if (f->how == BuiltinFn::CopyIn) {
    MK_TRY(take_scratch(e));
    emit(OP_STRINGOF, 0, e.kids.size() > 1 ? 1 : 0); // copyinstr(a, max)
    return Type::String;
  }
  if (f->flags & BF_DST)
    MK_TRY(take_scratch(e));
  emit(OP_CALL, nulls, (u16)e.kids.size(), builtin_index(*f));
  return f->ret;
}

// Speculation's rules, as DTrace on BPF checks them (dt_cg_clsflags):
// speculate( ) once, before any action that records; no aggregation,
// exit( ) or destructive action after it; commit( ) before any record
// and nothing recorded after it.  discard( ) may go anywhere.
// `recorded`: an action that records or aggregates came before;
// `committed`: commit( ) did.
Result<void> Compiler::speculation_order(const Stmt &s, bool speculates,
                                         bool recorded, bool committed) {
  switch (s.kind) {
  case Stmt::Assign: // no actions
    return {};
  case Stmt::Eval: {
    const BuiltinFn *f = s.args.empty() || s.args[0]->kind != Expr::Call
                             ? nullptr
                             : find_builtin(s.args[0]->name);
    if (!f || !(f->flags & BF_DESTRUCTIVE))
      return {}; // an expression, evaluated: no action
    if (speculates)
      return sem(DTag::D_ACT_SPEC, s.line,
                 "destructive actions may not follow speculate( )");
    break;
  }
  case Stmt::Commit:
    if (recorded)
      return sem(DTag::D_COMM_DREC, s.line,
                 "commit( ) may not follow data-recording action(s)");
    return {};
  case Stmt::Discard:
    return {};
  case Stmt::Speculate:
    if (speculates)
      return sem(DTag::D_SPEC_SPEC, s.line,
                 "speculate( ) may not follow speculate( )");
    if (committed)
      return sem(DTag::D_SPEC_COMM, s.line, "speculate( ) may not follow commit( )");
    if (recorded)
      return sem(DTag::D_SPEC_DREC, s.line,
                 "speculate( ) may not follow data-recording action(s)");
    return {};
  case Stmt::Aggregate:
    if (committed)
      return sem(DTag::D_AGG_COMM, s.line,
                 "aggregating actions may not follow commit( )");
    if (speculates)
      return sem(DTag::D_AGG_SPEC, s.line,
                 "aggregating actions may not follow speculate( )");
    return {};
  case Stmt::Exit:
    if (speculates)
      return sem(DTag::D_EXIT_SPEC, s.line, "exit( ) may not follow speculate( )");
    break;
  default:
    break;
  }
  if (committed)
    return sem(DTag::D_DREC_COMM, s.line,
               "data-recording actions may not follow commit( )");
  return {};
}

// Check printf/printa arguments against the conversions.  For printa the
// keys feed the conversions in order and %@ (or the first conversion past
// the keys) takes the value.
Result<void> Compiler::check_format(const Stmt &s, const Format &f,
                                    const std::vector<Type> &args, bool printa,
                                    size_t naggs,
                                    const std::vector<u8> *floats) {
  const char *what = printa ? "printa( )" : "printf( )";
  size_t next = 0, conv_no = 0;
  size_t values = 0; // aggregations' values taken so far
  bool value_used = false; // every value taken
  for (const Conv &c : f.convs) {
    conv_no++;
    std::string spec = "%";
    spec += c.agg ? "@" : "";
    spec += c.conv;
    // DTrace's words: the argument (printa's keys are all argument #2,
    // the aggregation's), the conversion, what it takes, what it got.
    auto mismatch = [&](DTag tag, const std::string &conv, const char *proto,
                        const std::string &got) {
      return sem(tag, s.line,
                 strf("%s argument #%zu is incompatible with conversion #%zu "
                      "prototype:\n\tconversion: %s\n\t prototype: %s\n\t"
                      "  argument: %s",
                      what, printa ? 2 : next + 1, conv_no, conv.c_str(), proto,
                      got.c_str()));
    };
    // role: "" for the value, "*" or ".*" for a width or precision.
    auto take = [&](bool want_string, const char *role,
                    bool want_stack = false) -> Result<void> {
      if (printa) {
        if (next >= args.size()) {
          if (value_used)
            return sem(DTag::D_PRINTA_AGGKEY, s.line,
                       strf("%s conversion #%zu (%s) has no key or value left "
                            "to print",
                            what, conv_no, spec.c_str()));
          value_used = ++values == naggs; // the values, after the keys
          if (want_string || want_stack)
            return mismatch(DTag::D_PRINTF_ARG_TYPE, spec,
                            want_stack ? "stack" : "char [] or string (or use stringof)",
                            "aggregation value (int64_t)");
          return {};
        }
      } else if (next >= args.size()) {
        return sem(*role ? DTag::D_PRINTF_DYN_PROTO : DTag::D_PRINTF_ARG_PROTO,
                   s.line,
                   strf("%s prototype mismatch: conversion #%zu (%s) is missing "
                        "a corresponding %s argument",
                        what, conv_no, spec.c_str(),
                        *role ? strf("\"%s\"", role).c_str() : "value"));
      }
      const u8 fl = floats && next < floats->size() ? (*floats)[next] : 0;
      Type t = args[next++];
      const bool want_float = !*role && strchr("eEfgG", c.conv);
      const bool ok = want_stack    ? t == Type::Stack
                      : want_string ? t == Type::String
                      : want_float  ? fl != 0
                                    : is_int(t) && !fl;
      if (ok)
        return {};
      const std::string got =
          fl ? (fl == 4 ? "float" : "double") : type_name(t);
      if (*role)
        return mismatch(DTag::D_PRINTF_DYN_TYPE,
                        strf("%% %s %c", role, c.conv), "int", got);
      const char *proto = want_stack    ? "stack"
                          : want_string ? "char [] or string (or use stringof)"
                          : want_float  ? "double"
                          : c.conv == 'p' || c.conv == 'a' ? "pointer or integer"
                          : c.conv == 'c' ? "char, short, or int"
                                          : "char, short, int, long, or long long";
      return mismatch(DTag::D_PRINTF_ARG_TYPE, spec, proto, got);
    };
    if (c.width == -2)
      MK_TRY(take(false, "*"));
    if (c.prec == -2)
      MK_TRY(take(false, ".*"));
    if (c.agg) {
      if (!printa)
        return sem(DTag::D_PRINTF_AGG_CONV, s.line,
                   "%@ conversion requires an aggregation and is not for use "
                   "with printf( )");
      // A %@ past the last aggregation prints the last one's value
      // again, as DTrace's does.
      if (c.conv == 's' || c.conv == 'c' || c.conv == 'k')
        return sem(DTag::D_PRINTF_AGG_CONV, s.line,
                   strf("printa( ) conversion %s: the value is an integer",
                        spec.c_str()));
      value_used = ++values == naggs;
      continue;
    }
    MK_TRY(take(c.conv == 's', "", c.conv == 'k'));
  }
  if (!printa && next < args.size())
    return sem(DTag::D_PRINTF_ARG_EXTRA, s.line,
               strf("printf( ) prototype mismatch: only %zu arguments required "
                    "by this format string",
                    next));
  return {};
}

bool Compiler::alloca_ptr(const Expr &e) const {
  switch (e.kind) {
  case Expr::Call: // copyin( )'s copy is in alloca( )'s bytes too
    return e.name == "alloca" || e.name == "copyin";
  case Expr::Cast: // no cast takes the taint away
    return alloca_ptr(*e.kids[0]);
  case Expr::Binary: // pointer arithmetic
    return (e.op == X_ADD || e.op == X_SUB) &&
           (alloca_ptr(*e.kids[0]) || alloca_ptr(*e.kids[1]));
  case Expr::Assign:
    return alloca_ptr(*e.kids[1]);
  case Expr::Ternary:
    return alloca_ptr(*e.kids[1]) || alloca_ptr(*e.kids[2]);
  case Expr::Unary: { // &p[i], &p->m of p in alloca( )'s bytes
    if (e.op != X_ADDR)
      return false;
    const Expr *b = e.kids[0].get();
    while ((b->kind == Expr::Call && b->name == "[]") ||
           (b->kind == Expr::Member && b->ival) ||
           (b->kind == Expr::Unary && b->op == X_DEREF))
      b = b->kids[0].get();
    return alloca_ptr(*b);
  }
  case Expr::Variable: {
    auto u = alloca_use_.find({e.scope, e.name});
    return u != alloca_use_.end() && (u->second & kAllocaPtr);
  }
  default:
    return false;
  }
}

Result<void> Compiler::alloca_assign(const Expr &v, const Expr &x, int line) {
  const VarDecl *d = decl_of(v.scope, v.name);
  if (!v.kids.empty() && d && d->type.pointer && !d->assoc)
    return {}; // p[i] = x of a pointer p: memory, no variable
  if (x.kind == Expr::Ternary &&
      alloca_ptr(*x.kids[1]) != alloca_ptr(*x.kids[2]))
    return sem(DTag::D_ALLOCA_INCOMPAT, line,
               "ternary conditional with alloca and non-alloca branches "
               "cannot be assigned to a variable");
  const u8 use = alloca_ptr(x)                             ? kAllocaPtr
                 : x.kind == Expr::Int && x.ival == 0 ? 0
                                                           : kOtherValue;
  u8 &now = alloca_use_[{v.scope, v.name}];
  now |= use;
  if (now == (kAllocaPtr | kOtherValue))
    return sem(DTag::D_ALLOCA_INCOMPAT, clause_line_,
               v.name + ": cannot reuse the same identifier for both alloca "
                        "and non-alloca allocations");
  return {};
}

Result<void> Compiler::clause(size_t ci) {
  ClauseAst &c = ast_.clauses[ci];
  origin_ = c.origin.get();
  clause_line_ = c.line;
  CompiledClause cc;
  probes_ = &matched_[ci];
  for (const ProbeInfo &p : *probes_)
    cc.probes.push_back(p.id);
  for (size_t i = 0; i < c.descs.size(); i++) {
    cc.descs += (i ? ", " : "") + c.descs[i];
    cc.pdescs.push_back(ProbeDesc::parse(c.descs[i]));
  }
  for (size_t i = 0; i < ci; i++)
    cc.first_stmt += (u32)ast_.clauses[i].descs.size();
  code_ = &cc.code;
  scratch_ = 0;
  sp_ = max_sp_ = 0;
  types_.clear();
  if (c.pred) {
    const VarDecl *d = c.pred->kind == Expr::Variable && c.pred->kids.empty()
                           ? decl_of(c.pred->scope, c.pred->name)
                           : nullptr;
    if (d && d->dim != VarDecl::kNotArray) // an array: no scalar
      return sem(DTag::D_PRED_SCALAR, c.end_line,
                 "predicate result must be of scalar type");
    auto t = expr(*c.pred);
    if (!t)
      return t.take_error();
    if (!is_int(*t))
      return sem(DTag::D_PRED_SCALAR, c.end_line,
                 "predicate result must be of scalar type");
    emit(OP_PRED);
  }
  cc.records = c.stmts.empty();
  for (const Stmt &s : c.stmts)
    if (s.kind != Stmt::Aggregate && s.kind != Stmt::Assign &&
        s.kind != Stmt::Eval)
      cc.records = true;
  u32 reserve_at = here();
  if (cc.records)
    emit(OP_RESERVE);
  i64 size = 24; // the record header
  auto rec = [&](Type t) {
    if (t == Type::Stack) {
      emit(OP_REC_STACK); // its count, then that many PCs
      size += 8 * (1 + kMaxStackFrames);
    } else if (t == Type::String) {
      emit(OP_REC_STR);
      size += 8 + kStrSize;
    } else {
      emit(OP_REC_INT);
      size += 8;
    }
  };
  // `n` bytes at the popped address (tracemem, print): read back as a
  // String of bytes.
  auto rec_mem = [&](u64 n) {
    emit(OP_REC_MEM, 0, 0, 0, (i64)n);
    size += 8 + (i64)((n + 7) & ~(u64)7);
    prog_.memory_used = true;
  };
  int action = 0;
  // Speculation's rules (speculation_order( )).
  bool speculates = false, recorded = false, committed = false;
  for (const Stmt &s : c.stmts) {
    ++action;
    cc.action_at.resize(here(), (u8)(action - 1));
    MK_TRY(speculation_order(s, speculates, recorded, committed));
    recorded |= s.kind != Stmt::Assign && s.kind != Stmt::Eval &&
                s.kind != Stmt::Speculate && s.kind != Stmt::Commit &&
                s.kind != Stmt::Discard;
    Action a;
    switch (s.kind) {
    case Stmt::Trace:
    case Stmt::Exit: {
      const Expr &arg = *s.args[0];
      if (s.kind == Stmt::Trace &&
          (arg.kind == Expr::Void ||
           (arg.kind == Expr::Cast && arg.ctype.is_void && !arg.ctype.pointer)))
        return sem(DTag::D_TRACE_VOID, s.line,
                   "trace( ) may not be applied to a void expression");
      auto t = s.args[0]->kind == Expr::Void ? Result<Type>(Type::Void)
                                             : expr(*s.args[0]);
      if (!t)
        return t.take_error();
      a.kind = s.kind == Stmt::Trace ? Action::Trace : Action::Exit;
      if (s.kind == Stmt::Exit) {
        if (!is_int(*t))
          return sem(DTag::D_PROTO_ARG, s.line,
                     proto_arg("exit( )", 1, "int", type_name(*t)));
        emit(OP_EXIT);
        size += 8;
        a.types.push_back(Type::Int32);
      } else {
        narrow(*t);
        rec(*t);
        a.types.push_back(*t);
      }
      break;
    }
    case Stmt::System:
    case Stmt::Freopen:
    case Stmt::Printf: {
      a.kind = s.kind == Stmt::System    ? Action::System
               : s.kind == Stmt::Freopen ? Action::Freopen
                                         : Action::Printf;
      prog_.destructive_used |= s.kind != Stmt::Printf;
      if (s.fmt_expr) {
        const char *fn = s.kind == Stmt::System    ? "system( )"
                         : s.kind == Stmt::Freopen ? "freopen( )"
                                                   : "printf( )";
        auto t = type_of(*s.args[0]);
        if (!t)
          return t.take_error();
        return *t == Type::String
                   ? sem(DTag::D_PRINTF_ARG_FMT, s.line,
                         proto_arg(fn, 1, "string constant", "string"))
                   : sem(DTag::D_PROTO_ARG, s.line,
                         proto_arg(fn, 1, "string", type_name(*t)));
      }
      if (s.kind == Stmt::Printf && s.fmt.empty())
        return sem(DTag::D_PRINTF_FMT_EMPTY, s.line,
                   "printf( ) format string is empty");
      // A directory: refused before tracing starts, as DTrace refuses
      // it (its own sentinel for freopen("")).
      if (s.kind == Stmt::Freopen && s.fmt == ".")
        return sem(DTag::D_FREOPEN_INVALID, s.line,
                   "freopen( ) argument #1 cannot be \".\"");
      // DTrace types the arguments as it parses them, before it reads
      // the format: an argument's error comes first.
      for (const ExprPtr &e : s.args)
        if (e->kind != Expr::Void && e->kind != Expr::AggRef)
          if (auto t = type_of(*e); !t)
            return t.take_error();
      auto f = parse_format(s.fmt);
      if (!f)
        return sem(DTag::D_SYNTAX, s.line, f.error().message);
      prog_.formats.push_back(std::move(*f));
      a.fmt = &prog_.formats.back();
      // The arguments %s prints: a char * among them is its string.
      std::vector<bool> as_string;
      for (const Conv &c : a.fmt->convs) {
        if (c.width == -2)
          as_string.push_back(false);
        if (c.prec == -2)
          as_string.push_back(false);
        as_string.push_back(c.conv == 's');
      }
      std::vector<u8> floats;
      for (size_t i = 0; i < s.args.size(); i++) {
        const Expr &e = *s.args[i];
        floats.push_back(float_bytes(e));
        if (e.kind == Expr::Void || e.kind == Expr::AggRef) {
          // for check_format( )'s message
          a.types.push_back(e.kind == Expr::Void ? Type::Void : Type::Agg);
          continue;
        }
        auto t = expr(e);
        if (!t)
          return t.take_error();
        if (i < as_string.size() && as_string[i] && is_int(*t) &&
            is_char_ptr(e)) {
          MK_TRY(take_scratch(e));
          emit(OP_STRINGOF);
          t = Type::String;
        }
        narrow(*t);
        rec(*t);
        a.types.push_back(*t);
      }
      MK_TRY(check_format(s, *a.fmt, a.types, false, 1, &floats));
      for (const ExprPtr &e : s.args)
        if (e->kind == Expr::Void || e->kind == Expr::AggRef)
          MK_TRY(expr(*e)); // an extra argument, no conversion's
      break;
    }
    case Stmt::Printa: {
      a.kind = Action::Printa;
      std::vector<std::string> names{s.agg};
      names.insert(names.end(), s.more_aggs.begin(), s.more_aggs.end());
      for (const std::string &n : names) {
        auto it = agg_ids_.find(n);
        if (it == agg_ids_.end())
          return sem(DTag::D_PRINTA_AGGBAD, s.line, "printa( ) of an aggregation that is "
                                      "never assigned");
        a.aggs.push_back(it->second); // (twice is allowed, as in DTrace)
      }
      a.agg = a.aggs[0];
      if (s.has_fmt) {
        auto f = parse_format(s.fmt);
        if (!f)
          return sem(DTag::D_SYNTAX, s.line, f.error().message);
        prog_.formats.push_back(std::move(*f));
        a.fmt = &prog_.formats.back();
        // Key types are known once every aggregating clause compiled: the
        // check runs after them (see run()).
      }
      break;
    }
    case Stmt::Normalize:
    case Stmt::Denormalize:
    case Stmt::Trunc:
    case Stmt::Clear: {
      // Done by the consumer when it reads the record, in order with
      // printa( ), as DTrace's consumer does; a factor or count travels
      // in the record.
      static const Action::Kind kinds[] = {Action::Normalize,
                                           Action::Denormalize, Action::Trunc,
                                           Action::Clear};
      const char *what = s.kind == Stmt::Normalize     ? "normalize"
                         : s.kind == Stmt::Denormalize ? "denormalize"
                         : s.kind == Stmt::Trunc       ? "trunc"
                                                       : "clear";
      a.kind = kinds[s.kind - Stmt::Normalize];
      auto it = agg_ids_.find(s.agg);
      if (it == agg_ids_.end())
        return sem(DTag::D_PRINTA_AGGBAD, s.line, strf("%s( ) of an aggregation that is "
                                             "never assigned", what));
      a.agg = it->second;
      for (const ExprPtr &e : s.args) {
        auto t = expr(*e);
        if (!t)
          return t.take_error();
        if (!is_int(*t))
          return sem(DTag::D_TRUNC_SCALAR, s.line,
                     strf("%s( ) needs an integer %s, not a %s", what,
                          s.kind == Stmt::Trunc ? "count" : "factor",
                          type_name(*t)));
        rec(Type::Int64);
        a.types.push_back(Type::Int64);
      }
      break;
    }
    case Stmt::Tracemem: {
      // tracemem(addr, size [, show]): `size` bytes recorded (a constant,
      // as the record's room is), `show` of them printed.
      a.kind = Action::Tracemem;
      auto st = type_of(*s.args[1]);
      if (!st)
        return st.take_error();
      if (!is_int(*st))
        return sem(DTag::D_PROTO_ARG, s.line,
                   proto_arg("tracemem( )", 2, "size_t", type_name(*st)));
      if (s.args[1]->kind != Expr::Int || s.args[1]->ival <= 0)
        return sem(DTag::D_TRACEMEM_SIZE, s.line,
                   "tracemem( ) argument #2 must be a non-zero positive "
                   "integral constant expression");
      if (s.args[1]->ival > (i64)kMaxTracemem)
        return sem(DTag::D_TRACEMEM_SIZE, s.line,
                   strf("tracemem( ) records %u bytes at most", kMaxTracemem));
      if (s.args.size() == 3) {
        auto t = expr(*s.args[2]);
        if (!t)
          return t.take_error();
        if (!is_int(*t))
          return sem(DTag::D_PROTO_ARG, s.line,
                     proto_arg("tracemem( )", 3, "ssize_t", type_name(*t)));
        narrow(*t);
      } else {
        emit(OP_PUSH, 0, 0, 0, -1); // all of them
      }
      rec(Type::Int64);
      a.types.push_back(Type::Int64);
      // A struct (tracemem(*curthread, n)) is refused by its type before
      // it would be as a value.
      auto pl = place(*s.args[0]);
      if (!pl)
        return pl.take_error();
      if (*pl && (*pl)->type.sou && !(*pl)->type.pointer)
        return sem(DTag::D_TRACEMEM_ADDR, s.line,
                   proto_arg("tracemem( )", 1, "pointer or integer",
                             (*pl)->type.name));
      auto at = type_of(*s.args[0]);
      if (!at)
        return at.take_error();
      if (!is_int(*at) || (*pl && (*pl)->type.sou))
        return sem(DTag::D_TRACEMEM_ADDR, s.line,
                   proto_arg("tracemem( )", 1, "pointer or integer",
                             *pl && (*pl)->type.sou ? (*pl)->type.name
                                                    : type_name(*at)));
      MK_TRY(expr(*s.args[0]));
      rec_mem((u64)s.args[1]->ival);
      a.types.push_back(Type::String);
      break;
    }
    case Stmt::Print: {
      // print(p): the address, then the bytes of the object p points to
      // (at most kMaxPrint), shown by its type when the record is read.
      a.kind = Action::Print;
      auto at = type_of(*s.args[0]);
      if (!at)
        return at.take_error();
      const auto pt = ptr_type(*s.args[0]);
      if (!pt || !pt->pointee)
        return sem(DTag::D_PROTO_ARG, s.line,
                   proto_arg("print( )", 1, "void *", type_name(*at)));
      const CType &obj = *pt->pointee;
      if (obj.size() == 0)
        return sem(DTag::D_PRINT_SIZE, s.line,
                   "print( ) argument #1 reference has type '" + obj.name +
                       "' with size 0; cannot print( ) it.");
      MK_TRY(expr(*s.args[0]));
      emit(OP_DUP);
      rec(Type::Int64);
      a.types.push_back(Type::Int64);
      rec_mem(std::min<u64>(obj.size(), kMaxPrint));
      a.types.push_back(Type::String);
      prog_.printed.push_back(obj);
      a.object = &prog_.printed.back();
      break;
    }
    case Stmt::Setopt: {
      // The consumer sets it when it reads the record, as DTrace's does.
      a.kind = Action::Setopt;
      for (const ExprPtr &e : s.args) {
        auto t = expr(*e);
        if (!t)
          return t.take_error();
        if (*t != Type::String)
          return sem(DTag::D_PROTO_ARG, s.line,
                     proto_arg("setopt( )", a.types.size() + 1, "char *",
                               type_name(*t)));
        rec(*t);
        a.types.push_back(*t);
      }
      break;
    }
    case Stmt::Speculate:
    case Stmt::Commit:
    case Stmt::Discard: {
      const char *what = s.kind == Stmt::Speculate ? "speculate"
                         : s.kind == Stmt::Commit  ? "commit"
                                                   : "discard";
      auto t = expr(*s.args[0]);
      if (!t)
        return t.take_error();
      if (!is_int(*t))
        return sem(DTag::D_PROTO_ARG, s.line,
                   proto_arg(std::string(what) + "( )", 1, "int", type_name(*t)));
      if (s.kind == Stmt::Speculate) {
        a.kind = Action::Speculate;
        emit(OP_SPECULATE);
        speculates = true;
      } else {
        a.kind = s.kind == Stmt::Commit ? Action::Commit : Action::Discard;
        emit(OP_SPECEND, s.kind == Stmt::Commit ? 0 : 1);
        size += 8;
        a.types.push_back(Type::Int64);
        committed |= s.kind == Stmt::Commit;
      }
      break;
    }
    case Stmt::Assign: {
      // Recorded nothing: the drain side skips it like an aggregation.
      a.kind = Action::Aggregate;
      a.agg = ~0u;
      auto t = assign(*s.args[0], *s.args[1], s.line, false);
      if (!t)
        return t.take_error();
      break;
    }
    case Stmt::Eval: {
      a.kind = Action::Aggregate; // records nothing, as an assignment
      a.agg = ~0u;
      auto t = expr(*s.args[0]);
      if (!t)
        return t.take_error();
      emit(OP_POP);
      break;
    }
    case Stmt::Aggregate: {
      a.kind = Action::Aggregate;
      u32 id = agg_ids_.at(s.agg);
      a.agg = id;
      AggDef &d = prog_.aggs[id];
      std::vector<Type> keys;
      u32 stable = 0;
      for (const ExprPtr &k : s.keys) {
        if (k->kind == Expr::Str ||
            (k->kind == Expr::Var && k->builtin >= Builtin::ProbeProv))
          stable |= 1u << keys.size();
        auto t = expr(*k);
        if (!t)
          return t.take_error();
        narrow(*t);
        // An integer key of another integer type than the first use gave
        // it becomes that type, as DTrace converts it.
        Type kt = *t;
        const size_t i = keys.size();
        if (key_types_set_[id] && i < d.keys.size() && kt != d.keys[i] &&
            is_int(kt) && is_int(d.keys[i])) {
          narrow(d.keys[i]);
          kt = d.keys[i];
        }
        keys.push_back(kt);
      }
      std::string at = "@" + s.agg;
      // The first use defines the keys; later ones must agree.
      if (!key_types_set_[id]) {
        d.keys = keys;
        key_types_set_[id] = true;
      } else if (d.keys != keys) {
        auto sig = [](const std::vector<Type> &v) {
          std::string r = "[";
          for (size_t i = 0; i < v.size(); i++)
            r += std::string(i ? ", " : "") + type_name(v[i]);
          return r + "]";
        };
        return sem(DTag::D_PRINTA_AGGKEY, s.line, strf("@%s is used with keys %s and %s",
                                    s.agg.c_str(), sig(d.keys).c_str(),
                                    sig(keys).c_str()));
      }
      if (s.fn == AggFn::Count) {
        if (keys.empty()) {
          emit(OP_COUNT0, 0, 0, 0, id);
          break;
        }
        emit(OP_AGG, 0, (u16)keys.size(), stable, id);
        sp_++; // count( ) has no value on the stack to pop
        break;
      }
      auto t = expr(*s.args[0]);
      if (!t)
        return t.take_error();
      if (!is_int(*t))
        return sem(DTag::D_AGG_SCALAR, s.line,
                   strf("%s( ) needs an integer value, not a string",
                        agg_fn_name(s.fn)));
      if (d.weighted) {
        // The weight: the histogram's last argument, else 1.
        const size_t at = s.fn == AggFn::Quantize    ? 1
                          : s.fn == AggFn::LQuantize ? 4
                                                     : 5;
        if (s.args.size() > at) {
          auto w = expr(*s.args[at]);
          if (!w)
            return w.take_error();
          if (!is_int(*w))
            return sem(DTag::D_AGG_SCALAR, s.line,
                       strf("%s( ) needs an integer weight, not a string",
                            agg_fn_name(s.fn)));
        } else {
          emit(OP_PUSH, 0, 0, 0, 1);
        }
      }
      emit(OP_AGG, 0, (u16)keys.size(), stable, id);
      if (d.weighted)
        sp_--; // the weight, which stack_effect( ) does not count
      break;
    }
    }
    cc.actions.push_back(std::move(a));
  }
  if (cc.records) {
    (*code_)[reserve_at].imm = size;
    emit(OP_COMMIT);
  }
  emit(OP_RET);
  if (max_sp_ > (int)kStackDepth)
    return sem(DTag::D_VAR_UNSUP, c.line,
               strf("the clause needs %d values on the interpreter's stack "
                    "at once (at most %u): nest its expressions less",
                    max_sp_, kStackDepth));
  cc.action_at.resize(here(), (u8)std::min(action, 255));
  if (!c.pred && c.stmts.size() == 1 && cc.code.size() == 2 &&
      cc.code[0].op == OP_COUNT0) {
    cc.fast = CompiledClause::Count0;
    cc.fast_agg = (u32)cc.code[0].imm;
  }
  prog_.clauses.push_back(std::move(cc));
  return {};
}

Result<void> Compiler::run() {
  MK_TRY(check_translators());
  MK_TRY(define_aggs());
  infer_var_types();
  key_types_set_.assign(prog_.aggs.size(), false);
  for (size_t i = 0; i < ast_.clauses.size(); i++)
    MK_TRY(clause(i));
  prog_.nlocals = (u32)locals_.size();
  // dt_wvars' entry: the widest key and value of the variables there.
  for (const VarDef &d : prog_.vars) {
    if (!d.wide())
      continue;
    u32 k = 8;
    if (d.keyed) {
      k = 0;
      for (Type t : d.keys)
        k += t == Type::String ? kStrSize : 8;
    }
    prog_.wkey_size = std::max(prog_.wkey_size, 8 + k);
    if (d.type == Type::String)
      prog_.wval_size = kStrSize;
  }
  // printa( ) formats, now that every aggregation's keys are known.
  for (size_t i = 0; i < ast_.clauses.size(); i++) {
    const ClauseAst &c = ast_.clauses[i];
    origin_ = c.origin.get();
    for (size_t j = 0; j < c.stmts.size(); j++) {
      const Action &a = prog_.clauses[i].actions[j];
      if (a.kind != Action::Printa)
        continue;
      const AggDef &d = prog_.aggs[a.agg];
      // printa( ) joins aggregations by key: their keys must agree.
      for (u32 other : a.aggs) {
        const AggDef &o = prog_.aggs[other];
        auto keys = [](size_t n) { return strf("%zu key%s", n, n == 1 ? "" : "s"); };
        if (o.keys.size() != d.keys.size())
          return sem(DTag::D_PRINTA_AGGKEY, c.stmts[j].line,
                     strf("printa( ): @%s and @%s do not have matching key "
                          "signatures: @%s has %s, @%s has %s",
                          d.name.c_str(), o.name.c_str(), d.name.c_str(),
                          keys(d.keys.size()).c_str(), o.name.c_str(),
                          keys(o.keys.size()).c_str()));
        for (size_t k = 0; k < d.keys.size(); k++)
          if (o.keys[k] != d.keys[k]) {
            const size_t w = std::max(d.name.size(), o.name.size()) + 13;
            return sem(DTag::D_PRINTA_AGGPROTO, c.stmts[j].line,
                       strf("printa( ): @%s[ ] key #%zu is incompatible with "
                            "@%s:\n%*s: %s\n%*s: %s",
                            o.name.c_str(), k + 1, d.name.c_str(), (int)w,
                            strf("%s key #%zu", d.name.c_str(), k + 1).c_str(),
                            type_name(d.keys[k]), (int)w,
                            strf("%s key #%zu", o.name.c_str(), k + 1).c_str(),
                            type_name(o.keys[k])));
          }
      }
      if (a.fmt)
        MK_TRY(check_format(c.stmts[j], *a.fmt, d.keys, true, a.aggs.size()));
    }
  }
  return {};
}

} // namespace

Result<std::unique_ptr<Program>>
compile(ProgramAst &ast, const std::vector<std::vector<ProbeInfo>> &matched) {
  auto prog = std::make_unique<Program>();
  prog->pragmas = ast.pragmas;
  prog->types = ast.types;
  Compiler c(ast, matched, *prog);
  MK_TRY(c.run());
  return prog;
}

} // namespace mk::dt
