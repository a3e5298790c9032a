// Fork-join over an index range: the calling thread works too; helpers (started per call,
// or a ThreadPool's) have finished before it returns. Tasks are handed out dynamically so uneven
// work (panels, heads) balances.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "tensor/ops.hpp"
#include "tensor/thread_pool.hpp"

namespace meadow::tensor::detail {

// Calls fn(begin, end, worker) for consecutive ranges of at most `grain` indices covering
// [0, count), on up to th.n threads (th.pool's when given; worker < th.n). The first
// exception thrown is rethrown.
template <class Fn>
void parallel_for(int64_t count, int64_t grain, Threads th, Fn&& fn) {
  if (count <= 0) return;
  grain = std::max<int64_t>(grain, 1);
  const int64_t tasks = (count + grain - 1) / grain;
  int limit = std::max(th.n, 1);
  if (th.pool) limit = std::min(limit, th.pool->size());
  const int workers = int(std::clamp<int64_t>(limit, 1, tasks));
  if (workers == 1) {
    for (int64_t b = 0; b < count; b += grain) fn(b, std::min(count, b + grain), 0);
    return;
  }
  std::atomic<int64_t> next{0};
  std::exception_ptr error;
  std::mutex error_mu;
  auto work = [&](int worker) {
    try {
      for (int64_t t; (t = next.fetch_add(1)) < tasks;) {
        const int64_t b = t * grain;
        fn(b, std::min(count, b + grain), worker);
      }
    } catch (...) {
      std::lock_guard lock(error_mu);
      if (!error) error = std::current_exception();
      next.store(tasks);
    }
  };
  if (th.pool) {
    // A one-pointer lambda fits std::function's inline storage: handing the job to the pool
    // allocates nothing (work itself captures too much to fit).
    const auto* job = &work;
    th.pool->run(workers, [job](int worker) { (*job)(worker); });
  } else {
    std::vector<std::jthread> helpers;
    helpers.reserve(size_t(workers - 1));
    for (int w = 1; w < workers; ++w) helpers.emplace_back(work, w);
    work(0);
  }  // helpers join here
  if (error) std::rethrow_exception(error);
}

}  // namespace meadow::tensor::detail
