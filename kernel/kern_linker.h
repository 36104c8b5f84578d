// The kernel's module loader: finds .ko files on the module path, drives
// the link pipeline of linker/ into the module arena, registers what a
// module brings (linker sets: modules, sysctls, shell commands; probes
// through the probe registry), runs its constructors and load handlers,
// and undoes all of it on failure or unload.
#pragma once

#include "../linker/arena.h"
#include "../linker/link.h"
#include "../linker/sync.h"
#include "kern_linux.h"
#include "module_sig.h"

#include <sys/module.h>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace mk {

class Kernel;
struct MallocStats;
struct ModuleRec;

// A loaded file: the kernel image (id 1) or a .ko.  Made and changed only
// by the KernelLinker, on the thread that loads and unloads (the shell);
// other threads read what is immutable once the file is registered.
struct LinkerFile {
  int id = 0;
  std::string name; // "hello.ko"
  std::string path;
  u64 address = 0, size = 0;
  int refs = 1; // 1 + the files that depend on this one
  std::vector<LinkerFile *> deps;
  bool autoloaded = false;
  ModuleArena::Block block;
  SymbolMap globals; // what dependents may bind to
  std::vector<std::unique_ptr<ModuleRec>> modules;
  std::vector<std::pair<std::string, std::string>> info; // .modinfo
  std::vector<u64> fini;                                 // .fini_array, in order
  MallocStats *mstats = nullptr;
  std::vector<std::string> commands;
  u64 dso_handle = 0; // the value __dso_handle resolves to
  size_t relocs = 0;
  std::vector<u64> sec_addr; // where each section of the file was placed
                             // (0: not loaded), to name addresses later
  std::shared_ptr<LinuxModule> linux_mod; // a Linux-format module's state
  // The module's name as a probe's module field ("hello").
  std::string module_name() const;
};

// A module (a DECLARE_MODULE inside a loaded file); `module_t` points here.
struct ModuleRec {
  int id = 0;
  std::string name;
  int version = 0;
  moduledata_t *data = nullptr; // null for a plain object
  LinkerFile *file = nullptr;
  std::atomic<int> holds{0};    // module_hold(), from any thread
  bool loaded = false;          // MOD_LOAD succeeded
};

// Marks the end of each stage of a load or unload, for the benchmark's
// per-stage table.
class LoadObserver {
public:
  virtual ~LoadObserver() = default;
  virtual void stage_done(const char *stage) = 0;
};

class KernelLinker {
public:
  explicit KernelLinker(Kernel &k) : k_(k) {}
  ~KernelLinker();
  void init_kernel_file();
  // The trusted certificates (Options::trusted_certs); an error if one
  // cannot be read, or if enforcement is asked of a build without OpenSSL.
  Result<void> init_signatures();
  // A module whose signature could not be checked (no trusted key) was
  // loaded without enforcement: Linux's taint.
  bool tainted() const { return tainted_; }
  // `params`: a Linux module's name=value parameters (insmod, modprobe).
  Result<LinkerFile *> load(const std::string &name_or_path,
                            LoadObserver *obs = nullptr,
                            const std::vector<std::string> &params = {});
  LinuxModules &linux_modules() { return linux_; }
  // `force`: a Linux module with an init and no exit function unloads too
  // (Linux's rmmod -f; without it such a module stays, as in Linux).
  Result<void> unload(LinkerFile *f, LoadObserver *obs = nullptr,
                      bool force = false);
  void unload_all();
  LinkerFile *find(const std::string &name_or_id) const;
  ModuleRec *find_module(const std::string &name) const;
  std::vector<LinkerFile *> files() const;
  std::vector<LinkerFile *> dependents(const LinkerFile *f) const;
  // The loaded file whose image contains `addr` (nullptr: the kernel).
  // Any thread (malloc attribution).
  LinkerFile *file_at(u64 addr) const EXCLUDES(map_mu_);
  Result<std::string> find_in_path(const std::string &name) const;
  std::optional<u64> kernel_symbol(const std::string &name) const;
  LinkerFile *kernel_file() const { return files_.front().get(); }
  // C++ global destructors a module registers (__cxa_atexit), run when
  // the module whose __dso_handle is `dso` unloads; false for the kernel.
  bool add_atexit(u64 dso, void (*fn)(void *), void *arg) EXCLUDES(map_mu_);
  // The name of the function at `addr` in a loaded file ("writecount_write"),
  // read from the file's symbol table (rare: handler listings and
  // messages); a hex address if there is none.
  std::string symbolize(u64 addr) const EXCLUDES(map_mu_);

private:
  struct Load;
  Result<LinkerFile *> load_file(const std::string &path,
                                 std::vector<std::string> &chain,
                                 LoadObserver *obs,
                                 const std::vector<std::string> &params = {});
  // The load pipeline's stages, in order (load_file reads as the list).
  Result<void> read_and_check(Load &l);
  Result<void> check_signature(const ObjectFile &obj, Load &l);
  // A load about to run its code with a signature no trusted key checked
  // taints the kernel (said once); a load refused before then does not.
  void taint(Load &l);
  Result<void> load_dependencies(Load &l, std::vector<std::string> &chain);
  Result<void> link(Load &l);
  Result<void> link_linux(Load &l);
  void protect(Load &l);
  Result<void> check_unwind(Load &l);
  Result<void> register_sets(Load &l);
  Result<void> record_probes(Load &l);
  Result<void> run_init(Load &l);
  void free_init(LinkerFile &f);
  // Undo whatever of the load was done.
  Error undo(Load &l, Error e);
  // Unload: everything after the unload handlers.
  void teardown(LinkerFile &f);
  void forget(LinkerFile *f);

  Kernel &k_;
  // Every loaded file's image range, read by any thread (malloc
  // attribution, __cxa_atexit); written on load and unload.
  mutable SharedMutex map_mu_;
  std::map<u64, LinkerFile *> by_addr_ GUARDED_BY(map_mu_);
  std::map<u64, std::vector<std::pair<void (*)(void *), void *>>> atexit_
      GUARDED_BY(map_mu_); // by file address
  // The rest belongs to the loading thread (the shell's).
  std::vector<std::unique_ptr<LinkerFile>> files_;
  std::unordered_map<std::string, u64> exports_;
  std::unique_ptr<SignatureVerifier> verifier_;
  LinuxModules linux_{k_};
  bool tainted_ = false;
  int next_file_id_ = 1;
  int next_module_id_ = 1;
};

} // namespace mk
