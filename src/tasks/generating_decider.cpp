// The full-generation contender (meadow/realtime.hpp): a sentence first, then an action.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <string>

#include "meadow/realtime.hpp"
#include "meadow/runtime/generate.hpp"

namespace meadow {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0;
}

// The first position of `word` in `text` as a whole word (both lower-case), or npos.
size_t find_word(const std::string& text, const std::string& word) {
  if (word.empty()) return std::string::npos;
  for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
    const bool start = at == 0 || !is_word_char(text[at - 1]);
    const size_t end = at + word.size();
    if (start && (end >= text.size() || !is_word_char(text[end]))) return at;
  }
  return std::string::npos;
}

}  // namespace

char parse_answer(const Task& task, std::string_view text) {
  const std::string t(text);
  // An explicit letter: a capital option letter standing as a word (not "A" of "A wall": the
  // article is only taken when followed by ")" or "." or the end, or preceded by option/choose).
  for (size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (c < 'A' || c > 'Z') continue;
    if (std::none_of(task.options.begin(), task.options.end(),
                     [&](const Option& o) { return o.letter == c; }))
      continue;
    if (i > 0 && is_word_char(t[i - 1])) continue;
    const char next = i + 1 < t.size() ? t[i + 1] : '\0';
    if (is_word_char(next)) continue;
    const std::string before = lower(t.substr(i >= 8 ? i - 8 : 0, i >= 8 ? 8 : i));
    const bool named = before.find("option") != std::string::npos ||
                       before.find("choose") != std::string::npos ||
                       before.find("answer") != std::string::npos;
    if (named || next == ')' || next == '.' || next == '\0' || next == ':') return c;
  }
  // Else the option whose words come first.
  const std::string l = lower(t);
  size_t best_at = std::string::npos;
  char best = task.options.front().letter;
  for (const Option& o : task.options)
    if (o.act == "stay" || o.act == "wait" || o.act == "none") best = o.letter;
  for (const Option& o : task.options) {
    for (const std::string& words : {lower(o.act), lower(o.text)}) {
      const size_t at = find_word(l, words);
      if (at < best_at) best_at = at, best = o.letter;
    }
  }
  return best;
}

DecideFn generating_decider(const model::Model& model, const Tokenizer& tok, int max_new_tokens,
                            int threads) {
  return [&model, &tok, max_new_tokens, threads](Task& task, const Values& obs) {
    const auto t0 = std::chrono::steady_clock::now();
    Decided out;
    out.info.status = perceive(task, obs);
    std::string system = "You play a game in real time. " + task.rule + " Options:";
    for (const Option& o : task.options)
      system += std::string(" ") + o.letter + ") " + o.text + ";";
    const std::vector<ChatMessage> messages = {
        {"system", system},
        {"user", out.info.status + ". Which option do you choose? Answer in one sentence."}};
    const std::vector<int32_t> prompt = generate::chat_prompt_ids(tok, messages);
    generate::GenerateOptions g;
    g.max_new_tokens = max_new_tokens;
    g.threads = threads;
    const generate::Generation gen = generate::generate(model, tok, prompt, g);
    out.info.letter = parse_answer(task, gen.text);
    for (const Option& o : task.options)
      out.info.probs.push_back({o.letter, o.letter == out.info.letter ? 1.0 : 0.0});
    out.info.margin = 1;
    out.action = task.option(out.info.letter).action;
    out.info.lat_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return out;
  };
}

}  // namespace meadow
