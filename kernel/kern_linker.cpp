// The kernel's module loader (see kern_linker.h).
//
// Load is a pipeline read top to bottom in load_file(), one function per
// stage; a failing stage leaves the kernel exactly as it was before the
// load began (undo()).  Unload runs the module's handlers, then
// teardown(): nothing the module started may run once its memory goes.
#include "export.h"
#include "kernel.h"

#include "kern_linuxkpi_hook.h"
#include "kern_modcall.h"

#include "../linker/link.h"
#include "../sdt/registry.h"
#include "../sdt/site.h"
#include "../sdt/unwind.h"

#include <sys/module.h>
#include <sys/sdt.h>
#include <sys/shell.h>
#include <sys/sysctl.h>

#include <algorithm>
#include <map>
#include <cerrno>
#include <climits>
#include <cstring>
#include <dirent.h>
#include <elf.h>
#include <sys/stat.h>
#include <unistd.h>

extern "C" char __executable_start[];
extern "C" char _end[];

SDT_PROVIDER_DECLARE(kernel);
SDT_PROBE_DEFINE2(kernel, kern, linker, module__load, "char *", "int");
SDT_PROBE_DEFINE2(kernel, kern, linker, module__unload, "char *", "int");
SDT_PROBE_DEFINE2(kernel, kern, linker, module__load__failed, "char *",
                  "char *");
SDT_PROBE_DEFINE3(kernel, kern, linker, module__reloc, "char *", "size_t",
                  "uintptr_t");

