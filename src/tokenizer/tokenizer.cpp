#include "meadow/runtime/tokenizer.hpp"

#include <array>
#include <cstdio>
#include <memory_resource>
#include <mutex>
#include <string>
#include <unordered_map>

#include "meadow/error.hpp"
#include "tokenizer/bert_basic.hpp"
#include "tokenizer/bpe.hpp"
#include "tokenizer/byte_unicode.hpp"
#include "tokenizer/fold_case.hpp"
#include "tokenizer/normalize_nfc.hpp"
#include "tokenizer/pretokenizer.hpp"
#include "tokenizer/special_matcher.hpp"
#include "tokenizer/string_table.hpp"
#include "tokenizer/utf8.hpp"
#include "tokenizer/wordpiece.hpp"
#include "util/printable.hpp"

namespace meadow {

using tokenizer::PreFamily;

namespace {

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
using PieceCache =
    std::unordered_map<std::string, std::vector<int32_t>, StringHash, std::equal_to<>>;

// Pieces longer than this are rare repeats; the cache is cleared when it reaches kCacheMax.
constexpr size_t kCacheMaxPiece = 64;
constexpr size_t kCacheMax = 1 << 16;

[[noreturn]] void fail(const std::string& msg) {
  throw Error("tokenizer: " + msg);
}

// Token and merge texts come from the model file: quoted escaped (util/printable.hpp), cut at
// 40 bytes.
std::string quoted(std::string_view s) {
  return util::quoted(s, 40);
}

}  // namespace

struct Tokenizer::Impl {
  Vocab vocab;                      // tokens and merges move into the tables below
  tokenizer::StringTable tokens;    // id -> token text, and text -> id
  tokenizer::StringTable bytes_of;  // id -> the bytes decode() writes
  std::array<int32_t, 256> byte_token{};
  tokenizer::MergeTable merges;
  tokenizer::ByteUnicode table;
  PreFamily family = PreFamily::gpt2;
  tokenizer::PreTokenizer pre{PreFamily::gpt2};
  bool nfc = false;            // Qwen's tokenizer.json normalizes to NFC before splitting
  bool ignore_merges = false;  // Llama 3: a piece that is itself a token is taken whole
  tokenizer::SpecialMatcher user_only, with_control;
  std::unique_ptr<tokenizer::WordPiece> wordpiece;  // model "bert" only

  mutable std::mutex cache_mu;
  mutable PieceCache cache;

