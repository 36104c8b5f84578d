// The D subset's parser: a lexer and a recursive-descent parser producing
// the syntax tree of dtrace.h.  The grammar, top down:
//
//   program    := { pragma | clause }
//   clause     := desc { ',' desc } [ '/' expr '/' ] [ '{' stmts '}' ]
//   stmts      := [ stmt { ';' stmt } [ ';' ] ]
//   stmt       := '@'name [ '[' expr { ',' expr } ']' ] '=' aggfn '(' args ')'
//               | trace '(' expr ')' | exit '(' expr ')'
//               | printf '(' string { ',' expr } ')'
//               | printa '(' [ string ',' ] '@'name ')'
//               | stack '(' [ integer ] ')'
//   expr       := C's operators and precedence, ?: down to unary - ! ~,
//                 primaries: integers, "strings", 'c', builtin variables,
//                 argN, args[N], built-in functions (builtins.cpp),
//                 stack(), ( expr )
//
// A probe description is lexed raw (globs and '-' are part of it), as
// DTrace's lexer does at the start of a clause.  Inside a predicate a '/'
// outside parentheses closes it; division there needs parentheses, as in
// DTrace.  A clause without a body is allowed only at the end of the text
// (dtrace -n 'BEGIN').
#include "dtrace.h"

#include <map>
#include <set>

#include <strings.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace mk::dt {

const char *agg_fn_name(AggFn f) {
  switch (f) {
  case AggFn::Count: return "count";
  case AggFn::Sum: return "sum";
  case AggFn::Min: return "min";
  case AggFn::Max: return "max";
  case AggFn::Avg: return "avg";
  case AggFn::Stddev: return "stddev";
  case AggFn::Quantize: return "quantize";
  case AggFn::LQuantize: return "lquantize";
  case AggFn::LLQuantize: return "llquantize";
  }
  return "?";
}

CType pointer_to(const CType &t) {
  CType p;
  p.pointer = true, p.is_signed = false, p.bytes = sizeof(void *);
  p.name = t.name + (t.pointer ? "*" : " *");
  p.pointee = std::make_shared<CType>(t);
  return p;
}

u64 CType::size() const {
  return sou ? sou->size : pointer ? sizeof(void *) : string ? kDefaultStrSize
                                                             : bytes;
}

u32 CType::align() const {
  return sou ? sou->align : pointer ? alignof(void *) : string ? 1 : bytes;
}

Type value_type(const CType &t) {
  if (t.string)
    return Type::String;
  switch (t.bytes) {
  case 1: return t.is_signed ? Type::Int8 : Type::UInt8;
  case 2: return t.is_signed ? Type::Int16 : Type::UInt16;
  case 4: return t.is_signed ? Type::Int32 : Type::UInt32;
  default: return t.is_signed ? Type::Int64 : Type::UInt64;
  }
}

namespace {

// C's integer type names a script may use beyond the keywords (char,
// short, int, long, signed, unsigned), with their size and sign in this
// kernel's data model.
const struct {
  const char *name;
  u8 bytes;
  bool is_signed;
} kTypedefs[] = {
    {"int8_t", 1, true},      {"int16_t", 2, true},     {"int32_t", 4, true},
    {"int64_t", 8, true},     {"uint8_t", 1, false},    {"uint16_t", 2, false},
    {"uint32_t", 4, false},   {"uint64_t", 8, false},   {"uchar_t", 1, false},
    {"ushort_t", 2, false},   {"uint_t", 4, false},
    {"ulong_t", sizeof(long), false}, {"longlong_t", 8, true},
    {"u_longlong_t", 8, false}, {"size_t", sizeof(void *), false},
    {"ssize_t", sizeof(void *), true}, {"uintptr_t", sizeof(void *), false},
    {"intptr_t", sizeof(void *), true}, {"ptrdiff_t", sizeof(void *), true},
    {"off_t", 8, true},       {"pid_t", 4, true},       {"uid_t", 4, false},
    {"gid_t", 4, false},      {"id_t", 4, true},        {"hrtime_t", 8, true},
    {"processorid_t", 4, true}, {"bool", 1, false},     {"_Bool", 1, false},
    // Linux's short names (<linux/types.h>), which its D programs use.
    {"uint", 4, false},       {"ushort", 2, false},     {"ulong", sizeof(long), false},
    {"__u8", 1, false},       {"__s8", 1, true},        {"__u16", 2, false},
    {"__s16", 2, true},       {"__u32", 4, false},      {"__s32", 4, true},
    {"__u64", 8, false},      {"__s64", 8, true},
};

CType int_type() {
  CType t;
  t.bytes = 4, t.name = "int";
  return t;
}

bool type_keyword(const std::string &w) {
  return w == "char" || w == "short" || w == "int" || w == "long" ||
         w == "signed" || w == "unsigned" || w == "const" || w == "volatile";
}

// Words that start a type: the keywords, the names above, D's string, and
// the C types D here has no values of (refused with a message).
bool type_start(const std::string &w) {
  if (type_keyword(w) || w == "string")
    return true;
  for (const auto &t : kTypedefs)
    if (w == t.name)
      return true;
  return w == "struct" || w == "union" || w == "enum" || w == "void" ||
         w == "float" || w == "double";
}

enum Tok {
  T_EOF, T_INT, T_STR, T_IDENT, T_AGG, // '@' name
  T_LPAREN, T_RPAREN, T_LBRACE, T_RBRACE, T_LBRACK, T_RBRACK,
  T_COMMA, T_SEMI, T_QUESTION, T_COLON, T_ASSIGN,
  T_PLUS, T_MINUS, T_STAR, T_SLASH, T_PERCENT,
  T_SHL, T_SHR, T_LT, T_LE, T_GT, T_GE, T_EQ, T_NE,
  T_AMP, T_PIPE, T_CARET, T_ANDAND, T_OROR, T_XORXOR,
  T_BANG, T_TILDE,
  T_ARROW, T_INC, T_DEC, T_ADDEQ, T_SUBEQ, // -> ++ -- += -=
  T_DOT,
  T_MULEQ, T_DIVEQ, T_MODEQ, T_ANDEQ, T_OREQ, T_XOREQ, T_SHLEQ, T_SHREQ,
};

// The assignment operators: '=' and the compound ones.
bool assign_op(Tok t) {
  return t == T_ASSIGN || t == T_ADDEQ || t == T_SUBEQ || (t >= T_MULEQ &&
                                                          t <= T_SHREQ);
}

struct Token {
  Tok kind = T_EOF;
  std::string text; // as written
  i64 ival = 0;
  std::string sval; // string literal, escapes resolved; T_AGG/T_IDENT name
  int line = 1;
  bool pred_end = false; // a '/' that closes a predicate
  Type int_type = Type::Int32; // T_INT: the constant's C type
  size_t pos = 0;      // where in the text it starts
  // T_IDENT: a name DTrace's lexer had not met, so it looked past it at
  // the next character to tell a variable from a type.
  bool unmet = false;
};

// What DTrace's own D libraries declare for every script that has a
// meaning here: the network address types of its net.d, laid out as
// Linux's, that inet_ntoa( ), inet_ntoa6( ) and inet_ntop( ) take (and,
// from task.cpp, procfs.d's and sched.d's over curthread and curcpu).  A
// script may declare any of these names itself; its own then stands.
const char kLibraryD[] =
    "typedef uint32_t ipaddr_t;\n"
    "struct in_addr { ipaddr_t s_addr; };\n"
    "struct in6_addr { union { uint8_t u6_addr8[16]; uint16_t u6_addr16[8];"
    " uint32_t u6_addr32[4]; } in6_u; };\n"
    "typedef struct in6_addr in6_addr_t;\n"
    "inline int AF_INET = 2;\n"
    "inline int AF_INET6 = 10;\n";

// D's built-in variables, by name.
const struct {
  const char *name;
  Builtin b;
} kBuiltinVars[] = {
    {"timestamp", Builtin::Timestamp}, {"walltimestamp", Builtin::WallTimestamp},
    {"cpu", Builtin::Cpu},             {"id", Builtin::Id},
    {"epid", Builtin::Epid},           {"tid", Builtin::Tid},
    {"probeprov", Builtin::ProbeProv}, {"probemod", Builtin::ProbeMod},
    {"probefunc", Builtin::ProbeFunc}, {"probename", Builtin::ProbeName},
    {"execname", Builtin::Execname},   {"vtimestamp", Builtin::VTimestamp},
    {"stackdepth", Builtin::StackDepth}, {"caller", Builtin::Caller},
    {"pid", Builtin::Pid},             {"ppid", Builtin::Ppid},
    {"uid", Builtin::Uid},             {"gid", Builtin::Gid},
    {"ipl", Builtin::Ipl},             {"errno", Builtin::Errno},
    {"ucaller", Builtin::UCaller},     {"ustackdepth", Builtin::UStackDepth}};

// The names DTrace's compiler knows before a program declares any: its
// built-in variables and constants (functions are find_builtin( )'s).
bool builtin_var(const std::string &w) {
  for (const auto &v : kBuiltinVars)
    if (w == v.name)
      return true;
  static const char *const more[] = {
      "arg0", "arg1", "arg2", "arg3", "arg4", "arg5", "arg6", "arg7",
      "arg8", "arg9", "args", "curthread", "curcpu", "curpsinfo",
      "curlwpsinfo", "uregs", "NULL"};
  return std::find(std::begin(more), std::end(more), w) != std::end(more) ||
         w.compare(0, 10, "DTRACEFLT_") == 0;
}

// D's keywords: its lexer returns them as such, never as names.
bool d_keyword(const std::string &w) {
  static const char *const words[] = {
      "auto",     "break",   "case",      "char",     "const",    "continue",
      "counter",  "default", "do",        "double",   "else",     "enum",
      "extern",   "float",   "for",       "goto",     "if",       "import",
      "inline",   "int",     "long",      "offsetof", "probe",    "provider",
      "register", "restrict", "return",   "self",     "short",    "signed",
      "sizeof",   "static",  "string",    "stringof", "struct",   "switch",
      "this",     "translator", "typedef", "union",   "unsigned", "userland",
      "void",     "volatile", "while",    "xlate"};
  return std::find(std::begin(words), std::end(words), w) != std::end(words);
}

class Parser {
public:
  Parser(const std::string &text, const std::string &file,
         const MacroArgs &macros, bool errtags)
      : s_(text), macros_(macros),
        origin_(std::make_shared<DOrigin>(DOrigin{file, file.empty() ? text : "",
                                                  errtags})) {}

  Result<ProgramAst> run();
  // Take the declarations of `lib` (a parsed kLibraryD) as the library's.
  void adopt_library(Parser &lib, ProgramAst &&parsed);
  void allow_empty(bool on) { empty_ok_ = on; }
  void kernel_vars(const KernelVars *kv) { kvars_ = kv; }
  void library_text() { library_text_ = true; }

private:
  // The library's names (struct tags as "struct x", typedefs, inlines):
  // a script's own declaration of one replaces it.
  std::set<std::string> library_;
  const KernelVars *kvars_ = nullptr;
  // A kernel variable named by `t` (`max_pfn): *(type *)address, an
  // lvalue in kernel memory; nullptr if there are no kernel variables to
  // name (parse( ) without `kvars`).
  Result<ExprPtr> kernel_var(const Token &t);
  bool library_name(const std::string &n) { return library_.erase(n) > 0; }
  // inet_ntoa( ), inet_ntoa6( ), inet_ntop( ) at their '(': the address's
  // words loaded as integers for the library function (an address that
  // cannot be read faults where the load is, as any *p).
  Result<ExprPtr> inet_call(const Token &t);
  // A function prototype's parameters, at its '(' (through the ')'):
  // checked as DTrace checks them, then dropped (D calls no functions a
  // script declares).
  Result<void> prototype();
  // After a declarator: ',' is consumed and another follows (true); ';'
  // ends the declaration (false, the ';' left as the current token).
  Result<bool> declarator_end();
  // "..." at tok_ (three '.' tokens); consumed if there.
  Result<bool> ellipsis();
  // ---- errors
  // DTrace's syntax error, at the token `t`: "syntax error near "t"".
  Error syntax(const Token &t) {
    if (t.kind == T_EOF)
      return err(t.line, DTag::D_SYNTAX, "syntax error near end of input");
    return err(t.line, DTag::D_SYNTAX,
               "syntax error near \"" + one_line(near_text(t)) + "\"");
  }
  // The text DTrace names at a syntax error: the token's, but for an
  // unmet name the rest of its line, as the lexer's look past it (flex's
  // input( ) and unput( )) leaves its yytext unterminated; the blanks it
  // looked over are put back as spaces.
  std::string near_text(const Token &t) const {
    if (!t.unmet)
      return t.text;
    size_t end = t.pos + t.text.size(), blanks = end;
    while (blanks < s_.size() && strchr("\f\r\t\v ", s_[blanks]))
      blanks++;
    std::string near = t.text + std::string(blanks - end, ' ');
    return near + s_.substr(blanks, s_.find('\n', blanks) - blanks);
  }
  // The names lexed so far, by where each is first.
  std::map<std::string, size_t> met_;
  Error err(int line, DTag tag, const std::string &why) {
    return d_error(*origin_, line, tag, why);
  }
  // An error in a limit or feature of minikern's D, at `t`.
  Error unsupported(const Token &t, const std::string &why) {
    return err(t.line, DTag::D_SYNTAX, why);
  }

  // ---- characters
  bool at_end() const { return p_ >= s_.size(); }
  char ch(size_t ahead = 0) const {
    return p_ + ahead < s_.size() ? s_[p_ + ahead] : '\0';
  }
  // Skip blanks and comments (/* */, //, and # lines other than pragmas are
  // handled by the caller at clause level).
  Result<void> skip_space();

  // ---- tokens
  Result<Token> lex();
  Result<void> advance() {
    auto t = lex();
    if (!t)
      return t.take_error();
    // The look past an unmet name that meets the end of the text puts
    // back what input( ) returned there, a NUL, which the lexer then
    // reads as a character no rule takes: DTrace's own words follow.
    if (t->kind == T_EOF && tok_.kind == T_IDENT && tok_.unmet &&
        s_.find_first_not_of(" \f\n\r\t\v", tok_.pos + tok_.text.size()) ==
            std::string::npos)
      return err(t->line, DTag::D_SYNTAX, "syntax error near end-of-input");
    if (t->kind == T_IDENT) {
      const std::string &w = t->sval;
      // DTrace's lexer takes a name after struct, union, enum, '.' or
      // "->" as it is.
      const bool as_is = tok_.kind == T_DOT || tok_.kind == T_ARROW ||
                         (tok_.kind == T_IDENT &&
                          (tok_.sval == "struct" || tok_.sval == "union" ||
                           tok_.sval == "enum"));
      // Met where it is first: a look ahead that comes back meets it
      // anew.
      const size_t first = met_.emplace(w, t->pos).first->second;
      t->unmet = !as_is && !d_keyword(w) && first >= t->pos &&
                 !builtin_var(w) && !find_builtin(w);
    }
    tok_ = std::move(*t);
    return {};
  }
  bool is(Tok k) const { return tok_.kind == k; }
  Result<void> expect(Tok k) {
    if (!is(k))
      return syntax(tok_);
    return advance();
  }

