// Linux-format modules: Linux 6.1's .ko files (Debian's own, and modules
// built with Debian's kbuild), loaded by the kernel's loader beside
// minikern's own modules.
//
// A file is a Linux module when it carries `.gnu.linkonce.this_module`
// (its struct module).  The loader then reads it the way Linux's
// kernel/module/ does: .modinfo (vermagic, depends, license, import_ns),
// __versions checked against the exporter's CRCs, exports through
// __ksymtab/__ksymtab_gpl (place-relative entries) into a namespace of
// Linux symbols apart from minikern's, __param set from `insmod FILE
// name=value`, init_module and cleanup_module, .data..percpu at one offset
// in every CPU's per-CPU area, and the code patching the file asks for
// (static keys from __jump_table, static calls from .static_call_sites)
// through the one patch engine.  The Linux kernel API the modules call
// lives in kernel/linuxkpi/ and reaches the loader only through
// linux_export_set.
#pragma once

#include "../linker/link.h"
#include "../linker/sync.h"

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
struct LinkerFile;

// One symbol of the Linux namespace.
struct LinuxSymbol {
  u64 value = 0;
  LinkerFile *owner = nullptr; // nullptr: the kernel (the Linux API)
  std::optional<u32> crc;      // the exporter's CRC, if it has one
  bool gpl = false;            // EXPORT_SYMBOL_GPL
  std::string ns;              // its symbol namespace ("" none)
};

// A module parameter (struct kernel_param, 6.1).
struct LinuxParam {
  std::string name;
  u64 kp = 0;  // the struct kernel_param
  u16 perm = 0;
};

// What a loaded (or loading) Linux module carries.
struct LinuxModule {
  std::string name; // the module's name ("crc_itu_t")
  std::string license;
  std::vector<std::string> depends;    // modinfo depends=
  std::vector<std::string> softdep_pre; // modinfo softdep=pre: NAME ...
  std::vector<std::string> imports;    // modinfo import_ns=
  std::unordered_map<std::string, u32> versions; // __versions
  std::unordered_map<std::string, LinuxSymbol> exports;
  u64 init = 0, exit = 0; // init_module, cleanup_module (0: none)
  bool has_init = false;  // init stays 0 once its code is freed
  // The init sections' pages once init has returned ([lo, hi) each;
  // empty when the module has none), and whether they are freed.
  struct Range {
    u64 lo = 0, hi = 0;
  };
  Range init_text, init_rodata, init_data;
  bool init_freed = false;
  std::vector<LinuxParam> params;
  // .data..percpu: its space, at one offset in every CPU's area
  // (kern_percpu.h), its symbols' values; 0 bytes: none.
  u32 percpu_sec = 0;
  u64 percpu_off = 0, percpu_size = 0;
  // __bug_table: each WARN and BUG site (a ud2), by address.
  struct Bug {
    u64 addr;
    const char *file;
    u16 line;
    u16 *flags; // in the module's data: WARN_ONCE marks itself done
  };
  std::vector<Bug> bugs;
  // How many of `bugs` the fault handler searches: those in init text
  // come last (it follows the module's other code) and drop out when it
  // is freed.
  std::atomic<size_t> live_bugs{0};
  // __ex_table: instructions that may fault and where each resumes,
  // by instruction address; those in init text last (live_fixups counts
  // the rest once it is freed).
  struct Fixup {
    u64 insn, fixup;
    i32 data; // type in the low byte, register, flags, immediate
  };
  std::vector<Fixup> fixups;
  std::atomic<size_t> live_fixups{0};
  // TRACE_EVENT tracepoints: each struct tracepoint (6.1) the module
  // defines, from __tracepoints_ptrs, checked to lie in its __tracepoints
  // section and to name the module's own static key, static call and
  // iterator (the Linux API's tracepoint provider makes them probes).
  struct Tracepoint {
    u64 tp = 0;
    std::string name;
  };
  std::vector<Tracepoint> tracepoints;
  u64 text_lo = 0, text_hi = 0;
  mutable bool warned_versions = false; // "no symbol version", said once
  bool gpl_compatible() const;
};

