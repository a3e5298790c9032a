// The runtime's prompt ids equal the training pipeline's (train/corpus/layout.py tokenized by
// train/tokenizer) for the same strings: docs/prompt-contract.md.
#include <gtest/gtest.h>

#include "meadow/error.hpp"
#include "meadow/runtime/decider.hpp"
#include "meadow/runtime/model.hpp"
#include "meadow/runtime/tokenizer.hpp"
#include "mind_fixture.hpp"

namespace meadow::decision {
namespace {

struct Case {
  std::string rule;
  std::vector<std::pair<char, std::string>> options;
  std::string situation;
};

TEST(PromptIds, MatchTrainingLayout) {
  const auto model = model::Model::load(mind_test::train_fixture());
  const auto tok = Tokenizer::from_gguf(model.file());
  const std::vector<Case> cases = {
      {"If the pole leans left, choose A; if it leans right, choose B.",
       {{'A', "push the cart to the left"}, {'B', "push the cart to the right"}},
       "The pole leans left and falls fast."},
      {"Push in the same direction the car is moving, to pump energy like a swing.",
       {{'A', "push left"}, {'B', "do nothing"}, {'C', "push right"}},
       "The car is moving right, slowly, low in the valley (x=-0.52)."},
      {"When the lander drifts   sideways → fire the opposite engine; otherwise wait.",
       {{'D', "fire left"}, {'B', "fire main"}, {'F', "wait"}},
       "Café: drifting LEFT, très vite; 12.5 m/s\ttwo\n lines"},
  };
  for (const auto& c : cases) {
    std::vector<Choice> choices;
    for (const auto& [l, t] : c.options) choices.push_back({l, t});
    const Decider d(model, tok, c.rule, choices, {.prefix_cache = false});
    const PromptIds ids = d.prompt_ids(c.situation);
    const auto py = mind_test::python_layout_ids(c.rule, c.options, c.situation);
    EXPECT_EQ(ids.prefix, py.prefix) << c.rule;
    EXPECT_EQ(ids.suffix, py.suffix) << c.situation;
    ASSERT_EQ(ids.slot.size(), 3u);
    for (int32_t t : ids.slot) EXPECT_EQ(t, py.mask);
    EXPECT_EQ(ids.answer_pos, int64_t(py.prefix.size() + py.suffix.size()));
  }
}

TEST(PromptIds, PrefixDoesNotDependOnTheSituation) {
  const auto model = model::Model::load(mind_test::train_fixture());
  const auto tok = Tokenizer::from_gguf(model.file());
  const Decider d(model, tok, "If hot, choose A.", {{'A', "run"}, {'B', "walk"}},
                  {.prefix_cache = false});
  const auto a = d.prompt_ids("it is hot");
  const auto b = d.prompt_ids("it is cold and windy");
  EXPECT_EQ(a.prefix, b.prefix);
  EXPECT_NE(a.suffix, b.suffix);
  const std::string text = tok.decode(a.prefix);
  EXPECT_NE(text.find("Rule: If hot, choose A.\nOptions:\nA) run\nB) walk\n"), std::string::npos);
  EXPECT_EQ(tok.decode(a.suffix), "Situation: it is hot<|im_end|>\n<|im_start|>assistant\n");
}

TEST(PromptIds, SlotLengthIsConfigurable) {
  const auto model = model::Model::load(mind_test::train_fixture());
  const auto tok = Tokenizer::from_gguf(model.file());
  const Decider d(model, tok, "r", {{'A', "a"}, {'B', "b"}},
                  {.answer_slot = 1, .prefix_cache = false});
  EXPECT_EQ(d.prompt_ids("s").slot.size(), 1u);
  EXPECT_THROW(Decider(model, tok, "r", {{'A', "a"}}, {.answer_slot = 0}), Error);
}

}  // namespace
}  // namespace meadow::decision
