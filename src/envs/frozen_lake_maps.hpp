// FrozenLake's boards: the two named maps, a check that a board is well formed, and
// generate_random_map drawn exactly as Gymnasium draws it (same seed, same map).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace meadow::envs {

using LakeMap = std::vector<std::string>;  // rows of 'S', 'F', 'H', 'G'

// "4x4" or "8x8"; meadow::Error for any other name.
LakeMap frozen_lake_named_map(std::string_view name);

// Throws meadow::Error unless rows are non-empty, of equal length, use only S/F/H/G and
// hold at least one S (Gymnasium's start distribution is uniform over S cells).
void check_lake_map(const LakeMap& map);

// Gymnasium's is_valid: is G reachable from (0, 0) through non-hole cells?
bool lake_map_has_path(const LakeMap& map);

// gymnasium.envs.toy_text.frozen_lake.generate_random_map(size, p, seed): per attempt,
// choice(["F","H"], (size, size), p=[p, 1-p]) in row-major order (one random() per cell),
// then S at (0,0) and G at the far corner, until lake_map_has_path. seed = nullopt draws
// from OS entropy like seed=None. p above 1 is clamped to 1 as Gymnasium does; size < 2 or
// p <= 0 would loop forever in Gymnasium and is a meadow::Error here.
LakeMap generate_random_map(int size = 8, double p = 0.8,
                            std::optional<uint64_t> seed = std::nullopt);

}  // namespace meadow::envs
