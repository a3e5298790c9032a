// The check of every --seed option.
#pragma once

#include <CLI/CLI.hpp>

namespace meadow::cli {

// A seed is a whole decimal number from 0 to 2^64-1. Without this check CLI11 reads "-1" into
// a uint64_t as 2^64-1 and saturates 2^70 to 2^64-1: a silently different episode.
CLI::Validator seed_check();

}  // namespace meadow::cli
