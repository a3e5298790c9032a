// Tokenizer::from_gguf on GGUF files written with the project's writer: the tokenizer.* keys
// give the same tokenizer as the Vocab they were written from, and bad metadata is an Error.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "gguf_writer.hpp"
#include "meadow/error.hpp"
#include "meadow/runtime/gguf.hpp"
#include "meadow/runtime/tokenizer.hpp"
#include "tiny_vocab.hpp"

namespace meadow {
namespace {

using namespace gguf;

std::string temp_path(const std::string& name) {
  return std::string(MEADOW_BINARY_DIR) + "/tokenizer_test_" + std::to_string(getpid()) + "_" +
         name + ".gguf";
}

struct TempFile {
  std::string path;
  ~TempFile() { std::filesystem::remove(path); }
};

Vocab sample_vocab() {
  Vocab v = test::byte_vocab("qwen2");
  test::add_merge(v, "h", "i");
  test::add_merge(v, " ", "hi");
  v.eos = test::add_token(v, "<|im_end|>", TokenType::control);
  v.bos = test::add_token(v, "<|im_start|>", TokenType::control);
  v.mask = test::add_token(v, "<|mask|>", TokenType::control);
  test::add_token(v, "<think>", TokenType::user_defined);
  v.chat_template =
      "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}";
  return v;
}

// Writes the tokenizer keys of `v`; `skip` names a key to leave out.
Writer tokenizer_writer(const Vocab& v, std::string_view skip = "") {
  Writer w;
  auto add = [&](const std::string& key, Value val) {
    if (key != skip) w.add(key, std::move(val));
  };
  add("general.architecture", make_string("qwen2"));
  add("tokenizer.ggml.model", make_string(v.model));
  add("tokenizer.ggml.pre", make_string(v.pre));
  add("tokenizer.ggml.tokens", make_strings(v.tokens));
  add("tokenizer.ggml.merges", make_strings(v.merges));
  add("tokenizer.ggml.token_type", make_i32s(v.types));
  if (v.bos) add("tokenizer.ggml.bos_token_id", make_u32(*v.bos));
  if (v.eos) add("tokenizer.ggml.eos_token_id", make_u32(*v.eos));
  if (v.mask) add("tokenizer.ggml.mask_token_id", make_u32(*v.mask));
  add("tokenizer.ggml.add_bos_token", make_bool(false));
  add("tokenizer.chat_template", make_string(v.chat_template));
  return w;
}

std::string load_error(const Writer& w, const std::string& name) {
  TempFile f{temp_path(name)};
  w.write(f.path);
  File file = File::open(f.path);
  try {
    Tokenizer::from_gguf(file);
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_EQ(msg.rfind(f.path + ": ", 0), 0u) << "error should start with the file: " << msg;
    return msg;
  }
  ADD_FAILURE() << "expected meadow::Error for " << name;
  return {};
}

TEST(TokenizerGguf, SameTokenizerAsTheVocabItWasWrittenFrom) {
  Vocab v = sample_vocab();
  TempFile f{temp_path("sample")};
  tokenizer_writer(v).write(f.path);
  File file = File::open(f.path);
  Tokenizer from_file = Tokenizer::from_gguf(file);
  Tokenizer from_vocab = Tokenizer::from_vocab(v);
  EXPECT_EQ(from_file.size(), from_vocab.size());
  EXPECT_EQ(from_file.eos_id(), v.eos);
  EXPECT_EQ(from_file.bos_id(), v.bos);
  EXPECT_EQ(from_file.mask_id(), v.mask);
  EXPECT_FALSE(from_file.pad_id());
  EXPECT_EQ(from_file.pre(), "qwen2");
  EXPECT_EQ(from_file.chat_template_name(), "chatml");
  for (std::string s : {"hi hi", "<|im_start|>hi<|im_end|>", "<think>hi", "ちは hi\n\n", ""}) {
    EXPECT_EQ(from_file.encode(s), from_vocab.encode(s)) << s;
  }
  EXPECT_EQ(from_file.encode(" hi").size(), 1u);
}

TEST(TokenizerGguf, FoldCaseKeyTurnsTheFoldOn) {
  Vocab v = sample_vocab();
  Writer w = tokenizer_writer(v);
  w.add("meadow.tokenizer.fold_case", make_bool(true));
  TempFile f{temp_path("fold")};
  w.write(f.path);
  File file = File::open(f.path);
  Tokenizer tok = Tokenizer::from_gguf(file);
  EXPECT_TRUE(tok.fold_case());
  EXPECT_EQ(tok.encode(" Hi"), tok.encode(" hi"));
  EXPECT_EQ(tok.encode(" hi").size(), 1u);

  TempFile g{temp_path("nofold")};
  tokenizer_writer(v).write(g.path);
  File plain = File::open(g.path);
  EXPECT_FALSE(Tokenizer::from_gguf(plain).fold_case());
}

TEST(TokenizerGguf, BadMetadataIsAnErrorNamingFileAndProblem) {
  Vocab v = sample_vocab();
  EXPECT_NE(load_error(tokenizer_writer(v, "tokenizer.ggml.tokens"), "no_tokens")
                .find("tokenizer.ggml.tokens"),
            std::string::npos);
  EXPECT_NE(load_error(tokenizer_writer(v, "tokenizer.ggml.merges"), "no_merges")
                .find("tokenizer.ggml.merges"),
            std::string::npos);
  EXPECT_NE(load_error(tokenizer_writer(v, "tokenizer.ggml.model"), "no_model")
                .find("tokenizer.ggml.model"),
            std::string::npos);

  Vocab llama = v;
  llama.model = "llama";
  EXPECT_NE(load_error(tokenizer_writer(llama), "spm").find("unsupported tokenizer model 'llama'"),
            std::string::npos);

  Vocab bad_merge = v;
  bad_merge.merges.push_back("h nope");
  EXPECT_NE(load_error(tokenizer_writer(bad_merge), "merge").find("unknown token 'nope'"),
            std::string::npos);

  Vocab bad_eos = v;
  bad_eos.eos = 100000;
  EXPECT_NE(load_error(tokenizer_writer(bad_eos), "eos").find("eos token id 100000"),
            std::string::npos);

  Writer fold_text = tokenizer_writer(v);
  fold_text.add("meadow.tokenizer.fold_case", make_string("yes"));
  EXPECT_NE(load_error(fold_text, "fold_text").find("meadow.tokenizer.fold_case"),
            std::string::npos);

  Writer ints = tokenizer_writer(v, "tokenizer.ggml.tokens");
  ints.add("tokenizer.ggml.tokens", make_i32s({1, 2, 3}));
  EXPECT_NE(load_error(ints, "int_tokens").find("tokenizer.ggml.tokens"), std::string::npos);
}

}  // namespace
}  // namespace meadow
