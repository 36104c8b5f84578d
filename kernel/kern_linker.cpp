// The kernel's module loader: finds .ko files on the module path, drives the
// link stages of linker/ into the module arena, registers what a module
// brings (linker sets: modules, sysctls, shell commands), runs its
// constructors and load handlers, and undoes all of it on failure or unload.
//
// Load is a pipeline read top to bottom in load_file(); each stage either
// succeeds or leaves the kernel exactly as it was before the load began.
#include "export.h"
#include "kernel.h"

#include "../linker/link.h"
#include "../sdt/names.h"
#include "../sdt/sdt.h"

#include <sys/module.h>
#include <sys/sdt.h>
#include <sys/shell.h>
#include <sys/sysctl.h>

#include <algorithm>
#include <map>
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

// Pointers in a linker set of the loaded image.
template <class T>
std::vector<T *> image_set(const ObjectFile &obj, const Placement &pl,
                           const std::string &set) {
  std::vector<T *> out;
  const std::string name = "set_" + set;
  for (size_t i = 0; i < obj.sections.size(); i++) {
    if (obj.sections[i].name != name || !pl.sec_addr[i])
      continue;
    auto **p = (T **)(uintptr_t)pl.sec_addr[i];
    size_t n = obj.sections[i].size / sizeof(void *);
    out.insert(out.end(), p, p + n);
  }
  return out;
}

// .init_array / .fini_array entries: the priority-suffixed sections first,
// lowest priority number first, then the plain one.
std::vector<u64> image_array(const ObjectFile &obj, const Placement &pl,
                             const std::string &base) {
  std::vector<std::pair<unsigned long, size_t>> secs;
  for (size_t i = 0; i < obj.sections.size(); i++) {
    const std::string &n = obj.sections[i].name;
    if (!pl.sec_addr[i] || n.compare(0, base.size(), base) != 0)
      continue;
    if (n.size() == base.size())
      secs.emplace_back(ULONG_MAX, i);
    else if (n[base.size()] == '.')
      secs.emplace_back(std::strtoul(n.c_str() + base.size() + 1, nullptr, 10),
                        i);
  }
  std::stable_sort(secs.begin(), secs.end());
  std::vector<u64> out;
  for (auto [prio, i] : secs) {
    (void)prio;
    auto *p = (uintptr_t *)(uintptr_t)pl.sec_addr[i];
    for (size_t k = 0; k < obj.sections[i].size / sizeof(void *); k++)
      out.push_back(p[k]);
  }
  return out;
}

} // namespace

KernelLinker::~KernelLinker() = default;

void KernelLinker::init_kernel_file() {
  auto f = std::make_unique<LinkerFile>();
  f->id = next_file_id_++;
  f->name = "kernel";
  f->path = k_.self_path;
  f->address = (u64)(uintptr_t)__executable_start;
  f->size = (u64)((uintptr_t)_end - (uintptr_t)__executable_start);
  f->mstats = k_.kernel_mstats;
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
  std::shared_lock<std::shared_mutex> g(map_mu_);
  auto it = by_addr_.upper_bound(addr);
  if (it == by_addr_.begin())
    return nullptr;
  --it;
  LinkerFile *f = it->second;
  return addr < f->address + f->size ? f : nullptr;
}

