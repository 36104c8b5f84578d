// TRACE_EVENT tracepoints of Linux-format modules as probes:
//
//   tracepoint:MODULE::EVENT   fires where the module's code calls
//                              trace_EVENT(...), arg0.. its TP_PROTO
//                              arguments (the first five)
//
// A tracepoint (struct tracepoint, read and checked by the loader from
// __tracepoints_ptrs: kern_linux.h's LinuxModule::tracepoints) is enabled
// the way Linux's tracepoint_probe_register() does it: a function list
// holding this provider's handler goes into tp->funcs, the tracepoint's
// static call is aimed at its iterator, and its static key is raised, so
// the module's `if (static_branch_unlikely(&tp->key))` sites (from its
// __jump_table) turn into jumps to the call.  Keys and calls go through
// the loader's JumpLabels and StaticCalls, that is the one patch engine.
// Disabling lowers the key (the sites go back to no-ops) and empties the
// list; the list is freed with the probe, after no handler can run.  A
// TRACE_EVENT_FN's regfunc and unregfunc run as Linux runs them, on the
// first enabling and the last disabling, except for a module unloading
// (its exit has run).  The arguments are the registers as the iterator
// passed them: an int is its 64-bit register (a negative one may read as
// 4294967295); the sixth and later are not seen.
//
// Linux's own consumers of a TRACE_EVENT (the ftrace ring buffer, perf,
// BPF raw tracepoints) are not here; the functions the module's event
// code binds for them are exported so that it links, and panic if ever
// called: only this provider registers functions on a tracepoint, so
// nothing reaches them.
#include "lkpi.h"

#include "../../linker/sync.h"
#include "../../sdt/provider.h"
#include "../../sdt/registry.h"
#include "../kern_linker.h"
#include "../kern_linux.h"
#include "../kern_panic.h"
#include "../sysinit.h"

#include <algorithm>
#include <atomic>

namespace {

using mk::Probe;
using mk::u64;
using mk::ProbeBatch;
using mk::ProbeRegistry;
using mk::Result;

// struct tracepoint_func, 6.1.
struct tracepoint_func {
  void *func;
  void *data;
  int prio;
};

// A tracepoint's fields, at their 6.1 offsets (kern_linux.cpp checked
// each against the module): pointers but for the two-word static key.
struct Tp {
  static constexpr u64 P = sizeof(void *);
  u64 at;
  void *key() const { return (void *)(uintptr_t)(at + P); }
  void *call_key() const { return *(void **)(uintptr_t)(at + 3 * P); }
  void *tramp() const { return *(void **)(uintptr_t)(at + 4 * P); }
  void *iterator() const { return *(void **)(uintptr_t)(at + 5 * P); }
  int (*regfunc() const)() { return *(int (**)())(uintptr_t)(at + 6 * P); }
  void (*unregfunc() const)() {
    return *(void (**)())(uintptr_t)(at + 7 * P);
  }
  std::atomic<tracepoint_func *> &funcs() const {
    return *(std::atomic<tracepoint_func *> *)(uintptr_t)(at + 8 * P);
  }
};

struct TpProbe : mk::ProbeData {
  Tp tp;
  tracepoint_func funcs[2] = {}; // this provider's handler, then the end
};

// Called by the tracepoint's iterator as every registered function is:
// (data, the TP_PROTO arguments...).  The first five arrive in registers
// (on i386 the first two, after data: Linux's regparm(3)).
LKAPI void fire_tracepoint(void *data, uintptr_t a0, uintptr_t a1, uintptr_t a2,
                     uintptr_t a3, uintptr_t a4) {
  const uintptr_t args[6] = {a0, a1, a2, a3, a4, 0};
  // stack() walks from the iterator's frame: the module's event call.
  const auto *fp = (const uintptr_t *)__builtin_frame_address(0);
  mk::ProbeFrame f;
  f.pc = fp[1];
  f.pc_loc = (uintptr_t)&fp[1];
  f.sp = (uintptr_t)&fp[2];
  f.fp = fp[0];
  ProbeRegistry::fire((const mk::ProbeSlot *)data, args, &f);
}

class TracepointModule final : public mk::ModuleProbes {
public:
  explicit TracepointModule(mk::Provider &prov) : prov_(prov) {}
  Result<void> provide(ProbeRegistry &r, const mk::ModuleImage &m) override {
    const auto *f = static_cast<const mk::LinkerFile *>(m.owner);
    if (!f || !f->linux_mod)
      return {};
    for (const mk::LinuxModule::Tracepoint &t : f->linux_mod->tracepoints) {
      Probe *p = r.create(prov_, "tracepoint", m.name, "", t.name, m.owner);
      if (p->data)
        continue; // defined twice: one probe
      auto d = std::make_unique<TpProbe>();
      d->tp.at = t.tp;
      d->funcs[0] = {(void *)&fire_tracepoint, (void *)p->slot, 10};
      p->data = std::move(d);
    }
    return {};
  }

private:
  mk::Provider &prov_;
};

class TracepointProvider final : public mk::Provider {
public:
  explicit TracepointProvider(mk::Kernel &k) : k_(k) {}
  const char *name() const override { return "tracepoint"; }
  std::unique_ptr<mk::ModuleProbes>
  begin_module(const std::string &) override {
    return std::make_unique<TracepointModule>(*this);
  }
  Result<void> enable(const ProbeBatch &b, mk::PatchMode) override {
    for (size_t i = 0; i < b.probes.size(); i++) {
      Probe *p = b.probes[i];
      auto &d = static_cast<TpProbe &>(*p->data);
      if (auto reg = d.tp.regfunc(); reg && k_.opts().run_module_code)
        if (int rc = reg(); rc != 0) {
          // Nothing of the batch stays enabled.
          ProbeBatch done;
          for (size_t j = 0; j < i; j++)
            done.add(b.probes[j], b.ids[j]);
          disable(done);
          return mk::error(mk::strf("%s: the tracepoint's regfunc returned %d",
                                    p->full().c_str(), rc));
        }
      d.tp.funcs().store(d.funcs, std::memory_order_release);
      linux().static_calls().update(d.tp.call_key(), d.tp.tramp(),
                                    d.tp.iterator());
      linux().jump_labels().slow_inc(d.tp.key());
    }
    return {};
  }
  void disable(const ProbeBatch &b) override {
    for (Probe *p : b.probes) {
      auto &d = static_cast<TpProbe &>(*p->data);
      d.tp.funcs().store(nullptr, std::memory_order_release);
      // A module on its way out has run its exit and lost its key sites
      // already: none of its code runs again.
      if (going(p->owner))
        continue;
      linux().jump_labels().slow_dec(d.tp.key());
      if (auto unreg = d.tp.unregfunc(); unreg && k_.opts().run_module_code)
        unreg();
    }
  }
  std::vector<std::string> argtypes(const Probe &) const override {
    return {"uintptr_t", "uintptr_t", "uintptr_t", "uintptr_t", "uintptr_t"};
  }
  void forget_module(const void *owner) override {
    mk::MutexLock g(mu_);
    going_.push_back(owner);
  }
  void remove_module(const void *owner) override {
    mk::MutexLock g(mu_);
    std::erase(going_, owner);
  }

private:
  mk::LinuxModules &linux() { return k_.linker().linux_modules(); }
  bool going(const void *owner) {
    mk::MutexLock g(mu_);
    return std::find(going_.begin(), going_.end(), owner) != going_.end();
  }
  mk::Kernel &k_;
  mk::Mutex mu_;
  std::vector<const void *> going_ GUARDED_BY(mu_); // modules unloading
};

bool init_tracepoints(mk::Kernel &k) {
  if (auto r = k.probes().add_provider(std::make_unique<TracepointProvider>(k));
      !r) {
    k.error_line("kernel: tracepoint provider: " + r.error().message);
    return false;
  }
  return true;
}
SYSINIT(linuxkpi_tracepoints, SI_SUB_ARENA, 2, init_tracepoints);

} // namespace

