// A fixed set of worker threads that kernels reuse across calls (Threads::pool), so a forward
// pass with hundreds of small kernels does not start hundreds of threads.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace meadow::tensor {

class ThreadPool {
 public:
  // n_threads counts the calling thread: n_threads - 1 workers are started. Throws
  // meadow::Error when the system refuses a thread (the ones started are joined first).
  explicit ThreadPool(int n_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return int(workers_.size()) + 1; }

  // Runs job(i) for i in [0, n) — i = 0 on the calling thread — and returns when all that
  // started are done. A helper that has not started job(i) when job(0) returns is skipped, so
  // the job must hand out its work dynamically (parallel_for does): job(0) returns only when
  // every piece is taken. job must not throw. Calls from several threads are serialised; a job
  // must not call run() on the same pool.
  void run(int n, const std::function<void(int)>& job);

 private:
  void worker_loop(int index);
  void shut_down();  // stops and joins the workers
  bool take_seat();  // joins the current job unless the caller has closed it

  std::mutex run_mu_;  // one run() at a time
  std::mutex mu_;      // guards job_ and active_; waits on wake_/done_ hold it
  std::condition_variable wake_, done_;
  const std::function<void(int)>* job_ = nullptr;
  int active_ = 0;                // workers 1..active_-1 take part in the current job
  std::atomic<int> pending_ = 0;  // workers that have not yet finished the current generation
  std::atomic<int> seats_ = 0;    // helpers that may still join the current job
  std::atomic<uint64_t> generation_ = 0;  // a new job was posted (workers spin on it)
  std::atomic<bool> stop_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace meadow::tensor
