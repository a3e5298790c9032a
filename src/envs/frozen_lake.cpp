#include "envs/frozen_lake.hpp"

#include <utility>

#include "envs/kwargs.hpp"
#include "envs/scene_util.hpp"
#include "meadow/error.hpp"

namespace meadow::envs {
namespace {

constexpr int64_t kLeft = 0, kDown = 1, kRight = 2, kUp = 3;

}  // namespace

FrozenLake::FrozenLake(FrozenLakeConfig config)
    : config_(std::move(config)),
      nrow_(static_cast<int64_t>(config_.desc.size())),
      ncol_(config_.desc.empty() ? 0 : static_cast<int64_t>(config_.desc[0].size())),
      table_(nrow_ * ncol_, 4) {
  check_lake_map(config_.desc);
  if (!(config_.success_rate >= 0 && config_.success_rate <= 1))
    throw Error("FrozenLake-v1: success_rate must be in [0, 1]");
  const auto& desc = config_.desc;
  const int64_t n_states = nrow_ * ncol_;
  obs_space_ = discrete_space(n_states);
  act_space_ = discrete_space(4);

  initial_distribution_.assign(static_cast<size_t>(n_states), 0.0);
  double starts = 0;
  for (int64_t s = 0; s < n_states; ++s)
    if (desc[s / ncol_][s % ncol_] == 'S') {
      initial_distribution_[s] = 1.0;
      starts += 1;
    }
  for (double& p : initial_distribution_) p /= starts;

  const double fail_rate = (1.0 - config_.success_rate) / 2.0;
  auto outcome = [&](int64_t row, int64_t col, int64_t a, double prob) {
    if (a == kLeft) col = std::max<int64_t>(col - 1, 0);
    if (a == kDown) row = std::min(row + 1, nrow_ - 1);
    if (a == kRight) col = std::min(col + 1, ncol_ - 1);
    if (a == kUp) row = std::max<int64_t>(row - 1, 0);
    const char letter = desc[row][col];
    const int idx = letter == 'G' ? 0 : letter == 'H' ? 1 : 2;
    return Transition{prob, row * ncol_ + col, config_.reward_schedule[idx],
                      letter == 'G' || letter == 'H'};
  };
  for (int64_t row = 0; row < nrow_; ++row)
    for (int64_t col = 0; col < ncol_; ++col) {
      const int64_t s = row * ncol_ + col;
      const char letter = desc[row][col];
      for (int64_t a = 0; a < 4; ++a) {
        auto& li = table_.at(s, a);
        if (letter == 'G' || letter == 'H') {
          li.push_back({1.0, s, 0, true});
        } else if (config_.is_slippery) {
          for (int64_t b : {(a + 3) % 4, a, (a + 1) % 4})
            li.push_back(outcome(row, col, b, b == a ? config_.success_rate : fail_rate));
        } else {
          li.push_back(outcome(row, col, a, 1.0));
        }
      }
    }
}

ResetResult FrozenLake::reset(std::optional<uint64_t> seed) {
  rng_.reset(seed);
  s_ = categorical_sample(initial_distribution_, rng_.get());
  last_action_.reset();
  return {{static_cast<double>(*s_)}, {{"prob", {1.0}}}};
}

StepResult FrozenLake::step(const Values& action) {
  const int64_t a = discrete_action(action, act_space_, id());
  if (!s_) throw Error("FrozenLake-v1: step() called before reset()");
  const Transition& t = table_.sample(*s_, a, rng_.get());
  s_ = t.next_state;
  last_action_ = a;
  return {{static_cast<double>(t.next_state)}, t.reward, t.terminated, false, {{"prob", {t.prob}}}};
}

Scene FrozenLake::scene() const {
  return frozen_lake_scene(config_.desc, s_.value_or(0), last_action_);
}

std::unique_ptr<Env> make_frozen_lake(const Kwargs& kwargs) {
  // The registry has checked names and JSON types; values are checked here.
  FrozenLakeConfig config;
  const bool has_map_name = kwargs.contains("map_name");
  if (kwargs.contains("desc") && !kwargs.at("desc").is_null()) {
    const auto& d = kwargs.at("desc");
    config.desc.clear();
    for (const auto& row : d) {
      if (!row.is_string()) throw Error("FrozenLake-v1: kwarg 'desc' must be a list of strings");
      config.desc.push_back(row.get<std::string>());
    }
  } else if (has_map_name && kwargs.at("map_name").is_null()) {
    config.desc = generate_random_map();
  } else if (has_map_name) {
    config.desc = frozen_lake_named_map(kwargs.at("map_name").get<std::string>());
  }
  config.is_slippery = kwarg_or(kwargs, "is_slippery", true);
  config.success_rate = kwarg_or(kwargs, "success_rate", 1.0 / 3.0);
  if (kwargs.contains("reward_schedule") && !kwargs.at("reward_schedule").is_null()) {
    const auto& r = kwargs.at("reward_schedule");
    if (r.size() != 3 || !r[0].is_number() || !r[1].is_number() || !r[2].is_number())
      throw Error("FrozenLake-v1: kwarg 'reward_schedule' must be 3 numbers [goal, hole, frozen]");
    for (size_t i = 0; i < 3; ++i) config.reward_schedule[i] = r[i].get<double>();
  }
  return std::make_unique<FrozenLake>(std::move(config));
}

}  // namespace meadow::envs