  // ---- grammar
  Result<void> pragma();
  Result<void> pragma_attributes(int args, const char *attrs,
                                 const char *ident);
  // #pragma D attributes of an identifier, by line: DTrace applies one
  // when the identifier is defined, and refuses the program if it never
  // is.
  std::vector<std::pair<std::string, int>> pragma_attrs_;
  Result<void> clause(ProgramAst &prog);
  Result<std::string> desc();
  Result<void> stmt(ClauseAst &c);
  // An expression used as a statement (x++; a[k] = b = 0); an
  // assignment at its top is an assignment statement.
  Result<void> expr_stmt(ClauseAst &c, Stmt &s);
  // `v` op= `value` as an expression (op: the assignment operator's
  // token); `post` for v++ and v--, whose value is v's before.
  Result<ExprPtr> make_assign(ExprPtr v, const Token &op, ExprPtr value,
                              bool post);
  // A C type at tok_ (is_type( ) said one begins), through its last
  // word; with `stars`, the '*'s after it too (a pointer type).
  Result<CType> ctype(bool stars = false);
  Result<CType> base_type(); // ctype( ) without the '*'s
  // translator OUT < IN param > { member = expr; ... }; at "translator".
  Result<void> translator(ProgramAst &prog);
  std::set<std::string> xlate_pairs_; // "in -> out", declared
  // Whether the word `w` starts a type: type_start( )'s, or a typedef's.
  bool is_type(const std::string &w) const {
    return type_start(w) || typedefs_.count(w);
  }
  // The members of a struct or union, at its '{', laid out as DTrace
  // does; `tag` names it ("" for an anonymous one).
  Result<CType> sou_body(bool is_union, const std::string &tag, int line);
  // An expression and its value if it is a constant (a bitfield's width,
  // an array member's elements).
  Result<std::optional<i64>> constant_expr();
  std::map<std::string, Sou *> sous_; // "struct coords"
  std::set<const Sou *> defining_;    // bodies being read
  static constexpr u32 kMaxMembers = 1024;
  static constexpr int kMaxPointers = 32; // int ***...: levels at most
  std::vector<std::shared_ptr<const Sou>> types_; // every one, named or not
  Sou *new_sou() {
    auto s = std::make_shared<Sou>();
    types_.push_back(s);
    return s.get();
  }
  std::map<std::string, CType> typedefs_;
  // A top-level declaration: `[self|this] type name {, name};` or
  // `inline type name = expr;`.
  Result<void> decl(ProgramAst &prog);
  // The word at p_ (raw), and the one after it.
  std::string peek_word(size_t at, size_t *end = nullptr) const;
  std::map<std::string, std::pair<CType, ExprPtr>> inlines_;
  // The library's struct task_struct (curthread) and cpuinfo_t (curcpu).
  std::optional<CType> task_, cpuinfo_;
  std::vector<Translator> lib_translators_; // the library's, first in a program
  bool library_text_ = false; // this is the D library's own text
  std::map<std::string, VarDecl> declared_; // "scope:name"
  // Where the lexer is, to look ahead and come back.
  struct Mark {
    size_t p;
    int line, parens, brackets;
    Token tok;
  };
  Mark mark() const { return Mark{p_, line_, parens_, brackets_, tok_}; }
  void reset(const Mark &m) {
    p_ = m.p, line_ = m.line, parens_ = m.parens, brackets_ = m.brackets,
    tok_ = m.tok;
  }
  Result<ExprPtr> expr();
  Result<ExprPtr> ternary();
  // enum [tag] { A [= constant], ... }: each enumerator an int constant
  // (an inline); tok_ is at the '{'.
  using Enumerators = std::vector<std::pair<std::string, i64>>;
  Result<std::shared_ptr<const Enumerators>> enum_body(const std::string &tag);
  std::map<std::string, std::shared_ptr<const Enumerators>> enums_; // by tag
  Result<ExprPtr> binary(int level);
  Result<ExprPtr> unary();
  Result<ExprPtr> primary();
  Result<void> subscripts(Expr &e, const Token &t);
  Result<std::vector<ExprPtr>> call_args();
  // stack( ) or stack(N), the '(' next; `t` names it.
  Result<ExprPtr> stack_call(const Token &t);
  // A call of a function DTrace has and this kernel does not (foreign( )
  // below): its arguments checked against DTrace's prototype, then the
  // call refused: the error is what it returns.  The '(' is next; `t`
  // names it.
  Error foreign_call(const Token &t);
  // A variable named by `t` (already consumed): self->x, this->x, x or
  // x[key].
  Result<ExprPtr> variable(const Token &t);
  // Globals read somewhere and assigned somewhere (a read of one never
  // assigned is an undefined variable, as in DTrace).
  // In the order of the text, as DTrace resolves them: a read of a
  // global before anything declares or assigns it is undefined, though
  // a later clause assigns it.  Each read and each first write gets the
  // next number of global_seq_.
  std::vector<std::pair<Token, u64>> global_reads_;
  std::set<std::string> global_writes_;
  std::map<std::string, u64> first_write_;
  u64 global_seq_ = 1;
  void global_written(const std::string &name) {
    global_writes_.insert(name);
    first_write_.emplace(name, global_seq_++);
  }

  ExprPtr node(Expr::Kind k, const Token &at) {
    auto e = std::make_unique<Expr>();
    e->kind = k;
    e->near = at.text;
    e->line = at.line;
    return e;
  }

  const std::string &s_;
  const MacroArgs &macros_;
  u64 macros_used_ = 0; // bit N: $N or $$N appears
  std::shared_ptr<DOrigin> origin_;
  size_t p_ = 0;
  int line_ = 1;
  Token tok_;
  // Parentheses and brackets open, as DTrace's lexer counts them: one
  // closed that is not open is an error, and so is a predicate's closing
  // '/' with one still open.
  int parens_ = 0, brackets_ = 0;
  int pred_depth_ = 0;   // parens_ + brackets_ where the predicate began
  bool in_pred_ = false; // a '/' at that depth closes the predicate
  bool empty_ok_ = false; // -x empty: a script may hold nothing
  bool pspec_ = false;    // #pragma D option pspec: a glob is a description
  Pragmas pragmas_;

