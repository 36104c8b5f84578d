// Per-CPU areas.  Every thread that runs kernel or module code as a CPU
// has one: each CPU thread its own, and the shell's thread the last one
// (two threads never share per-CPU data).  On x86_64 a thread's area is
// its GS base, as in Linux, where code reaches per-CPU data with
// %gs-relative addressing: the stack canary at %gs:40, current_task,
// this_cpu_* operations.  On i386 it is the base of %fs, Linux's per-CPU
// segment there (the canary is the per-CPU __stack_chk_guard).
//
// An area's first kStaticSize bytes are the kernel's own per-CPU
// variables, laid out by their owner (the Linux KPI's fixed part); the
// rest is handed out to modules' per-CPU sections, the same offset in
// every area.
//
// A thread that is no CPU but runs module code (a Linux kthread) takes a
// thread area: made for it, not counted among the CPUs' areas, with each
// module's per-CPU section copied in as the module's file had it.  Two
// host threads never share an area, so per-CPU read-modify-writes
// (this_cpu_inc) never race; what a thread area holds is its own, and no
// walk over the CPUs sees it.
#pragma once

#include "../linker/base.h"
#include "../linker/sync.h"

#include <functional>
#include <map>
#include <vector>

namespace mk {

class PerCpu {
public:
  static constexpr u64 kAreaSize = 1ull << 20;
  static constexpr u64 kStaticSize = 64ull << 10;

  PerCpu() = default;
  ~PerCpu();
  PerCpu(const PerCpu &) = delete;
  PerCpu &operator=(const PerCpu &) = delete;

  // `n` areas, zeroed; once, at boot, before any thread enters one.
  Result<void> init(unsigned n);
  unsigned count() const { return (unsigned)areas_.size(); }
  u8 *area(unsigned i) const { return areas_[i]; }
  // The calling thread takes area `i` (its GS base on x86_64, FS on
  // i386); until it does, it has none.
  void enter(unsigned i);
  // The calling thread's area, and its index (-1: none).
  static u8 *current();
  static int current_index();

  // Space at the same offset in every area, for a module's per-CPU
  // section; each area's copy is zeroed.
  Result<u64> alloc(u64 size, u64 align) EXCLUDES(mu_);
  void free(u64 off) EXCLUDES(mu_);
  // Bytes of each area that modules hold (sysctl vm.percpu.used).
  u64 used() const EXCLUDES(mu_);
  // Copy `n` bytes to offset `off` of every area (a module's initial
  // per-CPU contents, before its code runs), and keep them for the thread
  // areas made later.
  void fill(u64 off, const u8 *src, u64 n) EXCLUDES(mu_);

  // A thread area (above), zeroed but for the modules' sections; the
  // caller lays out its static part.  Given back with free_thread_area
  // once no thread is in it.
  Result<u8 *> alloc_thread_area() EXCLUDES(mu_);
  void free_thread_area(u8 *a) EXCLUDES(mu_);
  // The calling thread takes thread area `a` (null: leaves whatever area
  // it is in); its index is then -1, as no CPU's.
  static void enter_thread_area(u8 *a);

private:
  std::vector<u8 *> areas_;
  mutable Mutex mu_;
  std::map<u64, u64> used_ GUARDED_BY(mu_); // offset -> size
  // Each module section's initial contents, by offset, and the live
  // thread areas.
  std::map<u64, std::vector<u8>> templates_ GUARDED_BY(mu_);
  std::vector<u8 *> thread_areas_ GUARDED_BY(mu_);
};

} // namespace mk
