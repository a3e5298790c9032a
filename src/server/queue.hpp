// Admission of requests that run the model: a fixed number of worker slots and a bounded,
// first-come-first-served queue in front of them. Bounding both keeps memory and latency
// finite under load: a request that cannot even queue is refused at once (503), one that
// waits past its deadline too, instead of piling up behind work the server cannot finish.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>

namespace meadow::server {

class Slots {
 public:
  Slots(int workers, int queue);
  Slots(const Slots&) = delete;
  Slots& operator=(const Slots&) = delete;

  // A held worker slot, released when destroyed.
  class Lease {
   public:
    explicit Lease(Slots* s) : s_(s) {}
    Lease(Lease&& o) noexcept : s_(o.s_) { o.s_ = nullptr; }
    Lease& operator=(Lease&&) = delete;
    Lease(const Lease&) = delete;
    ~Lease();
    bool held() const { return s_ != nullptr; }
    // Gives the slot back now (the work is done but the answer's last bytes are not sent yet),
    // so a client that has the whole answer never sees the slot still taken. Idempotent.
    void release();

   private:
    Slots* s_;
  };

  enum class Refusal { none, full, timeout };

  // A slot, waiting in line until `deadline`. An empty Lease with `why` set when the queue is
  // full (at once) or the deadline passed.
  Lease acquire(std::chrono::steady_clock::time_point deadline, Refusal& why);

  int running() const;
  int waiting() const;
  int workers() const { return workers_; }
  int queue_limit() const { return queue_; }

 private:
  void release();

  const int workers_;
  const int queue_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  int running_ = 0;
  uint64_t next_ticket_ = 0;
  std::deque<uint64_t> line_;  // tickets of waiting requests, oldest first
};

}  // namespace meadow::server
