// Fork-join over an index range: the calling thread works too, helpers are joined before
// returning. Tasks are handed out dynamically so uneven work (panels, heads) balances.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace meadow::tensor::detail {

// Calls fn(begin, end, worker) for consecutive ranges of at most `grain` indices covering
// [0, count), on up to `threads` threads. The first exception thrown is rethrown.
template <class Fn>
void parallel_for(int64_t count, int64_t grain, int threads, Fn&& fn) {
  if (count <= 0) return;
  grain = std::max<int64_t>(grain, 1);
  const int64_t tasks = (count + grain - 1) / grain;
  const int workers = int(std::clamp<int64_t>(threads, 1, tasks));
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
  std::vector<std::jthread> helpers;
  helpers.reserve(size_t(workers - 1));
  for (int w = 1; w < workers; ++w) helpers.emplace_back(work, w);
  work(0);
  helpers.clear();  // joins
  if (error) std::rethrow_exception(error);
}

}  // namespace meadow::tensor::detail
