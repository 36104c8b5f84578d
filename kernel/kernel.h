// The kernel's context object: every subsystem hangs off one Kernel, so
// nothing is global but the pointer the exported C functions use to find the
// kernel they run in (see curkernel()).
#pragma once

#include "../linker/arena.h"
#include "../linker/base.h"
#include "../linker/link.h"
#include "../linker/object.h"

#include <sys/module.h>
#include <sys/callout.h>
#include <sys/shell.h>
#include <sys/sysctl.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace mk {

class Kernel;
struct LinkerFile;
class Sdt;

struct Options {
  std::vector<std::string> module_path;
  std::vector<std::string> preload;
  unsigned cpus = 1;
  bool quiet = false;
  u64 arena_mib = 0; // 0: the architecture's default
};

// Console output and the dmesg ring buffer.
class Console {
public:
  void write(const std::string &s, bool to_console = true);
  std::string dmesg() const;
  void clear_dmesg();
  static constexpr size_t kRingSize = 64 * 1024;

private:
  mutable std::mutex mu_;
  std::string ring_; // the last kRingSize bytes written
};

// Memory charged to one owner: the kernel or one loaded file.
struct MallocStats {
  std::string name;
  std::atomic<i64> inuse{0};    // blocks
  std::atomic<i64> memuse{0};   // bytes
  std::atomic<i64> requests{0}; // allocations ever
};

// sysctl nodes: static ones from linker sets (kernel and modules) and
// computed ones the kernel adds in C++.
class Sysctl {
public:
  struct Node {
    std::string name;
    int kind = CTLTYPE_INT;
    int flags = CTLFLAG_RD;
    std::string descr;
    std::function<std::string()> get;
    std::function<Result<void>(const std::string &)> set; // empty: read-only
    const LinkerFile *owner = nullptr;
  };
  Result<void> add(Node n);
  Result<void> add_oid(sysctl_oid *oid, const LinkerFile *owner);
  void remove_owned_by(const LinkerFile *owner);
  bool remove(const std::string &name);
  const Node *find(const std::string &name) const;
  // Set a node from its text form; returns the old value.  Fires
  // kernel:::sysctl-write (name, old, new).
  Result<std::string> write(const std::string &name, const std::string &value);
  // Nodes whose name is `prefix` or starts with `prefix.`; all when empty.
  std::vector<const Node *> list(const std::string &prefix) const;

private:
  mutable std::mutex mu_;
  std::map<std::string, Node> nodes_;
};

struct CalloutState;

// The "CPUs": kernel worker threads that run callouts.
class Cpus {
public:
  explicit Cpus(Kernel &k) : k_(k) {}
  ~Cpus() { stop(); }
  void start(unsigned n);
  void stop();
  unsigned count() const { return (unsigned)cpus_.size(); }
  void callout_init(struct callout *c);
  void callout_reset(struct callout *c, unsigned ms, void (*fn)(void *),
                     void *arg);
  int callout_stop(struct callout *c);
  int callout_drain(struct callout *c);
  int callout_pending(struct callout *c);
  // Drain callouts whose function or storage lies in [lo, hi); returns how
  // many were still armed or running.
  int drain_range(u64 lo, u64 hi);

private:
  struct Cpu {
    std::thread thread;
    std::multimap<u64, CalloutState *> queue; // due time (ns) -> callout
  };
  void run(unsigned id);
  CalloutState *state(struct callout *c);
  Kernel &k_;
  std::mutex mu_;
  std::condition_variable cv_;   // wakes CPUs: new work or stop
  std::condition_variable done_; // wakes drainers: a call finished
  std::vector<std::unique_ptr<Cpu>> cpus_;
  std::set<CalloutState *> all_;
  unsigned next_cpu_ = 0;
  bool stopping_ = false;
};

// Threads started by modules with kthread_add.
struct KThread {
  std::thread thread;
  std::string name;
  u64 fn = 0;
  bool joined = false;
};

// A module (a DECLARE_MODULE inside a loaded file); `module_t` points here.
struct ModuleRec;

struct LinkerFile {
  int id = 0;
  std::string name; // "hello.ko"
  std::string path;
  u64 address = 0, size = 0;
  int refs = 1; // 1 + the files that depend on this one
  std::vector<LinkerFile *> deps;
  bool autoloaded = false;
  ModuleArena::Block block;
  SymbolMap globals;
  std::vector<std::unique_ptr<ModuleRec>> modules;
  std::vector<std::pair<std::string, std::string>> info; // .modinfo
  std::vector<u64> fini;                                 // .fini_array, in order
  std::vector<std::pair<void (*)(void *), void *>> atexit;
  MallocStats *mstats = nullptr;
  std::vector<std::string> commands;
  u64 dso_handle = 0; // the value __dso_handle resolves to
  size_t relocs = 0;
};