// Static keys (Linux's jump labels): every __jump_table entry of every
// loaded Linux module, by key, patched through the probe registry's patch
// engine when a key changes.
class JumpLabels {
public:
  struct Entry {
    u64 code = 0, target = 0;
    u8 len = 0; // 2 or 5
    bool branch = false;
    const LinkerFile *owner = nullptr;
  };
  explicit JumpLabels(Kernel &k) : k_(k) {}
  // A module's entries, read and checked from its linked image; each site
  // is written, through the image's writable view, to the key's state.
  // `key_ok` says whether a key address is one to trust (the module's
  // own writable data, or a key another module or the kernel exports).
  Result<void> add_module(const LinkerFile &f, const ObjectFile &obj,
                          const Placement &pl,
                          const std::function<bool(u64)> &key_ok)
      EXCLUDES(mu_);
  void remove_module(const LinkerFile *f) EXCLUDES(mu_);
  // The module's code in [lo, hi) is freed: forget its sites there.
  void remove_range(const LinkerFile *f, u64 lo, u64 hi) EXCLUDES(mu_);
  // static_key_enable() and the rest, on a struct static_key.
  void enable(void *key) EXCLUDES(mu_);
  void disable(void *key) EXCLUDES(mu_);
  void slow_inc(void *key) EXCLUDES(mu_);
  void slow_dec(void *key) EXCLUDES(mu_);
  int count(void *key) const;
  size_t entries() const EXCLUDES(mu_);

private:
  void update(u64 key) REQUIRES(mu_);
  Kernel &k_;
  mutable Mutex mu_; // one change of keys at a time
  std::unordered_map<u64, std::vector<Entry>> by_key_ GUARDED_BY(mu_);
};

// Static calls (Linux 6.1's static_call_inline.c): every
// .static_call_sites entry of every loaded Linux module whose key is a
// module's (its own, or one a loaded module exports), by key.  At load
// each site is aimed straight at its key's function; static_call_update()
// (__static_call_update) re-aims the trampoline and every site of the key
// in one batch of the patch engine.  Sites of the Linux API's own
// trampolines (cond_resched ...), whose keys no module may update, stay
// calls to the trampoline.
class StaticCalls {
public:
  struct Site {
    u64 addr = 0;
    bool tail = false; // jmp, not call
    const LinkerFile *owner = nullptr;
  };
  explicit StaticCalls(Kernel &k) : k_(k) {}
  // A module's sites, read and checked from its linked image, each
  // written through the image's writable view to its key's function.
  // `key_ok`: a key address to trust; `api_tramp`: a trampoline of the
  // Linux API (its sites are left alone).
  Result<void> add_module(const LinkerFile &f, const std::string &who,
                          const ObjectFile &obj, const Placement &pl,
                          u64 text_lo, u64 text_hi,
                          const std::function<bool(u64)> &key_ok,
                          const std::function<bool(u64)> &api_tramp)
      EXCLUDES(mu_);
  void remove_module(const LinkerFile *f) EXCLUDES(mu_);
  void remove_range(const LinkerFile *f, u64 lo, u64 hi) EXCLUDES(mu_);
  // __static_call_update(key, tramp, func).
  void update(void *key, void *tramp, void *func) EXCLUDES(mu_);
  size_t sites() const EXCLUDES(mu_);

private:
  Kernel &k_;
  mutable Mutex mu_; // one update at a time
  std::unordered_map<u64, std::vector<Site>> by_key_ GUARDED_BY(mu_);
};

class LinuxModules {
public:
  explicit LinuxModules(Kernel &k);
  ~LinuxModules();

