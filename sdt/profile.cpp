// The profile provider (see profile.h).  Built without function-entry
// sites: its signal handler is a firing path.
#include "profile.h"

#include "registry.h"
#include "x86.h"

#define _LGPL_SOURCE // liburcu's read-side fast path, inline
#include <urcu/urcu-memb.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <fnmatch.h>
#include <pthread.h>

namespace mk {

namespace {

// What the SIGPROF handler reads: per armed timer, the probe it fires and
// the code map that says whether a PC is kernel code.  Process-wide like
// the SIGTRAP handler's state (patch.cpp), for the same reason: a signal
// handler can reach nothing else.  A timer's signal carries its index
// here; a cleared entry (its timer deleted, a signal still pending) fires
// nothing.  Entries are cleared before a grace period the registry waits
// for, and the handler reads them inside an RCU read-side section.
struct TimerSlot {
  std::atomic<const ProbeSlot *> slot{nullptr};
  std::atomic<const CodeMap *> code{nullptr};
};
struct ProfileState {
  static constexpr int kTimers = 1024;
  TimerSlot timers[kTimers];
  Mutex mu;
  bool used[kTimers] GUARDED_BY(mu) = {};
  bool handler_installed GUARDED_BY(mu) = false;
};

ProfileState &state() {
  static ProfileState s;
  return s;
}

// Whether this thread's samples are dropped (profile_sampling(Off)):
// plain TLS of the executable, which a signal handler may read.  Only the
// thread itself and its own signal handler touch it; a signal fence keeps
// its stores on the right side of the mask changes.
__thread bool t_unsampled = false;

void on_sigprof(int, siginfo_t *si, void *uctx) {
  const int saved = errno;
  ProfileState &ps = state();
  const int i = si->si_value.sival_int;
  // Only a registered probe thread may fire from a signal handler, and
  // only while it is sampled.
  if (si->si_code == SI_TIMER && i >= 0 && i < ProfileState::kTimers &&
      !t_unsampled && probe_thread_registered()) {
    urcu_memb_read_lock();
    const ProbeSlot *slot = ps.timers[i].slot.load(std::memory_order_acquire);
    const CodeMap *code = ps.timers[i].code.load(std::memory_order_acquire);
    if (slot && code) {
      const ProbeFrame f = x86::signal_frame(uctx);
      const bool kernel = code->image_at(f.pc) != nullptr;
      const uintptr_t args[6] = {kernel ? f.pc : 0, kernel ? 0 : f.pc, 0, 0, 0, 0};
      ProbeRegistry::fire(slot, args, &f);
    }
    urcu_memb_read_unlock();
  }
  errno = saved;
}

struct Timer {
  timer_t id;
  int index;
};

struct ProfileProbe : ProbeData {
  ProfileRate rate;
  std::vector<Timer> timers; // while enabled
};

ProfileProbe &data_of(const Probe &p) {
  return *static_cast<ProfileProbe *>(p.data.get());
}

void stop(ProfileProbe &d) {
  ProfileState &ps = state();
  MutexLock g(ps.mu);
  for (const Timer &t : d.timers) {
    timer_delete(t.id);
    ps.timers[t.index].slot.store(nullptr, std::memory_order_release);
    ps.timers[t.index].code.store(nullptr, std::memory_order_release);
    ps.used[t.index] = false;
  }
  d.timers.clear();
}

bool is_glob(const std::string &s) {
  return s.find_first_of("*?[") != std::string::npos;
}

} // namespace

Sampling profile_sampling(Sampling s) {
  const Sampling was = t_unsampled ? Sampling::Off : Sampling::On;
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGPROF);
  if (s == Sampling::On) {
    probe_thread_register();
    // A signal pending since the thread blocked it is delivered here, and
    // dropped: the flag still says Off.
    pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    t_unsampled = false;
  } else {
    t_unsampled = true;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
  }
  return was;
}

std::optional<ProfileRate> parse_profile_name(const std::string &name) {
  ProfileRate r;
  std::string rest;
  if (name.rfind("profile-", 0) == 0)
    rest = name.substr(8);
  else if (name.rfind("tick-", 0) == 0)
    r.tick = true, rest = name.substr(5);
  else
    return std::nullopt;
  size_t digits = 0;
  while (digits < rest.size() && isdigit((unsigned char)rest[digits]))
    digits++;
  if (digits == 0 || digits > 12)
    return std::nullopt;
  const u64 n = std::stoull(rest.substr(0, digits));
  const std::string unit = rest.substr(digits);
  static const struct {
    const char *name;
    u64 ns; // 0: a rate in hertz
  } units[] = {
      {"ns", 1},       {"nsec", 1},
      {"us", 1000},    {"usec", 1000},
      {"ms", 1000000}, {"msec", 1000000},
      {"s", 1000000000ull},  {"sec", 1000000000ull},
      {"m", 60000000000ull}, {"min", 60000000000ull},
      {"h", 3600000000000ull}, {"hour", 3600000000000ull},
      {"d", 86400000000000ull}, {"day", 86400000000000ull},
      {"hz", 0},       {"", 0},
  };
  for (const auto &u : units) {
    if (unit != u.name)
      continue;
    if (n == 0)
      return std::nullopt;
    r.interval_ns = u.ns ? n * u.ns : 1000000000ull / n;
    // DTrace's profile provider's limit: 5000 a second.
    if (r.interval_ns < 200000)
      return std::nullopt;
    return r;
  }
  return std::nullopt;
}

