// `meadow-mind pull` end to end: exit codes (0 ok, 2 bad input or failed download), the
// one-line messages, the summary line, resume across two runs, and `pull --list`.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "../cli/cli_run.hpp"
#include "fetch_test_util.hpp"
#include "meadow/runtime/fetch.hpp"

namespace meadow::fetch {
namespace {

namespace fs = std::filesystem;
using cli_test::CliResult;
using cli_test::quoted;
using fetch_test::gguf_fixture;
using fetch_test::not_gguf;
using fetch_test::other_gguf;
using fetch_test::read_bytes;
using fetch_test::Server;

class PullCli : public fetch_test::PullTestDir {
 protected:
  CliResult run(const std::vector<std::string>& args, const std::string& prefix = "") {
    std::vector<std::string> all = {"pull"};
    all.insert(all.end(), args.begin(), args.end());
    return cli_test::run_cli(quoted(all), prefix, path("stderr.txt"));
  }
  std::string out() const { return (dir_ / "models").string(); }
  fs::path final_file() const { return dir_ / "models" / "model.gguf"; }
};

#define EXPECT_HAS(text, part) \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << "got: " << (text)

// stderr: exactly one line.
void expect_one_line(const std::string& err) {
  ASSERT_FALSE(err.empty());
  EXPECT_EQ(err.find('\n'), err.size() - 1) << err;
}

TEST_F(PullCli, UrlWithHashVerifies) {
  Server s(gguf_fixture());
  const CliResult r = run({s.url(), "--out", out(), "--sha256", sha256_file(gguf_fixture())});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, final_file().string() + "\n");
  expect_one_line(r.err);  // no bar: stderr is not a terminal here
  EXPECT_HAS(r.err, "sha256 verified");
  EXPECT_HAS(r.err, "llama");
  EXPECT_EQ(read_bytes(final_file()), read_bytes(gguf_fixture()));
}

TEST_F(PullCli, UrlWithoutHashSaysNotVerified) {
  Server s(gguf_fixture());
  const CliResult r = run({s.url(), "--out", out(), "--name", "mine.gguf"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_HAS(r.err, "no known hash; not verified");
  EXPECT_TRUE(fs::exists(dir_ / "models" / "mine.gguf"));
}

TEST_F(PullCli, DefaultsToTheCacheDir) {
  Server s(gguf_fixture());
  const CliResult r = run({s.url()}, "env XDG_CACHE_HOME=" + cli_test::shell_quote(path("cache")));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir_ / "cache" / "meadow-mind" / "models" / "model.gguf"));
  const CliResult h =
      run({s.url()}, "env -u XDG_CACHE_HOME HOME=" + cli_test::shell_quote(path("home")));
  ASSERT_EQ(h.code, 0) << h.err;
  EXPECT_TRUE(fs::exists(dir_ / "home" / ".meadow-mind" / "models" / "model.gguf"));
}

TEST_F(PullCli, CutThenRerunResumes) {
  Server s(gguf_fixture(), {"--mode", "cut", "--cut-after", "200000"});
  const CliResult first = run({s.url(), "--out", out()});
  EXPECT_EQ(first.code, 2);
  expect_one_line(first.err);
  EXPECT_HAS(first.err, "resume");
  EXPECT_FALSE(fs::exists(final_file()));
  const CliResult second = run({s.url(), "--out", out()});
  ASSERT_EQ(second.code, 0) << second.err;
  EXPECT_HAS(second.err, "resumed at");
  EXPECT_EQ(s.ranges(), (std::vector<std::string>{"", "bytes=200000-"}));
  EXPECT_EQ(read_bytes(final_file()), read_bytes(gguf_fixture()));
}

// Issue 58.7 through the command: B's pull does not continue A's .part, and says it restarted.
TEST_F(PullCli, PartOfAnotherUrlRestarts) {
  Server a(gguf_fixture(), {"--mode", "cut", "--cut-after", "200000"});
  EXPECT_EQ(run({a.url(), "--out", out()}).code, 2);
  Server b(other_gguf());
  const CliResult r = run({b.url(), "--out", out()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_HAS(r.err, "restarted from zero");
  EXPECT_EQ(b.ranges(), std::vector<std::string>{""});
  EXPECT_EQ(read_bytes(final_file()), read_bytes(other_gguf()));
}

// Issue 58.10: a failed pull of a URL with a password names the URL without it.
TEST_F(PullCli, PasswordInTheUrlIsNotPrinted) {
  Server s(gguf_fixture(), {"--mode", "status", "--status", "404"});
  const std::string url =
      "http://alice:pw-Secr3t-42@127.0.0.1:" + std::to_string(s.port()) + "/model.gguf";
  const CliResult r = run({url, "--out", out()});
  EXPECT_EQ(r.code, 2);
  expect_one_line(r.err);
  EXPECT_HAS(r.err, "alice:***@127.0.0.1");
  EXPECT_EQ(r.err.find("pw-Secr3t-42"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("pw-Secr3t-42"), std::string::npos) << r.out;
}

// A pull that succeeds says so without the password too, and so does a URL too broken to parse.
TEST_F(PullCli, PasswordIsNotPrintedOnSuccessOrForAMalformedUrl) {
  Server s(gguf_fixture());
  const std::string url =
      "http://alice:pw-Secr3t-42@127.0.0.1:" + std::to_string(s.port()) + "/model.gguf";
  const CliResult ok = run({url, "--out", out()});
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_HAS(ok.err, "alice:***@127.0.0.1");
  EXPECT_EQ(ok.err.find("pw-Secr3t-42"), std::string::npos) << ok.err;
  EXPECT_EQ(ok.out.find("pw-Secr3t-42"), std::string::npos) << ok.out;
  const CliResult bad = run({"alice:pw-Secr3t-42@host/model.gguf", "--out", out()});
  EXPECT_EQ(bad.code, 2);
  expect_one_line(bad.err);
  EXPECT_EQ(bad.err.find("pw-Secr3t-42"), std::string::npos) << bad.err;
}

TEST_F(PullCli, WrongHashExits2AndLeavesNoFile) {
  Server s(gguf_fixture());
  const CliResult r = run({s.url(), "--out", out(), "--sha256", std::string(64, 'e')});
  EXPECT_EQ(r.code, 2);
  expect_one_line(r.err);
  EXPECT_HAS(r.err, "sha256 mismatch");
  EXPECT_FALSE(fs::exists(final_file()));
  EXPECT_FALSE(fs::exists(final_file().string() + ".part"));
}

TEST_F(PullCli, NotFoundExits2) {
  Server s(gguf_fixture(), {"--mode", "status", "--status", "404"});
  const CliResult r = run({s.url(), "--out", out()});
  EXPECT_EQ(r.code, 2);
  expect_one_line(r.err);
  EXPECT_HAS(r.err, "HTTP 404");
  EXPECT_FALSE(fs::exists(final_file()));
}

TEST_F(PullCli, RefusedConnectionExits2) {
  const std::string url =
      "http://127.0.0.1:" + std::to_string(fetch_test::unused_port()) + "/model.gguf";
  const CliResult r = run({url, "--out", out()});
  EXPECT_EQ(r.code, 2);
  expect_one_line(r.err);
  EXPECT_FALSE(fs::exists(final_file()));
}

TEST_F(PullCli, NotAGgufExits2AndIsRemoved) {
  Server s(not_gguf());
  const CliResult r = run({s.url(), "--out", out()});
  EXPECT_EQ(r.code, 2);
  expect_one_line(r.err);
  EXPECT_HAS(r.err, "not a valid GGUF");
  EXPECT_FALSE(fs::exists(final_file()));
  EXPECT_FALSE(fs::exists(final_file().string() + ".part"));
}

TEST_F(PullCli, ExistingFileKeptWithoutForce) {
  Server s(gguf_fixture());
  fs::create_directories(out());
  fs::copy_file(other_gguf(), final_file());
  const CliResult r = run({s.url(), "--out", out(), "--sha256", sha256_file(gguf_fixture())});
  EXPECT_EQ(r.code, 2);
  EXPECT_HAS(r.err, "--force");
  EXPECT_EQ(read_bytes(final_file()), read_bytes(other_gguf()));
  const CliResult same = run({s.url(), "--out", out()});
  EXPECT_EQ(same.code, 0) << same.err;
  EXPECT_HAS(same.err, "already present");
  EXPECT_EQ(read_bytes(final_file()), read_bytes(other_gguf()));
  const CliResult forced =
      run({s.url(), "--out", out(), "--sha256", sha256_file(gguf_fixture()), "--force"});
  EXPECT_EQ(forced.code, 0) << forced.err;
  EXPECT_EQ(read_bytes(final_file()), read_bytes(gguf_fixture()));
}

TEST_F(PullCli, UnwritableTargetExits2) {
  Server s(gguf_fixture());
  fetch_test::write_bytes(dir_ / "plain", "x");
  const CliResult r = run({s.url(), "--out", path("plain") + "/models"});
  EXPECT_EQ(r.code, 2);
  expect_one_line(r.err);
  EXPECT_HAS(r.err, "cannot create");
  EXPECT_TRUE(s.ranges().empty());
}

// Runs `pull URL --out DIR` inside a private mount namespace (gone with the process) after
// mounting a tmpfs with OPTIONS on DIR; returns the exit code and sets *listing to `ls DIR`
// there. -1: this machine cannot do that (no unshare or no mount permission).
int pull_on_tmpfs(const std::string& options, const std::string& url, const std::string& dir,
                  const std::string& stderr_path, std::string* listing) {
  const std::string mount =
      "mount -t tmpfs -o " + options + " tmpfs " + cli_test::shell_quote(dir) + " 2>/dev/null";
  const std::string probe =
      "unshare --mount sh -c " + cli_test::shell_quote(mount) + " >/dev/null 2>&1";
  if (std::system(probe.c_str()) != 0) return -1;
  const std::string pull = "env -u OPENBLAS_CORETYPE " + cli_test::shell_quote(MEADOW_CLI) +
                           " pull " + quoted({url, "--out", dir}) + " 2>" +
                           cli_test::shell_quote(stderr_path);
  const std::string script =
      mount + " && " + pull + "; code=$?; ls " + cli_test::shell_quote(dir) + "; exit $code";
  FILE* p = popen(("unshare --mount sh -c " + cli_test::shell_quote(script)).c_str(), "r");
  if (!p) return -1;
  char buf[256];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) listing->append(buf, n);
  const int status = pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// A real full disk: a 128 KiB tmpfs (the library test injects the failure instead).
TEST_F(PullCli, FullDiskExits2AndKeepsThePart) {
  fs::create_directories(out());
  Server s(gguf_fixture());
  std::string listing;
  const int code = pull_on_tmpfs("size=128k", s.url(), out(), path("stderr.txt"), &listing);
  if (code == -1) GTEST_SKIP() << "cannot mount a tmpfs in a private mount namespace here";
  EXPECT_EQ(code, 2);
  const std::string err = read_bytes(path("stderr.txt"));
  expect_one_line(err);
  EXPECT_HAS(err, "No space left on device");
  // On the tmpfs: only the .part and its record, for a resume.
  EXPECT_EQ(listing, "model.gguf.part\nmodel.gguf.part.json\n");
  EXPECT_FALSE(fs::exists(final_file()));  // and nothing outside it
}

// A folder even root cannot write into: a read-only mount (chmod 0555 does not stop root).
TEST_F(PullCli, ReadOnlyMountExits2) {
  fs::create_directories(out());
  Server s(gguf_fixture());
  std::string listing;
  const int code = pull_on_tmpfs("ro", s.url(), out(), path("stderr.txt"), &listing);
  if (code == -1) GTEST_SKIP() << "cannot mount a tmpfs in a private mount namespace here";
  EXPECT_EQ(code, 2);
  const std::string err = read_bytes(path("stderr.txt"));
  expect_one_line(err);
  EXPECT_HAS(err, "not writable");
  EXPECT_EQ(listing, "");
  EXPECT_TRUE(s.ranges().empty());  // refused before any request
}

TEST_F(PullCli, BadInputExits2) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"no-such-model", "--out", out()}, "unknown model 'no-such-model'"},
      {{"ftp://example.org/x.gguf", "--out", out()}, "unsupported scheme 'ftp'"},
      {{"https://", "--out", out()}, "malformed URL"},
      {{"example.org/x.gguf", "--out", out()}, "malformed URL"},
      {{"http://127.0.0.1:9/x.gguf", "--out", out(), "--sha256", "abc"}, "64 hex digits"},
      {{"http://127.0.0.1:9/x.bin", "--out", out()}, "must end with .gguf"},
      {{"http://127.0.0.1:9/x.gguf", "--out", out(), "--name", "../x.gguf"}, ".."},
      {{"http://127.0.0.1:9/x.gguf", "--out", out(), "--name", "a/x.gguf"}, "'/'"},
      {{"http://127.0.0.1:9/", "--out", out()}, "names no file"},
      {{"qwen2.5-0.5b", "--out", out(), "--sha256", std::string(64, 'a')}, "--sha256 is for a URL"},
      {{}, "needs a model NAME or a URL"},
  };
  for (const auto& c : cases) {
    const CliResult r = run(c.args);
    EXPECT_EQ(r.code, 2) << c.message;
    expect_one_line(r.err);
    EXPECT_HAS(r.err, c.message);
  }
  EXPECT_FALSE(fs::exists(out()));
}

