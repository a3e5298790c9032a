// parallel_for with and without a ThreadPool: every index exactly once, errors propagate,
// and kernels give the same results either way.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "reference.hpp"
#include "tensor/ops.hpp"
#include "tensor/parallel.hpp"
#include "tensor/thread_pool.hpp"

namespace meadow::tensor {
namespace {

TEST(Parallel, CoversEveryIndexOnceWithAndWithoutPool) {
  ThreadPool pool(3);
  for (Threads th : {Threads{1}, Threads{3}, Threads{3, &pool}, Threads{8, &pool}}) {
    for (int round = 0; round < 20; ++round) {  // reuse the pool many times
      std::vector<std::atomic<int>> hits(101);
      std::atomic<int> bad_worker{0};
      detail::parallel_for(101, 7, th, [&](int64_t b, int64_t e, int worker) {
        if (e - b > 7 || worker < 0 || worker >= th.n) ++bad_worker;
        for (int64_t i = b; i < e; ++i) ++hits[size_t(i)];
      });
      for (auto& h : hits) ASSERT_EQ(h.load(), 1);
      ASSERT_EQ(bad_worker.load(), 0);
    }
  }
}

// Back-to-back jobs, some too small for every helper, with pauses long enough for the workers to
// stop spinning and sleep: each job runs every index once, two workers never share an index
// (their scratch), and no job's helper runs a later job's work (the pool's seats).
TEST(Parallel, BackToBackJobsOfEverySizeOnOnePool) {
  ThreadPool pool(4);
  const Threads th{4, &pool};
  for (int round = 0; round < 3000; ++round) {
    const int64_t count = 1 + round % 9;
    std::vector<std::atomic<int>> hits(static_cast<size_t>(count));
    std::vector<std::atomic<int>> busy(4);
    std::atomic<int> clash{0};
    detail::parallel_for(count, 1, th, [&](int64_t b, int64_t e, int worker) {
      if (busy[size_t(worker)].fetch_add(1) != 0) ++clash;
      for (int64_t i = b; i < e; ++i) ++hits[size_t(i)];
      busy[size_t(worker)].fetch_sub(1);
    });
    for (auto& h : hits) ASSERT_EQ(h.load(), 1) << "round " << round;
    ASSERT_EQ(clash.load(), 0) << "round " << round;
    if (round % 500 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

TEST(Parallel, RethrowsTheFirstError) {
  ThreadPool pool(2);
  for (Threads th : {Threads{2}, Threads{2, &pool}}) {
    EXPECT_THROW(detail::parallel_for(10, 1, th,
                                      [](int64_t b, int64_t, int) {
                                        if (b == 5) throw std::runtime_error("boom");
                                      }),
                 std::runtime_error);
  }
}

TEST(Parallel, MatmulWithPoolEqualsWithout) {
  ThreadPool pool(2);
  const int64_t rows = 300, cols = 256;
  auto q = testing::make_weights(gguf::TensorType::Q4_K, rows, cols, 5);
  for (int64_t n : {2, 16}) {
    const auto x = testing::random_floats(n * cols, 6);
    std::vector<float> a(static_cast<size_t>(n * rows)), b(a.size());
    matmul(q.w, x.data(), n, a.data(), Threads{2});
    matmul(q.w, x.data(), n, b.data(), Threads{2, &pool});
    EXPECT_EQ(a, b);
  }
}

}  // namespace
}  // namespace meadow::tensor
