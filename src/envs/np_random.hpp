// A bit-exact port of the NumPy 1.24 random stack Gymnasium uses:
// SeedSequence -> PCG64 -> numpy.random.Generator methods the environments call.
// See docs/RNG-NOTES.md for the algorithms and test vectors.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace meadow::envs {

// numpy.random.SeedSequence(entropy).generate_state(4, np.uint64), for an entropy integer
// given as 32-bit words, least significant first.
std::array<uint32_t, 4> seed_sequence_pool(std::span<const uint32_t> entropy_words);
std::array<uint64_t, 4> seed_sequence_state(std::span<const uint32_t> entropy_words);

// numpy's PCG64 bit generator (XSL-RR 128/64), including its 32-bit output buffer, which
// persists across calls exactly as in NumPy.
struct Pcg64 {
  unsigned __int128 state = 0;
  unsigned __int128 inc = 0;
  bool has_uint32 = false;
  uint32_t uinteger = 0;

  static Pcg64 from_seed_state(const std::array<uint64_t, 4>& s);

  uint64_t next_uint64() {
    state = state * multiplier() + inc;
    const uint64_t hi = static_cast<uint64_t>(state >> 64);
    const uint64_t lo = static_cast<uint64_t>(state);
    const unsigned rot = static_cast<unsigned>(state >> 122);
    const uint64_t x = hi ^ lo;
    return (x >> rot) | (x << ((64 - rot) & 63));
  }
  // Low half first; the high half is kept for the next call (NumPy's pcg64_next32).
  uint32_t next_uint32() {
    if (has_uint32) {
      has_uint32 = false;
      return uinteger;
    }
    const uint64_t next = next_uint64();
    has_uint32 = true;
    uinteger = static_cast<uint32_t>(next >> 32);
    return static_cast<uint32_t>(next);
  }
  double next_double() { return static_cast<double>(next_uint64() >> 11) * 0x1.0p-53; }

  static constexpr unsigned __int128 multiplier() {
    return (static_cast<unsigned __int128>(0x2360ED051FC65DA4ULL) << 64) | 0x4385DF649FCCF645ULL;
  }
};

// numpy.random.Generator over PCG64, with the methods Gymnasium's environments use.
class NpRandom {
 public:
  // Gymnasium's seeding.np_random(seed): SeedSequence(seed) -> PCG64 -> Generator.
  explicit NpRandom(uint64_t seed);
  // SeedSequence(None): 128 bits of OS entropy (std::random_device).
  static NpRandom from_entropy();
  static NpRandom from_entropy_words(std::span<const uint32_t> entropy_words);

  // Generator.random()
  double random() { return bits_.next_double(); }
  // Generator.uniform(low, high): low + (high - low) * random(), no FMA.
  // Out of line so that it is always compiled with -ffp-contract=off.
  double uniform(double low, double high);
  // Generator.uniform(low_array, high_array): one draw per element, in order.
  void uniform(std::span<const double> low, std::span<const double> high, std::span<double> out);
  // Generator.integers(low, high) for the default int64 dtype (high exclusive), using
  // NumPy's Lemire rejection sampler. Throws meadow::Error when low >= high.
  int64_t integers(int64_t low, int64_t high);
  int64_t integers(int64_t high) { return integers(0, high); }
  // Generator.choice(len(p), p=p) for one sample: normalised cumulative sum, then the
  // first index whose sum is > random() (searchsorted side='right').
  // Throws meadow::Error when p is empty, has negatives/NaN, or does not sum to 1.
  int64_t choice(std::span<const double> p);

  Pcg64& bit_generator() { return bits_; }
  const Pcg64& bit_generator() const { return bits_; }

 private:
  NpRandom() = default;
  Pcg64 bits_;
};

// gymnasium.envs.toy_text.utils.categorical_sample: first index whose running sum (not
// normalised) is > random(); 0 when none is.
int64_t categorical_sample(std::span<const double> probs, NpRandom& rng);

// The RNG an env holds: seeded by reset(seed), or from entropy on first unseeded reset
// (Gymnasium's Env.reset(seed=None) when no generator exists yet).
class EnvRandom {
 public:
  void reseed(uint64_t seed) { rng_ = NpRandom(seed); }
  void reset(const std::optional<uint64_t>& seed);
  NpRandom& get();

 private:
  std::optional<NpRandom> rng_;
};

}  // namespace meadow::envs
