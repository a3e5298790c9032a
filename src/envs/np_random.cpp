#include "envs/np_random.hpp"

#include <cmath>
#include <random>
#include <string>

#include "meadow/error.hpp"

namespace meadow::envs {
namespace {

// SeedSequence constants (NumPy bit_generator.pyx).
constexpr uint32_t kInitA = 0x43b0d7e5, kMultA = 0x931e8875;
constexpr uint32_t kInitB = 0x8b51f9dd, kMultB = 0x58f38ded;
constexpr uint32_t kMixMultL = 0xca01f9dd, kMixMultR = 0x4973f715;

struct HashMix {
  uint32_t h = kInitA;
  uint32_t operator()(uint32_t v) {
    v ^= h;
    h *= kMultA;
    v *= h;
    v ^= v >> 16;
    return v;
  }
};

uint32_t mix(uint32_t x, uint32_t y) {
  uint32_t r = kMixMultL * x - kMixMultR * y;
  r ^= r >> 16;
  return r;
}

std::vector<uint32_t> seed_words(uint64_t seed) {
  std::vector<uint32_t> words{static_cast<uint32_t>(seed)};
  if (seed >> 32) words.push_back(static_cast<uint32_t>(seed >> 32));
  return words;
}

}  // namespace

std::array<uint32_t, 4> seed_sequence_pool(std::span<const uint32_t> entropy_words) {
  std::array<uint32_t, 4> pool{};
  HashMix hash;
  for (size_t i = 0; i < pool.size(); ++i)
    pool[i] = hash(i < entropy_words.size() ? entropy_words[i] : 0u);
  for (size_t src = 0; src < 4; ++src)
    for (size_t dst = 0; dst < 4; ++dst)
      if (src != dst) pool[dst] = mix(pool[dst], hash(pool[src]));
  for (size_t i = 4; i < entropy_words.size(); ++i)
    for (size_t dst = 0; dst < 4; ++dst) pool[dst] = mix(pool[dst], hash(entropy_words[i]));
  return pool;
}

std::array<uint64_t, 4> seed_sequence_state(std::span<const uint32_t> entropy_words) {
  const auto pool = seed_sequence_pool(entropy_words);
  uint32_t h = kInitB;
  std::array<uint32_t, 8> out{};
  for (size_t i = 0; i < out.size(); ++i) {
    uint32_t v = pool[i % 4];
    v ^= h;
    h *= kMultB;
    v *= h;
    v ^= v >> 16;
    out[i] = v;
  }
  std::array<uint64_t, 4> state{};
  for (size_t k = 0; k < 4; ++k)
    state[k] = static_cast<uint64_t>(out[2 * k]) | (static_cast<uint64_t>(out[2 * k + 1]) << 32);
  return state;
}

Pcg64 Pcg64::from_seed_state(const std::array<uint64_t, 4>& s) {
  using u128 = unsigned __int128;
  const u128 initstate = (static_cast<u128>(s[0]) << 64) | s[1];
  const u128 initseq = (static_cast<u128>(s[2]) << 64) | s[3];
  Pcg64 g;
  g.inc = (initseq << 1) | 1u;
  g.state = 0;
  g.state = g.state * multiplier() + g.inc;
  g.state += initstate;
  g.state = g.state * multiplier() + g.inc;
  return g;
}

NpRandom::NpRandom(uint64_t seed) {
  const auto words = seed_words(seed);
  bits_ = Pcg64::from_seed_state(seed_sequence_state(words));
}

NpRandom NpRandom::from_entropy_words(std::span<const uint32_t> entropy_words) {
  NpRandom r;
  r.bits_ = Pcg64::from_seed_state(seed_sequence_state(entropy_words));
  return r;
}

NpRandom NpRandom::from_entropy() {
  std::random_device dev;
  const std::array<uint32_t, 4> words{dev(), dev(), dev(), dev()};
  return from_entropy_words(words);
}

double NpRandom::uniform(double low, double high) {
  const double range = high - low;
  const double scaled = range * bits_.next_double();
  return low + scaled;
}

void NpRandom::uniform(std::span<const double> low, std::span<const double> high,
                       std::span<double> out) {
  if (low.size() != out.size() || high.size() != out.size())
    throw Error("uniform: low, high and out must have the same length");
  for (size_t i = 0; i < out.size(); ++i) out[i] = uniform(low[i], high[i]);
}

// NumPy's random_bounded_uint64_fill for one value, unmasked (Lemire), where
// rng = high - low - 1 is the inclusive range.
int64_t NpRandom::integers(int64_t low, int64_t high) {
  if (low >= high)
    throw Error("integers: low >= high (" + std::to_string(low) + " >= " + std::to_string(high) +
                ")");
  const uint64_t rng = static_cast<uint64_t>(high) - static_cast<uint64_t>(low) - 1u;
  const uint64_t off = static_cast<uint64_t>(low);
  if (rng == 0) return low;
  uint64_t value = 0;
  if (rng <= 0xFFFFFFFFull) {
    if (rng == 0xFFFFFFFFull) {
      value = bits_.next_uint32();
    } else {
      const uint32_t rng_excl = static_cast<uint32_t>(rng) + 1u;
      uint64_t m = static_cast<uint64_t>(bits_.next_uint32()) * rng_excl;
      uint32_t leftover = static_cast<uint32_t>(m);
      if (leftover < rng_excl) {
        const uint32_t threshold = (UINT32_MAX - static_cast<uint32_t>(rng)) % rng_excl;
        while (leftover < threshold) {
          m = static_cast<uint64_t>(bits_.next_uint32()) * rng_excl;
          leftover = static_cast<uint32_t>(m);
        }
      }
      value = m >> 32;
    }
  } else if (rng == UINT64_MAX) {
    value = bits_.next_uint64();
  } else {
    using u128 = unsigned __int128;
    const uint64_t rng_excl = rng + 1u;
    u128 m = static_cast<u128>(bits_.next_uint64()) * rng_excl;
    uint64_t leftover = static_cast<uint64_t>(m);
    if (leftover < rng_excl) {
      const uint64_t threshold = (UINT64_MAX - rng) % rng_excl;
      while (leftover < threshold) {
        m = static_cast<u128>(bits_.next_uint64()) * rng_excl;
        leftover = static_cast<uint64_t>(m);
      }
    }
    value = static_cast<uint64_t>(m >> 64);
  }
  return static_cast<int64_t>(off + value);
}

int64_t NpRandom::choice(std::span<const double> p) {
  if (p.empty()) throw Error("choice: probabilities must not be empty");
  double sum = 0;
  for (double x : p) {
    if (std::isnan(x)) throw Error("choice: probabilities contain NaN");
    if (x < 0) throw Error("choice: probabilities are not non-negative");
    sum += x;
  }
  // NumPy's tolerance: sqrt(float64 eps).
  if (std::abs(sum - 1.0) > 1.4901161193847656e-08)
    throw Error("choice: probabilities do not sum to 1");
  std::vector<double> cdf(p.size());
  double run = 0;
  for (size_t i = 0; i < p.size(); ++i) cdf[i] = run += p[i];
  const double total = cdf.back();
  for (double& c : cdf) c /= total;
  const double u = random();
  for (size_t i = 0; i < cdf.size(); ++i)
    if (cdf[i] > u) return static_cast<int64_t>(i);
  return static_cast<int64_t>(cdf.size());
}

int64_t categorical_sample(std::span<const double> probs, NpRandom& rng) {
  const double u = rng.random();
  double run = 0;
  for (size_t i = 0; i < probs.size(); ++i) {
    run += probs[i];
    if (run > u) return static_cast<int64_t>(i);
  }
  return 0;
}

void EnvRandom::reset(const std::optional<uint64_t>& seed) {
  if (seed) reseed(*seed);
}

NpRandom& EnvRandom::get() {
  if (!rng_) rng_ = NpRandom::from_entropy();
  return *rng_;
}

}  // namespace meadow::envs
