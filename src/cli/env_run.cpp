// `meadow-mind env run`: replays actions from a seeded reset and prints what Gymnasium prints.
#include <cstdio>
#include <string>

#include "cli/env_cli.hpp"
#include "cli/env_json.hpp"
#include "meadow/env.hpp"
#include "meadow/error.hpp"
#include "util/json_parse.hpp"
#include "util/read_file.hpp"

namespace meadow::cli {

void env_run(const EnvRunOptions& o) {
  const nlohmann::json kwargs = util::parse_json(o.kwargs, "--kwargs");
  if (!kwargs.is_object())
    throw Error("--kwargs must be a JSON object, got " + util::json_excerpt(kwargs));
  const nlohmann::json actions =
      util::parse_json(util::read_file(o.actions_file), "actions file " + o.actions_file);
  if (!actions.is_array())
    throw Error("actions file " + o.actions_file + ": expected a JSON list of actions");

  const auto env = make(o.env_id, kwargs);
  const Space& obs_space = env->observation_space();
  const Space& act_space = env->action_space();
  // Parse every action before stepping, so bad input fails before any output.
  std::vector<Values> parsed;
  for (size_t i = 0; i < actions.size(); ++i)
    parsed.push_back(parse_action(actions[i], act_space, i, "actions file " + o.actions_file));

  const ResetResult reset = env->reset(o.seed);
  std::string out = "{\"reset_obs\":" + value_json(reset.obs, obs_space) + ",\"steps\":[";
  if (!o.json) std::printf("reset: obs %s\n", value_json(reset.obs, obs_space).c_str());
  for (size_t i = 0; i < parsed.size(); ++i) {
    const StepResult s = env->step(parsed[i]);
    if (o.json) {
      out += (i ? ",{" : "{");
      out += "\"obs\":" + value_json(s.obs, obs_space) +
             ",\"reward\":" + reward_json(s.reward, obs_space) +
             ",\"terminated\":" + (s.terminated ? "true" : "false") +
             ",\"truncated\":" + (s.truncated ? "true" : "false") + "}";
    } else {
      std::printf("step %zu: obs %s reward %s%s%s\n", i + 1, value_json(s.obs, obs_space).c_str(),
                  reward_json(s.reward, obs_space).c_str(), s.terminated ? " terminated" : "",
                  s.truncated ? " truncated" : "");
    }
    if (s.terminated || s.truncated) break;  // the episode is over; later actions are unused
  }
  if (o.json) std::printf("%s]}\n", out.c_str());
}

}  // namespace meadow::cli
