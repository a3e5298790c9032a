#include "envs/maze.hpp"

#include <algorithm>

#include "envs/scene_util.hpp"
#include "envs/toy_text.hpp"
#include "meadow/error.hpp"
#include "util/printable.hpp"

namespace meadow::envs {

const MazeLayout& funnel_maze_layout() {
  // The funnel (rows 1-5) narrows up and right into a one-cell pocket two cells from the exit,
  // walled off by column 6; the way out is the gap at the bottom (row 6, col 4), which leads
  // away from the exit, along row 7 and up column 7.
  static const MazeLayout layout = {
      "#########",  //
      "#####.#G#",  //
      "####..#.#",  //
      "###...#.#",  //
      "##....#.#",  //
      "#S....#.#",  //
      "####.##.#",  //
      "#.......#",  //
      "#########",  //
  };
  return layout;
}

MazeGrid::MazeGrid(MazeLayout layout) : rows(std::move(layout)) {
  if (rows.empty() || rows[0].empty()) throw Error("FunnelMaze-v0: layout is empty");
  n_rows = int(rows.size());
  n_cols = int(rows[0].size());
  int starts = 0, exits = 0;
  for (int r = 0; r < n_rows; ++r) {
    if (int(rows[r].size()) != n_cols)
      throw Error("FunnelMaze-v0: layout row " + std::to_string(r) + " has " +
                  std::to_string(rows[r].size()) + " cells, expected " + std::to_string(n_cols));
    for (int c = 0; c < n_cols; ++c) {
      const char ch = rows[r][c];
      if (ch != '#' && ch != '.' && ch != 'S' && ch != 'G')
        throw Error("FunnelMaze-v0: layout cell " + util::quoted(std::string(1, ch)) +
                    " is not one of # . S G");
      const bool border = r == 0 || c == 0 || r == n_rows - 1 || c == n_cols - 1;
      if (border && ch != '#') throw Error("FunnelMaze-v0: the layout border must be walls");
      if (ch == 'S') ++starts, start = cell(r, c);
      if (ch == 'G') ++exits, exit = cell(r, c);
    }
  }
  if (starts != 1 || exits != 1)
    throw Error("FunnelMaze-v0: the layout needs exactly one S and one G");
}

bool MazeGrid::open(int row, int col) const {
  return row >= 0 && col >= 0 && row < n_rows && col < n_cols && rows[row][col] != '#';
}

Maze::Maze(MazeLayout layout) : grid_(std::move(layout)) {
  obs_space_ = discrete_space(int64_t(grid_.n_rows) * grid_.n_cols);
  act_space_ = discrete_space(4);
}

ResetResult Maze::reset(std::optional<uint64_t>) {
  // Deterministic: the seed is accepted for API symmetry and changes nothing.
  s_ = grid_.start;
  trail_ = {*s_};
  return {{double(*s_)}, {}};
}

StepResult Maze::step(const Values& action) {
  const int64_t a = discrete_action(action, act_space_, id());
  if (!s_) throw Error("FunnelMaze-v0: step() called before reset()");
  const int r = grid_.row_of(*s_) + kMazeMoves[a][0], c = grid_.col_of(*s_) + kMazeMoves[a][1];
  if (grid_.open(r, c)) s_ = grid_.cell(r, c);  // a wall: stay put
  trail_.push_back(*s_);
  const bool done = *s_ == grid_.exit;
  return {{double(*s_)}, done ? 1.0 : 0.0, done, false, {}};
}

Scene Maze::scene() const {
  constexpr int kCell = 48;
  Scene sc;
  sc.width = grid_.n_cols * kCell;
  sc.height = grid_.n_rows * kCell;
  sc.background = {235, 235, 225};
  auto rect = [&](int r, int c, Rgb color, double inset) {
    Shape s;
    s.kind = Shape::Kind::Rect;
    s.points = {{c * kCell + inset, r * kCell + inset}};
    s.w = s.h = kCell - 2 * inset;
    s.color = color;
    return s;
  };
  std::vector<int> visits(size_t(grid_.n_rows) * grid_.n_cols, 0);
  for (int64_t t : trail_) ++visits[size_t(t)];
  for (int r = 0; r < grid_.n_rows; ++r)
    for (int c = 0; c < grid_.n_cols; ++c) {
      const char ch = grid_.rows[r][c];
      if (ch == '#') sc.shapes.push_back(rect(r, c, {60, 60, 70}, 0));
      if (ch == 'G') sc.shapes.push_back(rect(r, c, {90, 190, 90}, 2));
      const int v = visits[size_t(grid_.cell(r, c))];
      if (v > 0 && ch != '#') {  // trail: darker the more often visited
        const uint8_t shade = uint8_t(std::max(120, 215 - 25 * v));
        sc.shapes.push_back(rect(r, c, {shade, shade, 255}, 10));
      }
    }
  if (s_) {
    const int r = grid_.row_of(*s_), c = grid_.col_of(*s_);
    sc.shapes.push_back(
        circle({c * kCell + kCell / 2.0, r * kCell + kCell / 2.0}, kCell * 0.32, {220, 80, 40}));
  }
  return sc;
}

std::unique_ptr<Env> make_maze(const Kwargs& kwargs) {
  MazeLayout layout = funnel_maze_layout();
  if (auto it = kwargs.find("layout"); it != kwargs.end() && !it->is_null()) {
    layout.clear();
    for (const auto& row : *it) {
      if (!row.is_string()) throw Error("FunnelMaze-v0: layout rows must be strings");
      layout.push_back(row.get<std::string>());
    }
  }
  return std::make_unique<Maze>(std::move(layout));
}

}  // namespace meadow::envs
