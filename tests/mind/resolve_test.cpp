// Model resolution order: MEADOW_MIND_MODEL → explicit path → cache dir → embedded default.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <sys/stat.h>

#include "meadow/error.hpp"
#include "meadow/mind.hpp"

namespace meadow {
namespace {

namespace fs = std::filesystem;

struct Dirs {
  fs::path root;
  Dirs() {
    root = fs::path(MEADOW_BINARY_DIR) / "mind_resolve" /
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(root);
    fs::create_directories(root);
  }
  fs::path touch(const fs::path& rel) const {
    const fs::path p = root / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << "x";
    return p;
  }
};

TEST(Resolve, EnvironmentVariableWinsOverEverything) {
  Dirs d;
  const auto env = d.touch("env.gguf");
  const auto exp = d.touch("explicit.gguf");
  d.touch("xdg/meadow-mind/models/default.gguf");
  ModelSearch s{env.string(), (d.root / "xdg").string(), std::nullopt, {}};
  EXPECT_EQ(resolve_model(exp.string(), s), env.string());
  s.env_model = (d.root / "missing.gguf").string();
  try {
    resolve_model(exp.string(), s);
    FAIL() << "a missing MEADOW_MIND_MODEL must not fall through";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("MEADOW_MIND_MODEL="), std::string::npos);
  }
}

TEST(Resolve, ExplicitPathThenNameInCache) {
  Dirs d;
  const auto exp = d.touch("explicit.gguf");
  const auto named = d.touch("xdg/meadow-mind/models/dream-7b.gguf");
  d.touch("xdg/meadow-mind/models/default.gguf");
  const ModelSearch s{std::nullopt, (d.root / "xdg").string(), std::nullopt, {}};
  EXPECT_EQ(resolve_model(exp.string(), s), exp.string());
  EXPECT_EQ(resolve_model("dream-7b", s), named.string());
  EXPECT_THROW(resolve_model((d.root / "nope.gguf").string(), s), Error);
}

std::string error_of(const std::string& model, const ModelSearch& s) {
  try {
    resolve_model(model, s);
  } catch (const Error& e) {
    return e.what();
  }
  return "(resolved)";
}

TEST(Resolve, KnownNamesResolveToTheirFilesOrSayHowToGetThem) {
  Dirs d;
  const auto nano = d.touch("embedded/meadow-nano.gguf");
  const ModelSearch s{
      std::nullopt, (d.root / "xdg").string(), std::nullopt, {(d.root / "embedded").string()}};
  EXPECT_EQ(resolve_model("nano", s), nano.string());
  const std::string absent = error_of("smollm2-135m", s);
  EXPECT_NE(absent.find("is not present"), std::string::npos) << absent;
  EXPECT_NE(absent.find("scripts/fetch_models.sh"), std::string::npos) << absent;
  const auto smol = d.touch("xdg/meadow-mind/models/smollm2-135m.gguf");
  EXPECT_EQ(resolve_model("smollm2-135m", s), smol.string());
  const std::string no_reader = error_of("reader", s);
  EXPECT_NE(no_reader.find("train/reader/make_reader.sh"), std::string::npos) << no_reader;
  const auto reader = d.touch("xdg/meadow-mind/models/meadow-reader.gguf");
  EXPECT_EQ(resolve_model("reader", s), reader.string());
  const auto listing = list_models(s);
  ASSERT_EQ(listing.size(), known_models().size());
  for (const auto& l : listing) EXPECT_TRUE(l.path.has_value()) << l.model.name;
}

TEST(Resolve, DirectoriesDevicesAndPipesAreNamedNotMissing) {
  Dirs d;
  const ModelSearch s{std::nullopt, std::nullopt, std::nullopt, {}};
  EXPECT_NE(error_of(d.root.string(), s).find("is a directory"), std::string::npos);
  EXPECT_NE(error_of("/dev/null", s).find("is a device"), std::string::npos);
  const fs::path fifo = d.root / "pipe.gguf";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_NE(error_of(fifo.string(), s).find("is a named pipe"), std::string::npos);
  ModelSearch env = s;
  env.env_model = d.root.string();
  EXPECT_NE(error_of("", env).find("is a directory"), std::string::npos);
}

TEST(Resolve, CacheDirXdgThenHome) {
  Dirs d;
  const auto home_nano = d.touch("home/.meadow-mind/models/meadow-nano.gguf");
  ModelSearch s{std::nullopt, std::nullopt, (d.root / "home").string(), {}};
  EXPECT_EQ(resolve_model("", s), home_nano.string());
  const auto home_default = d.touch("home/.meadow-mind/models/default.gguf");
  EXPECT_EQ(resolve_model("", s), home_default.string());  // default.gguf before meadow-nano
  const auto xdg = d.touch("xdg/meadow-mind/models/meadow-nano.gguf");
  s.xdg_cache = (d.root / "xdg").string();
  EXPECT_EQ(resolve_model("", s), xdg.string());  // XDG_CACHE_HOME replaces ~/.meadow-mind
}

TEST(Resolve, EmbeddedDefaultLast) {
  Dirs d;
  const auto second = d.touch("b/meadow-nano.gguf");
  ModelSearch s{std::nullopt,
                (d.root / "xdg").string(),
                std::nullopt,
                {(d.root / "a").string(), (d.root / "b").string()}};
  EXPECT_EQ(resolve_model("", s), second.string());
  const auto first = d.touch("a/meadow-nano.gguf");
  EXPECT_EQ(resolve_model("", s), first.string());
  const auto cached = d.touch("xdg/meadow-mind/models/default.gguf");
  EXPECT_EQ(resolve_model("", s), cached.string());  // the cache dir comes before it
}

TEST(Resolve, NothingFoundListsWhereItLooked) {
  Dirs d;
  const ModelSearch s{
      std::nullopt, (d.root / "xdg").string(), std::nullopt, {(d.root / "a").string()}};
  try {
    resolve_model("", s);
    FAIL();
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("no model found"), std::string::npos);
    EXPECT_NE(m.find((d.root / "a" / "meadow-nano.gguf").string()), std::string::npos);
    EXPECT_NE(m.find("default.gguf"), std::string::npos);
  }
}

TEST(Resolve, EnvironmentSearchIncludesTheSourceTreeModels) {
  const ModelSearch s = ModelSearch::from_environment();
  bool found = false;
  for (const auto& dir : s.embedded_dirs)
    found |= fs::path(dir) == fs::path(MEADOW_SOURCE_DIR) / "models";
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace meadow