  // Bounds on recursion: `nest_` counts the recursive descents in
  // progress (parentheses, unary operators, ?: branches), each of which
  // costs a dozen frames; trees are kept to kMaxExprDepth levels (a long
  // left-associative sum is parsed in a loop but still makes a deep tree,
  // which the compiler and the destructor recurse into).
  int nest_ = 0;
  struct Nest {
    int &n;
    explicit Nest(int &x) : n(++x) {}
    ~Nest() { --n; }
  };
  Result<void> check_nest() {
    if (nest_ > kMaxExprDepth)
      return unsupported(tok_, strf("expression nested more than %d levels deep",
                                    kMaxExprDepth));
    return {};
  }
  // `e`'s depth from its kids'; too deep is an error.
  Result<void> deepen(Expr &e, const Token &at) {
    for (const ExprPtr &k : e.kids)
      e.depth = std::max(e.depth, k->depth + 1);
    if (e.depth > kMaxExprDepth)
      return unsupported(at, strf("expression nested more than %d levels deep",
                                  kMaxExprDepth));
    return {};
  }
};

Result<void> Parser::skip_space() {
  for (;;) {
    while (!at_end() && isspace((unsigned char)ch())) {
      if (ch() == '\n')
        line_++;
      p_++;
    }
    if (ch() == '/' && ch(1) == '*') {
      size_t end = s_.find("*/", p_ + 2);
      if (end == std::string::npos)
        return err(line_ + (int)std::count(s_.begin() + p_, s_.end(), '\n'),
                   DTag::D_SYNTAX, "end-of-file encountered before matching */");
      for (size_t i = p_; i < end; i++)
        if (s_[i] == '\n')
          line_++;
      p_ = end + 2;
      continue;
    }
    if (ch() == '/' && ch(1) == '/') {
      while (!at_end() && ch() != '\n')
        p_++;
      continue;
    }
    // A control line (#pragma, a cpp line marker) may stand anywhere,
    // inside a clause too, when it starts its line.
    if (ch() == '#') {
      size_t b = p_;
      while (b > 0 && (s_[b - 1] == ' ' || s_[b - 1] == '\t'))
        b--;
      if (b == 0 || s_[b - 1] == '\n') {
        MK_TRY(pragma());
        continue;
      }
    }
    return {};
  }
}

// Resolve one escape after a backslash at s_[p_]; appends to out.  As in
// DTrace, a backslash before any other character (\', \?, \q) stays,
// with the character; false only for a \x with no digit.
static bool unescape(const std::string &s, size_t &p, std::string &out) {
  char c = p < s.size() ? s[p] : '\0';
  p++;
  switch (c) {
  case 'n': out += '\n'; return true;
  case 't': out += '\t'; return true;
  case 'r': out += '\r'; return true;
  case 'a': out += '\a'; return true;
  case 'b': out += '\b'; return true;
  case 'f': out += '\f'; return true;
  case 'v': out += '\v'; return true;
  case '\\': out += '\\'; return true;
  case '"': out += '"'; return true;
  case 'x': {
    int v = 0, n = 0;
    while (n < 2 && p < s.size() && isxdigit((unsigned char)s[p])) {
      char d = s[p++];
      v = v * 16 + (isdigit((unsigned char)d) ? d - '0' : (tolower(d) - 'a' + 10));
      n++;
    }
    if (!n)
      return false;
    out += (char)v;
    return true;
  }
  default:
    if (c >= '0' && c <= '7') {
      int v = c - '0', n = 1;
      while (n < 3 && p < s.size() && s[p] >= '0' && s[p] <= '7')
        v = v * 8 + (s[p++] - '0'), n++;
      out += (char)v;
      return true;
    }
    if (c == '\0' && p > s.size())
      return false; // a backslash ends the text
    out += '\\';
    out += c;
    return true;
  }
}

Result<Token> Parser::lex() {
  MK_TRY(skip_space());
  Token t;
  t.line = line_;
  t.pos = p_;
  if (at_end())
    return t;
  size_t start = p_;
  char c = ch();
  auto one = [&](Tok k, size_t n) {
    t.kind = k;
    t.text = s_.substr(start, n);
    p_ += n;
    return t;
  };
  if (isdigit((unsigned char)c)) {
    size_t i = p_;
    int base = 10;
    if (c == '0' && (ch(1) == 'x' || ch(1) == 'X'))
      base = 16, i += 2;
    else if (c == '0')
      base = 8;
    unsigned long long v = 0;
    bool any = base == 8;
    for (; i < s_.size(); i++) {
      char d = s_[i];
      int dv;
      if (isdigit((unsigned char)d))
        dv = d - '0';
      else if (base == 16 && isxdigit((unsigned char)d))
        dv = tolower(d) - 'a' + 10;
      else
        break;
      if (dv >= base) {
        t.text = s_.substr(start, i + 1 - start);
        while (i < s_.size() && isalnum((unsigned char)s_[i]))
          i++;
        return err(line_, DTag::D_INT_DIGIT,
                   strf("constant %s contains invalid digit %c",
                        s_.substr(start, i - start).c_str(), d));
      }
      // Past 64 bits is an error, not a silent wrap (DTrace refuses it
      // too).
      if (__builtin_mul_overflow(v, (unsigned long long)base, &v) ||
          __builtin_add_overflow(v, (unsigned long long)dv, &v)) {
        while (i < s_.size() && isalnum((unsigned char)s_[i]))
          i++;
        t.text = s_.substr(start, i - start);
        return err(line_, DTag::D_INT_OFLOW,
                   "constant " + t.text + " results in integer overflow");
      }
      any = true;
    }
    // C's type of an integer constant: its suffixes (u, l, ll), then the
    // first of int, unsigned (not for decimal), long ... that holds it.
    int longs = 0;
    bool unsign = false;
    while (i < s_.size() && strchr("uUlL", s_[i])) {
      unsign |= s_[i] == 'u' || s_[i] == 'U';
      longs += s_[i] == 'l' || s_[i] == 'L';
      i++;
    }
    const bool decimal = base == 10;
    t.int_type = longs || v > 0xffffffffull || (decimal && !unsign && v > INT32_MAX)
                     ? (unsign || v > (unsigned long long)INT64_MAX ? Type::UInt64
                                                                    : Type::Int64)
                 : unsign || v > INT32_MAX ? Type::UInt32
                                           : Type::Int32;
    // A word right after the digits (10ms, 0abc) is a token of its own,
    // as DTrace's lexer reads it: the grammar refuses whichever comes
    // where it cannot.
    t.text = s_.substr(start, i - start);
    if (!any)
      return syntax(t);
    p_ = i;
    t.kind = T_INT;
    t.ival = (i64)v;
    return t;
  }
  if (isalpha((unsigned char)c) || c == '_' || c == '`') {
    size_t i = p_;
    while (i < s_.size() &&
           (isalnum((unsigned char)s_[i]) || s_[i] == '_' || s_[i] == '`'))
      i++;
    t.kind = T_IDENT;
    t.text = t.sval = s_.substr(start, i - start);
    p_ = i;
    return t;
  }
  if (c == '$') {
    // A macro argument: $N is an integer or a name as its text reads,
    // $$N a string.
    size_t i = p_ + 1;
    const bool str = ch(1) == '$';
    if (str)
      i++;
    size_t digits = i;
    while (i < s_.size() && isdigit((unsigned char)s_[i]))
      i++;
    t.text = s_.substr(start, std::max(i, digits + 1) - start);
    if (i == digits) {
      while (i < s_.size() && (isalnum((unsigned char)s_[i]) || s_[i] == '_'))
        i++;
      t.text = s_.substr(start, i - start);
      // DTrace's macro variables of the process it runs in: this kernel's.
      static const struct {
        const char *name;
        long (*get)();
      } procvars[] = {
          {"pid", [] { return (long)getpid(); }},
          {"ppid", [] { return (long)getppid(); }},
          {"uid", [] { return (long)getuid(); }},
          {"gid", [] { return (long)getgid(); }},
          {"euid", [] { return (long)geteuid(); }},
          {"egid", [] { return (long)getegid(); }},
          {"pgid", [] { return (long)getpgid(0); }},
          {"sid", [] { return (long)getsid(0); }},
      };
      for (const auto &v : procvars)
        if (!str && t.text.compare(1, std::string::npos, v.name) == 0) {
          p_ = i;
          t.kind = T_INT;
          t.ival = v.get();
          return t;
        }
      return syntax(t);
    }
    p_ = i;
    const size_t n = strtoul(s_.c_str() + digits, nullptr, 10);
    std::string v;
    if (n < 64)
      macros_used_ |= 1ull << n;
    if (n < macros_.args.size())
      v = macros_.args[n];
    else if (!macros_.defaults)
      return err(line_, DTag::D_MACRO_UNDEF,
                 "macro argument " + t.text + " is not defined");
    if (str) {
      t.kind = T_STR;
      t.sval = v;
      return t;
    }
    if (v.empty()) { // not given, with defaultargs
      t.kind = T_INT;
      return t;
    }
    char *end = nullptr;
    errno = 0;
    const bool neg = v[0] == '-';
    unsigned long long x = strtoull(v.c_str() + neg, &end, 0);
    if (*end == 0 && isdigit((unsigned char)v[neg]) && errno == 0) {
      t.kind = T_INT;
      t.ival = neg ? (i64)(0 - (u64)x) : (i64)x;
      return t;
    }
    bool ident = isalpha((unsigned char)v[0]) || v[0] == '_';
    for (char d : v)
      ident &= isalnum((unsigned char)d) || d == '_' || d == '`';
    if (!ident)
      return err(line_, DTag::D_SYNTAX,
                 "macro argument " + t.text + " (\"" + one_line(v) +
                     "\") is neither a number nor a name; use $" + t.text +
                     " for a string");
    t.kind = T_IDENT;
    t.sval = v;
    return t;
  }
  if (c == '@') {
    size_t i = p_ + 1;
    while (i < s_.size() && (isalnum((unsigned char)s_[i]) || s_[i] == '_'))
      i++;
    t.kind = T_AGG;
    t.text = s_.substr(start, i - start);
    t.sval = s_.substr(start + 1, i - start - 1);
    p_ = i;
    return t;
  }
  if (c == '"' || c == '\'') {
    char q = c;
    size_t i = p_ + 1;
    std::string v;
    while (i < s_.size() && s_[i] != q) {
      if (s_[i] == '\n')
        return q == '"' ? err(line_ + 1, DTag::D_STR_NL,
                              "newline encountered in string literal")
                        : err(line_ + 1, DTag::D_CHR_NL,
                              "newline encountered in character constant");
      if (s_[i] == '\\' && i + 1 < s_.size() && s_[i + 1] == '\n') {
        i += 2; // a line continued: neither character is the string's
        line_++;
        continue;
      }
      if (s_[i] == '\\') {
        size_t at = i++;
        if (!unescape(s_, i, v))
          return err(line_, DTag::D_SYNTAX,
                     "invalid escape sequence \"" +
                         one_line(s_.substr(at, std::min<size_t>(2, s_.size() - at))) +
                         "\"");
        continue;
      }
      v += s_[i++];
    }
    if (i >= s_.size())
      return err(line_, DTag::D_SYNTAX,
                 std::string("end-of-file encountered in ") +
                     (q == '"' ? "string literal" : "character constant"));
    t.text = s_.substr(start, i + 1 - start);
    p_ = i + 1;
    if (q == '"') {
      t.kind = T_STR;
      t.sval = v;
    } else {
      if (v.empty())
        return err(line_, DTag::D_CHR_NULL, "empty character constant");
      // 'ab': C's multi-character constant, each character a byte of the
      // value, the first the highest; a long past 4.
      if (v.size() > 8)
        return err(line_, DTag::D_CHR_OFLOW, "character constant is too long");
      t.kind = T_INT;
      u64 packed = 0;
      for (char ch : v)
        packed = packed << 8 | (unsigned char)ch;
      t.ival = v.size() == 1   ? (i64)(signed char)v[0]
               : v.size() <= 4 ? (i64)(i32)(u32)packed // an int, as in C
                               : (i64)packed;
      t.int_type = v.size() > 4 ? Type::Int64 : Type::Int32;
    }
    return t;
  }
  auto two = [&](char a, char b) { return c == a && ch(1) == b; };
  if (two('<', '<') && ch(2) == '=') return one(T_SHLEQ, 3);
  if (two('>', '>') && ch(2) == '=') return one(T_SHREQ, 3);
  if (two('*', '=')) return one(T_MULEQ, 2);
  if (two('/', '=') && !in_pred_) return one(T_DIVEQ, 2);
  if (two('%', '=')) return one(T_MODEQ, 2);
  if (two('&', '=')) return one(T_ANDEQ, 2);
  if (two('|', '=')) return one(T_OREQ, 2);
  if (two('^', '=')) return one(T_XOREQ, 2);
  if (two('-', '>')) return one(T_ARROW, 2);
  if (two('+', '+')) return one(T_INC, 2);
  if (two('-', '-')) return one(T_DEC, 2);
  if (two('+', '=')) return one(T_ADDEQ, 2);
  if (two('-', '=')) return one(T_SUBEQ, 2);
  if (two('<', '<')) return one(T_SHL, 2);
  if (two('>', '>')) return one(T_SHR, 2);
  if (two('<', '=')) return one(T_LE, 2);
  if (two('>', '=')) return one(T_GE, 2);
  if (two('=', '=')) return one(T_EQ, 2);
  if (two('!', '=')) return one(T_NE, 2);
  if (two('&', '&')) return one(T_ANDAND, 2);
  if (two('|', '|')) return one(T_OROR, 2);
  if (two('^', '^')) return one(T_XORXOR, 2);
  switch (c) {
  case '(':
    parens_++;
    return one(T_LPAREN, 1);
  case ')':
    if (--parens_ < 0)
      return err(line_, DTag::D_SYNTAX, "extra ) in input stream");
    return one(T_RPAREN, 1);
  case '[':
    brackets_++;
    return one(T_LBRACK, 1);
  case ']':
    if (--brackets_ < 0)
      return err(line_, DTag::D_SYNTAX, "extra ] in input stream");
    return one(T_RBRACK, 1);
  case '{': return one(T_LBRACE, 1);
  case '}': return one(T_RBRACE, 1);
  case ',': return one(T_COMMA, 1);
  case ';': return one(T_SEMI, 1);
  case '?': return one(T_QUESTION, 1);
  case ':': return one(T_COLON, 1);
  case '=': return one(T_ASSIGN, 1);
  case '+': return one(T_PLUS, 1);
  case '-': return one(T_MINUS, 1);
  case '*': return one(T_STAR, 1);
  case '/':
    if (in_pred_ && parens_ + brackets_ > pred_depth_) {
      // What follows tells a predicate's end from a division, as in
      // DTrace: the end of input, ';', '{' or another '/' (and DTrace
      // names the line it looked ahead to).
      size_t i = p_ + 1;
      int line = line_;
      for (; i < s_.size() && strchr("\f\n\r\t\v ", s_[i]); i++)
        line += s_[i] == '\n';
      if (i >= s_.size() || strchr(";{/", s_[i]))
        return err(line, DTag::D_SYNTAX,
                   parens_ ? "closing ) expected in predicate before /"
                           : "closing ] expected in predicate before /");
    }
    t.pred_end = in_pred_ && parens_ + brackets_ == pred_depth_;
    if (t.pred_end) // DTrace's lexer looked ahead to what follows: its line
      for (size_t i = p_ + 1; i < s_.size() && strchr("\f\n\r\t\v ", s_[i]); i++)
        t.line += s_[i] == '\n';
    return one(T_SLASH, 1);
  case '%': return one(T_PERCENT, 1);
  case '<': return one(T_LT, 1);
  case '>': return one(T_GT, 1);
  case '&': return one(T_AMP, 1);
  case '|': return one(T_PIPE, 1);
  case '^': return one(T_CARET, 1);
  case '!': return one(T_BANG, 1);
  case '~': return one(T_TILDE, 1);
  case '.': return one(T_DOT, 1);
  }
  t.text = std::string(1, c);
  return syntax(t);
}

// ---- clauses --------------------------------------------------------------------

// #pragma D attributes name/data/class ident: an identifier's stability,
// which this kernel does not report; the attributes are checked as
// DTrace reads them (each part optional from the right, case ignored).
Result<void> Parser::pragma_attributes(int args, const char *attrs,
                                       const char *ident) {
  if (args != 2)
    return err(line_, DTag::D_PRAGMA_MALFORM,
               "malformed #pragma attributes <attributes> <ident>");
  static const char *const stability[] = {"Internal", "Private", "Obsolete",
                                          "External", "Unstable", "Evolving",
                                          "Stable",   "Standard"};
  static const char *const classes[] = {"Unknown", "CPU", "Platform",
                                        "Group",   "ISA", "Common"};
  std::string rest = attrs;
  for (int part = 0; part < 3 && !rest.empty(); part++) {
    const size_t slash = rest.find('/');
    const std::string w = rest.substr(0, slash);
    rest = slash == std::string::npos ? "" : rest.substr(slash + 1);
    bool known = false;
    if (part < 2)
      for (const char *x : stability)
        known |= strcasecmp(w.c_str(), x) == 0;
    else
      for (const char *x : classes)
        known |= strcasecmp(w.c_str(), x) == 0;
    if (!known)
      return err(line_, DTag::D_PRAGMA_INVAL,
                 "invalid attributes specified by #pragma attributes");
  }
  if (!rest.empty())
    return err(line_, DTag::D_PRAGMA_INVAL,
               "invalid attributes specified by #pragma attributes");
  if (!strchr(ident, ':')) // provider:part names a provider's
    pragma_attrs_.emplace_back(ident, line_);
  return {};
}

// #pragma D option name[=value]
Result<void> Parser::pragma() {
  size_t eol = s_.find('\n', p_);
  std::string line = s_.substr(p_, eol == std::string::npos ? eol : eol - p_);
  p_ = eol == std::string::npos ? s_.size() : eol;
  if (line.rfind("#!", 0) == 0)
    return {}; // #!/usr/sbin/dtrace -s
  if (eol == std::string::npos && line.rfind("#pragma", 0) == 0 &&
      !origin_->file.empty())
    return err(line_, DTag::D_SYNTAX,
               "end-of-file encountered before end of control line");
  // The C preprocessor's line markers (-C): # N "file" flags.
  if (int n = 0, used = 0;
      sscanf(line.c_str(), "# %d %n", &n, &used) == 1 && used > 0 && n >= 0) {
    line_ = n - 1; // the marker's own newline comes next
    return {};
  }
  char word[4][64] = {};
  int n = sscanf(line.c_str(), "#pragma %63s %63s %63s %63s", word[0], word[1],
                 word[2], word[3]);
  static const char *const cpp_words[] = {"define", "undef", "include",
                                          "if", "ifdef", "ifndef", "elif",
                                          "else", "endif", "error", "line"};
  char directive[16] = {};
  if (sscanf(line.c_str(), "# %15[a-z]", directive) == 1)
    for (const char *w : cpp_words)
      if (strcmp(directive, w) == 0)
        return err(line_, DTag::D_PRAGCTL_INVAL,
                   "#" + std::string(w) +
                       " is for the C preprocessor: run dtrace with -C");
  if (n < 1)
    return err(line_, DTag::D_PRAGCTL_INVAL,
               "invalid control directive: " + one_line(line));
  if (strcmp(word[0], "D") != 0)
    return {}; // other pragmas are ignored, as by DTrace's cpp-less mode
  if (n >= 2 && strcmp(word[1], "error") == 0) {
    // #pragma D error "text" ...: the script's own error, its words
    // (a string's without the quotes) each followed by a blank.
    std::string text;
    for (size_t i = line.find("error") + 5; i < line.size();) {
      if (isspace((unsigned char)line[i])) {
        i++;
        continue;
      }
      size_t end = line[i] == '"' ? line.find('"', i + 1) : i;
      if (line[i] == '"' && end != std::string::npos) {
        text += line.substr(i + 1, end - i - 1) + " ";
        i = end + 1;
        continue;
      }
      while (end < line.size() && !isspace((unsigned char)line[end]))
        end++;
      text += line.substr(i, end - i) + " ";
      i = end;
    }
    return err(line_, DTag::D_PRAGERR, "#error: " + one_line(text));
  }
  if (n >= 2 && strcmp(word[1], "attributes") == 0)
    return pragma_attributes(n - 2, word[2], n > 3 ? word[3] : "");
  if (n >= 2 && strcmp(word[1], "binding") == 0) {
    // #pragma D binding "version" ident: the D version an identifier
    // belongs to (DTrace's own, 1.0 to 2.0; nothing changes here).
    unsigned maj = 0, min = 0;
    if (n != 4 || sscanf(word[2], "\"%u.%u", &maj, &min) != 2)
      return err(line_, DTag::D_PRAGMA_MALFORM,
                 "malformed #pragma binding \"version\" <ident>");
    if (maj < 1 || maj > 2 || (maj == 2 && min > 0))
      return err(line_, DTag::D_PRAGMA_INVAL,
                 strf("invalid version string specified by #pragma binding: "
                      "%u.%u", maj, min));
    return {};
  }
  if (n >= 2 && strcmp(word[1], "depends_on") == 0) {
    // A script's dependencies: libraries (which only libraries may
    // name), providers and modules, none of which changes anything here.
    if (n != 4)
      return err(line_, DTag::D_PRAGMA_MALFORM,
                 "malformed #pragma depends_on <class> <name>");
    if (strcmp(word[2], "library") == 0)
      return err(line_, DTag::D_PRAGMA_DEPEND,
                 "main program may not explicitly depend on a library");
    if (strcmp(word[2], "provider") != 0 && strcmp(word[2], "module") != 0)
      return err(line_, DTag::D_PRAGMA_INVAL,
                 strf("invalid class %s specified by #pragma depends_on",
                      word[2]));
    return {};
  }
  if (n < 2 || strcmp(word[1], "option") != 0)
    return err(line_, DTag::D_PRAGMA_INVAL,
               "invalid control directive: " + one_line(line));
  if (n < 3)
    return err(line_, DTag::D_PRAGMA_MALFORM,
               "malformed #pragma option <option>[=<value>]");
  if (n > 3)
    return err(line_, DTag::D_PRAGMA_MALFORM,
               "superfluous arguments specified for #pragma option");
  std::string opt = word[2], val;
  bool has_val = false;
  if (size_t eq = opt.find('='); eq != std::string::npos)
    val = opt.substr(eq + 1), opt.resize(eq), has_val = true;
  // DTrace's words for an option it refuses, then the reason.
  auto refused = [&](const std::string &why) {
    return err(line_, DTag::D_PRAGMA_OPTSET,
               "failed to set option '" + one_line(opt) + "'" +
                   (has_val ? " to '" + one_line(val) + "'" : "") + ": " + why);
  };
  const char *kBadValue = "Invalid value for specified option";
  // The same sizes and limits as -b and -x bufsize= (parse_size).
  auto size_of = [&](u64 &out) -> Result<void> {
    auto v = parse_size(val);
    if (!v)
      return refused(kBadValue);
    out = *v;
    return {};
  };
  if (opt == "errtags") {
    origin_->errtags = true;
    return {};
  }
  if (opt == "pspec") { // a flag of the compiler's, as errtags
    if (has_val)
      return refused(kBadValue);
    pspec_ = true;
    return {};
  }
  auto known = set_option(pragmas_, opt, val);
  if (!known)
    return refused(kBadValue);
  if (*known)
    ;
  else if (opt == "quiet" || opt == "destructive" || opt == "rawbytes" ||
           opt == "flowindent") {
    auto on = bool_option(val);
    if (!on)
      return refused(kBadValue);
    if (opt != "flowindent") // -F's, which a script cannot turn on here
      (opt == "quiet" ? pragmas_.quiet
       : opt == "destructive" ? pragmas_.destructive : pragmas_.rawbytes) = *on;
  }
  else if (opt == "bufsize")
    MK_TRY(size_of(pragmas_.bufsize));
  else if (opt == "aggsize")
    MK_TRY(size_of(pragmas_.aggsize));
  else if (opt == "strsize") {
    auto v = parse_strsize(val);
    if (!v)
      return refused(kBadValue);
    pragmas_.strsize = *v;
  }
  else if (opt == "bufpolicy") {
    if (val != "switch")
      return refused("only bufpolicy=switch is supported: buffers here are "
                     "drained as they fill");
  } else if (opt == "ldpath" || opt == "modpath") {
    return refused("Option cannot be used from within a D program");
  } else
    return refused("Option not supported here");
  return {};
}

// A probe description, raw: up to a blank, or ',', '{', '/' or ';' outside
// a glob's brackets.
Result<std::string> Parser::desc() {
  MK_TRY(skip_space());
  size_t start = p_;
  int brackets = 0;
  while (!at_end()) {
    char c = ch();
    if (c == '[')
      brackets++;
    else if (c == ']' && brackets > 0)
      brackets--;
    else if (isspace((unsigned char)c) || (!brackets && strchr(",{/;", c)))
      break;
    p_++;
  }
  std::string d = s_.substr(start, p_ - start);
  if (d.empty()) {
    Token t;
    t.line = line_;
    if (!at_end()) {
      t.kind = T_IDENT;
      t.text = std::string(1, ch());
    }
    return syntax(t);
  }
  if (strchr("})];", d[0])) { // no description starts so: D's syntax
    Token t;
    t.kind = T_IDENT, t.line = line_, t.text = d.substr(0, 1);
    return syntax(t);
  }
  if (auto r = check_desc(d); !r)
    return err(line_, DTag::D_PDESC_INVAL, r.error().message);
  return d;
}

Result<void> Parser::clause(ProgramAst &prog) {
  ClauseAst c;
  c.line = line_;
  c.origin = origin_;
  int desc_line = line_;
  for (;;) {
    auto d = desc();
    if (!d)
      return d.take_error();
    c.descs.push_back(*d);
    desc_line = line_;
    MK_TRY(skip_space());
    if (ch() != ',')
      break;
    p_++;
  }
  MK_TRY(skip_space());
  bool body = false;
  u64 pred_lo = 0, pred_hi = 0; // the predicate's reads (global_seq_)
  if (ch() == '/') {
    p_++;
    in_pred_ = true;
    pred_depth_ = parens_ + brackets_;
    pred_lo = global_seq_;
    MK_TRY(advance());
    auto e = expr();
    if (!e)
      return e.take_error();
    c.pred = std::move(*e);
    c.end_line = c.pred->line;
    in_pred_ = false;
    pred_hi = global_seq_;
    if (!is(T_SLASH))
      return syntax(tok_);
    MK_TRY(advance());
    if (is(T_LBRACE))
      body = true;
    else if (!is(T_EOF))
      return syntax(tok_);
  } else if (ch() == '{') {
    p_++;
    body = true;
  } else if (!at_end() || !origin_->file.empty()) {
    // A bare description ends only a -n or -P (dtrace -n BEGIN), never a
    // script file.
    return err(desc_line, DTag::D_SYNTAX,
               "expected predicate and/or actions following probe description");
  }
  if (body) {
    c.has_body = true;
    MK_TRY(advance());
    while (!is(T_RBRACE)) {
      if (is(T_EOF))
        return syntax(tok_);
      if (is(T_SEMI)) {
        MK_TRY(advance());
        continue;
      }
      MK_TRY(stmt(c));
      if (!is(T_SEMI) && !is(T_RBRACE))
        return syntax(tok_);
    }
    // The '}' ends the clause; the next clause starts with a raw
    // description, so nothing further is lexed here.
    c.end_line = tok_.line;
  }
  // DTrace resolves a clause's actions before its predicate: the
  // predicate's reads come after what the actions assign.
  for (auto &r : global_reads_)
    if (r.second >= pred_lo && r.second < pred_hi)
      r.second = global_seq_++;
  prog.clauses.push_back(std::move(c));
  return {};
}

namespace {

// DTrace's functions that look at what this kernel does not have: user
// processes and their stacks, Solaris's and Linux's kernel locks, devices,
// packets.  A call is checked against DTrace's prototype, so that a wrong
// one gets DTrace's message, and then refused.  An argument's kind: 'i'
// an integer (a string or an action refused), 'p' a pointer (a string
// passes), 's' a string; 'f' a frame count and 'z' a string size, as
// ustack( ) takes them (integer constants).
struct ForeignFn {
  const char *name;
  u8 lo, hi;
  const char *kinds;
  const char *protos[3];
  const char *why;
};
const ForeignFn kForeign[] = {
    {"mutex_owned", 1, 1, "p", {"struct mutex *"}, "no kernel mutexes to inspect"},
    {"mutex_owner", 1, 1, "p", {"struct mutex *"}, "no kernel mutexes to inspect"},
    {"mutex_type_adaptive", 1, 1, "p", {"struct mutex *"}, "no kernel mutexes to inspect"},
    {"mutex_type_spin", 1, 1, "p", {"struct mutex *"}, "no kernel mutexes to inspect"},
    {"rw_read_held", 1, 1, "p", {"rwlock_t *"}, "no kernel rwlocks to inspect"},
    {"rw_write_held", 1, 1, "p", {"rwlock_t *"}, "no kernel rwlocks to inspect"},
    {"rw_iswriter", 1, 1, "p", {"rwlock_t *"}, "no kernel rwlocks to inspect"},
    {"progenyof", 1, 1, "i", {"pid_t"}, "no processes"},
    {"raise", 1, 1, "i", {"int"}, "no processes to signal"},
    {"stop", 0, 0, "", {}, "no processes to stop"},
    {"breakpoint", 0, 0, "", {}, "no kernel debugger"},
    {"copyout", 3, 3, "pii", {"void *", "uintptr_t", "size_t"}, "no user address space"},
    {"copyoutstr", 3, 3, "sii", {"string", "uintptr_t", "size_t"}, "no user address space"},
    {"pcap", 2, 2, "pi", {"void *", "int"}, "no network packets"},
    {"ustack", 0, 2, "fz", {"uint32_t", "uint32_t"}, "no user stacks"},
    {"jstack", 0, 2, "fz", {"uint32_t", "uint32_t"}, "no user stacks"},
    {"getmajor", 1, 1, "i", {"dev_t"}, "no device numbers"},
    {"getminor", 1, 1, "i", {"dev_t"}, "no device numbers"},
    {"ddi_pathname", 2, 2, "pi", {"struct dev_info *", "int"}, "no device tree"},
    {"d_path", 1, 1, "p", {"struct path *"}, "no file system"},
};

bool is_foreign(const std::string &name) {
  for (const ForeignFn &x : kForeign)
    if (name == x.name)
      return true;
  return false;
}

} // namespace

Error Parser::foreign_call(const Token &t) {
  const ForeignFn *f = nullptr;
  for (const ForeignFn &x : kForeign)
    if (t.sval == x.name)
      f = &x;
  const std::string what = t.sval + "( )";
  auto args = call_args();
  if (!args)
    return args.take_error();
  const size_t n = args->size();
  if (n < f->lo || n > f->hi)
    return err(t.line, DTag::D_PROTO_LEN, proto_len(what, n, f->lo, f->hi));
  for (size_t i = 0; i < n; i++) {
    const Expr &a = *(*args)[i];
    const char k = f->kinds[i];
    const char *got = a.kind == Expr::Void  ? "void"
                      : a.kind == Expr::Str ? "string"
                                            : nullptr;
    if (got && !(k == 'p' && a.kind == Expr::Str) && k != 's')
      return err(t.line, DTag::D_PROTO_ARG,
                 proto_arg(what, i + 1, f->protos[i], got));
    if (k == 'f' && (a.kind != Expr::Int || a.ival < 1))
      return err(t.line, DTag::D_USTACK_FRAMES,
                 what + " argument #1 must be a non-zero positive integer "
                        "constant");
    if (k == 'z' && (a.kind != Expr::Int || a.ival < 0))
      return err(t.line, DTag::D_USTACK_STRSIZE,
                 what + " argument #2 must be a positive integer constant");
  }
  return err(t.line, DTag::D_FUNC_UNDEF,
             what + " is not available: this kernel has " + f->why);
}


Result<ExprPtr> Parser::stack_call(const Token &t) {
  auto args = call_args();
  if (!args)
    return args.take_error();
  if (args->size() > 1)
    return err(t.line, DTag::D_PROTO_LEN, proto_len("stack( )", args->size(), 0, 1));
  if (args->size() == 1 && (*args)[0]->kind == Expr::Str)
    return err(t.line, DTag::D_PROTO_ARG,
               proto_arg("stack( )", 1, "uint32_t", "string"));
  if (args->size() == 1 &&
      ((*args)[0]->kind != Expr::Int || (*args)[0]->ival < 1))
    return err(t.line, DTag::D_STACK_SIZE,
               "stack( ) argument #1 must be a non-zero positive integer constant");
  if (args->size() == 1 && (*args)[0]->ival > (i64)kMaxStackFrames)
    return err(t.line, DTag::D_STACK_SIZE,
               strf("stack( ) argument #1 is more than %u frames", kMaxStackFrames));
  auto e = node(Expr::Call, t);
  e->name = "stack";
  e->ival = args->empty() ? kStackFrames : (*args)[0]->ival;
  return e;
}

Result<std::vector<ExprPtr>> Parser::call_args() {
  std::vector<ExprPtr> args;
  MK_TRY(expect(T_LPAREN));
  if (is(T_RPAREN)) {
    MK_TRY(advance());
    return args;
  }
  for (;;) {
    auto e = expr();
    if (!e)
      return e.take_error();
    args.push_back(std::move(*e));
    if (is(T_COMMA)) {
      MK_TRY(advance());
      continue;
    }
    MK_TRY(expect(T_RPAREN));
    return args;
  }
}


Result<void> Parser::stmt(ClauseAst &c) {
  Stmt s;
  s.line = tok_.line;
  s.near = tok_.text;
  // A declaration inside a clause (int i = 0; typedef ...): D has none
  // there, and says so at its first word, as DTrace does.
  if (is(T_IDENT) && (tok_.sval == "typedef" || is_type(tok_.sval)))
    return syntax(tok_);
  if (is(T_AGG)) {
    s.kind = Stmt::Aggregate;
    s.agg = tok_.sval;
    MK_TRY(advance());
    if (is(T_LBRACK)) {
      MK_TRY(advance());
      for (;;) {
        auto e = expr();
        if (!e)
          return e.take_error();
        s.keys.push_back(std::move(*e));
        if (is(T_COMMA)) {
          MK_TRY(advance());
          continue;
        }
        MK_TRY(expect(T_RBRACK));
        break;
      }
      if (s.keys.size() > kMaxKeys)
        return err(s.line, DTag::D_KEY_TYPE,
                   strf("an aggregation takes at most %u keys", kMaxKeys));
    }
    if (!is(T_ASSIGN))
      return syntax(tok_);
    MK_TRY(advance());
    if (!is(T_IDENT))
      return err(s.line, DTag::D_AGG_FUNC,
                 "@" + s.agg + " must be assigned an aggregating function");
    Token fn = tok_;
    static const struct {
      const char *name;
      AggFn fn;
      size_t lo, hi;
    } fns[] = {{"count", AggFn::Count, 0, 0},      {"sum", AggFn::Sum, 1, 1},
               {"min", AggFn::Min, 1, 1},          {"max", AggFn::Max, 1, 1},
               {"avg", AggFn::Avg, 1, 1},          {"quantize", AggFn::Quantize, 1, 2},
               {"lquantize", AggFn::LQuantize, 3, 5},
               {"stddev", AggFn::Stddev, 1, 1},
               {"llquantize", AggFn::LLQuantize, 5, 6}};
    const auto *f = std::find_if(std::begin(fns), std::end(fns),
                                 [&](auto &x) { return fn.sval == x.name; });
    if (f == std::end(fns))
      return err(s.line, DTag::D_AGG_FUNC,
                 "@" + s.agg + " must be assigned an aggregating function");
    s.fn = f->fn;
    MK_TRY(advance());
    auto args = call_args();
    if (!args)
      return args.take_error();
    if (args->size() < f->lo || args->size() > f->hi)
      return err(fn.line, DTag::D_PROTO_LEN,
                 proto_len(std::string(f->name) + "( )", args->size(), f->lo,
                           f->hi));
    s.args = std::move(*args);
    c.stmts.push_back(std::move(s));
    return {};
  }
  if (!is(T_IDENT))
    return expr_stmt(c, s); // ++x, (x = 1), 3++ (refused there)
  // An identifier followed by '(' is an action, or a function whose value
  // is thrown away; anything else starts an expression.
  const Mark at = mark();
  Token name = tok_;
  MK_TRY(advance());
  if (!is(T_LPAREN) ||
      (find_builtin(name.sval) && name.sval != "stack")) {
    reset(at);
    return expr_stmt(c, s);
  }
  // system( ) and freopen( ) take printf( )'s arguments.
  if (name.sval == "printf" || name.sval == "printa" ||
      name.sval == "system" || name.sval == "freopen") {
    bool pa = name.sval == "printa";
    s.kind = pa                        ? Stmt::Printa
             : name.sval == "system"  ? Stmt::System
             : name.sval == "freopen" ? Stmt::Freopen
                                      : Stmt::Printf;
    MK_TRY(advance());
    if (is(T_STR)) {
      s.fmt = tok_.sval;
      s.has_fmt = true;
      MK_TRY(advance());
      if (pa && is(T_RPAREN))
        return err(name.line, DTag::D_PRINTA_PROTO,
                   "printa( ) prototype mismatch: 1 args passed, 2 expected");
      if (pa || !is(T_RPAREN))
        MK_TRY(expect(T_COMMA));
    } else if (!pa) {
      const std::string what = name.sval + "( )";
      if (is(T_RPAREN))
        return err(name.line, DTag::D_PROTO_LEN, proto_len(what, 0, 1, SIZE_MAX));
      s.fmt_expr = true; // refused by the compiler, which knows its type
    }
    if (pa) {
      // printa([format,] @a ...): what stands where an aggregation should.
      auto not_agg = [&](size_t n) -> Error {
        if (is(T_RPAREN))
          return err(name.line, DTag::D_PRINTA_PROTO,
                     strf("printa( ) prototype mismatch: %zu args passed, "
                          "%zu expected", n - 1, n));
        if (is(T_INT))
          return err(name.line, DTag::D_PRINTA_AGGARG,
                     proto_arg("printa( )", n, "aggregation", "int"));
        return syntax(tok_);
      };
      if (!is(T_AGG))
        return not_agg(s.has_fmt ? 2 : 1);
      s.agg = tok_.sval;
      MK_TRY(advance());
      // printa( ) joins several aggregations by key.
      while (is(T_COMMA)) {
        MK_TRY(advance());
        if (!is(T_AGG))
          return not_agg(s.has_fmt + 2 + s.more_aggs.size());
        s.more_aggs.push_back(tok_.sval);
        MK_TRY(advance());
      }
      MK_TRY(expect(T_RPAREN));
    } else {
      while (!is(T_RPAREN)) {
        // An aggregation standing alone as an argument: the compiler
        // names it in its conversion's mismatch, as DTrace does.
        if (is(T_AGG)) {
          const Mark at = mark();
          auto a = node(Expr::AggRef, tok_);
          a->name = tok_.sval;
          MK_TRY(advance());
          if (is(T_COMMA) || is(T_RPAREN)) {
            s.args.push_back(std::move(a));
            if (is(T_COMMA))
              MK_TRY(advance());
            continue;
          }
          reset(at);
        }
        auto e = expr();
        if (!e)
          return e.take_error();
        s.args.push_back(std::move(*e));
        if (is(T_COMMA))
          MK_TRY(advance());
        else if (!is(T_RPAREN))
          return syntax(tok_);
      }
      MK_TRY(advance());
    }
    c.stmts.push_back(std::move(s));
    return {};
  }
  if (name.sval == "stack") {
    // The stack( ) action traces the stack( ) value.
    s.kind = Stmt::Trace;
    auto e = stack_call(name);
    if (!e)
      return e.take_error();
    s.args.push_back(std::move(*e));
    c.stmts.push_back(std::move(s));
    return {};
  }
  if (name.sval == "trace" || name.sval == "exit") {
    s.kind = name.sval == "trace" ? Stmt::Trace : Stmt::Exit;
    if (s.kind == Stmt::Trace && is(T_LPAREN)) {
      const Mark m = mark();
      MK_TRY(advance());
      if (is(T_AGG)) // trace(@a): an aggregation is no value to record
        return err(tok_.line, DTag::D_TRACE_DYN,
                   "trace( ) may not be applied to a dynamic expression");
      reset(m);
    }
    auto args = call_args();
    if (!args)
      return args.take_error();
    if (args->size() != 1)
      return err(name.line, DTag::D_PROTO_LEN,
                 proto_len(name.sval + "( )", args->size(), 1, 1));
    s.args = std::move(*args);
    c.stmts.push_back(std::move(s));
    return {};
  }
  // The aggregation actions: normalize(@a, n), denormalize(@a),
  // trunc(@a [, n]), clear(@a).
  static const struct {
    const char *name;
    Stmt::Kind kind;
    size_t lo, hi; // values after the aggregation
  } aggacts[] = {{"normalize", Stmt::Normalize, 1, 1},
                 {"denormalize", Stmt::Denormalize, 0, 0},
                 {"trunc", Stmt::Trunc, 0, 1},
                 {"clear", Stmt::Clear, 0, 0}};
  for (const auto &act : aggacts) {
    if (name.sval != act.name)
      continue;
    s.kind = act.kind;
    MK_TRY(advance());
    if (!is(T_AGG)) {
      if (is(T_INT))
        return err(name.line, DTag::D_PROTO_ARG,
                   proto_arg(name.sval + "( )", 1, "aggregation", "int"));
      return syntax(tok_);
    }
    s.agg = tok_.sval;
    MK_TRY(advance());
    while (is(T_COMMA)) {
      MK_TRY(advance());
      auto e = expr();
      if (!e)
        return e.take_error();
      s.args.push_back(std::move(*e));
    }
    MK_TRY(expect(T_RPAREN));
    if (s.args.size() < act.lo || s.args.size() > act.hi)
      return err(name.line, DTag::D_PROTO_LEN,
                 proto_len(name.sval + "( )", s.args.size() + 1, act.lo + 1,
                           act.hi + 1));
    c.stmts.push_back(std::move(s));
    return {};
  }
  // Actions of plain arguments, counted here, typed by the compiler.
  static const struct {
    const char *name;
    Stmt::Kind kind;
    size_t lo, hi;
  } plain[] = {{"tracemem", Stmt::Tracemem, 2, 3},
               {"print", Stmt::Print, 1, 1},
               {"setopt", Stmt::Setopt, 1, 2}};
  for (const auto &act : plain) {
    if (name.sval != act.name)
      continue;
    s.kind = act.kind;
    auto args = call_args();
    if (!args)
      return args.take_error();
    if (args->size() < act.lo || args->size() > act.hi)
      return err(name.line, DTag::D_PROTO_LEN,
                 proto_len(name.sval + "( )", args->size(), act.lo, act.hi));
    s.args = std::move(*args);
    c.stmts.push_back(std::move(s));
    return {};
  }
  if (name.sval == "speculate" || name.sval == "commit" ||
      name.sval == "discard") {
    s.kind = name.sval == "speculate" ? Stmt::Speculate
             : name.sval == "commit"  ? Stmt::Commit
                                      : Stmt::Discard;
    auto args = call_args();
    if (!args)
      return args.take_error();
    if (args->size() != 1)
      return err(name.line, DTag::D_PROTO_LEN,
                 proto_len(name.sval + "( )", args->size(), 1, 1));
    s.args = std::move(*args);
    c.stmts.push_back(std::move(s));
    return {};
  }
  if (is_foreign(name.sval))
    return foreign_call(name);
  return err(name.line, DTag::D_FUNC_UNDEF,
             "undefined function name: " + name.sval);
}


Result<CType> Parser::ctype(bool stars) {
  auto t = base_type();
  if (!t || !stars)
    return t;
  int levels = 0;
  while (is(T_STAR)) {
    *t = pointer_to(*t);
    MK_TRY(advance());
    if (++levels > kMaxPointers)
      return unsupported(tok_, "more than 32 levels of pointer");
  }
  return t;
}

Result<CType> Parser::base_type() {
  CType t;
  Token first = tok_;
  const std::string w = tok_.sval;
  if (w == "struct" || w == "union") {
    MK_TRY(advance());
    std::string tag;
    if (is(T_IDENT)) {
      tag = tok_.sval;
      // struct D`s: a type of the D program's own module, D.
      if (tag.rfind("D`", 0) == 0 && tag.size() > 2)
        tag = tag.substr(2);
      const Token tag_tok = tok_;
      MK_TRY(advance());
      // struct mod`s names a type of another module: one that the D
      // program cannot name (minikern's modules have no types), but may
      // define, as DTrace lets it.
      if (tag.find('`') != std::string::npos && !is(T_LBRACE))
        return syntax(tag_tok);
    }
    if (is(T_LBRACE))
      return sou_body(w == "union", tag, first.line);
    if (tag.empty())
      return syntax(tok_);
    // A tag not declared yet names an incomplete type: a pointer to it
    // may be declared, an object of it not.
    Sou *&slot = sous_[w + " " + tag];
    if (!slot) { // named as DTrace names a forward declaration
      slot = new_sou();
      slot->is_union = w == "union", slot->name = "struct " + tag;
    }
    t.sou = slot, t.name = slot->name, t.bytes = 0;
    return t;
  }
  if (w == "void") {
    t.is_void = true, t.bytes = 0, t.name = w;
    MK_TRY(advance());
    return t;
  }
  if (auto td = typedefs_.find(w); td != typedefs_.end()) {
    MK_TRY(advance());
    return td->second;
  }
  if (w == "enum") {
    // An enumeration: an int, its enumerators named constants.
    MK_TRY(advance());
    std::string tag;
    if (is(T_IDENT)) {
      tag = tok_.sval;
      MK_TRY(advance());
    }
    if (is(T_LBRACE)) {
      auto body = enum_body(tag);
      if (!body)
        return body.take_error();
      t.enumerators = *body;
    } else if (tag.empty() || !enums_.count(tag)) {
      return err(first.line, DTag::D_DECL_INCOMPLETE,
                 "incomplete struct/union/enum enum " + tag);
    } else {
      t.enumerators = enums_[tag];
    }
    t.bytes = 4, t.is_signed = true, t.name = tag.empty() ? "enum" : "enum " + tag;
    return t;
  }
  if (w == "float" || w == "double") {
    t.bytes = w == "float" ? 4 : 8, t.is_signed = false, t.is_float = true;
    t.name = w;
    MK_TRY(advance());
    if (is(T_IDENT) && (type_keyword(tok_.sval) || tok_.sval == "float" ||
                        tok_.sval == "double"))
      return err(first.line, DTag::D_DECL_COMBO, "invalid type combination");
    return t;
  }
  for (const auto &d : kTypedefs)
    if (w == d.name) {
      t.bytes = d.bytes, t.is_signed = d.is_signed, t.name = w;
      MK_TRY(advance());
      return t;
    }
  if (w == "string") {
    t.string = true, t.name = w;
    MK_TRY(advance());
    return t;
  }
  int longs = 0, shorts = 0, chars = 0, ints = 0, sign = 0, unsign = 0;
  while (is(T_IDENT) && type_keyword(tok_.sval)) {
    const std::string &k = tok_.sval;
    longs += k == "long", shorts += k == "short", chars += k == "char";
    ints += k == "int", sign += k == "signed", unsign += k == "unsigned";
    t.name += (t.name.empty() ? "" : " ") + k;
    MK_TRY(advance());
  }
  // DTrace's words for what it cannot make of the keywords.
  if (is(T_IDENT) && tok_.sval == "void" && !chars && !ints)
    return err(first.line, DTag::D_DECL_VOIDATTR,
               "invalid type declaration: attributes may not be used with "
               "void type");
  if (chars && (shorts || longs))
    return err(first.line, DTag::D_DECL_CHARATTR,
               "invalid type declaration: short and long may not be used "
               "with char type");
  if (shorts && longs)
    return err(first.line, DTag::D_UNKNOWN,
               "failed to resolve type short long : Unknown type name");
  if (longs > 2 || shorts > 1 || chars > 1 || ints > 1 || sign + unsign > 1 ||
      (chars && ints))
    return err(first.line, DTag::D_DECL_COMBO, "invalid type combination");
  t.is_signed = !unsign;
  t.bytes = chars ? 1 : shorts ? 2 : longs == 2 ? 8 : longs ? sizeof(long) : 4;
  if (t.name.empty() || (!longs && !shorts && !chars && !ints && !sign &&
                         !unsign))
    return syntax(first);
  return t;
}

static std::optional<i64> fold(const Expr &e);

Result<std::optional<i64>> Parser::constant_expr() {
  auto e = ternary();
  if (!e)
    return e.take_error();
  return fold(**e);
}

Result<CType> Parser::sou_body(bool is_union, const std::string &tag, int line) {
  Nest nest(nest_); // struct { struct { ... } a; } b: each a descent
  MK_TRY(check_nest());
  const std::string kind = is_union ? "union" : "struct";
  const std::string name = tag.empty() ? kind : kind + " " + tag;
  Sou *sou = nullptr;
  if (!tag.empty()) {
    if (library_name(name))
      sous_.erase(name);
    Sou *&slot = sous_[name];
    if (!slot) {
      slot = new_sou();
      slot->is_union = is_union, slot->name = name;
    }
    sou = slot;
  } else {
    sou = new_sou();
  }
  if (sou->complete || defining_.count(sou)) // declared twice, or inside itself
    return err(tok_.line, DTag::D_DECL_TYPERED, "type redeclared: " + name);
  defining_.insert(sou);
  struct Done {
    std::set<const Sou *> &s;
    const Sou *x;
    ~Done() { s.erase(x); }
  } done{defining_, sou};
  // Laid out aside and published when whole: a member of the type being
  // declared (struct s { struct s x; }) finds it incomplete.
  Sou s;
  s.is_union = is_union, s.name = name;
  u64 end = 0; // bits: where the last member ended
  MK_TRY(advance()); // '{'
  if (is(T_RBRACE))
    return syntax(tok_);
  while (!is(T_RBRACE)) {
    if (!is(T_IDENT) || !is_type(tok_.sval))
      return syntax(tok_);
    auto base = base_type();
    if (!base)
      return base.take_error();
    for (;;) {
      CType ft = *base;
      int stars = 0;
      while (is(T_STAR)) {
        ft = pointer_to(ft);
        MK_TRY(advance());
        if (++stars > kMaxPointers)
          return unsupported(tok_, "more than 32 levels of pointer");
      }
      Field f;
      const int at = tok_.line;
      if (is(T_IDENT) && !is_type(tok_.sval)) {
        f.name = tok_.sval;
        MK_TRY(advance());
      }
      // int f(): a function, which no struct holds (DTrace's words).
      if (is(T_LPAREN) && !f.name.empty())
        return err(at, DTag::D_DECL_VOIDOBJ, "cannot have void member: " + f.name);
      if (is(T_COLON)) { // a bitfield
        MK_TRY(advance());
        auto w = constant_expr();
        if (!w)
          return w.take_error();
        const std::optional<i64> bits = *w;
        if (!bits || *bits <= 0)
          return err(at, DTag::D_DECL_BFCONST,
                     "positive integral constant expression expected as "
                     "bit-field size");
        if (ft.sou || ft.pointer || ft.string || ft.is_void || ft.is_float)
          return err(at, DTag::D_DECL_BFTYPE,
                     "invalid type for bit-field: " +
                         (f.name.empty() ? std::string("(anon)") : f.name));
        if (*bits > ft.bytes * 8)
          return err(at, DTag::D_DECL_BFSIZE,
                     "bit-field too big for type: " + f.name);
        f.bits = (u8)*bits;
      } else if (f.name.empty()) {
        return syntax(tok_);
      }
      if (is(T_LBRACK)) { // char name[16]: one dimension, a constant
        if (f.bits)
          return syntax(tok_);
        MK_TRY(advance());
        auto n = constant_expr();
        if (!n)
          return n.take_error();
        const std::optional<i64> dim = *n;
        if (!dim || *dim <= 0)
          return err(at, DTag::D_DECL_ARRSUB,
                     "positive integral constant expression or tuple "
                     "signature expected as array declaration subscript");
        if (*dim > (1 << 20))
          return err(at, DTag::D_DECL_ARRBIG, "array dimension too big");
        f.dim = (u32)*dim;
        MK_TRY(expect(T_RBRACK));
        // Elements lie at multiples of the size: a struct's must keep its
        // members aligned (DTrace's layout has no tail padding).
        if (ft.sou && ft.size() % ft.align())
          return unsupported(tok_, "an array of " + ft.name + " (" +
                                       std::to_string(ft.size()) +
                                       " bytes, aligned to " +
                                       std::to_string(ft.align()) +
                                       ") is not supported here");
        if (is(T_LBRACK))
          return unsupported(tok_, "arrays of more than one dimension are "
                                   "not supported");
      }
      if (ft.is_void && !ft.pointer)
        return err(at, DTag::D_DECL_VOIDOBJ, "cannot have void member: " + f.name);
      if (ft.sou && !ft.sou->complete)
        return err(at, DTag::D_DECL_INCOMPLETE,
                   "incomplete struct/union/enum " + ft.sou->name + ": " + f.name);
      if (ft.string)
        return unsupported(tok_, "string members are not supported here");
      if (!f.name.empty() && s.field(f.name))
        return err(at, DTag::D_UNKNOWN,
                   "failed to define member '" + f.name +
                       "': Duplicate member or variable name");
      // A bitfield's type: the fewest power-of-two bytes holding its bits.
      u64 msize = ft.size() * (f.dim ? f.dim : 1);
      if (f.bits)
        for (msize = 1; msize * 8 < f.bits; msize *= 2) {
        }
      const u32 malign = f.bits ? (u32)msize : ft.align();
      f.type = ft;
      if (is_union) {
        f.off = 0;
        s.size = std::max(s.size, msize);
      } else {
        u64 off = (end + 7) / 8;
        off = (off + malign - 1) / malign * malign;
        f.off = off * 8;
        end = f.off + f.width();
        s.size = std::max(s.size, off + msize);
      }
      s.align = std::max(s.align, malign);
      if (s.size > (1u << 20))
        return unsupported(tok_, name + " is larger than 1 MiB");
      s.fields.push_back(std::move(f));
      if (s.fields.size() > kMaxMembers)
        return unsupported(tok_, strf("%s has more than %u members", name.c_str(),
                                      kMaxMembers));
      if (!is(T_COMMA))
        break;
      MK_TRY(advance());
    }
    MK_TRY(expect(T_SEMI));
  }
  MK_TRY(advance()); // '}'
  s.complete = true;
  *sou = std::move(s);
  CType t;
  t.sou = sou, t.name = name, t.bytes = 0;
  return t;
}

std::string Parser::peek_word(size_t at, size_t *end) const {
  while (at < s_.size() && isspace((unsigned char)s_[at]))
    at++;
  size_t i = at;
  while (i < s_.size() && (isalnum((unsigned char)s_[i]) || s_[i] == '_'))
    i++;
  if (end)
    *end = i;
  return s_.substr(at, i - at);
}

Result<void> Parser::translator(ProgramAst &prog) {
  Translator x;
  x.line = tok_.line;
  x.origin = origin_;
  MK_TRY(advance());
  if (!is(T_IDENT) || !is_type(tok_.sval))
    return syntax(tok_);
  auto out = ctype(true);
  if (!out)
    return out.take_error();
  // What is wrong with the declaration is reported at its end, where
  // DTrace finds it.
  std::optional<std::pair<DTag, std::string>> bad;
  if (!out->sou || out->pointer)
    bad = {DTag::D_XLATE_SOU, "translator output type must be a struct or union"};
  else if (!out->sou->complete)
    bad = {DTag::D_XLATE_SOU, "incomplete struct/union/enum " + out->sou->name};
  MK_TRY(expect(T_LT));
  if (!is(T_IDENT) || !is_type(tok_.sval))
    return syntax(tok_);
  auto in = ctype(true);
  if (!in)
    return in.take_error();
  if (!is(T_IDENT))
    return syntax(tok_);
  x.out = *out, x.in = *in, x.param = tok_.sval;
  MK_TRY(advance());
  MK_TRY(expect(T_GT));
  if (!is(T_LBRACE))
    return syntax(tok_);
  const std::string pair = in->name + " -> " + out->name;
  if (!xlate_pairs_.insert(pair).second && !bad)
    bad = {DTag::D_XLATE_REDECL, "translator from " + in->name + " to " +
                                     out->name + " has already been declared"};
  MK_TRY(advance());
  // The members' expressions read the input as a variable named by the
  // parameter: not a global the program must write.
  const size_t reads = global_reads_.size();
  while (!is(T_RBRACE)) {
    if (!is(T_IDENT))
      return syntax(tok_);
    Translator::Member m;
    m.name = tok_.sval, m.line = tok_.line;
    MK_TRY(advance());
    if (!is(T_ASSIGN))
      return syntax(tok_);
    MK_TRY(advance());
    auto e = expr();
    if (!e)
      return e.take_error();
    m.value = std::move(*e);
    if (!bad && !out->sou->field(m.name))
      bad = {DTag::D_XLATE_MEMB, "translator member " + m.name +
                                     " is not a member of " + out->sou->name};
    x.members.push_back(std::move(m));
    MK_TRY(expect(T_SEMI));
  }
  global_reads_.erase(
      std::remove_if(global_reads_.begin() + (long)reads, global_reads_.end(),
                     [&](const auto &r) { return r.first.sval == x.param; }),
      global_reads_.end());
  // The '}' (and the ';' after it) end it; what follows is lexed raw.
  x.end_line = tok_.line;
  if (bad)
    return err(x.end_line, bad->first, bad->second);
  MK_TRY(advance()); // the ';' after the '}' (what follows is lexed raw)
  if (!is(T_SEMI))
    return syntax(tok_);
  prog.translators.push_back(std::move(x));
  return {};
}

Result<void> Parser::decl(ProgramAst &prog) {
  MK_TRY(advance());
  const std::string w = tok_.sval;
  if (w == "provider")
    return unsupported(tok_, w + " declarations are not supported: D here "
                             "has variables of C's integer types, structs, "
                             "unions and strings");
  if (w == "translator")
    return translator(prog);
  if (w == "typedef") {
    MK_TRY(advance());
    if (!is(T_IDENT))
      return syntax(tok_);
    if (!is_type(tok_.sval)) { // typedef unknown_t name;
      MK_TRY(advance());
      return syntax(tok_);
    }
    auto t = ctype(true);
    if (!t)
      return t.take_error();
    if (!is(T_IDENT))
      return syntax(tok_);
    const Token name = tok_;
    if (library_name(name.sval))
      typedefs_.erase(name.sval);
    if (type_start(name.sval) || typedefs_.count(name.sval))
      return err(name.line, DTag::D_DECL_IDRED,
                 "typedef redeclared: " + name.sval);
    MK_TRY(advance());
    if (!is(T_SEMI))
      return syntax(tok_);
    t->name = name.sval;
    typedefs_[name.sval] = *t;
    return {};
  }
  const bool is_extern = is(T_IDENT) && tok_.sval == "extern";
  if (is(T_IDENT) && (tok_.sval == "register" || tok_.sval == "auto"))
    return err(tok_.line, DTag::D_DECL_BADCLASS,
               "specified storage class not appropriate in D");
  if (is(T_IDENT) && (tok_.sval == "extern" || tok_.sval == "static"))
    MK_TRY(advance());
  const bool is_inline = is(T_IDENT) && tok_.sval == "inline";
  if (is_inline)
    MK_TRY(advance());
  VarScope scope = VarScope::Global;
  if (is(T_IDENT) && (tok_.sval == "self" || tok_.sval == "this")) {
    if (is_inline)
      return syntax(tok_);
    scope = tok_.sval == "self" ? VarScope::Thread : VarScope::Clause;
    MK_TRY(advance());
  }
  Result<CType> t = int_type();
  // `self x;` with no type declares an int, as in DTrace.
  const bool bare = scope != VarScope::Global && !is_inline && is(T_IDENT) &&
                    !is_type(tok_.sval) && !inlines_.count(tok_.sval);
  if (!bare && (!is(T_IDENT) || !is_type(tok_.sval)))
    return syntax(tok_);
  if (!bare)
    t = base_type();
  if (!t)
    return t.take_error();
  if (is(T_SEMI) && (t->name.rfind("enum ", 0) == 0 || t->sou))
    return {}; // enum colors { ... }; declares the type alone
  if (is(T_SEMI))
    return err(tok_.line, DTag::D_DECL_USELESS, "useless declaration");
  // struct a { ... } struct b { ... }: two types, no ';' between.
  if (is(T_IDENT) && is_type(tok_.sval))
    return err(tok_.line, DTag::D_DECL_COMBO, "invalid type combination");
  const CType base = *t;
  for (;;) {
    *t = base;
    int stars = 0;
    while (is(T_STAR)) {
      *t = pointer_to(*t);
      MK_TRY(advance());
      if (++stars > kMaxPointers)
        return unsupported(tok_, "more than 32 levels of pointer");
    }
    // extern int *(*fp)(void): a pointer to a function, defined
    // elsewhere; as a prototype, declared and dropped.
    const bool fnptr = is(T_LPAREN) && is_extern;
    if (fnptr) {
      MK_TRY(advance());
      if (!is(T_STAR))
        return syntax(tok_);
      while (is(T_STAR))
        MK_TRY(advance());
    }
    if (!is(T_IDENT))
      return syntax(tok_);
    Token name = tok_;
    if (name.sval.find('`') != std::string::npos)
      return err(name.line, DTag::D_DECL_SCOPE,
                 "D scoping operator may not be used in a declaration name (" +
                     name.sval + ")");
    MK_TRY(advance());
    if (fnptr) {
      MK_TRY(expect(T_RPAREN));
      if (!is(T_LPAREN))
        return syntax(tok_);
    }
    if (is(T_LPAREN) && scope == VarScope::Global && !is_inline) {
      MK_TRY(prototype());
      auto more = declarator_end();
      if (!more)
        return more.take_error();
      if (*more)
        continue;
      return {};
    }
    if (t->sou && !t->sou->complete)
      return err(name.line, DTag::D_DECL_INCOMPLETE,
                 "incomplete struct/union/enum " + t->sou->name + ": " +
                     name.sval);
    if (t->is_void && !t->pointer)
      return err(name.line, DTag::D_DECL_VOIDOBJ,
                 "cannot declare void object: " + name.sval);
    if (is(T_LBRACK) && scope == VarScope::Clause)
      return err(name.line, DTag::D_DECL_LOCASSC,
                 "associative arrays may not be declared as local variables: " +
                     name.sval);
    // int a[5]: a global array of fixed size; string s[int]: an
    // associative array's value type (its keys' types are not kept).
    i64 dim = VarDecl::kNotArray;
    bool assoc = false;
    for (int n = 0; is(T_LBRACK); n++) {
      if (scope != VarScope::Global || is_inline)
        return unsupported(tok_, "arrays of fixed size are global only here");
      MK_TRY(advance());
      auto dots = ellipsis();
      if (!dots)
        return dots.take_error();
      if (*dots)
        return err(name.line, DTag::D_DECL_PROTO_VARARGS,
                   "array prototype may not use a variable-length argument "
                   "list");
      if (is(T_IDENT) && is_type(tok_.sval)) {
        assoc = true;
        for (int i = 1;; i++) { // key types: [int], [string, int]
          const int line = tok_.line;
          auto k = ctype();
          if (!k)
            return k.take_error();
          if (k->is_void && !k->pointer) // a key needs a value
            return err(line, DTag::D_DECL_PROTO_TYPE,
                       "array prototype may not use parameter of type void: "
                       "(anonymous), parameter #" + std::to_string(i));
          if (!is(T_COMMA))
            break;
          MK_TRY(advance());
        }
        MK_TRY(expect(T_RBRACK));
        continue;
      }
      i64 d = 0;
      if (is(T_RBRACK) && !is_extern) // extern int a[]: defined elsewhere
        return err(name.line, DTag::D_DECL_ARRNULL,
                   "array declaration requires array dimension or tuple "
                   "signature: " + name.sval);
      if (!is(T_RBRACK)) {
        if (!is(T_INT) || tok_.ival <= 0)
          return err(name.line, DTag::D_DECL_ARRSUB,
                     "positive integral constant expression or tuple "
                     "signature expected as array declaration subscript");
        if (tok_.ival > INT32_MAX)
          return err(name.line, DTag::D_DECL_ARRBIG, "array dimension too big");
        d = tok_.ival;
        MK_TRY(advance());
      }
      MK_TRY(expect(T_RBRACK));
      dim = n == 0 ? d : VarDecl::kMultiDim;
    }
    const std::string key =
        std::to_string((int)scope) + ":" + name.sval;
    if (is_inline) {
      if (!is(T_ASSIGN))
        return syntax(tok_);
      MK_TRY(advance());
      auto e = expr();
      if (!e)
        return e.take_error();
      if (library_name(name.sval))
        inlines_.erase(name.sval);
      // Over another inline or one of D's functions: DTrace's words,
      // what the name is and was.
      const bool was_inline = inlines_.count(name.sval) > 0;
      if (was_inline || (name.sval != "[]" && find_builtin(name.sval)))
        return err(name.line, DTag::D_DECL_IDRED,
                   "identifier redefined: " + name.sval +
                       "\n\t current: inline definition\n\tprevious: " +
                       (was_inline ? "scalar inline" : "function "));
      if (declared_.count(key))
        return err(name.line, DTag::D_DECL_IDRED,
                   "identifier redeclared: " + name.sval);
      // A string literal defines a string (or a char *), as DTrace checks
      // at the definition, used or not.
      if ((*e)->kind == Expr::Str && !t->string && !t->pointer)
        return err(tok_.line, DTag::D_OP_INCOMPAT,
                   "inline " + name.sval +
                       " definition uses incompatible types: \"" + t->name +
                       "\" = \"string\"");
      inlines_[name.sval] = {*t, std::move(*e)};
    } else {
      VarDecl d;
      d.scope = scope, d.name = name.sval, d.type = *t, d.line = name.line;
      d.dim = dim, d.assoc = assoc;
      auto old = declared_.find(key);
      if (old != declared_.end()) {
        const CType &o = old->second.type;
        if (!o.same(*t))
          return err(name.line, DTag::D_DECL_IDRED,
                     "identifier redeclared: " + name.sval);
      } else {
        declared_[key] = d;
        prog.decls.push_back(d);
      }
      if (scope == VarScope::Global)
        global_written(name.sval); // declared: 0 until set
    }
    auto more = declarator_end();
    if (!more)
      return more.take_error();
    if (*more)
      continue;
    return {};
  }
}

Result<bool> Parser::declarator_end() {
  if (is(T_COMMA)) {
    MK_TRY(advance());
    return true;
  }
  if (!is(T_SEMI))
    return syntax(tok_);
  // The ';' ends it; what follows is lexed raw, as a clause's start.
  return false;
}

Result<bool> Parser::ellipsis() {
  if (!is(T_DOT))
    return false;
  for (int i = 0; i < 3; i++) {
    if (!is(T_DOT))
      return syntax(tok_);
    MK_TRY(advance());
  }
  return true;
}

Result<void> Parser::prototype() {
  MK_TRY(advance()); // '('
  if (is(T_RPAREN)) // int f(): no parameters said
    return advance();
  for (int n = 1;; n++) {
    auto dots = ellipsis();
    if (!dots)
      return dots.take_error();
    if (*dots) { // int f(int, ...)
      if (!is(T_RPAREN))
        return syntax(tok_);
      return advance();
    }
    if (is(T_IDENT) && (tok_.sval == "static" || tok_.sval == "extern" ||
                        tok_.sval == "register" || tok_.sval == "auto" ||
                        tok_.sval == "typedef"))
      return err(tok_.line, DTag::D_DECL_PARMCLASS,
                 "inappropriate storage class for function or associative "
                 "array parameter");
    if (!is(T_IDENT) || !is_type(tok_.sval))
      return syntax(tok_);
    auto t = ctype(true);
    if (!t)
      return t.take_error();
    const bool is_void = t->is_void && !t->pointer;
    if (is_void && n > 1)
      return err(tok_.line, DTag::D_DECL_PROTO_VOID,
                 "void must be sole parameter");
    if (is(T_IDENT)) {
      const Token pname = tok_;
      if (is_void)
        return err(pname.line, DTag::D_DECL_PROTO_NAME,
                   "void parameter may not have a name: " + pname.sval);
      MK_TRY(advance());
      if (is(T_LBRACK)) { // int a[int]: a dynamic variable
        MK_TRY(advance());
        if (is(T_IDENT) && is_type(tok_.sval))
          return err(pname.line, DTag::D_DECL_PROTO_TYPE,
                     "function prototype may not use parameter of type "
                     "dynamic variable: " + pname.sval + ", parameter #" +
                         std::to_string(n));
        while (!is(T_RBRACK) && !is(T_EOF))
          MK_TRY(advance());
        MK_TRY(expect(T_RBRACK));
      }
    }
    if (is(T_RPAREN))
      return advance();
    if (is_void)
      return err(tok_.line, DTag::D_DECL_PROTO_VOID,
                 "void must be sole parameter");
    MK_TRY(expect(T_COMMA));
  }
}

// An expression statement; `a = 1, b = 2;` (C's comma operator, its value
// unused) is one statement per operand, in order.
Result<void> Parser::expr_stmt(ClauseAst &c, Stmt &s) {
  const int line = s.line;
  for (;;) {
    auto e = expr();
    if (!e)
      return e.take_error();
    if ((*e)->kind == Expr::Assign) {
      s.kind = Stmt::Assign;
      s.args.push_back(std::move((*e)->kids[0]));
      s.args.push_back(std::move((*e)->kids[1]));
    } else {
      s.kind = Stmt::Eval;
      s.args.push_back(std::move(*e));
    }
    c.stmts.push_back(std::move(s));
    if (!is(T_COMMA))
      return {};
    MK_TRY(advance());
    s = Stmt{};
    s.line = line;
  }
}

Result<ExprPtr> Parser::make_assign(ExprPtr v, const Token &op, ExprPtr value,
                                    bool post) {
  // A variable, a member of one, or memory through a pointer (*p, p->x,
  // p[i]: the compiler checks that p is one).
  const Expr *root = v.get();
  bool memory = false;
  while (root->kind == Expr::Member ||
         (root->kind == Expr::Unary && root->op == X_DEREF) ||
         (root->kind == Expr::Call && root->name == "[]")) {
    memory |= root->kind != Expr::Member || root->ival;
    root = root->kids[0].get();
  }
  if (root->kind != Expr::Variable && !memory)
    return err(op.line, DTag::D_OP_WRITE,
               "operator " + op.text + " can only be applied to a writable "
               "variable");
  static const struct {
    Tok t;
    ExprOp op;
  } compound[] = {{T_ADDEQ, X_ADD}, {T_SUBEQ, X_SUB}, {T_MULEQ, X_MUL},
                  {T_DIVEQ, X_DIV}, {T_MODEQ, X_MOD}, {T_ANDEQ, X_BAND},
                  {T_OREQ, X_BOR},  {T_XOREQ, X_BXOR}, {T_SHLEQ, X_SHL},
                  {T_SHREQ, X_SHR}, {T_INC, X_ADD},   {T_DEC, X_SUB}};
  auto e = node(Expr::Assign, op);
  for (const auto &c : compound) {
    if (c.t != op.kind)
      continue;
    // v op= x reads v: a global must have been declared or assigned in
    // the text before it, as DTrace requires.
    if (op.kind != T_INC && op.kind != T_DEC && root == v.get() &&
        root->kind == Expr::Variable && root->scope == VarScope::Global &&
        root->kids.empty() && !global_writes_.count(root->name))
      return err(op.line, DTag::D_VAR_UNDEF,
                 root->name + " has not yet been declared or assigned");
    // v op= x is v = v op x, v's keys computed again.
    auto b = node(Expr::Binary, op);
    b->op = c.op;
    b->kids.push_back(copy_expr(*v));
    b->kids.push_back(std::move(value));
    MK_TRY(deepen(*b, op));
    value = std::move(b);
    e->op = c.op;
  }
  if (root->kind == Expr::Variable && root->scope == VarScope::Global &&
      !memory) {
    // The assigned variable is written, not read (x op= y of a scalar
    // reads it, and was checked above; an array's element starts at 0).
    if (root->read_seq && (op.kind == T_ASSIGN || op.kind == T_INC ||
                           op.kind == T_DEC || !root->kids.empty()))
      global_reads_.erase(
          std::remove_if(global_reads_.begin(), global_reads_.end(),
                         [&](const auto &r) { return r.second == root->read_seq; }),
          global_reads_.end());
    global_written(root->name);
  }
  e->ival = post;
  e->kids.push_back(std::move(v));
  e->kids.push_back(std::move(value));
  MK_TRY(deepen(*e, op));
  return e;
}


Result<ExprPtr> Parser::expr() {
  Nest n(nest_);
  MK_TRY(check_nest());
  auto l = ternary();
  if (!l || !assign_op(tok_.kind))
    return l;
  // Assignments group to the right: a = b = 0.
  Token op = tok_;
  MK_TRY(advance());
  auto r = expr();
  if (!r)
    return r;
  return make_assign(std::move(*l), op, std::move(*r), false);
}

// The value of a constant integer expression, if it is one: integer
// constants, inlines (enumerators among them), casts, unary and binary
// operators.  Division by zero is no constant.
static std::optional<i64> fold(const Expr &e) {
  auto kid = [&](size_t i) { return i < e.kids.size() ? fold(*e.kids[i]) : std::nullopt; };
  switch (e.kind) {
  case Expr::Int:
    return e.ival;
  case Expr::Cast: {
    auto v = kid(0);
    if (!v || e.ctype.string)
      return std::nullopt;
    if (e.ctype.bytes >= 8)
      return v;
    // To the type's width, then back: (uint8_t)-1 is 255, (char)300 44.
    const unsigned bits = 8 * e.ctype.bytes;
    const u64 low = (u64)*v & ((1ull << bits) - 1);
    if (e.ctype.is_signed && (low >> (bits - 1)))
      return (i64)(low | ~((1ull << bits) - 1));
    return (i64)low;
  }
  case Expr::Unary: {
    auto v = kid(0);
    if (!v)
      return v;
    const u64 u = (u64)*v;
    if (e.op == X_ADDR || e.op == X_DEREF)
      return std::nullopt;
    return e.op == X_NEG ? (i64)(0 - u) : e.op == X_BNOT ? (i64)~u : (i64)(*v == 0);
  }
  case Expr::Binary: {
    auto l = kid(0), r = kid(1);
    if (!l || !r)
      return std::nullopt;
    const u64 a = (u64)*l, b = (u64)*r;
    switch (e.op) {
    case X_ADD: return (i64)(a + b);
    case X_SUB: return (i64)(a - b);
    case X_MUL: return (i64)(a * b);
    case X_DIV:
    case X_MOD:
      if (*r == 0 || (*l == INT64_MIN && *r == -1))
        return std::nullopt;
      return e.op == X_DIV ? *l / *r : *l % *r;
    case X_SHL: return (i64)(a << (b & 63));
    case X_SHR: return *l >> (b & 63);
    case X_BAND: return (i64)(a & b);
    case X_BOR: return (i64)(a | b);
    case X_BXOR: return (i64)(a ^ b);
    case X_LT: return *l < *r;
    case X_LE: return *l <= *r;
    case X_GT: return *l > *r;
    case X_GE: return *l >= *r;
    case X_EQ: return *l == *r;
    case X_NE: return *l != *r;
    case X_LAND: return *l && *r;
    case X_LOR: return *l || *r;
    case X_LXOR: return !*l != !*r;
    default: return std::nullopt;
    }
  }
  default:
    return std::nullopt;
  }
}

Result<std::shared_ptr<const Parser::Enumerators>>
Parser::enum_body(const std::string &tag) {
  Nest nest(nest_); // an enumerator's value may hold another enum
  MK_TRY(check_nest());
  if (!tag.empty() && enums_.count(tag))
    return err(tok_.line, DTag::D_DECL_TYPERED, "type redeclared: enum " + tag);
  MK_TRY(advance()); // past '{'
  if (is(T_RBRACE)) // C's grammar has no empty enumerator list
    return syntax(tok_);
  auto list = std::make_shared<Enumerators>();
  i64 next = 0;
  while (!is(T_RBRACE)) {
    if (!is(T_IDENT))
      return syntax(tok_);
    const Token name = tok_;
    MK_TRY(advance());
    i64 v = next;
    if (is(T_ASSIGN)) {
      MK_TRY(advance());
      auto e = ternary();
      if (!e)
        return e.take_error();
      auto c = fold(**e);
      if (!c)
        return err(tok_.line, DTag::D_DECL_ENCONST,
                   "enumerator '" + name.sval +
                       "' must be assigned to an integral constant expression");
      v = *c;
    }
    if (v > INT32_MAX || v < INT32_MIN)
      return err(tok_.line, DTag::D_DECL_ENOFLOW,
                 "enumerator '" + name.sval +
                     "' value overflows INT_MAX (2147483647)");
    if (inlines_.count(name.sval) || declared_.count("0:" + name.sval))
      return err(name.line, DTag::D_DECL_IDRED,
                 "identifier redeclared: " + name.sval);
    auto c = node(Expr::Int, name);
    c->ival = v;
    inlines_[name.sval] = {int_type(), std::move(c)};
    list->emplace_back(name.sval, v);
    next = v + 1;
    if (is(T_COMMA))
      MK_TRY(advance());
    else if (!is(T_RBRACE))
      return syntax(tok_);
  }
  if (!tag.empty())
    enums_[tag] = list;
  MK_TRY(advance()); // past '}'
  return std::shared_ptr<const Enumerators>(list);
}

Result<ExprPtr> Parser::ternary() {
  auto c = binary(0);
  if (!c || !is(T_QUESTION))
    return c;
  Token q = tok_;
  MK_TRY(advance());
  auto a = expr();
  if (!a)
    return a.take_error();
  MK_TRY(expect(T_COLON));
  Nest n(nest_); // a ? b : c ? d : ... recurses here, not through expr()
  MK_TRY(check_nest());
  auto b = ternary();
  if (!b)
    return b.take_error();
  auto e = node(Expr::Ternary, q);
  e->kids.push_back(std::move(*c));
  e->kids.push_back(std::move(*a));
  e->kids.push_back(std::move(*b));
  MK_TRY(deepen(*e, q));
  return e;
}

// Binary operators by precedence, lowest first.
static bool binop_at(int level, Tok t) {
  switch (level) {
  case 0: return t == T_OROR;
  case 1: return t == T_XORXOR;
  case 2: return t == T_ANDAND;
  case 3: return t == T_PIPE;
  case 4: return t == T_CARET;
  case 5: return t == T_AMP;
  case 6: return t == T_EQ || t == T_NE;
  case 7: return t == T_LT || t == T_LE || t == T_GT || t == T_GE;
  case 8: return t == T_SHL || t == T_SHR;
  case 9: return t == T_PLUS || t == T_MINUS;
  case 10: return t == T_STAR || t == T_SLASH || t == T_PERCENT;
  }
  return false;
}

static ExprOp binop(Tok t) {
  switch (t) {
  case T_PLUS: return X_ADD;
  case T_MINUS: return X_SUB;
  case T_STAR: return X_MUL;
  case T_SLASH: return X_DIV;
  case T_PERCENT: return X_MOD;
  case T_SHL: return X_SHL;
  case T_SHR: return X_SHR;
  case T_LT: return X_LT;
  case T_LE: return X_LE;
  case T_GT: return X_GT;
  case T_GE: return X_GE;
  case T_EQ: return X_EQ;
  case T_NE: return X_NE;
  case T_AMP: return X_BAND;
  case T_PIPE: return X_BOR;
  case T_CARET: return X_BXOR;
  case T_ANDAND: return X_LAND;
  case T_OROR: return X_LOR;
  default: return X_LXOR;
  }
}

// The binary operators at `min_level` and above, by precedence climbing:
// one call per operand rather than one per precedence level, so that a
// nested expression costs the stack a few frames, not a dozen.
Result<ExprPtr> Parser::binary(int min_level) {
  auto l = unary();
  if (!l)
    return l;
  for (;;) {
    int level = 10;
    while (level >= min_level && !binop_at(level, tok_.kind))
      level--;
    if (level < min_level || (tok_.kind == T_SLASH && tok_.pred_end))
      return l;
    Token op = tok_;
    MK_TRY(advance());
    // Left-associative: the right operand holds only tighter operators.
    auto r = binary(level + 1);
    if (!r)
      return r;
    auto e = node(Expr::Binary, op);
    // DTrace's node is made once the parser has seen the token after the
    // right operand, and takes the lexer's line then.
    e->line = tok_.line;
    e->op = binop(op.kind);
    e->kids.push_back(std::move(*l));
    e->kids.push_back(std::move(*r));
    MK_TRY(deepen(*e, op));
    l = std::move(e);
  }
}

Result<ExprPtr> Parser::unary() {
  if (is(T_INC) || is(T_DEC)) { // ++x, --x
    Nest n(nest_);
    MK_TRY(check_nest());
    Token op = tok_;
    MK_TRY(advance());
    auto k = unary();
    if (!k)
      return k;
    auto one = node(Expr::Int, op);
    one->ival = 1;
    return make_assign(std::move(*k), op, std::move(one), false);
  }
  if (is(T_LPAREN)) { // a cast: (type) operand
    const Mark m = mark();
    Token lp = tok_;
    MK_TRY(advance());
    if (is(T_IDENT) && is_type(tok_.sval) && !inlines_.count(tok_.sval)) {
      Nest n(nest_);
      MK_TRY(check_nest());
      auto t = ctype(true);
      if (!t)
        return t.take_error();
      MK_TRY(expect(T_RPAREN));
      auto k = unary();
      if (!k)
        return k;
      auto e = node(Expr::Cast, lp);
      // DTrace's line for it: where its parser reduces the cast, at the
      // token after the operand.
      e->line = tok_.line;
      e->near = "(" + t->name + ")";
      e->ctype = *t;
      e->kids.push_back(std::move(*k));
      MK_TRY(deepen(*e, lp));
      return e;
    }
    reset(m);
  }
  if (is(T_BANG) || is(T_MINUS) || is(T_TILDE) || is(T_PLUS) || is(T_AMP) ||
      is(T_STAR)) {
    Nest n(nest_);
    MK_TRY(check_nest());
    Token op = tok_;
    MK_TRY(advance());
    if (op.kind == T_AMP && is(T_AGG)) // &@a: an aggregation has no address
      return err(tok_.line, DTag::D_ADDROF_VAR,
                 "cannot take address of dynamic variable");
    auto k = unary();
    if (!k)
      return k;
    if (op.kind == T_PLUS)
      return k;
    // &*(T *)address (a kernel variable's address): the pointer itself,
    // as C has it.
    if (op.kind == T_AMP && (*k)->kind == Expr::Unary && (*k)->op == X_DEREF &&
        (*k)->kids[0]->kind == Expr::Cast &&
        (*k)->kids[0]->kids[0]->kind == Expr::Int)
      return std::move((*k)->kids[0]);
    auto e = node(Expr::Unary, op);
    e->op = op.kind == T_BANG    ? X_LNOT
            : op.kind == T_MINUS ? X_NEG
            : op.kind == T_AMP   ? X_ADDR
            : op.kind == T_STAR  ? X_DEREF
                                 : X_BNOT;
    e->kids.push_back(std::move(*k));
    MK_TRY(deepen(*e, op));
    return e;
  }
  auto p = primary();
  while (p && (is(T_LBRACK) || is(T_DOT) || is(T_ARROW))) {
    if (is(T_DOT) || is(T_ARROW)) { // a member: s.x, a[k].p.x, p->x
      Token dot = tok_;
      MK_TRY(advance());
      if (!is(T_IDENT))
        return syntax(tok_);
      auto e = node(Expr::Member, dot);
      e->name = tok_.sval;
      e->ival = dot.kind == T_ARROW; // through a pointer (compile.cpp refuses)
      e->near = (*p)->near + dot.text + tok_.sval;
      MK_TRY(advance());
      e->kids.push_back(std::move(*p));
      MK_TRY(deepen(*e, dot));
      p = std::move(e);
      continue;
    }
    // a string's character: execname[0], a[k][i]
    Token lb = tok_;
    MK_TRY(advance());
    auto i = expr();
    if (!i)
      return i;
    MK_TRY(expect(T_RBRACK));
    auto e = node(Expr::Call, lb);
    e->name = "[]";
    e->near = (*p)->near + "[ ]";
    e->kids.push_back(std::move(*p));
    e->kids.push_back(std::move(*i));
    MK_TRY(deepen(*e, lb));
    p = std::move(e);
  }
  if (p && (*p)->kind == Expr::Member && (is(T_INC) || is(T_DEC))) { // s.x++
    Token op = tok_;
    MK_TRY(advance());
    auto one = node(Expr::Int, op);
    one->ival = 1;
    return make_assign(std::move(*p), op, std::move(one), true);
  }
  if (p && (is(T_INC) || is(T_DEC))) { // a variable's were taken there
    Token op = tok_;
    auto one = node(Expr::Int, op);
    one->ival = 1;
    return make_assign(std::move(*p), op, std::move(one), true);
  }
  return p;
}

Result<ExprPtr> Parser::primary() {
  Token t = tok_;
  switch (t.kind) {
  case T_INT: {
    auto e = node(Expr::Int, t);
    e->ival = t.ival;
    e->ctype.name = "constant";
    e->ctype.bytes = t.int_type == Type::Int32 || t.int_type == Type::UInt32 ? 4 : 8;
    e->ctype.is_signed = t.int_type == Type::Int32 || t.int_type == Type::Int64;
    MK_TRY(advance());
    return e;
  }
  case T_STR: {
    auto e = node(Expr::Str, t);
    e->sval = t.sval;
    MK_TRY(advance());
    return e;
  }
  case T_LPAREN: {
    MK_TRY(advance());
    auto e = expr();
    if (!e)
      return e;
    MK_TRY(expect(T_RPAREN));
    return e;
  }
  case T_AGG:
    return syntax(t);
  case T_IDENT:
    break;
  default:
    return syntax(t);
  }
  MK_TRY(advance());
  const std::string &n = t.sval;
  if (n == "sizeof") {
    // sizeof sizeof ..., sizeof(enum { A = sizeof(...) }): each a descent.
    Nest nest(nest_);
    MK_TRY(check_nest());
    auto e = node(Expr::SizeOf, t);
    if (is(T_LPAREN)) {
      const Mark m = mark();
      MK_TRY(advance());
      if (is(T_IDENT) && is_type(tok_.sval)) {
        auto ct = ctype(true);
        if (!ct)
          return ct.take_error();
        MK_TRY(expect(T_RPAREN));
        e->ctype = *ct;
        return e;
      }
      reset(m);
    }
    auto k = unary();
    if (!k)
      return k;
    e->kids.push_back(std::move(*k));
    MK_TRY(deepen(*e, t));
    return e;
  }
  if (n == "xlate" && is(T_LT)) { // xlate<struct out>(input)
    MK_TRY(advance());
    if (!is(T_IDENT) || !is_type(tok_.sval))
      return syntax(tok_);
    auto ct = ctype(true);
    if (!ct)
      return ct.take_error();
    MK_TRY(expect(T_GT));
    MK_TRY(expect(T_LPAREN));
    auto in = expr();
    if (!in)
      return in;
    MK_TRY(expect(T_RPAREN));
    auto e = node(Expr::Xlate, t);
    e->ctype = *ct;
    e->near = "xlate<" + ct->name + ">( )";
    e->kids.push_back(std::move(*in));
    MK_TRY(deepen(*e, t));
    return e;
  }
  if (n == "offsetof" && is(T_LPAREN)) { // offsetof(struct s, member)
    MK_TRY(advance());
    if (!is(T_IDENT) || !is_type(tok_.sval))
      return syntax(tok_);
    auto ct = ctype(true);
    if (!ct)
      return ct.take_error();
    // A struct only named, never defined, is no struct type to DTrace.
    if (!ct->sou || !ct->sou->complete)
      return err(t.line, DTag::D_OFFSETOF_TYPE,
                 "offsetof operand must be a struct or union type");
    MK_TRY(expect(T_COMMA));
    if (!is(T_IDENT))
      return syntax(tok_);
    const Token m = tok_;
    MK_TRY(advance());
    MK_TRY(expect(T_RPAREN));
    const Field *f = ct->sou->field(m.sval);
    if (!f)
      return err(m.line, DTag::D_UNKNOWN,
                 "failed to determine offset of " + m.sval +
                     ": Member name not found");
    if (f->bits)
      return err(m.line, DTag::D_OFFSETOF_BITFIELD,
                 "cannot take offset of a bit-field: " + m.sval);
    auto e = node(Expr::Int, t);
    e->ival = (i64)(f->off / 8);
    e->ctype.name = "constant", e->ctype.bytes = 8, e->ctype.is_signed = false;
    return e;
  }
  if (auto in = inlines_.find(n); in != inlines_.end()) {
    // An inline stands for its expression, of its declared type (a
    // translation is of its type already, and stays one: curpsinfo->x).
    if (in->second.second->kind == Expr::Xlate &&
        in->second.second->ctype.same(in->second.first))
      return copy_expr(*in->second.second);
    auto e = node(Expr::Cast, t);
    e->ctype = in->second.first;
    e->kids.push_back(copy_expr(*in->second.second));
    e->depth = e->kids[0]->depth + 1;
    return e;
  }
  if (is(T_LPAREN)) {
    const BuiltinFn *f = find_builtin(n);
    if (!f) {
      if (n == "trace" || n == "printf" || n == "printa" || n == "exit" ||
          n == "print") {
        // An action has no value (void); its arguments are checked first.
        auto args = call_args();
        if (!args)
          return args.take_error();
        const size_t hi = n == "printa" || n == "printf" ? SIZE_MAX : 1;
        if (args->empty() || args->size() > hi)
          return err(t.line, DTag::D_PROTO_LEN,
                     proto_len(n + "( )", args->size(), 1, hi));
        auto v = node(Expr::Void, t);
        v->name = n;
        return v;
      }
      if (is_foreign(n))
        return foreign_call(t);
      if (n == "inet_ntop")
        return inet_call(t);
      return err(t.line, DTag::D_FUNC_UNDEF, "undefined function name: " + n);
    }
    if (f->how == BuiltinFn::Stack)
      return stack_call(t);
    if (n == "inet_ntoa" || n == "inet_ntoa6")
      return inet_call(t);
    auto e = node(Expr::Call, t);
    e->name = n;
    auto args = call_args();
    if (!args)
      return args.take_error();
    if (args->size() < f->required || args->size() > f->nargs)
      return err(t.line, DTag::D_PROTO_LEN,
                 proto_len(n + "( )", args->size(), f->required, f->nargs));
    e->kids = std::move(*args);
    MK_TRY(deepen(*e, t));
    return e;
  }
  if (n.size() == 4 && n.compare(0, 3, "arg") == 0 && isdigit((unsigned char)n[3])) {
    auto e = node(Expr::Arg, t);
    e->ival = n[3] - '0';
    return e;
  }
  if (n == "NULL") { // D's null pointer: strtok(NULL, ",")
    auto e = node(Expr::Int, t);
    e->ival = 0;
    return e;
  }
  // The fault kinds an ERROR clause finds in arg4, by DTrace's names and
  // numbers (the consumer reports BADADDR, ILLOP and DIVZERO).
  static const char *const faults[] = {
      "DTRACEFLT_UNKNOWN",   "DTRACEFLT_BADADDR", "DTRACEFLT_BADALIGN",
      "DTRACEFLT_ILLOP",     "DTRACEFLT_DIVZERO", "DTRACEFLT_NOSCRATCH",
      "DTRACEFLT_KPRIV",     "DTRACEFLT_UPRIV",   "DTRACEFLT_TUPOFLOW",
      "DTRACEFLT_BADSTACK",  "DTRACEFLT_BADSIZE", "DTRACEFLT_BADINDEX"};
  for (size_t i = 0; i < std::size(faults); i++)
    if (n == faults[i]) {
      auto e = node(Expr::Int, t);
      e->ival = (i64)i;
      return e;
    }
  if (n == "args") {
    if (!is(T_LBRACK))
      return syntax(tok_);
    MK_TRY(advance());
    if (!is(T_INT) || tok_.ival < 0 || tok_.ival > 5)
      return err(tok_.line, DTag::D_ARGS_IDX,
                 "args[ ] takes an integer constant 0..5");
    auto e = node(Expr::Args, t);
    e->ival = tok_.ival;
    e->near = "args[" + tok_.text + "]";
    MK_TRY(advance());
    MK_TRY(expect(T_RBRACK));
    return e;
  }
  if (n == "curthread" || n == "curcpu") {
    // (struct task_struct *) the firing thread's task, (cpuinfo_t *) its
    // CPU's description (task.cpp): the library's types (which its own
    // inlines name while it is read).
    const bool thread = n == "curthread";
    std::optional<CType> ct = thread ? task_ : cpuinfo_;
    if (!ct && library_text_) {
      if (auto ts = sous_.find("struct task_struct"); thread && ts != sous_.end()) {
        ct = CType();
        ct->sou = ts->second, ct->name = ts->second->name, ct->bytes = 0;
      }
      if (auto td = typedefs_.find("cpuinfo_t"); !thread && td != typedefs_.end())
        ct = td->second;
    }
    if (ct) {
      auto v = node(Expr::Var, t);
      v->builtin = thread ? Builtin::CurThread : Builtin::CurCpu;
      auto e = node(Expr::Cast, t);
      e->ctype = pointer_to(*ct);
      e->near = n;
      e->kids.push_back(std::move(v));
      MK_TRY(deepen(*e, t));
      return e;
    }
  }
  for (const auto &v : kBuiltinVars)
    if (n == v.name) {
      auto e = node(Expr::Var, t);
      e->builtin = v.b;
      return e;
    }
  if (n.find('`') != std::string::npos) {
    auto kv = kernel_var(t);
    if (!kv || *kv)
      return kv;
  }
  auto v = variable(t);
  if (v && (*v)->scope == VarScope::Global && (*v)->name == t.sval) {
    (*v)->read_seq = global_seq_;
    global_reads_.emplace_back(t, global_seq_++);
  }
  if (v && (is(T_INC) || is(T_DEC))) { // x++, x--
    Token op = tok_;
    MK_TRY(advance());
    auto one = node(Expr::Int, op);
    one->ival = 1;
    return make_assign(std::move(*v), op, std::move(one), true);
  }
  return v;
}

Result<ExprPtr> Parser::kernel_var(const Token &t) {
  if (!kvars_)
    return ExprPtr();
  Result<KernelVar> kv = (*kvars_)(t.sval);
  if (!kv)
    return err(t.line, DTag::D_IDENT_UNDEF,
               "failed to resolve " + t.sval + ": " + kv.error().message);
  std::string type = kv->type;
  if (type.size() >= 2 && type.compare(type.size() - 2, 2, "[]") == 0)
    type.resize(type.size() - 2); // an array: its first element
  static const MacroArgs kNoMacros;
  Parser tp(type, "", kNoMacros, false);
  Result<CType> ct = tp.advance() ? tp.ctype(true) : Result<CType>(int_type());
  if (!ct || !tp.is(T_EOF)) // the kernel's own table
    return err(t.line, DTag::D_UNKNOWN,
               "failed to resolve type of " + t.sval + ": " + kv->type);
  auto addr = node(Expr::Int, t);
  addr->ival = (i64)kv->addr;
  auto ptr = node(Expr::Cast, t);
  ptr->ctype = pointer_to(*ct);
  ptr->near = t.sval;
  ptr->kids.push_back(std::move(addr));
  auto e = node(Expr::Unary, t);
  e->op = X_DEREF;
  e->near = t.sval;
  e->kids.push_back(std::move(ptr));
  MK_TRY(deepen(*e, t));
  return e;
}

Result<ExprPtr> Parser::variable(const Token &t) {
  const std::string &n = t.sval;
  if (n == "self" || n == "this") {
    if (!is(T_ARROW))
      return syntax(tok_);
    MK_TRY(advance());
    if (!is(T_IDENT))
      return syntax(tok_);
    auto e = node(Expr::Variable, t);
    e->scope = n == "self" ? VarScope::Thread : VarScope::Clause;
    e->name = tok_.sval;
    e->near = n + "->" + tok_.sval;
    MK_TRY(advance());
    if (is(T_LBRACK) && e->scope == VarScope::Thread) {
      // self->a[k] is a global array keyed by the thread first: a[tid, k].
      auto tid = node(Expr::Var, t);
      tid->builtin = Builtin::Tid;
      e->kids.push_back(std::move(tid));
      e->scope = VarScope::Global;
      e->name = e->near; // "self->a": apart from a global a
      MK_TRY(subscripts(*e, t));
      return e;
    }
    if (is(T_LBRACK)) // a string's character: this->s[i] (compile.cpp)
      MK_TRY(subscripts(*e, t));
    return e;
  }
  auto e = node(Expr::Variable, t);
  e->scope = VarScope::Global;
  e->name = n;
  if (is(T_LBRACK))
    MK_TRY(subscripts(*e, t));
  return e;
}

// An array's keys, "[k1, k2, ...]", added to `e`'s kids; at '['.
Result<void> Parser::subscripts(Expr &e, const Token &t) {
  MK_TRY(advance());
  for (;;) {
    auto k = expr();
    if (!k)
      return k.take_error();
    e.kids.push_back(std::move(*k));
    if (!is(T_COMMA))
      break;
    MK_TRY(advance());
  }
  MK_TRY(expect(T_RBRACK));
  return deepen(e, t);
}

Result<ProgramAst> Parser::run() {
  ProgramAst prog;
  prog.translators = std::move(lib_translators_);
  for (;;) {
    MK_TRY(skip_space());
    if (at_end())
      break;
    if (ch() == '#') {
      MK_TRY(pragma());
      continue;
    }
    size_t after = 0;
    const std::string w = peek_word(p_, &after);
    static const char *const starts[] = {"extern",     "static",   "inline",
                                         "typedef",    "translator", "provider",
                                         "register",   "auto"};
    size_t after2 = 0;
    const std::string w2 = peek_word(after, &after2);
    while (after2 < s_.size() && isspace((unsigned char)s_[after2]))
      after2++;
    bool is_decl = is_type(w) ||
                   std::find(std::begin(starts), std::end(starts), w) !=
                       std::end(starts) ||
                   ((w == "self" || w == "this") &&
                    (is_type(w2) ||
                     (!w2.empty() && after2 < s_.size() &&
                      strchr(";,", s_[after2]))));
    // A word that is also a probe description is one when a description's
    // punctuation follows it (a provider named "int" is not likely).
    if (is_decl && (after < s_.size() && strchr(":{/,", s_[after])))
      is_decl = false;
    // With pspec a word that runs on in a description's characters is
    // one (int*x), where DTrace otherwise reads a type and a declarator.
    if (is_decl && pspec_ && after < s_.size() && s_[after] != '\0' &&
        strchr("-$.?*\\[]!`", s_[after]))
      is_decl = false;
    if (is_decl) {
      MK_TRY(decl(prog));
      continue;
    }
    MK_TRY(clause(prog));
  }
  const size_t own = sous_.size() + typedefs_.size() + inlines_.size() -
                    library_.size();
  if (prog.clauses.empty() && prog.decls.empty() && own == 0 &&
      !origin_->file.empty() && !empty_ok_)
    return err(line_, DTag::D_EMPTY, "empty D program translation unit");
  prog.macros_used = macros_used_;
  for (const auto &[name, line] : pragma_attrs_) {
    bool used = inlines_.count(name) || global_writes_.count(name) ||
                find_builtin(name);
    for (const auto &v : kBuiltinVars)
      used |= name == v.name;
    for (const VarDecl &d : prog.decls)
      used |= d.name == name;
    if (!used)
      return err(line, DTag::D_PRAGMA_UNUSED, "unused #pragma attributes");
  }
  for (const auto &[t, seq] : global_reads_)
    if (auto w = first_write_.find(t.sval); w == first_write_.end() || w->second > seq)
      return err(t.line, DTag::D_IDENT_UNDEF,
                 "failed to resolve " + t.sval + ": Unknown variable name");
  prog.pragmas = pragmas_;
  prog.types = std::move(types_);
  return prog;
}

} // namespace

