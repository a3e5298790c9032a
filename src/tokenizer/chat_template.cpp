#include "meadow/runtime/chat_template.hpp"

#include "meadow/runtime/tokenizer.hpp"

namespace meadow {
namespace {

constexpr std::string_view kImStart = "<|im_start|>";
constexpr std::string_view kImEnd = "<|im_end|>";
constexpr std::string_view kHeaderStart = "<|start_header_id|>";
constexpr std::string_view kHeaderEnd = "<|end_header_id|>";
constexpr std::string_view kEotId = "<|eot_id|>";

// Jinja string-literal escapes that appear in published templates.
std::string unescape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      char c = s[++i];
      out += c == 'n' ? '\n' : c == 't' ? '\t' : c;
    } else {
      out += s[i];
    }
  }
  return out;
}

// A chatml template with a built-in default system prompt writes it as a literal:
// "<|im_start|>system\nYou are a helpful assistant.<|im_end|>". Occurrences followed by an
// expression (messages[0]['content'], string concatenation) are not defaults.
std::string chatml_default_system(std::string_view src) {
  const std::string_view head = "<|im_start|>system";
  for (size_t at = src.find(head); at != std::string_view::npos; at = src.find(head, at + 1)) {
    size_t body = at + head.size();
    if (src.substr(body, 1) == "\n") {
      body += 1;
    } else if (src.substr(body, 2) == "\\n") {
      body += 2;
    } else {
      continue;
    }
    size_t end = src.find("<|im_end|>", body);
    if (end == std::string_view::npos) continue;
    std::string_view text = src.substr(body, end - body);
    if (text.empty() || text.find_first_of("{}'\"+") != std::string_view::npos) continue;
    return unescape(text);
  }
  return {};
}

std::string_view trim(std::string_view s) {
  const char* ws = " \t\n\r\v\f";
  size_t b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

}  // namespace

const char* chat_family_name(ChatFamily family) {
  switch (family) {
    case ChatFamily::chatml:
      return "chatml";
    case ChatFamily::llama3:
      return "llama3";
    case ChatFamily::none:
      break;
  }
  return "none";
}

ChatTemplate detect_chat_template(std::string_view src) {
  ChatTemplate t;
  if (src.find(kImStart) != std::string_view::npos) {
    t.family = ChatFamily::chatml;
    t.default_system = chatml_default_system(src);
  } else if (src.find(kHeaderStart) != std::string_view::npos) {
    t.family = ChatFamily::llama3;
  }
  return t;
}

ChatTemplate detect_chat_template(const Tokenizer& tok) {
  const std::string& src = tok.chat_template();
  ChatTemplate t = detect_chat_template(src);
  if (t.family == ChatFamily::none) {
    if (tok.find(kImStart)) {
      t.family = ChatFamily::chatml;
    } else if (tok.find(kHeaderStart)) {
      t.family = ChatFamily::llama3;
    }
  }
  // Llama 3 templates start with {{ bos_token }} (or the literal text); without a template,
  // the layout starts with BOS whenever the vocabulary has one.
  if (t.family == ChatFamily::llama3 && tok.bos_id()) {
    const std::string_view bos = tok.token(*tok.bos_id());
    if (src.empty() || src.find("bos_token") != std::string::npos ||
        src.find(bos) != std::string::npos) {
      t.bos = bos;
    }
  }
  return t;
}

std::vector<ChatPiece> render_chat_pieces(const ChatTemplate& tmpl,
                                          const std::vector<ChatMessage>& messages,
                                          bool add_generation_prompt) {
  std::vector<ChatPiece> out;
  auto special = [&](std::string_view t) { out.push_back({std::string(t), true}); };
  auto text = [&](std::string_view t) {
    if (t.empty()) return;
    if (!out.empty() && !out.back().special)
      out.back().text += t;
    else
      out.push_back({std::string(t), false});
  };
  switch (tmpl.family) {
    case ChatFamily::chatml: {
      const bool has_system = !messages.empty() && messages.front().role == "system";
      if (!has_system && !tmpl.default_system.empty()) {
        special(kImStart);
        text("system\n" + tmpl.default_system);
        special(kImEnd);
        text("\n");
      }
      for (const auto& m : messages) {
        special(kImStart);
        text(m.role + "\n" + m.content);
        special(kImEnd);
        text("\n");
      }
      if (add_generation_prompt) {
        special(kImStart);
        text("assistant\n");
      }
      break;
    }
    case ChatFamily::llama3: {
      if (!tmpl.bos.empty()) special(tmpl.bos);
      for (const auto& m : messages) {
        special(kHeaderStart);
        text(m.role);
        special(kHeaderEnd);
        text("\n\n");
        text(trim(m.content));
        special(kEotId);
      }
      if (add_generation_prompt) {
        special(kHeaderStart);
        text("assistant");
        special(kHeaderEnd);
        text("\n\n");
      }
      break;
    }
    case ChatFamily::none: {
      for (const auto& m : messages) text(m.role + ": " + m.content + "\n");
      if (add_generation_prompt) text("assistant: ");
      break;
    }
  }
  return out;
}

std::string join_pieces(const std::vector<ChatPiece>& pieces) {
  std::string out;
  for (const auto& p : pieces) out += p.text;
  return out;
}

std::string render_chat(const ChatTemplate& tmpl, const std::vector<ChatMessage>& messages,
                        bool add_generation_prompt) {
  return join_pieces(render_chat_pieces(tmpl, messages, add_generation_prompt));
}

std::vector<int32_t> encode_chat(const Tokenizer& tok, const std::vector<ChatPiece>& pieces) {
  std::vector<int32_t> ids;
  for (const auto& p : pieces) {
    std::vector<int32_t> part;
    if (p.special) {
      // Template markup is exactly one control token; a vocabulary without it (a template
      // detected from text alone) falls back to its plain-text tokens.
      if (const auto id = tok.find(p.text))
        part = {*id};
      else
        part = tok.encode(p.text, false);
    } else {
      part = tok.encode(p.text, false);
    }
    ids.insert(ids.end(), part.begin(), part.end());
  }
  return ids;
}

std::string Tokenizer::chat_template_name() const {
  return chat_family_name(detect_chat_template(*this).family);
}

}  // namespace meadow
