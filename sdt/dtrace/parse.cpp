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

#include <set>

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

namespace {

enum Tok {
  T_EOF, T_INT, T_STR, T_IDENT, T_AGG, // '@' name
  T_LPAREN, T_RPAREN, T_LBRACE, T_RBRACE, T_LBRACK, T_RBRACK,
  T_COMMA, T_SEMI, T_QUESTION, T_COLON, T_ASSIGN,
  T_PLUS, T_MINUS, T_STAR, T_SLASH, T_PERCENT,
  T_SHL, T_SHR, T_LT, T_LE, T_GT, T_GE, T_EQ, T_NE,
  T_AMP, T_PIPE, T_CARET, T_ANDAND, T_OROR, T_XORXOR,
  T_BANG, T_TILDE,
  T_ARROW, T_INC, T_DEC, T_ADDEQ, T_SUBEQ, // -> ++ -- += -=
};

struct Token {
  Tok kind = T_EOF;
  std::string text; // as written
  i64 ival = 0;
  std::string sval; // string literal, escapes resolved; T_AGG/T_IDENT name
  int line = 1;
  bool pred_end = false; // a '/' that closes a predicate
};

class Parser {
public:
  Parser(const std::string &text, const std::string &file)
      : s_(text), file_(file) {}

  Result<ProgramAst> run();

private:
  // ---- errors
  Error err_at(const Token &t, const std::string &why) {
    std::string near = t.kind == T_EOF ? "" : t.text;
    std::string where = file_.empty() ? "" : strf("%s:%d: ", file_.c_str(), t.line);
    if (t.kind == T_EOF)
      return error(where + "syntax error at end of input: " + why);
    return error(where + "syntax error near \"" + near + "\": " + why);
  }
  Error lex_err(const std::string &why) {
    std::string where = file_.empty() ? "" : strf("%s:%d: ", file_.c_str(), line_);
    return error(where + why);
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
    tok_ = std::move(*t);
    return {};
  }
  bool is(Tok k) const { return tok_.kind == k; }
  Result<void> expect(Tok k, const char *what) {
    if (!is(k))
      return err_at(tok_, std::string("expected ") + what);
    return advance();
  }

  // ---- grammar
  Result<void> pragma();
  Result<void> clause(ProgramAst &prog);
  Result<std::string> desc();
  Result<void> stmt(ClauseAst &c);
  Result<ExprPtr> expr();
  Result<ExprPtr> ternary();
  Result<ExprPtr> binary(int level);
  Result<ExprPtr> unary();
  Result<ExprPtr> primary();
  Result<std::vector<ExprPtr>> call_args();
  // stack( ) or stack(N), the '(' next; `t` names it.
  Result<ExprPtr> stack_call(const Token &t);
  // A variable named by `t` (already consumed): self->x, this->x, x or
  // x[key].
  Result<ExprPtr> variable(const Token &t);
  // Globals read somewhere and assigned somewhere (a read of one never
  // assigned is an undefined variable, as in DTrace).
  std::vector<Token> global_reads_;
  std::set<std::string> global_writes_;

  ExprPtr node(Expr::Kind k, const Token &at) {
    auto e = std::make_unique<Expr>();
    e->kind = k;
    e->near = at.text;
    e->line = at.line;
    return e;
  }

  const std::string &s_;
  std::string file_;
  size_t p_ = 0;
  int line_ = 1;
  Token tok_;
  int paren_ = 0;        // parentheses/brackets open inside a predicate
  bool in_pred_ = false; // a '/' at depth 0 closes the predicate
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
      return err_at(tok_, strf("expression nested more than %d levels deep",
                               kMaxExprDepth));
    return {};
  }
  // `e`'s depth from its kids'; too deep is an error.
  Result<void> deepen(Expr &e, const Token &at) {
    for (const ExprPtr &k : e.kids)
      e.depth = std::max(e.depth, k->depth + 1);
    if (e.depth > kMaxExprDepth)
      return err_at(at, strf("expression nested more than %d levels deep",
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
        return lex_err("syntax error: unterminated comment");
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
    return {};
  }
}

// Resolve one escape after a backslash at s_[p_]; appends to out.
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
  case '\'': out += '\''; return true;
  case '?': out += '?'; return true;
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
    return false;
  }
}

