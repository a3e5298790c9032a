// Matrix-product throughput on the Dream-7B shapes: OpenBLAS sgemm on float32 weights next to
// our matmul on every quantized type, by both paths (Float: weights decoded to float; Integer:
// int8 block-quantized activations, tensor/quant_dot.hpp), at a T-token batch and at 1 token.
// Random weights: a block of rows is quantized once and tiled (speed does not depend on the
// values), so setup stays short. Usage: bench_matmul [threads=2] [tokens=128] [--output] [--small]
// [--cpu]
// (--output adds the vocabulary projection: slow in float at large T; --small: SmolLM2-135M's
// shapes instead of Dream-7B's; --cpu times
// by process CPU time / threads, steadier than wall time when the machine is shared).
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gguf_quantize.hpp"
#include "meadow/runtime/gguf.hpp"
#include "tensor/ops.hpp"
#include "tensor/quant_blocks.hpp"
#include "tensor/quant_dot.hpp"
#include "tensor/thread_pool.hpp"

#include "bench_util.hpp"

using namespace meadow::bench;

namespace {

using meadow::gguf::TensorType;
using meadow::tensor::MatmulPath;
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

// SmolLM2-135M's shapes (30 layers), for --small.
const Shape kSmallShapes[] = {
    {"q/o 576x576", 576, 576, 60},       {"k/v 192x576", 192, 576, 60},
    {"gate/up 1536x576", 1536, 576, 60}, {"down 576x1536", 576, 1536, 30},
    {"output 49152x576", 49152, 576, 1},
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
  bool with_output = false, by_cpu = false, small = false;
  for (int i = 3; i < argc; ++i) {
    with_output |= std::string(argv[i]) == "--output";
    by_cpu |= std::string(argv[i]) == "--cpu";
    small |= std::string(argv[i]) == "--small";
  }
  const Shape* shapes = small ? kSmallShapes : kShapes;
  // The model's setting: a pool of workers that spin between calls, and reused buffers (a
  // call without a pool would start its threads every time).
  std::unique_ptr<meadow::tensor::ThreadPool> pool;
  if (threads > 1) pool = std::make_unique<meadow::tensor::ThreadPool>(threads);
  std::vector<std::vector<float>> scratch(size_t(std::max(threads, 1)));
  const auto ints = meadow::tensor::make_int_scratch(threads);
  const Threads th{threads, pool.get(), scratch, meadow::tensor::MatmulPath::Auto, ints.get()};
  std::printf("machine: %s\n%s\ninteger kernels: %s\n", machine_name().c_str(),
              meadow::tensor::cpu_report().c_str(), meadow::tensor::detail::int_target_name());
  std::printf(
      "y = x * W^T, x = %lld tokens, %d threads; GFLOP/s = 2*n*rows*cols / time, time = %s\n",
      (long long)n, threads, by_cpu ? "process CPU time / threads (shared machine)" : "wall");
  std::printf("(best of 3, of 30 for shapes under 4M weights; load average %s)\n\n",
              load_average().c_str());

  const TensorType types[] = {TensorType::Q4_0, TensorType::Q4_1, TensorType::Q4_K,
                              TensorType::Q6_K, TensorType::Q8_0};
  const int n_shapes = with_output ? 5 : 4;
  std::vector<float> y;
  std::printf("%-20s %-5s %9s %9s %9s %9s %7s %7s | %11s %11s %7s %9s\n", "shape", "type", "sgemm",
              "float", "int", "packed", "int/fl", "pk/int", "1 tok float", "1 tok int", "int/fl",
              "1 tok pk");
  std::printf("%-20s %-5s %9s %9s %9s %9s %7s %7s | %11s %11s %7s %9s\n", "", "", "GFLOP/s",
              "GFLOP/s", "GFLOP/s", "GFLOP/s", "", "", "ms", "ms", "", "ms");
  for (int si = 0; si < n_shapes; ++si) {
    const Shape& s = shapes[si];
    const auto x = random_floats(n * s.cols, 7);
    y.assign(size_t(n * s.rows), 0.0f);
    const int reps = s.rows * s.cols > 100'000'000 ? 1 : s.rows * s.cols < 4'000'000 ? 30 : 3;
    auto sec = [&](const Timing& t) { return by_cpu ? t.cpu : t.wall; };
    const double flops = 2.0 * double(n) * double(s.rows) * double(s.cols);
    Timing sg;
    {
      const auto w = make_weights(TensorType::F32, s.rows, s.cols);
      const auto* wf = reinterpret_cast<const float*>(w.data());
      openblas_set_num_threads(threads);
      sg = best_of(reps, threads, [&] {
        openblas_set_num_threads(threads);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, int(n), int(s.rows), int(s.cols), 1.0f,
                    x.data(), int(s.cols), wf, int(s.cols), 0.0f, y.data(), int(s.rows));
      });
    }
    for (auto type : types) {
      if (s.cols % meadow::tensor::detail::block_geometry(type).elems != 0)
        continue;  // Q4_K/Q6_K: 256
      const auto w = make_weights(type, s.rows, s.cols);
      const Weights wt{type, w.data(), s.rows, s.cols};
      const auto packed = meadow::tensor::pack_weights(wt);  // null: not packed (Q6_K)
      Weights wp = wt;
      wp.packed = packed.get();
      auto run = [&](const Weights& m, MatmulPath p, int64_t tokens, int r) {
        return sec(best_of(r, threads, [&] { matmul(m, x.data(), tokens, y.data(), th, p); }));
      };
      const double tf = run(wt, MatmulPath::Float, n, reps);
      const double ti = run(wt, MatmulPath::Integer, n, reps);
      const double tp = run(wp, MatmulPath::Integer, n, reps);
      const double t1f = run(wt, MatmulPath::Float, 1, 3), t1i = run(wt, MatmulPath::Integer, 1, 3);
      const double t1p = run(wp, MatmulPath::Integer, 1, 3);
      std::printf("%-20s %-5s %9.1f %9.1f %9.1f %9.1f %6.2fx %6.2fx | %11.2f %11.2f %6.2fx %9.2f\n",
                  s.name, meadow::gguf::type_name(type), flops / sec(sg) * 1e-9, flops / tf * 1e-9,
                  flops / ti * 1e-9, flops / tp * 1e-9, tf / ti, ti / tp, t1f * 1e3, t1i * 1e3,
                  t1f / t1i, t1p * 1e3);
      std::fflush(stdout);
    }
  }
  std::printf("load average after: %s\n", load_average().c_str());
  return 0;
}
