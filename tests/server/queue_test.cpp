// Worker slots and the bounded queue (src/server/queue.hpp): refusal when full, waiting until a
// slot frees or the deadline passes, first come first served.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "server/queue.hpp"

namespace {

using meadow::server::Slots;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

TEST(Slots, RefusesWhenWorkersAndQueueAreFull) {
  Slots s(1, 0);
  Slots::Refusal why;
  Slots::Lease a = s.acquire(Clock::now() + 1s, why);
  ASSERT_TRUE(a.held());
  Slots::Lease b = s.acquire(Clock::now() + 1s, why);
  EXPECT_FALSE(b.held());
  EXPECT_EQ(why, Slots::Refusal::full);
  EXPECT_EQ(s.running(), 1);
}

TEST(Slots, QueuedRequestTimesOut) {
  Slots s(1, 1);
  Slots::Refusal why;
  Slots::Lease a = s.acquire(Clock::now() + 1s, why);
  const auto t0 = Clock::now();
  Slots::Lease b = s.acquire(Clock::now() + 50ms, why);
  EXPECT_FALSE(b.held());
  EXPECT_EQ(why, Slots::Refusal::timeout);
  EXPECT_GE(Clock::now() - t0, 50ms);
  EXPECT_EQ(s.waiting(), 0);
}

TEST(Slots, ReleaseAdmitsTheWaitersInArrivalOrder) {
  Slots s(1, 8);
  Slots::Refusal why;
  auto first = std::make_unique<Slots::Lease>(s.acquire(Clock::now() + 1s, why));
  std::vector<int> order;
  std::mutex mu;
  std::vector<std::thread> waiters;
  for (int i = 0; i < 4; ++i) {
    waiters.emplace_back([&, i] {
      Slots::Refusal w;
      Slots::Lease l = s.acquire(Clock::now() + 10s, w);
      ASSERT_TRUE(l.held());
      std::lock_guard lock(mu);
      order.push_back(i);
    });
    while (s.waiting() < i + 1) std::this_thread::sleep_for(1ms);  // queue them in order i
  }
  first.reset();  // frees the slot: the waiters go one by one, oldest first
  for (auto& t : waiters) t.join();
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(s.running(), 0);
}

}  // namespace
