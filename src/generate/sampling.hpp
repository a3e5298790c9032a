// Choosing a token for one position from its logits row: greedy or temperature + top-p
// sampling, with the confidence that orders positions for unmasking.
#pragma once

#include <cstdint>
#include <random>

#include "meadow/runtime/generate.hpp"

namespace meadow::generate {

struct Pick {
  int32_t token = 0;
  double confidence = 0;  // per Confidence; larger = more certain
};

// rng: seeded per generation, so sampling is reproducible. temperature 0 = argmax.
Pick pick_token(const float* logits, int64_t n, double temperature, double top_p,
                Confidence confidence, std::mt19937_64& rng);

}  // namespace meadow::generate
