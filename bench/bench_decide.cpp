// Decision latency of the mind: p50 / p95 of one decision (tokenize + forward + softmax) with
// the prefix cache and without it (one uncached pass with the same mask), on a CartPole-like
// rule table whose situations vary, plus the one-time prefix encoding. Also the cached pass
// without the Σ coherence rows (letters only). Reports process CPU time per decision next to
// wall time: the machine is shared, CPU time says what an idle core would take.
//
// Usage: bench_decide MODEL.gguf [threads=2 (0: the Mind's auto choice)] [decisions=300]
//                     [float_recheck=0.1] [cached]
// (float_recheck: DecideOptions'; `cached` runs the cached row only, for 7B-sized models.)
// A BERT-family encoder (bert GGUF, e.g. minilm-l6) gets its own rows instead: encoding 24 and
// 64 tokens, and tokenize + encode of a rule and a situation (bench/encoder_rows.hpp); a
// meadow-reader file (bert with reader.* heads) reading the table's rule and deciding its
// situations (bench/reader_rows.hpp).
// Fixtures shaped like the embedded model: bench/run_bench_decide.sh.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

#include "meadow/mind.hpp"
#include "meadow/runtime/decider.hpp"
#include "tensor/ops.hpp"

#include "bench_util.hpp"
#include "decide_table.hpp"
#include "encoder_rows.hpp"
#include "reader_rows.hpp"

using namespace meadow::bench;

namespace {

struct Stats {
  double p50 = 0, p95 = 0, cpu_ms = 0;
};

Stats measure(meadow::Mind& mind, const meadow::Task& task, const std::vector<std::string>& sits,
              int n, bool uncached, int threads) {
  for (int i = 0; i < 5; ++i) mind.decide_status(task, sits[size_t(i) % sits.size()]);  // warm
  std::vector<double> lat;
  const double c0 = process_cpu_seconds();
  for (int i = 0; i < n; ++i) {
    const auto& s = sits[size_t(i) * 37 % sits.size()];
    lat.push_back(uncached ? mind.decide_status_uncached(task, s).lat_ms
                           : mind.decide_status(task, s).lat_ms);
  }
  const double cpu_ms = (process_cpu_seconds() - c0) * 1e3 / n / threads;
  std::sort(lat.begin(), lat.end());
  auto q = [&](double f) { return lat[std::min(lat.size() - 1, size_t(f * double(lat.size())))]; };
  return {q(0.5), q(0.95), cpu_ms};
}

}  // namespace

int main(int argc, char** argv) {
  meadow::tensor::ensure_fast_blas(argc, argv);
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: bench_decide MODEL.gguf [threads=2] [decisions=300] [float_recheck=0.1] "
                 "[cached]\n");
    return 2;
  }
  const std::string path = argv[1];
  const int threads = argc > 2 ? std::atoi(argv[2]) : 2;
  const int n = argc > 3 ? std::atoi(argv[3]) : 300;
  const double recheck = argc > 4 ? std::atof(argv[4]) : 0.1;
  const bool cached_only = argc > 5 && std::string(argv[5]) == "cached";
  try {
    if (meadow::reader::Reader::is_reader(meadow::gguf::File::open(path)))
      return reader_rows(path, std::max(threads, 1), n);
    if (meadow::model::is_encoder(meadow::gguf::File::open(path)))
      return encoder_rows(path, std::max(threads, 1), n);
    const meadow::Task task = table();
    const auto sits = situations();
    meadow::Mind cached(path, {.decide = {.threads = threads, .float_recheck = recheck}});
    meadow::Mind letters(
        path, {.decide = {.threads = threads, .want_coherence = false, .float_recheck = recheck}});
    const int th = cached.options().decide.threads;  // resolved when 0 (auto)
    const auto& cfg = cached.model().config();
    std::printf("machine: %s\n%s\n", machine_name().c_str(), meadow::tensor::cpu_report().c_str());
    std::printf(
        "model: %s\n  %s, embd %lld, %lld layers, %lld heads (kv %lld), ffn %lld, vocab %lld\n",
        path.c_str(), meadow::model::arch_name(cfg.arch), (long long)cfg.n_embd,
        (long long)cfg.n_layer, (long long)cfg.n_head, (long long)cfg.n_head_kv,
        (long long)cfg.n_ff, (long long)cfg.n_vocab);

    const auto t0 = std::chrono::steady_clock::now();
    cached.decide_status(task, sits[0]);  // first decision encodes the prefix
    const double first_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    meadow::decision::Decider probe(
        cached.model(), cached.tokenizer(), task.rule,
        {{'A', task.options[0].text}, {'B', task.options[1].text}, {'C', task.options[2].text}},
        {.prefix_cache = false});
    const auto ids = probe.prompt_ids(sits[0]);
    std::printf(
        "prompt: prefix %zu tokens, suffix %zu, slot %zu; first decision (encodes the "
        "prefix) %.2f ms\n",
        ids.prefix.size(), ids.suffix.size(), ids.slot.size(), first_ms);
    std::printf(
        "%d decisions each, %d threads, float re-check under margin %.2f (latency = wall "
        "ms per decision)\n",
        n, th, recheck);
    const Stats c = measure(cached, task, sits, n, false, th);
    std::printf("  %-34s p50 %7.3f ms  p95 %7.3f ms  cpu %7.3f ms/decision/thread\n",
                "prefix cache", c.p50, c.p95, c.cpu_ms);
    if (cached_only) return 0;
    const Stats l = measure(letters, task, sits, n, false, th);
    const Stats u = measure(cached, task, sits, n, true, th);
    std::printf("  %-34s p50 %7.3f ms  p95 %7.3f ms  cpu %7.3f ms/decision/thread\n",
                "prefix cache, letters only", l.p50, l.p95, l.cpu_ms);
    std::printf("  %-34s p50 %7.3f ms  p95 %7.3f ms  cpu %7.3f ms/decision/thread\n",
                "no cache (same mask, full prompt)", u.p50, u.p95, u.cpu_ms);
    std::printf("  speed-up of the cache at p50: %.2fx\n", u.p50 / c.p50);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  return 0;
}
