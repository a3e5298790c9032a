// Workers spin briefly on the job counter before they sleep on a condition variable: a pass runs
// dozens of kernels a few microseconds apart, and waking a sleeping thread costs tens of
// microseconds, more than a small kernel itself. The spin is bounded in time (kSpin) so an idle
// pool sleeps and a shared machine loses at most that much CPU per pause.
#include "tensor/thread_pool.hpp"

#include <algorithm>
#include <chrono>
#include <string>
#include <system_error>
#include <thread>

#include "meadow/error.hpp"

namespace meadow::tensor {
namespace {

constexpr auto kSpin = std::chrono::microseconds(100);

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Spins until done() or kSpin has passed; true when done() held. After a short busy spin it
// yields between checks, so on a machine with more threads than cores the spinner gives its
// core to a thread with work (measured: two 2-thread processes on 2 cores).
template <class Done>
bool spin_until(Done done) {
  constexpr int kBusy = 256;  // a few microseconds of pause before yielding
  const auto until = std::chrono::steady_clock::now() + kSpin;
  for (int i = 1;; ++i) {
    if (done()) return true;
    if (i < kBusy) {
      cpu_relax();
      continue;
    }
    std::this_thread::yield();
    if (std::chrono::steady_clock::now() > until) return done();
  }
}

}  // namespace

ThreadPool::ThreadPool(int n_threads) {
  try {
    for (int i = 1; i < n_threads; ++i) workers_.emplace_back([this, i] { worker_loop(i); });
  } catch (const std::system_error& e) {
    // The system refused a thread: the ones started must be joined before the vector goes,
    // or their destructors end the process.
    shut_down();
    throw Error("cannot start " + std::to_string(n_threads) + " threads: " + e.what());
  }
}

void ThreadPool::shut_down() {
  {
    std::lock_guard lock(mu_);
    stop_.store(true);
  }
  wake_.notify_all();
  for (auto& t : workers_) t.join();
}

ThreadPool::~ThreadPool() {
  shut_down();
}

void ThreadPool::run(int n, const std::function<void(int)>& job) {
  if (n <= 1 || workers_.empty()) {
    if (n >= 1) job(0);
    return;
  }
  std::lock_guard run_lock(run_mu_);
  const int helpers = std::min(n, size()) - 1;
  {
    // Under the lock, so a worker about to sleep either sees the new generation or is woken.
    std::lock_guard lock(mu_);
    job_ = &job;
    active_ = helpers + 1;
    pending_.store(helpers);
    seats_.store(helpers);
    generation_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  job(0);
  // The work is handed out dynamically, so job(0)'s return means every piece is taken: helpers
  // that have not started yet (descheduled on a busy machine) are not waited for.
  pending_.fetch_sub(seats_.exchange(0), std::memory_order_acq_rel);
  auto finished = [&] { return pending_.load(std::memory_order_acquire) == 0; };
  if (!spin_until(finished)) {
    std::unique_lock lock(mu_);
    done_.wait(lock, finished);
  }
}

bool ThreadPool::take_seat() {
  for (int s = seats_.load(); s > 0;)
    if (seats_.compare_exchange_weak(s, s - 1, std::memory_order_acq_rel)) return true;
  return false;
}

void ThreadPool::worker_loop(int index) {
  uint64_t seen = 0;
  for (;;) {
    auto posted = [&] {
      return stop_.load() || generation_.load(std::memory_order_acquire) != seen;
    };
    if (!spin_until(posted)) {
      std::unique_lock lock(mu_);
      wake_.wait(lock, posted);
    }
    if (stop_.load()) return;
    const std::function<void(int)>* job = nullptr;
    bool takes_part = false;
    {
      // Under the lock: job_, active_ and the seat all belong to the generation read here (the
      // next one is posted under it).
      std::lock_guard lock(mu_);
      seen = generation_.load();
      takes_part = index < active_ && take_seat();
      job = job_;
    }
    if (!takes_part) continue;  // not needed, or the job was done without this worker
    (*job)(index);
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      std::lock_guard lock(mu_);  // the caller may be about to sleep on done_
      done_.notify_one();
    }
  }
}

}  // namespace meadow::tensor
