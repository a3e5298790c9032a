// Byte-level BPE tokenizer (GPT-2 style) built from a GGUF vocabulary or a plain Vocab.
//
// Encoding follows Hugging Face's pipeline for these vocabularies: added tokens (control and
// user-defined) are matched verbatim first (earliest position, longest match), the text
// between them is case-folded (only if the vocabulary asks: Vocab::fold_case), NFC-normalized
// (qwen2 pre-tokenizer only, as Qwen's tokenizer.json does), split by the pre-tokenizer regex of
// `pre`, mapped byte -> unicode (GPT-2 table) and merged by BPE rank. Ids match the reference
// JavaScript tokenizer (@lenml/tokenizers) on Qwen's vocab.
//
// Invalid UTF-8 never throws: each invalid byte becomes its own byte token, and the valid runs
// around it are tokenized as if they were separate texts. decode() returns those bytes back.
//
// WordPiece (tokenizer.ggml.model "bert": BERT-family encoders in llama.cpp's conventions) runs
// Hugging Face's BertNormalizer + BertPreTokenizer + WordPiece pipeline between the added
// tokens instead (tokenizer/bert_basic.hpp, tokenizer/wordpiece.hpp); invalid UTF-8 bytes are
// dropped there, as BERT's cleaning drops U+FFFD. encode() gives the pieces alone;
// encode_segments() the model's input, [CLS] a [SEP] (b [SEP]), with its token type ids. Ids
// match Hugging Face `tokenizers` on all-MiniLM-L6-v2's tokenizer.json
// (tests/reference/minilm_reference_test.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace meadow {

namespace gguf {
class File;
}

// llama.cpp's token types (tokenizer.ggml.token_type).
enum class TokenType : int32_t {
  undefined = 0,
  normal = 1,
  unknown = 2,
  control = 3,       // special tokens (<|im_start|>, <|endoftext|>): matched only if parse_special
  user_defined = 4,  // non-special added tokens (<think>): always matched verbatim
  unused = 5,
  byte = 6,
};

// Everything a tokenizer is built from. Fields mirror the GGUF tokenizer.* keys.
struct Vocab {
  std::string model = "gpt2";       // tokenizer.ggml.model: "gpt2" (byte-level BPE) or "bert"
  std::vector<std::string> tokens;  // id -> token text (byte-level unicode for normal tokens;
                                    // for "bert", U+2581 + a word-initial piece)
  std::vector<std::string> merges;  // "left right", highest priority first
  std::vector<int32_t> types;       // id -> TokenType; empty means all normal
  std::string pre = "default";      // tokenizer.ggml.pre: qwen2 | llama-bpe | default | gpt2 ...
  std::optional<int32_t> bos, eos, pad, mask, unk, eot;
  std::optional<int32_t> cls, sep;  // tokenizer.ggml.cls_token_id, .seperator_token_id (sic)
  bool add_bos = false;             // tokenizer.ggml.add_bos_token (callers decide to prepend)
  std::string chat_template;        // tokenizer.chat_template (Jinja source), may be empty
  // meadow.tokenizer.fold_case: lower-case words before splitting (tokenizer/fold_case.hpp);
  // set by vocabularies trained folded, absent (false) in every other GGUF
  bool fold_case = false;
};

// An encoder's input: token ids and, for each, its token type (segment) id.
struct SegmentIds {
  std::vector<int32_t> ids;
  std::vector<int32_t> types;
};

// [begin, end) bytes of an encoded text that one token came from.
struct TokenOffset {
  uint32_t begin = 0, end = 0;
  bool operator==(const TokenOffset&) const = default;
};

class Tokenizer {
 public:
  // Reads the tokenizer.* keys. Throws meadow::Error naming the file and the problem for a
  // missing/ill-typed key, an unsupported model or pre-tokenizer, or inconsistent tables.
  static Tokenizer from_gguf(const gguf::File& file);
  // Same checks; messages start with "tokenizer: ".
  static Tokenizer from_vocab(Vocab vocab);

  // Text -> ids. parse_special: match control tokens written in the text (user-defined tokens
  // are always matched). No BOS is added; see add_bos(). Thread-safe.
  std::vector<int32_t> encode(std::string_view text, bool parse_special = true) const;
  // Ids -> bytes. Control tokens are written as their text unless skip_special.
  // Throws meadow::Error for an id outside [0, size()).
  std::string decode(std::span<const int32_t> ids, bool skip_special = false) const;
  // The same into out (cleared first; its capacity is reused, so a warm caller allocates less).
  void encode(std::string_view text, bool parse_special, std::vector<int32_t>& out) const;
  // [CLS] a [SEP], or with b: [CLS] a [SEP] b [SEP]; types 0 up to the first [SEP], 1 after
  // (Hugging Face's BERT template). Throws meadow::Error when the vocabulary names no [CLS] or
  // [SEP] token.
  SegmentIds encode_segments(std::string_view a, std::optional<std::string_view> b = std::nullopt,
                             bool parse_special = true) const;
  void decode(std::span<const int32_t> ids, bool skip_special, std::string& out) const;
  // encode() into ids with, per token, the bytes of text it came from: Hugging Face
  // `tokenizers`' offsets (return_offsets_mapping), in bytes of the UTF-8 text where Python's
  // are code points, so text.substr(begin, end - begin) is the same words. A special token
  // written in the text covers its own bytes. WordPiece vocabularies only (meadow::Error for
  // byte-level BPE, whose pieces need not end on a character).
  void encode_offsets(std::string_view text, bool parse_special, std::vector<int32_t>& ids,
                      std::vector<TokenOffset>& offsets) const;

  std::optional<int32_t> find(std::string_view token) const;  // exact token text -> id
  std::string_view token(int32_t id) const;                   // throws if out of range
  TokenType type(int32_t id) const;                           // throws if out of range
  int32_t size() const;

  std::optional<int32_t> bos_id() const;
  std::optional<int32_t> eos_id() const;
  std::optional<int32_t> pad_id() const;
  std::optional<int32_t> mask_id() const;
  std::optional<int32_t> unk_id() const;
  std::optional<int32_t> eot_id() const;
  std::optional<int32_t> cls_id() const;
  std::optional<int32_t> sep_id() const;
  const std::string& model() const;  // tokenizer.ggml.model: "gpt2" or "bert"
  bool add_bos() const;
  const std::string& pre() const;
  bool fold_case() const;

  // Raw Jinja source (may be empty) and the detected family name: "chatml", "llama3", "none"
  // (see meadow/runtime/chat_template.hpp).
  const std::string& chat_template() const;
  std::string chat_template_name() const;

  struct Impl;

 private:
  explicit Tokenizer(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;  // immutable after construction; copies share it
};

}  // namespace meadow
