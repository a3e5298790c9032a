// Dequantization throughput of every supported type, one thread: float32 elements written per
// second and input bytes read per second, over a buffer larger than the caches.
// Usage: bench_dequantize [million_elements=16]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "gguf_quantize.hpp"
#include "meadow/runtime/gguf.hpp"

#include "bench_util.hpp"

using namespace meadow::bench;

namespace {

using meadow::gguf::TensorType;

}  // namespace

int main(int argc, char** argv) {
  const int64_t n = int64_t(argc > 1 ? std::atoi(argv[1]) : 16) * (1 << 20);
  std::printf("bench_dequantize: %lld elements per pass, 1 thread, %s\n", (long long)n,
              machine_name().c_str());
  // One 64K-element tile of random values, quantized once and repeated (speed does not depend
  // on the values).
  const int64_t tile = 1 << 16;
  std::mt19937 rng(1);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> x(tile);
  for (float& v : x) v = normal(rng);
  std::vector<float> out(n);
  for (TensorType t : {TensorType::F32, TensorType::F16, TensorType::BF16, TensorType::Q8_0,
                       TensorType::Q4_0, TensorType::Q4_K, TensorType::Q6_K}) {
    const std::vector<uint8_t> q = meadow::gguf::quantize(t, x.data(), tile);
    std::vector<uint8_t> src(q.size() * size_t(n / tile));
    for (size_t off = 0; off < src.size(); off += q.size())
      std::copy(q.begin(), q.end(), src.begin() + off);
    double best = 1e30;
    for (int rep = 0; rep < 5; ++rep) {
      const auto t0 = std::chrono::steady_clock::now();
      meadow::gguf::dequantize(t, src.data(), out.data(), n);
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      best = std::min(best, s);
    }
    std::printf("  %-5s %8.0f M elements/s  %6.2f GB/s read  %6.2f GB/s written  (best of 5)\n",
                meadow::gguf::type_name(t), double(n) / best / 1e6, double(src.size()) / best / 1e9,
                double(n) * 4 / best / 1e9);
  }
  return 0;
}
