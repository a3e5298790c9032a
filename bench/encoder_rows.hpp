// bench_decide's rows for a BERT-family encoder (meadow/runtime/encoder.hpp): p50 / p95 wall ms
// (and CPU ms per thread) of encoding one 24-token and one 64-token sequence, and of the reader's
// per-decision path on text (tokenize a rule + situation pair, then encode it). One warm
// Workspace throughout, as a decision loop keeps one.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "bench_util.hpp"
#include "meadow/runtime/encoder.hpp"
#include "meadow/runtime/tokenizer.hpp"

namespace meadow::bench {

struct EncodeStats {
  double p50 = 0, p95 = 0, cpu_ms = 0;
};

template <class F>
EncodeStats time_calls(int n, int threads, F&& call) {
  for (int i = 0; i < 5; ++i) call();  // warm: the mapping, the workspace, the thread pool
  std::vector<double> lat;
  const double c0 = process_cpu_seconds();
  for (int i = 0; i < n; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    call();
    lat.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  const double cpu_ms = (process_cpu_seconds() - c0) * 1e3 / n / threads;
  std::sort(lat.begin(), lat.end());
  auto q = [&](double f) { return lat[std::min(lat.size() - 1, size_t(f * double(lat.size())))]; };
  return {q(0.5), q(0.95), cpu_ms};
}

inline int encoder_rows(const std::string& path, int threads, int n) {
  const model::Encoder enc = model::Encoder::load(path);
  const Tokenizer tok = Tokenizer::from_gguf(enc.file());
  const auto& c = enc.config();
  std::printf("machine: %s\n", machine_name().c_str());
  std::printf("encoder: %s\n  bert, embd %lld, %lld layers, %lld heads, ffn %lld, vocab %lld\n",
              path.c_str(), (long long)c.n_embd, (long long)c.n_layer, (long long)c.n_head,
              (long long)c.n_ff, (long long)c.n_vocab);
  const std::string rule =
      "If the pole leans left and the cart is moving right, push left; otherwise, unless the "
      "cart is near the right edge, push right. When in doubt keep the pole upright.";
  const std::string situation = "the pole is falling left, the cart is 0.3 m right of centre";
  // Real text cut to exactly n tokens, [CLS] ... [SEP].
  auto sequence = [&](size_t len) {
    std::string text;
    std::vector<int32_t> ids;
    while (ids.size() < len) ids = tok.encode_segments(text += rule + " ").ids;
    ids.resize(len - 1);
    ids.push_back(*tok.sep_id());
    return model::EncoderInput{ids, std::vector<int32_t>(len, 0)};
  };
  model::Workspace ws;
  std::vector<model::Hidden> out;
  const model::EncodeOptions opts{.threads = threads, .workspace = &ws};
  std::string load;  // the machine is shared: say how busy it was
  std::ifstream("/proc/loadavg") >> load;
  std::printf("%d calls each, %d threads (latency = wall ms per call), load average %s\n", n,
              threads, load.c_str());
  for (size_t len : {size_t(24), size_t(64)}) {
    const std::vector<model::EncoderInput> batch{sequence(len)};
    const EncodeStats s = time_calls(n, threads, [&] { enc.encode(batch, opts, out); });
    std::printf("  %-44s p50 %7.3f ms  p95 %7.3f ms  cpu %7.3f ms/call/thread\n",
                ("encode " + std::to_string(len) + " tokens").c_str(), s.p50, s.p95, s.cpu_ms);
  }
  std::vector<model::EncoderInput> batch(1);
  const EncodeStats s = time_calls(n, threads, [&] {
    SegmentIds ids = tok.encode_segments(rule, situation);
    batch[0].tokens = std::move(ids.ids);
    batch[0].types = std::move(ids.types);
    enc.encode(batch, opts, out);
  });
  std::printf(
      "  %-44s p50 %7.3f ms  p95 %7.3f ms  cpu %7.3f ms/call/thread\n",
      ("tokenize + encode rule, situation (" + std::to_string(batch[0].tokens.size()) + " tokens)")
          .c_str(),
      s.p50, s.p95, s.cpu_ms);
  return 0;
}

}  // namespace meadow::bench