Result<Token> Parser::lex() {
  MK_TRY(skip_space());
  Token t;
  t.line = line_;
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
        return (lex_err(strf("syntax error near \"%s\": invalid digit in "
                                  "a base-%d integer",
                                  t.text.c_str(), base)));
      }
      // Past 64 bits is an error, not a silent wrap (DTrace refuses it
      // too).
      if (__builtin_mul_overflow(v, (unsigned long long)base, &v) ||
          __builtin_add_overflow(v, (unsigned long long)dv, &v)) {
        while (i < s_.size() && isalnum((unsigned char)s_[i]))
          i++;
        t.text = s_.substr(start, i - start);
        return lex_err("syntax error near \"" + t.text +
                       "\": integer constant is too large for 64 bits");
      }
      any = true;
    }
    while (i < s_.size() && strchr("uUlL", s_[i]))
      i++; // suffixes: every integer is 64-bit here
    if (i < s_.size() && (isalpha((unsigned char)s_[i]) || s_[i] == '_')) {
      any = false;
      while (i < s_.size() && (isalnum((unsigned char)s_[i]) || s_[i] == '_'))
        i++;
    }
    t.text = s_.substr(start, i - start);
    if (!any)
      return (lex_err("syntax error near \"" + t.text +
                           "\": invalid integer constant"));
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
        return (lex_err(std::string("syntax error near \"") +
                             s_.substr(start, i - start) +
                             "\": newline in a string"));
      if (s_[i] == '\\') {
        size_t at = i++;
        if (!unescape(s_, i, v))
          return (lex_err("syntax error near \"" +
                               s_.substr(at, std::min<size_t>(2, s_.size() - at)) +
                               "\": invalid escape sequence"));
        continue;
      }
      v += s_[i++];
    }
    if (i >= s_.size())
      return (lex_err(std::string("syntax error near \"") +
                      s_.substr(start + 1, std::min<size_t>(20, s_.size() - start - 1)) +
                      "\": unterminated " +
                      (q == '"' ? "string" : "character constant")));
    t.text = s_.substr(start, i + 1 - start);
    p_ = i + 1;
    if (q == '"') {
      t.kind = T_STR;
      t.sval = v;
    } else {
      if (v.size() != 1)
        return (lex_err("syntax error near \"" + t.text +
                             "\": a character constant holds one character"));
      t.kind = T_INT;
      t.ival = (unsigned char)v[0];
    }
    return t;
  }
  auto two = [&](char a, char b) { return c == a && ch(1) == b; };
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
    if (in_pred_)
      paren_++;
    return one(T_LPAREN, 1);
  case ')':
    if (in_pred_ && paren_ > 0)
      paren_--;
    return one(T_RPAREN, 1);
  case '[':
    if (in_pred_)
      paren_++;
    return one(T_LBRACK, 1);
  case ']':
    if (in_pred_ && paren_ > 0)
      paren_--;
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
    t.pred_end = in_pred_ && paren_ == 0;
    return one(T_SLASH, 1);
  case '%': return one(T_PERCENT, 1);
  case '<': return one(T_LT, 1);
  case '>': return one(T_GT, 1);
  case '&': return one(T_AMP, 1);
  case '|': return one(T_PIPE, 1);
  case '^': return one(T_CARET, 1);
  case '!': return one(T_BANG, 1);
  case '~': return one(T_TILDE, 1);
  }
  t.text = std::string(1, c);
  return (lex_err("syntax error near \"" + t.text + "\": invalid character"));
}

// ---- clauses --------------------------------------------------------------------

