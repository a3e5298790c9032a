#include "envs/taxi.hpp"

#include <algorithm>
#include <string>

#include "envs/kwargs.hpp"
#include "envs/scene_util.hpp"
#include "meadow/error.hpp"

namespace meadow::envs {
namespace {

// Gymnasium's map; ':' is an open side, '|' a wall.
constexpr const char* kMap[7] = {
    "+---------+", "|R: | : :G|", "| : | : : |", "| : : : : |",
    "| | : | : |", "|Y| : |B: |", "+---------+",
};
constexpr std::array<std::array<int, 2>, 4> kLocs{{{0, 0}, {0, 4}, {4, 0}, {4, 3}}};
constexpr int kMaxRow = 4, kMaxCol = 4;

bool open_at(int map_row, int map_col) {
  return kMap[map_row][map_col] == ':';
}

int loc_index(int row, int col) {
  for (int i = 0; i < 4; ++i)
    if (kLocs[i][0] == row && kLocs[i][1] == col) return i;
  return -1;
}

struct Outcome {
  int passenger;
  double reward;
  bool terminated;
};

Outcome pickup(int row, int col, int passenger, double reward) {
  if (passenger < 4 && kLocs[passenger][0] == row && kLocs[passenger][1] == col)
    return {4, reward, false};
  return {passenger, -10, false};
}

Outcome dropoff(int row, int col, int passenger, int dest, double reward) {
  if (kLocs[dest][0] == row && kLocs[dest][1] == col && passenger == 4) return {dest, 20, true};
  if (loc_index(row, col) >= 0 && passenger == 4) return {loc_index(row, col), reward, false};
  return {passenger, -10, false};
}

// Gymnasium's _calc_new_position: the sideways move of a rainy step, kept only when the
// map character it checks is open (with Gymnasium's own choice of which character).
std::array<int, 2> side_position(int row, int col, int dr, int dc, int offset) {
  const int r = std::max(0, std::min(row + dr, kMaxRow));
  const int c = std::max(0, std::min(col + dc, kMaxCol));
  if (open_at(1 + r, 2 * c + offset)) return {r, c};
  return {row, col};
}

void add_dry(TransitionTable& table, const TaxiState& st, int action) {
  int row = st.row, col = st.col;
  Outcome o{st.passenger, -1, false};
  if (action == 0) row = std::min(st.row + 1, kMaxRow);
  if (action == 1) row = std::max(st.row - 1, 0);
  if (action == 2 && open_at(1 + st.row, 2 * st.col + 2))
    col = std::min(st.col + 1, kMaxCol);
  else if (action == 3 && open_at(1 + st.row, 2 * st.col))
    col = std::max(st.col - 1, 0);
  else if (action == 4)
    o = pickup(st.row, st.col, st.passenger, -1);
  else if (action == 5)
    o = dropoff(st.row, st.col, st.passenger, st.destination, -1);
  table.at(taxi_encode(st), action)
      .push_back(
          {1.0, taxi_encode({row, col, o.passenger, st.destination}), o.reward, o.terminated});
}

void add_rainy(TransitionTable& table, const TaxiState& st, int action) {
  // Intended move, then the two sideways ones, per action DOWN, UP, RIGHT, LEFT.
  constexpr int kMoves[4][3][2] = {{{1, 0}, {0, -1}, {0, 1}},
                                   {{-1, 0}, {0, -1}, {0, 1}},
                                   {{0, 1}, {1, 0}, {-1, 0}},
                                   {{0, -1}, {1, 0}, {-1, 0}}};
  int row = st.row, col = st.col;
  std::array<int, 2> left{st.row, st.col}, right{st.row, st.col};
  Outcome o{st.passenger, -1, false};
  if (action == 0 || action == 1 || (action == 2 && open_at(1 + st.row, 2 * st.col + 2)) ||
      (action == 3 && open_at(1 + st.row, 2 * st.col))) {
    row = std::max(0, std::min(st.row + kMoves[action][0][0], kMaxRow));
    col = std::max(0, std::min(st.col + kMoves[action][0][1], kMaxCol));
    left = side_position(st.row, st.col, kMoves[action][1][0], kMoves[action][1][1], 2);
    right = side_position(st.row, st.col, kMoves[action][2][0], kMoves[action][2][1], 0);
  } else if (action == 4) {
    o = pickup(st.row, st.col, st.passenger, -1);
  } else if (action == 5) {
    o = dropoff(st.row, st.col, st.passenger, st.destination, -1);
  }
  const int64_t s = taxi_encode(st);
  const int64_t intended = taxi_encode({row, col, o.passenger, st.destination});
  auto& li = table.at(s, action);
  if (action <= 3) {
    li.push_back({0.8, intended, -1, o.terminated});
    li.push_back(
        {0.1, taxi_encode({left[0], left[1], o.passenger, st.destination}), -1, o.terminated});
    li.push_back(
        {0.1, taxi_encode({right[0], right[1], o.passenger, st.destination}), -1, o.terminated});
  } else {
    li.push_back({1.0, intended, o.reward, o.terminated});
  }
}

Info taxi_info(double prob, int64_t s) {
  const auto mask = Taxi::action_mask(s);
  return {{"prob", {prob}}, {"action_mask", std::vector<double>(mask.begin(), mask.end())}};
}

}  // namespace

TaxiState taxi_decode(int64_t s) {
  TaxiState t;
  t.destination = static_cast<int>(s % 4);
  s /= 4;
  t.passenger = static_cast<int>(s % 5);
  s /= 5;
  t.col = static_cast<int>(s % 5);
  t.row = static_cast<int>(s / 5);
  return t;
}

int64_t taxi_encode(const TaxiState& t) {
  return ((static_cast<int64_t>(t.row) * 5 + t.col) * 5 + t.passenger) * 4 + t.destination;
}

std::array<int, 6> Taxi::action_mask(int64_t s) {
  const TaxiState t = taxi_decode(s);
  std::array<int, 6> mask{};
  mask[0] = t.row < 4;
  mask[1] = t.row > 0;
  mask[2] = t.col < 4 && open_at(t.row + 1, 2 * t.col + 2);
  mask[3] = t.col > 0 && open_at(t.row + 1, 2 * t.col);
  mask[4] = t.passenger < 4 && kLocs[t.passenger][0] == t.row && kLocs[t.passenger][1] == t.col;
  mask[5] = t.passenger == 4 && loc_index(t.row, t.col) >= 0;
  return mask;
}

Taxi::Taxi(bool is_rainy, bool fickle_passenger)
    : table_(500, 6), initial_distribution_(500, 0.0), fickle_passenger_(fickle_passenger) {
  obs_space_ = discrete_space(500);
  act_space_ = discrete_space(6);
  for (int row = 0; row < 5; ++row)
    for (int col = 0; col < 5; ++col)
      for (int passenger = 0; passenger < 5; ++passenger)
        for (int dest = 0; dest < 4; ++dest) {
          const TaxiState st{row, col, passenger, dest};
          if (passenger < 4 && passenger != dest) initial_distribution_[taxi_encode(st)] += 1;
          for (int action = 0; action < 6; ++action)
            is_rainy ? add_rainy(table_, st, action) : add_dry(table_, st, action);
        }
  double total = 0;
  for (double w : initial_distribution_) total += w;
  for (double& w : initial_distribution_) w /= total;
}

ResetResult Taxi::reset(std::optional<uint64_t> seed) {
  rng_.reset(seed);
  s_ = categorical_sample(initial_distribution_, rng_.get());
  last_action_.reset();
  // Short-circuits like Gymnasium: no draw unless the passenger may be fickle.
  fickle_step_ = fickle_passenger_ && rng_.get().random() < 0.3;
  taxi_orientation_ = 0;
  return {{static_cast<double>(*s_)}, taxi_info(1.0, *s_)};
}

StepResult Taxi::step(const Values& action) {
  const int64_t a = discrete_action(action, act_space_, id());
  if (!s_) throw Error("Taxi-v4: step() called before reset()");
  const Transition& t = table_.sample(*s_, a, rng_.get());
  int64_t next = t.next_state;
  const TaxiState before = taxi_decode(*s_);
  const TaxiState after = taxi_decode(next);
  if (fickle_passenger_ && fickle_step_ && before.passenger == 4 &&
      (after.row != before.row || after.col != before.col)) {
    fickle_step_ = false;
    std::array<int, 3> others{};
    for (int i = 0, k = 0; i < 4; ++i)
      if (i != before.destination) others[k++] = i;
    // np_random.choice(list) without p draws integers(0, 3), not a random() double.
    const int dest = others[rng_.get().integers(0, 3)];
    next = taxi_encode({after.row, after.col, after.passenger, dest});
  }
  s_ = next;
  last_action_ = a;
  if (a <= 3) taxi_orientation_ = static_cast<int>(a);
  return {{static_cast<double>(next)}, t.reward, t.terminated, false, taxi_info(t.prob, next)};
}

Scene Taxi::scene() const {
  return taxi_scene(s_.value_or(0), taxi_orientation_);
}

std::unique_ptr<Env> make_taxi(const Kwargs& kwargs) {
  return std::make_unique<Taxi>(kwarg_or(kwargs, "is_rainy", false),
                                kwarg_or(kwargs, "fickle_passenger", false));
}

}  // namespace meadow::envs
