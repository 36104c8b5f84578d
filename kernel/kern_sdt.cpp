// Probe handlers for modules (<sys/sdt.h>): attach a C function to probes
// by name or by the probe definition's symbol, detach it, wait for a grace
// period.  Linux's tracepoint_probe_register and tracepoint_synchronize_
// unregister, on the probe registry: each attachment records the module
// that holds the handler's code, so that its unload waits for a grace
// period before the code goes and detaches whatever it left attached.
#include "export.h"
#include "kernel.h"

#include "../sdt/registry.h"
#include "../sdt/site.h"

#include <sys/sdt.h>

#include <cerrno>

using namespace mk;

namespace {

HandlerSpec handler_spec(Kernel &k, sdt_handler_t fn, void *data, int prio,
                         std::string key) {
  HandlerSpec h;
  h.fn = (ModuleHandler)fn;
  h.data = data;
  h.prio = prio;
  h.key = std::move(key);
  const u64 pc = (u64)(uintptr_t)fn;
  LinkerFile *f = k.arena().contains(pc) ? k.linker().file_at(pc) : nullptr;
  h.owner = f; // null: a handler in the kernel image
  h.module = f ? f->module_name() : "kernel";
  h.function = k.linker().symbolize(pc);
  return h;
}

// Whose handler, for messages: "writecount.ko: writecount_write".
std::string who(const HandlerSpec &h) {
  return (h.owner ? h.module + ".ko" : h.module) + ": " + h.function;
}

// The key a definition's attachment is known by: its module's probes of
// that provider and name.
struct DefProbes {
  const void *owner;
  std::string key;
  std::vector<u32> ids;
};
DefProbes def_probes(Kernel &k, const sdt_probedef *def) {
  const u64 a = (u64)(uintptr_t)def;
  LinkerFile *f = k.arena().contains(a) ? k.linker().file_at(a) : nullptr;
  const std::string prov = def->provider ? def->provider : "",
                    name = probe_name_from_c(def->name ? def->name : "");
  DefProbes d;
  d.owner = f;
  d.key = prov + ":" + (f ? f->module_name() : "kernel") + "::" + name;
  d.ids = k.probes().find_probes(f, prov, name);
  return d;
}

} // namespace

extern "C" {

int kern_sdt_handler_attach(const char *probe, sdt_handler_t fn, void *data,
                            int prio) {
  Kernel *k = curkernel();
  if (!k || !k->has_probes())
    return ENXIO;
  if (!probe || !fn)
    return EINVAL;
  HandlerSpec h = handler_spec(*k, fn, data, prio, probe);
  const std::string name = who(h);
  int err = 0;
  auto r = k->probes().attach(ProbeDesc::parse(probe), true, std::move(h),
                              &err);
  if (!r) {
    k->printf("sdt_handler_attach: %s: %s\n", name.c_str(),
              r.error().message.c_str());
    return err;
  }
  return 0;
}

int kern_sdt_handler_detach(const char *probe, sdt_handler_t fn, void *data) {
  Kernel *k = curkernel();
  if (!k || !k->has_probes())
    return ENXIO;
  if (!probe || !fn)
    return EINVAL;
  if (!k->probes().detach((ModuleHandler)fn, data, probe)) {
    k->printf("sdt_handler_detach: %s is not attached to %s with data %p\n",
              k->linker().symbolize((u64)(uintptr_t)fn).c_str(), probe, data);
    return ENOENT;
  }
  return 0;
}

int kern_sdt_handler_attach_probe(struct sdt_probedef *def, sdt_handler_t fn,
                                  void *data, int prio) {
  Kernel *k = curkernel();
  if (!k || !k->has_probes())
    return ENXIO;
  if (!def || !fn)
    return EINVAL;
  DefProbes d = def_probes(*k, def);
  HandlerSpec h = handler_spec(*k, fn, data, prio, d.key);
  const std::string name = who(h);
  int err = 0;
  auto r = k->probes().attach(d.ids, std::move(h), &err);
  if (!r) {
    k->printf("sdt_handler_attach_probe: %s: %s\n", name.c_str(),
              r.error().message.c_str());
    return err;
  }
  return 0;
}

int kern_sdt_handler_detach_probe(struct sdt_probedef *def, sdt_handler_t fn,
                                  void *data) {
  Kernel *k = curkernel();
  if (!k || !k->has_probes())
    return ENXIO;
  if (!def || !fn)
    return EINVAL;
  DefProbes d = def_probes(*k, def);
  if (!k->probes().detach((ModuleHandler)fn, data, d.key)) {
    k->printf("sdt_handler_detach_probe: %s is not attached to %s with data "
              "%p\n",
              k->linker().symbolize((u64)(uintptr_t)fn).c_str(), d.key.c_str(),
              data);
    return ENOENT;
  }
  return 0;
}

void kern_sdt_synchronize(void) {
  if (Kernel *k = curkernel(); k && k->has_probes())
    k->probes().synchronize();
}

} // extern "C"

EXPORT_SYMBOL_AS("sdt_handler_attach", kern_sdt_handler_attach);
EXPORT_SYMBOL_AS("sdt_handler_detach", kern_sdt_handler_detach);
EXPORT_SYMBOL_AS("sdt_handler_attach_probe", kern_sdt_handler_attach_probe);
EXPORT_SYMBOL_AS("sdt_handler_detach_probe", kern_sdt_handler_detach_probe);
EXPORT_SYMBOL_AS("sdt_synchronize", kern_sdt_synchronize);
// What asm-goto blocks read and call on their one-handler path (sys/sdt.h).
EXPORT_SYMBOL(__sdt_fast);
EXPORT_SYMBOL(__sdt_no_slot);
EXPORT_SYMBOL(__sdt_rcu_wake);
