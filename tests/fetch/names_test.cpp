// URL parsing, target file names, hash text, and the built-in table of names.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "meadow/error.hpp"
#include "meadow/runtime/fetch.hpp"

namespace meadow::fetch {
namespace {

std::string parse_error(const std::string& url) {
  try {
    parse_url(url);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(FetchUrl, ParsesHttpAndHttps) {
  const Url u = parse_url("HTTPS://Example.org/a/b/model.gguf?x=1#f");
  EXPECT_EQ(u.scheme, "https");
  EXPECT_EQ(u.host, "Example.org");  // as written: hosts compare case-insensitively anyway
  EXPECT_EQ(u.path, "/a/b/model.gguf");
  EXPECT_EQ(file_name_from_url(u), "model.gguf");
  EXPECT_EQ(parse_url("http://127.0.0.1:8080/x.gguf").host, "127.0.0.1");
  EXPECT_EQ(file_name_from_url(parse_url("http://h/dir/")), "");
  EXPECT_EQ(file_name_from_url(parse_url("http://h")), "");
  EXPECT_EQ(file_name_from_url(parse_url("http://h/a%20b.gguf")), "a b.gguf");
}

TEST(FetchUrl, RejectsOtherSchemesAndMalformedUrls) {
  EXPECT_NE(parse_error("ftp://example.org/x.gguf").find("unsupported scheme 'ftp'"),
            std::string::npos);
  EXPECT_NE(parse_error("file:///tmp/x.gguf").find("unsupported scheme 'file'"), std::string::npos);
  for (const char* bad : {"https://", "not a url", "http://exa mple.org/x.gguf", "://x/y.gguf"})
    EXPECT_NE(parse_error(bad).find("malformed URL"), std::string::npos) << bad;
}

TEST(FetchUrl, FileNamesArePlainGgufNames) {
  EXPECT_NO_THROW(check_file_name("Qwen2.5-0.5B-Instruct-Q4_K_M.gguf"));
  for (const char* bad :
       {"", "a/b.gguf", "../x.gguf", "x..gguf", "model.bin", ".gguf", "x.gguf.part", "a\nb.gguf"})
    EXPECT_THROW(check_file_name(bad), Error) << bad;
  // The .part's record, NAME.part.json, must fit in 255 bytes too.
  EXPECT_NO_THROW(check_file_name(std::string(235, 'm') + ".gguf"));
  EXPECT_THROW(check_file_name(std::string(236, 'm') + ".gguf"), Error);
}

TEST(FetchUrl, HashesAre64HexDigits) {
  EXPECT_EQ(normalize_sha256(std::string(64, 'A')), std::string(64, 'a'));
  EXPECT_THROW(normalize_sha256(std::string(63, 'a')), Error);
  EXPECT_THROW(normalize_sha256(std::string(64, 'g')), Error);
}

TEST(FetchTable, EveryEntryIsWellFormed) {
  std::set<std::string> names, archs;
  ASSERT_FALSE(known_models().empty());
  for (const auto& m : known_models()) {
    SCOPED_TRACE(std::string(m.name));
    EXPECT_TRUE(names.insert(std::string(m.name)).second) << "duplicate name";
    EXPECT_EQ(find_known(m.name), &m);
    archs.insert(std::string(m.arch));
    const Url u = parse_url(std::string(m.url));
    EXPECT_EQ(u.scheme, "https");
    EXPECT_EQ(file_name_from_url(u), m.file);
    EXPECT_NO_THROW(check_file_name(std::string(m.file)));
    if (!m.sha256.empty()) {
      EXPECT_EQ(normalize_sha256(std::string(m.sha256)), m.sha256);
    }
    EXPECT_FALSE(m.size_text.empty());
  }
  EXPECT_EQ(archs, (std::set<std::string>{"dream", "llada", "qwen2", "llama"}));
  EXPECT_EQ(find_known("no-such-model"), nullptr);
}

}  // namespace
}  // namespace meadow::fetch
