// A task file's spec → a task ready to examine and play: the perceiver compiled, the judge
// built from its conditions.
#include <string>
#include <vector>

#include "meadow/error.hpp"
#include "meadow/task_file.hpp"
#include "tasks/builtin.hpp"
#include "tasks/task_file_perceiver.hpp"

namespace meadow {
namespace {

// The first condition an episode misses, or "" when it meets them all.
std::string missed(const JudgeSpec& j, const Episode& ep) {
  const auto n = int64_t(ep.steps.size());
  if (j.terminated && ep.terminated != *j.terminated)
    return *j.terminated ? "did not reach the end state" : "ended early";
  if (j.reward_at_least && ep.total_reward < *j.reward_at_least)
    return "reward below " + tasks::fixed1(*j.reward_at_least);
  if (j.steps_at_least && n < *j.steps_at_least)
    return "fewer than " + std::to_string(*j.steps_at_least) + " steps";
  if (j.steps_at_most && n > *j.steps_at_most)
    return "more than " + std::to_string(*j.steps_at_most) + " steps";
  return "";
}

}  // namespace

BuiltinTask make_task(const TaskSpec& spec) {
  BuiltinTask bt;
  Task& t = bt.task;
  t.name = spec.name;
  t.summary = spec.summary;
  t.rule = spec.rule;
  t.options = spec.options;
  t.sanity = spec.exam;
  t.env_id = spec.env_id;
  t.env_kwargs = spec.env_kwargs;
  t.max_steps = spec.max_steps;
  if (spec.perceiver) {
    std::shared_ptr<const tasks::CompiledPerceiver> p;
    try {
      p = tasks::compile_perceiver(*spec.perceiver);
    } catch (const tasks::FieldError& e) {
      throw Error("task " + spec.name + ": " + e.field + ": " + e.why);
    }
    t.perceive = [p](const Values& obs) { return tasks::say(*p, obs); };
  }
  bt.seeds = spec.seeds;
  const JudgeSpec j = spec.judge;
  bt.target =
      j.target.empty() && j.has_conditions() ? "the judge's conditions on every seed" : j.target;
  if (j.has_conditions()) {
    t.judge = [j](const Episode& ep) {
      const std::string miss = missed(j, ep);
      const std::string tail = "reward " + tasks::fixed1(ep.total_reward) + " in " +
                               std::to_string(ep.steps.size()) + " steps (seed " +
                               std::to_string(ep.seed) + ")";
      return Verdict{miss.empty(), miss.empty() ? tail : miss + ": " + tail};
    };
  }
  bt.judge_all = [judge = t.judge](const std::vector<Episode>& eps) {
    if (!judge) return Verdict{false, "no judge: the task file names no [judge] conditions"};
    size_t ok = 0;
    for (const auto& e : eps) ok += judge(e).ok;
    return Verdict{!eps.empty() && ok == eps.size(),
                   "met on " + std::to_string(ok) + "/" + std::to_string(eps.size()) + " seeds"};
  };
  validate(t);
  return bt;
}

TaskSpec spec_of_words(const Task& task) {
  TaskSpec s;
  s.name = task.name;
  s.summary = task.summary;
  s.rule = task.rule;
  s.options = task.options;
  s.exam = task.sanity;
  s.env_id = task.env_id;
  s.env_kwargs = task.env_kwargs;
  s.max_steps = task.max_steps;
  return s;
}

}  // namespace meadow
