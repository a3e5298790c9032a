// Chat templates: family detection from template sources, and rendering checked against the
// reference Jinja engine (@lenml/tokenizers' apply_chat_template) on the families' templates.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "meadow/runtime/chat_template.hpp"
#include "meadow/runtime/tokenizer.hpp"
#include "qwen_reference.hpp"
#include "tiny_vocab.hpp"

namespace meadow {
namespace {

using nlohmann::json;

json templates() {
  std::ifstream in(std::string(MEADOW_SOURCE_DIR) + "/tests/tokenizer/chat_templates.json");
  return json::parse(in);
}

std::vector<std::vector<ChatMessage>> conversations() {
  return {
      {{"user", "Hi"}},
      {{"system", "Answer with one letter."},
       {"user", "Rule: go left.\nState: wall on the right."}},
      {{"user", "  padded content \n"}, {"assistant", "B"}, {"user", "again?"}},
      {{"system", ""}, {"user", "<think> literal"}},
      {{"user", "多言語 😀 café"}},
  };
}

TEST(ChatTemplate, DetectsFamiliesAndDefaultSystem) {
  json t = templates();
  ChatTemplate q = detect_chat_template(t["qwen2"].get<std::string>());
  EXPECT_EQ(q.family, ChatFamily::chatml);
  EXPECT_EQ(q.default_system, "You are a helpful assistant.");
  EXPECT_EQ(detect_chat_template(t["llama3"].get<std::string>()).family, ChatFamily::llama3);
  EXPECT_EQ(detect_chat_template("").family, ChatFamily::none);
  EXPECT_EQ(detect_chat_template("{{ messages }}").family, ChatFamily::none);
  // A system turn built from the conversation is not a default.
  ChatTemplate qwen3 = detect_chat_template(
      "{{- '<|im_start|>system\\n' + messages[0].content + '<|im_end|>\\n' }}");
  EXPECT_EQ(qwen3.family, ChatFamily::chatml);
  EXPECT_EQ(qwen3.default_system, "");
  EXPECT_STREQ(chat_family_name(ChatFamily::llama3), "llama3");
}

TEST(ChatTemplate, FallsBackToVocabularyMarkers) {
  Vocab v = test::byte_vocab("llama-bpe");
  v.bos = test::add_token(v, "<|begin_of_text|>", TokenType::control);
  test::add_token(v, "<|start_header_id|>", TokenType::control);
  auto tok = Tokenizer::from_vocab(v);
  ChatTemplate t = detect_chat_template(tok);
  EXPECT_EQ(t.family, ChatFamily::llama3);
  EXPECT_EQ(t.bos, "<|begin_of_text|>");
  EXPECT_EQ(tok.chat_template_name(), "llama3");
  EXPECT_EQ(Tokenizer::from_vocab(test::byte_vocab()).chat_template_name(), "none");
}

TEST(ChatTemplate, RenderMatchesReferenceJinja) {
  if (auto why = test::reference_missing()) GTEST_SKIP() << *why;
  json t = templates();
  const std::string bos = "<|begin_of_text|>";
  json cases = json::array();
  std::vector<std::string> ours;
  for (const char* name : {"qwen2", "llama3"}) {
    std::string src = t[name].get<std::string>();
    ChatTemplate tmpl = detect_chat_template(src);
    if (tmpl.family == ChatFamily::llama3) tmpl.bos = bos;
    for (const auto& conv : conversations()) {
      json msgs = json::array();
      for (const auto& m : conv) msgs.push_back({{"role", m.role}, {"content", m.content}});
      cases.push_back({{"template", src}, {"bos_token", bos}, {"messages", msgs}});
      ours.push_back(render_chat(tmpl, conv));
    }
  }
  std::string path =
      std::string(MEADOW_BINARY_DIR) + "/chat_cases_" + std::to_string(getpid()) + ".json";
  std::ofstream(path) << cases.dump();
  std::string cmd = "cd '" + test::js_dir() + "' && node reference_ids.mjs --chat '" + path + "'";
  FILE* pipe = popen(cmd.c_str(), "r");
  ASSERT_TRUE(pipe);
  std::string out;
  char buf[4096];
  for (size_t got; (got = fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, got);
  int status = pclose(pipe);
  std::filesystem::remove(path);
  ASSERT_EQ(status, 0) << cmd;
  auto want = json::parse(out).get<std::vector<std::string>>();
  ASSERT_EQ(want.size(), ours.size());
  for (size_t i = 0; i < ours.size(); ++i) EXPECT_EQ(ours[i], want[i]) << "case " << i;
}

TEST(ChatTemplate, PlainLayoutWithoutTemplate) {
  std::string p = render_chat(ChatTemplate{}, {{"user", "x"}});
  EXPECT_EQ(p, "user: x\nassistant: ");
  EXPECT_EQ(render_chat(ChatTemplate{}, {{"user", "x"}}, false), "user: x\n");
}

}  // namespace
}  // namespace meadow
