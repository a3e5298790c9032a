// Workers sleep on a condition variable between jobs (no spinning: the machine may be shared).
#include "tensor/thread_pool.hpp"

#include <algorithm>

namespace meadow::tensor {

ThreadPool::ThreadPool(int n_threads) {
  for (int i = 1; i < n_threads; ++i) workers_.emplace_back([this, i] { worker_loop(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
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
    std::lock_guard lock(mu_);
    job_ = &job;
    active_ = helpers + 1;
    pending_ = helpers;
    ++generation_;
  }
  wake_.notify_all();
  job(0);
  std::unique_lock lock(mu_);
  done_.wait(lock, [&] { return pending_ == 0; });
  job_ = nullptr;
}

void ThreadPool::worker_loop(int index) {
  uint64_t seen = 0;
  std::unique_lock lock(mu_);
  for (;;) {
    wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
    if (stop_) return;
    seen = generation_;
    if (index >= active_) continue;  // not needed this time
    const auto* job = job_;
    lock.unlock();
    (*job)(index);
    lock.lock();
    if (--pending_ == 0) done_.notify_one();
  }
}

}  // namespace meadow::tensor
