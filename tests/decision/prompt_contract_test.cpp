// The prompt contract travels with a model: a GGUF's meadow.prompt.* keys are its layout and
// system message, the compiled-in models/prompt-contract.json stands in for keys it lacks, and
// a layout without its fields is refused with the key's name.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "../support/gguf_writer.hpp"
#include "meadow/error.hpp"
#include "meadow/runtime/prompt_contract.hpp"

namespace meadow {
namespace {

gguf::File file_with(const std::vector<std::pair<std::string, std::string>>& keys) {
  gguf::Writer w;
  w.add("general.architecture", gguf::make_string("dream"));
  for (const auto& [k, v] : keys) w.add(k, gguf::make_string(v));
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("prompt_contract_" + std::to_string(::getpid()) + ".gguf"))
                               .string();
  w.write(path);
  gguf::File f = gguf::File::open(path);
  std::filesystem::remove(path);
  return f;
}

TEST(PromptContract, AModelWithoutKeysGetsTheDefault) {
  const PromptContract c = prompt_contract(file_with({}));
  const PromptContract& d = default_prompt_contract();
  EXPECT_EQ(c.system, d.system);
  EXPECT_EQ(c.prefix, d.prefix);
  EXPECT_EQ(c.option, d.option);
  EXPECT_EQ(c.suffix, d.suffix);
}

TEST(PromptContract, AModelsKeysWinOneByOne) {
  const PromptContract c = prompt_contract(
      file_with({{kPromptSystemKey, ""}, {kPromptOptionKey, "({letter}) {text}\n"}}));
  EXPECT_EQ(c.system, "");
  EXPECT_EQ(c.option, "({letter}) {text}\n");
  EXPECT_EQ(c.prefix, default_prompt_contract().prefix);
}

TEST(PromptContract, ALayoutWithoutItsFieldsIsRefused) {
  for (const auto& [key, layout, says] :
       {std::tuple{kPromptPrefixKey, "Rule: {rule}", "has no {options}"},
        std::tuple{kPromptOptionKey, "{letter}", "has no {text}"},
        std::tuple{kPromptSuffixKey, "Now: {situation} {mood}", "names {mood}"}}) {
    try {
      prompt_contract(file_with({{key, layout}}));
      ADD_FAILURE() << key;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  }
}

// The shipped model carries the contract it was trained on, and it is models/prompt-contract.json
// (the trainers read that file; a model trained on another layout must say so in its GGUF).
TEST(PromptContract, TheShippedModelCarriesTheFile) {
  const gguf::File f =
      gguf::File::open(std::string(MEADOW_SOURCE_DIR) + "/models/meadow-nano.gguf");
  const PromptContract& d = default_prompt_contract();
  EXPECT_EQ(f.get_string(kPromptSystemKey), d.system);
  EXPECT_EQ(f.get_string(kPromptPrefixKey), d.prefix);
  EXPECT_EQ(f.get_string(kPromptOptionKey), d.option);
  EXPECT_EQ(f.get_string(kPromptSuffixKey), d.suffix);
}

}  // namespace
}  // namespace meadow
