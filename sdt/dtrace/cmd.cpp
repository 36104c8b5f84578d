// The shell's `dtrace` command (DESIGN.md, "Shell"):
//
//   dtrace -l [-v] [-P prov] [-m mod] [-f func] [-n desc] [-s file]
//   dtrace -S ...               the probes' sites, disassembled (Capstone)
//   dtrace [-FqZ] [-b size] [-x opt] -n 'desc /pred/ { actions }' ... | -s file
//          [-c 'shell command'] [&]
//   dtrace -j | -o ID | -k ID   background enablings: list, read, stop
//
// A foreground run prints as DTrace does: "description ... matched N
// probes" on stderr, records drained every 50 ms, Ctrl-C or exit( ) to
// stop, then END and the aggregations.  With -c it enables, runs the shell
// command (draining every 50 ms meanwhile, from a helper thread), drains
// and stops.  A trailing `&` leaves the enabling running in
// the background: its output goes to a bounded buffer (1 MiB, oldest lines
// dropped and counted) that `dtrace -o ID` prints and empties (so each -o
// shows what is new since the last), drained every 50 ms by a
// thread of this command (so buffers do not fill while the shell waits for
// input), stopped by `dtrace -k ID` or when a clause calls exit( ), and at
// kernel shutdown.  The ID is the Sdt enabling's, the one kernel messages
// about it use.
#include "dtrace.h"
#include "consumer.h"
#include "../registry.h"

#include "../../kernel/kernel.h"
#include "../../kernel/ktype.h"
#include "../../kernel/sysinit.h"

#include <algorithm>
#include <capstone/capstone.h>
#include <cerrno>
#include <climits>
#include <condition_variable>
#include <csignal>
#include <fcntl.h>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

