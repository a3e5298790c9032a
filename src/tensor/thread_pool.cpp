// Workers spin briefly on the job counter before they sleep on a condition variable: a pass runs
// dozens of kernels a few microseconds apart, and waking a sleeping thread costs tens of
// microseconds, more than a small kernel itself. The spin is bounded in time (kSpin) so an idle
// pool sleeps and a shared machine loses at most that much CPU per pause.
#include "tensor/thread_pool.hpp"

#include <algorithm>
#include <chrono>

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

// Spins until done() or kSpin has passed; true when done() held.
template <class Done>
bool spin_until(Done done) {
  const auto until = std::chrono::steady_clock::now() + kSpin;
  for (int i = 1;; ++i) {
    if (done()) return true;
    cpu_relax();
    if (i % 64 == 0 && std::chrono::steady_clock::now() > until) return done();
  }
}

}  // namespace

ThreadPool::ThreadPool(int n_threads) {
  for (int i = 1; i < n_threads; ++i) workers_.emplace_back([this, i] { worker_loop(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mu_);
    stop_.store(true);
  }
  wake_.notify_all();
  for (auto& t : workers_) t.join();
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
    generation_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  job(0);
  auto finished = [&] { return pending_.load(std::memory_order_acquire) == 0; };
  if (!spin_until(finished)) {
    std::unique_lock lock(mu_);
    done_.wait(lock, finished);
  }
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
      std::lock_guard lock(mu_);  // job_ and active_ belong to the generation just read
      seen = generation_.load();
      takes_part = index < active_;
      job = job_;
    }
    if (!takes_part) continue;  // not needed this time
    (*job)(index);
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      std::lock_guard lock(mu_);  // the caller may be about to sleep on done_
      done_.notify_one();
    }
  }
}

}  // namespace meadow::tensor
