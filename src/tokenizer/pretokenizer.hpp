// Splits text into the pieces BPE merges within, using the regex of a `pre` family (PCRE2 with
// UTF + UCP, JIT-compiled). Patterns are the Hugging Face ones, with \s spelled out as
// JavaScript's whitespace set, so the split matches the reference JS tokenizer exactly.
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>
#include <vector>

namespace meadow::tokenizer {

enum class PreFamily { gpt2, llama3, qwen2 };

// Maps a tokenizer.ggml.pre name to its family; throws meadow::Error for an unknown name.
PreFamily pre_family(std::string_view pre);

class PreTokenizer {
 public:
  explicit PreTokenizer(PreFamily family);
  PreTokenizer(PreTokenizer&&) noexcept;
  PreTokenizer& operator=(PreTokenizer&&) noexcept;
  ~PreTokenizer();

  // Appends the [begin, end) byte ranges of the pieces of `text` (valid UTF-8) to `out`.
  // Pieces cover the text completely and in order. Thread-safe.
  struct Piece {
    size_t begin, end;
  };
  void split(std::string_view text, std::vector<Piece>& out) const;

 private:
  struct Regex;
  std::unique_ptr<Regex> re_;
};

}  // namespace meadow::tokenizer
