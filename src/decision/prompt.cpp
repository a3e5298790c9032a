// Prompt text of a decision: the chat layout of docs/prompt-contract.md, split into the
// constant prefix (system, rule, options) and the per-decision suffix (situation onwards).
#include <algorithm>
#include <string>
#include <vector>

#include "meadow/error.hpp"
#include "meadow/runtime/chat_template.hpp"
#include "meadow/runtime/decider.hpp"

namespace meadow::decision {

std::string options_block(const std::vector<Choice>& choices, std::string_view option_layout) {
  std::string out;
  for (const auto& c : choices)
    out +=
        fill_layout(option_layout, {{"letter", std::string_view(&c.letter, 1)}, {"text", c.text}});
  return out;
}

PromptText prompt_text(const Tokenizer& tok, const PromptContract& contract, std::string_view rule,
                       const std::vector<Choice>& choices, std::string_view situation) {
  if (choices.empty()) throw Error("decision: no options");
  // Where the situation starts inside the user message: the chat is rendered twice, with one
  // different byte there, and split where the renderings first differ. The template renders
  // message contents verbatim (llama3 trims only the ends), so that is exactly prefix + suffix.
  // (Searching the rendering for a marker string broke when a rule or option held it.)
  const std::string head = fill_layout(
      contract.prefix, {{"rule", rule}, {"options", options_block(choices, contract.option)}});
  const std::string tail = fill_layout(contract.suffix, {{"situation", situation}});
  const std::string_view system = contract.system;
  const ChatTemplate tmpl = detect_chat_template(tok);
  auto render = [&](char mark) {
    std::vector<ChatMessage> msgs;
    if (!system.empty()) msgs.push_back({"system", std::string(system)});
    msgs.push_back({"user", head + mark + tail});
    return render_chat_pieces(tmpl, msgs, true);
  };
  const std::vector<ChatPiece> pa = render('\x01'), pb = render('\x02');
  const std::string a = join_pieces(pa), b = join_pieces(pb);
  const size_t at = size_t(std::mismatch(a.begin(), a.end(), b.begin(), b.end()).first - a.begin());
  if (a.size() != b.size() || at == a.size())
    throw Error("decision: chat template lost the prompt split");
  // Split the pieces at byte `at` (inside the user message's text piece), dropping the mark.
  PromptText out;
  size_t pos = 0;
  for (const auto& p : pa) {
    const size_t end = pos + p.text.size();
    if (end <= at) {
      out.prefix.push_back(p);
    } else if (pos > at) {
      out.suffix.push_back(p);
    } else {
      if (p.special) throw Error("decision: chat template lost the prompt split");
      if (at > pos) out.prefix.push_back({p.text.substr(0, at - pos), false});
      if (end > at + 1) out.suffix.push_back({p.text.substr(at - pos + 1), false});
    }
    pos = end;
  }
  return out;
}

std::string PromptText::prefix_text() const {
  return join_pieces(prefix);
}
std::string PromptText::suffix_text() const {
  return join_pieces(suffix);
}

}  // namespace meadow::decision