ExprPtr copy_expr(const Expr &e) {
  auto c = std::make_unique<Expr>();
  c->kind = e.kind;
  c->op = e.op;
  c->ival = e.ival;
  c->sval = e.sval;
  c->builtin = e.builtin;
  c->scope = e.scope;
  c->name = e.name;
  c->ctype = e.ctype;
  c->near = e.near;
  c->line = e.line;
  for (const ExprPtr &k : e.kids)
    c->kids.push_back(copy_expr(*k));
  return c;
}

Result<u64> parse_rate(const std::string &s) {
  static const struct {
    const char *name;
    u64 ns; // 0: per second
  } units[] = {{"ns", 1}, {"nsec", 1}, {"us", 1000}, {"usec", 1000},
               {"ms", 1000000}, {"msec", 1000000}, {"s", 1000000000},
               {"sec", 1000000000}, {"m", 60000000000ull},
               {"min", 60000000000ull}, {"h", 3600000000000ull},
               {"hour", 3600000000000ull}, {"d", 86400000000000ull},
               {"day", 86400000000000ull}, {"hz", 0}, {"", 0}};
  errno = 0;
  char *end = nullptr;
  const unsigned long long v = std::strtoull(s.c_str(), &end, 10);
  if (s.empty() || !isdigit((unsigned char)s[0]) || errno == ERANGE)
    return error("invalid rate '" + s + "'");
  for (const auto &u : units)
    if (strcasecmp(end, u.name) == 0) {
      if (!u.ns)
        return v ? 1000000000ull / v : 0;
      if (v > UINT64_MAX / u.ns)
        return error("invalid rate '" + s + "'");
      return v * u.ns;
    }
  return error("invalid rate '" + s + "' (a number, per second, or with ns, "
               "us, ms, s, m, h, d)");
}

