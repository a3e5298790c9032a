#include "envs/frozen_lake_maps.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "envs/np_random.hpp"
#include "meadow/error.hpp"
#include "util/printable.hpp"

namespace meadow::envs {

LakeMap frozen_lake_named_map(std::string_view name) {
  if (name == "4x4") return {"SFFF", "FHFH", "FFFH", "HFFG"};
  if (name == "8x8")
    return {"SFFFFFFF", "FFFFFFFF", "FFFHFFFF", "FFFFFHFF",
            "FFFHFFFF", "FHHFFFHF", "FHFFHFHF", "FFFHFFFG"};
  throw Error("FrozenLake-v1: unknown map_name " + util::quoted(name) + " (known: 4x4, 8x8)");
}

void check_lake_map(const LakeMap& map) {
  if (map.empty() || map[0].empty()) throw Error("FrozenLake-v1: desc must be non-empty rows");
  bool has_start = false;
  for (const auto& row : map) {
    if (row.size() != map[0].size())
      throw Error("FrozenLake-v1: desc rows must all have the same length");
    for (char c : row) {
      if (c != 'S' && c != 'F' && c != 'H' && c != 'G')
        // Quoted escaped: the cell may be any byte, a newline or an ESC (fuzz_json).
        throw Error("FrozenLake-v1: desc may only hold S, F, H, G; got " +
                    util::quoted(std::string(1, c)));
      has_start = has_start || c == 'S';
    }
  }
  if (!has_start) throw Error("FrozenLake-v1: desc needs at least one start cell 'S'");
}

bool lake_map_has_path(const LakeMap& map) {
  const int rows = static_cast<int>(map.size());
  const int cols = rows ? static_cast<int>(map[0].size()) : 0;
  std::vector<char> seen(static_cast<size_t>(rows * cols), 0);
  std::vector<std::pair<int, int>> frontier{{0, 0}};
  constexpr std::array<std::pair<int, int>, 4> dirs{{{1, 0}, {0, 1}, {-1, 0}, {0, -1}}};
  while (!frontier.empty()) {
    auto [r, c] = frontier.back();
    frontier.pop_back();
    if (seen[static_cast<size_t>(r * cols + c)]) continue;
    seen[static_cast<size_t>(r * cols + c)] = 1;
    for (auto [dr, dc] : dirs) {
      const int nr = r + dr, nc = c + dc;
      if (nr < 0 || nr >= rows || nc < 0 || nc >= cols) continue;
      const char cell = map[static_cast<size_t>(nr)][static_cast<size_t>(nc)];
      if (cell == 'G') return true;
      if (cell != 'H') frontier.emplace_back(nr, nc);
    }
  }
  return false;
}

LakeMap generate_random_map(int size, double p, std::optional<uint64_t> seed) {
  if (size < 2) throw Error("generate_random_map: size must be at least 2");
  if (!(p > 0)) throw Error("generate_random_map: p (frozen probability) must be > 0");
  NpRandom rng = seed ? NpRandom(*seed) : NpRandom::from_entropy();
  p = std::min(1.0, p);
  const std::array<double, 2> probs{p, 1 - p};
  LakeMap board(static_cast<size_t>(size), std::string(static_cast<size_t>(size), 'F'));
  do {
    for (auto& row : board)
      for (char& cell : row) cell = rng.choice(probs) == 0 ? 'F' : 'H';
    board.front().front() = 'S';
    board.back().back() = 'G';
  } while (!lake_map_has_path(board));
  return board;
}

}  // namespace meadow::envs