  static bool is_linux(const ObjectFile &obj);
  // Before anything is allocated: the file's .modinfo (vermagic, name),
  // its sections (every allocated one known), its __versions.
  Result<std::shared_ptr<LinuxModule>> check(const ObjectFile &obj,
                                             const std::string &fname);
  // A name the module binds: the Linux API's exports, then every loaded
  // Linux module's.  Version, GPL and namespace checks as Linux makes
  // them; a refusal is Linux's message, recorded in `problems`.
  std::optional<LinuxSymbol> resolve(const LinuxModule &m,
                                     const std::string &name,
                                     std::vector<std::string> &problems);
  // After the link: the module's exports (refused if one is exported
  // already), its init and exit functions, its parameters.
  Result<void> read_linked(LinuxModule &m, const ObjectFile &obj,
                           const LinkedImage &li, LinkerFile &f);
  // insmod's name=value words, set through each parameter's ops before
  // init; each parameter also becomes sysctl module.NAME.PARAM.
  Result<void> set_params(LinuxModule &m, LinkerFile &f,
                          const std::vector<std::string> &args);
  // Linux's percpu_modalloc(): space for the module's .data..percpu in
  // every CPU's area, before the link; nothing when it has none.
  Result<void> alloc_percpu(LinuxModule &m, const ObjectFile &obj);
  // The link's placement step for that section: it is linked at its
  // per-CPU offset, so %gs-relative and per_cpu_ptr() references reach
  // each CPU's copy, while its contents are copied and relocated in the
  // image as a template.
  static void place_percpu(const LinuxModule &m, Placement &pl);
  // Linux's percpu_modcopy(): the relocated template into every CPU's
  // copy, before the module's code runs; the template is no longer a
  // section's memory (its address is not one).
  void copy_percpu(const LinuxModule &m, Placement &pl);
  void add_loaded(LinkerFile *f);
  // At unload: each parameter's ops->free (a charp's copy of its value).
  void free_params(const LinuxModule &m);
  // At unload or a failed load: its static keys' sites, its fault
  // tables, its per-CPU space.
  void remove_loaded(const LinkerFile *f);
  // Init has returned and the module's init sections are about to be
  // freed: everything the loader keeps that points into them goes first
  // (WARN sites, static-key sites in init text), as Linux's
  // do_init_module() trims them.
  void free_init(LinuxModule &m, const LinkerFile *f);
  JumpLabels &jump_labels() { return jumps_; }
  StaticCalls &static_calls() { return calls_; }
  // The file of the Linux module named `name` ('-' and '_' alike) in the
  // module path, searched recursively (Linux's tree: kernel/lib/...).
  std::optional<std::string> find_file(const std::string &name) const;
  // The files of the Linux modules that `alias` names (their .modinfo
  // alias= entries, exact ones; Linux's depmod writes modules.alias, which
  // the package does not ship), read from the whole module path the first
  // time one is asked for.
  std::vector<std::string> find_alias(const std::string &alias) const;
  // The vermagic this kernel takes (after the release).
  static const char *vermagic_flags();

private:
  void load_symvers();
  Kernel &k_;
  bool api_read_ = false;
  std::unordered_map<std::string, LinuxSymbol> api_; // the Linux API
  std::vector<LinkerFile *> loaded_;                 // in load order
  JumpLabels jumps_;
  StaticCalls calls_;
  mutable Mutex alias_mu_;
  mutable std::optional<std::unordered_map<std::string, std::vector<std::string>>>
      aliases_ GUARDED_BY(alias_mu_);
};

// Whether Linux code may take CPU feature `feature` (X86_FEATURE_*:
// word * 32 + bit) as present when alternatives are applied: what the CPU
// has that user mode may use, and XENPV (kern_linux.cpp says why).
bool linux_cpu_has(unsigned feature);

// The newest installed linux-headers-6.1 package's Module.symvers ("":
// none): the kernel's CRCs, unless --linux-symvers names another.
std::string linux_symvers_path();

// Module names compare with '-' and '_' alike, as Linux's do.
std::string linux_module_name(std::string n);

} // namespace mk
