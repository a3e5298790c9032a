// Forward-pass throughput of a GGUF model: tokens/s of one T-token forward (logits read at
// the last position only, as the decision pass does), the FLOP/s it achieves, and OpenBLAS
// sgemm's FLOP/s on the same layer shapes (float32 weights, T rows) in the same run; peak RSS
// against the file size (weights are used in place from the mapping).
//
// Usage: bench_forward MODEL.gguf [threads=2] [tokens=128] [reps=2] [nosgemm]
// (nosgemm skips the sgemm comparison: quicker on 7B shapes). The matmul arithmetic follows
// MEADOW_MATMUL (unset or "float": float path; "int": integer kernels where faster).
// Fixtures: tools/make_fixture.py (bench/run_bench_forward.sh makes the ~5M and 7B-shaped ones).
#include <cblas.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "meadow/runtime/model.hpp"
#include "tensor/ops.hpp"

#include "bench_util.hpp"

using namespace meadow::bench;

namespace {

using meadow::model::Config;

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string a;
  in >> a;
  return a;
}

struct Shape {
  int64_t rows, cols, per_layer;
};

// The weight matmuls of one layer.
std::vector<Shape> layer_shapes(const Config& c) {
  const int64_t qd = c.n_head * c.head_dim, kvd = c.n_head_kv * c.head_dim;
  return {{qd, c.n_embd, 1},
          {kvd, c.n_embd, 2},
          {c.n_embd, qd, 1},
          {c.n_ff, c.n_embd, 2},
          {c.n_embd, c.n_ff, 1}};
}

}  // namespace

int main(int argc, char** argv) {
  meadow::tensor::ensure_fast_blas(argc, argv);
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: bench_forward MODEL.gguf [threads=2] [tokens=128] [reps=2] [nosgemm]\n");
    return 2;
  }
  const std::string path = argv[1];
  const int threads = argc > 2 ? std::atoi(argv[2]) : 2;
  const int64_t n = argc > 3 ? std::atoll(argv[3]) : 128;
  const int reps = argc > 4 ? std::atoi(argv[4]) : 2;
  const bool with_sgemm = !(argc > 5 && std::string(argv[5]) == "nosgemm");
  const char* mm = std::getenv("MEADOW_MATMUL");

  const auto t_load = std::chrono::steady_clock::now();
  const meadow::model::Model m = meadow::model::Model::load(path);
  const double load_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t_load).count();
  const Config& c = m.config();
  std::map<std::string, int> types;
  for (const auto& t : m.file().tensors()) types[meadow::gguf::type_name(t.type)]++;
  std::string type_list;
  for (const auto& [k, v] : types) type_list += " " + k + "x" + std::to_string(v);
  std::printf("machine: %s\n%s\n", machine_name().c_str(), meadow::tensor::cpu_report().c_str());
  std::printf(
      "model: %s\n  %s, embd %lld, %lld layers, %lld heads (kv %lld), ffn %lld, vocab "
      "%lld; %.2f M params; tensors%s; file %.2f GB; load %.2f s\n",
      path.c_str(), meadow::model::arch_name(c.arch), (long long)c.n_embd, (long long)c.n_layer,
      (long long)c.n_head, (long long)c.n_head_kv, (long long)c.n_ff, (long long)c.n_vocab,
      double(meadow::model::parameter_count(m.file())) / 1e6, type_list.c_str(),
      double(m.file().file_size()) / 1e9, load_s);

  // One forward of n tokens, logits of the last position.
  std::mt19937 rng(1);
  std::vector<int32_t> ids(static_cast<size_t>(n));
  for (auto& t : ids) t = int32_t(rng() % uint32_t(c.n_vocab));
  meadow::model::RunOptions opts;
  opts.threads = threads;
  const std::vector<meadow::model::Sequence> batch{{ids, {n - 1}}};
  std::printf("measuring %lld-token forward, %d threads, MEADOW_MATMUL=%s (load average %s) ...\n",
              (long long)n, threads, mm ? mm : "(unset)", load_average().c_str());
  std::fflush(stdout);
  m.run(batch, opts);  // warm-up: faults the mapping in
  const Timing fwd = best_of(reps, threads, [&] { m.run(batch, opts); });
  const double rss = peak_rss_bytes();  // before the sgemm buffers below

  // FLOPs of what the forward computes: weight matmuls for every token, attention (QK^T and
  // PV over all n keys per query), one output row.
  double layer_flops = 0;
  for (const Shape& s : layer_shapes(c))
    layer_flops += 2.0 * double(n) * double(s.rows * s.cols) * double(s.per_layer);
  const double attn_flops = 4.0 * double(n) * double(n) * double(c.n_head * c.head_dim);
  const double flops =
      double(c.n_layer) * (layer_flops + attn_flops) + 2.0 * double(c.n_embd) * double(c.n_vocab);

  // sgemm on the same shapes: y[n, rows] = x[n, cols] * W^T with float32 W.
  double sgemm_wall = 0, sgemm_cpu = 0;
  std::normal_distribution<float> dist(0.0f, 0.5f);
  for (const Shape& s : layer_shapes(c)) {
    if (!with_sgemm) break;
    std::vector<float> w(size_t(s.rows * s.cols)), x(size_t(n * s.cols)), y(size_t(n * s.rows));
    for (auto& v : w) v = dist(rng);
    for (auto& v : x) v = dist(rng);
    auto gemm = [&] {
      openblas_set_num_threads(threads);
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, int(n), int(s.rows), int(s.cols), 1.0f,
                  x.data(), int(s.cols), w.data(), int(s.cols), 0.0f, y.data(), int(s.rows));
    };
    gemm();
    const Timing t = best_of(std::max(reps, 2), threads, gemm);
    sgemm_wall += t.wall * double(s.per_layer);
    sgemm_cpu += t.cpu * double(s.per_layer);
  }
  const double sgemm_flops_wall = layer_flops / sgemm_wall;
  const double sgemm_flops_cpu = layer_flops / sgemm_cpu;

  std::printf("load average after: %s\n", load_average().c_str());
  std::printf("forward: %.3f s wall (%.3f s cpu/thread) = %.1f tokens/s wall (%.1f by cpu)\n",
              fwd.wall, fwd.cpu, double(n) / fwd.wall, double(n) / fwd.cpu);
  std::printf("forward FLOPs %.3g: %.1f GFLOP/s wall (%.1f by cpu)\n", flops,
              flops / fwd.wall * 1e-9, flops / fwd.cpu * 1e-9);
  if (with_sgemm) {
    std::printf("sgemm, same layer shapes, float32 weights: %.1f GFLOP/s wall (%.1f by cpu)\n",
                sgemm_flops_wall * 1e-9, sgemm_flops_cpu * 1e-9);
    std::printf("ratio forward/sgemm: %.0f%% wall, %.0f%% by cpu (target >= 60%%)\n",
                100.0 * flops / fwd.wall / sgemm_flops_wall,
                100.0 * flops / fwd.cpu / sgemm_flops_cpu);
  }
  std::printf("peak RSS during forward: %.2f GB = %.2f x file size (target <= 1.2)\n", rss / 1e9,
              rss / double(m.file().file_size()));
  return 0;
}
