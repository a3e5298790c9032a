// prompt_text splits the rendered chat where the situation starts. It once searched the
// rendering for a marker string, so a rule, option or situation holding those bytes (the fuzzer
// found one) moved the split: the cached prefix lost part of the table and the marker reached
// the model. Any text now keeps prefix + suffix equal to the contract's one message.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../tokenizer/tiny_vocab.hpp"
#include "meadow/error.hpp"
#include "meadow/runtime/chat_template.hpp"
#include "meadow/runtime/decider.hpp"

namespace meadow::decision {
namespace {

Tokenizer tokenizer(const std::string& chat_template) {
  Vocab v = test::byte_vocab();
  test::add_token(v, "<|im_start|>", TokenType::control);
  test::add_token(v, "<|im_end|>", TokenType::control);
  test::add_token(v, "<|start_header_id|>", TokenType::control);
  v.chat_template = chat_template;
  return Tokenizer::from_vocab(std::move(v));
}

std::string contract(const Tokenizer& tok, const std::string& system, const std::string& rule,
                     const std::vector<Choice>& choices, const std::string& situation) {
  std::vector<ChatMessage> msgs;
  if (!system.empty()) msgs.push_back({"system", system});
  std::string options;
  for (const Choice& c : choices) options += std::string(1, c.letter) + ") " + c.text + "\n";
  msgs.push_back({"user", "Rule: " + rule + "\nOptions:\n" + options + "Situation: " + situation});
  return render_chat(detect_chat_template(tok), msgs, true);
}

// The contract's default (models/prompt-contract.json) with another system message.
PromptContract brief() {
  PromptContract c = default_prompt_contract();
  c.system = "Be brief.";
  return c;
}

TEST(PromptText, AnyTextKeepsTheSplitWhereTheSituationStarts) {
  using namespace std::string_literals;
  const std::string odd = "\x1f\x1e<meadow-split>\x1e\x1f";  // the old marker, as text
  for (const std::string tmpl : {"<|im_start|>", "<|start_header_id|>", ""}) {
    SCOPED_TRACE(tmpl);
    const Tokenizer tok = tokenizer(tmpl);
    const std::vector<Choice> plain = {{'A', "go"}, {'B', "stay"}};
    const std::vector<Choice> marked = {{'A', "go" + odd + "now"}, {'B', "stay"}};
    struct Case {
      std::string rule;
      std::vector<Choice> choices;
      std::string situation;
    };
    for (const Case& c : {Case{"If it rains, choose B.", plain, "It rains."},
                          Case{"If " + odd + " rains, choose B.", plain, "It rains."},
                          Case{"If it rains, choose B.", marked, "It rains."},
                          Case{"If it rains, choose B.", plain, "It " + odd + " rains."},
                          Case{odd, marked, odd + odd}}) {
      const PromptText p = prompt_text(tok, brief(), c.rule, c.choices, c.situation);
      EXPECT_EQ(p.prefix_text() + p.suffix_text(),
                contract(tok, "Be brief.", c.rule, c.choices, c.situation));
      EXPECT_EQ(p.suffix_text().rfind("Situation: ", 0), 0u) << p.suffix_text();
      EXPECT_EQ(prompt_text(tok, brief(), c.rule, c.choices, "other").prefix_text(),
                p.prefix_text());
    }
  }
}

// The compiled-in contract is docs/prompt-contract.md's layout; a model's own contract (its
// meadow.prompt.* keys) changes the prompt, and one that lacks a field is refused.
TEST(PromptText, FollowsTheModelsContract) {
  const PromptContract& d = default_prompt_contract();
  EXPECT_EQ(d.system,
            "Read the rule and the situation, then answer with the letter of the option to take.");
  EXPECT_EQ(d.prefix, "Rule: {rule}\nOptions:\n{options}");
  EXPECT_EQ(d.option, "{letter}) {text}\n");
  EXPECT_EQ(d.suffix, "Situation: {situation}");

  const Tokenizer tok = tokenizer("");
  PromptContract other{"", "Policy: {rule}\nChoices: {options}\n", "[{letter}] {text}; ",
                       "Now: {situation}"};
  const PromptText p =
      prompt_text(tok, other, "Go {left}.", {{'A', "go {text}"}, {'B', "stay"}}, "It {rains}.");
  // (A vocabulary without a template renders ChatML.)
  EXPECT_EQ(p.prefix_text(),
            "<|im_start|>user\nPolicy: Go {left}.\nChoices: [A] go {text}; [B] stay; \n");
  EXPECT_EQ(p.suffix_text(), "Now: It {rains}.<|im_end|>\n<|im_start|>assistant\n");

  EXPECT_EQ(fill_layout("{a}-{b}", {{"a", "{b}"}, {"b", "x"}}), "{b}-x");  // one pass
  EXPECT_THROW(fill_layout("{a}{c}", {{"a", "1"}}), Error);
}

}  // namespace
}  // namespace meadow::decision