// What Linux's ftrace, perf and BPF consumers of a TRACE_EVENT call: the
// report names the module code that called.
extern "C" {
#define LKPI_TRACE_ONLY(fn)                                                    \
  void fn() {                                                                  \
    mk::panic("%s: Linux's ftrace, perf and BPF tracing are not provided "     \
              "(TRACE_EVENT tracepoints are DTrace probes here)",              \
              #fn);                                                            \
  }
LKPI_TRACE_ONLY(trace_event_raw_init)
LKPI_TRACE_ONLY(trace_event_reg)
LKPI_TRACE_ONLY(trace_event_buffer_reserve)
LKPI_TRACE_ONLY(trace_event_buffer_commit)
LKPI_TRACE_ONLY(trace_event_printf)
LKPI_TRACE_ONLY(trace_raw_output_prep)
LKPI_TRACE_ONLY(trace_handle_return)
LKPI_TRACE_ONLY(trace_event_ignore_this_pid)
LKPI_TRACE_ONLY(__trace_trigger_soft_disabled)
LKPI_TRACE_ONLY(trace_print_flags_seq)
LKPI_TRACE_ONLY(trace_print_symbols_seq)
LKPI_TRACE_ONLY(trace_print_array_seq)
LKPI_TRACE_ONLY(perf_trace_buf_alloc)
LKPI_TRACE_ONLY(perf_trace_run_bpf_submit)
LKPI_TRACE_ONLY(bpf_trace_run1)
LKPI_TRACE_ONLY(bpf_trace_run2)
LKPI_TRACE_ONLY(bpf_trace_run3)
LKPI_TRACE_ONLY(bpf_trace_run4)
LKPI_TRACE_ONLY(bpf_trace_run5)
LKPI_TRACE_ONLY(bpf_trace_run6)
#undef LKPI_TRACE_ONLY
}

LINUX_EXPORT_GPL(trace_event_raw_init);
LINUX_EXPORT_GPL(trace_event_reg);
LINUX_EXPORT_GPL(trace_event_buffer_reserve);
LINUX_EXPORT_GPL(trace_event_buffer_commit);
LINUX_EXPORT(trace_event_printf);
LINUX_EXPORT(trace_raw_output_prep);
LINUX_EXPORT_GPL(trace_handle_return);
LINUX_EXPORT_GPL(trace_event_ignore_this_pid);
LINUX_EXPORT_GPL(__trace_trigger_soft_disabled);
LINUX_EXPORT(trace_print_flags_seq);
LINUX_EXPORT(trace_print_symbols_seq);
LINUX_EXPORT(trace_print_array_seq);
LINUX_EXPORT_GPL(perf_trace_buf_alloc);
LINUX_EXPORT_GPL(perf_trace_run_bpf_submit);
LINUX_EXPORT_GPL(bpf_trace_run1);
LINUX_EXPORT_GPL(bpf_trace_run2);
LINUX_EXPORT_GPL(bpf_trace_run3);
LINUX_EXPORT_GPL(bpf_trace_run4);
LINUX_EXPORT_GPL(bpf_trace_run5);
LINUX_EXPORT_GPL(bpf_trace_run6);
