// Trampolines and stubs in the module arena (see trampoline.h).
#include "trampoline.h"

#include "../linker/code.h"
#include "x86.h"

#include <algorithm>

namespace mk {

namespace {
constexpr u64 kChunk = 64 * 1024;
constexpr u64 kStubSize = 8;
} // namespace

TrampolineArea::~TrampolineArea() {
  MutexLock g(mu_);
  for (const ModuleArena::Block &b : chunks_)
    arena_.release(b);
}

Result<u64> TrampolineArea::slot_of(u64 size) {
  size = align_up(size, 8);
  if (chunks_.empty() || used_ + size > chunks_.back().size) {
    auto b = arena_.allocate(kChunk, 0);
    if (!b)
      return error("sdt: no memory for trampolines: " + b.error().message);
    arena_.protect(b->addr, b->size, Protect::ReadExec);
    chunks_.push_back(*b);
    used_ = 0;
  }
  u64 at = chunks_.back().addr + used_;
  used_ += size;
  return at;
}

Result<u64> TrampolineArea::trampoline(const ProbeSlot *slot) {
  MutexLock g(mu_);
  if (auto it = by_slot_.find(slot); it != by_slot_.end())
    return it->second;
  x86::TrampolinePlan plan = plan_;
  if (plan.inline_rcu) {
    // The slow path every trampoline jumps to, made with the first.
    if (!slow_) {
      auto s = slot_of(x86::kProbeSlowPathSize);
      if (!s)
        return s;
      u8 code[x86::kProbeSlowPathSize];
      size_t n = x86::write_probe_slow_path(code, *s, plan);
      auto w = arena_.writing();
      code::copy(arena_.alias(*s), code, n);
      slow_ = *s;
    }
    plan.slow = slow_;
  }
  auto at = slot_of(x86::kProbeTrampolineSize);
  if (!at)
    return at;
  u8 code[x86::kProbeTrampolineSize];
  size_t n = x86::write_probe_trampoline(code, *at, (u64)(uintptr_t)slot, plan);
  auto w = arena_.writing();
  code::copy(arena_.alias(*at), code, n);
  by_slot_[slot] = *at;
  return at;
}

Result<u64> TrampolineArea::return_one() {
  MutexLock g(mu_);
  if (ret1_)
    return ret1_;
  auto at = slot_of(16);
  if (!at)
    return at;
  u8 code[16];
  size_t n = x86::write_return_one(code);
  auto w = arena_.writing();
  code::copy(arena_.alias(*at), code, n);
  ret1_ = *at;
  return ret1_;
}

Result<u64> TrampolineArea::make_stub(const u8 bytes[5]) {
  MutexLock g(mu_);
  u64 at;
  if (!free_stubs_.empty()) {
    at = free_stubs_.back();
    free_stubs_.pop_back();
  } else {
    auto s = slot_of(kStubSize);
    if (!s)
      return s;
    at = *s;
  }
  auto w = arena_.writing();
  code::copy(arena_.alias(at), bytes, 5);
  stubs_.insert(std::upper_bound(stubs_.begin(), stubs_.end(), at), at);
  return at;
}

void TrampolineArea::release_stub(u64 addr) {
  MutexLock g(mu_);
  auto it = std::lower_bound(stubs_.begin(), stubs_.end(), addr);
  if (it == stubs_.end() || *it != addr)
    return;
  stubs_.erase(it);
  free_stubs_.push_back(addr);
}

bool TrampolineArea::is_stub(u64 addr) const {
  MutexLock g(mu_);
  return std::binary_search(stubs_.begin(), stubs_.end(), addr);
}

size_t TrampolineArea::trampolines() const {
  MutexLock g(mu_);
  return by_slot_.size();
}

} // namespace mk