// #pragma D option name[=value]
Result<void> Parser::pragma() {
  size_t eol = s_.find('\n', p_);
  std::string line = s_.substr(p_, eol == std::string::npos ? eol : eol - p_);
  p_ = eol == std::string::npos ? s_.size() : eol;
  std::string where = file_.empty() ? "" : strf("%s:%d: ", file_.c_str(), line_);
  if (line.rfind("#!", 0) == 0)
    return {}; // #!/usr/sbin/dtrace -s
  char word[3][64] = {};
  int n = sscanf(line.c_str(), "#pragma %63s %63s %63s", word[0], word[1], word[2]);
  if (n < 1)
    return error(where + "syntax error near \"" + line + "\": expected #pragma");
  if (strcmp(word[0], "D") != 0)
    return {}; // other pragmas are ignored, as by DTrace's cpp-less mode
  if (n < 3 || strcmp(word[1], "option") != 0)
    return error(where + "syntax error near \"" + line +
                 "\": expected #pragma D option name[=value]");
  std::string opt = word[2], val;
  if (size_t eq = opt.find('='); eq != std::string::npos)
    val = opt.substr(eq + 1), opt.resize(eq);
  // The same sizes and limits as -b and -x bufsize= (parse_size).
  auto size_of = [&](u64 &out) -> Result<void> {
    auto v = parse_size(val);
    if (!v)
      return error(where + "invalid value for option " + opt + ": " +
                   v.error().message);
    out = *v;
    return {};
  };
  auto known = set_option(pragmas_, opt, val);
  if (!known)
    return error(where + known.error().message);
  if (*known)
    ;
  else if (opt == "quiet")
    pragmas_.quiet = true;
  else if (opt == "bufsize")
    MK_TRY(size_of(pragmas_.bufsize));
  else if (opt == "aggsize")
    MK_TRY(size_of(pragmas_.aggsize));
  else if (opt == "strsize") {
    auto v = parse_strsize(val);
    if (!v)
      return error(where + "invalid value for option strsize: " + v.error().message);
    pragmas_.strsize = *v;
  } else if (opt == "switchrate" || opt == "dynvarsize")
    ; // accepted, fixed here
  else
    return error(where + "unsupported option \"" + opt + "\" in #pragma D option");
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
    return err_at(t, "expected a probe description");
  }
  if (auto r = check_desc(d); !r) {
    std::string where = file_.empty() ? "" : strf("%s:%d: ", file_.c_str(), line_);
    return error(where + r.error().message);
  }
  return d;
}

Result<void> Parser::clause(ProgramAst &prog) {
  ClauseAst c;
  c.line = line_;
  c.file = file_;
  for (;;) {
    auto d = desc();
    if (!d)
      return d.take_error();
    c.descs.push_back(*d);
    MK_TRY(skip_space());
    if (ch() != ',')
      break;
    p_++;
  }
  MK_TRY(skip_space());
  bool body = false;
  if (ch() == '/') {
    p_++;
    in_pred_ = true;
    paren_ = 0;
    MK_TRY(advance());
    auto e = expr();
    if (!e)
      return e.take_error();
    c.pred = std::move(*e);
    in_pred_ = false;
    if (!is(T_SLASH))
      return err_at(tok_, "expected '/' to close the predicate");
    MK_TRY(advance());
    if (is(T_LBRACE))
      body = true;
    else if (!is(T_EOF))
      return err_at(tok_, "expected '{'");
  } else if (ch() == '{') {
    p_++;
    body = true;
  } else if (!at_end()) {
    Token t;
    t.kind = T_IDENT;
    t.line = line_;
    size_t e = p_;
    while (e < s_.size() && !isspace((unsigned char)s_[e]))
      e++;
    t.text = s_.substr(p_, e - p_);
    return err_at(t, "expected '/', '{' or ',' after the probe description");
  }
  if (body) {
    c.has_body = true;
    MK_TRY(advance());
    while (!is(T_RBRACE)) {
      if (is(T_EOF))
        return err_at(tok_, "expected '}'");
      if (is(T_SEMI)) {
        MK_TRY(advance());
        continue;
      }
      MK_TRY(stmt(c));
      if (!is(T_SEMI) && !is(T_RBRACE))
        return err_at(tok_, "expected ';' or '}' after a statement");
    }
    // The '}' ends the clause; the next clause starts with a raw
    // description, so nothing further is lexed here.
  }
  prog.clauses.push_back(std::move(c));
  return {};
}

