// Decisions per second one at a time and in batches (Mind::decide_status_batch: N situations of
// one table in one forward pass sharing the cached prefix), at N = 1, 8, 64 and any N given,
// with the Σ coherence rows and letters only. Each row runs at least `decisions` decisions; the
// ratio is against one-at-a-time decide_status in the same run.
//
// Usage: bench_batch MODEL.gguf [threads=2 (0: the Mind's auto choice)] [decisions=256] [N...]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "meadow/mind.hpp"
#include "tensor/ops.hpp"

#include "bench_util.hpp"
#include "decide_table.hpp"

using namespace meadow::bench;

namespace {

struct Rate {
  double per_s = 0;      // decisions per second, wall
  double cpu_per_s = 0;  // decisions per CPU-second per thread (what idle cores would give)
};

// n_batch = 0: one decide_status call per decision.
Rate measure(meadow::Mind& mind, const meadow::Task& task, const std::vector<std::string>& sits,
             int n_batch, int decisions, int threads) {
  const int per_call = n_batch == 0 ? 1 : n_batch;
  const int calls = (decisions + per_call - 1) / per_call;
  std::vector<std::string> batch(static_cast<size_t>(per_call));
  size_t next = 0;
  auto fill = [&] {
    for (auto& s : batch) s = sits[(next++ * 37) % sits.size()];
  };
  fill();
  if (n_batch == 0)
    mind.decide_status(task, batch[0]);  // warm
  else
    mind.decide_status_batch(task, batch);
  const double c0 = process_cpu_seconds();
  const auto t0 = std::chrono::steady_clock::now();
  for (int c = 0; c < calls; ++c) {
    fill();
    if (n_batch == 0)
      mind.decide_status(task, batch[0]);
    else
      mind.decide_status_batch(task, batch);
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cpu = (process_cpu_seconds() - c0) / threads;
  const double n = double(calls) * per_call;
  return {n / wall, n / cpu};
}

}  // namespace

int main(int argc, char** argv) {
  meadow::tensor::ensure_fast_blas(argc, argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_batch MODEL.gguf [threads=2] [decisions=256] [N...]\n");
    return 2;
  }
  const std::string path = argv[1];
  const int threads = argc > 2 ? std::atoi(argv[2]) : 2;
  const int decisions = argc > 3 ? std::atoi(argv[3]) : 256;
  std::vector<int> sizes;
  for (int i = 4; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
  if (sizes.empty()) sizes = {1, 8, 64};
  if (decisions < 1) {
    std::fprintf(stderr, "error: decisions must be at least 1\n");
    return 2;
  }
  for (int n : sizes)
    if (n < 1) {
      std::fprintf(stderr, "error: a batch size must be at least 1\n");
      return 2;
    }
  try {
    const meadow::Task task = table();
    const auto sits = situations();
    std::printf("machine: %s\n%s\nmodel: %s\n", machine_name().c_str(),
                meadow::tensor::cpu_report().c_str(), path.c_str());
    for (const bool coherence : {true, false}) {
      meadow::Mind mind(path, {.decide = {.threads = threads, .want_coherence = coherence}});
      const int th = mind.options().decide.threads;
      std::printf("\n%s, %d thread(s), >= %d decisions a row\n",
                  coherence ? "with the coherence rows" : "letters only", th, decisions);
      std::printf("  %-22s %14s %10s %16s %10s\n", "", "decisions/s", "ratio", "cpu decisions/s",
                  "cpu ratio");
      const Rate one = measure(mind, task, sits, 0, decisions, th);
      std::printf("  %-22s %14.1f %10s %16.1f %10s\n", "one at a time", one.per_s, "1.00x",
                  one.cpu_per_s, "1.00x");
      for (int n : sizes) {
        const Rate r = measure(mind, task, sits, n, decisions, th);
        char name[32], ratio[16], cpu_ratio[16];
        std::snprintf(name, sizeof name, "batch of %d", n);
        std::snprintf(ratio, sizeof ratio, "%.2fx", r.per_s / one.per_s);
        std::snprintf(cpu_ratio, sizeof cpu_ratio, "%.2fx", r.cpu_per_s / one.cpu_per_s);
        std::printf("  %-22s %14.1f %10s %16.1f %10s\n", name, r.per_s, ratio, r.cpu_per_s,
                    cpu_ratio);
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  return 0;
}