Result<u64> parse_size(const std::string &s) {
  // Any size from a byte: a per-thread buffer is a page at least whatever
  // is asked (a smaller one holds no fewer records than DTrace's would),
  // and specsize counts the bytes a speculation may hold.
  const u64 lo = 1, hi = 1ull << 30;
  errno = 0;
  char *end = nullptr;
  unsigned long long v = std::strtoull(s.c_str(), &end, 10);
  const bool range = errno == ERANGE;
  u64 mul = 1;
  if (end && *end) {
    switch (tolower(*end)) {
    case 'k': mul = 1ull << 10; break;
    case 'm': mul = 1ull << 20; break;
    case 'g': mul = 1ull << 30; break;
    default: mul = 0;
    }
    if (end[1])
      mul = 0;
  }
  if (s.empty() || !isdigit((unsigned char)s[0]) || !mul)
    return error("invalid size '" + s + "' (bytes, or with k, m, g)");
  // Compared before multiplying: 2^63 and 2^54 g must not wrap into range.
  if (range || v > hi / mul)
    return error("size '" + s + "' is above the maximum of 1g");
  if (v * mul < lo)
    return error("size '" + s + "' is below the minimum of 1 byte");
  return v * mul;
}

Result<u32> parse_strsize(const std::string &s) {
  errno = 0;
  char *end = nullptr;
  unsigned long long v = std::strtoull(s.c_str(), &end, 10);
  if (s.empty() || !isdigit((unsigned char)s[0]) || (end && *end))
    return error("'" + s + "' is not a number of characters");
  // DTrace's least: one character and the NUL.
  if (errno == ERANGE || v < 2 || v > kDefaultStrSize)
    return error("'" + s + "' is not within 2..256");
  return (u32)v;
}

