// The shell: splits lines into commands and words (sh-like quoting), runs
// built-in and module-registered commands, and reads lines from -c, a script,
// a pipe, or interactively with readline (editing, history, completion).
#include "kernel.h"

#include "../sdt/registry.h"
#include "kern_modcall.h"
#include "kern_panic.h"

#include <sys/sdt.h>
#include <sys/shell.h>

SDT_PROBE_DEFINE2(kernel, kern, shell, command__start, "char *", "int");
SDT_PROBE_DEFINE2(kernel, kern, shell, command__done, "char *", "int");

#include <cstdio>
#include <cstring>
#include <readline/history.h>
#include <readline/readline.h>
#include <unistd.h>

namespace mk {

namespace {

thread_local const char *t_command = nullptr; // the command running here

// Split a line into commands at ';' outside quotes.
std::vector<std::string> split_commands(const std::string &line) {
  std::vector<std::string> out;
  std::string cur;
  char quote = 0;
  for (size_t i = 0; i < line.size(); i++) {
    char c = line[i];
    if (quote) {
      if (c == '\\' && quote == '"' && i + 1 < line.size()) {
        cur += c;
        cur += line[++i];
        continue;
      }
      if (c == quote)
        quote = 0;
      cur += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      cur += c;
    } else if (c == '\\' && i + 1 < line.size()) {
      cur += c;
      cur += line[++i];
    } else if (c == ';') {
      out.push_back(cur);
      cur.clear();
    } else if (c == '#' && (cur.empty() || isspace((unsigned char)cur.back()))) {
      break; // a comment runs to the end of the line
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

// Split a command into words: '...' literal, "..." with \" and \\ escapes,
// a backslash outside quotes escapes the next character.
Result<std::vector<std::string>> split_words(const std::string &cmd) {
  std::vector<std::string> words;
  std::string cur;
  bool in_word = false;
  for (size_t i = 0; i < cmd.size(); i++) {
    char c = cmd[i];
    if (isspace((unsigned char)c)) {
      if (in_word)
        words.push_back(cur), cur.clear(), in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\'') {
      size_t end = cmd.find('\'', i + 1);
      if (end == std::string::npos)
        return error("unterminated single quote");
      cur += cmd.substr(i + 1, end - i - 1);
      i = end;
    } else if (c == '"') {
      size_t j = i + 1;
      for (; j < cmd.size() && cmd[j] != '"'; j++) {
        if (cmd[j] == '\\' && j + 1 < cmd.size() &&
            (cmd[j + 1] == '"' || cmd[j + 1] == '\\'))
          j++;
        cur += cmd[j];
      }
      if (j >= cmd.size())
        return error("unterminated double quote");
      i = j;
    } else if (c == '\\' && i + 1 < cmd.size()) {
      cur += cmd[++i];
    } else {
      cur += c;
    }
  }
  if (in_word)
    words.push_back(cur);
  return words;
}

char *complete_generator(const char *text, int state) {
  static std::vector<std::string> matches;
  static size_t idx;
  if (state == 0) {
    matches.clear();
    idx = 0;
    std::string t = text;
    std::string line(rl_line_buffer, rl_point);
    bool first = line.find_first_not_of(' ') == std::string::npos ||
                 line.find(' ', line.find_first_not_of(' ')) ==
                     std::string::npos;
    Kernel &k = *curkernel(); // readline runs on the shell's thread
    if (first) {
      for (const auto *c : k.shell().list())
        if (c->name.compare(0, t.size(), t) == 0)
          matches.push_back(c->name);
    } else {
      // Loaded modules (for kldunload, rmmod, kldstat, modinfo) and the
      // .ko files on the module path (for kldload, insmod).
      for (LinkerFile *f : k.linker().files()) {
        std::string n = f->name;
        if (n.size() > 3 && n.compare(n.size() - 3, 3, ".ko") == 0)
          n = n.substr(0, n.size() - 3);
        if (n != "kernel" && n.compare(0, t.size(), t) == 0)
          matches.push_back(n);
      }
      for (const auto &dir : k.opts().module_path) {
        for (int i = 0;; i++) {
          std::string pat = dir + "/";
          char *m = rl_filename_completion_function(pat.c_str(), i);
          if (!m)
            break;
          std::string n = m + pat.size();
          free(m);
          if (n.size() > 3 && n.compare(n.size() - 3, 3, ".ko") == 0) {
            n = n.substr(0, n.size() - 3);
            if (n.compare(0, t.size(), t) == 0 &&
                std::find(matches.begin(), matches.end(), n) == matches.end())
              matches.push_back(n);
          }
        }
      }
      for (const auto &n : k.sysctl().list(""))
        if (!t.empty() && n.name.compare(0, t.size(), t) == 0)
          matches.push_back(n.name);
      // Probe descriptions, for dtrace -n / -l.
      if (line.compare(line.find_first_not_of(' '), 7, "dtrace ") == 0 &&
          k.has_probes()) {
        std::string q = t;
        if (!q.empty() && (q[0] == '\'' || q[0] == '"'))
          q.erase(0, 1);
        // Full names, and provider:::name as people usually type them.
        for (const ProbeInfo &p : k.probes().probes())
          for (std::string cand : {p.full(), p.provider + ":::" + p.name})
            if (cand.compare(0, q.size(), q) == 0 &&
                std::find(matches.begin(), matches.end(),
                          t.substr(0, t.size() - q.size()) + cand) ==
                    matches.end())
              matches.push_back(t.substr(0, t.size() - q.size()) + cand);
      }
    }
  }
  if (idx < matches.size())
    return strdup(matches[idx++].c_str());
  return nullptr;
}

char **complete(const char *text, int start, int end) {
  (void)end;
  char **m = rl_completion_matches(text, complete_generator);
  if (!m && start > 0)
    return nullptr; // fall back to file names
  rl_attempted_completion_over = m != nullptr;
  return m;
}

} // namespace

void Shell::add(Command c) {
  std::string n = c.name;
  cmds_[n] = std::move(c);
}

Result<void> Shell::add_module_command(const shell_cmd *sc,
                                       const LinkerFile *owner) {
  if (!sc->sc_name || !*sc->sc_name || !sc->sc_func)
    return error("shell command with no name or function");
  if (cmds_.count(sc->sc_name))
    return error(strf("shell command %s already exists", sc->sc_name));
  Command c;
  c.name = sc->sc_name;
  c.usage = sc->sc_usage ? sc->sc_usage : sc->sc_name;
  c.descr = sc->sc_descr ? sc->sc_descr : "";
  c.owner = owner;
  shell_cmd_func_t *fn = sc->sc_func;
  c.fn = [fn](Kernel &, std::vector<std::string> &argv) {
    std::vector<char *> av;
    for (auto &a : argv)
      av.push_back(a.data());
    av.push_back(nullptr);
    return module_call(fn, (int)argv.size(), av.data());
  };
  add(std::move(c));
  return {};
}

void Shell::remove_owned_by(const LinkerFile *owner) {
  for (auto it = cmds_.begin(); it != cmds_.end();)
    it = it->second.owner == owner ? cmds_.erase(it) : std::next(it);
}

const Shell::Command *Shell::find(const std::string &name) const {
  auto it = cmds_.find(name);
  return it == cmds_.end() ? nullptr : &it->second;
}

std::vector<const Shell::Command *> Shell::list() const {
  std::vector<const Command *> v;
  for (auto &[n, c] : cmds_)
    v.push_back(&c);
  return v;
}

const char *current_execname() {
  if (t_command)
    return t_command;
  const char *t = panic_thread_name();
  return t && *t ? t : "kernel";
}

bool Shell::run_line(const std::string &line) {
  // The thread that reads lines is the shell's: profile's timers target it
  // from now on, and it takes their signal only while a command runs.
  if (depth_++ == 0) {
    tid_.store((int)gettid(), std::memory_order_relaxed);
    profile_sampling(Sampling::Off);
  }
  bool ok = true;
  for (const std::string &cmd : split_commands(line)) {
    if (halted_)
      break;
    auto words = split_words(cmd);
    if (!words) {
      k_.error_line("shell: " + words.error().message);
      ok = false;
      continue;
    }
    if (words->empty())
      continue;
    const Command *c = find(words->front());
    if (!c) {
      k_.error_line(words->front() + ": command not found");
      ok = false;
      continue;
    }
    Handler fn = c->fn; // the command may unload its own module
    const Sampling sampling = c->sampling;
    std::string name = words->front();
    SDT_PROBE2(kernel, kern, shell, command__start, name.c_str(),
               (int)words->size());
    if (!watched_)
      watched_ = k_.watchdog().watch_self("shell");
    int rc;
    {
      WatchdogBusy busy(watched_);
      SamplingScope sampled(sampling);
      const char *outer = t_command; // dtrace -c runs one inside another
      t_command = name.c_str();
      rc = fn(k_, *words);
      t_command = outer;
    }
    forget_dead_stack(); // a module's command may have wrecked its frames
    SDT_PROBE2(kernel, kern, shell, command__done, name.c_str(), rc);
    if (rc != 0)
      ok = false;
  }
  depth_--;
  return ok;
}

bool Shell::run_stream(std::FILE *in) {
  bool ok = true;
  char *buf = nullptr;
  size_t cap = 0;
  ssize_t n;
  while (!halted_ && (n = getline(&buf, &cap, in)) >= 0) {
    std::string line(buf, n);
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r'))
      line.pop_back();
    if (!run_line(line))
      ok = false;
  }
  free(buf);
  return ok;
}

bool Shell::run_interactive() {
  rl_attempted_completion_function = complete;
  std::string hist;
  if (const char *home = getenv("HOME")) {
    hist = std::string(home) + "/.minikern_history";
    read_history(hist.c_str());
  }
  bool ok = true;
  while (!halted_) {
    char *l = readline("minikern> ");
    if (!l) {
      std::printf("\n");
      break;
    }
    std::string line = l;
    free(l);
    if (line.find_first_not_of(" \t") != std::string::npos)
      add_history(line.c_str());
    if (!run_line(line))
      ok = false;
  }
  if (!hist.empty())
    write_history(hist.c_str());
  return ok;
}

} // namespace mk
