// prompt_text splits the rendered chat where the situation starts. It once searched the
// rendering for a marker string, so a rule, option or situation holding those bytes (the fuzzer
// found one) moved the split: the cached prefix lost part of the table and the marker reached
// the model. Any text now keeps prefix + suffix equal to the contract's one message.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../tokenizer/tiny_vocab.hpp"
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
  msgs.push_back({"user", "Rule: " + rule + "\nOptions:\n" + options_block(choices) +
                              "Situation: " + situation});
  return render_chat(detect_chat_template(tok), msgs, true);
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
      const PromptText p = prompt_text(tok, "Be brief.", c.rule, c.choices, c.situation);
      EXPECT_EQ(p.prefix_text() + p.suffix_text(),
                contract(tok, "Be brief.", c.rule, c.choices, c.situation));
      EXPECT_EQ(p.suffix_text().rfind("Situation: ", 0), 0u) << p.suffix_text();
      EXPECT_EQ(prompt_text(tok, "Be brief.", c.rule, c.choices, "other").prefix_text(),
                p.prefix_text());
    }
  }
}

}  // namespace
}  // namespace meadow::decision