const char *tag_name(DTag t) {
  static const char *const names[] = {
#define MK_D_TAG_NAME(t) #t,
      MK_D_TAGS(MK_D_TAG_NAME)
#undef MK_D_TAG_NAME
  };
  return (size_t)t < std::size(names) ? names[(size_t)t] : "D_UNKNOWN";
}

Error d_error(const DOrigin &o, int line, DTag tag, const std::string &why) {
  std::string m = o.file.empty() ? "invalid probe specifier " + one_line(o.spec)
                                 : "failed to compile script " + o.file;
  m += ": ";
  if (o.errtags)
    m += "[" + std::string(tag_name(tag)) + "] ";
  if (!o.file.empty() && line > 0) // 0: an error of the whole script
    m += strf("line %d: ", line);
  // One line, whatever text `why` quotes, but for the indented lines
  // DTrace's prototype errors end with ("\n\tprototype: int").
  for (size_t i = 0; i < why.size(); i++) {
    const unsigned char c = why[i];
    const bool indent =
        (c == '\n' && i + 1 < why.size() && (why[i + 1] == '\t' || why[i + 1] == ' ')) ||
        (c == '\t' && i > 0 && why[i - 1] == '\n');
    m += c >= ' ' || indent ? std::string(1, (char)c) : strf("\\x%02x", c);
  }
  return error(m);
}

