#include "envs/toy_text.hpp"

#include <array>
#include <cmath>
#include <string>

#include "meadow/error.hpp"

namespace meadow::envs {

const Transition& TransitionTable::sample(int64_t s, int64_t a, NpRandom& rng) const {
  const auto& outcomes = at(s, a);
  std::array<double, 8> probs{};
  for (size_t i = 0; i < outcomes.size() && i < probs.size(); ++i) probs[i] = outcomes[i].prob;
  const auto n = std::min(outcomes.size(), probs.size());
  const int64_t i = categorical_sample(std::span<const double>(probs.data(), n), rng);
  return outcomes[static_cast<size_t>(i)];
}

int64_t discrete_action(const Values& action, const Space& space, std::string_view env_id) {
  if (action.size() != 1)
    throw Error(std::string(env_id) + ": action must be one integer, got " +
                std::to_string(action.size()) + " values");
  const double v = action[0];
  if (!std::isfinite(v) || v != std::floor(v) || v < static_cast<double>(space.start) ||
      v >= static_cast<double>(space.start + space.n))
    throw Error(std::string(env_id) + ": invalid action " + std::to_string(v) + " for " +
                space.describe());
  return static_cast<int64_t>(v);
}

}  // namespace meadow::envs
