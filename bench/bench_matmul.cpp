// Matrix-product throughput on the Dream-7B shapes with a 128-token batch: OpenBLAS sgemm on
// float32 weights next to our matmul on every weight type, plus single-token (decode) speed.
// Random weights: a block of rows is quantized once and tiled (speed does not depend on the
// values), so setup stays short. Usage: bench_matmul [threads=2] [tokens=128]
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "gguf_quantize.hpp"
#include "meadow/gguf.hpp"
#include "tensor/ops.hpp"

#include "bench_util.hpp"

using namespace meadow::bench;

namespace {

using meadow::gguf::TensorType;
using meadow::tensor::Threads;
using meadow::tensor::Weights;

struct Shape {
  const char* name;
  int64_t rows, cols;
  int per_forward;  // how often the shape occurs in one 28-layer forward
};

const Shape kShapes[] = {
    {"q/o 3584x3584", 3584, 3584, 56},       {"k/v 512x3584", 512, 3584, 56},
    {"gate/up 18944x3584", 18944, 3584, 56}, {"down 3584x18944", 3584, 18944, 28},
    {"output 152064x3584", 152064, 3584, 1},
};

std::vector<float> random_floats(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, 0.5f);
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) x = dist(rng);
  return v;
}

// rows x cols weights of `type`: 256 quantized rows repeated.
std::vector<uint8_t> make_weights(TensorType type, int64_t rows, int64_t cols) {
  const int64_t base_rows = std::min<int64_t>(256, rows);
  const auto src = random_floats(base_rows * cols, 42);
  const auto base = meadow::gguf::quantize(type, src.data(), base_rows * cols);
  std::vector<uint8_t> out(base.size() / size_t(base_rows) * size_t(rows));
  for (size_t off = 0; off < out.size(); off += base.size()) {
    std::memcpy(out.data() + off, base.data(), std::min(base.size(), out.size() - off));
  }
  return out;
}

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string a;
  in >> a;
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  meadow::tensor::ensure_fast_blas(argc, argv);
  const int threads = argc > 1 ? std::atoi(argv[1]) : 2;
  const int64_t n = argc > 2 ? std::atoll(argv[2]) : 128;
  const Threads th{threads};
  std::printf("machine: %s\n%s\n", machine_name().c_str(), meadow::tensor::cpu_report().c_str());
  std::printf("y = x * W^T, x = %lld tokens, %d threads; GFLOP/s = 2*n*rows*cols / time\n\n",
              (long long)n, threads);

  const TensorType types[] = {TensorType::F32, TensorType::F16, TensorType::Q8_0, TensorType::Q4_K,
                              TensorType::Q6_K};
  const int n_types = int(sizeof(types) / sizeof(types[0]));
  const int n_shapes = int(sizeof(kShapes) / sizeof(kShapes[0]));
  // t[shape][0] is sgemm, t[shape][1 + i] is our matmul on types[i].
  std::vector<std::vector<Timing>> t(size_t(n_shapes), std::vector<Timing>(size_t(n_types + 1)));
  std::vector<float> y;
  std::printf("measuring (load average %s) ...\n", load_average().c_str());
  for (int si = 0; si < n_shapes; ++si) {
    const Shape& s = kShapes[si];
    const auto x = random_floats(n * s.cols, 7);
    y.assign(size_t(n * s.rows), 0.0f);
    const int reps = s.rows * s.cols > 100'000'000 ? 1 : 2;
    {
      const auto w = make_weights(TensorType::F32, s.rows, s.cols);
      const auto* wf = reinterpret_cast<const float*>(w.data());
      openblas_set_num_threads(threads);
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, int(n), 64, int(s.cols), 1.0f, x.data(),
                  int(s.cols), wf, int(s.cols), 0.0f, y.data(), int(s.rows));  // warm
      t[si][0] = best_of(reps, threads, [&] {
        openblas_set_num_threads(threads);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, int(n), int(s.rows), int(s.cols), 1.0f,
                    x.data(), int(s.cols), wf, int(s.cols), 0.0f, y.data(), int(s.rows));
      });
    }
    for (int i = 0; i < n_types; ++i) {
      const auto w = make_weights(types[i], s.rows, s.cols);
      const Weights wt{types[i], w.data(), s.rows, s.cols};
      t[si][size_t(i + 1)] = best_of(reps, threads, [&] { matmul(wt, x.data(), n, y.data(), th); });
    }
  }
  std::printf("load average after: %s\n", load_average().c_str());

  for (int use_cpu = 0; use_cpu < 2; ++use_cpu) {
    std::printf("\nGFLOP/s by %s\n",
                use_cpu ? "CPU time / threads (cores to ourselves)" : "wall-clock time");
    std::printf("%-20s %8s", "shape", "sgemm");
    for (auto ty : types) std::printf(" %8s %6s", meadow::gguf::type_name(ty), "/sgemm");
    std::printf("\n");
    auto sec = [&](const Timing& x) { return use_cpu ? x.cpu : x.wall; };
    // The last row weighs each shape as often as it occurs in one forward pass.
    double flops_total = 0;
    std::vector<double> total(size_t(n_types + 1), 0.0);
    for (int si = 0; si < n_shapes; ++si) {
      const Shape& s = kShapes[si];
      const double flops = 2.0 * double(n) * double(s.rows) * double(s.cols);
      flops_total += flops * s.per_forward;
      std::printf("%-20s %8.1f", s.name, flops / sec(t[si][0]) * 1e-9);
      for (int i = 0; i <= n_types; ++i) total[size_t(i)] += sec(t[si][size_t(i)]) * s.per_forward;
      for (int i = 1; i <= n_types; ++i) {
        std::printf(" %8.1f %5.0f%%", flops / sec(t[si][size_t(i)]) * 1e-9,
                    100.0 * sec(t[si][0]) / sec(t[si][size_t(i)]));
      }
      std::printf("\n");
    }
    std::printf("%-20s %8.1f", "forward mix", flops_total / total[0] * 1e-9);
    for (int i = 1; i <= n_types; ++i) {
      std::printf(" %8.1f %5.0f%%", flops_total / total[size_t(i)] * 1e-9,
                  100.0 * total[0] / total[size_t(i)]);
    }
    std::printf("\n");
  }
  std::printf("(forward mix: shapes weighted as in one 28-layer forward plus the output)\n");

  // Single token (decode / option rows): weights are read once, so report GB/s of weights.
  std::printf("\n1 token, gate/up 18944x3584:");
  const Shape& g = kShapes[2];
  const auto x1 = random_floats(g.cols, 9);
  y.assign(size_t(g.rows), 0.0f);
  for (auto t : types) {
    const auto w = make_weights(t, g.rows, g.cols);
    const Weights wt{t, w.data(), g.rows, g.cols};
    const Timing tm = best_of(3, threads, [&] { matmul(wt, x1.data(), 1, y.data(), th); });
    std::printf("  %s %.2f ms (%.1f GB/s; cpu %.2f ms)", meadow::gguf::type_name(t), tm.wall * 1e3,
                double(w.size()) / tm.wall * 1e-9, tm.cpu * 1e3);
  }
  std::printf("\n");
  return 0;
}
