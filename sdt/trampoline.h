// Code the probe core makes at run time, in the module arena (within rel32
// reach of every site and of the kernel's text): per-probe trampolines,
// the return-1 stub is-enabled tail sites jump to, and probe stubs (5-byte
// sites of their own, for code that calls a probe function through a
// register).
//
// A trampoline belongs to a probe slot, not to a probe: slots are reused
// with their ids, so the number of trampolines is bounded by the most
// probes ever alive at once, and a thread preempted inside one after its
// site was restored still finds the same code there.  Stubs belong to a
// module and go with it.
#pragma once

#include "../linker/arena.h"
#include "../linker/sync.h"
#include "x86_trampoline.h"

#include <map>
#include <vector>

namespace mk {

struct ProbeSlot;

class TrampolineArea {
public:
  TrampolineArea(ModuleArena &arena, const x86::TrampolinePlan &plan)
      : arena_(arena), plan_(plan) {}
  ~TrampolineArea();
  // The trampoline that fires `slot`, made on first use.
  Result<u64> trampoline(const ProbeSlot *slot) EXCLUDES(mu_);
  // mov $1,%eax; ret
  Result<u64> return_one() EXCLUDES(mu_);
  // A 5-byte stub holding `bytes`; release_stub() when its module goes.
  Result<u64> make_stub(const u8 bytes[5]) EXCLUDES(mu_);
  void release_stub(u64 addr) EXCLUDES(mu_);
  bool is_stub(u64 addr) const EXCLUDES(mu_);
  size_t trampolines() const EXCLUDES(mu_);

private:
  Result<u64> slot_of(u64 size) REQUIRES(mu_);
  ModuleArena &arena_;
  const x86::TrampolinePlan plan_;
  mutable Mutex mu_;
  std::vector<ModuleArena::Block> chunks_ GUARDED_BY(mu_);
  u64 used_ GUARDED_BY(mu_) = 0; // in the last chunk
  u64 ret1_ GUARDED_BY(mu_) = 0;
  u64 slow_ GUARDED_BY(mu_) = 0; // the trampolines' shared slow path
  std::map<const ProbeSlot *, u64> by_slot_ GUARDED_BY(mu_);
  std::vector<u64> free_stubs_ GUARDED_BY(mu_);
  std::vector<u64> stubs_ GUARDED_BY(mu_); // sorted, live
};

} // namespace mk