// A named model is saved as NAME.gguf (so `--model NAME` finds it in the cache dir) and
// checked against the table's hash: a copy there that does not match is kept and named.
TEST_F(PullCli, NamedModelTargetsNameDotGguf) {
  fs::create_directories(out());
  fs::copy_file(gguf_fixture(), dir_ / "models" / "smollm2-135m-q8.gguf");
  const CliResult r = run({"smollm2-135m-q8", "--out", out()});
  EXPECT_EQ(r.code, 2);
  expect_one_line(r.err);
  EXPECT_HAS(r.err, "smollm2-135m-q8.gguf exists but its sha256 is");
  EXPECT_HAS(r.err, std::string(find_known("smollm2-135m-q8")->sha256));
  EXPECT_EQ(read_bytes(dir_ / "models" / "smollm2-135m-q8.gguf"), read_bytes(gguf_fixture()));
}

TEST_F(PullCli, ListPrintsTheTable) {
  const CliResult r = run({"--list"});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const auto& m : known_models()) EXPECT_HAS(r.out, std::string(m.name));
  const CliResult j = run({"--list", "--json"});
  ASSERT_EQ(j.code, 0) << j.err;
  const auto table = nlohmann::json::parse(j.out);
  ASSERT_EQ(table.size(), known_models().size());
  for (size_t i = 0; i < table.size(); ++i) {
    EXPECT_EQ(table[i]["name"], std::string(known_models()[i].name));
    EXPECT_EQ(table[i]["url"], std::string(known_models()[i].url));
  }
}

}  // namespace
}  // namespace meadow::fetch
