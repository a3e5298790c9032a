// Chat templates without Jinja: the template family is recognised from the GGUF
// tokenizer.chat_template source (or, when absent, from the vocabulary's marker tokens) and
// rendered by a fixed layout that reproduces that family's published template.
//
//   chatml  (Qwen2/2.5/3, Dream):  <|im_start|>ROLE\nCONTENT<|im_end|>\n ...
//   <|im_start|>assistant\n
//            A default system message is inserted when the template carries one (Dream and
//            Qwen2.5 do) and the conversation does not start with a system message.
//   llama3  (Llama 3, LLaDA):      BOS
//   <|start_header_id|>ROLE<|end_header_id|>\n\nCONTENT<|eot_id|>
//            ... <|start_header_id|>assistant<|end_header_id|>\n\n   (content is trimmed)
//   none:                          "ROLE: CONTENT\n" lines, then "assistant: "
//
// Not reproduced: tools, tool calls, reasoning-content handling, date headers (Llama 3.1).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace meadow {

class Tokenizer;

enum class ChatFamily { none, chatml, llama3 };

struct ChatMessage {
  std::string role;  // "system", "user", "assistant"
  std::string content;
};

struct ChatTemplate {
  ChatFamily family = ChatFamily::none;
  std::string default_system;  // chatml only: inserted when the first message is not system
  std::string bos;             // llama3 only: the BOS token text written at the start
};

const char* chat_family_name(ChatFamily family);

// Family from the Jinja source; `none` if empty or unrecognised.
ChatTemplate detect_chat_template(std::string_view jinja_source);
// From the tokenizer's template, falling back to its marker tokens when the template is absent
// or unrecognised (<|im_start|> -> chatml, <|start_header_id|> -> llama3).
ChatTemplate detect_chat_template(const Tokenizer& tokenizer);

// One run of a rendered chat: template markup that names special tokens (<|im_start|>,
// <|eot_id|>, BOS) or text (roles, newlines, message contents).
struct ChatPiece {
  std::string text;
  bool special = false;
};

// The conversation as pieces, ending with the assistant generation prompt when
// add_generation_prompt. Message contents are always text pieces, whatever they contain.
std::vector<ChatPiece> render_chat_pieces(const ChatTemplate& tmpl,
                                          const std::vector<ChatMessage>& messages,
                                          bool add_generation_prompt = true);

// The pieces joined: the prompt text, for display and for comparison with published templates.
// Do not tokenize it with parse_special: a message could smuggle control tokens in; use
// encode_chat.
std::string render_chat(const ChatTemplate& tmpl, const std::vector<ChatMessage>& messages,
                        bool add_generation_prompt = true);
std::string join_pieces(const std::vector<ChatPiece>& pieces);

// Token ids of rendered pieces: special pieces are matched as control tokens, text pieces are
// tokenized as plain text (parse_special = false), adjacent text pieces as one text. So
// "<|im_end|>" typed in a message stays text and cannot rewrite the chat structure.
std::vector<int32_t> encode_chat(const Tokenizer& tok, const std::vector<ChatPiece>& pieces);

}  // namespace meadow