struct ModuleRec {
  int id = 0;
  std::string name;
  int version = 0;
  moduledata_t *data = nullptr; // null for a plain object
  LinkerFile *file = nullptr;
  std::atomic<int> holds{0};
  bool loaded = false; // MOD_LOAD succeeded
};

// The kernel's side of module loading: finding files, the load and unload
// pipelines, the registry of loaded files.
class KernelLinker {
public:
  explicit KernelLinker(Kernel &k) : k_(k) {}
  ~KernelLinker();
  void init_kernel_file();
  Result<LinkerFile *> load(const std::string &name_or_path);
  Result<void> unload(LinkerFile *f);
  void unload_all();
  LinkerFile *find(const std::string &name_or_id) const;
  ModuleRec *find_module(const std::string &name) const;
  std::vector<LinkerFile *> files() const;
  std::vector<LinkerFile *> dependents(const LinkerFile *f) const;
  // The loaded file whose image contains `addr` (nullptr: the kernel).
  LinkerFile *file_at(u64 addr) const;
  Result<std::string> find_in_path(const std::string &name) const;
  std::optional<u64> kernel_symbol(const std::string &name) const;
  LinkerFile *kernel_file() const { return files_.front().get(); }

private:
  Result<LinkerFile *> load_file(const std::string &path,
                                 std::vector<std::string> &chain);
  Result<void> load_dependencies(LinkerFile &f, ObjectFile &obj,
                                 std::vector<std::string> &chain);
  void run_unload_steps(LinkerFile &f);
  void forget(LinkerFile *f);
  Kernel &k_;
  mutable std::shared_mutex map_mu_; // guards by_addr_ (read by malloc)
  std::map<u64, LinkerFile *> by_addr_;
  std::vector<std::unique_ptr<LinkerFile>> files_;
  std::unordered_map<std::string, u64> exports_;
  int next_file_id_ = 1;
  int next_module_id_ = 1;
};

// Shell commands: the built-ins and the ones modules register.
class Shell {
public:
  using Handler = std::function<int(Kernel &, std::vector<std::string> &)>;
  struct Command {
    std::string name, usage, descr;
    Handler fn;
    const LinkerFile *owner = nullptr;
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
  void halt() { halted_ = true; }

private:
  Kernel &k_;
  std::map<std::string, Command> cmds_;
  bool halted_ = false;
};

class Kernel {
public:
  explicit Kernel(Options o);
  ~Kernel();
  // Run the SYSINIT steps; false if one failed (it printed why).
  bool boot();
  void shutdown();

  // printf to the console and dmesg; log() to dmesg only.
  void printf(const char *fmt, ...) __attribute__((format(printf, 2, 3)));
  void log(const char *fmt, ...) __attribute__((format(printf, 2, 3)));
  // An error line for the shell: to stderr and dmesg.
  void error_line(const std::string &line);

  // Run `fn` when the kernel shuts down, before any module is unloaded
  // (hooks run newest first).
  void on_shutdown(std::function<void()> fn) {
    shutdown_hooks_.push_back(std::move(fn));
  }

  MallocStats *new_mstats(const std::string &name);
  MallocStats *mstats_for_caller(u64 pc);
  std::vector<MallocStats *> all_mstats();

  Options opts;
  Console console;
  Sysctl sysctl;
  std::unique_ptr<ModuleArena> arena;
  Cpus cpus{*this};
  KernelLinker linker{*this};
  std::unique_ptr<Sdt> sdt;
  Shell shell{*this};
  MallocStats *kernel_mstats = nullptr;
  u64 boot_ns = 0;
  std::string self_path;

  std::mutex kthreads_mu;
  std::vector<std::unique_ptr<KThread>> kthreads;

private:
  std::mutex mstats_mu_;
  std::deque<MallocStats> mstats_;
  std::vector<std::function<void()>> shutdown_hooks_;
  bool shut_down_ = false;
};

// The kernel the calling thread belongs to.
Kernel *curkernel();
void set_curkernel(Kernel *k);
int current_cpu();
void set_current_cpu(int cpu);
u64 now_ns();

} // namespace mk
