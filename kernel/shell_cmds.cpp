// The shell's built-in commands, in the formats people know: FreeBSD's
// kldload/kldunload/kldstat/sysctl/vmstat -m, Linux's insmod/rmmod/lsmod/
// modinfo, and dmesg, help, halt.  Every error is one line that starts with
// the command's name.
#include "kernel.h"
#include "module_sig.h"
#include "sysinit.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <elf.h>
#include <unistd.h>

namespace mk {

namespace {

using Args = std::vector<std::string>;

int fail(Kernel &k, const std::string &cmd, const std::string &msg) {
  k.error_line(cmd + ": " + msg);
  return 1;
}

std::string module_label(const std::string &file) {
  return file.size() > 3 && file.compare(file.size() - 3, 3, ".ko") == 0
             ? file.substr(0, file.size() - 3)
             : file;
}

// lsmod's name: a Linux module's own ("crc_itu_t"), else the file's.
std::string lsmod_name(const LinkerFile *f) {
  return f->linux_mod ? f->linux_mod->name : module_label(f->name);
}

int cmd_kldload(Kernel &k, Args &a) {
  bool verbose = false;
  int rc = 0, n = 0;
  for (size_t i = 1; i < a.size(); i++) {
    if (a[i] == "-v") {
      verbose = true;
      continue;
    }
    n++;
    auto r = k.linker().load(a[i]);
    if (!r) {
      rc = fail(k, a[0], r.error().message);
      continue;
    }
    if (verbose)
      k.printf("Loaded %s, id=%d\n", (*r)->path.c_str(), (*r)->id);
  }
  if (!n)
    return fail(k, a[0], "usage: kldload [-v] file ...");
  return rc;
}

int cmd_kldunload(Kernel &k, Args &a) {
  bool verbose = false;
  int rc = 0, n = 0;
  for (size_t i = 1; i < a.size(); i++) {
    std::string key = a[i];
    if (key == "-v") {
      verbose = true;
      continue;
    }
    if ((key == "-i" || key == "-n") && i + 1 < a.size())
      key = a[++i];
    n++;
    LinkerFile *f = k.linker().find(key);
    if (!f) {
      rc = fail(k, a[0], "can't find file " + key);
      continue;
    }
    std::string name = f->name;
    int id = f->id;
    auto r = k.linker().unload(f);
    if (!r) {
      rc = fail(k, a[0], r.error().message);
      continue;
    }
    if (verbose)
      k.printf("Unloading %s, id=%d\n", name.c_str(), id);
  }
  if (!n)
    return fail(k, a[0], "usage: kldunload [-v] name | id ...");
  return rc;
}

void print_kldstat_line(Kernel &k, LinkerFile *f, bool verbose) {
  const int pw = (int)sizeof(void *) * 2 + 2;
  k.printf("%2d %4d %*p %8llx %s", f->id, f->refs, pw,
           (void *)(uintptr_t)f->address, (unsigned long long)f->size,
           f->name.c_str());
  if (!verbose) {
    k.printf("\n");
    return;
  }
  k.printf(" (%s)\n", f->path.c_str());
  k.printf("\tContains modules:\n");
  k.printf("\t\t Id Name\n");
  for (auto &m : f->modules)
    k.printf("\t\t%3d %s\n", m->id, m->name.c_str());
}

int cmd_kldstat(Kernel &k, Args &a) {
  bool verbose = false;
  std::string only;
  for (size_t i = 1; i < a.size(); i++) {
    if (a[i] == "-v")
      verbose = true;
    else if ((a[i] == "-i" || a[i] == "-n") && i + 1 < a.size())
      only = a[++i];
    else
      return fail(k, a[0], "usage: kldstat [-v] [-i id] [-n filename]");
  }
  const int pw = (int)sizeof(void *) * 2 + 2;
  std::vector<LinkerFile *> files = k.linker().files();
  if (!only.empty()) {
    LinkerFile *f = k.linker().find(only);
    if (!f)
      return fail(k, a[0], "can't find file " + only);
    files = {f};
  }
  k.printf("%2s %4s %*s %8s %s\n", "Id", "Refs", pw, "Address", "Size",
           "Name");
  for (LinkerFile *f : files)
    print_kldstat_line(k, f, verbose);
  return 0;
}

int cmd_lsmod(Kernel &k, Args &a) {
  if (a.size() > 1)
    return fail(k, a[0], "usage: lsmod");
  k.printf("Module                  Size  Used by\n");
  auto files = k.linker().files();
  // Newest first, as Linux lists them.
  for (auto it = files.rbegin(); it != files.rend(); ++it) {
    LinkerFile *f = *it;
    if (f == k.linker().kernel_file())
      continue;
    auto users = k.linker().dependents(f);
    int holds = 0;
    for (auto &m : f->modules)
      holds += m->holds;
    std::string line = strf("%-19s %8llu  %d", lsmod_name(f).c_str(),
                            (unsigned long long)f->size,
                            (int)users.size() + holds);
    for (size_t i = 0; i < users.size(); i++)
      line += (i ? "," : " ") + lsmod_name(users[i]);
    k.printf("%s\n", line.c_str());
  }
  return 0;
}

int cmd_insmod(Kernel &k, Args &a) {
  if (a.size() < 2)
    return fail(k, a[0], "usage: insmod FILE [name=value ...]");
  auto r = k.linker().load(a[1], nullptr, {a.begin() + 2, a.end()});
  if (!r)
    return fail(k, a[0], r.error().message);
  return 0;
}

// Linux's modprobe: a module by name, found in the module path's tree,
// its depends= loaded first; -r unloads it and the dependencies it
// brought that nothing else uses.
int cmd_modprobe(Kernel &k, Args &a) {
  if (a.size() >= 3 && a[1] == "-r") {
    int rc = 0;
    for (size_t i = 2; i < a.size(); i++) {
      LinkerFile *f = k.linker().find(a[i]);
      if (!f || f == k.linker().kernel_file()) {
        rc = fail(k, a[0], "FATAL: Module " + a[i] + " is not in kernel.");
        continue;
      }
      std::vector<LinkerFile *> deps = f->deps;
      if (auto r = k.linker().unload(f); !r) {
        rc = fail(k, a[0], r.error().message);
        continue;
      }
      for (LinkerFile *d : deps)
        if (d != k.linker().kernel_file() && d->autoloaded &&
            k.linker().dependents(d).empty())
          (void)k.linker().unload(d);
    }
    return rc;
  }
  if (a.size() < 2 || a[1].empty() || a[1][0] == '-')
    return fail(k, a[0], "usage: modprobe NAME [name=value ...] | modprobe -r NAME ...");
  if (LinkerFile *f = k.linker().find(a[1]); f && f != k.linker().kernel_file())
    return 0; // loaded already: modprobe succeeds quietly
  auto r = k.linker().load(a[1], nullptr, {a.begin() + 2, a.end()});
  if (!r)
    return fail(k, a[0], r.error().message);
  return 0;
}

int cmd_rmmod(Kernel &k, Args &a) {
  if (a.size() < 2)
    return fail(k, a[0], "usage: rmmod MODULE ...");
  int rc = 0;
  for (size_t i = 1; i < a.size(); i++) {
    LinkerFile *f = k.linker().find(a[i]);
    if (!f || f == k.linker().kernel_file()) {
      rc = fail(k, a[0], "ERROR: Module " + a[i] + " is not currently loaded");
      continue;
    }
    auto r = k.linker().unload(f);
    if (!r)
      rc = fail(k, a[0], r.error().message);
  }
  return rc;
}

int cmd_modinfo(Kernel &k, Args &a) {
  std::string field;
  std::string target;
  for (size_t i = 1; i < a.size(); i++) {
    if (a[i] == "-F" && i + 1 < a.size())
      field = a[++i];
    else if (target.empty())
      target = a[i];
    else
      return fail(k, a[0], "usage: modinfo [-F field] FILE|NAME");
  }
  if (target.empty())
    return fail(k, a[0], "usage: modinfo [-F field] FILE|NAME");
  std::string path;
  if (LinkerFile *f = k.linker().find(target);
      f && f != k.linker().kernel_file())
    path = f->path;
  else {
    auto p = k.linker().find_in_path(target);
    if (!p)
      return fail(k, a[0], p.error().message);
    path = *p;
  }
  auto obj = read_object(path);
  if (!obj)
    return fail(k, a[0], obj.error().message);
  std::vector<std::pair<std::string, std::string>> rows;
  rows.emplace_back("filename", path);
  const bool lnx = LinuxModules::is_linux(*obj);
  auto info = read_modinfo(*obj);
  if (lnx) {
    // As kmod prints a Linux module: parm joins each parameter's
    // description and parmtype, "name:description (type)".
    std::map<std::string, std::string> types;
    for (auto &[key, v] : info)
      if (key == "parmtype")
        types[v.substr(0, v.find(':'))] = v.substr(v.find(':') + 1);
    for (auto &[key, v] : info) {
      if (key == "parmtype")
        continue;
      if (key == "parm") {
        const std::string n = v.substr(0, v.find(':'));
        auto t = types.find(n);
        rows.emplace_back(key, t == types.end() ? v : v + " (" + t->second + ")");
        if (t != types.end())
          types.erase(t);
        continue;
      }
      rows.emplace_back(key, v);
    }
    for (auto &[n, t] : types)
      rows.emplace_back("parm", n + ":(" + t + ")");
  } else {
    for (auto &kv : info)
      rows.push_back(kv);
    rows.emplace_back("arch", obj->arch->name());
    size_t nrel = 0;
    for (auto &rs : obj->relocs)
      nrel += rs.relocs.size();
    rows.emplace_back("relocations", std::to_string(nrel));
  }
  // As Linux's modinfo shows a signature.
  if (obj->signature.present)
    rows.emplace_back("sig_id", "PKCS#7");
  if (obj->signature.present && signatures_supported()) {
    auto d = describe_signature(obj->name, obj->signature);
    if (!d)
      return fail(k, a[0], d.error().message);
    rows.emplace_back("signer", d->signer);
    rows.emplace_back("sig_key", d->sig_key);
    rows.emplace_back("sig_hashalgo", d->hashalgo);
    rows.emplace_back("signature", d->signature);
  }
  for (auto &[key, v] : rows) {
    if (!field.empty()) {
      if (key == field)
        k.printf("%s\n", v.c_str());
      continue;
    }
    std::string label = key + ":";
    k.printf("%-16s%s\n", label.c_str(), v.c_str());
  }
  return 0;
}

int cmd_dmesg(Kernel &k, Args &a) {
  bool clear = a.size() == 2 && a[1] == "-c";
  if (a.size() > 2 || (a.size() == 2 && !clear))
    return fail(k, a[0], "usage: dmesg [-c]");
  std::string s = k.console().dmesg();
  std::fwrite(s.data(), 1, s.size(), stdout);
  std::fflush(stdout);
  if (clear)
    k.console().clear_dmesg();
  return 0;
}

int cmd_sysctl(Kernel &k, Args &a) {
  bool all = false, descr = false, value_only = false;
  std::vector<std::string> names;
  for (size_t i = 1; i < a.size(); i++) {
    const std::string &w = a[i];
    if (w.size() > 1 && w[0] == '-') {
      for (char c : w.substr(1)) {
        if (c == 'a') all = true;
        else if (c == 'd') descr = true;
        else if (c == 'n') value_only = true;
        else
          return fail(k, a[0], "usage: sysctl [-adn] [name[=value] ...]");
      }
      continue;
    }
    names.push_back(w);
  }
  auto show = [&](const Sysctl::Node &n) {
    std::string v = descr ? n.descr : n.get();
    if (value_only)
      k.printf("%s\n", v.c_str());
    else
      k.printf("%s: %s\n", n.name.c_str(), v.c_str());
  };
  if (names.empty()) {
    if (!all)
      return fail(k, a[0], "usage: sysctl [-adn] [name[=value] ...]");
    for (const auto &n : k.sysctl().list(""))
      if (n.flags & CTLFLAG_RD)
        show(n);
    return 0;
  }
  int rc = 0;
  for (const std::string &w : names) {
    auto eq = w.find('=');
    std::string name = w.substr(0, eq);
    if (eq == std::string::npos) {
      auto nodes = k.sysctl().list(name);
      if (nodes.empty())
        rc = fail(k, a[0], "unknown oid '" + name + "'");
      // Write-only nodes have nothing to show: a listing skips them, and
      // asking for one by name is an error.
      for (const auto &n : nodes)
        if (n.flags & CTLFLAG_RD)
          show(n);
        else if (n.name == name)
          rc = fail(k, a[0], "oid '" + name + "' is write only");
      continue;
    }
    auto old = k.sysctl().write(name, w.substr(eq + 1));
    if (!old) {
      rc = fail(k, a[0], old.error().message);
      continue;
    }
    auto n = k.sysctl().find(name);
    const bool readable = n && (n->flags & CTLFLAG_RD);
    const std::string now = readable ? n->get() : w.substr(eq + 1);
    if (value_only)
      k.printf("%s\n", now.c_str());
    else if (!readable)
      k.printf("%s: -> %s\n", name.c_str(), now.c_str());
    else
      k.printf("%s: %s -> %s\n", name.c_str(), old->c_str(), now.c_str());
  }
  return rc;
}

int cmd_vmstat(Kernel &k, Args &a) {
  if (a.size() != 2 || a[1] != "-m")
    return fail(k, a[0], "usage: vmstat -m");
  k.printf("%13s %5s %6s %8s\n", "Type", "InUse", "MemUse", "Requests");
  // The accounting of an unloaded (or never fully loaded) file outlives it;
  // it is listed only while it still holds memory, i.e. leaked.
  for (auto [m, gone] : k.malloc_accounts().all()) {
    if (m->requests == 0 || (gone && m->inuse == 0))
      continue;
    k.printf("%13s %5lld %5lldK %8lld\n", m->name.c_str(),
             (long long)m->inuse.load(),
             (long long)((m->memuse.load() + 1023) / 1024),
             (long long)m->requests.load());
  }
  return 0;
}

int cmd_help(Kernel &k, Args &a) {
  if (a.size() == 2) {
    const Shell::Command *c = k.shell().find(a[1]);
    if (!c)
      return fail(k, a[0], "no such command: " + a[1]);
    k.printf("usage: %s\n  %s\n", c->usage.c_str(), c->descr.c_str());
    return 0;
  }
  for (const auto *c : k.shell().list())
    k.printf("  %-40s %s\n", c->usage.c_str(), c->descr.c_str());
  return 0;
}

int cmd_halt(Kernel &k, Args &) {
  k.shell().halt();
  return 0;
}

int cmd_echo(Kernel &k, Args &a) {
  std::string s;
  for (size_t i = 1; i < a.size(); i++)
    s += (i > 1 ? " " : "") + a[i];
  k.printf("%s\n", s.c_str());
  return 0;
}

int cmd_sleep(Kernel &k, Args &a) {
  char *end = nullptr;
  long ms = a.size() == 2 ? std::strtol(a[1].c_str(), &end, 10) : -1;
  if (ms < 0 || (end && *end))
    return fail(k, a[0], "usage: sleep MILLISECONDS");
  sleep_ms((u64)ms);
  return 0;
}

bool init_shell(Kernel &k) {
  auto add = [&](const char *name, const char *usage, const char *descr,
                 int (*fn)(Kernel &, Args &)) {
    k.shell().add(Shell::Command{name, usage, descr, fn, nullptr});
  };
  add("kldload", "kldload [-v] file ...", "load a module (path or name)",
      cmd_kldload);
  add("kldunload", "kldunload [-v] name | id ...", "unload a module",
      cmd_kldunload);
  add("kldstat", "kldstat [-v] [-i id] [-n name]", "list loaded files",
      cmd_kldstat);
  add("insmod", "insmod FILE [name=value ...]", "load a module (Linux)",
      cmd_insmod);
  add("modprobe", "modprobe [-r] NAME [name=value ...]",
      "load a module and its dependencies by name, or unload (Linux)",
      cmd_modprobe);
  add("rmmod", "rmmod MODULE ...", "unload a module (Linux)", cmd_rmmod);
  add("lsmod", "lsmod", "list loaded modules (Linux)", cmd_lsmod);
  add("modinfo", "modinfo [-F field] FILE|NAME",
      "show a module's information without loading it", cmd_modinfo);
  add("dmesg", "dmesg [-c]", "print (and clear) the kernel message buffer",
      cmd_dmesg);
  add("sysctl", "sysctl [-adn] [name[=value] ...]",
      "read or set kernel variables", cmd_sysctl);
  add("vmstat", "vmstat -m", "memory in use by the kernel and each module",
      cmd_vmstat);
  add("help", "help [command]", "list commands or show one's usage",
      cmd_help);
  add("halt", "halt", "unload every module and stop the kernel", cmd_halt);
  add("echo", "echo [word ...]", "print the words", cmd_echo);
  add("sleep", "sleep MILLISECONDS", "pause the shell", cmd_sleep);
  return true;
}
SYSINIT(shell, SI_SUB_SHELL, 0, init_shell);

} // namespace
} // namespace mk
