// FunnelMaze-v0: a grid maze whose open room funnels a runner toward a dead-end pocket next to
// the exit, while the only way out leaves the room AWAY from the exit. A runner that always
// steps toward the exit is trapped in the pocket; one that remembers where it has been backs
// out. Not a Gymnasium env (meadow's own), but it follows the toy-text conventions:
// Discrete observation = row * cols + col, actions 0 left, 1 down, 2 right, 3 up (as
// FrozenLake), reward 1 on reaching the exit (terminated), 0 otherwise.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "meadow/env.hpp"

namespace meadow::envs {

// Rows of '#' wall, '.' open, 'S' start, 'G' exit. Every row the same length, the border walls.
using MazeLayout = std::vector<std::string>;

// The built-in funnel layout (9 x 9).
const MazeLayout& funnel_maze_layout();

// Action index → (row, col) step, FrozenLake's order: left, down, right, up.
inline constexpr std::array<std::array<int, 2>, 4> kMazeMoves{{{0, -1}, {1, 0}, {0, 1}, {-1, 0}}};

// A checked layout with its start and exit cells. Throws meadow::Error on a bad layout.
struct MazeGrid {
  MazeLayout rows;
  int n_rows = 0, n_cols = 0;
  int64_t start = 0, exit = 0;
  explicit MazeGrid(MazeLayout layout);
  bool open(int row, int col) const;  // inside and not a wall
  int64_t cell(int row, int col) const { return int64_t(row) * n_cols + col; }
  int row_of(int64_t s) const { return int(s / n_cols); }
  int col_of(int64_t s) const { return int(s % n_cols); }
};

class Maze final : public Env {
 public:
  explicit Maze(MazeLayout layout);
  ResetResult reset(std::optional<uint64_t> seed = std::nullopt) override;
  StepResult step(const Values& action) override;
  const Space& observation_space() const override { return obs_space_; }
  const Space& action_space() const override { return act_space_; }
  Scene scene() const override;
  std::string id() const override { return "FunnelMaze-v0"; }
  const MazeGrid& grid() const { return grid_; }

 private:
  MazeGrid grid_;
  Space obs_space_, act_space_;
  std::optional<int64_t> s_;
  std::vector<int64_t> trail_;  // cells visited this episode, for the picture
};

// kwargs: layout (list of strings, default the funnel).
std::unique_ptr<Env> make_maze(const Kwargs& kwargs);

}  // namespace meadow::envs