std::string proto_len(const std::string &what, size_t passed, size_t min,
                      size_t max, const char *unit) {
  std::string want = min == max   ? strf("%zu", min)
                     : passed < min ? strf("at least %zu", min)
                                    : strf("at most %zu", max);
  return strf("%s prototype mismatch: %zu %s%s passed, %s expected",
              what.c_str(), passed, unit, passed == 1 ? "" : "s", want.c_str());
}

std::string proto_arg(const std::string &what, size_t n, const std::string &want,
                      const std::string &got, const char *unit) {
  // The type names line up under each other, as DTrace's do.
  const size_t w = std::max<size_t>(strlen(unit), 9);
  return strf("%s %s #%zu is incompatible with prototype:\n\t%*s: %s\n\t%*s: %s",
              what.c_str(), unit, n, (int)w, "prototype", want.c_str(), (int)w,
              unit, got.c_str());
}

Result<void> check_desc(const std::string &d) {
  auto bad = [&](const std::string &why) {
    return error("invalid probe description \"" + d + "\": " + why);
  };
  if (d.empty())
    return bad("empty");
  if (std::count(d.begin(), d.end(), ':') > 3)
    return bad("too many fields (provider:module:function:name)");
  int brackets = 0;
  for (char c : d) {
    if (c == '[')
      brackets++;
    else if (c == ']')
      brackets--;
    else if (!(isalnum((unsigned char)c) || strchr("_-.*?!~$+:`", c)))
      return bad(strf("invalid character '%c'", c));
    if (brackets < 0 || brackets > 1)
      return bad("unbalanced '[' ']' in a glob");
  }
  if (brackets)
    return bad("unbalanced '[' ']' in a glob");
  return {};
}