namespace mk {

namespace {

#if defined(__x86_64__)
constexpr u16 kMachine = EM_X86_64;
#else
constexpr u16 kMachine = EM_386;
#endif

bool file_exists(const std::string &p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string basename_of(const std::string &p) {
  return p.substr(p.find_last_of('/') + 1);
}

std::string strip_ko(std::string n) {
  for (const char *ext : {".ko", ".o"}) {
    size_t l = std::strlen(ext);
    if (n.size() > l && n.compare(n.size() - l, l, ext) == 0)
      return n.substr(0, n.size() - l);
  }
  return n;
}

struct DependSpec {
  std::string name;
  int min = 0, pref = 0, max = INT_MAX;
};

Result<std::vector<DependSpec>> parse_depends(const ObjectFile &obj) {
  std::vector<DependSpec> out;
  for (const auto &[k, v] : read_modinfo(obj)) {
    if (k != "depend")
      continue;
    DependSpec d;
    char name[128];
    if (std::sscanf(v.c_str(), "%127[^:]:%d:%d:%d", name, &d.min, &d.pref,
                    &d.max) != 4 ||
        d.min > d.max)
      return error(strf("%s: malformed dependency '%s' in .modinfo",
                        obj.name.c_str(), v.c_str()));
    d.name = name;
    out.push_back(d);
  }
  return out;
}

} // namespace

KernelLinker::~KernelLinker() = default;

void KernelLinker::init_kernel_file() {
  auto f = std::make_unique<LinkerFile>();
  f->id = next_file_id_++;
  f->name = "kernel";
  f->path = k_.opts().self_path;
  f->address = (u64)(uintptr_t)__executable_start;
  f->size = (u64)((uintptr_t)_end - (uintptr_t)__executable_start);
  f->mstats = k_.kernel_mstats();
  auto m = std::make_unique<ModuleRec>();
  m->id = next_module_id_++;
  m->name = "kernel";
  m->version = 1;
  m->file = f.get();
  m->loaded = true;
  f->modules.push_back(std::move(m));
  const kernel_export *const *e;
  SET_FOREACH(e, kernel_export_set) {
    exports_[(*e)->ke_name] = (u64)(uintptr_t)(*e)->ke_addr;
    f->globals.add((*e)->ke_name, (u64)(uintptr_t)(*e)->ke_addr);
  }
  f->globals.finish();
  k_.log("kernel: %zu symbols exported to modules\n", exports_.size());
  files_.push_back(std::move(f));
}

Result<void> KernelLinker::init_signatures() {
  const Options &o = k_.opts();
  if (o.trusted_certs.empty() && !o.sig_enforce)
    return {};
  if (!signatures_supported())
    return error("module signatures need OpenSSL, which this build (the "
                 "i386 kernel) does not have: see docs/robustness.md");
  auto v = SignatureVerifier::create(o.trusted_certs);
  if (!v)
    return v.take_error();
  verifier_ = std::move(*v);
  return {};
}

std::optional<u64> KernelLinker::kernel_symbol(const std::string &n) const {
  auto it = exports_.find(n);
  if (it == exports_.end())
    return std::nullopt;
  return it->second;
}

std::vector<LinkerFile *> KernelLinker::files() const {
  std::vector<LinkerFile *> v;
  for (auto &f : files_)
    v.push_back(f.get());
  return v;
}

std::vector<LinkerFile *>
KernelLinker::dependents(const LinkerFile *f) const {
  std::vector<LinkerFile *> v;
  for (auto &g : files_)
    if (std::find(g->deps.begin(), g->deps.end(), f) != g->deps.end())
      v.push_back(g.get());
  return v;
}

LinkerFile *KernelLinker::find(const std::string &key) const {
  if (!key.empty() && std::all_of(key.begin(), key.end(), ::isdigit)) {
    int id = std::atoi(key.c_str());
    for (auto &f : files_)
      if (f->id == id)
        return f.get();
    return nullptr;
  }
  for (auto &f : files_)
    if (f->name == key || strip_ko(f->name) == key)
      return f.get();
  // A Linux module by its name ('-' and '_' alike).
  for (auto &f : files_)
    if (f->linux_mod && f->linux_mod->name == linux_module_name(key))
      return f.get();
  return nullptr;
}

ModuleRec *KernelLinker::find_module(const std::string &name) const {
  for (auto &f : files_)
    for (auto &m : f->modules)
      if (m->name == name)
        return m.get();
  return nullptr;
}

LinkerFile *KernelLinker::file_at(u64 addr) const {
  ReaderLock g(map_mu_);
  auto it = by_addr_.upper_bound(addr);
  if (it == by_addr_.begin())
    return nullptr;
  --it;
  LinkerFile *f = it->second;
  return addr < f->address + f->size ? f : nullptr;
}

Result<std::string> KernelLinker::find_in_path(const std::string &name) const {
  if (name.find('/') != std::string::npos) {
    // Say what is there when it is not a file (a directory, a FIFO ...);
    // stat() neither opens nor blocks.
    struct stat st;
    if (::stat(name.c_str(), &st) != 0)
      return error(strf("%s: %s", name.c_str(),
                        errno == ENOENT ? "no such file"
                                        : std::strerror(errno)));
    if (!S_ISREG(st.st_mode))
      return error(strf("%s: is %s, not a module file", name.c_str(),
                        file_kind(st.st_mode)));
    return name;
  }
  for (const auto &dir : k_.opts().module_path)
    for (const std::string &cand : {name, name + ".ko"})
      if (file_exists(dir + "/" + cand))
        return dir + "/" + cand;
  // A Linux module, in the tree below a module path directory.
  if (auto p = linux_.find_file(name))
    return *p;
  // A module whose name differs from its file's: look inside each .ko.
  for (const auto &dir : k_.opts().module_path) {
    DIR *d = opendir(dir.c_str());
    if (!d)
      continue;
    std::vector<std::string> kos;
    while (dirent *e = readdir(d)) {
      std::string n = e->d_name;
      if (n.size() > 3 && n.compare(n.size() - 3, 3, ".ko") == 0)
        kos.push_back(dir + "/" + n);
    }
    closedir(d);
    std::sort(kos.begin(), kos.end());
    for (const auto &p : kos) {
      auto obj = read_object(p);
      if (!obj)
        continue;
      for (const auto &[k, v] : read_modinfo(*obj))
        if (k == "name" && v == name)
          return p;
    }
  }
  std::string dirs;
  for (const auto &d : k_.opts().module_path)
    dirs += (dirs.empty() ? "" : ":") + d;
  return error(strf("%s: module not found in the module path (%s)",
                    name.c_str(), dirs.empty() ? "empty" : dirs.c_str()));
}

Result<LinkerFile *> KernelLinker::load(const std::string &name_or_path,
                                        LoadObserver *obs,
                                        const std::vector<std::string> &params) {
  auto path = find_in_path(name_or_path);
  if (!path)
    return path.take_error();
  std::vector<std::string> chain;
  auto f = load_file(*path, chain, obs, params);
  if (!f)
    f = one_line(f.take_error()); // names from the file may hold newlines
  if (!f)
    SDT_PROBE2(kernel, kern, linker, module__load__failed,
               name_or_path.c_str(), f.error().message.c_str());
  return f;
}


bool KernelLinker::add_atexit(u64 dso, void (*fn)(void *), void *arg) {
  WriterLock g(map_mu_);
  auto it = by_addr_.upper_bound(dso);
  if (it == by_addr_.begin())
    return false;
  --it;
  if (dso >= it->second->address + it->second->size)
    return false;
  atexit_[it->first].emplace_back(fn, arg);
  return true;
}

std::string LinkerFile::module_name() const {
  return linux_mod ? linux_mod->name : strip_ko(name);
}

// From the code map, which holds the kernel image's and every module's
// functions (a module's from its "record probes" stage, before its init).
std::string KernelLinker::symbolize(u64 addr) const {
  if (k_.has_probes())
    if (std::string fn = k_.probes().code().function_name(addr); !fn.empty())
      return fn;
  return strf("0x%llx", (unsigned long long)addr);
}

// ---- loading --------------------------------------------------------------------

// A load in progress: the file being made and what to undo if it fails.
struct KernelLinker::Load {
  std::string path, fname;
  LoadObserver *obs = nullptr;
  std::vector<std::string> params; // a Linux module's, from insmod
  std::vector<std::string> problems; // a Linux module's unresolved symbols
  std::shared_ptr<ObjectFile> obj; // shared with the code map
  std::unique_ptr<LinkerFile> f; // until registered
  LinkerFile *file = nullptr;    // once registered (then `f` is empty)
  std::unique_ptr<ModuleLoad> probes;
  std::optional<LinkedImage> linked;
  bool probes_provided = false;
  // Why the kernel is tainted once this module's code runs (its signature
  // was checked by no trusted key); empty: it is not.
  std::string taint;
  void mark(const char *stage) {
    if (obs)
      obs->stage_done(stage);
  }
  LinkerFile &file_ref() { return file ? *file : *f; }
};

// The link stages, reported to the load's observer under their names.
namespace {
struct LinkStageMarks : LinkObserver {
  LoadObserver *obs;
  explicit LinkStageMarks(LoadObserver *o) : obs(o) {}
  void stage_done(LinkStage s) override {
    static const char *const names[] = {"plan", "bind", "allocate", "place",
                                        "copy", "values", "relocate"};
    if (obs)
      obs->stage_done(names[(int)s]);
  }
};
} // namespace

// The load pipeline.  `chain` lists the files being loaded above this one,
// to refuse dependency loops.
Result<LinkerFile *> KernelLinker::load_file(const std::string &path,
                                             std::vector<std::string> &chain,
                                             LoadObserver *obs,
                                             const std::vector<std::string> &params) {
  Load l;
  l.path = path;
  l.fname = basename_of(path);
  l.obs = obs;
  l.params = params;
  for (auto &g : files_)
    if (g->name == l.fname)
      return error(strf("%s: module already loaded (id %d)", l.fname.c_str(),
                        g->id));
  if (std::find(chain.begin(), chain.end(), l.fname) != chain.end()) {
    std::string loop;
    for (const auto &c : chain)
      loop += c + " -> ";
    return error(strf("%s: dependency loop: %s%s", l.fname.c_str(),
                      loop.c_str(), l.fname.c_str()));
  }
  if (auto r = read_and_check(l); !r)
    return undo(l, r.take_error());
  chain.push_back(l.fname);
  auto deps = load_dependencies(l, chain);
  chain.pop_back();
  if (!deps)
    return undo(l, deps.take_error());
  // The image is written where it will run, read+write and not yet
  // executable, until protect() gives each part its own protection, after
  // its sites are recorded and before any of its code runs.
  if (auto r = link(l); !r)
    return undo(l, r.take_error());
  if (l.f->linux_mod)
    if (auto r = link_linux(l); !r)
      return undo(l, r.take_error());
  if (auto r = check_unwind(l); !r)
    return undo(l, r.take_error());
  if (auto r = register_sets(l); !r)
    return undo(l, r.take_error());
  if (auto r = record_probes(l); !r)
    return undo(l, r.take_error());
  protect(l);
  taint(l);
  if (auto r = run_init(l); !r)
    return undo(l, r.take_error());
  LinkerFile *file = l.file;
  k_.log("%s: loaded at 0x%llx, %llu bytes, %zu relocations\n",
         l.fname.c_str(), (unsigned long long)file->address,
         (unsigned long long)file->size, file->relocs);
  SDT_PROBE3(kernel, kern, linker, module__reloc,
             file->modules[0]->name.c_str(), file->relocs, file->address);
  SDT_PROBE2(kernel, kern, linker, module__load,
             file->modules[0]->name.c_str(), file->id);
  return file;
}

// Read and validate the object before anything is allocated for it; learn
// which modules it declares, which must not be loaded already.
Result<void> KernelLinker::read_and_check(Load &l) {
  // The signature is checked over the very bytes that are then parsed
  // (read_object maps the file once and leaves the signature out of the
  // object), before anything is allocated for the module.
  auto objr = read_object(l.path, RelocTypes::Loadable,
                          [&](const ObjectFile &o) { return check_signature(o, l); });
  if (!objr)
    return objr.take_error();
  l.obj = std::make_shared<ObjectFile>(std::move(*objr));
  if (l.obj->arch->machine() != kMachine)
    return error(strf("%s: module is for %s, this kernel is %s",
                      l.fname.c_str(), l.obj->arch->name(),
                      arch_for_machine(kMachine)->name()));
  l.f = std::make_unique<LinkerFile>();
  l.f->name = l.fname;
  l.f->path = l.path;
  l.f->info = read_modinfo(*l.obj);
  std::vector<std::string> names;
  if (LinuxModules::is_linux(*l.obj)) {
    auto m = linux_.check(*l.obj, l.fname);
    if (!m)
      return m.take_error();
    l.f->linux_mod = *m;
    names.push_back((*m)->name);
    if (find(names[0]))
      return error(strf("%s: module %s is already loaded", l.fname.c_str(),
                        names[0].c_str()));
  } else if (!l.params.empty()) {
    return error(strf("%s: a minikern module takes no parameters (%s)",
                      l.fname.c_str(), l.params[0].c_str()));
  }
  // A plain object is one module named after its file.
  for (const auto &[k, v] : l.f->info)
    if (k == "name" && !l.f->linux_mod)
      names.push_back(v);
  if (names.empty())
    names.push_back(strip_ko(l.fname));
  for (const auto &n : names)
    if (ModuleRec *m = find_module(n))
      return error(strf("%s: module %s is already loaded from %s",
                        l.fname.c_str(), n.c_str(), m->file->name.c_str()));
  l.mark("read and check");
  return {};
}

// Linux's policy (kernel/module/signing.c): a signature that is malformed
// or does not verify is refused even without enforcement, and so is one
// that no trusted key can check when there is none to check it with; an
// unsigned module, or one well-signed by a key that is not trusted, is
// refused under --sig-enforce and otherwise loads, the latter tainting the
// kernel once its code runs (an unsigned module loads silently, as before
// signatures existed here).
Result<void> KernelLinker::check_signature(const ObjectFile &obj, Load &l) {
  const AppendedSignature &sig = obj.signature;
  const bool enforce = k_.opts().sig_enforce;
  if (!sig.present) {
    if (enforce)
      return error(obj.name + ": module is not signed (signatures are "
                              "enforced)");
    return {};
  }
  // Whether or not a key can check it, it must be a signature (Linux
  // parses the message before it looks for the key).  With no key, its
  // DER structure is read without OpenSSL, whose parse was the most
  // expensive part of reading a signed Debian module (20 µs of
  // zstd_compress.ko's 240); with a key, OpenSSL parses it to verify it.
  if (!verifier_) {
    if (auto r = check_pkcs7_shape(obj.name, sig); !r)
      return r;
    l.taint = "no trusted key to check its signature";
    return {};
  }
  if (auto r = check_signature_form(obj.name, sig); !r)
    return r;
  const SignatureVerifier::Verdict v = verifier_->verify(obj.data, sig);
  switch (v.outcome) {
  case SignatureVerifier::Outcome::Good:
    return {};
  case SignatureVerifier::Outcome::Bad:
    return error(obj.name + ": bad module signature: " + v.why);
  case SignatureVerifier::Outcome::UnknownKey:
    if (enforce)
      return error(obj.name + ": " + v.why + " (signatures are enforced)");
    l.taint = v.why;
    return {};
  }
  return {};
}

void KernelLinker::taint(Load &l) {
  if (l.taint.empty())
    return;
  // Said once, as Linux says it: the taint is the kernel's, not the
  // module's.
  if (!tainted_)
    k_.printf("%s: module verification failed: %s - tainting kernel\n",
              l.fname.c_str(), l.taint.c_str());
  tainted_ = true;
}

// MODULE_DEPEND: each dependency is found and loaded (or referenced, if
// loaded already) before anything is resolved against it.
Result<void> KernelLinker::load_dependencies(Load &l,
                                             std::vector<std::string> &chain) {
  LinkerFile &f = *l.f;
  if (f.linux_mod) {
    // softdep=pre: what modprobe loads first without binding to it (an
    // algorithm's provider, which the module asks the crypto API for by
    // name): each module that the name names, or that carries it as an
    // alias, in the module path.  A failure is said and does not stop the
    // load, which may go on without it (libcrc32c's init then fails).
    for (const std::string &d : f.linux_mod->softdep_pre) {
      std::vector<std::string> files;
      if (auto p = linux_.find_file(d))
        files.push_back(*p);
      else
        files = linux_.find_alias(d);
      for (const std::string &p : files) {
        const std::string base = basename_of(p);
        if (find(strip_ko(base)) ||
            std::find(chain.begin(), chain.end(), base) != chain.end())
          continue; // loaded, or being loaded: a softdep is no loop
        if (auto dep = load_file(p, chain, nullptr); !dep)
          k_.printf("%s: softdep %s: %s\n", f.linux_mod->name.c_str(),
                    d.c_str(), dep.error().message.c_str());
      }
    }
    // depends=: every module whose exports this one binds, loaded first.
    for (const std::string &d : f.linux_mod->depends) {
      if (LinkerFile *have = find(d); have && have->linux_mod)
        continue; // its exports are found at binding, which takes the ref
      auto p = linux_.find_file(d);
      if (!p)
        return error(strf("%s: dependency %s: not found in the module path",
                          f.linux_mod->name.c_str(), d.c_str()));
      auto dep = load_file(*p, chain, nullptr);
      if (!dep)
        return error(strf("%s: dependency %s: %s", f.linux_mod->name.c_str(),
                          d.c_str(), dep.error().message.c_str()));
      (*dep)->autoloaded = true;
      f.deps.push_back(*dep);
      (*dep)->refs++;
    }
    l.mark("dependencies");
    return {};
  }
  auto deps = parse_depends(*l.obj);
  if (!deps)
    return deps.take_error();
  for (const DependSpec &d : *deps) {
    ModuleRec *m = find_module(d.name);
    if (!m) {
      auto p = find_in_path(d.name);
      if (!p)
        return error(strf("%s: dependency %s: %s", f.name.c_str(),
                          d.name.c_str(), p.error().message.c_str()));
      auto dep = load_file(*p, chain, nullptr);
      if (!dep)
        return error(strf("%s: dependency %s: %s", f.name.c_str(),
                          d.name.c_str(), dep.error().message.c_str()));
      (*dep)->autoloaded = true;
      k_.printf("%s: loaded dependency %s\n", f.name.c_str(),
                (*dep)->name.c_str());
      // Take the reference now: if this load fails, the dependency is
      // unloaded again, it never outlives a failed load.
      f.deps.push_back(*dep);
      (*dep)->refs++;
      m = find_module(d.name);
      if (!m)
        return error(strf("%s: dependency %s: %s does not contain module %s",
                          f.name.c_str(), d.name.c_str(),
                          (*dep)->name.c_str(), d.name.c_str()));
    } else if (std::find(f.deps.begin(), f.deps.end(), m->file) ==
               f.deps.end()) {
      f.deps.push_back(m->file);
      m->file->refs++;
    }
    if (m->version < d.min || m->version > d.max)
      return error(strf("%s: needs %s version %d to %d, but version %d is "
                        "loaded",
                        f.name.c_str(), d.name.c_str(), d.min, d.max,
                        m->version));
  }
  l.mark("dependencies");
  return {};
}

// Link into the arena: kernel exports and the dependencies' globals
// (breadth first) resolve the module's undefined symbols, the probe
// providers' hooks turn probe calls into sites, the rest is linker/'s.
Result<void> KernelLinker::link(Load &l) {
  LinkerFile &f = *l.f;
  std::vector<LinkerFile *> scope(f.deps.begin(), f.deps.end());
  for (size_t i = 0; i < scope.size(); i++)
    for (LinkerFile *dd : scope[i]->deps)
      if (std::find(scope.begin(), scope.end(), dd) == scope.end())
        scope.push_back(dd);
  l.probes = k_.probes().begin_module(f.module_name());
  LinkStageMarks marks(l.obs);
  LinkOptions lo;
  lo.page_size = ModuleArena::page_size();
  lo.lookup = [&](const std::string &n) -> std::optional<u64> {
    if (f.linux_mod) {
      // The Linux namespace only; each module whose export is bound is a
      // dependency (lsmod's "Used by").
      auto s = linux_.resolve(*f.linux_mod, n, l.problems);
      if (!s)
        return std::nullopt;
      if (s->owner && std::find(f.deps.begin(), f.deps.end(), s->owner) ==
                          f.deps.end()) {
        f.deps.push_back(s->owner);
        s->owner->refs++;
      }
      return s->value;
    }
    if (auto v = kernel_symbol(n))
      return v;
    for (LinkerFile *d : scope)
      if (auto v = d->globals.find(n))
        return v;
    return std::nullopt;
  };
  lo.allocate = [&](u64 size, u64 align) -> Result<ImageMemory> {
    auto block = k_.arena().allocate(size, align, Contents::Undefined);
    if (!block)
      return error(f.name + ": " + block.error().message);
    f.block = *block;
    f.address = block->addr;
    f.size = block->size;
    return ImageMemory{block->addr, k_.arena().write_in_place(*block)};
  };
  lo.hooks = l.probes.get();
  lo.observer = &marks;
  if (f.linux_mod) {
    // Linux's init sections (.init.text, .init.rodata, .init.data ...),
    // on pages of their own, given back once init has returned.
    lo.init_section = [](const Section &s) {
      return s.name.compare(0, 5, ".init") == 0;
    };
    // Its per-CPU variables: linked at their offset in every CPU's area.
    MK_TRY(linux_.alloc_percpu(*f.linux_mod, *l.obj));
    lo.adjust = [&](const ObjectFile &, const LinkPlan &, Placement &pl) {
      LinuxModules::place_percpu(*f.linux_mod, pl);
    };
  }
  auto linked = link_image(*l.obj, lo);
  if (!l.problems.empty()) {
    // As Linux reports them: a line each, then the load fails with the
    // first.
    for (const std::string &p : l.problems)
      k_.printf("%s: %s\n", f.linux_mod->name.c_str(), p.c_str());
    return error(f.linux_mod->name + ": " + l.problems[0] +
                 (l.problems.size() > 1
                      ? strf(" (and %zu more)", l.problems.size() - 1)
                      : ""));
  }
  if (!linked)
    return linked.take_error();
  l.linked.emplace(std::move(*linked));
  f.relocs = l.linked->plan.reloc_count;
  f.sec_addr = l.linked->pl.sec_addr;
  f.dso_handle = f.address;
  return {};
}

// A Linux module's exports, init and exit, parameters and code patching,
// read from its linked image while it can still be written.
Result<void> KernelLinker::link_linux(Load &l) {
  LinuxModule &m = *l.f->linux_mod;
  // Each region's init part runs from its page-aligned start to the
  // region's last page.
  const Layout &L = l.linked->plan.layout;
  const u64 base = l.f->address, page = ModuleArena::page_size();
  auto part = [&](u64 init_off, u64 end) {
    return init_off < end ? LinuxModule::Range{base + init_off,
                                               base + align_up(end, page)}
                          : LinuxModule::Range{};
  };
  m.init_text = part(L.init_text_off, L.text_off + L.text_size);
  m.init_rodata = part(L.init_ro_off, L.ro_off + L.ro_size);
  m.init_data = part(L.init_data_off, L.data_off + L.data_size);
  MK_TRY(linux_.read_linked(m, *l.obj, *l.linked, *l.f));
  linux_.copy_percpu(m, l.linked->pl);
  l.mark("linux format");
  return {};
}

// Text read+execute, rodata and the GOT read-only; data stays read+write
// as the whole image was written.
void KernelLinker::protect(Load &l) {
  const Layout &L = l.linked->plan.layout;
  const u64 base = l.file->address;
  k_.arena().protect(base + L.text_off, L.text_size, Protect::ReadExec);
  k_.arena().protect(base + L.ro_off, L.ro_size, Protect::Read);
  l.mark("protect");
}

// The module's call-frame information, relocated, before anything can
// walk it: stack(), the watchdog and a panic's backtrace follow what it
// says, so a CIE pointer, a length or an FDE's code range aimed anywhere
// would have them read anywhere.
Result<void> KernelLinker::check_unwind(Load &l) {
  const ObjectFile &obj = *l.obj;
  const Placement &pl = l.linked->pl;
  std::vector<CodeRange> code;
  for (size_t i = 0; i < obj.sections.size(); i++)
    if ((obj.sections[i].flags & SHF_EXECINSTR) && pl.sec_addr[i])
      code.push_back({pl.sec_addr[i], pl.sec_addr[i] + obj.sections[i].size});
  for (size_t i = 0; i < obj.sections.size(); i++) {
    if (obj.sections[i].name != ".eh_frame" || !pl.sec_addr[i])
      continue;
    // Read where it runs: its pc-relative fields count from there.
    const auto *at = (const u8 *)(uintptr_t)pl.sec_addr[i];
    if (auto r = check_eh_frame(at, obj.sections[i].size, code); !r)
      return error(l.fname + ": " + r.error().message);
  }
  l.mark("check unwind data");
  return {};
}

// The file becomes visible (malloc attribution, __cxa_atexit), then what
// its linker sets declare: modules, sysctls, shell commands.
Result<void> KernelLinker::register_sets(Load &l) {
  const ObjectFile &obj = *l.obj;
  const Placement &pl = l.linked->pl;
  l.f->id = next_file_id_++;
  // A Linux module's exports are in the Linux namespace only.
  if (!l.f->linux_mod)
    l.f->globals = exported_symbols(obj, l.linked->values);
  l.f->mstats = k_.malloc_accounts().add(strip_ko(l.fname));
  {
    WriterLock g(map_mu_);
    by_addr_[l.f->address] = l.f.get();
  }
  files_.push_back(std::move(l.f));
  l.file = files_.back().get();
  LinkerFile *file = l.file;
  if (file->linux_mod)
    linux_.add_loaded(file);
  files_.front()->refs++; // every module depends on the kernel

  // Every pointer below comes from the module's relocations: each is
  // checked before it is followed (ImageReader), and a bad one fails the
  // load, which undo() unwinds.
  const ImageReader img(obj, pl);
  auto metadata = img.set("modmetadata_set");
  if (!metadata)
    return metadata.take_error();
  std::vector<std::pair<const mod_metadata *, std::string>> mds;
  for (size_t i = 0; i < metadata->size(); i++) {
    const Label what("module metadata", i);
    auto md = img.record_of<const mod_metadata>((*metadata)[i], what);
    if (!md)
      return md.take_error();
    if ((*md)->md_type != MDT_MODULE && (*md)->md_type != MDT_VERSION)
      continue; // MDT_DEPEND: .modinfo says it, before the link
    auto cval = img.string((u64)(uintptr_t)(*md)->md_cval, what.part("name"),
                           true);
    if (!cval)
      return cval.take_error();
    mds.emplace_back(*md, *cval);
  }
  for (const auto &[md, cval] : mds) {
    if (md->md_type != MDT_MODULE)
      continue;
    const Label what("module", cval);
    auto data = img.record_of<moduledata_t>((u64)(uintptr_t)md->md_data,
                                            what.part("data"));
    if (!data)
      return data.take_error();
    auto name = img.string((u64)(uintptr_t)(*data)->name, what.part("name"),
                           true);
    if (!name)
      return name.take_error();
    auto handler = img.function((u64)(uintptr_t)(*data)->evhand,
                                what.part("event handler"), true);
    if (!handler)
      return handler.take_error();
    auto m = std::make_unique<ModuleRec>();
    m->id = next_module_id_++;
    m->data = *data;
    m->name = *name;
    m->file = file;
    m->version = 1;
    file->modules.push_back(std::move(m));
  }
  for (const auto &[md, cval] : mds) {
    if (md->md_type != MDT_VERSION)
      continue;
    auto v = img.record_of<const mod_version>(
        (u64)(uintptr_t)md->md_data, Label("module", cval).part("version"));
    if (!v)
      return v.take_error();
    for (auto &m : file->modules)
      if (m->name == cval)
        m->version = (*v)->mv_version;
  }
  if (file->modules.empty()) {
    auto m = std::make_unique<ModuleRec>();
    m->id = next_module_id_++;
    m->name = file->linux_mod ? file->linux_mod->name : strip_ko(l.fname);
    m->file = file;
    m->version = 1;
    file->modules.push_back(std::move(m));
  }
  auto oids = img.set("sysctl_set");
  if (!oids)
    return oids.take_error();
  for (size_t i = 0; i < oids->size(); i++) {
    const Label what("sysctl", i);
    auto oid = img.record_of<sysctl_oid>((*oids)[i], what);
    if (!oid)
      return oid.take_error();
    const sysctl_oid &o = **oid;
    auto name = img.string((u64)(uintptr_t)o.oid_name, what.part("name"));
    if (!name)
      return name.take_error();
    const Label node("sysctl", *name);
    auto descr = img.string((u64)(uintptr_t)o.oid_descr,
                            node.part("description"), true);
    if (!descr)
      return descr.take_error();
    // The kernel reads the variable, and writes it if it is writable.
    const u64 len = o.oid_kind == CTLTYPE_INT ? sizeof(int) : o.oid_len;
    const u64 align = o.oid_kind == CTLTYPE_INT ? alignof(int) : 1;
    auto var = (o.oid_flags & CTLFLAG_WR)
                   ? img.writable((u64)(uintptr_t)o.oid_arg, len, align,
                                  node.part("variable"))
                   : img.record((u64)(uintptr_t)o.oid_arg, len, align,
                                node.part("variable"));
    if (!var)
      return var.take_error();
    if (o.oid_kind == CTLTYPE_STRING && o.oid_len == 0)
      return error(strf("%s: %s: a string of 0 bytes", l.fname.c_str(),
                        node.str().c_str()));
    if (auto r = k_.sysctl().add_oid(*oid, file); !r)
      return error(l.fname + ": " + r.error().message);
  }
  auto cmds = img.set("shell_cmd_set");
  if (!cmds)
    return cmds.take_error();
  for (size_t i = 0; i < cmds->size(); i++) {
    const Label what("shell command", i);
    auto sc = img.record_of<shell_cmd>((*cmds)[i], what);
    if (!sc)
      return sc.take_error();
    auto name = img.string((u64)(uintptr_t)(*sc)->sc_name, what.part("name"));
    if (!name)
      return name.take_error();
    const Label cmd("shell command", *name);
    for (auto r : {img.string((u64)(uintptr_t)(*sc)->sc_usage,
                              cmd.part("usage"), true),
                   img.string((u64)(uintptr_t)(*sc)->sc_descr,
                              cmd.part("description"), true)})
      if (!r)
        return r.take_error();
    if (auto fn = img.function((u64)(uintptr_t)(*sc)->sc_func,
                               cmd.part("function"));
        !fn)
      return fn.take_error();
    if (auto r = k_.shell().add_module_command(*sc, file); !r)
      return error(l.fname + ": " + r.error().message);
    file->commands.push_back((*sc)->sc_name);
  }
  auto fini = img.array(".fini_array");
  if (!fini)
    return fini.take_error();
  file->fini = std::move(*fini);
  l.mark("register sets");
  return {};
}

// Every provider creates the module's probes (before its code first runs,
// so MOD_LOAD's own probes can be enabled).
Result<void> KernelLinker::record_probes(Load &l) {
  LinkerFile &f = *l.file;
  ModuleImage m{&f,     f.module_name(), *l.obj, l.linked->pl,
                f.address, f.size,         l.obj};
  l.probes_provided = true;
  MK_TRY(k_.probes().provide_module(*l.probes, m));
  l.probes.reset();
  l.mark("record probes");
  return {};
}

// Constructors, then each module's MOD_LOAD handler.
Result<void> KernelLinker::run_init(Load &l) {
  LinkerFile &file = *l.file;
  if (LinuxModule *lm = file.linux_mod.get()) {
    // Parameters, then init_module(): Linux's do_init_module().
    MK_TRY(linux_.set_params(*lm, file, l.params));
    if (lm->init && k_.opts().run_module_code) {
      const int rc = module_call((int (*)())(uintptr_t)lm->init);
      if (rc < 0)
        return error(strf("%s: init_module failed: %s (%d)", lm->name.c_str(),
                          std::strerror(-rc), rc));
      if (rc > 0)
        k_.printf("%s: 'init_module'->init suspiciously returned %d, it "
                  "should follow 0/-E convention\n",
                  lm->name.c_str(), rc);
    }
    free_init(file);
    for (auto &m : file.modules)
      m->loaded = true;
    l.mark("init");
    return {};
  }
  auto init = ImageReader(*l.obj, l.linked->pl).array(".init_array");
  if (!init)
    return init.take_error();
  const bool run = k_.opts().run_module_code;
  for (u64 fn : *init)
    if (run)
      module_call((void (*)())(uintptr_t)fn);
  for (auto &m : file.modules) {
    if (!m->data || !m->data->evhand || !run) {
      m->loaded = true;
      continue;
    }
    int err = module_call(m->data->evhand, (module_t)m.get(), MOD_LOAD,
                          m->data->priv);
    if (err)
      return error(strf("%s: module %s failed to load (MOD_LOAD returned %d)",
                        l.fname.c_str(), m->name.c_str(), err));
    m->loaded = true;
  }
  l.mark("init");
  return {};
}

// Linux's do_init_module() after a successful init: the init sections'
// memory goes back, and first everything that points into it (WARN and
// static-key sites, fbt probes, the code map's names and unwind entries).
void KernelLinker::free_init(LinkerFile &f) {
  LinuxModule &m = *f.linux_mod;
  if (m.init_freed)
    return;
  m.init_freed = true;
  linux_.free_init(m, &f);
  if (m.init_text.lo < m.init_text.hi && k_.has_probes())
    k_.probes().free_code(&f, m.init_text.lo, m.init_text.hi, f.name);
  for (const LinuxModule::Range &r : {m.init_text, m.init_rodata, m.init_data})
    k_.arena().discard(r.lo, r.hi - r.lo);
}

Error KernelLinker::undo(Load &l, Error e) {
  LinkerFile *f = l.file ? l.file : l.f.get();
  if (!f)
    return e;
  if (l.file) {
    // Registered: its modules' handlers, threads and probes go as at
    // unload, then the registration.
    teardown(*l.file);
    auto owned = std::find_if(files_.begin(), files_.end(),
                              [&](auto &p) { return p.get() == l.file; });
    l.f = std::move(*owned);
    files_.erase(owned);
  } else if (l.probes_provided) {
    k_.probes().remove_module(f, f->name);
  }
  if (f->linux_mod)
    linux_.remove_loaded(f); // its static keys' sites, if not registered
  // Stubs the probe hooks made go with them.
  l.probes.reset();
  if (f->block.size)
    k_.arena().release(f->block);
  for (LinkerFile *d : f->deps)
    d->refs--;
  // Dependencies this load brought in go again, newest first.
  for (auto it = f->deps.rbegin(); it != f->deps.rend(); ++it)
    if ((*it)->autoloaded && (*it)->refs == 1 && dependents(*it).empty())
      (void)unload(*it);
  return e;
}

// ---- unloading ------------------------------------------------------------------

// Everything after the unload handlers.  The module's probes keep firing
// until its last code has run (its callouts, threads and destructors); then
// they go, and nothing can call into the module any more.
void KernelLinker::teardown(LinkerFile &f) {
  // MOD_UNLOAD for modules still loaded (a failed load unwinds these too).
  for (auto it = f.modules.rbegin(); it != f.modules.rend(); ++it) {
    ModuleRec &m = **it;
    if (m.loaded && m.data && m.data->evhand && k_.opts().run_module_code)
      module_call(m.data->evhand, (module_t)&m, MOD_UNLOAD, m.data->priv);
    m.loaded = false;
  }
  // Handlers it left attached come off before anything of it is torn
  // down (they may use what its destructors free).
  for (const HandlerInfo &h : k_.probes().detach_module_handlers(&f))
    k_.printf("%s: handler %s detached from %s at unload\n", f.name.c_str(),
              h.function.c_str(), h.key.c_str());
  // No new way in: its commands and sysctls.
  k_.shell().remove_owned_by(&f);
  k_.sysctl().remove_owned_by(&f);
  // What it left running.
  const u64 lo = f.address, hi = f.address + f.size;
  if (int n = k_.cpus().drain_range(lo, hi))
    k_.printf("%s: drained %d callout%s the module left armed\n",
              f.name.c_str(), n, n == 1 ? "" : "s");
  k_.kthreads().join_range(lo, hi, [&](const std::string &name) {
    k_.printf("%s: waiting for kernel thread %s\n", f.name.c_str(),
              name.c_str());
  });
  if (f.linux_mod) {
    // What the Linux API holds for it (timers, queued work, RCU
    // callbacks), then its parameters' memory (a charp's string).
    if (linux_module_gone)
      linux_module_gone(lo, hi);
    linux_.free_params(*f.linux_mod);
    linux_.remove_loaded(&f);
  }
  // C++ global destructors (registered at construction), then .fini_array.
  std::vector<std::pair<void (*)(void *), void *>> dtors;
  {
    WriterLock g(map_mu_);
    if (auto it = atexit_.find(f.address); it != atexit_.end()) {
      dtors = std::move(it->second);
      atexit_.erase(it);
    }
  }
  for (auto it = dtors.rbegin(); it != dtors.rend(); ++it)
    module_call(it->first, it->second);
  for (auto it = f.fini.rbegin(); it != f.fini.rend(); ++it)
    if (k_.opts().run_module_code)
      module_call((void (*)())(uintptr_t)*it);
  f.fini.clear();
  // Its last code has run: its probes go (sites restored, enablings told,
  // a grace period for handlers still inside).
  k_.probes().remove_module(&f, f.name);
  if (f.mstats && f.mstats->memuse > 0)
    k_.printf("%s: module leaked %lld bytes in %lld allocation%s\n",
              f.name.c_str(), (long long)f.mstats->memuse.load(),
              (long long)f.mstats->inuse.load(),
              f.mstats->inuse == 1 ? "" : "s");
  if (f.mstats)
    k_.malloc_accounts().retire(f.mstats);
  {
    WriterLock g(map_mu_);
    by_addr_.erase(f.address);
  }
  files_.front()->refs--;
}

Result<void> KernelLinker::unload(LinkerFile *f, LoadObserver *obs,
                                  bool force) {
  if (f == files_.front().get())
    return error("kernel: the kernel cannot be unloaded");
  auto users = dependents(f);
  if (!users.empty()) {
    std::string list;
    for (auto *u : users)
      list += (list.empty() ? "" : ", ") + u->name;
    return error(strf("%s: in use by %s", f->name.c_str(), list.c_str()));
  }
  for (auto &m : f->modules)
    if (int h = m->holds.load())
      return error(strf("%s: module %s is busy (%d reference%s held)",
                        f->name.c_str(), m->name.c_str(), h,
                        h == 1 ? "" : "s"));
  const bool run = k_.opts().run_module_code;
  if (LinuxModule *lm = f->linux_mod.get()) {
    // Linux's delete_module(): a module with init and no exit stays.
    if (lm->has_init && !lm->exit && !force)
      return error(strf("%s: has no exit function, so it cannot be unloaded",
                        lm->name.c_str()));
    if (lm->exit && run)
      module_call((void (*)())(uintptr_t)lm->exit);
    for (auto &m : f->modules)
      m->loaded = false;
  }
  // Ask every module first; any veto leaves everything loaded.
  for (auto it = f->modules.rbegin(); it != f->modules.rend(); ++it) {
    ModuleRec &m = **it;
    if (!m.loaded || !m.data || !m.data->evhand || !run)
      continue;
    int err = module_call(m.data->evhand, (module_t)&m, MOD_QUIESCE,
                          m.data->priv);
    if (err)
      return error(strf("%s: module %s refused to unload (MOD_QUIESCE "
                        "returned %d)",
                        f->name.c_str(), m.name.c_str(), err));
  }
  for (auto it = f->modules.rbegin(); it != f->modules.rend(); ++it) {
    ModuleRec &m = **it;
    if (!m.loaded || !m.data || !m.data->evhand || !run) {
      m.loaded = false;
      continue;
    }
    int err = module_call(m.data->evhand, (module_t)&m, MOD_UNLOAD,
                          m.data->priv);
    if (err)
      return error(strf("%s: module %s refused to unload (MOD_UNLOAD "
                        "returned %d)",
                        f->name.c_str(), m.name.c_str(), err));
    m.loaded = false;
  }
  if (obs)
    obs->stage_done("unload handlers");
  SDT_PROBE2(kernel, kern, linker, module__unload,
             f->modules[0]->name.c_str(), f->id);
  teardown(*f);
  if (obs)
    obs->stage_done("teardown");
  forget(f);
  if (obs)
    obs->stage_done("free");
  return {};
}

void KernelLinker::forget(LinkerFile *f) {
  k_.arena().release(f->block);
  for (LinkerFile *d : f->deps)
    d->refs--;
  k_.log("%s: unloaded\n", f->name.c_str());
  auto it = std::find_if(files_.begin(), files_.end(),
                         [&](auto &p) { return p.get() == f; });
  files_.erase(it);
}

void KernelLinker::unload_all() {
  // Newest first, so dependents go before what they depend on; but a file
  // whose modules someone holds waits for the holders, which may be older
  // (a Linux module's crypto tfm holds the module that provides its
  // algorithm, loaded after it).  Only a file that every other one waits
  // for (a hold nobody gives back) goes as it is.
  auto free_to_go = [&](LinkerFile *f) {
    for (auto &m : f->modules)
      if (m->holds.load())
        return false;
    return dependents(f).empty();
  };
  while (files_.size() > 1) {
    LinkerFile *f = files_.back().get();
    for (size_t i = files_.size() - 1; i > 0; i--)
      if (free_to_go(files_[i].get())) {
        f = files_[i].get();
        break;
      }
    for (auto &m : f->modules)
      if (m->loaded && m->data && m->data->evhand && k_.opts().run_module_code)
        module_call(m->data->evhand, (module_t)m.get(), MOD_SHUTDOWN,
                    m->data->priv);
    for (auto &m : f->modules)
      m->holds = 0;
    auto r = unload(f);
    if (!r) {
      // Shutting down: a veto cannot keep the module, but it is reported.
      k_.printf("shutdown: %s; unloading anyway\n", r.error().message.c_str());
      teardown(*f);
      forget(f);
    }
  }
}

} // namespace mk
