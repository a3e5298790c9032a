// A warm decision allocates nothing: a counting operator new (this test executable only)
// around cached decisions into a reused record, after the first ones have grown every buffer.
// The embedded model (dream, F32 weights: register tiles) and a quantized causal fixture
// (qwen2, Q8_0: decoded tiles through sgemm), on one thread and on a pool of two, with and
// without the draft, and with an early exit.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "../diffusion/mind_fixture.hpp"
#include "meadow/decision.hpp"
#include "meadow/gguf.hpp"
#include "meadow/mind.hpp"
#include "meadow/model.hpp"
#include "meadow/tokenizer.hpp"

// Under ASan the runtime owns operator new and delete; replacing them here mixes its allocations
// with ours (alloc-dealloc-mismatch), so the sanitizer build runs the same decisions (reused
// buffers under ASan's eye) without counting.
#if defined(__SANITIZE_ADDRESS__)
#define MEADOW_COUNTING_NEW 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MEADOW_COUNTING_NEW 0
#endif
#endif
#ifndef MEADOW_COUNTING_NEW
#define MEADOW_COUNTING_NEW 1
#endif

namespace {
std::atomic<long long> g_allocs{0};
}  // namespace

#if MEADOW_COUNTING_NEW
void* operator new(std::size_t n) {
  g_allocs.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) {
  g_allocs.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  std::free(p);
}
#endif

namespace meadow {
namespace {

const std::vector<std::string>& situations() {
  static const std::vector<std::string> s = {
      "The light is red and the road is wet.", "A green light, and nobody is crossing.",
      "The light turns yellow while the car is far away.",
      "Red light ahead; a cyclist waits at the corner.", "Green."};
  return s;
}

// Decides every situation `rounds` times into one record; returns the allocations counted in
// the last round, and checks every answer equals decide()'s.
long long allocations_when_warm(const diffusion::Decider& d, int rounds) {
  diffusion::Decision into;
  long long counted = 0;
  for (int r = 0; r < rounds; ++r) {
    const long long before = g_allocs.load();
    for (const std::string& s : situations()) d.decide_into(s, into);
    counted = g_allocs.load() - before;
  }
  for (const std::string& s : situations()) {
    d.decide_into(s, into);
    const diffusion::Decision fresh = d.decide(s);
    EXPECT_EQ(into.letter, fresh.letter) << s;
    EXPECT_EQ(into.status, s);
    EXPECT_EQ(into.draft, fresh.draft) << s;
    EXPECT_EQ(into.probs.size(), fresh.probs.size());
    for (size_t i = 0; i < fresh.probs.size() && i < into.probs.size(); ++i)
      EXPECT_NEAR(into.probs[i].second, fresh.probs[i].second, 1e-12) << s;
  }
  return counted;
}

void check_model(const std::string& path) {
  const model::Model m = model::Model::load(path);
  const Tokenizer tok = Tokenizer::from_gguf(m.file());
  const std::vector<diffusion::Choice> choices = {{'A', "stop"}, {'B', "go"}, {'C', "slow down"}};
  struct Variant {
    bool coherence;
    double exit_margin;
  };
  for (int threads : {1, 2}) {
    for (const Variant v : {Variant{true, 0.0}, Variant{false, 0.0}, Variant{false, 0.5}}) {
      diffusion::DecideOptions o;
      o.threads = threads;
      o.want_coherence = v.coherence;
      o.exit_margin = v.exit_margin;
      const diffusion::Decider d(
          m, tok, "If the light is red, choose A; if green, B; if yellow, C.", choices, o);
      const long long n = allocations_when_warm(d, 3);
      if (MEADOW_COUNTING_NEW)
        EXPECT_EQ(n, 0) << path << ", " << threads << " threads, coherence " << v.coherence
                        << ", exit margin " << v.exit_margin;
    }
  }
}

TEST(WarmDecision, EmbeddedModelAllocatesNothing) {
  check_model(std::string(MEADOW_SOURCE_DIR) + "/models/meadow-nano.gguf");
}

TEST(WarmDecision, QuantizedCausalModelAllocatesNothing) {
  const std::string out = (mind_test::fixture_dir() / "alloc-qwen2-q8.gguf").string();
  mind_test::run_command(std::string(MEADOW_PYTHON) + " " + MEADOW_SOURCE_DIR +
                         "/tools/make_fixture.py --arch qwen2 --type Q8_0 --vocab 512 --hidden 64 "
                         "--ffn 128 --out " +
                         mind_test::shell_quote(out));
  check_model(out);
}

// The same through Mind (the API a game loop calls): decide_status_into a reused record.
TEST(WarmDecision, MindDecideStatusIntoAllocatesNothing) {
  Mind mind(std::string(MEADOW_SOURCE_DIR) + "/models/meadow-nano.gguf");
  Task t;
  t.name = "lights";
  t.rule = "If the light is red, choose A; if green, choose B; if yellow, choose C.";
  t.options = {{'A', "stop", {0}, ""}, {'B', "go", {1}, ""}, {'C', "slow down", {2}, ""}};
  DecisionInfo d;
  long long counted = -1;
  for (int r = 0; r < 3; ++r) {
    const long long before = g_allocs.load();
    for (const std::string& s : situations()) mind.decide_status_into(t, s, d);
    counted = g_allocs.load() - before;
  }
  if (MEADOW_COUNTING_NEW) EXPECT_EQ(counted, 0);
  EXPECT_EQ(d.status, situations().back());
}

}  // namespace
}  // namespace meadow