namespace mk::dt {

namespace {

using Args = std::vector<std::string>;

const char *kUsage =
    "usage: dtrace [-CeFlqSvwZ] [-b size] [-x opt[=val]] [-D name[=def]] "
    "[-U name] [-I dir] [-n desc] [-s file [arg ...]] [-P prov] [-m mod] "
    "[-f func] [-i id] [-c cmd] [&] | -j | -o id | -k id";

// ---- sinks ----------------------------------------------------------------------------

// The foreground: stdout for records, stderr for DTrace's messages.
class StdSink : public Sink {
public:
  void out(const std::string &s) override {
    std::fwrite(s.data(), 1, s.size(), stdout);
    std::fflush(stdout);
  }
  void err(const std::string &line) override {
    std::fflush(stdout);
    std::fprintf(stderr, "%s\n", line.c_str());
  }
};

// A background enabling's output, kept until read; bounded, dropping the
// oldest whole lines.
class BufferSink : public Sink {
public:
  static constexpr size_t kMax = 1 << 20;
  void out(const std::string &s) override {
    MutexLock g(mu_);
    buf_ += s;
    if (buf_.size() > kMax) {
      size_t cut = buf_.size() - kMax;
      size_t nl = buf_.find('\n', cut);
      cut = nl == std::string::npos ? cut : nl + 1;
      discarded_ += cut;
      buf_.erase(0, cut);
    }
  }
  void err(const std::string &line) override { out(line + "\n"); }
  std::string take() {
    MutexLock g(mu_);
    std::string s;
    if (discarded_)
      s = strf("dtrace: %llu bytes of output discarded (more than %zu KiB "
               "unread)\n",
               (unsigned long long)discarded_, kMax / 1024);
    s += buf_;
    buf_.clear();
    discarded_ = 0;
    return s;
  }

private:
  Mutex mu_; // the drainer thread writes, the shell reads
  std::string buf_ GUARDED_BY(mu_);
  u64 discarded_ GUARDED_BY(mu_) = 0;
};

void notice(const std::string &line) {
  std::fflush(stdout);
  std::fprintf(stderr, "%s\n", line.c_str());
}

// ---- options ---------------------------------------------------------------------------

struct Spec {
  char kind; // n s P m f i
  std::string arg;
};

struct Options {
  bool list = false, verbose = false, quiet = false, sites = false;
  bool jobs = false, zdefs = false, background = false, flow = false;
  bool errtags = false; // -x errtags: compile errors show DTrace's tags
  bool empty = false;   // -x empty: a script may hold no clause
  std::vector<Spec> specs;
  bool has_cmd = false;
  std::string cmd;
  u64 bufsize = 0, aggsize = 0;
  Pragmas xopts; // -x options a #pragma may also set (set_option)
  bool has_xopts = false;
  u32 strsize = 0;
  DEngine engine = DEngine::Bpf;
  int read_id = 0, kill_id = 0;
  bool cpp = false;                  // -C: scripts go through cpp first
  std::vector<std::string> cpp_args; // -D, -U, -I, as cpp takes them
  bool compile_only = false;         // -e: stop after compiling
  bool destructive = false;          // -w
  MacroArgs macros;                  // the words after the options
};

Result<int> parse_id(const std::string &s) {
  char *end = nullptr;
  errno = 0;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || *end || v <= 0)
    return error("invalid enabling id '" + s + "'");
  // strtoll saturates and the id is an int: no wrap to "enabling -1".
  if (errno == ERANGE || v > INT_MAX)
    return error("invalid enabling id '" + s + "': larger than any enabling "
                 "id (" + std::to_string(INT_MAX) + ")");
  return (int)v;
}

Result<Options> parse_options(const Args &a) {
  Options o;
  size_t n = a.size();
  if (n > 1 && a[n - 1] == "&") {
    o.background = true;
    n--;
  }
  for (size_t i = 1; i < n; i++) {
    const std::string &w = a[i];
    if (w.size() < 2 || w[0] != '-') {
      // The first word that is no option starts the macro arguments
      // ($1, $2 ...), as in `dtrace -s script.d 10 foo`.
      o.macros.args.assign(a.begin() + i, a.begin() + n);
      break;
    }
    for (size_t j = 1; j < w.size(); j++) {
      char c = w[j];
      if (strchr("FlqSvZjCew", c)) {
        switch (c) {
        case 'C': o.cpp = true; break;
        case 'e': o.compile_only = true; break;
        case 'w': o.destructive = true; break;
        case 'F': o.flow = true; break;
        case 'l': o.list = true; break;
        case 'q': o.quiet = true; break;
        case 'S': o.sites = true; break;
        case 'v': o.verbose = true; break;
        case 'Z': o.zdefs = true; break;
        case 'j': o.jobs = true; break;
        }
        continue;
      }
      if (!strchr("nsPmficbxokDUI", c))
        return error(strf("illegal option -- %c (%s)", c, kUsage));
      std::string val;
      if (j + 1 < w.size())
        val = w.substr(j + 1);
      else if (i + 1 < n)
        val = a[++i];
      else
        return error(strf("option requires an argument -- %c (%s)", c, kUsage));
      switch (c) {
      case 'D':
      case 'U':
      case 'I':
        o.cpp_args.push_back(std::string("-") + c + val);
        break;
      case 'c':
        if (o.has_cmd)
          return error("only one -c command may be given");
        o.has_cmd = true;
        o.cmd = val;
        break;
      case 'b': {
        auto v = parse_size(val);
        if (!v)
          return error("-b: " + v.error().message);
        o.bufsize = *v;
        break;
      }
      case 'x': {
        std::string name = val, arg;
        if (size_t eq = val.find('='); eq != std::string::npos)
          name = val.substr(0, eq), arg = val.substr(eq + 1);
        // A value the option does not take, in DTrace's words.
        const std::string bad_value =
            "failed to set -x " + name + ": Invalid value for specified option";
        auto known = set_option(o.xopts, name, arg);
        if (!known)
          return error(bad_value);
        // The options that are on or off: -x quiet, -x quiet=no.
        static const char *const flags[] = {"quiet", "rawbytes", "errtags",
                                            "argref", "defaultargs",
                                            "destructive", "cpp", "empty"};
        bool on = true;
        if (!*known && std::find_if(std::begin(flags), std::end(flags),
                                    [&](const char *f) { return name == f; }) !=
                           std::end(flags)) {
          auto b = bool_option(arg);
          if (!b)
            return error(bad_value);
          on = *b;
        }
        if (*known) {
          o.has_xopts = true;
        } else if (name == "quiet") {
          o.quiet = on;
        } else if (name == "rawbytes") {
          o.xopts.rawbytes = on;
          o.has_xopts = true;
        } else if (name == "errtags") {
          o.errtags = on;
        } else if (name == "empty") {
          o.empty = on;
        } else if (name == "argref") {
          o.macros.argref = on;
        } else if (name == "defaultargs") {
          o.macros.defaults = on;
        } else if (name == "destructive") {
          o.destructive = on;
        } else if (name == "cpp") {
          o.cpp = on;
        } else if (name == "stdc") {
          // The C dialect cpp is asked for: K&R (s) has no __STDC__.
          if (arg != "a" && arg != "c" && arg != "s" && arg != "t")
            return error(bad_value);
          if (arg == "s")
            o.cpp_args.push_back("-traditional-cpp");
        } else if (name == "define" || name == "undef" ||
                   name == "incdir") {
          o.cpp_args.push_back(
              (name == "define" ? "-D" : name == "undef" ? "-U" : "-I") + arg);
        } else if (name == "bufsize" || name == "aggsize") {
          auto v = parse_size(arg);
          if (!v)
            return error(bad_value);
          (name == "bufsize" ? o.bufsize : o.aggsize) = *v;
        } else if (name == "strsize") {
          auto v = parse_strsize(arg);
          if (!v)
            return error(bad_value);
          o.strsize = *v;
        } else if (name == "version") {
          // The D version a script is written for: DTrace's own, 1.0 to
          // 2.0, all of which this compiler takes as they are.
          unsigned maj = 0, min = 0, mic = 0;
          char end = 0;
          const int n = std::sscanf(arg.c_str(), "%u.%u.%u%c", &maj, &min,
                                    &mic, &end);
          if (n < 2 || n > 3)
            return error(bad_value);
          if (maj < 1 || maj > 2 || (maj == 2 && (min > 0 || mic > 0)))
            return error("failed to set -x version: Requested version is "
                         "not supported by compiler");
        } else if (name == "engine") {
          if (arg == "bpf")
            o.engine = DEngine::Bpf;
          else if (arg == "bpf-interp")
            o.engine = DEngine::BpfInterp;
          else if (arg == "interp")
            o.engine = DEngine::Interp;
          else
            return error("-x engine: '" + arg + "' is not an engine (bpf, "
                         "bpf-interp, interp)");
        } else {
          return error("-x " + name + ": unsupported option (quiet, bufsize, "
                       "aggsize, strsize, engine, aggsortkey, aggsortrev, "
                       "aggsortpos, aggsortkeypos, nspec, specsize, "
                       "maxframes, scratchsize, printsize, rawbytes, "
                       "switchrate, aggrate, statusrate, cleanrate, "
                       "dynvarsize, defaultargs, argref, destructive, "
                       "errtags, empty, cpp, define, undef, incdir, stdc, "
                       "version)");
        }
        break;
      }
      case 'o':
      case 'k': {
        auto id = parse_id(val);
        if (!id)
          return error(strf("-%c: %s", c, id.error().message.c_str()));
        (c == 'o' ? o.read_id : o.kill_id) = *id;
        break;
      }
      default:
        o.specs.push_back(Spec{c, val});
      }
      break; // the rest of the word was the option's value
    }
  }
  return o;
}

// The probe description a -P/-m/-f/-i option stands for.
Result<std::string> spec_desc(Kernel &k, const Spec &s) {
  auto fields = [](const std::string &v) {
    return (size_t)std::count(v.begin(), v.end(), ':');
  };
  switch (s.kind) {
  case 'P':
    if (fields(s.arg))
      return error("invalid probe description \"" + s.arg + "\": -P takes a "
                   "provider name");
    return s.arg + ":::";
  case 'm':
    if (fields(s.arg) > 1)
      return error("invalid probe description \"" + s.arg + "\": -m takes "
                   "[provider:]module");
    return (fields(s.arg) ? "" : ":") + s.arg + "::";
  case 'f':
    if (fields(s.arg) > 2)
      return error("invalid probe description \"" + s.arg + "\": -f takes "
                   "[[provider:]module:]function");
    return std::string(fields(s.arg) == 0 ? "::" : fields(s.arg) == 1 ? ":" : "") +
           s.arg + ":";
  case 'i': {
    char *end = nullptr;
    unsigned long v = std::strtoul(s.arg.c_str(), &end, 10);
    auto p = s.arg.empty() || *end ? std::nullopt : k.probes().probe((u32)v);
    if (!p)
      return error("invalid probe identifier " + s.arg);
    return p->full();
  }
  }
  return s.arg;
}

// All clauses of all -n/-s/-P/-m/-f/-i options, with how to name each
// option in "matched N probes".
struct Source {
  std::string what, name; // "description", "BEGIN " / "script", "x.d"
  size_t first, count;    // its clauses
};

// The set_option( ) options `from` set, over `to`.
void merge_options(Pragmas &to, const Pragmas &from) {
  const Pragmas none;
  to.rawbytes |= from.rawbytes;
  to.aggsortkey |= from.aggsortkey;
  to.aggsortrev |= from.aggsortrev;
  if (from.aggsortpos != none.aggsortpos)
    to.aggsortpos = from.aggsortpos;
  if (from.aggsortkeypos != none.aggsortkeypos)
    to.aggsortkeypos = from.aggsortkeypos;
  if (from.nspec != none.nspec)
    to.nspec = from.nspec;
  if (from.specsize)
    to.specsize = from.specsize;
  if (from.scratchsize)
    to.scratchsize = from.scratchsize;
  if (from.printsize)
    to.printsize = from.printsize;
  if (from.maxframes)
    to.maxframes = from.maxframes;
  if (from.dynvarsize)
    to.dynvarsize = from.dynvarsize;
}

// -C: the script through the C preprocessor (cpp, as DTrace runs it),
// with -D/-U/-I.  Its line markers keep messages on the script's lines;
// its own errors go to stderr as DTrace shows them: the script is cpp's
// standard input, named /dev/stdin, its messages with a line and no
// column or source excerpt, then "Preprocessor failed to process input
// program".  `text`: a -n program, fed from a memory
// file.
Result<std::string> preprocess(const std::string &path,
                               const std::vector<std::string> &defs,
                               const std::string *text = nullptr) {
  std::vector<std::string> argv{"cpp", "-E", "-D__SUNW_D=1", "-D__SUNW_D_64=1",
                                "-fno-show-column",
                                "-fno-diagnostics-show-caret"};
  argv.insert(argv.end(), defs.begin(), defs.end());
  // #include "x.h" finds what sits next to the script, as it would if cpp
  // had opened it by name.
  if (!text) {
    const size_t slash = path.rfind('/');
    argv.push_back("-iquote");
    argv.push_back(slash == std::string::npos ? "." : path.substr(0, slash + 1));
  }
  argv.push_back("/dev/stdin");
  int in = -1;
  if (!text) {
    in = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (in < 0)
      return error("failed to preprocess " + path + ": " + std::strerror(errno));
  } else {
    in = memfd_create("dtrace-n", MFD_CLOEXEC);
    if (in < 0 || ::write(in, text->data(), text->size()) != (ssize_t)text->size() ||
        lseek(in, 0, SEEK_SET) != 0) {
      if (in >= 0)
        close(in);
      return error(std::string("cpp: the program's text: ") + std::strerror(errno));
    }
  }
  struct CloseIn {
    int fd;
    ~CloseIn() {
      if (fd >= 0)
        close(fd);
    }
  } close_in{in};
  int fds[2];
  if (pipe(fds) != 0)
    return error(std::string("cpp: pipe: ") + std::strerror(errno));
  std::vector<char *> cargv;
  for (std::string &a : argv)
    cargv.push_back(a.data());
  cargv.push_back(nullptr);
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = fork();
  if (pid < 0)
    return error(std::string("cpp: fork: ") + std::strerror(errno));
  if (pid == 0) {
    if (in >= 0)
      dup2(in, 0);
    dup2(fds[1], 1);
    close(fds[0]);
    close(fds[1]);
    execvp("cpp", cargv.data());
    _exit(127);
  }
  close(fds[1]);
  std::string out;
  char buf[4096];
  for (ssize_t r; (r = ::read(fds[0], buf, sizeof buf)) != 0;) {
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0)
      break;
    out.append(buf, (size_t)r);
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
    return error("failed to preprocess " +
                 (text ? std::string("the -n program") : path) +
                 ": cpp could not be run");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return error(text ? std::string("failed to compile the -n program: "
                                    "Preprocessor failed to process input "
                                    "program")
                      : "failed to compile script " + path +
                            ": Preprocessor failed to process input program");
  return out;
}

// The kernel's variables as D names them (`name, vmlinux`name): those
// kernel/ktype.h records.  A loaded module's own variables have no
// types, so none resolves.
Result<KernelVar> kernel_var(Kernel &k, const std::string &scoped) {
  const size_t q = scoped.find('`');
  const std::string mod = scoped.substr(0, q), name = scoped.substr(q + 1);
  if (!mod.empty() && mod != "vmlinux") {
    for (const LinkerFile *f : k.linker().files())
      if (f->module_name() == mod)
        return error("Unknown symbol name");
    return error("Unknown module name");
  }
  const kernel_dtype *const *t;
  SET_FOREACH(t, kernel_dtype_set) {
    if (name == (*t)->kt_name)
      return KernelVar{(u64)(uintptr_t)(*t)->kt_addr, (*t)->kt_type};
  }
  return error("Unknown symbol name");
}

// printf's %a: a kernel variable D can name by the name it gives it
// (vmlinux`max_pfn), else the function around the address as stack( )
// names it (kernel`fn+0x1a), else its hex.
std::string kernel_symbol_at(Kernel &k, u64 addr) {
  const kernel_dtype *const *t;
  SET_FOREACH(t, kernel_dtype_set) {
    const std::string name = (*t)->kt_name;
    auto v = kernel_var(k, "`" + name);
    if (v && v->addr == addr)
      return "vmlinux`" + name;
  }
  return k.probes().code().symbolize(addr);
}

Result<ProgramAst> gather(Kernel &k, const Options &o, std::vector<Source> &src) {
  const KernelVars kvars = [&k](const std::string &n) { return kernel_var(k, n); };
  ProgramAst all;
  u64 macros_used = 0;        // $N named by any program of the command
  DOrigin last;               // the last program parsed, for that error
  bool parsed = false;
  for (const Spec &s : o.specs) {
    ProgramAst p;
    Source so;
    if (s.kind == 'n') {
      MacroArgs macros = o.macros;
      macros.args.insert(macros.args.begin(), "dtrace");
      std::string text = s.arg;
      if (o.cpp) {
        auto t = preprocess("", o.cpp_args, &s.arg);
        if (!t)
          return t.take_error();
        text = std::move(*t);
      }
      auto r = parse(text, "", macros, o.errtags, false, &kvars);
      if (!r)
        return r.take_error();
      p = std::move(*r);
      so.what = "description";
      so.name = s.arg.substr(0, s.arg.find_first_of("{/;"));
    } else if (s.kind == 's') {
      std::ifstream f(s.arg);
      if (!f)
        return error("failed to open " + s.arg + ": " + std::strerror(errno));
      std::stringstream ss;
      ss << f.rdbuf();
      std::string text = ss.str();
      if (o.cpp) {
        auto t = preprocess(s.arg, o.cpp_args);
        if (!t)
          return t.take_error();
        text = std::move(*t);
      }
      MacroArgs macros = o.macros;
      if (macros.args.empty())
        macros.args.push_back(s.arg);
      else
        macros.args.insert(macros.args.begin(), s.arg);
      auto r = parse(text, s.arg, macros, o.errtags, o.empty, &kvars);
      if (!r)
        return r.take_error();
      p = std::move(*r);
      so.what = "script";
      so.name = s.arg;
    } else {
      auto d = spec_desc(k, s);
      if (!d)
        return d.take_error();
      ClauseAst c;
      c.descs.push_back(*d);
      c.origin = std::make_shared<DOrigin>(DOrigin{"", s.arg, o.errtags});
      p.clauses.push_back(std::move(c));
      so.what = "description";
      so.name = s.arg;
    }
    so.first = all.clauses.size();
    so.count = p.clauses.size();
    for (auto &c : p.clauses)
      all.clauses.push_back(std::move(c));
    for (auto &d : p.decls)
      all.decls.push_back(std::move(d));
    for (auto &t : p.types)
      all.types.push_back(std::move(t));
    for (auto &t : p.translators)
      all.translators.push_back(std::move(t));
    all.pragmas.quiet |= p.pragmas.quiet;
    all.pragmas.rawbytes |= p.pragmas.rawbytes;
    all.pragmas.destructive |= p.pragmas.destructive;
    if (p.pragmas.bufsize)
      all.pragmas.bufsize = p.pragmas.bufsize;
    if (p.pragmas.aggsize)
      all.pragmas.aggsize = p.pragmas.aggsize;
    merge_options(all.pragmas, p.pragmas);
    if (p.pragmas.strsize)
      all.pragmas.strsize = p.pragmas.strsize;
    src.push_back(so);
    if (s.kind == 'n' || s.kind == 's') {
      macros_used |= p.macros_used;
      last = s.kind == 's' ? DOrigin{s.arg, "", o.errtags}
                           : DOrigin{"", s.arg, o.errtags};
      parsed = true;
    }
  }
  // An argument no program names is a mistake on the command line, as
  // DTrace takes it (-x argref allows one).
  for (size_t n = 1; parsed && !o.macros.argref && n <= o.macros.args.size(); n++)
    if (n >= 64 || !(macros_used >> n & 1))
      return d_error(last, 0, DTag::D_MACRO_UNUSED,
                     strf("extraneous argument '%s' ($%zu is not referenced)",
                          one_line(o.macros.args[n - 1]).c_str(), n));
  if (o.has_xopts) // -x wins over a script's #pragma
    merge_options(all.pragmas, o.xopts);
  all.pragmas.destructive |= o.destructive;
  return all;
}

// The probes each clause matched; a description matching none is an error
// unless -Z.
Result<std::vector<std::vector<ProbeInfo>>>
match_all(Kernel &k, const ProgramAst &prog, bool zdefs) {
  std::vector<std::vector<ProbeInfo>> out;
  for (const ClauseAst &c : prog.clauses) {
    std::set<u32> seen;
    std::vector<ProbeInfo> v;
    for (const std::string &d : c.descs) {
      auto m = k.probes().match(ProbeDesc::parse(d));
      if (m.empty() && !zdefs) {
        const ProbeDesc pd = ProbeDesc::parse(d);
        const std::string full = pd.provider + ":" + pd.module + ":" +
                                 pd.function + ":" + pd.name;
        const std::string why = "probe description " + full +
                                " does not match any probes";
        if (!c.origin)
          return error(why);
        return d_error(*c.origin, c.line, DTag::D_PDESC_ZERO, why);
      }
      for (ProbeInfo &p : m)
        if (seen.insert(p.id).second)
          v.push_back(std::move(p));
    }
    std::sort(v.begin(), v.end(),
              [](const ProbeInfo &a, const ProbeInfo &b) { return a.id < b.id; });
    out.push_back(std::move(v));
  }
  return out;
}

// ---- programs, listing and sites ---

// -S with clauses: each clause's linked BPF program, every instruction with
// the function it came from, before tracing starts (DTrace's -S prints its
// intermediate code the same way).
void print_programs(const Consumer &c) {
  std::string out;
  const Program &p = c.program();
  for (u32 i = 0; i < p.clauses.size(); i++) {
    const BpfClause *b = c.bpf_clause(i);
    if (!b) {
      out += strf("dtrace: clause %u (%s): run by the %s engine, no BPF program\n",
                  i + 1, p.clauses[i].descs.c_str(), engine_name(c.engine()));
      continue;
    }
    std::string fns;
    for (const auto &[at, fn] : b->linked.functions)
      if (!fn.empty())
        fns += (fns.empty() ? "" : ", ") + fn;
    out += strf("dtrace: clause %u (%s): %zu instructions, %s%s; %s\n", i + 1,
                p.clauses[i].descs.c_str(), b->linked.code.size(),
                fns.empty() ? "no library functions" : "linked with ",
                fns.c_str(),
                b->prog->jitted()
                    ? strf("JIT, %zu bytes of x86_64", b->prog->code_size()).c_str()
                    : "interpreted");
    out += bpf_listing(*b);
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
}

// ---- listing and sites ------------------------------------------------------------------

void list_line(std::string &out, const ProbeInfo &p) {
  out += strf("%5u %10s %17s %33s %s\n", p.id, p.provider.c_str(),
              p.module.c_str(), p.function.c_str(), p.name.c_str());
}

void list_types(std::string &out, const ProbeInfo &p) {
  out += "\n\tArgument Types\n";
  for (size_t i = 0; i < p.argtypes.size(); i++)
    out += strf("\t\targs[%zu]: %s\n", i, p.argtypes[i].c_str());
  if (p.argtypes.empty())
    out += "\t\tNone\n";
  out += "\n";
}

// -v: how the probe is reached (its sites by kind: the site style shows)
// and who is attached to it (module handlers and DTrace enablings, in the
// order they run).
void list_attached(std::string &out, const ProbeInfo &p, Kernel &k) {
  std::map<std::string, int> kinds;
  for (const SiteInfo &s : k.probes().sites(p.id))
    kinds[s.stub ? s.kind + " (stub)" : s.kind]++;
  if (!kinds.empty()) {
    out += "\tSites\n";
    for (const auto &[kind, n] : kinds)
      out += strf("\t\t%s: %d\n", kind.c_str(), n);
    out += "\n";
  }
  const std::vector<HandlerInfo> hs = k.probes().handlers(p.id);
  if (hs.empty())
    return;
  out += "\tHandlers\n";
  for (const HandlerInfo &h : hs) {
    if (h.dtrace)
      out += strf("\t\tdtrace enabling %d, priority %d\n", h.enabling, h.prio);
    else
      out += strf("\t\t%s`%s, priority %d\n", h.module.c_str(),
                  h.function.c_str(), h.prio);
  }
  out += "\n";
}

void list_sites(std::string &out, const ProbeInfo &p, Kernel &k) {
  const std::vector<SiteInfo> sites = k.probes().sites(p.id);
  if (sites.empty()) {
    out += "        (no sites: fired by the consumer)\n";
    return;
  }
  csh cs;
#if defined(__x86_64__)
  cs_mode mode = CS_MODE_64;
#else
  cs_mode mode = CS_MODE_32;
#endif
  bool have_cs = cs_open(CS_ARCH_X86, mode, &cs) == CS_ERR_OK;
  if (have_cs)
    cs_option(cs, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
  for (const SiteInfo &si : sites) {
    const SiteInfo *s = &si;
    u8 bytes[8] = {};
    std::memcpy(bytes, (const void *)(uintptr_t)s->addr, s->len);
    u64 func = s->func_addr;
    if (!func && !s->stub)
      if (const auto f = k.probes().code().function_at(s->addr))
        func = f->addr;
    // A probe stub serves code that calls the probe through a register,
    // as -mcmodel=large does.
    std::string where =
        s->stub ? "stub for " + s->function
        : func  ? strf("%s+0x%llx", s->function.c_str(),
                       (unsigned long long)(s->addr - func))
                : s->function;
    const char *state = !s->enabled        ? "disabled"
                        : bytes[0] == 0xcc ? "enabled (breakpoint)"
                                           : "enabled";
    out += strf("        0x%0*llx %s: %s site, %u bytes, %s\n",
                (int)sizeof(void *) * 2, (unsigned long long)s->addr,
                where.c_str(), s->kind.c_str(), s->len, state);
    cs_insn *insn = nullptr;
    size_t n = have_cs ? cs_disasm(cs, bytes, s->len, s->addr, 0, &insn) : 0;
    size_t done = 0;
    for (size_t i = 0; i < n; i++) {
      std::string hex;
      for (u16 b = 0; b < insn[i].size; b++)
        hex += strf("%02x ", insn[i].bytes[b]);
      out += strf("            %0*llx:  %-21s %s%s%s\n", (int)sizeof(void *) * 2,
                  (unsigned long long)insn[i].address, hex.c_str(),
                  insn[i].mnemonic, insn[i].op_str[0] ? " " : "",
                  insn[i].op_str);
      done += insn[i].size;
    }
    if (n)
      cs_free(insn, n);
    if (done < s->len) {
      std::string hex;
      for (u8 b = (u8)done; b < s->len; b++)
        hex += strf("%02x ", bytes[b]);
      out += strf("            %0*llx:  %-21s (not decoded)\n",
                  (int)sizeof(void *) * 2,
                  (unsigned long long)(s->addr + done), hex.c_str());
    }
  }
  if (have_cs)
    cs_close(&cs);
}

// ---- enablings -------------------------------------------------------------------------

// One enabling: its consumer and, in the background, its output buffer.
struct Job {
  int id = 0; // the Sdt enabling
  std::string descs;
  std::unique_ptr<BufferSink> buffer;
  std::unique_ptr<Consumer> consumer;
  Mutex mu; // drain/stop/read: the drainer thread and the shell
  bool stopped GUARDED_BY(mu) = false;
  bool exited GUARDED_BY(mu) = false; // stopped by exit( )
};

volatile sig_atomic_t g_interrupted = 0;
extern "C" void on_sigint(int) { g_interrupted = 1; }

// SIGINT stops the foreground enabling while it runs (and only then).
class InterruptScope {
public:
  InterruptScope() {
    g_interrupted = 0;
    struct sigaction sa {};
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; // no SA_RESTART: sleeps end early
    sigaction(SIGINT, &sa, &old_);
  }
  ~InterruptScope() {
    sigaction(SIGINT, &old_, nullptr);
    g_interrupted = 0;
  }

private:
  struct sigaction old_ {};
};

class Dtrace {
public:
  explicit Dtrace(Kernel &k) : k_(k) {}
  ~Dtrace();
  // Stop every background enabling (at kernel shutdown, before modules go).
  void shutdown();
  int command(Args &a);

private:
  int fail(const std::string &msg) {
    k_.error_line("dtrace: " + msg);
    return 1;
  }
  int list(const Options &o);
  int enable(const Options &o);
  int jobs();
  int read(int id);
  int kill(int id);
  // Stop a job: no more recording, sites restored, END, final output.
  void finish(Job &j) REQUIRES(j.mu);
  void drainer() EXCLUDES(mu_);
  std::shared_ptr<Job> find(int id) EXCLUDES(mu_);

  Kernel &k_;
  Mutex mu_;
  std::vector<std::shared_ptr<Job>> jobs_ GUARDED_BY(mu_);
  std::thread drainer_;
  std::condition_variable_any cv_;
  bool quit_ GUARDED_BY(mu_) = false;
};

Dtrace::~Dtrace() { shutdown(); }

void Dtrace::shutdown() {
  {
    MutexLock g(mu_);
    if (quit_)
      return;
    quit_ = true;
  }
  cv_.notify_all();
  if (drainer_.joinable())
    drainer_.join();
  std::vector<std::shared_ptr<Job>> jobs;
  {
    MutexLock g(mu_);
    jobs = jobs_;
  }
  for (auto &j : jobs) {
    MutexLock g(j->mu);
    if (!j->stopped) {
      j->consumer->stop();
      if (k_.has_probes())
        k_.probes().disable(j->id);
      j->stopped = true;
      k_.log("dtrace: enabling %d stopped at shutdown\n", j->id);
    }
  }
}

std::shared_ptr<Job> Dtrace::find(int id) {
  MutexLock g(mu_);
  for (auto &j : jobs_)
    if (j->id == id)
      return j;
  return nullptr;
}

int Dtrace::list(const Options &o) {
  std::vector<Source> src;
  auto prog = gather(k_, o, src);
  if (!prog)
    return fail(prog.error().message);
  std::vector<std::string> descs;
  for (const ClauseAst &c : prog->clauses)
    descs.insert(descs.end(), c.descs.begin(), c.descs.end());
  std::string out = strf("%5s %10s %17s %33s %s\n", "ID", "PROVIDER", "MODULE",
                         "FUNCTION", "NAME");
  std::vector<std::string> errors;
  std::set<u32> shown;
  auto show = [&](const ProbeInfo &p) {
    if (!shown.insert(p.id).second)
      return;
    list_line(out, p);
    if (o.verbose) {
      list_types(out, p);
      list_attached(out, p, k_);
    }
    if (o.sites)
      list_sites(out, p, k_);
  };
  if (descs.empty()) {
    for (const ProbeInfo &p : k_.probes().probes())
      show(p);
  }
  for (const std::string &d : descs) {
    auto m = k_.probes().match(ProbeDesc::parse(d));
    if (m.empty())
      errors.push_back("dtrace: description '" + d + "' matched 0 probes");
    for (const ProbeInfo &p : m)
      show(p);
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  for (const std::string &e : errors)
    k_.error_line(e);
  return errors.empty() ? 0 : 1;
}

void Dtrace::finish(Job &j) {
  // Called with j.mu held.
  if (j.stopped)
    return;
  j.consumer->drain();
  j.consumer->stop();
  k_.probes().disable(j.id); // on return no firing of it runs
  j.consumer->end();
  j.consumer->drain();
  j.consumer->print_end();
  j.stopped = true;
  j.exited = j.consumer->exited();
}

int Dtrace::enable(const Options &o) {
  std::vector<Source> src;
  auto ast = gather(k_, o, src);
  if (!ast)
    return fail(ast.error().message);
  if (ast->clauses.empty()) {
    // -x empty lets a script hold nothing: it compiles, and then, as in
    // DTrace, matches nothing.
    if (!o.empty)
      return fail("no probes specified");
    if (!o.quiet)
      for (const Source &s : src)
        notice(strf("dtrace: %s '%s' matched 0 probes", s.what.c_str(),
                    s.name.c_str()));
    return fail("no probes matched");
  }
  // A script's #pragma D option strsize= is read after -x, as DTrace
  // reads it, so it wins.
  if (!ast->pragmas.strsize)
    ast->pragmas.strsize = o.strsize;
  auto matched = match_all(k_, *ast, o.zdefs);
  if (!matched)
    return fail(matched.error().message);
  auto prog = compile(*ast, *matched);
  if (!prog)
    return fail(prog.error().message);
  if (o.compile_only)
    return 0;
  std::vector<EcbInfo> ecbs;
  for (size_t c = 0; c < matched->size(); c++)
    for (const ProbeInfo &p : (*matched)[c]) {
      EcbInfo e;
      e.epid = (u32)ecbs.size() + 1;
      e.clause = (u32)c;
      e.probe = p;
      e.full = p.provider + ":" + p.module + ":" + p.function + ":" + p.name;
      ecbs.push_back(std::move(e));
    }
  std::string descs;
  for (const CompiledClause &c : (*prog)->clauses)
    descs += (descs.empty() ? "" : ", ") + c.descs;
  bool quiet = o.quiet || (*prog)->pragmas.quiet;

  const u32 begin_id = k_.probes().dtrace_begin_id();
  ConsumerOptions co;
  co.quiet = o.quiet;
  if (o.bufsize)
    co.bufsize = o.bufsize;
  if (o.aggsize)
    co.aggsize = o.aggsize;
  co.threads = k_.cpus().count() + 8;
  co.code = &k_.probes().code();
  co.symbol = [&k = k_](u64 addr) { return kernel_symbol_at(k, addr); };
  co.flowindent = o.flow;
  co.engine = o.engine;
  co.retire = [&reg = k_.probes()](std::shared_ptr<const void> old) {
    reg.retire(std::move(old));
  };

  auto job = std::make_shared<Job>();
  job->descs = descs;
  StdSink std_sink;
  Sink *sink = &std_sink;
  if (o.background) {
    job->buffer = std::make_unique<BufferSink>();
    sink = job->buffer.get();
  }
  // What matched, then whether it may be enabled, as DTrace says them.
  if (!quiet) {
    for (const Source &s : src) {
      size_t n = 0;
      for (size_t i = s.first; i < s.first + s.count; i++)
        n += (*matched)[i].size();
      notice(strf("dtrace: %s '%s' matched %zu probe%s", s.what.c_str(),
                  s.name.c_str(), n, n == 1 ? "" : "s"));
    }
    if ((*prog)->pragmas.destructive)
      notice("dtrace: allowing destructive actions");
  }
  job->consumer = std::make_unique<Consumer>(
      std::move(*prog), std::move(ecbs), co, *sink, begin_id, begin_id + 1,
      begin_id + 2);
  Consumer &c = *job->consumer;
  if (auto r = c.init(); !r)
    return fail(r.error().message);
  if (o.sites)
    print_programs(c);

  // Every enabling is retained, as DTrace's are: probes of modules loaded
  // while it runs join the clauses whose descriptions match them (-Z only
  // lets a description match nothing at first).
  std::vector<std::vector<ProbeDesc>> clause_descs;
  std::vector<ProbeDesc> retain;
  for (const ClauseAst &cl : ast->clauses) {
    clause_descs.emplace_back();
    for (const std::string &d : cl.descs) {
      clause_descs.back().push_back(ProbeDesc::parse(d));
      retain.push_back(clause_descs.back().back());
    }
  }
  // The probes fire from the moment they are enabled; their clauses wait
  // for BEGIN's.
  c.warmup();
  if (consumer_fire_keeps_vector)
    k_.probes().mark_keeps_vector(consumer_fire);
  auto en = k_.probes().enable(
      c.sdt_probes(), consumer_fire, &c, PatchMode::Call, std::move(retain),
      [&c, clause_descs](const ProbeInfo &p) {
        return c.add_probe(p, clause_descs);
      });
  if (!en)
    return fail("could not enable tracing: " + en.error().message);
  job->id = *en;

  if (o.background) {
    {
      MutexLock g(job->mu);
      c.begin();
      c.drain();
    }
    {
      MutexLock g(mu_);
      jobs_.push_back(job);
      if (!drainer_.joinable())
        drainer_ = start_running([this] { drainer(); });
    }
    k_.printf("dtrace: enabling %d started in the background\n", job->id);
    return 0;
  }

  // The foreground: until exit( ), Ctrl-C, or the end of the -c command.
  InterruptScope intr;
  c.begin();
  c.drain();
  if (o.has_cmd) {
    // The command runs on this (the shell's) thread; records are drained
    // and printed while it runs, as DTrace does for its -c process.
    if (!c.exited()) {
      // `done` tells the helper the command is over.
      Mutex mu;
      std::condition_variable_any cv;
      bool done = false;
      std::thread drain = start_running([&] {
        MutexLock g(mu);
        while (!done) {
          cv.wait_for(mu, std::chrono::milliseconds(50));
          if (!done)
            c.drain();
        }
      });
      k_.shell().run_line(o.cmd);
      {
        MutexLock g(mu);
        done = true;
      }
      cv.notify_all();
      drain.join();
    }
  } else {
    while (!c.exited() && !g_interrupted) {
      struct timespec ts {0, 50 * 1000 * 1000};
      nanosleep(&ts, nullptr);
      c.drain();
    }
    if (g_interrupted)
      sink->out("\n"); // ends the "^C" line, as DTrace does
  }
  MutexLock g(job->mu);
  finish(*job);
  return c.exited() ? c.exit_status() : 0;
}

void Dtrace::drainer() {
  for (;;) {
    std::vector<std::shared_ptr<Job>> jobs;
    {
      MutexLock g(mu_);
      if (!quit_)
        cv_.wait_for(mu_, std::chrono::milliseconds(50));
      if (quit_)
        return;
      jobs = jobs_;
    }
    for (auto &j : jobs) {
      MutexLock g(j->mu);
      if (j->stopped)
        continue;
      j->consumer->drain();
      if (j->consumer->exited())
        finish(*j);
    }
  }
}

int Dtrace::jobs() {
  std::vector<std::shared_ptr<Job>> jobs;
  {
    MutexLock g(mu_);
    jobs = jobs_;
  }
  if (jobs.empty())
    return 0;
  std::string out = strf("%5s %-8s %10s %8s %s\n", "ID", "STATE", "RECORDS",
                         "DROPS", "DESCRIPTION");
  for (auto &j : jobs) {
    MutexLock g(j->mu);
    out += strf("%5d %-8s %10llu %8llu %s\n", j->id,
                j->stopped ? "exited" : "running",
                (unsigned long long)j->consumer->records(),
                (unsigned long long)j->consumer->drops(), j->descs.c_str());
  }
  k_.console().write(out);
  return 0;
}

int Dtrace::read(int id) {
  auto j = find(id);
  if (!j)
    return fail(strf("no background enabling %d (dtrace -j lists them)", id));
  std::string s;
  {
    MutexLock g(j->mu);
    if (!j->stopped)
      j->consumer->drain();
    s = j->buffer->take();
  }
  std::fwrite(s.data(), 1, s.size(), stdout);
  std::fflush(stdout);
  return 0;
}

int Dtrace::kill(int id) {
  auto j = find(id);
  if (!j)
    return fail(strf("no background enabling %d (dtrace -j lists them)", id));
  std::string s;
  bool exited;
  {
    MutexLock g(j->mu);
    finish(*j);
    s = j->buffer->take();
    exited = j->exited;
  }
  {
    MutexLock g(mu_);
    jobs_.erase(std::remove(jobs_.begin(), jobs_.end(), j), jobs_.end());
  }
  std::fwrite(s.data(), 1, s.size(), stdout);
  std::fflush(stdout);
  return exited ? j->consumer->exit_status() : 0;
}

int Dtrace::command(Args &a) {
  auto o = parse_options(a);
  if (!o)
    return fail(o.error().message);
  int modes = o->jobs + (o->read_id > 0) + (o->kill_id > 0);
  if (modes > 1 || (modes && (!o->specs.empty() || o->list || o->sites ||
                              o->background || o->has_cmd)))
    return fail("-j, -o and -k stand alone");
  if (o->jobs)
    return jobs();
  if (o->read_id)
    return read(o->read_id);
  if (o->kill_id)
    return kill(o->kill_id);
  // -S with clauses (a script, or -n text with a predicate or a body)
  // prints their programs and runs them; with bare descriptions it lists
  // the probes' sites.
  bool program = false;
  for (const Spec &s : o->specs)
    program |= s.kind == 's' ||
               (s.kind == 'n' && s.arg.find_first_of("{/") != std::string::npos);
  if (o->list || (o->sites && !program)) {
    if (o->background || o->has_cmd)
      return fail("-l and -S list probes; -c and & are for enabling them");
    return list(*o);
  }
  if (o->specs.empty())
    return fail(kUsage);
  if (o->background && o->has_cmd)
    return fail("-c runs in the foreground; drop the '&' or the -c");
  return enable(*o);
}

bool init_dtrace(Kernel &k) {
  // The command's state lives as long as the command (so, the shell): its
  // destructor stops background enablings before the probes go away.
  auto d = std::make_shared<Dtrace>(k);
  k.on_shutdown([d] { d->shutdown(); });
  k.shell().add(Shell::Command{
      "dtrace",
      kUsage + 7, // without "usage: "
      "list probes, enable them with D actions, read what they report",
      [d](Kernel &, Args &a) { return d->command(a); }, nullptr,
      // The consumer's own code is no kernel work to profile, and a sample
      // must not fire into the buffers it is draining on this thread.
      Sampling::Off});
  return true;
}
SYSINIT(dtrace, SI_SUB_SHELL, 10, init_dtrace);

} // namespace

} // namespace mk::dt
