// Statically defined tracing inside the kernel: the probe registry, probe
// sites (recorded by the module loader from relocations, and for the kernel
// image from the site recorder's linker set), enabling by hot-patching, and
// the dispatcher every enabled site calls through its probe's trampoline.
//
// Consumers (the shell's dtrace) see probes by id and attach a callback to
// a set of probes; the callback runs on whatever thread fires the probe.
#pragma once

#include "../linker/base.h"
#include "../linker/link.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

struct sdt_probedef;

namespace mk {

class Kernel;
struct LinkerFile;
class PatchEngine;
class TextAliases;
class TrampolineArea;

// What instruction a site was and so what it becomes.
enum class SiteKind : u8 {
  Call,          // call probe            -> NOPs          / call trampoline
  TailJump,      // jmp probe (tail call) -> ret + NOPs    / jmp trampoline
  IsEnabled,     // call is-enabled       -> xor eax + NOPs / mov $1,%eax
  IsEnabledTail, // jmp is-enabled        -> xor eax; ret  / jmp ret-1 stub
};

// How enabled sites reach the probe.
enum class PatchMode : u8 {
  Call,       // a call/jmp into the probe's trampoline (the default)
  Breakpoint, // int3; the SIGTRAP handler fires the probe (illumos style)
};

struct ProbeSite {
  u64 addr = 0;   // first byte of the instruction
  u8 len = 0;     // 5 or 6
  SiteKind kind = SiteKind::Call;
  u8 disabled[8]; // the bytes while disabled
  std::string function;
  u64 func_addr = 0;
  struct Probe *probe = nullptr;
  u32 enabled_by = 0; // enablings that currently include this site's probe
  PatchMode mode = PatchMode::Call;
};

using ProbeCallback = void (*)(void *ctx, u32 probe_id, const uintptr_t *args);

struct Handler {
  ProbeCallback fn;
  void *ctx;
  int enabling;
};

// Immutable once published; replaced as a whole when enablings change.
struct HandlerList {
  u32 n = 0;
  Handler h[1];
};

struct Probe {
  u32 id = 0;
  std::string provider, module, function, name;
  std::vector<std::string> argtypes; // empty: no definition found
  std::vector<ProbeSite *> sites;
  const LinkerFile *owner = nullptr; // nullptr: kernel image or dtrace
  std::atomic<HandlerList *> handlers{nullptr};
  u64 trampoline = 0; // 0 until first enabled
  int enable_count = 0;
  PatchMode mode = PatchMode::Call;
  std::string full() const {
    return provider + ":" + module + ":" + function + ":" + name;
  }
};

// A probe description "provider:module:function:name"; fields may be empty
// (match anything) or globs (* ? [..]).  Fewer fields fill from the right:
// "name", "function:name", "module:function:name".
struct ProbeDesc {
  std::string provider, module, function, name;
  static ProbeDesc parse(const std::string &s);
  bool matches(const Probe &p) const;
};

// A site found while relocating a module, before the module is live.
struct PendingSite {
  u64 addr;
  u8 len;
  SiteKind kind;
  std::string provider, name; // name with '-'
  u32 section;
  u64 offset; // of the instruction in its section
};

class Sdt {
public:
  explicit Sdt(Kernel &k);
  ~Sdt();
  Sdt(const Sdt &) = delete;

  // Boot: text alias of the kernel image, SIGTRAP handler, membarrier
  // registration, the kernel's own probes from the site recorder's set.
  Result<void> init();

  // What a probe symbol resolves to for code that takes its address rather
  // than calling it: a stub, a 5-byte site of its own (`ret` or
  // `xor %eax,%eax; ret` while disabled, a jump to the trampoline or
  // return-1 stub while enabled).  Stubs are never freed.
  Result<u64> make_stub(const std::string &symbol);
  // The module loader's hook: rewrites a call or jump to __dtrace_* into a
  // NOP sled and records the site in `out`; an address load of one records
  // its stub as the site and leaves the relocation to the loader.
  Result<bool> take_site(const SiteContext &c, std::vector<PendingSite> &out);
  // After relocation: name the functions, create the probes.
  void add_module_probes(const LinkerFile &f, const ObjectFile &obj,
                         const Placement &pl, std::vector<PendingSite> sites,
                         const std::vector<sdt_probedef *> &defs);
  // Before a module's memory is freed: disable and drop its probes; waits
  // until no handler runs.  Prints which enablings lost probes.
  void remove_module_probes(const LinkerFile &f);

  std::vector<Probe *> probes() const; // by id
  Probe *probe(u32 id) const;
  std::vector<Probe *> match(const ProbeDesc &d) const;

  // Enable `ids`: every site patched in one batch.  Returns the enabling id.
  Result<int> enable(const std::vector<u32> &ids, ProbeCallback fn, void *ctx,
                     PatchMode mode = PatchMode::Call);
  // Disable; on return no handler of this enabling runs or will run.
  void disable(int enabling);
  // Wait until every probe handler that started before now has returned.
  void synchronize();

  // Called by trampolines (and the breakpoint handler).
  static void dispatch(u32 id, uintptr_t a0, uintptr_t a1, uintptr_t a2,
                       uintptr_t a3, uintptr_t a4, uintptr_t a5);

  // Counters for `sysctl kern.sdt.*` and the benchmark.
  std::atomic<u64> patch_batches{0}, serialisations{0};
  u64 dtrace_begin_id = 0;

private:
  Probe *intern(const std::string &prov, const std::string &mod,
                const std::string &func, const std::string &name,
                const LinkerFile *owner);
  // Publish `p`'s handler list anew; the old one goes to `retired`, to be
  // freed after one synchronize() for the whole batch.
  void set_handlers(Probe *p, std::vector<HandlerList *> &retired);
  void free_retired(std::vector<HandlerList *> &retired);
  void patch_sites(const std::vector<Probe *> &probes, bool enable,
                   PatchMode mode);
  Kernel &k_;
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<Probe>> probes_; // index id-1; null when gone
  std::vector<std::unique_ptr<ProbeSite>> sites_;
  struct Enabling {
    int id;
    std::vector<u32> probes;
    ProbeCallback fn;
    void *ctx;
    PatchMode mode;
  };
  std::vector<Enabling> enablings_;
  int next_enabling_ = 1;
  std::unique_ptr<TextAliases> text_;
  std::unique_ptr<PatchEngine> patcher_;
  std::unique_ptr<TrampolineArea> tramps_;
};

} // namespace mk