  void encode_piece(std::string_view piece, std::vector<int32_t>& out) const;
  void encode_valid(std::string_view text, std::vector<int32_t>& out) const;
  void encode_plain(std::string_view text, std::vector<int32_t>& out) const;
  void encode_wordpiece(std::string_view text, std::vector<int32_t>& out) const;
  void encode_wordpiece_offsets(std::string_view text, uint32_t base, std::vector<int32_t>& out,
                                std::vector<TokenOffset>& offsets) const;
  int32_t byte_id(unsigned char b) const;
};

void Tokenizer::Impl::encode_wordpiece(std::string_view text, std::vector<int32_t>& out) const {
  // A decision's situation is a few dozen words: reused per thread, these stop allocating.
  thread_local std::string norm;
  thread_local std::vector<tokenizer::BertWord> words;
  words.clear();
  tokenizer::bert_words(text, norm, words);
  for (const auto& w : words)
    wordpiece->encode_word(std::string_view(norm).substr(w.begin, w.end - w.begin), w.chars, out);
}

// The same ids, each with the bytes of the text its piece came from (text starts `base` bytes
// into what the caller encodes): a piece's first normalized byte gives the start, its last the
// end, as `tokenizers` converts a normalized range back through its alignments.
void Tokenizer::Impl::encode_wordpiece_offsets(std::string_view text, uint32_t base,
                                               std::vector<int32_t>& out,
                                               std::vector<TokenOffset>& offsets) const {
  std::string norm;
  std::vector<tokenizer::BertWord> words;
  std::vector<tokenizer::ByteSpan> origin, pieces;
  tokenizer::bert_words(text, norm, words, &origin);
  for (const auto& w : words) {
    pieces.clear();
    wordpiece->encode_word(std::string_view(norm).substr(w.begin, w.end - w.begin), w.chars, out,
                           &pieces);
    for (const auto& p : pieces)
      offsets.push_back(
          {base + origin[w.begin + p.begin].begin, base + origin[w.begin + p.end - 1].end});
  }
}

int32_t Tokenizer::Impl::byte_id(unsigned char b) const {
  if (byte_token[b] >= 0) return byte_token[b];
  if (vocab.unk) return *vocab.unk;
  char hex[8];
  std::snprintf(hex, sizeof hex, "0x%02X", b);
  fail(std::string("byte ") + hex +
       " has no token in this vocabulary and there is no unknown token");
}

void Tokenizer::Impl::encode_piece(std::string_view piece, std::vector<int32_t>& out) const {
  if (piece.size() == 1) {
    out.push_back(byte_id(static_cast<unsigned char>(piece[0])));
    return;
  }
  const bool cacheable = piece.size() <= kCacheMaxPiece;
  if (cacheable) {
    std::lock_guard lock(cache_mu);
    if (auto it = cache.find(piece); it != cache.end()) {
      out.insert(out.end(), it->second.begin(), it->second.end());
      return;
    }
  }
  std::vector<int32_t> ids;
  if (ignore_merges) {
    std::string text;
    for (char c : piece) text += table.utf8_of_byte[static_cast<unsigned char>(c)];
    if (auto id = tokens.find(text)) ids.push_back(*id);
  }
  if (ids.empty()) {
    ids.reserve(piece.size());
    for (char c : piece) ids.push_back(byte_id(static_cast<unsigned char>(c)));
    tokenizer::bpe_merge(merges, ids);
  }
  out.insert(out.end(), ids.begin(), ids.end());
  if (cacheable) {
    std::lock_guard lock(cache_mu);
    if (cache.size() >= kCacheMax) cache.clear();
    cache.try_emplace(std::string(piece), std::move(ids));
  }
}

void Tokenizer::Impl::encode_valid(std::string_view text, std::vector<int32_t>& out) const {
  if (text.empty()) return;
  std::string normalized;
  if (nfc && tokenizer::nfc(text, normalized)) text = normalized;
  // A situation's pieces fit on the stack; a long text's spill to the heap.
  std::byte stack[4096];
  std::pmr::monotonic_buffer_resource arena(stack, sizeof stack);
  std::pmr::vector<tokenizer::PreTokenizer::Piece> pieces(&arena);
  pre.split(text, pieces);
  for (auto p : pieces) encode_piece(text.substr(p.begin, p.end - p.begin), out);
}

void Tokenizer::Impl::encode_plain(std::string_view text, std::vector<int32_t>& out) const {
  if (wordpiece) return encode_wordpiece(text, out);
  std::string folded;  // before the invalid-byte split, as the trainer folds whole texts
  if (vocab.fold_case && tokenizer::fold_case(text, folded)) text = folded;
  // Valid runs go through the pipeline; each invalid byte becomes its byte token on its own.
  size_t run = 0, i = 0;
  while (i < text.size()) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    size_t n = tokenizer::utf8_valid_length(text, i);
    if (n > 0) {
      i += n;
      continue;
    }
    encode_valid(text.substr(run, i - run), out);
    out.push_back(byte_id(static_cast<unsigned char>(text[i])));
    run = ++i;
  }
  encode_valid(text.substr(run), out);
}

namespace {

// Fails on a vocabulary the tokenizer cannot use; gives every token a type when none came.
void check_vocab(Vocab& v) {
  const bool bert = v.model == "bert";
  if (v.model != "gpt2" && !bert) {
    fail("unsupported tokenizer model " + quoted(v.model) +
         " (only 'gpt2' byte-level BPE and 'bert' WordPiece)");
  }
  if (bert && !v.unk) fail("a WordPiece vocabulary needs an unknown token (unknown_token_id)");
  if (v.tokens.empty()) fail("vocabulary has no tokens");
  if (v.tokens.size() > static_cast<size_t>(INT32_MAX)) fail("vocabulary too large");
  const auto n = static_cast<int32_t>(v.tokens.size());
  if (v.types.empty()) v.types.assign(v.tokens.size(), static_cast<int32_t>(TokenType::normal));
  if (v.types.size() != v.tokens.size()) {
    fail("token_type has " + std::to_string(v.types.size()) + " entries for " + std::to_string(n) +
         " tokens");
  }
  for (size_t i = 0; i < v.types.size(); ++i) {
    if (v.types[i] < 0 || v.types[i] > 6) {
      fail("token " + std::to_string(i) + " has invalid type " + std::to_string(v.types[i]));
    }
  }
  auto check_id = [&](const std::optional<int32_t>& id, const char* what) {
    if (id && (*id < 0 || *id >= n)) {
      fail(std::string(what) + " token id " + std::to_string(*id) +
           " is outside the vocabulary of " + std::to_string(n));
    }
  };
  check_id(v.bos, "bos");
  check_id(v.eos, "eos");
  check_id(v.pad, "padding");
  check_id(v.mask, "mask");
  check_id(v.unk, "unknown");
  check_id(v.eot, "eot");
  check_id(v.cls, "cls");
  check_id(v.sep, "separator");
}

}  // namespace

