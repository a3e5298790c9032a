// The decision prompt builder (prompt_text, options_block in src/decision/prompt.cpp) on
// arbitrary system, rule, option and situation texts, for each chat template family. Must hold:
//   the prefix does not depend on the situation (it is what the prefix cache reuses);
//   prefix + suffix is exactly the chat rendering of the contract's user message
//     "Rule: R\nOptions:\nA) ..\n...Situation: S" (the split marker leaves no trace);
//   options_block writes "L) text\n" per option;
//   both halves tokenize (encode_chat) with every id inside the vocabulary and no control
//   token but the template markup's (user text never becomes one).
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "meadow/error.hpp"
#include "meadow/runtime/chat_template.hpp"
#include "meadow/runtime/decider.hpp"
#include "meadow/runtime/tokenizer.hpp"
#include "tokenizer/tiny_vocab.hpp"

namespace {

using namespace meadow;

Tokenizer make(const std::string& chat_template, bool with_bos) {
  Vocab v = test::byte_vocab("default");
  test::add_token(v, "<|im_start|>", TokenType::control);
  test::add_token(v, "<|im_end|>", TokenType::control);
  test::add_token(v, "<|start_header_id|>", TokenType::control);
  test::add_token(v, "<|end_header_id|>", TokenType::control);
  test::add_token(v, "<|eot_id|>", TokenType::control);
  if (with_bos) v.bos = test::add_token(v, "<|begin_of_text|>", TokenType::control);
  v.chat_template = chat_template;
  return Tokenizer::from_vocab(std::move(v));
}

// The fields of one input, split at 0xFF bytes: system, rule, situation, then option texts.
std::vector<std::string> fields(std::string_view s) {
  std::vector<std::string> out(1);
  for (char c : s) {
    if (static_cast<uint8_t>(c) == 0xFF)
      out.emplace_back();
    else
      out.back() += c;
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const Tokenizer chatml = make(
      "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}",
      false);
  static const Tokenizer chatml_default = make(
      "{%- if messages[0]['role'] != 'system' %}<|im_start|>system\nYou are a helpful "
      "assistant.<|im_end|>\n{%- endif %}<|im_start|>",
      false);
  static const Tokenizer llama3 = make("{{ bos_token }}<|start_header_id|>", true);
  static const Tokenizer none = make("", false);
  if (size < 1 || size > 2048) return 0;
  const Tokenizer* toks[] = {&chatml, &chatml_default, &llama3, &none};
  const Tokenizer& tok = *toks[data[0] % 4];
  const auto f = fields(std::string_view(reinterpret_cast<const char*>(data + 1), size - 1));
  if (f.size() < 4) return 0;
  const std::string& system = f[0];
  const std::string& rule = f[1];
  const std::string& situation = f[2];
  std::vector<decision::Choice> choices;
  std::string block;
  for (size_t i = 3; i < f.size() && i < 3 + 6; ++i) {
    choices.push_back({char('A' + (i - 3)), f[i]});
    block += std::string(1, char('A' + (i - 3))) + ") " + f[i] + "\n";
  }
  const PromptContract& contract = default_prompt_contract();
  if (decision::options_block(choices, contract.option) != block) std::abort();
  PromptContract with_system = contract;
  with_system.system = system;

  decision::PromptText p, q;
  try {
    p = decision::prompt_text(tok, with_system, rule, choices, situation);
    q = decision::prompt_text(tok, with_system, rule, choices, situation + " and more");
  } catch (const Error&) {
    return 0;  // refused input is fine; a wrong prompt is not
  }
  if (p.prefix_text() != q.prefix_text()) std::abort();

  std::vector<ChatMessage> msgs;
  if (!system.empty()) msgs.push_back({"system", system});
  msgs.push_back({"user", "Rule: " + rule + "\nOptions:\n" + block + "Situation: " + situation});
  if (p.prefix_text() + p.suffix_text() != render_chat(detect_chat_template(tok), msgs, true))
    std::abort();

  // Ids stay inside the vocabulary, and user text never becomes a control token: the halves
  // hold exactly as many control ids as the template's own markup pieces.
  for (const auto* half : {&p.prefix, &p.suffix}) {
    size_t markup = 0, control = 0;
    for (const auto& piece : *half) markup += piece.special && tok.find(piece.text);
    for (int32_t id : encode_chat(tok, *half)) {
      if (id < 0 || id >= tok.size()) std::abort();
      control += tok.type(id) == TokenType::control;
    }
    if (control != markup) std::abort();
  }
  return 0;
}
