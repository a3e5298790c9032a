// NumPy-compatible RNG: the vectors of docs/RNG-NOTES.md section 1, plus
// integers()/uniform() checked against the action RNG that recorded the traces.
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "envs/np_random.hpp"
#include "meadow/error.hpp"
#include "trace_replay.hpp"

using meadow::envs::NpRandom;
using meadow::envs::Pcg64;

TEST(NpRandom, SeedSequenceAndPcg64MatchNumpyForSeed0) {
  const std::array<uint32_t, 1> words{0};
  const auto pool = meadow::envs::seed_sequence_pool(words);
  EXPECT_EQ(pool, (std::array<uint32_t, 4>{0xfe40eb07, 0x4f363a36, 0x4eb2009d, 0xc89a7aa7}));
  const auto state = meadow::envs::seed_sequence_state(words);
  EXPECT_EQ(state, (std::array<uint64_t, 4>{0xdb2cd7e7b0f478beull, 0xabf4641a2c71ba49ull,
                                            0x20c6ed6d9d7b8d41ull, 0x2c4099de223c39d4ull}));
  Pcg64 g = Pcg64::from_seed_state(state);
  EXPECT_EQ(static_cast<uint64_t>(g.state >> 64), 0x1aa1b5345996452dull);
  EXPECT_EQ(static_cast<uint64_t>(g.state), 0x09585eb7a69561e3ull);
  EXPECT_EQ(static_cast<uint64_t>(g.inc >> 64), 0x418ddadb3af71a82ull);
  EXPECT_EQ(static_cast<uint64_t>(g.inc), 0x588133bc447873a9ull);
  EXPECT_EQ(g.next_uint64(), 0xa30febcfd9c2825full);
  EXPECT_EQ(g.next_uint64(), 0x4510bdf882d9d721ull);
  EXPECT_EQ(g.next_uint64(), 0x0a7d3da94ecde8b8ull);
}

TEST(NpRandom, FirstDoublesMatchNumpy) {
  NpRandom r0(0);
  EXPECT_EQ(r0.random(), 0.6369616873214543);
  EXPECT_EQ(r0.random(), 0.2697867137638703);
  EXPECT_EQ(r0.random(), 0.04097352393619469);
  NpRandom r42(42);
  EXPECT_EQ(r42.bit_generator().next_uint64(), 0xc621fbcd16d92688ull);
  EXPECT_EQ(r42.bit_generator().next_uint64(), 0x705a5661a791ffc1ull);
  NpRandom d42(42);
  EXPECT_EQ(d42.random(), 0.7739560485559633);
  EXPECT_EQ(d42.random(), 0.4388784397520523);
}

// The traces' actions came from default_rng(1000 + seed).integers(n): replaying that RNG
// must give every recorded action (this exercises Lemire sampling and the 32-bit buffer).
TEST(NpRandom, IntegersReproduceRecordedDiscreteActions) {
  const auto trace = meadow::test::load_trace("CartPole-v1.json");
  size_t checked = 0;
  for (const auto& ep : trace["episodes"]) {
    NpRandom rng(1000 + ep["seed"].get<uint64_t>());
    for (const auto& st : ep["steps"]) {
      ASSERT_EQ(rng.integers(2), st["action"].get<int64_t>());
      ++checked;
    }
  }
  EXPECT_GT(checked, 100u);
  const auto taxi = meadow::test::load_trace("Taxi-v4.json");
  for (const auto& ep : taxi["episodes"]) {
    NpRandom rng(1000 + ep["seed"].get<uint64_t>());
    for (const auto& st : ep["steps"]) ASSERT_EQ(rng.integers(6), st["action"].get<int64_t>());
  }
}

// Box actions: float32(default_rng(1000 + seed).uniform(low, high)).
TEST(NpRandom, UniformReproducesRecordedBoxActions) {
  const auto trace = meadow::test::load_trace("Pendulum-v1.json");
  for (const auto& ep : trace["episodes"]) {
    NpRandom rng(1000 + ep["seed"].get<uint64_t>());
    const std::array<double, 1> low{-2.0}, high{2.0};
    std::array<double, 1> out{};
    for (const auto& st : ep["steps"]) {
      rng.uniform(low, high, out);
      ASSERT_EQ(static_cast<float>(out[0]), meadow::test::as_f32(st["action"][0]));
    }
  }
}

