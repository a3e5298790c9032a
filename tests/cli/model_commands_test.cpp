// `meadow-mind model info`, `tokenize` and `logits` on a random fixture; bad input exits 2.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_run.hpp"

namespace {

using Result = meadow::cli_test::CliResult;

Result run(const std::string& args) {
  return meadow::cli_test::run_cli(args, "", "/dev/null");
}

const std::string& fixture() {
  static const std::string path = [] {
    const auto dir = std::filesystem::path(MEADOW_BINARY_DIR) / "cli_fixtures";
    std::filesystem::create_directories(dir);
    const std::string out = (dir / "dream_q8.gguf").string();
    const std::string cmd = std::string(MEADOW_PYTHON) + " " + MEADOW_SOURCE_DIR +
                            "/tools/make_fixture.py --arch dream --type Q8_0 --vocab 400 --out '" +
                            out + "'";
    EXPECT_EQ(std::system(cmd.c_str()), 0);
    return out;
  }();
  return path;
}

TEST(ModelCommands, InfoReportsArchitectureTypesAndTokenizer) {
  const Result r = run("model info --json " + fixture());
  ASSERT_EQ(r.code, 0);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["arch"], "dream");
  EXPECT_EQ(j["n_embd"], 64);
  EXPECT_EQ(j["n_vocab"], 400);
  EXPECT_EQ(j["shift_logits"], true);
  EXPECT_EQ(j["tensor_types"]["Q8_0"]["count"], 16);  // embd + 2 layers x 7 + output
  EXPECT_EQ(j["tokenizer"]["chat_template"], "chatml");
  EXPECT_EQ(j["tokenizer"]["mask"]["text"], "<|mask|>");
  EXPECT_EQ(run("model info " + fixture()).code, 0);  // human-readable form
}

TEST(ModelCommands, TokenizeThenLogitsOfTheSameText) {
  const Result t = run("tokenize --model " + fixture() + " 'push the cart left' --json");
  ASSERT_EQ(t.code, 0);
  const auto ids = nlohmann::json::parse(t.out)["ids"].get<std::vector<int>>();
  ASSERT_FALSE(ids.empty());
  std::string id_list;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i) id_list += ',';
    id_list += std::to_string(ids[i]);
  }

  const Result a = run("logits --model " + fixture() + " --text 'push the cart left' --json");
  const Result b = run("logits --model " + fixture() + " --ids " + id_list + " --json");
  ASSERT_EQ(a.code, 0);
  ASSERT_EQ(b.code, 0);
  const auto ja = nlohmann::json::parse(a.out), jb = nlohmann::json::parse(b.out);
  EXPECT_EQ(ja["logits"], jb["logits"]);
  EXPECT_EQ(ja["logits"].size(), ids.size());
  EXPECT_EQ(ja["logits"][0].size(), 400u);
}

TEST(ModelCommands, CachedPrefixEqualsUncachedSameMaskAndRowsSelect) {
  const std::string base = "logits --model " + fixture() + " --ids 5,6,7,8,9,10 --positions 4,5 ";
  const auto cached = nlohmann::json::parse(run(base + "--prefix 3 --json").out);
  const auto uncached = nlohmann::json::parse(run(base + "--prefix 3 --no-cache --json").out);
  const auto full = nlohmann::json::parse(run(base + "--json").out);
  const auto rows = nlohmann::json::parse(run(base + "--rows 7,3 --json").out);
  EXPECT_TRUE(cached["cached"].get<bool>());
  for (int r = 0; r < 2; ++r) {
    for (int v = 0; v < 400; ++v)
      EXPECT_NEAR(cached["logits"][r][v].get<double>(), uncached["logits"][r][v].get<double>(),
                  1e-4);
    EXPECT_EQ(rows["logits"][r][0], full["logits"][r][7]);
    EXPECT_EQ(rows["logits"][r][1], full["logits"][r][3]);
  }
}