void Parser::adopt_library(Parser &lib, ProgramAst &&parsed) {
  typedefs_ = std::move(lib.typedefs_);
  sous_ = std::move(lib.sous_);
  inlines_ = std::move(lib.inlines_);
  xlate_pairs_ = std::move(lib.xlate_pairs_);
  types_ = std::move(parsed.types);
  lib_translators_ = std::move(parsed.translators);
  if (auto t = sous_.find("struct task_struct"); t != sous_.end()) {
    task_ = CType();
    task_->sou = t->second, task_->name = t->second->name, task_->bytes = 0;
  }
  if (auto t = typedefs_.find("cpuinfo_t"); t != typedefs_.end())
    cpuinfo_ = t->second;
  for (const auto &[n, _] : typedefs_)
    library_.insert(n);
  for (const auto &[n, _] : sous_)
    library_.insert(n);
  for (const auto &[n, _] : inlines_)
    library_.insert(n);
}

Result<ExprPtr> Parser::inet_call(const Token &t) {
  const std::string &n = t.sval;
  auto args = call_args();
  if (!args)
    return args.take_error();
  const size_t lo = n == "inet_ntop" ? 2 : 1, hi = n == "inet_ntoa" ? 1 : 2;
  if (args->size() < lo || args->size() > hi)
    return err(t.line, DTag::D_PROTO_LEN, proto_len(n + "( )", args->size(), lo, hi));
  CType u32t, u64t, uptr;
  u32t.bytes = 4, u32t.is_signed = false, u32t.name = "uint32_t";
  u64t.bytes = 8, u64t.is_signed = false, u64t.name = "uint64_t";
  uptr.bytes = sizeof(void *), uptr.is_signed = false, uptr.name = "uintptr_t";
  // *(T *)((uintptr_t)addr + off)
  auto word = [&](const Expr &addr, const CType &type, i64 off) {
    auto c = node(Expr::Cast, t);
    c->ctype = uptr;
    c->kids.push_back(copy_expr(addr));
    auto sum = node(Expr::Binary, t);
    sum->op = X_ADD;
    sum->kids.push_back(std::move(c));
    auto k = node(Expr::Int, t);
    k->ival = off;
    sum->kids.push_back(std::move(k));
    auto p = node(Expr::Cast, t);
    p->ctype = pointer_to(type);
    p->kids.push_back(std::move(sum));
    auto d = node(Expr::Unary, t);
    d->op = X_DEREF;
    d->kids.push_back(std::move(p));
    return d;
  };
  auto call = [&](const char *name, std::vector<ExprPtr> kids) {
    auto e = node(Expr::Call, t);
    e->name = name;
    e->kids = std::move(kids);
    return e;
  };
  auto v4 = [&](const Expr &addr) {
    std::vector<ExprPtr> k;
    k.push_back(word(addr, u32t, 0));
    return call("inet_ntoa", std::move(k));
  };
  auto v6 = [&](const Expr &addr, ExprPtr strict) {
    std::vector<ExprPtr> k;
    k.push_back(word(addr, u64t, 0));
    k.push_back(word(addr, u64t, 8));
    k.push_back(std::move(strict));
    return call("inet_ntoa6", std::move(k));
  };
  auto one = [&]() {
    auto k = node(Expr::Int, t);
    k->ival = 1;
    return k;
  };
  ExprPtr e;
  if (n == "inet_ntoa") {
    e = v4(*(*args)[0]);
  } else if (n == "inet_ntoa6") {
    // The second argument, "strict", a constant: non-zero writes an
    // IPv4-mapped or -compatible address as inet_ntop(3) does
    // (::ffff:127.0.0.1), zero as its IPv4 address alone.
    ExprPtr strict;
    if (args->size() > 1) {
      if ((*args)[1]->kind != Expr::Int)
        return err(t.line, DTag::D_PROTO_ARG,
                   proto_arg("inet_ntoa6( )", 2, "int", "a non-constant value"));
      strict = one();
      strict->ival = (*args)[1]->ival != 0;
    } else {
      strict = node(Expr::Int, t);
    }
    e = v6(*(*args)[0], std::move(strict));
  } else {
    // As DTrace: af == AF_INET6 ? inet_ntoa6(addr, 1) : inet_ntoa(addr).
    auto cond = node(Expr::Binary, t);
    cond->op = X_EQ;
    cond->kids.push_back(std::move((*args)[0]));
    auto six = node(Expr::Int, t);
    six->ival = 10;
    cond->kids.push_back(std::move(six));
    e = node(Expr::Ternary, t);
    e->kids.push_back(std::move(cond));
    e->kids.push_back(v6(*(*args)[1], one()));
    e->kids.push_back(v4(*(*args)[1]));
  }
  MK_TRY(deepen(*e, t));
  return e;
}

Result<ProgramAst> parse(const std::string &text, const std::string &file,
                         const MacroArgs &macros, bool errtags, bool empty_ok,
                         const KernelVars *kvars) {
  static const MacroArgs kNoMacros;
  static const std::string kLibraryText = std::string(kLibraryD) + kTaskLibraryD;
  Parser lib(kLibraryText, "", kNoMacros, false);
  lib.library_text();
  auto parsed = lib.run();
  if (!parsed) // kLibraryD is the kernel's own text
    return error("the D library: " + parsed.error().message);
  Parser p(text, file, macros, errtags);
  p.allow_empty(empty_ok);
  p.kernel_vars(kvars);
  p.adopt_library(lib, std::move(*parsed));
  return p.run();
}

std::optional<bool> bool_option(const std::string &v) {
  std::string l;
  for (char c : v)
    l += (char)tolower((unsigned char)c);
  for (const char *on : {"", "yes", "true", "enable", "enabled", "on", "set"})
    if (l == on)
      return true;
  for (const char *off : {"no", "false", "disable", "disabled", "off", "unset"})
    if (l == off)
      return false;
  return std::nullopt;
}

Result<bool> set_option(Pragmas &p, const std::string &name,
                        const std::string &value) {
  auto number = [&](u64 lo, u64 hi) -> Result<u64> {
    char *end = nullptr;
    errno = 0;
    unsigned long long v = strtoull(value.c_str(), &end, 0);
    if (value.empty() || *end || errno || value[0] == '-' || v < lo || v > hi)
      return error(strf("invalid value for option %s: '%s' (%llu..%llu)",
                        name.c_str(), value.c_str(), (unsigned long long)lo,
                        (unsigned long long)hi));
    return (u64)v;
  };
  auto flag = [&](bool &b) -> Result<bool> {
    auto on = bool_option(value);
    if (!on)
      return error("option " + name + ": '" + value + "' is not on or off");
    b = *on;
    return true;
  };
  if (name == "aggsortkey")
    return flag(p.aggsortkey);
  if (name == "aggsortrev")
    return flag(p.aggsortrev);
  if (name == "aggsortpos" || name == "aggsortkeypos" || name == "nspec") {
    auto v = number(name == "nspec" ? 1 : 0, name == "nspec" ? 4096 : kMaxAggs);
    if (!v)
      return v.take_error();
    (name == "aggsortpos" ? p.aggsortpos
     : name == "aggsortkeypos" ? p.aggsortkeypos : p.nspec) = (u32)*v;
    return true;
  }
  if (name == "maxframes") { // stack( )'s frames, at most
    auto v = number(1, kMaxStackFrames);
    if (!v)
      return v.take_error();
    p.maxframes = (u32)*v;
    return true;
  }
  if (name == "scratchsize") {
    auto v = number(1, kMaxScratchSize);
    if (!v)
      return v.take_error();
    p.scratchsize = (u32)*v;
    return true;
  }
  if (name == "printsize") {
    // As DTrace's: a size; 0 or above 64 KiB is the default; in 8 bytes.
    auto v = value == "0" ? Result<u64>(0) : parse_size(value);
    if (!v)
      return error("invalid value for option printsize: " + v.error().message);
    const u64 n = *v == 0 || *v > kMaxPrint ? kDefaultPrintSize : *v;
    p.printsize = (u32)((n + 7) & ~(u64)7);
    return true;
  }
  if (name == "specsize") {
    auto v = parse_size(value);
    if (!v)
      return error("invalid value for option specsize: " + v.error().message);
    p.specsize = *v;
    return true;
  }
  // Checked, then fixed here: the consumer drains every 50 ms, and
  // dynamic variables live in maps of their own size.
  if (name == "switchrate" || name == "aggrate" || name == "statusrate" ||
      name == "cleanrate") {
    if (auto v = parse_rate(value); !v)
      return v.take_error();
    return true;
  }
  // DTrace's integer registers for D code: the eight BPF gives it, which
  // is the only count it takes (fewer leave too few to generate code).
  if (name == "iregs") {
    auto v = number(8, 8);
    if (!v)
      return v.take_error();
    return true;
  }
  if (name == "dynvarsize") {
    auto v = parse_size(value);
    if (!v)
      return v.take_error();
    p.dynvarsize = *v;
    return true;
  }
  return false;
}

std::optional<i64> fold_constant(const Expr &e) { return fold(e); }

} // namespace mk::dt
