#define PCRE2_CODE_UNIT_WIDTH 8
#include "tokenizer/pretokenizer.hpp"

#include <pcre2.h>
#include <unicode/uchar.h>

#include <string>
#include <vector>

#include "meadow/error.hpp"
#include "tokenizer/utf8.hpp"
#include "util/printable.hpp"
#include "util/spare_pool.hpp"

namespace meadow::tokenizer {
namespace {

// JavaScript's \s (WhiteSpace + LineTerminator). PCRE2's \s under UCP differs (it adds U+0085
// and lacks U+FEFF), and the reference tokenizer runs these patterns as JS regexes.
constexpr const char* kWs =
    "\\t\\n\\x{0B}\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}"
    "\\x{205F}\\x{3000}\\x{FEFF}";

// Oniguruma's \s under Unicode (what Hugging Face `tokenizers` compiles its patterns with):
// \t..\r, U+0085, and the Zs, Zl and Zp characters; no U+FEFF.
constexpr const char* kOnigWs =
    "\\t\\n\\x{0B}\\f\\r\\x{85} \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}"
    "\\x{205F}\\x{3000}";

std::string pattern(PreFamily f) {
  const char* wsset = f == PreFamily::smollm ? kOnigWs : kWs;
  const std::string ws = std::string("[") + wsset + "]";
  const std::string not_ws = std::string("[^") + wsset + "]";
  const std::string other = std::string("[^") + wsset + "\\p{L}\\p{N}]";  // [^\s\p{L}\p{N}]
  // (?i:'s|'t|'re|'ve|'m|'ll|'d) written out as ASCII case pairs, as the JS port does; PCRE2's
  // caseless matching would also accept U+017F for 's'.
  const std::string contractions = "'(?:[sS]|[tT]|[rR][eE]|[vV][eE]|[mM]|[lL][lL]|[dD])";
  switch (f) {
    case PreFamily::gpt2:
    case PreFamily::smollm:
      return "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?" + other + "+|" + ws + "+(?!" +
             not_ws + ")|" + ws + "+";
    case PreFamily::llama3:
    case PreFamily::qwen2: {
      const char* digits = f == PreFamily::llama3 ? "\\p{N}{1,3}" : "\\p{N}";
      return contractions + "|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|" + digits + "| ?" + other +
             "+[\\r\\n]*|" + ws + "*[\\r\\n]+|" + ws + "+(?!" + not_ws + ")|" + ws + "+";
    }
  }
  return {};
}

}  // namespace

PreFamily pre_family(std::string_view pre) {
  // Names as llama.cpp's converter writes them (llama-vocab.cpp); only the three regex
  // families below are implemented.
  for (auto n : {"qwen2", "deepseek-r1-qwen", "megrez"}) {
    if (pre == n) return PreFamily::qwen2;
  }
  for (auto n : {"llama3", "llama-v3", "llama-bpe", "falcon3", "pixtral", "smaug-bpe"}) {
    if (pre == n) return PreFamily::llama3;
  }
  for (auto n : {"", "default", "gpt2", "gpt-2", "phi-2"}) {
    if (pre == n) return PreFamily::gpt2;
  }
  if (pre == "smollm") return PreFamily::smollm;
  throw Error("unsupported pre-tokenizer " + util::quoted(pre) +
              " (supported: qwen2, llama-bpe/llama3, default/gpt2, smollm)");
}

// The compiled pattern and spare match data: a match data keeps PCRE2's frame memory between
// matches, so reusing one (a thread borrows it for a split) makes a warm split allocate nothing.
struct PreTokenizer::Regex {
  struct FreeCode {
    void operator()(pcre2_code* c) const { pcre2_code_free(c); }
  };
  struct FreeMatchData {
    void operator()(pcre2_match_data* md) const { pcre2_match_data_free(md); }
  };
  std::unique_ptr<pcre2_code, FreeCode> code;
  util::SparePool<pcre2_match_data, FreeMatchData> spare;  // freed before the code
};

PreTokenizer::PreTokenizer(PreFamily family)
    : re_(std::make_unique<Regex>()), digits_first_(family == PreFamily::smollm) {
  std::string pat = pattern(family);
  int err = 0;
  PCRE2_SIZE err_at = 0;
  re_->code.reset(pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pat.data()), pat.size(),
                                PCRE2_UTF | PCRE2_UCP, &err, &err_at, nullptr));
  if (!re_->code) {
    PCRE2_UCHAR msg[256];
    pcre2_get_error_message(err, msg, sizeof msg);
    throw Error("tokenizer: pre-tokenizer regex does not compile: " +
                std::string(reinterpret_cast<char*>(msg)));
  }
  // JIT is an optimisation only; the interpreter gives the same matches.
  pcre2_jit_compile(re_->code.get(), PCRE2_JIT_COMPLETE);
}

PreTokenizer::PreTokenizer(PreTokenizer&&) noexcept = default;
PreTokenizer& PreTokenizer::operator=(PreTokenizer&&) noexcept = default;
PreTokenizer::~PreTokenizer() = default;

void PreTokenizer::split(std::string_view text, std::pmr::vector<Piece>& out) const {
  if (!digits_first_) return split_pattern(text, 0, out);
  // Each \p{N} character alone, the pattern on the runs between them.
  size_t run = 0, i = 0;
  while (i < text.size()) {
    const size_t at = i;
    const auto cp = utf8_next(text, i);
    if (cp && (U_GET_GC_MASK(UChar32(*cp)) & U_GC_N_MASK)) {
      if (at > run) split_pattern(text.substr(run, at - run), run, out);
      out.push_back({at, i});
      run = i;
    }
  }
  if (text.size() > run) split_pattern(text.substr(run), run, out);
}

void PreTokenizer::split_pattern(std::string_view text, size_t base,
                                 std::pmr::vector<Piece>& out) const {
  const size_t first = out.size();
  using Pool = decltype(re_->spare);
  const Pool::Lease lease(re_->spare, [&] {
    Pool::Ptr made(pcre2_match_data_create_from_pattern(re_->code.get(), nullptr));
    if (!made) throw Error("tokenizer: out of memory for regex match data");
    return made;
  });
  pcre2_match_data* md = lease.get();

  auto subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  size_t pos = 0;
  while (pos < text.size()) {
    // The caller guarantees valid UTF-8, so the per-call UTF check is skipped.
    int rc =
        pcre2_match(re_->code.get(), subject, text.size(), pos, PCRE2_NO_UTF_CHECK, md, nullptr);
    if (rc == PCRE2_ERROR_NOMATCH) break;
    if (rc < 0) throw Error("tokenizer: regex match failed (code " + std::to_string(rc) + ")");
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md);
    size_t b = ov[0], e = ov[1];
    if (b > pos) out.push_back({pos, b});  // text the pattern skipped stays a piece ("Isolated")
    if (e == b) {
      // No pattern here can match empty; guard against a loop anyway by taking one character.
      size_t n = 1;
      while (b + n < text.size() && (static_cast<unsigned char>(text[b + n]) & 0xC0) == 0x80) ++n;
      out.push_back({b, b + n});
      pos = b + n;
      continue;
    }
    out.push_back({b, e});
    pos = e;
  }
  if (pos < text.size()) out.push_back({pos, text.size()});
  for (size_t k = first; k < out.size(); ++k) out[k].begin += base, out[k].end += base;
}

}  // namespace meadow::tokenizer