Result<void> ProfileProvider::provide(ProbeRegistry &r) {
  reg_ = &r;
  for (const char *n :
       {"profile-97", "profile-199", "profile-499", "profile-997",
        "profile-1999", "profile-4001", "profile-4999", "tick-1", "tick-10",
        "tick-100", "tick-500", "tick-1000", "tick-5000"})
    provide_matching(r, ProbeDesc::parse(std::string("profile:::") + n));
  return {};
}

void ProfileProvider::provide_matching(ProbeRegistry &r, const ProbeDesc &d) {
  auto matches = [](const std::string &pat, const char *v) {
    return pat.empty() || fnmatch(pat.c_str(), v, 0) == 0;
  };
  if (is_glob(d.name) || !matches(d.provider, "profile") ||
      !matches(d.module, "") || !matches(d.function, ""))
    return;
  auto rate = parse_profile_name(d.name);
  if (!rate)
    return;
  Probe *p = r.create(*this, "profile", "", "", d.name, nullptr);
  if (!p->data) {
    auto data = std::make_unique<ProfileProbe>();
    data->rate = *rate;
    p->data = std::move(data);
  }
}

Result<void> ProfileProvider::enable(const ProbeBatch &b, PatchMode mode) {
  const std::vector<Probe *> &probes = b.probes;
  (void)mode; // no sites: nothing to patch
  ProfileState &ps = state();
  std::vector<CpuThread> cpus = cpus_ ? cpus_() : std::vector<CpuThread>{};
  std::vector<ProfileProbe *> started;
  auto fail = [&](const std::string &why) -> Result<void> {
    for (ProfileProbe *d : started)
      stop(*d);
    return error("profile: " + why);
  };
  {
    MutexLock g(ps.mu);
    if (!ps.handler_installed) {
      struct sigaction sa {};
      sa.sa_sigaction = on_sigprof;
      sa.sa_flags = SA_SIGINFO | SA_RESTART;
      sigemptyset(&sa.sa_mask);
      if (sigaction(SIGPROF, &sa, nullptr) != 0)
        return error(strf("profile: sigaction(SIGPROF): %s", strerror(errno)));
      ps.handler_installed = true;
    }
  }
  for (Probe *p : probes) {
    ProfileProbe &d = data_of(*p);
    started.push_back(&d);
    for (size_t c = 0; c < cpus.size(); c++) {
      // tick-N: the first CPU only; profile-N: every CPU, the shell's
      // thread as well (it takes samples only while a command runs).
      if (d.rate.tick && (c > 0 || cpus[c].kind != CpuThread::Cpu))
        break;
      if (!cpus[c].tid)
        continue; // the CPU thread is still starting
      int index = -1;
      {
        MutexLock g(ps.mu);
        for (int i = 0; i < ProfileState::kTimers && index < 0; i++)
          if (!ps.used[i]) {
            ps.used[i] = true;
            index = i;
          }
      }
      if (index < 0)
        return fail(strf("more than %d timers", ProfileState::kTimers));
      ps.timers[index].code.store(&reg_->code(), std::memory_order_release);
      ps.timers[index].slot.store(p->slot, std::memory_order_release);
      struct sigevent sev {};
      sev.sigev_notify = SIGEV_THREAD_ID;
      sev.sigev_signo = SIGPROF;
      sev.sigev_value.sival_int = index;
      sev._sigev_un._tid = cpus[c].tid;
      timer_t id;
      if (timer_create(CLOCK_MONOTONIC, &sev, &id) != 0) {
        MutexLock g(ps.mu);
        ps.timers[index].slot.store(nullptr);
        ps.used[index] = false;
        return fail(strf("timer_create: %s", strerror(errno)));
      }
      d.timers.push_back(Timer{id, index});
      struct itimerspec its {};
      its.it_interval.tv_sec = (time_t)(d.rate.interval_ns / 1000000000ull);
      its.it_interval.tv_nsec = (long)(d.rate.interval_ns % 1000000000ull);
      its.it_value = its.it_interval;
      if (timer_settime(id, 0, &its, nullptr) != 0)
        return fail(strf("timer_settime: %s", strerror(errno)));
    }
  }
  return {};
}

void ProfileProvider::disable(const ProbeBatch &b) {
  const std::vector<Probe *> &probes = b.probes;
  for (Probe *p : probes)
    stop(data_of(*p));
}

std::vector<std::string> ProfileProvider::argtypes(const Probe &p) const {
  (void)p;
  return {};
}

void ProfileProvider::destroy(Probe &p) {
  if (p.data)
    stop(data_of(p));
}

} // namespace mk