Result<ExprPtr> Parser::stack_call(const Token &t) {
  auto args = call_args();
  if (!args)
    return args.take_error();
  if (args->size() > 1)
    return err_at(t, strf("stack( ) takes 0 or 1 argument, %zu given",
                          args->size()));
  if (args->size() == 1 &&
      ((*args)[0]->kind != Expr::Int || (*args)[0]->ival < 1 ||
       (*args)[0]->ival > (i64)kMaxStackFrames))
    return err_at(t, strf("stack( ) takes a number of frames, 1..%u",
                          kMaxStackFrames));
  auto e = node(Expr::Call, t);
  e->name = "stack";
  e->ival = args->empty() ? kStackFrames : (*args)[0]->ival;
  return e;
}

Result<std::vector<ExprPtr>> Parser::call_args() {
  std::vector<ExprPtr> args;
  MK_TRY(expect(T_LPAREN, "'('"));
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
    MK_TRY(expect(T_RPAREN, "',' or ')'"));
    return args;
  }
}

static ExprPtr copy_expr(const Expr &e);

Result<void> Parser::stmt(ClauseAst &c) {
  Stmt s;
  s.line = tok_.line;
  s.near = tok_.text;
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
        MK_TRY(expect(T_RBRACK, "',' or ']'"));
        break;
      }
      if (s.keys.size() > kMaxKeys)
        return err_at(tok_, strf("an aggregation takes at most %u keys", kMaxKeys));
    }
    if (!is(T_ASSIGN))
      return err_at(tok_, "expected '=' and an aggregating function");
    MK_TRY(advance());
    if (!is(T_IDENT))
      return err_at(tok_, "expected an aggregating function (count, sum, min, "
                          "max, avg, stddev, quantize, lquantize, llquantize)");
    Token fn = tok_;
    static const struct {
      const char *name;
      AggFn fn;
      size_t lo, hi;
    } fns[] = {{"count", AggFn::Count, 0, 0},      {"sum", AggFn::Sum, 1, 1},
               {"min", AggFn::Min, 1, 1},          {"max", AggFn::Max, 1, 1},
               {"avg", AggFn::Avg, 1, 1},          {"quantize", AggFn::Quantize, 1, 1},
               {"lquantize", AggFn::LQuantize, 3, 4},
               {"stddev", AggFn::Stddev, 1, 1},
               {"llquantize", AggFn::LLQuantize, 5, 5}};
    const auto *f = std::find_if(std::begin(fns), std::end(fns),
                                 [&](auto &x) { return fn.sval == x.name; });
    if (f == std::end(fns))
      return err_at(fn, "unknown aggregating function (count, sum, min, max, "
                        "avg, stddev, quantize, lquantize, llquantize)");
    s.fn = f->fn;
    MK_TRY(advance());
    auto args = call_args();
    if (!args)
      return args.take_error();
    if (args->size() < f->lo || args->size() > f->hi) {
      std::string want = f->lo == f->hi ? strf("%zu", f->lo)
                                         : strf("%zu or %zu", f->lo, f->hi);
      return err_at(fn, strf("%s( ) takes %s argument%s, %zu given", f->name,
                             want.c_str(), f->hi == 1 && f->lo == 1 ? "" : "s",
                             args->size()));
    }
    s.args = std::move(*args);
    c.stmts.push_back(std::move(s));
    return {};
  }
  if (!is(T_IDENT))
    return err_at(tok_, "expected an action (trace, printf, printa, exit) or "
                        "an aggregation");
  Token name = tok_;
  MK_TRY(advance());
  if (!is(T_LPAREN) && (is(T_ARROW) || is(T_LBRACK) || is(T_ASSIGN) ||
                        is(T_ADDEQ) || is(T_SUBEQ) || is(T_INC) || is(T_DEC))) {
    // An assignment: v = e, v += e, v -= e, v++, v--.
    auto v = variable(name);
    if (!v)
      return v.take_error();
    Token op = tok_;
    ExprPtr value;
    if (is(T_INC) || is(T_DEC)) {
      MK_TRY(advance());
      auto one = node(Expr::Int, op);
      one->ival = 1;
      value = node(Expr::Binary, op);
      value->op = op.kind == T_INC ? X_ADD : X_SUB;
      value->kids.push_back(copy_expr(**v));
      value->kids.push_back(std::move(one));
    } else {
      if (!is(T_ASSIGN) && !is(T_ADDEQ) && !is(T_SUBEQ))
        return err_at(tok_, "expected '=', '+=', '-=', '++' or '--' after " +
                                (*v)->near);
      MK_TRY(advance());
      auto e = expr();
      if (!e)
        return e.take_error();
      if (op.kind == T_ASSIGN) {
        value = std::move(*e);
      } else {
        value = node(Expr::Binary, op);
        value->op = op.kind == T_ADDEQ ? X_ADD : X_SUB;
        value->kids.push_back(copy_expr(**v));
        value->kids.push_back(std::move(*e));
      }
    }
    if ((*v)->scope == VarScope::Global) {
      global_writes_.insert((*v)->name);
      if (op.kind != T_ASSIGN)
        global_reads_.push_back(name);
    }
    s.kind = Stmt::Assign;
    s.args.push_back(std::move(*v));
    s.args.push_back(std::move(value));
    c.stmts.push_back(std::move(s));
    return {};
  }
  if (!is(T_LPAREN))
    return err_at(name, "expected an action (trace, printf, printa, exit) or "
                        "an aggregation");
  if (name.sval == "printf" || name.sval == "printa") {
    bool pa = name.sval == "printa";
    s.kind = pa ? Stmt::Printa : Stmt::Printf;
    MK_TRY(advance());
    if (is(T_STR)) {
      s.fmt = tok_.sval;
      s.has_fmt = true;
      MK_TRY(advance());
      if (pa || !is(T_RPAREN))
        MK_TRY(expect(T_COMMA, "','"));
    } else if (!pa) {
      return err_at(tok_, "printf( ) needs a format string first");
    }
    if (pa) {
      if (!is(T_AGG))
        return err_at(tok_, "printa( ) needs an aggregation (@name)");
      s.agg = tok_.sval;
      MK_TRY(advance());
      // printa( ) joins several aggregations by key.
      while (is(T_COMMA)) {
        MK_TRY(advance());
        if (!is(T_AGG))
          return err_at(tok_, "printa( ) takes aggregations (@name) after its "
                              "format");
        s.more_aggs.push_back(tok_.sval);
        MK_TRY(advance());
      }
      MK_TRY(expect(T_RPAREN, "',' or ')'"));
    } else {
      while (!is(T_RPAREN)) {
        auto e = expr();
        if (!e)
          return e.take_error();
        s.args.push_back(std::move(*e));
        if (is(T_COMMA))
          MK_TRY(advance());
        else if (!is(T_RPAREN))
          return err_at(tok_, "expected ',' or ')'");
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
    auto args = call_args();
    if (!args)
      return args.take_error();
    if (args->size() != 1)
      return err_at(name, strf("%s( ) takes 1 argument, %zu given",
                               name.sval.c_str(), args->size()));
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
    if (!is(T_AGG))
      return err_at(tok_, name.sval + "( ) needs an aggregation (@name) first");
    s.agg = tok_.sval;
    MK_TRY(advance());
    while (is(T_COMMA)) {
      MK_TRY(advance());
      auto e = expr();
      if (!e)
        return e.take_error();
      s.args.push_back(std::move(*e));
    }
    MK_TRY(expect(T_RPAREN, "',' or ')'"));
    if (s.args.size() < act.lo || s.args.size() > act.hi)
      return err_at(name, strf("%s( ) takes an aggregation%s, %zu value%s given",
                               act.name,
                               act.hi == 0   ? " only"
                               : act.lo == 1 ? " and a value"
                                             : " and at most one value",
                               s.args.size(), s.args.size() == 1 ? "" : "s"));
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
      return err_at(name, strf("%s( ) takes 1 argument, %zu given",
                               name.sval.c_str(), args->size()));
    s.args = std::move(*args);
    c.stmts.push_back(std::move(s));
    return {};
  }
  return err_at(name, "unknown action (trace, printf, printa, exit, stack, "
                      "normalize, denormalize, trunc, clear, speculate, "
                      "commit, discard)");
}

// A deep copy, for x += e (x = x + e).
static ExprPtr copy_expr(const Expr &e) {
  auto c = std::make_unique<Expr>();
  c->kind = e.kind;
  c->op = e.op;
  c->ival = e.ival;
  c->sval = e.sval;
  c->builtin = e.builtin;
  c->scope = e.scope;
  c->name = e.name;
  c->near = e.near;
  c->line = e.line;
  for (const ExprPtr &k : e.kids)
    c->kids.push_back(copy_expr(*k));
  return c;
}

Result<ExprPtr> Parser::expr() {
  Nest n(nest_);
  MK_TRY(check_nest());
  return ternary();
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
  MK_TRY(expect(T_COLON, "':'"));
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

Result<ExprPtr> Parser::binary(int level) {
  if (level > 10)
    return unary();
  auto l = binary(level + 1);
  if (!l)
    return l;
  while (binop_at(level, tok_.kind) && !(tok_.kind == T_SLASH && tok_.pred_end)) {
    Token op = tok_;
    MK_TRY(advance());
    auto r = binary(level + 1);
    if (!r)
      return r;
    auto e = node(Expr::Binary, op);
    e->op = binop(op.kind);
    e->kids.push_back(std::move(*l));
    e->kids.push_back(std::move(*r));
    MK_TRY(deepen(*e, op));
    l = std::move(e);
  }
  return l;
}

Result<ExprPtr> Parser::unary() {
  if (is(T_BANG) || is(T_MINUS) || is(T_TILDE) || is(T_PLUS)) {
    Nest n(nest_);
    MK_TRY(check_nest());
    Token op = tok_;
    MK_TRY(advance());
    auto k = unary();
    if (!k)
      return k;
    if (op.kind == T_PLUS)
      return k;
    auto e = node(Expr::Unary, op);
    e->op = op.kind == T_BANG ? X_LNOT : op.kind == T_MINUS ? X_NEG : X_BNOT;
    e->kids.push_back(std::move(*k));
    MK_TRY(deepen(*e, op));
    return e;
  }
  return primary();
}

Result<ExprPtr> Parser::primary() {
  Token t = tok_;
  switch (t.kind) {
  case T_INT: {
    auto e = node(Expr::Int, t);
    e->ival = t.ival;
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
    MK_TRY(expect(T_RPAREN, "')'"));
    return e;
  }
  case T_AGG:
    return err_at(t, "an aggregation is not a value; print it with printa( )");
  case T_IDENT:
    break;
  default:
    return err_at(t, "expected an expression");
  }
  MK_TRY(advance());
  const std::string &n = t.sval;
  if (is(T_LPAREN)) {
    const BuiltinFn *f = find_builtin(n);
    if (!f) {
      if (n == "trace" || n == "printf" || n == "printa" || n == "exit")
        return err_at(t, n + "( ) is an action, not a value");
      return err_at(t, "unknown function " + n + "( )");
    }
    if (f->how == BuiltinFn::Stack)
      return stack_call(t);
    auto e = node(Expr::Call, t);
    e->name = n;
    auto args = call_args();
    if (!args)
      return args.take_error();
    if (args->size() < f->required || args->size() > f->nargs) {
      std::string want = f->required == f->nargs
                             ? strf("%u", f->nargs)
                             : strf("%u to %u", f->required, f->nargs);
      return err_at(t, strf("%s( ) takes %s argument%s, %zu given", n.c_str(),
                            want.c_str(), f->nargs == 1 ? "" : "s",
                            args->size()));
    }
    e->kids = std::move(*args);
    MK_TRY(deepen(*e, t));
    return e;
  }
  if (n.size() == 4 && n.compare(0, 3, "arg") == 0 && isdigit((unsigned char)n[3])) {
    if (n[3] > '5')
      return err_at(t, "probes here have at most 6 arguments (arg0..arg5)");
    auto e = node(Expr::Arg, t);
    e->ival = n[3] - '0';
    return e;
  }
  if (n == "NULL") { // D's null pointer: strtok(NULL, ",")
    auto e = node(Expr::Int, t);
    e->ival = 0;
    return e;
  }
  if (n == "args") {
    if (!is(T_LBRACK))
      return err_at(t, "expected args[N]");
    MK_TRY(advance());
    if (!is(T_INT) || tok_.ival < 0 || tok_.ival > 5)
      return err_at(tok_, "args[ ] takes an integer constant 0..5");
    auto e = node(Expr::Args, t);
    e->ival = tok_.ival;
    e->near = "args[" + tok_.text + "]";
    MK_TRY(advance());
    MK_TRY(expect(T_RBRACK, "']'"));
    return e;
  }
  static const struct {
    const char *name;
    Builtin b;
  } vars[] = {{"timestamp", Builtin::Timestamp},
              {"walltimestamp", Builtin::WallTimestamp},
              {"cpu", Builtin::Cpu},
              {"id", Builtin::Id},
              {"epid", Builtin::Epid},
              {"tid", Builtin::Tid},
              {"probeprov", Builtin::ProbeProv},
              {"probemod", Builtin::ProbeMod},
              {"probefunc", Builtin::ProbeFunc},
              {"probename", Builtin::ProbeName}};
  for (const auto &v : vars)
    if (n == v.name) {
      auto e = node(Expr::Var, t);
      e->builtin = v.b;
      return e;
    }
  auto v = variable(t);
  if (v && (*v)->scope == VarScope::Global)
    global_reads_.push_back(t);
  return v;
}

Result<ExprPtr> Parser::variable(const Token &t) {
  const std::string &n = t.sval;
  if (n == "self" || n == "this") {
    if (!is(T_ARROW))
      return err_at(t, n + " needs ->member (" + n + "->x)");
    MK_TRY(advance());
    if (!is(T_IDENT))
      return err_at(tok_, "expected a variable name after " + n + "->");
    auto e = node(Expr::Variable, t);
    e->scope = n == "self" ? VarScope::Thread : VarScope::Clause;
    e->name = tok_.sval;
    e->near = n + "->" + tok_.sval;
    MK_TRY(advance());
    if (is(T_LBRACK))
      return err_at(tok_, "associative arrays are global here (" + e->near +
                              "[...] is not supported)");
    return e;
  }
  auto e = node(Expr::Variable, t);
  e->scope = VarScope::Global;
  e->name = n;
  if (is(T_LBRACK)) {
    MK_TRY(advance());
    for (;;) {
      auto k = expr();
      if (!k)
        return k;
      e->kids.push_back(std::move(*k));
      if (!is(T_COMMA))
        break;
      MK_TRY(advance());
    }
    MK_TRY(expect(T_RBRACK, "']'"));
    MK_TRY(deepen(*e, t));
  }
  return e;
}

Result<ProgramAst> Parser::run() {
  ProgramAst prog;
  for (;;) {
    MK_TRY(skip_space());
    if (at_end())
      break;
    if (ch() == '#') {
      MK_TRY(pragma());
      continue;
    }
    MK_TRY(clause(prog));
  }
  for (const Token &t : global_reads_)
    if (!global_writes_.count(t.sval))
      return err_at(t, "undefined variable");
  prog.pragmas = pragmas_;
  return prog;
}

} // namespace

Result<u64> parse_size(const std::string &s) {
  const u64 lo = 4096, hi = 1ull << 30;
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
    return error("size '" + s + "' is below the minimum of 4k");
  return v * mul;
}

Result<u32> parse_strsize(const std::string &s) {
  errno = 0;
  char *end = nullptr;
  unsigned long long v = std::strtoull(s.c_str(), &end, 10);
  if (s.empty() || !isdigit((unsigned char)s[0]) || (end && *end))
    return error("'" + s + "' is not a number of characters");
  if (errno == ERANGE || v < 1 || v > kDefaultStrSize)
    return error("'" + s + "' is not within 1..256");
  return (u32)v;
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

Result<ProgramAst> parse(const std::string &text, const std::string &file) {
  Parser p(text, file);
  auto r = p.run();
  if (!r) {
    // One line, whatever text the error quotes.
    std::string m;
    for (char c : r.error().message)
      m += c == '\n' ? std::string("\\n") : c == '\t' ? std::string("\\t")
           : (unsigned char)c < ' ' ? strf("\\x%02x", (unsigned char)c)
                                    : std::string(1, c);
    return error(m);
  }
  return r;
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
    if (!value.empty())
      return error("option " + name + " takes no value");
    b = true;
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
  if (name == "specsize") {
    auto v = parse_size(value);
    if (!v)
      return error("invalid value for option specsize: " + v.error().message);
    p.specsize = *v;
    return true;
  }
  return false;
}

} // namespace mk::dt