Result<std::string> KernelLinker::find_in_path(const std::string &name) const {
  if (name.find('/') != std::string::npos) {
    if (file_exists(name))
      return name;
    return error(name + ": no such file");
  }
  for (const auto &dir : k_.opts.module_path)
    for (const std::string &cand : {name, name + ".ko"})
      if (file_exists(dir + "/" + cand))
        return dir + "/" + cand;
  // A module whose name differs from its file's: look inside each .ko.
  for (const auto &dir : k_.opts.module_path) {
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
  for (const auto &d : k_.opts.module_path)
    dirs += (dirs.empty() ? "" : ":") + d;
  return error(strf("%s: module not found in the module path (%s)",
                    name.c_str(), dirs.empty() ? "empty" : dirs.c_str()));
}

Result<LinkerFile *> KernelLinker::load(const std::string &name_or_path) {
  auto path = find_in_path(name_or_path);
  if (!path)
    return path.take_error();
  std::vector<std::string> chain;
  auto f = load_file(*path, chain);
  if (!f)
    SDT_PROBE2(kernel, kern, linker, module__load__failed,
               name_or_path.c_str(), f.error().message.c_str());
  return f;
}

Result<void> KernelLinker::load_dependencies(LinkerFile &f, ObjectFile &obj,
                                             std::vector<std::string> &chain) {
  auto deps = parse_depends(obj);
  if (!deps)
    return deps.take_error();
  for (const DependSpec &d : *deps) {
    ModuleRec *m = find_module(d.name);
    if (!m) {
      auto p = find_in_path(d.name);
      if (!p)
        return error(strf("%s: dependency %s: %s", f.name.c_str(),
                          d.name.c_str(), p.error().message.c_str()));
      auto dep = load_file(*p, chain);
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
  return {};
}

// The load pipeline.  `chain` lists the files being loaded above this one,
// to refuse dependency loops.
Result<LinkerFile *> KernelLinker::load_file(const std::string &path,
                                             std::vector<std::string> &chain) {
  const std::string fname = basename_of(path);
  for (auto &g : files_)
    if (g->name == fname)
      return error(strf("%s: module already loaded (id %d)", fname.c_str(),
                        g->id));
  if (std::find(chain.begin(), chain.end(), fname) != chain.end()) {
    std::string loop;
    for (const auto &c : chain)
      loop += c + " -> ";
    return error(strf("%s: dependency loop: %s%s", fname.c_str(),
                      loop.c_str(), fname.c_str()));
  }

  // Read and validate, before anything is allocated.
  auto objr = read_object(path);
  if (!objr)
    return objr.take_error();
  ObjectFile &obj = *objr;
  if (obj.arch->machine() != kMachine)
    return error(strf("%s: module is for %s, this kernel is %s",
                      fname.c_str(), obj.arch->name(),
                      arch_for_machine(kMachine)->name()));

  auto f = std::make_unique<LinkerFile>();
  f->name = fname;
  f->path = path;
  f->info = read_modinfo(obj);
  // Which modules the file declares, from .modinfo; a plain object is one
  // module named after its file.
  std::vector<std::string> names;
  for (const auto &[k, v] : f->info)
    if (k == "name")
      names.push_back(v);
  if (names.empty())
    names.push_back(strip_ko(fname));
  for (const auto &n : names)
    if (ModuleRec *m = find_module(n))
      return error(strf("%s: module %s is already loaded from %s",
                        fname.c_str(), n.c_str(), m->file->name.c_str()));

  // From here on a failure must undo: `undo` runs on every early return.
  bool registered = false;
  auto undo = [&](Error e) -> Error {
    if (registered)
      run_unload_steps(*f);
    if (f->block.size)
      k_.arena->release(f->block);
    for (LinkerFile *d : f->deps)
      d->refs--;
    // Dependencies this load brought in go again, newest first.
    for (auto it = f->deps.rbegin(); it != f->deps.rend(); ++it)
      if ((*it)->autoloaded && (*it)->refs == 1 && dependents(*it).empty())
        (void)unload(*it);
    return e;
  };

  // Dependencies: found and loaded before anything is resolved against them.
  chain.push_back(fname);
  auto deps = load_dependencies(*f, obj, chain);
  chain.pop_back();
  if (!deps)
    return undo(deps.take_error());

  // Bind every undefined symbol: kernel exports, then the dependencies'
  // globals (breadth first); all misses are named in one error.
  std::vector<LinkerFile *> scope;
  for (LinkerFile *d : f->deps)
    scope.push_back(d);
  for (size_t i = 0; i < scope.size(); i++)
    for (LinkerFile *dd : scope[i]->deps)
      if (std::find(scope.begin(), scope.end(), dd) == scope.end())
        scope.push_back(dd);
  // Probe functions: a probe symbol binds to a stub of its own, for code
  // that loads its address; calls and jumps to it become NOP sleds.
  struct ProbeHooks : LinkHooks {
    Kernel &k;
    const std::string &fname;
    std::vector<PendingSite> sites;
    ProbeHooks(Kernel &kk, const std::string &f) : k(kk), fname(f) {}
    std::optional<Result<u64>> bind(const std::string &n) override {
      if (!is_probe_symbol(n))
        return std::nullopt;
      auto stub = k.sdt->make_stub(n);
      if (!stub)
        return Result<u64>(error(fname + ": " + stub.error().message));
      return stub;
    }
    bool claims(const Symbol &s) const override {
      return is_probe_symbol(s.name);
    }
    Result<bool> take(const SiteContext &c) override {
      return k.sdt->take_site(c, sites);
    }
  } hooks(k_, fname);
  LinkOptions lo;
  lo.page_size = ModuleArena::page_size();
  lo.lookup = [&](const std::string &n) -> std::optional<u64> {
    if (auto v = kernel_symbol(n))
      return v;
    for (LinkerFile *d : scope) {
      if (auto v = d->globals.find(n))
        return v;
    }
    return std::nullopt;
  };
  lo.allocate = [&](u64 size, u64 align) -> Result<ImageMemory> {
    auto block = k_.arena->allocate(size, align);
    if (!block)
      return error(fname + ": " + block.error().message);
    f->block = *block;
    f->address = block->addr;
    f->size = block->size;
    return ImageMemory{block->addr, k_.arena->alias(block->addr)};
  };
  lo.hooks = &hooks;
  auto linked = link_image(obj, lo);
  if (!linked)
    return undo(linked.take_error());
  const LinkPlan *plan = &linked->plan;
  const Placement &pl = linked->pl;
  std::vector<u64> &values = linked->values;
  std::vector<PendingSite> &sites = hooks.sites;
  const ModuleArena::Block *block = &f->block;
  f->relocs = plan->reloc_count;
  f->dso_handle = block->addr;

  // Protect: text read+execute, rodata and GOT read-only, data read+write.
  const Layout &L = plan->layout;
  k_.arena->protect(block->addr + L.text_off, L.text_size, Protect::ReadExec);
  k_.arena->protect(block->addr + L.ro_off, L.ro_size, Protect::Read);
  k_.arena->protect(block->addr + L.data_off, L.data_size,
                    Protect::ReadWrite);

  // Register: the file becomes visible (malloc attribution, __cxa_atexit),
  // then what its linker sets declare.
  f->id = next_file_id_++;
  f->globals = exported_symbols(obj, values);
  f->mstats = k_.new_mstats(strip_ko(fname));
  {
    std::unique_lock<std::shared_mutex> g(map_mu_);
    by_addr_[f->address] = f.get();
  }
  files_.push_back(std::move(f));
  LinkerFile *file = files_.back().get();
  // `f` is now empty; the undo path works on the registered file.
  auto fail = [&](Error e) -> Error {
    auto owned = std::find_if(files_.begin(), files_.end(),
                              [&](auto &p) { return p.get() == file; });
    f = std::move(*owned);
    files_.erase(owned);
    registered = true;
    return undo(std::move(e));
  };
  files_.front()->refs++; // every module depends on the kernel

  for (mod_metadata *md : image_set<mod_metadata>(obj, pl, "modmetadata_set")) {
    if (md->md_type == MDT_MODULE) {
      auto m = std::make_unique<ModuleRec>();
      m->id = next_module_id_++;
      m->data = (moduledata_t *)md->md_data;
      m->name = m->data->name ? m->data->name : "";
      m->file = file;
      m->version = 1;
      file->modules.push_back(std::move(m));
    }
  }
  for (mod_metadata *md : image_set<mod_metadata>(obj, pl, "modmetadata_set"))
    if (md->md_type == MDT_VERSION)
      for (auto &m : file->modules)
        if (m->name == (md->md_cval ? md->md_cval : ""))
          m->version = ((const mod_version *)md->md_data)->mv_version;
  if (file->modules.empty()) {
    auto m = std::make_unique<ModuleRec>();
    m->id = next_module_id_++;
    m->name = strip_ko(fname);
    m->file = file;
    m->version = 1;
    file->modules.push_back(std::move(m));
  }
  for (sysctl_oid *oid : image_set<sysctl_oid>(obj, pl, "sysctl_set")) {
    auto r = k_.sysctl.add_oid(oid, file);
    if (!r)
      return fail(error(fname + ": " + r.error().message));
  }
  for (shell_cmd *sc : image_set<shell_cmd>(obj, pl, "shell_cmd_set")) {
    auto r = k_.shell.add_module_command(sc, file);
    if (!r)
      return fail(error(fname + ": " + r.error().message));
    file->commands.push_back(sc->sc_name);
  }
  file->fini = image_array(obj, pl, ".fini_array");
  k_.sdt->add_module_probes(*file, obj, pl, std::move(sites),
                            image_set<sdt_probedef>(obj, pl, "sdt_probes_set"));

  // Init: constructors, then each module's MOD_LOAD handler.
  for (u64 fn : image_array(obj, pl, ".init_array"))
    ((void (*)())(uintptr_t)fn)();
  for (auto &m : file->modules) {
    if (!m->data || !m->data->evhand) {
      m->loaded = true;
      continue;
    }
    int err = m->data->evhand((module_t)m.get(), MOD_LOAD, m->data->priv);
    if (err)
      return fail(error(strf("%s: module %s failed to load (MOD_LOAD "
                             "returned %d)",
                             fname.c_str(), m->name.c_str(), err)));
    m->loaded = true;
  }
  k_.log("%s: loaded at 0x%llx, %llu bytes, %zu relocations\n", fname.c_str(),
         (unsigned long long)file->address, (unsigned long long)file->size,
         file->relocs);
  SDT_PROBE3(kernel, kern, linker, module__reloc, file->modules[0]->name.c_str(),
             file->relocs, file->address);
  SDT_PROBE2(kernel, kern, linker, module__load,
             file->modules[0]->name.c_str(), file->id);
  return file;
}

// Everything after the unload handlers: quiesce, destruct, free, forget.
void KernelLinker::run_unload_steps(LinkerFile &f) {
  // MOD_UNLOAD for modules still loaded (a failed load unwinds these too).
  for (auto it = f.modules.rbegin(); it != f.modules.rend(); ++it) {
    ModuleRec &m = **it;
    if (m.loaded && m.data && m.data->evhand)
      m.data->evhand((module_t)&m, MOD_UNLOAD, m.data->priv);
    m.loaded = false;
  }
  // Nothing may call into the module once its memory is gone.
  k_.sdt->remove_module_probes(f);
  k_.shell.remove_owned_by(&f);
  k_.sysctl.remove_owned_by(&f);
  u64 lo = f.address, hi = f.address + f.size;
  if (int n = k_.cpus.drain_range(lo, hi))
    k_.printf("%s: drained %d callout%s the module left armed\n",
              f.name.c_str(), n, n == 1 ? "" : "s");
  {
    std::vector<KThread *> mine;
    {
      std::lock_guard<std::mutex> g(k_.kthreads_mu);
      for (auto &t : k_.kthreads)
        if (t->fn >= lo && t->fn < hi)
          mine.push_back(t.get());
    }
    for (KThread *t : mine) {
      k_.printf("%s: waiting for kernel thread %s\n", f.name.c_str(),
                t->name.c_str());
      if (t->thread.joinable())
        t->thread.join();
    }
  }
  // C++ global destructors (registered at construction), then .fini_array.
  for (auto it = f.atexit.rbegin(); it != f.atexit.rend(); ++it)
    it->first(it->second);
  f.atexit.clear();
  for (auto it = f.fini.rbegin(); it != f.fini.rend(); ++it)
    ((void (*)())(uintptr_t)*it)();
  f.fini.clear();
  if (f.mstats && f.mstats->memuse > 0)
    k_.printf("%s: module leaked %lld bytes in %lld allocation%s\n",
              f.name.c_str(), (long long)f.mstats->memuse.load(),
              (long long)f.mstats->inuse.load(),
              f.mstats->inuse == 1 ? "" : "s");
  {
    std::unique_lock<std::shared_mutex> g(map_mu_);
    by_addr_.erase(f.address);
  }
  files_.front()->refs--;
}

Result<void> KernelLinker::unload(LinkerFile *f) {
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
  // Ask every module first; any veto leaves everything loaded.
  for (auto it = f->modules.rbegin(); it != f->modules.rend(); ++it) {
    ModuleRec &m = **it;
    if (!m.loaded || !m.data || !m.data->evhand)
      continue;
    int err = m.data->evhand((module_t)&m, MOD_QUIESCE, m.data->priv);
    if (err)
      return error(strf("%s: module %s refused to unload (MOD_QUIESCE "
                        "returned %d)",
                        f->name.c_str(), m.name.c_str(), err));
  }
  for (auto it = f->modules.rbegin(); it != f->modules.rend(); ++it) {
    ModuleRec &m = **it;
    if (!m.loaded || !m.data || !m.data->evhand)
      continue;
    int err = m.data->evhand((module_t)&m, MOD_UNLOAD, m.data->priv);
    if (err)
      return error(strf("%s: module %s refused to unload (MOD_UNLOAD "
                        "returned %d)",
                        f->name.c_str(), m.name.c_str(), err));
    m.loaded = false;
  }
  SDT_PROBE2(kernel, kern, linker, module__unload,
             f->modules[0]->name.c_str(), f->id);
  run_unload_steps(*f);
  forget(f);
  return {};
}

void KernelLinker::forget(LinkerFile *f) {
  k_.arena->release(f->block);
  for (LinkerFile *d : f->deps)
    d->refs--;
  k_.log("%s: unloaded\n", f->name.c_str());
  auto it = std::find_if(files_.begin(), files_.end(),
                         [&](auto &p) { return p.get() == f; });
  files_.erase(it);
}

void KernelLinker::unload_all() {
  // Newest first, so dependents go before what they depend on.
  while (files_.size() > 1) {
    LinkerFile *f = files_.back().get();
    for (auto &m : f->modules)
      if (m->loaded && m->data && m->data->evhand)
        m->data->evhand((module_t)m.get(), MOD_SHUTDOWN, m->data->priv);
    for (auto &m : f->modules)
      m->holds = 0;
    auto r = unload(f);
    if (!r) {
      // Shutting down: a veto cannot keep the module, but it is reported.
      k_.printf("shutdown: %s; unloading anyway\n", r.error().message.c_str());
      run_unload_steps(*f);
      forget(f);
    }
  }
}

} // namespace mk