Tokenizer Tokenizer::from_vocab(Vocab v) {
  check_vocab(v);
  const bool bert = v.model == "bert";
  const auto n = static_cast<int32_t>(v.tokens.size());
  auto impl = std::make_shared<Impl>();
  Impl& t = *impl;
  try {
    if (!bert) t.family = tokenizer::pre_family(v.pre);  // WordPiece has no regex pre-tokenizer
  } catch (const Error& e) {
    fail(e.what());
  }
  if (!bert) t.pre = tokenizer::PreTokenizer(t.family);
  t.nfc = t.family == PreFamily::qwen2;
  t.ignore_merges = t.family == PreFamily::llama3;

  size_t text_bytes = 0;
  for (const std::string& s : v.tokens) text_bytes += s.size();
  t.tokens.reserve(v.tokens.size(), text_bytes);
  t.bytes_of.reserve(v.tokens.size(), text_bytes);
  for (const std::string& s : v.tokens) t.tokens.add(s);
  t.tokens.index();

  const tokenizer::ByteUnicode& table = t.table;
  t.byte_token.fill(-1);
  for (int b = 0; b < 256; ++b) t.byte_token[b] = t.tokens.find(table.utf8_of_byte[b]).value_or(-1);

  for (int32_t id = 0; id < n; ++id) {
    auto type = static_cast<TokenType>(v.types[id]);
    const bool added = type == TokenType::control || type == TokenType::user_defined;
    std::optional<std::string> bytes;
    if (bert && !added) {
      // Phantom space: a word-initial piece decodes with a space before it.
      const std::string& s = v.tokens[id];
      bytes = s.starts_with(tokenizer::kPhantomSpace)
                  ? " " + s.substr(tokenizer::kPhantomSpace.size())
                  : s;
    } else if (!added) {
      bytes = table.decode(v.tokens[id]);
    }
    t.bytes_of.add(bytes ? *bytes : v.tokens[id]);
    if (type == TokenType::user_defined) t.user_only.add(v.tokens[id], id);
    if (added || type == TokenType::unknown) t.with_control.add(v.tokens[id], id);
  }
  t.bytes_of.shrink_to_fit();  // byte-level texts decode shorter than they are written
  t.user_only.finish();
  t.with_control.finish();
  v.tokens.clear();
  v.tokens.shrink_to_fit();

  if (v.merges.size() > static_cast<size_t>(INT32_MAX)) fail("too many merges");
  std::string joined;
  for (size_t r = 0; r < v.merges.size(); ++r) {
    const std::string& m = v.merges[r];
    size_t sp = m.find(' ', 1);  // a leading space would be part of the left token
    if (sp == std::string::npos || sp + 1 >= m.size()) {
      fail("merge " + std::to_string(r) + " " + quoted(m) +
           " is not two tokens separated by a space");
    }
    std::string_view left(m.data(), sp), right(m.data() + sp + 1, m.size() - sp - 1);
    joined.assign(left).append(right);
    const auto l = t.tokens.find(left), rt = t.tokens.find(right), res = t.tokens.find(joined);
    for (auto [id, part] :
         {std::pair{l, left}, std::pair{rt, right}, std::pair{res, std::string_view(joined)}}) {
      if (!id) {
        fail("merge " + std::to_string(r) + " " + quoted(m) + " references unknown token " +
             quoted(part));
      }
    }
    t.merges.add(*l, *rt, {static_cast<int32_t>(r), *res});
  }
  t.merges.finish(n);
  v.merges.clear();
  v.merges.shrink_to_fit();
  t.vocab = std::move(v);
  if (bert)
    t.wordpiece = std::make_unique<tokenizer::WordPiece>(t.tokens, t.vocab.types, *t.vocab.unk);
  return Tokenizer(std::move(impl));
}

std::vector<int32_t> Tokenizer::encode(std::string_view text, bool parse_special) const {
  std::vector<int32_t> out;
  out.reserve(text.size() / 3 + 1);
  encode(text, parse_special, out);
  return out;
}

void Tokenizer::encode(std::string_view text, bool parse_special, std::vector<int32_t>& out) const {
  const Impl& t = *impl_;
  const tokenizer::SpecialMatcher& specials = parse_special ? t.with_control : t.user_only;
  out.clear();
  size_t pos = 0;
  while (pos < text.size()) {
    auto hit = specials.empty() ? tokenizer::SpecialMatcher::Hit{} : specials.find(text, pos);
    size_t end = hit.pos == std::string_view::npos ? text.size() : hit.pos;
    t.encode_plain(text.substr(pos, end - pos), out);
    if (hit.pos == std::string_view::npos) break;
    out.push_back(hit.id);
    pos = hit.pos + hit.len;
  }
}

