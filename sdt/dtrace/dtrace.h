// The shell's `dtrace`: a small D compiler and the consumer that runs its
// output.  Four parts, one file each:
//
//   parse.cpp           D source -> syntax tree (hand-written recursive
//                       descent), with one-line errors
//   compile.cpp         syntax tree + the probes each clause matched ->
//                       a Program: per-clause bytecode, record layouts,
//                       aggregation and printf descriptions
//   bpfgen.cpp          a clause's bytecode -> an eBPF program linked with
//                       the D library, verified and loaded (the default
//                       engine; the bytecode interpreter is -x engine=interp)
//   consumer.cpp        the firing path (per-thread buffers and aggregation
//                       tables, the bytecode interpreter) and the draining
//                       side (records in time order, drops, errors, merged
//                       aggregations)
//   format.cpp          output in DTrace's formats: printf conversions, the
//                       default record line, aggregations and histograms
//   cmd.cpp             the shell command: options, -l/-S listings,
//                       foreground, -c and background runs
//
// Nothing here is global: a Consumer belongs to one enabling, and the
// command's state (background enablings) to one Kernel.
#pragma once

#include "../../linker/base.h"
#include "../probe.h"

#include <atomic>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mk {
class Kernel;
class CodeMap;
} // namespace mk

namespace mk::dt {

// ---- limits -------------------------------------------------------------------

constexpr u32 kStrSize = 256;     // longest string a record holds, with NUL
constexpr u32 kDefaultStrSize = 256; // the strsize option's default, DTrace's
constexpr u32 kMaxKeys = 8;       // aggregation key components
constexpr u32 kMaxAggs = 65536;   // aggregations in one program
constexpr u32 kStackDepth = 32;   // interpreter value stack
constexpr u32 kMaxScratch = 32;   // strings made or copied in by one clause
constexpr u32 kDefaultScratchSize = 256; // alloca( )'s bytes per clause
constexpr u32 kMaxScratchSize = 65536;   // the scratchsize option's most
constexpr u32 kMaxTracemem = 4096;       // bytes one tracemem( ) records
constexpr u32 kDefaultPrintSize = 8192;  // bytes print( ) shows, as DTrace's
constexpr u32 kMaxPrint = 65536;         // and records at most
constexpr int kQuantBuckets = 127; // DTrace's quantize(): -2^62 .. 2^62
constexpr int kQuantZero = 63;    // the bucket of 0
constexpr u32 kStackFrames = 20;  // stack( ) without a count, as DTrace's
constexpr u32 kMaxStackFrames = 31; // a stack and its count fill a scratch
                                    // string's kStrSize bytes

// ---- types and the syntax tree --------------------------------------------------

// D values: integers of 1, 2, 4 and 8 bytes, signed or not (how trace()
// and default printing size and show them; every one is held widened to
// 64 bits), strings, and kernel stacks (stack( ): traced, or an
// aggregation key).
enum class Type : u8 {
  Int32, Int64, String, Stack, UInt32, UInt64, Int8, Int16, UInt8, UInt16,
  Void, // an action's (no value: only named in errors)
  Agg,  // an aggregation given where a value goes (only named in errors)
};

// A C type a declaration, a cast or sizeof names: an integer of 1, 2, 4 or
// 8 bytes, signed or not, D's string, a struct or union the script
// declares (its layout in *sou), void, or a pointer (an address, unsigned,
// to *pointee).
struct Sou;
struct CType {
  u8 bytes = 8;
  bool is_signed = true;
  bool string = false;
  std::string name; // as written, for messages
  const Sou *sou = nullptr; // a struct or union (ProgramAst::types')
  bool pointer = false;
  std::shared_ptr<const CType> pointee; // a pointer's
  bool is_void = false; // void: only the base of a pointer
  // float or double: stored and copied as its bits, printed by printf's
  // %e %f %g; D computes nothing with it (DTrace has no floating-point
  // arithmetic either).
  bool is_float = false;
  // An enum's enumerators, for print( ) (their names by value).
  std::shared_ptr<const std::vector<std::pair<std::string, i64>>> enumerators;
  u64 size() const;     // sizeof
  u32 align() const;    // in bytes
  bool same(const CType &o) const {
    return string == o.string && bytes == o.bytes &&
           is_signed == o.is_signed && sou == o.sou && pointer == o.pointer &&
           is_float == o.is_float &&
           (!pointer || name == o.name);
  }
};

// A member of a struct or union.  Members lie at whole bytes, each
// aligned to its type (a bitfield's type: the fewest power-of-two bytes
// holding its bits), with no padding at the end: DTrace's CTF layout,
// which is C's but for bitfields and the tail.
struct Field {
  std::string name;
  CType type;
  u64 off = 0; // in bits from the start of the struct (a multiple of 8)
  u8 bits = 0; // a bitfield's width; 0: the whole type
  u32 dim = 0; // an array's elements (of `type`); 0: not an array
  u64 width() const { return bits ? bits : type.size() * 8 * (dim ? dim : 1); }
};

struct Sou {
  bool is_union = false;
  bool complete = false; // declared with its members (else: named only)
  std::string name;      // "struct coords", "union" for an anonymous one
  u64 size = 0;
  u32 align = 1;
  std::vector<Field> fields;
  const Field *field(const std::string &n) const {
    for (const Field &f : fields)
      if (f.name == n)
        return &f;
    return nullptr;
  }
};

// A pointer to `t` ("int *", "char **").
CType pointer_to(const CType &t);
// The Type a value of C type `t` has once loaded (widened).
Type value_type(const CType &t);

enum class Builtin : u8 {
  Timestamp, WallTimestamp, Cpu, Id, Epid, Tid,
  ProbeProv, ProbeMod, ProbeFunc, ProbeName,
  // Asked of the consumer at run time.
  Execname,   // the shell command the thread runs, or the kernel thread
  VTimestamp, // the thread's CPU time, ns
  StackDepth, // the frames stack( ) would walk
  Caller,     // the PC stack( )'s second frame names (the probed
              // function's caller), 0 if none
  // The same on every thread of this one-process kernel: constants.
  Pid, Ppid, Uid, Gid,
  Ipl,   // 0: probes fire in threads, never at interrupt level
  Errno, // 0: there are no system calls to fail
  UCaller, UStackDepth, // 0: no thread here runs user code
  CurThread, // the firing thread's struct task_struct (task.cpp)
  CurCpu,    // the firing CPU's cpuinfo_t (task.cpp)
};

// Operators of Unary and Binary expressions.
enum ExprOp : u8 {
  X_ADD, X_SUB, X_MUL, X_DIV, X_MOD, X_SHL, X_SHR,
  X_LT, X_LE, X_GT, X_GE, X_EQ, X_NE,
  X_BAND, X_BOR, X_BXOR, X_LAND, X_LOR, X_LXOR,
  X_NEG, X_LNOT, X_BNOT,
  X_ADDR,  // &x: refused (D has no addresses of its variables)
  X_DEREF, // *p
};

// Where a D variable lives: a global (or an associative array's element),
// a thread-local (self->x), a clause-local (this->x).
enum class VarScope : u8 { Global, Thread, Clause };

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Expr {
  enum Kind : u8 {
    Int,     // ival
    Str,     // sval
    Var,     // builtin
    Arg,     // argN: ival = N
    Args,    // args[N]: ival = N (typed by the probe's argument types)
    Unary,   // op, kids[0]
    Binary,  // op, kids[0..1]
    Ternary, // kids[0] ? kids[1] : kids[2]
    Call,    // name(kids...): a built-in function (builtins.cpp)
    Variable, // a D variable: scope, name; kids: the key components of
              // an associative array element (name[k1, k2])
    Cast,     // (ctype) kids[0]
    SizeOf,   // sizeof(ctype) (no kids) or sizeof(kids[0])
    Assign,   // kids[0] (a Variable or Member) = kids[1], as an
              // expression: its value is what was stored; ival = 1 for
              // x++ / x-- (the value before), with op X_ADD / X_SUB
              // saying which
    Member,   // kids[0].name: a member of a struct or union variable
              // (ival = 1: kids[0]->name, through a pointer)
    Xlate,    // xlate<ctype>(kids[0]): a translator's output
    Void,     // name(...): an action where a value goes (an error, in
              // the words of the context the compiler finds it in)
    AggRef,   // @name as printf( )'s argument: the same kind of error
  } kind;
  ExprOp op = X_ADD; // Unary, Binary
  i64 ival = 0;
  std::string sval;
  Builtin builtin = Builtin::Timestamp;
  VarScope scope = VarScope::Global; // Variable
  std::string name;
  CType ctype; // Cast, SizeOf
  std::vector<ExprPtr> kids;
  std::string near; // source text for error messages
  int line = 1;
  int depth = 1; // levels of the tree below and including this node
  u64 read_seq = 0; // a global Variable: its read's number (the parser's)
};

// A deep copy of `e`.
ExprPtr copy_expr(const Expr &e);

// The deepest expression tree the parser builds (and so the deepest the
// compiler recurses into): a bound, with its own error, instead of a stack
// overflow on 2 000 nested parentheses or a 20 000-term sum.
constexpr int kMaxExprDepth = 256;

enum class AggFn : u8 {
  Count, Sum, Min, Max, Avg, Stddev, Quantize, LQuantize, LLQuantize
};
const char *agg_fn_name(AggFn f);

struct Stmt {
  enum Kind : u8 {
    Trace, Printf, Printa, Exit, Aggregate, Assign,
    Normalize, Denormalize, Trunc, Clear, // agg (args: the factor or count)
    Speculate, Commit, Discard,           // args[0]: the speculation
    Eval,                                 // args[0] evaluated for its
                                          // effect (++x; a = b = 0)
    System, Freopen, // printf's format and arguments: a command to run,
                     // a file the output goes to (destructive)
    Setopt,          // args: the option's name [, its value]
    Tracemem,        // args: the address, the size (a constant) [, the
                     // bytes to show]
    Print,           // args: a pointer; the object, shown by its type
  } kind;
  std::vector<ExprPtr> args; // trace/exit: 1; printf: after the format;
                             // aggregate: the function's arguments;
                             // assign: the variable, then the value
  std::string fmt;           // printf, printa (has_fmt)
  bool has_fmt = false;
  // printf's format is an expression, args[0] (an error: D's formats
  // are string constants).
  bool fmt_expr = false;
  std::string agg;           // aggregate/printa: name without '@' ("" = @)
  std::vector<std::string> more_aggs; // printa: the aggregations after agg
  std::vector<ExprPtr> keys; // aggregate: @name[keys]
  AggFn fn = AggFn::Count;
  std::string near;
  int line = 1;
};

// ---- compile errors ---------------------------------------------------------
//
// A D compile error reads as DTrace's: "failed to compile script F: line
// N: why" for a script, "invalid probe specifier TEXT: why" for -n text,
// and with -x errtags the error's class, one of DTrace's tags, before
// the line: "... script F: [D_SYNTAX] line N: syntax error near \"}\"".
#define MK_D_TAGS(X)                                                           \
  X(D_ARR_BOUNDS) X(D_DECL_ARRSUB) X(D_DECL_ARRBIG) X(D_UNKNOWN) X(D_SYNTAX) X(D_EMPTY) X(D_PDESC_ZERO) X(D_PDESC_INVAL)         \
  X(D_PRED_SCALAR) X(D_FUNC_UNDEF) X(D_SIZEOF_TYPE) X(D_STRINGOF_TYPE)         \
  X(D_OP_INT) X(D_OP_SCALAR) X(D_OP_ARITH) X(D_OP_WRITE) X(D_OP_LVAL)          \
  X(D_OP_INCOMPAT) X(D_OP_PTR) X(D_OP_ACT) X(D_AGG_REDEF) X(D_AGG_FUNC)        \
  X(D_AGG_MDIM) X(D_ARR_BADREF) X(D_DIV_ZERO) X(D_DEREF_NONPTR)                \
  X(D_CAST_INVAL) X(D_PRAGCTL_INVAL) X(D_PRAGMA_INVAL) X(D_PRAGMA_MALFORM) X(D_PRAGMA_OPTSET)     \
  X(D_PRAGMA_DEPEND) X(D_DECL_CHARATTR) X(D_DECL_BADCLASS)                    \
  X(D_PRAGERR) X(D_MACRO_UNDEF) X(D_MACRO_OFLOW) X(D_INT_OFLOW)                \
  X(D_INT_DIGIT) X(D_STR_NL) X(D_CHR_NL) X(D_CHR_NULL) X(D_CHR_OFLOW)          \
  X(D_IDENT_BADREF) X(D_IDENT_UNDEF) X(D_VAR_UNSUP) X(D_PROTO_LEN)             \
  X(D_PROTO_ARG) X(D_ARGS_TYPE) X(D_ARGS_IDX) X(D_KEY_TYPE) X(D_PRINTF_DYN_PROTO)             \
  X(D_PRINTF_DYN_TYPE) X(D_PRINTF_AGG_CONV) X(D_PRINTF_ARG_PROTO)              \
  X(D_PRINTF_ARG_TYPE) X(D_PRINTF_ARG_EXTRA) X(D_PRINTF_ARG_FMT)               \
  X(D_PRINTF_FMT_EMPTY) X(D_DECL_IDENT) X(D_DECL_COMBO) X(D_DECL_IDRED)        \
  X(D_DECL_LOCASSC) X(D_DECL_USELESS) X(D_DECL_ENCONST) X(D_DECL_ENOFLOW)  \
  X(D_DECL_TYPERED) X(D_DECL_INCOMPLETE) X(D_COMM_COMM) X(D_COMM_DREC)            \
  X(D_SPEC_SPEC) X(D_SPEC_COMM) X(D_SPEC_DREC) X(D_AGG_COMM) X(D_AGG_SPEC)     \
  X(D_AGG_SCALAR) X(D_ACT_SPEC) X(D_EXIT_SPEC) X(D_DREC_COMM)                  \
  X(D_PRINTA_PROTO) X(D_PRINTA_AGGARG) X(D_PRINTA_AGGBAD) X(D_PRINTA_AGGKEY)   \
  X(D_PRINTA_AGGPROTO) X(D_MACRO_UNUSED)                                       \
  X(D_TRACE_VOID) X(D_TRACE_DYN) X(D_STACK_PROTO) X(D_STACK_SIZE)              \
  X(D_USTACK_FRAMES) X(D_USTACK_STRSIZE)                                       \
  X(D_LQUANT_STEPVAL) X(D_LQUANT_LIMVAL) X(D_LQUANT_BASEVAL)                   \
  X(D_LQUANT_MISMATCH) X(D_LQUANT_MATCHBASE) X(D_LLQUANT_FACTORVAL)            \
  X(D_LLQUANT_LMAGVAL) X(D_LLQUANT_HMAGVAL) X(D_LLQUANT_STEPVAL)               \
  X(D_LLQUANT_MATCHFACTOR) X(D_CLEAR_AGGBAD) X(D_NORMALIZE_SCALAR)             \
  X(D_NORMALIZE_AGGBAD) X(D_TRUNC_SCALAR) X(D_TRUNC_AGGBAD)                    \
  X(D_FREOPEN_INVALID) X(D_OP_SOU) X(D_DECL_BFCONST) X(D_DECL_BFSIZE)        \
  X(D_DECL_BFTYPE) X(D_OFFSETOF_BITFIELD) X(D_OFFSETOF_TYPE)                   \
  X(D_SIZEOF_BITFIELD) X(D_ADDROF_BITFIELD) X(D_ADDROF_VAR) X(D_DECL_VOIDOBJ)  \
  X(D_TYPE_MEMBER) X(D_XLATE_NONE) X(D_XLATE_MEMB) X(D_XLATE_INCOMPAT)        \
  X(D_XLATE_SOU) X(D_XLATE_REDECL) X(D_XLATE_NOCONV) X(D_OP_INCOMPLETE) X(D_TRACEMEM_SIZE)      \
  X(D_TRACEMEM_ADDR) X(D_PRINT_SIZE) X(D_VAR_UNDEF) X(D_DECL_ARRNULL) X(D_ALLOCA_SIZE) \
  X(D_ADDROF_LVAL) X(D_DECL_PROTO_VARARGS) X(D_DECL_PARMCLASS) X(D_DECL_PROTO_NAME) \
  X(D_DECL_PROTO_VOID) X(D_DECL_PROTO_TYPE) X(D_DECL_SCOPE)                  \
  X(D_DECL_VOIDATTR) X(D_PRAGMA_UNUSED) X(D_OP_ARRFUN) X(D_ALLOCA_INCOMPAT) \
  X(D_OP_VFPTR)

enum class DTag : u8 {
#define MK_D_TAG_ENUM(t) t,
  MK_D_TAGS(MK_D_TAG_ENUM)
#undef MK_D_TAG_ENUM
};
const char *tag_name(DTag t);

// Where a clause's text came from, for its errors.
struct DOrigin {
  std::string file; // the script ("" for -n text)
  std::string spec; // the -n text
  bool errtags = false; // -x errtags: show each error's tag
};

// The error for `why` at `line` of `o`'s text.
Error d_error(const DOrigin &o, int line, DTag tag, const std::string &why);

// DTrace's D_PROTO_LEN text: "f( ) prototype mismatch: 2 args passed, at
// most 1 expected" (`what` is "f( )" or "x[ ]", `unit` "arg" or "key").
// The value of a constant integer expression, if it is one (parse.cpp):
// integers, inlines, casts, unary and binary operators; a division by
// zero is none.
std::optional<i64> fold_constant(const Expr &e);
std::string proto_len(const std::string &what, size_t passed, size_t min,
                      size_t max, const char *unit = "arg");
// DTrace's D_PROTO_ARG text: "f( ) argument #2 is incompatible with
// prototype:" and the two types on lines of their own.
std::string proto_arg(const std::string &what, size_t n, const std::string &want,
                      const std::string &got, const char *unit = "argument");

struct ClauseAst {
  std::vector<std::string> descs; // probe descriptions, as written
  ExprPtr pred;
  std::vector<Stmt> stmts;
  bool has_body = false; // '{ }' present (else: the default action)
  int line = 1;
  int end_line = 1; // the line of its '}' (of its predicate without one),
                    // where DTrace checks the predicate's type
  std::shared_ptr<const DOrigin> origin; // the script or -n text
};

// `#pragma D option` settings a script may carry.
struct Pragmas {
  bool quiet = false;
  u64 bufsize = 0; // 0: not set
  u64 aggsize = 0;
  // How aggregations print (DTrace's aggsort* options).
  bool aggsortkey = false, aggsortrev = false;
  u32 aggsortpos = 0, aggsortkeypos = 0;
  u32 nspec = 1;          // speculation buffers
  u64 specsize = 0;       // bytes each (0: not set, bufsize's default)
  u32 strsize = 0; // 0: not set
  u32 scratchsize = 0; // alloca( )'s bytes per clause (0: not set)
  u32 printsize = 0;   // bytes print( ) shows (0: not set, kDefaultPrintSize)
  u32 maxframes = 0;   // stack( )'s frames at most (0: not set)
  u64 dynvarsize = 0;  // bytes of dynamic variables (0: not set)
  bool destructive = false; // destructive actions allowed (-w)
  bool rawbytes = false;    // trace( ) of a string dumps its bytes
};

// A boolean option's value as DTrace reads it: none, yes, true, enable(d),
// on, set turn it on; no, false, disable(d), off, unset off (any case);
// anything else is no value.
std::optional<bool> bool_option(const std::string &v);

// Set one of the options that both `#pragma D option` and `-x` name:
// aggsortkey, aggsortrev, aggsortpos, aggsortkeypos, nspec, specsize,
// scratchsize, printsize, maxframes, dynvarsize (which only refuses a
// size below one dynamic variable); the rates are checked and have no
// effect here.
// False if `name` is none of them; an error if its value is bad.
Result<bool> set_option(Pragmas &p, const std::string &name,
                        const std::string &value);

// A declaration of a D variable's type: `int x;`, `self uint8_t y;`,
// `this string s;`.
struct VarDecl {
  VarScope scope = VarScope::Global;
  std::string name;
  CType type;
  int line = 1;
  // A global array of fixed size (int a[5]): its elements; 0 when the
  // declaration gives none (extern int a[]), kNotArray for a scalar or
  // an associative array, kMultiDim for int a[2][3].
  i64 dim = kNotArray;
  static constexpr i64 kNotArray = -1, kMultiDim = -2;
  bool assoc = false; // declared with key types: string s[int]
};

// translator struct out < struct in *p > { x = p->a; ... }: each member
// of `out` it defines, an expression of the input `param`.
struct Translator {
  CType out, in;
  std::string param;
  struct Member {
    std::string name;
    ExprPtr value;
    int line = 1;
  };
  std::vector<Member> members;
  int line = 1, end_line = 1; // of "translator", of its '}'
  std::shared_ptr<const DOrigin> origin; // the script or -n text
};

struct ProgramAst {
  std::vector<ClauseAst> clauses;
  std::vector<VarDecl> decls;
  std::vector<Translator> translators;
  // The structs and unions the text declares, which its types point to.
  std::vector<std::shared_ptr<const Sou>> types;
  Pragmas pragmas;
  // Bit N: the text names $N or $$N (the caller refuses an argument no
  // program of the command names, unless -x argref).
  u64 macros_used = 0;
};

// What a script's text may refer to besides itself: its macro arguments
// ($0 is the script, $1... the words after dtrace's options; $$N is one
// as a string), and whether an argument not given is 0 / "" (the
// defaultargs option) rather than an error.
struct MacroArgs {
  std::vector<std::string> args; // args[0]: $0
  bool defaults = false;
  bool argref = false; // an argument no $N refers to is no error (-x argref)
};

// A kernel variable a script names with D's scoping operator (`max_pfn,
// vmlinux`max_pfn): its address and D's spelling of its C type, what
// DTrace takes from the kernel's symbol table and CTF (kernel/ktype.h).
// A type ending in "[]" is an array, read as its first element.
struct KernelVar {
  u64 addr = 0;
  std::string type;
};
// Looks a scoped name ("`max_pfn", "vmlinux`max_pfn") up; if the kernel
// has no such variable, the error is DTrace's reason ("Unknown symbol
// name", "Unknown module name").
using KernelVars = std::function<Result<KernelVar>(const std::string &)>;

// Parse D source.  `file` names a script for messages ("" for -n text);
// `errtags` shows each error's tag (-x errtags); `empty_ok` lets a script
// hold nothing (-x empty); `kvars` resolves kernel variables (none: a
// scoped name is unknown).  Messages are without the "dtrace: " prefix.
Result<ProgramAst> parse(const std::string &text, const std::string &file = "",
                         const MacroArgs &macros = {}, bool errtags = false,
                         bool empty_ok = false, const KernelVars *kvars = nullptr);

// A buffer size option's value (-b, -x bufsize=, #pragma D option
// bufsize=): bytes, or with a k, m or g suffix, within 1 byte..1g (a buffer is a page at least).
Result<u64> parse_size(const std::string &s);
// A rate option's value (switchrate, aggrate, statusrate, cleanrate), as
// DTrace reads it: a whole number, per second (hz, or no suffix), or a
// period with ns, us, ms, s, m, h or d (or nsec ... day).  In nanoseconds.
Result<u64> parse_rate(const std::string &s);

// The strsize option's value (-x strsize=, #pragma D option strsize=): the
// characters a string keeps, as DTrace counts them (the NUL not among
// them), 1..256.  The buffers hold kStrSize bytes with the NUL, so 255
// characters at most: the default, 256, truncates where DTrace's would not
// for strings of exactly 256 characters.
Result<u32> parse_strsize(const std::string &s);

// Check a probe description ("p:m:f:n", fewer fields, globs).
Result<void> check_desc(const std::string &desc);

// ---- built-in functions ---------------------------------------------------------

// D's functions, one entry each in builtins.cpp: the name, argument and
// result types, and what a call compiles to.  Adding a function is one
// entry there plus its code in the D library (dlib/); the parser, the type
// checker and the BPF lowering read this table and nothing else.
enum class ArgT : u8 {
  Int,
  Str,
  StrOrNull, // a string, or NULL (the constant 0): strtok(NULL, ",")
  Addr,      // an address to copy a string in from (a string passes)
};

struct BuiltinFn {
  const char *name;
  u8 nargs;          // arguments at most
  u8 required;       // of which the first `required` must be given
  ArgT args[3];
  i64 dflt[3];       // the value an omitted argument passes
  Type ret;
  enum How : u8 {
    Library, // a call of `lib` in the D library
    CopyIn,  // stringof( ), copyinstr( ): a string copied in from an address
    Stack,   // stack( ): the probe's stack walked into scratch
    Speculation, // speculation( ): a speculation claimed (OP_SPECULATION)
    Alloca,      // alloca( ), copyin( ): scratch memory for the clause
                 // (OP_ALLOCA, OP_COPYIN)
    Bcopy,       // bcopy( ), copyinto( ): bytes copied into alloca( )'s
                 // memory (OP_BCOPY)
  } how;
  const char *lib;   // Library: the function's name in dlib/
  u8 flags;          // BF_*
  // The old interpreter's version (-x engine=interp), when it has one.
  i64 (*host)(const i64 *args);
  // A consumer helper doing the same natively (bpfgen.h's H_*), which the
  // BPF lowering calls instead of `lib` where a byte loop through checked
  // loads is slower than the call: strlen( ) of a long string.  It gets
  // the D arguments, then strsize.  0: none.
  u32 helper = 0;
};
enum : u8 {
  BF_DST = 1,   // makes a string: a scratch buffer is passed first
  BF_NULL = 2,  // finds nothing with "" (the library's _d variant of a
                // function that returns NULL, copying its result to dst)
  BF_STATE = 4, // keeps state per CPU (strtok, rand): passed last
  BF_DESTRUCTIVE = 8, // changes the system (panic, chill): only with -w
};

// chill( ) and panic( ) for both engines.  chill( ) is capped by the
// compiler's caller at kMaxChill per call.
void dt_chill(u64 ns);

// `curthread` (task.cpp): the firing thread's struct task_struct, with
// `cpu` the CPU it fires on, and the D library's declaration of it, the
// psinfo_t and lwpsinfo_t translators and curpsinfo, curlwpsinfo.
u64 current_task(u32 cpu);
// `curcpu`: CPU `cpu`'s cpuinfo_t.
u64 cpu_info(u32 cpu);
extern const char kTaskLibraryD[];
[[noreturn]] void dt_panic(const char *probe); // probe: "p:m:f:n" or null
constexpr u64 kMaxChill = 500000000; // ns: DTrace's chill_max

// The function called `name`, or nullptr; builtin(i) is the i-th entry
// (what OP_CALL's c names).
const BuiltinFn *find_builtin(const std::string &name);
const BuiltinFn &builtin(u32 index);
u32 builtin_index(const BuiltinFn &f);
// "stringof, copyinstr, strlen, ...": for messages.
std::string builtin_names();

// ---- printf formats ---------------------------------------------------------------

struct Conv {
  std::string before; // literal text preceding the conversion
  std::string flags;  // any of "-+ #0"
  int width = -1;     // -1: none, -2: '*'
  int prec = -1;      // -1: none, -2: '*'
  int size = 0;       // 0: the argument's own, else 1/2/4/8 (hh/h/l/ll)
  char conv = 0;      // d i u x X o c s p a ...
  bool agg = false;   // %@ (printa: the aggregation's value)
};

struct Format {
  std::vector<Conv> convs;
  std::string tail; // literal text after the last conversion
};

// Parse a printf format; errors name the bad conversion.
Result<Format> parse_format(const std::string &fmt);

// One argument to format.  A stack is its text as DTrace prints it (one
// line per frame after a newline), made when the record is read.
struct Value {
  Type type = Type::Int64;
  i64 i = 0;
  std::string s;
};

// An address's name for %a: "module`symbol+0xoffset" (its hex if none).
using Symbolizer = std::function<std::string(u64)>;

// Format `args` (a '*' width or precision takes one too).  The caller has
// checked the arguments against the conversions (compile time); `sym`
// names %a's addresses (none: they print in hex).
std::string format(const Format &f, const std::vector<Value> &args,
                   const Symbolizer *sym = nullptr);

// ---- compiled programs ---------------------------------------------------------------

// Interpreter operations (a stack machine over i64; a string is a pointer
// to NUL-terminated memory the interpreter trusts: a literal, the probe's
// names, or a scratch copy made by stringof()).
enum Op : u8 {
  OP_PUSH,     // imm
  OP_ARG,      // a = N: args[N] zero-extended
  OP_STRARG,   // a = N: copy the string at args[N] in (may fault)
  OP_VAR,      // a = Builtin
  OP_STRINGOF, // pop address, copy the string in (may fault)
  OP_CALL,     // b = arguments on the stack, c = builtin index: call it
               // (a: a bit per argument given as NULL)
  OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD, OP_SHL, OP_SHR,
  OP_AND, OP_OR, OP_XOR, OP_NEG, OP_BNOT, OP_LNOT, OP_BOOL,
  OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE,
  OP_SEQ, OP_SNE, OP_SLT, OP_SLE, OP_SGT, OP_SGE,
  OP_TRUNC32,  // sign-extend the low 32 bits
  OP_SEXT,     // a = bits: sign-extend the low a bits (typed args[N])
  OP_ZEXT,     // a = bits: keep only the low a bits
  OP_JZ,       // pop; jump to c if zero
  OP_JNZ,      // pop; jump to c if not zero
  OP_JMP,      // jump to c
  OP_DUP,
  OP_POP,
  OP_PRED,     // pop; stop the clause if zero
  OP_RESERVE,  // reserve the record (imm = most bytes it can take)
  OP_REC_INT,  // pop into the record
  OP_REC_STR,  // pop a string into the record
  OP_EXIT,     // pop the status into the record; stop tracing
  OP_AGG,      // imm = aggregation, b = keys on the stack (value above them,
               // then the weight if the aggregation is weighted),
               // c = the string keys whose memory lives as long as the
               // program (literals, probe names): a bit per key
  OP_COUNT0,   // imm = aggregation: a keyless count(), the fast path
  OP_COMMIT,
  OP_STACK,     // a = frames: walk the probe's stack into scratch, push it
  OP_REC_STACK, // pop a stack into the record
  OP_LDVAR,     // a = VarScope, b = key components (popped), c = the
               // variable's number: push its value (0 or "" if never set);
               // imm: 0, or 1 + its index in Program::vars when wide();
               // for a this-> string, 1 + its buffer (VarDef::strbuf)
  OP_STVAR,     // the same, the value popped first: store it (0 frees a
               // thread-local or an associative element)
  OP_SPECULATION, // push a free speculation's id (0: none free)
  OP_SPECULATE,   // pop an id: this clause's record goes to it
  OP_SPECEND,     // a = 0 commit, 1 discard: pop an id, record it
  OP_BOUNDS,      // imm = a fixed-size array's elements: the index on the
                  // stack (left there) below it, or a fault
  // Memory through D's pointers: alloca( )'s scratch (the clause's own,
  // which it may write) and any other address (read by a checked copy).
  OP_ALLOCA,      // pop a size, push the address of that many new bytes
  OP_LOAD,        // a = bytes, b = 1 if signed: pop an address, push what
                  // is there
  OP_STORE,       // a = bytes: pop a value, then an address: store it
                  // (only into alloca( )'s bytes)
  OP_BCOPY,       // pop a size, a destination (alloca( )'s), a source
  OP_COPYIN,      // pop a size, an address: push a copy of those bytes in
                  // new alloca( ) bytes
  OP_REC_MEM,     // imm = bytes: pop an address, record those bytes there
                  // (as a string's length and bytes)
  OP_RET,
};
// OP_PUSH of a string literal: b = 1, c = its index in Program::strings.

struct Insn {
  u8 op;
  u8 a = 0;
  u16 b = 0;
  u32 c = 0;
  i64 imm = 0;
};

struct AggDef {
  std::string name; // without '@'; "" for @
  AggFn fn = AggFn::Count;
  std::vector<Type> keys;
  i64 lq_base = 0, lq_limit = 0, lq_step = 1; // lquantize
  i64 llq_factor = 0, llq_low = 0, llq_high = 0, llq_steps = 0; // llquantize
  u32 nvals = 1; // i64 values per entry
  int line = 0;  // of first use
  // A histogram some use of which gives a weight (quantize(v, w)): each
  // of its updates then carries one (1 where none is given), below the
  // value on OP_AGG's stack.
  bool weighted = false;
};

// What a record's data holds, action by action, for the drain side.
struct Action {
  enum Kind : u8 {
    Trace, Printf, Printa, Exit, Aggregate,
    Normalize, Denormalize, Trunc, Clear, // of agg; recorded: types
    Speculate, Commit, Discard,           // recorded: the id (not Speculate)
    System, Freopen, // recorded as printf's, run by the consumer
    Setopt,          // recorded: the name [, the value] (strings)
    Tracemem,        // recorded: the bytes to show, then the bytes
    Print,           // recorded: the address, then the object's bytes
  } kind;
  std::vector<Type> types; // recorded values, in order
  const Format *fmt = nullptr;
  u32 agg = 0;
  std::vector<u32> aggs; // printa: every aggregation printed (agg first)
  const CType *object = nullptr; // print: the type it shows (Program's)
};

struct CompiledClause {
  std::vector<Insn> code;
  std::vector<u8> action_at; // per instruction: its action number (0: the
                             // predicate), for error messages
  // Clauses simple enough to skip the interpreter.
  enum Fast : u8 { None, Count0 } fast = None;
  u32 fast_agg = 0;
  std::vector<Action> actions;
  bool records = false; // writes a record when it fires
  std::vector<u32> probes; // matched probe ids
  std::string descs;       // "a:::b, c:::d" for -j
  // Its probe descriptions, each one of DTrace's statements: first_stmt,
  // first_stmt + 1 ... counted over the program's clauses in order.
  std::vector<ProbeDesc> pdescs;
  u32 first_stmt = 0;
  // The statement a probe runs this clause as: its first description
  // that matches the probe.
  u32 stmt_of(const ProbeInfo &p) const {
    for (size_t i = 0; i < pdescs.size(); i++)
      if (pdescs[i].matches(p))
        return first_stmt + (u32)i;
    return first_stmt;
  }
};

// A D variable, numbered per scope (what OP_LDVAR's c names).
struct VarDef {
  std::string name;
  VarScope scope = VarScope::Global;
  bool keyed = false; // an associative array
  u32 number = 0;
  Type type = Type::Int64;  // of its values, fixed by the first store
  bool typed = false;
  std::vector<Type> keys;   // an associative array's key components,
                            // fixed by the first use
  std::vector<std::string> key_sous; // per key as written: the struct or
                                     // union it is ("" for none)
  u8 bits = 64;             // declared narrower: stores wrap to this width
  bool is_signed = true;
  i64 dim = VarDecl::kNotArray; // a fixed-size array's (VarDecl::dim)
  // this-> variables: a string one's buffer, by number among them (-1:
  // an integer, or not given one yet).
  i32 strbuf = -1;
  // Whether it lives in dt_wvars (a string value, or keys other than one
  // integer) rather than dt_vars.  this-> variables are none of it.
  bool wide() const {
    return scope != VarScope::Clause &&
           (type == Type::String ||
            (keyed && !(keys.size() == 1 && keys[0] != Type::String)));
  }
};
// this-> variables of a program.  They are the program's, not a
// clause's: one type each, and the clauses of one firing share their
// values (zero when the firing starts), as in DTrace.  An integer lives in
// the firing's context (bpfgen.h's FireCtx::local), a string in a buffer
// of its own.
constexpr u32 kMaxLocals = 32;
// self-> variables holding integers: the first kSelfSlots of them live
// in a slot of the firing thread's own (a load or a store is one move);
// the rest, and those holding strings, in the variables' hash map.  A
// slot is the thread's for as long as the enabling is.
constexpr u32 kSelfSlots = 32;
inline bool self_slot(VarScope scope, bool keyed, bool wide, u32 number) {
  return scope == VarScope::Thread && !keyed && !wide && number < kSelfSlots;
}

struct Program {
  std::vector<CompiledClause> clauses;
  std::vector<VarDef> vars;
  std::vector<AggDef> aggs;
  // dt_wvars' key and value sizes: the variable id, then the widest key
  // (an integer in 8 bytes, a string in kStrSize); a string or an integer.
  u32 wkey_size = 16, wval_size = 8;
  u32 nlocals = 0, nlocal_strs = 0; // this-> variables, the strings of them
  std::deque<std::string> strings; // literals (stable addresses)
  std::deque<Format> formats;
  Pragmas pragmas;
  // A destructive action or function is used (it needs -w to enable).
  bool destructive_used = false;
  // The characters a string keeps (strsize, within what kStrSize holds):
  // literals, stringof/copyinstr and the string functions' results are
  // cut there.
  u32 scratch_size() const {
    return pragmas.scratchsize ? pragmas.scratchsize : kDefaultScratchSize;
  }
  // What print( )'s types point to: the structs and unions of the
  // program's text, and the printed types themselves.
  std::vector<std::shared_ptr<const Sou>> types;
  std::deque<CType> printed;
  // alloca( ), a load or a store through a pointer is used: the BPF
  // engine runs them (the old interpreter has none).
  bool memory_used = false;
  u32 str_chars() const {
    const u32 n = pragmas.strsize ? pragmas.strsize : kDefaultStrSize;
    return n < kStrSize - 1 ? n : kStrSize - 1;
  }
};

// What a clause needs to know about one probe it matched: the registry's
// ProbeInfo (sdt/probe.h).
using mk::ProbeInfo;

// Compile `ast`; `matched[i]` are the probes clause i matched.
Result<std::unique_ptr<Program>>
compile(ProgramAst &ast, const std::vector<std::vector<ProbeInfo>> &matched);

// ---- output formats ------------------------------------------------------------------

// The default per-record prefix, DTrace's "%3d %6d %32s ".
std::string record_prefix(int cpu, u32 probe, const std::string &func,
                          const std::string &name);
std::string record_header(); // "CPU     ID                    FUNCTION:NAME\n"
// -F: DTrace's flow indent.  An entry probe (named entry or ...-entry)
// indents what follows it on its CPU, a return outdents.
enum class Flow : u8 { None, Entry, Return };
Flow flow_of(const std::string &probe_name);
std::string flow_header(); // "CPU FUNCTION\n"
std::string flow_prefix(int cpu, int indent, Flow flow, const std::string &func,
                        const std::string &name);
// The rawbytes option's trace( ) of a string: its first `n` bytes (NULs
// after its end) as a hex dump, 16 to a row, as DTrace prints one.
std::string raw_bytes(const std::string &s, size_t n);
// print( )'s text of the object of type `t` at `addr`, whose bytes are
// `bytes`: its members as DTrace shows them ("(struct s) {", ".a =
// (int)1,", zero members left out), up to `shown` bytes of it.
std::string print_object(const CType &t, u64 addr, const std::string &bytes,
                         u64 shown);
// trace( )'s text of an integer: as DTrace prints one of its type, or
// bare with -q.
std::string trace_int(const Value &v, bool quiet);
// A stack as stack( ) prints it: a newline, then each frame's name
// ("module`function+0x1a") on a line of its own, indented.
std::string stack_text(const std::vector<std::string> &frames);

// stddev( )'s sum of squares: 128 bits without __int128 (i386 has none).
struct U128 {
  u64 hi = 0, lo = 0;
  static U128 mul(u64 a, u64 b) {
    u64 al = a & 0xffffffff, ah = a >> 32, bl = b & 0xffffffff, bh = b >> 32;
    u64 ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    u64 mid = (ll >> 32) + (lh & 0xffffffff) + (hl & 0xffffffff);
    return {hh + (lh >> 32) + (hl >> 32) + (mid >> 32),
            (mid << 32) | (ll & 0xffffffff)};
  }
  U128 add(U128 o) const {
    u64 l = lo + o.lo;
    return {hi + o.hi + (l < lo), l};
  }
  U128 sub(U128 o) const { return {hi - o.hi - (lo < o.lo), lo - o.lo}; }
  bool operator<(U128 o) const { return hi != o.hi ? hi < o.hi : lo < o.lo; }
  U128 div(u64 d) const { // long division, a bit at a time
    U128 q;
    u64 r = 0;
    for (int b = 127; b >= 0; b--) {
      bool top = r >> 63;
      r = r << 1 | ((b >= 64 ? hi >> (b - 64) : lo >> b) & 1);
      if (top || r >= d) {
        r -= d;
        (b >= 64 ? q.hi : q.lo) |= (u64)1 << (b & 63);
      }
    }
    return q;
  }
};

// A merged aggregation entry.
struct AggRow {
  std::vector<Value> keys;
  std::vector<i64> vals;
};

// How printa( ) and the final print order rows (the aggsort* options).
struct AggSort {
  bool bykey = false, reverse = false;
  u32 pos = 0, keypos = 0;
};

// One or more aggregations with the same keys, as printa( ) joins them:
// one row per key any of them has, an aggregation without the key
// contributing zeros.  normal[i]: aggregation i's normalize( ) factor.
struct AggTable {
  std::vector<const AggDef *> aggs;
  std::vector<i64> normal;
  struct Row {
    std::vector<Value> keys;
    std::vector<std::vector<i64>> vals; // per aggregation
  };
  std::vector<Row> rows;
};
// Join per-aggregation rows (each merged and keyed the same way) by key.
AggTable join_aggregations(std::vector<const AggDef *> aggs,
                           std::vector<i64> normal,
                           std::vector<std::vector<AggRow>> rows);

// DTrace's default layout (keys left, values right, or a histogram), rows
// sorted by value then key unless `sort` says otherwise.
std::string print_aggregation(AggTable t, const AggSort &sort = {});
// The same through printa("fmt", @a, ...).
std::string printa_format(AggTable t, const Format &f, const AggSort &sort = {});
// One aggregation alone.
std::string print_aggregation(const AggDef &a, std::vector<AggRow> rows);
std::string printa_format(const AggDef &a, const Format &f,
                          std::vector<AggRow> rows);
// The value column of one row (" %16lld", an average, a histogram), its
// values divided by `normal`.
std::string agg_value_text(const AggDef &a, const std::vector<i64> &vals,
                           i64 normal = 1);
// The value an aggregation prints as an integer (avg( ) and stddev( )
// computed, normalized); histograms have none.
i64 agg_scalar(const AggDef &a, const std::vector<i64> &vals, i64 normal = 1);
// Order one aggregation's rows as its print does, ascending.
void sort_rows(const AggDef &a, std::vector<AggRow> &rows);
// llquantize( ): the bucket of v, the number of buckets and a bucket's
// lower bound.
u32 llquantize_bucket(const AggDef &a, i64 v);
u32 llquantize_buckets(const AggDef &a);
i64 llquantize_value(const AggDef &a, u32 bucket);
// The quantize() bucket of v, and a bucket's lower bound.
int quantize_bucket(i64 v);
i64 quantize_value(int bucket);

// ---- the consumer --------------------------------------------------------------------

// Where a consumer's output goes: stdout/stderr in the foreground, a bounded
// buffer for a background enabling.
class Sink {
public:
  virtual ~Sink() = default;
  virtual void out(const std::string &s) = 0;
  virtual void err(const std::string &line) = 0; // one line, no '\n'
};

// What runs a clause: eBPF (the JIT where there is one, else the BPF
// interpreter), eBPF always interpreted, or the stack-machine interpreter
// D had before BPF (`-x engine=interp`, kept for comparison).
enum class DEngine : u8 { Bpf, BpfInterp, Interp };
const char *engine_name(DEngine e);

struct ConsumerOptions {
  u64 bufsize = 256 * 1024; // per thread, bytes of records
  u64 aggsize = 1024 * 1024; // per thread, bytes of aggregation data
  bool quiet = false;
  unsigned threads = 0; // thread states to preallocate (0: 16); a thread
                        // beyond them has its firings dropped and counted
  const CodeMap *code = nullptr; // stack( ): what to walk and name it by
                                 // (nullptr: stacks are empty)
  Symbolizer symbol;             // printf's %a (null: in hex)
  bool flowindent = false;       // -F: entry and return lines by call depth
  DEngine engine = DEngine::Bpf;
  u32 dynvars = 65536;           // D variables (dt_vars entries) at most
  u32 max_insns = 0;             // a clause's BPF instructions at most (0:
                                 // the engine's limit)
  // Frees what the firing path may still be reading (a replaced ECB table,
  // a clause's replaced program) once no firing can: the registry's
  // retire().  Null: kept until the consumer goes.
  std::function<void(std::shared_ptr<const void>)> retire;
};

class Consumer;

// Runs the probe callback of `Sdt::enable` for one Consumer.
void consumer_fire(void *ctx, u32 probe, const uintptr_t *args);
// Whether consumer_fire keeps the vector registers (fire.cpp; optimised
// x86_64 builds): ProbeRegistry::mark_keeps_vector.
extern const bool consumer_fire_keeps_vector;

} // namespace mk::dt
