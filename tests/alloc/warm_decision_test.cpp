// A warm decision allocates nothing: a counting operator new (tests/support/counting_new.cpp)
// around cached decisions into a reused record, after the first ones have grown every buffer.
// Under ASan nothing is counted, but the same decisions run (reused buffers under its eye).
// The embedded model (dream, F32 weights: register tiles) and quantized causal fixtures (qwen2,
// Q8_0 64 wide: decoded tiles through sgemm; Q4_K 512 wide: the integer kernels), on one thread
// and on a pool of two, with and without the draft, and with an early exit.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../decision/mind_fixture.hpp"
#include "counting_new.hpp"
#include "meadow/mind.hpp"
#include "meadow/runtime/decider.hpp"
#include "meadow/runtime/gguf.hpp"
#include "meadow/runtime/model.hpp"
#include "meadow/runtime/tokenizer.hpp"

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
long long allocations_when_warm(const decision::Decider& d, int rounds) {
  Decision into;
  long long counted = 0;
  for (int r = 0; r < rounds; ++r) {
    const long long before = testing::allocation_count();
    for (const std::string& s : situations()) d.decide_into(s, into);
    counted = testing::allocation_count() - before;
  }
  for (const std::string& s : situations()) {
    d.decide_into(s, into);
    const Decision fresh = d.decide(s);
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
  const std::vector<decision::Choice> choices = {{'A', "stop"}, {'B', "go"}, {'C', "slow down"}};
  struct Variant {
    bool coherence;
    double exit_margin;
  };
  for (int threads : {1, 2}) {
    for (const Variant v : {Variant{true, 0.0}, Variant{false, 0.0}, Variant{false, 0.5}}) {
      DecideOptions o;
      o.threads = threads;
      o.want_coherence = v.coherence;
      o.exit_margin = v.exit_margin;
      const decision::Decider d(m, tok, "If the light is red, choose A; if green, B; if yellow, C.",
                                choices, o);
      const long long n = allocations_when_warm(d, 3);
      if (testing::counting_allocations()) {
        EXPECT_EQ(n, 0) << path << ", " << threads << " threads, coherence " << v.coherence
                        << ", exit margin " << v.exit_margin;
      }
    }
  }
}

TEST(WarmDecision, EmbeddedModelAllocatesNothing) {
  check_model(std::string(MEADOW_SOURCE_DIR) + "/models/meadow-nano.gguf");
}

TEST(WarmDecision, QuantizedCausalModelAllocatesNothing) {
  check_model(mind_test::make_fixture(
      "alloc-qwen2-q8", "--arch qwen2 --type Q8_0 --vocab 512 --hidden 64 --ffn 128"));
}

// 512-wide Q4_K weights: Auto multiplies them in integers (interleaved tiles for the suffix, the
// direct Q4_K kernel for the last layer's one read row), and near ties are decided again in float.
TEST(WarmDecision, IntegerKernelsAllocateNothing) {
  const std::string path = mind_test::make_fixture(
      "alloc-qwen2-q4k-512",
      "--arch qwen2 --type Q4_K --vocab 512 --hidden 512 --ffn 512 --layers 2 --heads 8 "
      "--kv-heads 2");
  ASSERT_TRUE(model::Model::load(path).uses_integers(4));
  check_model(path);
}

// The same through Mind (the API a game loop calls): decide_status_into a reused record.
TEST(WarmDecision, MindDecideStatusIntoAllocatesNothing) {
  Mind mind(std::string(MEADOW_SOURCE_DIR) + "/models/meadow-nano.gguf");
  Task t;
  t.name = "lights";
  t.rule = "If the light is red, choose A; if green, choose B; if yellow, choose C.";
  t.options = {{'A', "stop", {0}, ""}, {'B', "go", {1}, ""}, {'C', "slow down", {2}, ""}};
  Decision d;
  long long counted = -1;
  for (int r = 0; r < 3; ++r) {
    const long long before = testing::allocation_count();
    for (const std::string& s : situations()) mind.decide_status_into(t, s, d);
    counted = testing::allocation_count() - before;
  }
  if (testing::counting_allocations()) {
    EXPECT_EQ(counted, 0);
  }
  EXPECT_EQ(d.status, situations().back());
  // The counter counts: a record returned by value allocates its status and probabilities.
  const long long before = testing::allocation_count();
  const Decision fresh = mind.decide_status(t, situations().front());
  if (testing::counting_allocations()) {
    EXPECT_GE(testing::allocation_count() - before, 2);
  }
  EXPECT_EQ(fresh.status, situations().front());
}

}  // namespace
}  // namespace meadow
