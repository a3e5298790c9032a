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
  const std::vector<ChatPiece> pieces = render_chat_pieces(detect_chat_template(tok), msgs, true);
  // The marker sits inside the user message's text piece: split that piece in two. A rule or
  // option that itself holds the marker bytes would make the split ambiguous.
  PromptText out;
  bool split = false;
  for (const auto& p : pieces) {
    const size_t at = p.special ? std::string::npos : p.text.find(kSplit);
    if (split || at == std::string::npos) {
      (split ? out.suffix : out.prefix).push_back(p);
      continue;
    }
    if (p.text.find(kSplit, at + 1) != std::string::npos)
      throw Error("decision: a rule, option or situation holds the prompt split marker");
    if (at > 0) out.prefix.push_back({p.text.substr(0, at), false});
    if (at + kSplit.size() < p.text.size())
      out.suffix.push_back({p.text.substr(at + kSplit.size()), false});
    split = true;
  }
  if (!split) throw Error("decision: chat template lost the prompt split");
  return out;
}

std::string PromptText::prefix_text() const {
  return join_pieces(prefix);
}
std::string PromptText::suffix_text() const {
  return join_pieces(suffix);
}

}  // namespace meadow::diffusion
