// Prompt text of a decision: the chat layout of the train/README.md contract, split into the
// constant prefix (system, rule, options) and the per-decision suffix (situation onwards).
#include <string>
#include <vector>

#include "meadow/chat_template.hpp"
#include "meadow/decision.hpp"
#include "meadow/error.hpp"

namespace meadow::diffusion {
namespace {

// Marks where the situation starts inside the user message. The template renders the message
// contents verbatim (llama3 trims only the ends), so splitting the rendered text at the
// marker gives exactly prefix + suffix of the whole prompt.
constexpr std::string_view kSplit = "\x1f\x1e<meadow-split>\x1e\x1f";

}  // namespace

std::string options_block(const std::vector<Choice>& choices) {
  std::string out;
  for (const auto& c : choices) out += std::string(1, c.letter) + ") " + c.text + "\n";
  return out;
}

PromptText prompt_text(const Tokenizer& tok, std::string_view system, std::string_view rule,
                       const std::vector<Choice>& choices, std::string_view situation) {
  if (choices.empty()) throw Error("decision: no options");
  std::vector<ChatMessage> msgs;
  if (!system.empty()) msgs.push_back({"system", std::string(system)});
  msgs.push_back({"user", "Rule: " + std::string(rule) + "\nOptions:\n" + options_block(choices) +
                              std::string(kSplit) + "Situation: " + std::string(situation)});
  const std::string full = render_chat(detect_chat_template(tok), msgs, true);
  const size_t at = full.find(kSplit);
  if (at == std::string::npos) throw Error("decision: chat template lost the prompt split");
  return {full.substr(0, at), full.substr(at + kSplit.size())};
}

}  // namespace meadow::diffusion
