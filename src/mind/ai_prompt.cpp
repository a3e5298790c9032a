// The guide printed by `meadow-mind ai-prompt`: how a code agent wires a new game.
#include "meadow/mind.hpp"

namespace meadow {

std::string ai_prompt() {
  return R"GUIDE(# Wiring a new game into meadow-mind (C++ API)

meadow-mind plays a game with words. Each step: a perceiver turns the observation into one
status sentence; a language model reads the task's rule (one sentence plus lettered options)
and that sentence and answers an option letter in ONE forward pass; the letter maps to an
env action. No reward, no training: behaviour changes by editing words. Follow the five
steps below, in order, and do not skip the exam.

Headers: meadow/task.hpp (Task, Option, ExamItem), meadow/mind.hpp (Mind), meadow/env.hpp
(environments: meadow::make(id, kwargs), reset, step; Values = std::vector<double>),
meadow/runner.hpp (Episode, Verdict, run_episode: the episode a judge reads).

## 1. Explore the actions

Make the env and look at its spaces: `auto env = meadow::make("CartPole-v1");`
`env->action_space().describe()` ("Discrete(2)") and `env->observation_space()`.
Step each action a few times from a fixed seed and write down what each one does in plain
words ("0 pushes the cart to the left"). Keep 2 to 6 actions worth choosing; each becomes
one option with a letter A..F and an action value (a Discrete action is {index}; a Box action
is its components).

## 2. Write perception words

Write `perceive(obs) -> std::string`: ONE short sentence in plain English that holds exactly
what the rule needs to decide, and nothing else.
- Bucket continuous values into a few words ("far left", "left", "centre", "right",
  "far right"; "slow", "fast"); never print raw floats as the only information.
- Always include a velocity or trend term ("moving left", "falling fast", "angle growing")
  — a snapshot without motion makes many games undecidable.
- Use the SAME words in the sentence as in the rule and option texts; the model matches words.
- Keep sentences short (one clause per fact) and deterministic.

## 3. Imprint the rule as multiple choice

`rule` is one sentence that says which option to take in which situation, using the
perception words: "If the pole leans or falls to the left, choose A; if it leans or falls
to the right, choose B." Relational rules work too ("push in the same direction the car is
moving"). Options are short texts: "A) push the cart to the left". Every situation the
perceiver can produce must select exactly one option under the rule.

## 4. Decide on memory

Reactive play (the default) decides from the current sentence alone. If the game can trap a
reactive player in a loop (mazes, dead ends), set `memory = true` and give
`mem_key(obs)` (a string naming the state, e.g. the cell). Before each decision the mind
records visits; the perceiver (signature `(const Values& obs, const Task& task)`) can then
say "you have been here before" when `task.seen(task.mem_key(obs))`, and the rule can say
what to do then ("... if you have been here before, take the other way"). `task.forget()`
clears memory at every episode start.

## 5. Take the exam

Write 6 to 20 exam items `{status sentence, expected letter}` covering every option and the
edge cases, then run `mind.check(task)`. It decides every item (one forward pass each) and
throws meadow::ExamFailed listing each miss (expected, chosen, probabilities) when more than
`max_misses` (default 1) items fail. Fix failures by changing WORDS (perception, rule,
option text), never by special-casing code. Only play after the exam passes.

## Task fields (meadow/task.hpp)

    name, summary            identification, one line for listings
    perceive                 obs (, task) -> status sentence
    rule                     one sentence, non-empty
    options                  {letter 'A'..'Z' (A..F advised), text, action Values, act label}
    sanity                   exam items {status, expected letter}; letters must be options
    memory, mem_key          working memory switch and state key; visited / seen(key)
    env_id, env_kwargs       e.g. "CartPole-v1", nlohmann::json kwargs as Gymnasium takes
    max_steps                episode cap
    judge                    Episode -> Verdict {ok, text}
`meadow::validate(task)` throws meadow::Error for: empty rule, no options, duplicate or bad
letters, an option without text or action, exam letters that are not options, memory without
mem_key.

## Complete example

    #include <cmath>
    #include <cstdint>
    #include <string>

    #include "meadow/env.hpp"
    #include "meadow/mind.hpp"
    #include "meadow/runner.hpp"

    meadow::Task cartpole() {
      meadow::Task t;
      t.name = "cartpole";
      t.env_id = "CartPole-v1";
      t.max_steps = 500;
      t.rule =
          "If the pole leans or falls to the left, choose A; "
          "if it leans or falls to the right, choose B.";
      t.options = {{'A', "push the cart to the left", {0}, "left"},
                   {'B', "push the cart to the right", {1}, "right"}};
      t.perceive = [](const meadow::Values& o) {
        const double lean = o[2] + 0.5 * o[3];  // angle plus a velocity (trend) term
        const char* side = lean < 0 ? "left" : "right";
        const char* speed = std::abs(o[3]) > 0.5 ? "fast" : "slowly";
        return std::string("The pole leans to the ") + side + " and falls " + speed + ".";
      };
      t.sanity = {{"The pole leans to the left and falls fast.", 'A'},
                  {"The pole leans to the right and falls slowly.", 'B'},
                  {"The pole leans to the right and falls fast.", 'B'},
                  {"The pole leans to the left and falls slowly.", 'A'}};
      t.judge = [](const meadow::Episode& e) {
        return meadow::Verdict{e.steps.size() >= 500,
                               "balanced " + std::to_string(e.steps.size()) + " steps"};
      };
      return t;
    }

    int main() {
      meadow::Mind mind;  // MEADOW_MIND_MODEL, cache dir or the embedded model
      auto task = cartpole();
      mind.check(task);  // the exam first: throws meadow::ExamFailed on failure
      auto env = meadow::make(task.env_id, task.env_kwargs);
      auto obs = env->reset(42).obs;
      task.forget();
      for (int64_t i = 0; i < task.max_steps; ++i) {
        auto [action, info] = mind.decide(task, obs);  // info: status, letter, probs, margin
        auto s = env->step(action);
        obs = s.obs;
        if (s.terminated || s.truncated) break;
      }
    }

Command line: `meadow-mind decide --rule TEXT --option "A=TEXT" --option "B=TEXT"
--state TEXT --json` prints {"letter", "probs", "lat_ms"} for one situation: use it to try
rules and sentences before writing code.
)GUIDE";
}

}  // namespace meadow