// The fixture with its general.name (same length) replaced by `name`, written to `out`.
std::string with_name(const std::string& name, const std::string& out) {
  std::ifstream in(fixture(), std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string bytes = ss.str();
  const std::string old = "meadow random dream fixture";
  EXPECT_EQ(name.size(), old.size());
  const size_t at = bytes.find(old);
  EXPECT_NE(at, std::string::npos);
  bytes.replace(at, old.size(), name);
  std::ofstream(out, std::ios::binary) << bytes;
  return out;
}

// A model's name is arbitrary bytes: shown escaped (an ESC once reached the terminal), and
// invalid UTF-8 in --json is replaced (dump() threw, exit 2).
TEST(ModelCommands, InfoShowsControlBytesOfTheFileEscaped) {
  using namespace std::string_literals;
  const std::string path = with_name("meadow \x1b[2J\xff\x07 dream fixture"s,
                                     std::string(MEADOW_BINARY_DIR) + "/cli_fixtures/odd.gguf");
  const Result human = run("model info " + path);
  ASSERT_EQ(human.code, 0);
  EXPECT_NE(human.out.find("meadow \\x1b[2J\\xff\\x07 dream fixture"), std::string::npos)
      << human.out;
  EXPECT_EQ(human.out.find('\x1b'), std::string::npos);
  const Result j = run("model info --json " + path);
  ASSERT_EQ(j.code, 0);
  EXPECT_EQ(nlohmann::json::parse(j.out)["name"], "meadow \x1b[2J\xef\xbf\xbd\x07 dream fixture");
}

// A NUL inside file text no longer cuts the error message short.
TEST(ModelCommands, ErrorsShowFileTextEscapedPastANul) {
  using namespace std::string_literals;
  std::ifstream in(fixture(), std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string bytes = ss.str();
  const size_t at = bytes.find("dream");  // general.architecture's value comes first
  ASSERT_NE(at, std::string::npos);
  bytes.replace(at, 5, "dr\0\x1bm"s);
  const std::string path = std::string(MEADOW_BINARY_DIR) + "/cli_fixtures/nul_arch.gguf";
  std::ofstream(path, std::ios::binary) << bytes;
  const std::string err = std::string(MEADOW_BINARY_DIR) + "/cli_fixtures/nul_arch.err";
  const Result r = meadow::cli_test::run_cli("model info " + path, "", err);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("unsupported architecture 'dr\\x00\\x1bm' (expected dream"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos);
}

TEST(ModelCommands, BadInputExitsTwo) {
  EXPECT_EQ(run("model info /nonexistent/model.gguf").code, 2);
  EXPECT_EQ(run("logits --model " + fixture() + " --ids 1,x --json").code, 2);
  EXPECT_EQ(run("logits --model " + fixture() + " --ids 1,400 --json").code, 2);  // id >= vocab
  EXPECT_EQ(run("logits --model " + fixture() + " --ids 1,2 --positions 9 --json").code, 2);
  EXPECT_EQ(run("logits --model " + fixture() + " --json").code, 2);  // neither --text nor --ids
  EXPECT_EQ(run("logits --model " + fixture() + " --ids 1 --text a").code, 2);
  EXPECT_EQ(run("tokenize --model " + std::string(MEADOW_SOURCE_DIR) + "/README.md x").code, 2);
}

// An empty --model is a usage error, not a silent fall-back to the default model; a directory
// or device is named as such.
TEST(ModelCommands, EmptyDirectoryOrDeviceModelIsNamed) {
  const std::string err =
      (std::filesystem::temp_directory_path() / "meadow_model_err.txt").string();
  const std::string decide = " --rule r --option A=a --state s";
  auto r = meadow::cli_test::run_cli("decide --model ''" + decide, "", err);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("empty model path"), std::string::npos) << r.err;
  r = meadow::cli_test::run_cli("decide --model /tmp" + decide, "", err);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("is a directory"), std::string::npos) << r.err;
  r = meadow::cli_test::run_cli("tokenize --model /dev/null x", "", err);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("is a device"), std::string::npos) << r.err;
}

// `model list` names every known model with its place or how to get it.
TEST(ModelCommands, ModelListNamesKnownModels) {
  const auto r = run("model list --json");
  ASSERT_EQ(r.code, 0);
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.is_array());
  bool nano = false, smol = false;
  for (const auto& m : j) {
    nano |= m["name"] == "nano" && m["present"] == true;  // embedded: always in the build tree
    smol |= m["name"] == "smollm2-135m";
  }
  EXPECT_TRUE(nano && smol) << r.out;
}

// A known model's file that is not GGUF (random bytes in the cache dir) was listed as present
// without a word; now the listing says it cannot be read, and why.
TEST(ModelCommands, ModelListSaysAFileIsNotAReadableGguf) {
  const auto cache =
      std::filesystem::temp_directory_path() / ("meadow_list_" + std::to_string(::getpid()));
  const auto models = cache / "meadow-mind" / "models";
  std::filesystem::create_directories(models);
  std::ofstream(models / "smollm2-135m.gguf", std::ios::binary) << std::string(4096, '\x5a');
  const std::string prefix = "env -u MEADOW_MIND_MODEL XDG_CACHE_HOME=" + cache.string();
  const Result t = meadow::cli_test::run_cli("model list", prefix, "/dev/null");
  EXPECT_EQ(t.code, 0);
  EXPECT_NE(t.out.find((models / "smollm2-135m.gguf").string() +
                       "\n  unreadable: not a GGUF file: magic bytes are 5a 5a 5a 5a"),
            std::string::npos)
      << t.out;
  const Result j = meadow::cli_test::run_cli("model list --json", prefix, "/dev/null");
  ASSERT_EQ(j.code, 0);
  bool seen = false;
  for (const auto& m : nlohmann::json::parse(j.out)) {
    if (m["name"] == "smollm2-135m") {
      seen = true;
      EXPECT_EQ(m["present"], true);
      EXPECT_EQ(m["readable"], false);
      EXPECT_NE(m["problem"].get<std::string>().find("not a GGUF file"), std::string::npos) << m;
    }
    if (m["name"] == "nano") {  // the embedded model reads
      EXPECT_EQ(m["readable"], true) << m;
      EXPECT_TRUE(m["problem"].is_null()) << m;
    }
  }
  EXPECT_TRUE(seen) << j.out;
  std::filesystem::remove_all(cache);
}

}  // namespace