TEST(NpRandom, IntegersCoverRangesAndRejectEmptyOnes) {
  NpRandom rng(7);
  for (int i = 0; i < 1000; ++i) {
    const int64_t v = rng.integers(-3, 4);
    ASSERT_GE(v, -3);
    ASSERT_LT(v, 4);
  }
  const int64_t big = rng.integers(0, int64_t{1} << 40);  // 64-bit Lemire path
  EXPECT_GE(big, 0);
  EXPECT_LT(big, int64_t{1} << 40);
  EXPECT_EQ(rng.integers(5, 6), 5);
  EXPECT_THROW(rng.integers(3, 3), meadow::Error);
}

TEST(NpRandom, ChoiceFollowsCumulativeProbabilities) {
  NpRandom a(3), b(3);
  const std::vector<double> p{0.8, 0.2};
  for (int i = 0; i < 200; ++i) {
    const double u = b.random();
    ASSERT_EQ(a.choice(p), u < 0.8 ? 0 : 1);
  }
  EXPECT_THROW(a.choice(std::vector<double>{0.5, 0.6}), meadow::Error);
  EXPECT_THROW(a.choice(std::vector<double>{1.5, -0.5}), meadow::Error);
  EXPECT_THROW(a.choice(std::vector<double>{}), meadow::Error);
}

TEST(NpRandom, CategoricalSampleTakesFirstSumAboveDraw) {
  NpRandom a(11), b(11);
  const std::vector<double> p{0.25, 0.25, 0.5};
  for (int i = 0; i < 200; ++i) {
    const double u = b.random();
    const int64_t want = u < 0.25 ? 0 : (u < 0.5 ? 1 : 2);
    ASSERT_EQ(meadow::envs::categorical_sample(p, a), want);
  }
}

TEST(NpRandom, EntropySeedingGivesDifferentStreams) {
  auto a = NpRandom::from_entropy();
  auto b = NpRandom::from_entropy();
  EXPECT_NE(a.bit_generator().next_uint64(), b.bit_generator().next_uint64());
}

// Vectors printed by NumPy 1.24.2 (Debian python3-numpy) with np.random.default_rng(seed).
TEST(NpRandom, MatchesNumpyOnWideRangesChoiceAndLargeSeeds) {
  NpRandom g(123);
  EXPECT_EQ(g.integers(0, int64_t{1} << 40), 750253807875);  // 64-bit Lemire path
  EXPECT_EQ(g.integers(0, int64_t{1} << 40), 59176835991);
  EXPECT_EQ(g.integers(0, int64_t{1} << 40), 242288242408);
  for (int64_t want : {-3, -4, -2, -4, -2}) EXPECT_EQ(g.integers(-5, 5), want);
  EXPECT_EQ(g.integers(0, int64_t{1} << 32), 3487919347);  // full 32-bit range
  EXPECT_EQ(g.integers(0, int64_t{1} << 32), 1938714512);
  EXPECT_EQ(g.random(), 0.27657439779710624);

  // g.choice(["F","H"], (4,4), p=[0.8,0.2]) then three g.choice(3, p=[0.1,0.3,0.6]).
  NpRandom c(7);
  std::string board;
  const std::vector<double> fh{0.8, 0.2};
  for (int i = 0; i < 16; ++i) board += c.choice(fh) == 0 ? 'F' : 'H';
  EXPECT_EQ(board, "FHFFFHFHFFFFFFFF");
  const std::vector<double> p3{0.1, 0.3, 0.6};
  for (int i = 0; i < 3; ++i) EXPECT_EQ(c.choice(p3), 2);

  EXPECT_EQ(NpRandom((uint64_t{1} << 40) + 5).random(), 0.004739459374490829);  // two words
  EXPECT_EQ(NpRandom(UINT64_MAX).random(), 0.6800266789616931);
}
