// Locks with Clang's thread-safety annotations, so that what each mutex
// guards is written down where it is declared (GUARDED_BY) and checked by
// `clang -Wthread-safety` (the thread-safety build of `make test`).  With
// gcc the annotations compile to nothing.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <shared_mutex>
#include <thread>

#if defined(__clang__)
#define MK_TSA(x) __attribute__((x))
#else
#define MK_TSA(x)
#endif

#define CAPABILITY(x) MK_TSA(capability(x))
#define SCOPED_CAPABILITY MK_TSA(scoped_lockable)
#define GUARDED_BY(x) MK_TSA(guarded_by(x))
#define PT_GUARDED_BY(x) MK_TSA(pt_guarded_by(x))
#define REQUIRES(...) MK_TSA(requires_capability(__VA_ARGS__))
#define REQUIRES_SHARED(...) MK_TSA(requires_shared_capability(__VA_ARGS__))
#define EXCLUDES(...) MK_TSA(locks_excluded(__VA_ARGS__))
#define ACQUIRE(...) MK_TSA(acquire_capability(__VA_ARGS__))
#define ACQUIRE_SHARED(...) MK_TSA(acquire_shared_capability(__VA_ARGS__))
#define RELEASE(...) MK_TSA(release_capability(__VA_ARGS__))
#define RELEASE_SHARED(...) MK_TSA(release_shared_capability(__VA_ARGS__))
#define RELEASE_GENERIC(...) MK_TSA(release_generic_capability(__VA_ARGS__))
#define TRY_ACQUIRE(...) MK_TSA(try_acquire_capability(__VA_ARGS__))
#define RETURN_CAPABILITY(x) MK_TSA(lock_returned(x))
#define NO_THREAD_SAFETY_ANALYSIS MK_TSA(no_thread_safety_analysis)

namespace mk {

class CAPABILITY("mutex") Mutex {
public:
  void lock() ACQUIRE() { m_.lock(); }
  void unlock() RELEASE() { m_.unlock(); }
  bool try_lock() TRY_ACQUIRE(true) { return m_.try_lock(); }
  // try_lock() for up to `ms` milliseconds: for a panic report, which may
  // not wait forever on a lock the crashed thread holds.
  bool try_lock_for(int ms) TRY_ACQUIRE(true) {
    for (int i = 0; i < ms; i++) {
      if (m_.try_lock())
        return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return m_.try_lock();
  }
  // For the analysis: the caller holds this mutex (a fact it cannot see,
  // e.g. inside a callback invoked with the lock held).
  void assert_held() const MK_TSA(assert_capability(this)) {}

private:
  std::mutex m_;
};

class SCOPED_CAPABILITY MutexLock {
public:
  explicit MutexLock(Mutex &m) ACQUIRE(m) : m_(m) { m_.lock(); }
  ~MutexLock() RELEASE() { m_.unlock(); }
  MutexLock(const MutexLock &) = delete;
  MutexLock &operator=(const MutexLock &) = delete;

private:
  Mutex &m_;
};

class CAPABILITY("shared mutex") SharedMutex {
public:
  void lock() ACQUIRE() { m_.lock(); }
  void unlock() RELEASE() { m_.unlock(); }
  void lock_shared() ACQUIRE_SHARED() { m_.lock_shared(); }
  void unlock_shared() RELEASE_SHARED() { m_.unlock_shared(); }

private:
  std::shared_mutex m_;
};

class SCOPED_CAPABILITY ReaderLock {
public:
  explicit ReaderLock(SharedMutex &m) ACQUIRE_SHARED(m) : m_(m) {
    m_.lock_shared();
  }
  ~ReaderLock() RELEASE() { m_.unlock_shared(); }
  ReaderLock(const ReaderLock &) = delete;
  ReaderLock &operator=(const ReaderLock &) = delete;

private:
  SharedMutex &m_;
};

class SCOPED_CAPABILITY WriterLock {
public:
  explicit WriterLock(SharedMutex &m) ACQUIRE(m) : m_(m) { m_.lock(); }
  ~WriterLock() RELEASE() { m_.unlock(); }
  WriterLock(const WriterLock &) = delete;
  WriterLock &operator=(const WriterLock &) = delete;

private:
  SharedMutex &m_;
};

// A thread running f, returned once it does.  Until then the thread is in
// the C library's start-up with its signals blocked, where a fault (module
// code can corrupt any memory of the process, the C library's too) kills
// the process with no panic report; a thread the kernel starts is past
// that before anything else runs.
template <class F> std::thread start_running(F f) {
  std::mutex mu;
  std::condition_variable cv;
  bool running = false;
  std::thread t([&mu, &cv, &running, f = std::move(f)]() mutable {
    {
      std::lock_guard g(mu);
      running = true;
      cv.notify_one();
    }
    f();
  });
  std::unique_lock g(mu);
  cv.wait(g, [&] { return running; });
  return t;
}

} // namespace mk
