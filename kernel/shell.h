// Shell commands: the built-ins and the ones modules register.  The shell
// and its command table belong to the shell's thread (commands run there,
// modules load and unload there), so nothing here takes a lock.
//
// The shell's thread is a CPU making system calls: profile samples it
// while a command runs (sdt/profile.h, SamplingScope), not while it waits
// for a line, nor while the D consumer's own command runs.
#pragma once

#include "kern_watchdog.h"
#include "../linker/base.h"
#include "../sdt/profile.h"

#include <sys/shell.h>

#include <atomic>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace mk {

class Kernel;
struct LinkerFile;

// What D's execname names on the calling thread: the shell command it
// runs (a command is this kernel's process), else the kernel thread's
// name ("cpu0", "kthread:NAME", "shell").
const char *current_execname();

class Shell {
public:
  using Handler = std::function<int(Kernel &, std::vector<std::string> &)>;
  struct Command {
    std::string name, usage, descr;
    Handler fn;
    const LinkerFile *owner = nullptr;
    // Off for a command that is no kernel work but the consumer of the
    // samples (dtrace): its -c command is sampled again.
    Sampling sampling = Sampling::On;
  };
  explicit Shell(Kernel &k) : k_(k) {}
  void add(Command c);
  Result<void> add_module_command(const struct shell_cmd *sc,
                                  const LinkerFile *owner);
  void remove_owned_by(const LinkerFile *owner);
  const Command *find(const std::string &name) const;
  std::vector<const Command *> list() const;
  // Run one line (commands separated by ';'); false if any failed.
  bool run_line(const std::string &line);
  // Interactive loop (readline) or line-by-line from a stream.
  bool run_interactive();
  bool run_stream(std::FILE *in);
  bool halted() const { return halted_; }
  // The thread that runs commands (gettid; 0 before the first line).
  int tid() const { return tid_.load(std::memory_order_relaxed); }
  void halt() { halted_ = true; }

private:
  Kernel &k_;
  std::map<std::string, Command> cmds_;
  bool halted_ = false;
  Watchdog::Watched *watched_ = nullptr; // the thread running commands
  std::atomic<int> tid_{0}; // read by whoever enables a profile probe
  int depth_ = 0;           // run_line() inside a command (dtrace -c)
};

} // namespace mk
