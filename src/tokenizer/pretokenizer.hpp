// Splits text into the pieces BPE merges within, using the regex of a `pre` family (PCRE2 with
// UTF + UCP, JIT-compiled). Patterns are the Hugging Face ones, with \s spelled out: as
// JavaScript's whitespace set for the families checked against the JS reference (gpt2, llama3,
// qwen2), as Oniguruma's (Hugging Face `tokenizers`, Rust) for smollm.
//
// smollm (SmolLM / SmolLM2, tokenizer.json: Sequence[Digits(individual_digits), ByteLevel]):
// every \p{N} character is a piece of its own first, then the GPT-2 pattern splits the text
// between digits. Two stages, not one alternation: "  1" is ["  ", "1"], where a single
// pattern would give [" ", " ", "1"].
#pragma once

#include <cstddef>
#include <memory>
#include <memory_resource>
#include <string_view>

namespace meadow::tokenizer {

enum class PreFamily { gpt2, llama3, qwen2, smollm };

// Maps a tokenizer.ggml.pre name to its family; throws meadow::Error for an unknown name.
PreFamily pre_family(std::string_view pre);

class PreTokenizer {
 public:
  explicit PreTokenizer(PreFamily family);
  PreTokenizer(PreTokenizer&&) noexcept;
  PreTokenizer& operator=(PreTokenizer&&) noexcept;
  ~PreTokenizer();

  // Appends the [begin, end) byte ranges of the pieces of `text` (valid UTF-8) to `out`.
  // Pieces cover the text completely and in order. Thread-safe. (A pmr vector: the caller
  // can keep short texts' pieces on its stack.)
  struct Piece {
    size_t begin, end;
  };
  void split(std::string_view text, std::pmr::vector<Piece>& out) const;

 private:
  void split_pattern(std::string_view text, size_t base, std::pmr::vector<Piece>& out) const;

  struct Regex;
  std::unique_ptr<Regex> re_;
  bool digits_first_ = false;
};

}  // namespace meadow::tokenizer
