// Heap allocations and peak memory of the decision hot path: a counting global operator new
// (this binary only) around N cached decisions after the first ones, per decision; and the
// model's load time and the process's peak RSS beside the file size, and what is resident at
// the end by kind (the model file's pages, anonymous memory, code).
//
// Usage: bench_alloc MODEL.gguf [decisions=200]
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "meadow/mind.hpp"
#include "tensor/ops.hpp"

#include "bench_util.hpp"
#include "counting_new.hpp"
#include "decide_table.hpp"

using namespace meadow::bench;

int main(int argc, char** argv) {
  meadow::tensor::ensure_fast_blas(argc, argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_alloc MODEL.gguf [decisions=200]\n");
    return 2;
  }
  const std::string path = argv[1];
  const int n = argc > 2 ? std::atoi(argv[2]) : 200;
  if (n < 1) {
    std::fprintf(stderr, "error: decisions must be at least 1\n");
    return 2;
  }
  try {
    struct stat st {};
    if (stat(path.c_str(), &st) != 0) throw meadow::Error("cannot stat " + path);
    const double rss0 = peak_rss_bytes();
    const Resident res0 = resident_bytes(path);
    const auto t0 = std::chrono::steady_clock::now();
    meadow::Mind mind(path, {.decide = {.threads = 1}});
    const double load_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const meadow::Task task = table();
    const auto sits = situations();
    for (int i = 0; i < 5; ++i) mind.decide_status(task, sits[size_t(i)]);  // prefix, warm-up
    auto sit = [&](int i) -> const std::string& { return sits[size_t(i) * 37 % sits.size()]; };
    const long long a0 = meadow::testing::allocation_count();
    for (int i = 0; i < n; ++i) mind.decide_status(task, sit(i));
    const long long allocs = meadow::testing::allocation_count() - a0;
    // The same decisions into one record, whose storage is reused (decide_status_into).
    meadow::Decision d;
    for (int i = 0; i < 5; ++i) mind.decide_status_into(task, sit(i), d);  // grows d's storage
    const long long b0 = meadow::testing::allocation_count();
    for (int i = 0; i < n; ++i) mind.decide_status_into(task, sit(i), d);
    const long long allocs_into = meadow::testing::allocation_count() - b0;
    const double rss = peak_rss_bytes();
    const Resident res = resident_bytes(path);
    const double mib = 1 << 20, file = double(st.st_size);
    std::printf("model: %s (%.1f MiB)\n", path.c_str(), double(st.st_size) / (1 << 20));
    std::printf("  load (open, map, validate, tokenizer)  %10.1f ms\n", load_ms);
    std::printf("  heap allocations per cached decision   %10.1f\n", double(allocs) / n);
    std::printf("    into a reused record                 %10.1f\n", double(allocs_into) / n);
    std::printf("  peak RSS before loading                %10.1f MiB\n", rss0 / (1 << 20));
    std::printf("  peak RSS after %d decisions           %10.1f MiB (growth %.2f x file)\n", n,
                rss / mib, (rss - rss0) / file);
    // What the model costs, apart from code pages the libraries touch as they run.
    const double anon = res.anon - res0.anon;
    std::printf("  resident now: the model file's pages   %10.1f MiB (%.2f x file)\n",
                res.file / mib, res.file / file);
    std::printf("    anonymous memory added since start   %10.1f MiB\n", anon / mib);
    std::printf("    code and other files added           %10.1f MiB\n",
                (res.other - res0.other) / mib);
    std::printf("  model memory (file pages + anonymous)  %10.1f MiB (%.2f x file)\n",
                (res.file + anon) / mib, (res.file + anon) / file);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  return 0;
}
