// `meadow-mind env list|doc|run|play`: wiring to CLI11, and the list and doc commands.
#include <cstdio>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/env_cli.hpp"
#include "cli/env_json.hpp"
#include "cli/seed_option.hpp"
#include "meadow/env.hpp"
#include "meadow/error.hpp"

namespace meadow::cli {

void env_list(bool json) {
  nlohmann::json all = nlohmann::json::array();
  for (const EnvSpec& spec : env_registry()) {
    const auto env = make(spec.id);
    if (json) {
      all.push_back(
          {{"id", spec.id},
           {"observation_space", space_json(env->observation_space())},
           {"action_space", space_json(env->action_space())},
           {"max_episode_steps", spec.max_episode_steps ? nlohmann::json(*spec.max_episode_steps)
                                                        : nlohmann::json(nullptr)},
           {"reward_threshold", spec.reward_threshold ? nlohmann::json(*spec.reward_threshold)
                                                      : nlohmann::json(nullptr)},
           {"render_fps", render_fps(spec.id)},
           {"default_kwargs",
            spec.default_kwargs.is_object() ? spec.default_kwargs : nlohmann::json::object()},
           {"summary", spec.summary},
           {"doc", std::string(env_doc(spec.id))}});
      continue;
    }
    const std::string limit =
        spec.max_episode_steps ? std::to_string(*spec.max_episode_steps) : "none";
    std::printf("%-26s obs=%s  action=%s  max_steps=%s  -- %s\n", spec.id.c_str(),
                env->observation_space().describe().c_str(), env->action_space().describe().c_str(),
                limit.c_str(), spec.summary.c_str());
  }
  if (json)
    std::printf("%s\n", all.dump().c_str());
  else
    std::printf("(`meadow-mind env doc ID`: an env's spaces, rewards, start, end and arguments)\n");
}

void env_doc_command(const std::string& id) {
  if (!id.empty()) {
    const std::string_view doc = env_doc(id);
    if (doc.empty()) throw Error("unknown env id '" + id + "' (see `meadow-mind env list`)");
    std::printf("%.*s\n", int(doc.size()), doc.data());
    return;
  }
  for (const EnvSpec& spec : env_registry()) {
    const std::string_view doc = env_doc(spec.id);
    std::printf("%.*s\n\n", int(doc.size()), doc.data());
  }
}

void add_env_commands(CLI::App& app) {
  CLI::App* env = app.add_subcommand("env", "Gymnasium-faithful environments");
  env->require_subcommand(1);

  auto list_json = std::make_shared<bool>(false);
  CLI::App* list = env->add_subcommand("list", "registered env ids, spaces and time limits");
  list->add_flag("--json", *list_json, "one JSON array");
  list->callback([list_json] { env_list(*list_json); });

  auto doc_id = std::make_shared<std::string>();
  CLI::App* doc = env->add_subcommand(
      "doc", "an env's documentation: spaces, rewards, start, episode end, arguments");
  doc->add_option("env_id", *doc_id, "env id (default: every env)");
  doc->callback([doc_id] { env_doc_command(*doc_id); });

  auto run = std::make_shared<EnvRunOptions>();
  CLI::App* r = env->add_subcommand("run", "replay a JSON list of actions from a seeded reset");
  r->add_option("env_id", run->env_id, "env id, e.g. CartPole-v1")->required();
  r->add_option("--kwargs", run->kwargs, "env kwargs as a JSON object");
  r->add_option("--seed", run->seed, "reset seed")->required()->check(seed_check());
  r->add_option("--actions", run->actions_file, "JSON file: a list of actions")->required();
  r->add_flag("--json", run->json, "print {\"reset_obs\", \"steps\"} as JSON");
  r->callback([run] { env_run(*run); });

  auto play = std::make_shared<EnvPlayOptions>();
  CLI::App* p = env->add_subcommand("play", "play an episode with a policy and draw it");
  p->add_option("env_id", play->env_id, "env id, e.g. CartPole-v1")->required();
  p->add_option("--kwargs", play->kwargs, "env kwargs as a JSON object");
  p->add_option("--policy", play->policy, "policy (random: uniform actions)")
      ->check(CLI::IsMember({"random"}));
  p->add_option("--seed", play->seed, "reset seed; the action RNG is seeded with 1000 + seed")
      ->check(seed_check());
  p->add_option("--steps", play->steps,
                "at most this many steps (default: to the episode's end, at most 1000)")
      ->check(CLI::PositiveNumber);
  p->add_option("--fps", play->fps, "GIF frame rate, 0.1 to 100 (default: the env's render_fps)");
  p->add_option("--gif", play->gif, "write the episode as an animated GIF");
  p->add_option("--png-dir", play->png_dir, "write each frame as DIR/frame_NNNN.png");
  p->callback([play] { env_play(*play); });
}

}  // namespace meadow::cli