void Tokenizer::encode_offsets(std::string_view text, bool parse_special, std::vector<int32_t>& ids,
                               std::vector<TokenOffset>& offsets) const {
  const Impl& t = *impl_;
  if (!t.wordpiece) fail("token offsets are given for WordPiece (bert) vocabularies only");
  if (text.size() > UINT32_MAX / 2) fail("text over 2 GiB");
  const tokenizer::SpecialMatcher& specials = parse_special ? t.with_control : t.user_only;
  ids.clear();
  offsets.clear();
  size_t pos = 0;
  while (pos < text.size()) {
    auto hit = specials.empty() ? tokenizer::SpecialMatcher::Hit{} : specials.find(text, pos);
    size_t end = hit.pos == std::string_view::npos ? text.size() : hit.pos;
    t.encode_wordpiece_offsets(text.substr(pos, end - pos), uint32_t(pos), ids, offsets);
    if (hit.pos == std::string_view::npos) break;
    ids.push_back(hit.id);
    offsets.push_back({uint32_t(hit.pos), uint32_t(hit.pos + hit.len)});
    pos = hit.pos + hit.len;
  }
}

SegmentIds Tokenizer::encode_segments(std::string_view a, std::optional<std::string_view> b,
                                      bool parse_special) const {
  const Impl& t = *impl_;
  if (!t.vocab.cls || !t.vocab.sep)
    fail("this vocabulary names no [CLS] and [SEP] tokens (cls_token_id, seperator_token_id)");
  SegmentIds s;
  std::vector<int32_t> part;
  s.ids.push_back(*t.vocab.cls);
  encode(a, parse_special, part);
  s.ids.insert(s.ids.end(), part.begin(), part.end());
  s.ids.push_back(*t.vocab.sep);
  s.types.assign(s.ids.size(), 0);
  if (b) {
    encode(*b, parse_special, part);
    s.ids.insert(s.ids.end(), part.begin(), part.end());
    s.ids.push_back(*t.vocab.sep);
    s.types.resize(s.ids.size(), 1);
  }
  return s;
}

std::string Tokenizer::decode(std::span<const int32_t> ids, bool skip_special) const {
  std::string out;
  decode(ids, skip_special, out);
  return out;
}

void Tokenizer::decode(std::span<const int32_t> ids, bool skip_special, std::string& out) const {
  const Impl& t = *impl_;
  out.clear();
  for (int32_t id : ids) {
    if (id < 0 || id >= size()) {
      throw Error("tokenizer: cannot decode id " + std::to_string(id) + ": outside [0, " +
                  std::to_string(size()) + ")");
    }
    if (skip_special && static_cast<TokenType>(t.vocab.types[id]) == TokenType::control) continue;
    out += t.bytes_of[id];
  }
  if (t.wordpiece && !out.empty() && out[0] == ' ') out.erase(0, 1);  // the first word's space
}

std::optional<int32_t> Tokenizer::find(std::string_view token) const {
  return impl_->tokens.find(token);
}

std::string_view Tokenizer::token(int32_t id) const {
  if (id < 0 || id >= size()) {
    throw Error("tokenizer: token id " + std::to_string(id) + " outside [0, " +
                std::to_string(size()) + ")");
  }
  return impl_->tokens[id];
}

TokenType Tokenizer::type(int32_t id) const {
  token(id);  // range check
  return static_cast<TokenType>(impl_->vocab.types[id]);
}

int32_t Tokenizer::size() const {
  return impl_->tokens.size();
}
bool Tokenizer::fold_case() const {
  return impl_->vocab.fold_case;
}
std::optional<int32_t> Tokenizer::bos_id() const {
  return impl_->vocab.bos;
}
std::optional<int32_t> Tokenizer::eos_id() const {
  return impl_->vocab.eos;
}
std::optional<int32_t> Tokenizer::pad_id() const {
  return impl_->vocab.pad;
}
std::optional<int32_t> Tokenizer::mask_id() const {
  return impl_->vocab.mask;
}
std::optional<int32_t> Tokenizer::unk_id() const {
  return impl_->vocab.unk;
}
std::optional<int32_t> Tokenizer::eot_id() const {
  return impl_->vocab.eot;
}
std::optional<int32_t> Tokenizer::cls_id() const {
  return impl_->vocab.cls;
}
std::optional<int32_t> Tokenizer::sep_id() const {
  return impl_->vocab.sep;
}
const std::string& Tokenizer::model() const {
  return impl_->vocab.model;
}
bool Tokenizer::add_bos() const {
  return impl_->vocab.add_bos;
}
const std::string& Tokenizer::pre() const {
  return impl_->vocab.pre;
}
const std::string& Tokenizer::chat_template() const {
  return impl_->vocab.chat_template;
}

}  // namespace meadow
