// Worker slots and the bounded FIFO queue (server/queue.hpp).
#include "server/queue.hpp"

#include <algorithm>

namespace meadow::server {

Slots::Slots(int workers, int queue) : workers_(std::max(1, workers)), queue_(std::max(0, queue)) {}

Slots::Lease::~Lease() {
  release();
}

void Slots::Lease::release() {
  if (s_) s_->release();
  s_ = nullptr;
}

Slots::Lease Slots::acquire(std::chrono::steady_clock::time_point deadline, Refusal& why) {
  std::unique_lock lock(mu_);
  why = Refusal::none;
  if (line_.empty() && running_ < workers_) {
    ++running_;
    return Lease(this);
  }
  if (int(line_.size()) >= queue_) {
    why = Refusal::full;
    return Lease(nullptr);
  }
  const uint64_t me = next_ticket_++;
  line_.push_back(me);
  // Only the oldest waiter may take a free slot: FIFO, so no request starves.
  const bool admitted =
      cv_.wait_until(lock, deadline, [&] { return line_.front() == me && running_ < workers_; });
  line_.erase(std::find(line_.begin(), line_.end(), me));
  if (!admitted) {
    why = Refusal::timeout;
    cv_.notify_all();  // the next in line may be admissible now that this one left
    return Lease(nullptr);
  }
  ++running_;
  cv_.notify_all();  // a second free slot goes to the next in line
  return Lease(this);
}

void Slots::release() {
  {
    std::lock_guard lock(mu_);
    --running_;
  }
  cv_.notify_all();
}

int Slots::running() const {
  std::lock_guard lock(mu_);
  return running_;
}

int Slots::waiting() const {
  std::lock_guard lock(mu_);
  return int(line_.size());
}

}  // namespace meadow::server
