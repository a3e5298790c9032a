// meadow::fetch::pull against the loopback server: success with a hash, resume after a cut,
// servers that ignore Range or answer 416, wrong hash, HTTP errors, refused connections, a
// body that is not a GGUF, an existing final file, unwritable targets, a failing disk, stalls.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <string>

#include "fetch_test_util.hpp"
#include "meadow/error.hpp"
#include "meadow/runtime/fetch.hpp"

namespace meadow::fetch {
namespace {

namespace fs = std::filesystem;
using fetch_test::gguf_fixture;
using fetch_test::not_gguf;
using fetch_test::other_gguf;
using fetch_test::read_bytes;
using fetch_test::Server;
using fetch_test::write_bytes;

class Pull : public fetch_test::PullTestDir {
 protected:
  PullRequest request(const Server& s, const std::string& path = "/model.gguf") const {
    PullRequest r;
    r.url = s.url(path);
    r.out_dir = dir_.string();
    r.connect_timeout_s = 5;
    r.stall_timeout_s = 20;
    return r;
  }
  // The message of the meadow::Error that pull throws ("" if none).
  static std::string pull_error(const PullRequest& r) {
    try {
      pull(r);
    } catch (const Error& e) {
      const std::string m = e.what();
      EXPECT_EQ(m.find('\n'), std::string::npos) << "one line: " << m;
      return m;
    }
    return "";
  }
  fs::path final_file() const { return dir_ / "model.gguf"; }
  fs::path part_file() const { return dir_ / "model.gguf.part"; }
};

#define EXPECT_HAS(text, part) \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << "got: " << (text)

TEST_F(Pull, DownloadsVerifiesAndRenames) {
  Server s(gguf_fixture());
  PullRequest req = request(s);
  req.sha256 = sha256_file(gguf_fixture());
  uint64_t last = 0, calls = 0;
  req.on_progress = [&](uint64_t bytes, uint64_t total) {
    EXPECT_GE(bytes, last);
    EXPECT_EQ(total, fs::file_size(gguf_fixture()));
    last = bytes;
    ++calls;
  };
  const PullResult r = pull(req);
  EXPECT_EQ(r.path, final_file().string());
  EXPECT_TRUE(r.verified);
  EXPECT_FALSE(r.already_present);
  EXPECT_EQ(r.sha256, req.sha256);
  EXPECT_EQ(r.arch, "llama");
  EXPECT_EQ(r.bytes, fs::file_size(gguf_fixture()));
  EXPECT_EQ(r.transferred, r.bytes);
  EXPECT_EQ(r.resumed_from, 0u);
  EXPECT_EQ(read_bytes(final_file()), read_bytes(gguf_fixture()));
  EXPECT_FALSE(fs::exists(part_file()));
  EXPECT_GE(calls, 1u);
  EXPECT_EQ(last, r.bytes);
  EXPECT_EQ(s.ranges(), std::vector<std::string>{""});  // one request, no Range
}

TEST_F(Pull, UpperCaseHashIsAccepted) {
  Server s(gguf_fixture());
  PullRequest req = request(s);
  std::string hex = sha256_file(gguf_fixture());
  for (auto& c : hex) c = char(std::toupper(static_cast<unsigned char>(c)));
  req.sha256 = hex;
  EXPECT_TRUE(pull(req).verified);
}

TEST_F(Pull, WithoutHashIsNotVerified) {
  Server s(gguf_fixture());
  const PullResult r = pull(request(s));
  EXPECT_FALSE(r.verified);
  EXPECT_EQ(r.sha256, sha256_file(gguf_fixture()));
  EXPECT_TRUE(fs::exists(final_file()));
}

TEST_F(Pull, FollowsRedirects) {
  Server s(gguf_fixture());
  const PullResult r = pull(request(s, "/redirect/model.gguf"));
  EXPECT_EQ(read_bytes(r.path), read_bytes(gguf_fixture()));
}

TEST_F(Pull, ResumesAfterACutConnection) {
  Server s(gguf_fixture(), {"--mode", "cut", "--cut-after", "100000", "--cut-times", "1"});
  PullRequest req = request(s);
  req.sha256 = sha256_file(gguf_fixture());
  const std::string err = pull_error(req);
  EXPECT_HAS(err, "kept " + part_file().string());
  EXPECT_HAS(err, "resume");
  EXPECT_FALSE(fs::exists(final_file()));
  ASSERT_TRUE(fs::exists(part_file()));
  EXPECT_EQ(fs::file_size(part_file()), 100000u);

  const PullResult r = pull(req);  // the server does not cut the second response
  EXPECT_EQ(r.resumed_from, 100000u);
  EXPECT_FALSE(r.restarted);
  EXPECT_EQ(r.transferred, fs::file_size(gguf_fixture()) - 100000u);
  EXPECT_TRUE(r.verified);
  EXPECT_EQ(read_bytes(final_file()), read_bytes(gguf_fixture()));
  EXPECT_FALSE(fs::exists(part_file()));
  EXPECT_EQ(s.ranges(), (std::vector<std::string>{"", "bytes=100000-"}));
  ASSERT_EQ(s.if_ranges().size(), 2u);
  EXPECT_EQ(s.if_ranges()[1].substr(0, 1), "\"") << "the resume names the file's ETag";
}

TEST_F(Pull, ServerIgnoringRangeRestartsFromZero) {
  int port = 0;
  {
    Server cut(gguf_fixture(), {"--mode", "cut", "--cut-after", "5000"});
    port = cut.port();
    EXPECT_HAS(pull_error(request(cut)), "resume");
  }
  // The same URL, now served by a server that ignores Range.
  Server s(gguf_fixture(), {"--mode", "norange", "--port", std::to_string(port)});
  PullRequest req = request(s);
  req.sha256 = sha256_file(gguf_fixture());
  const PullResult r = pull(req);
  EXPECT_TRUE(r.restarted);
  EXPECT_EQ(r.resumed_from, 5000u);
  EXPECT_TRUE(r.verified);
  EXPECT_EQ(read_bytes(final_file()), read_bytes(gguf_fixture()));
  EXPECT_EQ(s.ranges(), std::vector<std::string>{"bytes=5000-"});
}

// A .part that holds the whole file (say the rename never happened): the server answers the
// Range with 416 and the file's length, and the .part is installed as it is.
TEST_F(Pull, CompletePartAnswered416IsInstalled) {
  Server s(gguf_fixture(), {"--mode", "cut", "--cut-after", "100000"});
  PullRequest req = request(s);
  req.sha256 = sha256_file(gguf_fixture());
  EXPECT_HAS(pull_error(req), "resume");
  write_bytes(part_file(), read_bytes(gguf_fixture()));
  const PullResult r = pull(req);
  EXPECT_EQ(r.transferred, 0u);
  EXPECT_FALSE(r.restarted);
  EXPECT_TRUE(r.verified);
  EXPECT_EQ(read_bytes(final_file()), read_bytes(gguf_fixture()));
  EXPECT_FALSE(fs::exists(part_file()));
  EXPECT_EQ(s.ranges().back(), "bytes=" + std::to_string(fs::file_size(gguf_fixture())) + "-");
}

// Longer than the length its record names: not this file; fetched again from zero.
TEST_F(Pull, OverlongPartRestartsFromZero) {
  Server s(gguf_fixture(), {"--mode", "cut", "--cut-after", "100000"});
  EXPECT_HAS(pull_error(request(s)), "resume");
  write_bytes(part_file(), read_bytes(gguf_fixture()) + "trailing junk");
  const PullResult r = pull(request(s));
  EXPECT_TRUE(r.restarted);
  EXPECT_EQ(read_bytes(final_file()), read_bytes(gguf_fixture()));
  EXPECT_EQ(s.ranges(), (std::vector<std::string>{"", ""}));
}

// Issue 58.7: a cut download of URL A leaves model.gguf.part; pulling URL B to the same name
// must not continue A's bytes with B's (a file half of each that still loads).
TEST_F(Pull, PartOfAnotherUrlIsNotContinued) {
  Server a(gguf_fixture(), {"--mode", "cut", "--cut-after", "100000"});
  EXPECT_HAS(pull_error(request(a)), "resume");
  ASSERT_EQ(fs::file_size(part_file()), 100000u);
  Server b(other_gguf());
  const PullResult r = pull(request(b));
  EXPECT_TRUE(r.restarted);
  EXPECT_EQ(r.resumed_from, 100000u);
  EXPECT_EQ(read_bytes(final_file()), read_bytes(other_gguf()));
  EXPECT_EQ(b.ranges(), std::vector<std::string>{""});  // no Range: A's bytes were dropped
  EXPECT_FALSE(fs::exists(part_file()));
}

// The same URL, but the file changed on the server between the cut and the resume: the
// resume sends If-Range with the .part's ETag, the server answers 200 with the new file.
TEST_F(Pull, FileChangedOnTheServerIsFetchedAgain) {
  Server s(gguf_fixture(), {"--mode", "cut", "--cut-after", "100000", "--file2", other_gguf(),
                            "--switch-after", "1"});
  EXPECT_HAS(pull_error(request(s)), "resume");
  const PullResult r = pull(request(s));
  EXPECT_TRUE(r.restarted);
  EXPECT_EQ(read_bytes(final_file()), read_bytes(other_gguf()));
  EXPECT_EQ(s.ranges(), (std::vector<std::string>{"", "bytes=100000-"}));
  ASSERT_EQ(s.if_ranges().size(), 2u);
  EXPECT_EQ(s.if_ranges()[1].substr(0, 1), "\"") << "the first file's ETag";
}

// A server that ignores If-Range and sends the new file's bytes as a 206: its ETag gives it
// away, and the pull starts again from zero.
TEST_F(Pull, ServerIgnoringIfRangeIsCaughtByItsEtag) {
  Server s(gguf_fixture(), {"--mode", "cut", "--cut-after", "100000", "--file2", other_gguf(),
                            "--switch-after", "1", "--ignore-if-range"});
  EXPECT_HAS(pull_error(request(s)), "resume");
  const PullResult r = pull(request(s));
  EXPECT_TRUE(r.restarted);
  EXPECT_EQ(read_bytes(final_file()), read_bytes(other_gguf()));
  EXPECT_EQ(s.ranges(), (std::vector<std::string>{"", "bytes=100000-", ""}));
}

// Without an ETag or a Last-Modified nothing ties the .part to the file now on the server.
TEST_F(Pull, NoValidatorsMeansNoResume) {
  Server s(gguf_fixture(), {"--mode", "cut", "--cut-after", "100000", "--no-validators"});
  EXPECT_HAS(pull_error(request(s)), "resume");
  const PullResult r = pull(request(s));
  EXPECT_TRUE(r.restarted);
  EXPECT_EQ(read_bytes(final_file()), read_bytes(gguf_fixture()));
  EXPECT_EQ(s.ranges(), (std::vector<std::string>{"", ""}));
}

// A .part with no record beside it (an older meadow, or a stray file) is not trusted.
TEST_F(Pull, PartWithoutARecordIsNotContinued) {
  Server s(gguf_fixture());
  write_bytes(part_file(), read_bytes(gguf_fixture()).substr(0, 5000));
  const PullResult r = pull(request(s));
  EXPECT_TRUE(r.restarted);
  EXPECT_EQ(read_bytes(final_file()), read_bytes(gguf_fixture()));
  EXPECT_EQ(s.ranges(), std::vector<std::string>{""});
}

// Issue 58.10: a password in the URL appears in no message and in no file on disk.
TEST_F(Pull, PasswordInTheUrlIsNeverShown) {
  const std::string secret = "pw-Secr3t-42";
  const auto with_password = [&](const Server& s) {
    PullRequest req = request(s);
    req.url = "http://alice:" + secret + "@127.0.0.1:" + std::to_string(s.port()) + "/model.gguf";
    return req;
  };
  const auto expect_hidden = [&](const std::string& err) {
    EXPECT_FALSE(err.empty());
    EXPECT_EQ(err.find(secret), std::string::npos) << err;
  };
  {
    Server s(gguf_fixture(), {"--mode", "status", "--status", "404"});
    const std::string err = pull_error(with_password(s));
    expect_hidden(err);
    EXPECT_HAS(err, "alice:***@127.0.0.1");
  }
  {
    Server s(gguf_fixture(), {"--mode", "cut", "--cut-after", "100000"});
    PullRequest req = with_password(s);
    expect_hidden(pull_error(req));
    for (const auto& e : fs::directory_iterator(dir_))
      EXPECT_EQ(read_bytes(e.path()).find(secret), std::string::npos) << e.path();
    req.expected_size = 12345;  // "URL is N bytes, expected M"
    expect_hidden(pull_error(req));
  }
  PullRequest req;
  req.out_dir = dir_.string();
  req.connect_timeout_s = 5;
  req.url = "http://alice:" + secret + "@127.0.0.1:" + std::to_string(fetch_test::unused_port()) +
            "/model.gguf";
  expect_hidden(pull_error(req));  // connection refused
  req.url = "http://alice:" + secret + "@127.0.0.1:1/";
  expect_hidden(pull_error(req));  // names no file
  req.url = "ftp://alice:" + secret + "@127.0.0.1/model.gguf";
  expect_hidden(pull_error(req));  // unsupported scheme
  req.url = "http://alice:" + secret + "@127.0.0.1:99999999/model.gguf";
  expect_hidden(pull_error(req));  // malformed
}

TEST_F(Pull, WrongHashDeletesTheDownload) {
  Server s(gguf_fixture());
  PullRequest req = request(s);
  req.sha256 = std::string(64, '0');
  const std::string err = pull_error(req);
  EXPECT_HAS(err, "sha256 mismatch");
  EXPECT_HAS(err, sha256_file(gguf_fixture()));
  EXPECT_FALSE(fs::exists(final_file()));
  EXPECT_FALSE(fs::exists(part_file()));
}

TEST_F(Pull, AnnouncedSizeOtherThanExpectedStopsEarly) {
  Server s(gguf_fixture());
  PullRequest req = request(s);
  req.expected_size = 12345;
  const std::string err = pull_error(req);
  EXPECT_HAS(err, "expected 12345");
  EXPECT_HAS(err, std::to_string(fs::file_size(gguf_fixture())) + " bytes");
  EXPECT_FALSE(fs::exists(final_file()));
  EXPECT_FALSE(fs::exists(part_file()));
  req.expected_size = fs::file_size(gguf_fixture());  // the right size passes
  EXPECT_EQ(pull(req).bytes, req.expected_size);
}

TEST_F(Pull, HttpErrorsLeaveNothing) {
  for (const char* code : {"404", "500"}) {
    Server s(gguf_fixture(), {"--mode", "status", "--status", code});
    EXPECT_HAS(pull_error(request(s)), std::string("HTTP ") + code);
    EXPECT_FALSE(fs::exists(final_file()));
    EXPECT_FALSE(fs::exists(part_file()));
  }
}

TEST_F(Pull, RefusedConnectionLeavesNothing) {
  PullRequest req;
  req.url = "http://127.0.0.1:" + std::to_string(fetch_test::unused_port()) + "/model.gguf";
  req.out_dir = dir_.string();
  req.connect_timeout_s = 5;
  EXPECT_HAS(pull_error(req), "onnect");  // "Couldn't connect" / "Failed to connect"
  EXPECT_FALSE(fs::exists(final_file()));
  EXPECT_FALSE(fs::exists(part_file()));
}

TEST_F(Pull, BodyThatIsNotAGgufIsRemoved) {
  Server s(not_gguf());
  const std::string err = pull_error(request(s));
  EXPECT_HAS(err, "not a valid GGUF");
  EXPECT_FALSE(fs::exists(final_file()));
  EXPECT_FALSE(fs::exists(part_file()));
}

TEST_F(Pull, ExistingFinalFileIsNotOverwrittenWithoutForce) {
  Server s(gguf_fixture());
  fs::copy_file(other_gguf(), final_file());
  const std::string before = read_bytes(final_file());

  // No hash to compare with: the good file stays, nothing is fetched.
  const PullResult r = pull(request(s));
  EXPECT_TRUE(r.already_present);
  EXPECT_EQ(read_bytes(final_file()), before);
  EXPECT_TRUE(s.ranges().empty());

  // A hash the existing file does not have: an error naming --force, the file untouched.
  PullRequest req = request(s);
  req.sha256 = sha256_file(gguf_fixture());
  EXPECT_HAS(pull_error(req), "--force");
  EXPECT_EQ(read_bytes(final_file()), before);
  EXPECT_TRUE(s.ranges().empty());

  // --force replaces it.
  req.force = true;
  const PullResult forced = pull(req);
  EXPECT_FALSE(forced.already_present);
  EXPECT_TRUE(forced.verified);
  EXPECT_EQ(read_bytes(final_file()), read_bytes(gguf_fixture()));
}

TEST_F(Pull, ExistingFileWithTheKnownHashIsAccepted) {
  Server s(gguf_fixture());
  fs::copy_file(gguf_fixture(), final_file());
  PullRequest req = request(s);
  req.sha256 = sha256_file(gguf_fixture());
  const PullResult r = pull(req);
  EXPECT_TRUE(r.already_present);
  EXPECT_TRUE(r.verified);
  EXPECT_TRUE(s.ranges().empty());
}

TEST_F(Pull, ExistingBrokenFileNeedsForce) {
  Server s(gguf_fixture());
  write_bytes(final_file(), "not a model");
  EXPECT_HAS(pull_error(request(s)), "--force");
  EXPECT_EQ(read_bytes(final_file()), "not a model");
}

TEST_F(Pull, ForceDropsAnOldPart) {
  Server s(gguf_fixture());
  write_bytes(part_file(), std::string(3000, 'y'));
  PullRequest req = request(s);
  req.force = true;
  req.sha256 = sha256_file(gguf_fixture());
  const PullResult r = pull(req);
  EXPECT_EQ(r.resumed_from, 0u);
  EXPECT_EQ(s.ranges(), std::vector<std::string>{""});
  EXPECT_EQ(read_bytes(final_file()), read_bytes(gguf_fixture()));
}

TEST_F(Pull, OutputFolderUnderARegularFileFails) {
  Server s(gguf_fixture());
  write_bytes(dir_ / "plain", "x");
  PullRequest req = request(s);
  req.out_dir = (dir_ / "plain" / "models").string();
  EXPECT_HAS(pull_error(req), "cannot create");
  req.out_dir = (dir_ / "plain").string();
  EXPECT_HAS(pull_error(req), "not a folder");
  EXPECT_TRUE(s.ranges().empty());
}

TEST_F(Pull, ReadOnlyFolderFails) {
  Server s(gguf_fixture());
  const fs::path ro = dir_ / "ro";
  fs::create_directories(ro);
  ASSERT_EQ(::chmod(ro.c_str(), 0555), 0);
  if (::access(ro.c_str(), W_OK) == 0)
    GTEST_SKIP() << "running as root: mode 0555 does not stop writes here (the regular-file "
                    "parent test covers the unwritable target)";
  PullRequest req = request(s);
  req.out_dir = ro.string();
  EXPECT_HAS(pull_error(req), "not writable");
  EXPECT_FALSE(fs::exists(ro / "model.gguf"));
  EXPECT_TRUE(s.ranges().empty());
}

TEST_F(Pull, MissingOutputFolderIsCreated) {
  Server s(gguf_fixture());
  PullRequest req = request(s);
  req.out_dir = (dir_ / "a" / "b").string();
  EXPECT_TRUE(fs::exists(pull(req).path));
}

TEST_F(Pull, WriteFailureIsReportedAndThePartResumes) {
  Server s(gguf_fixture());
  PullRequest req = request(s);
  req.sha256 = sha256_file(gguf_fixture());
  uint64_t written = 0;
  req.write = [&](int fd, const void* p, size_t n) -> ssize_t {  // a disk that fills at 64 KiB
    const uint64_t room = 65536 - std::min<uint64_t>(written, 65536);
    if (room == 0) {
      errno = ENOSPC;
      return -1;
    }
    const ssize_t w = ::write(fd, p, std::min<uint64_t>(n, room));
    if (w > 0) written += uint64_t(w);
    return w;
  };
  const std::string err = pull_error(req);
  EXPECT_HAS(err, "No space left on device");
  EXPECT_HAS(err, part_file().string());
  EXPECT_FALSE(fs::exists(final_file()));
  ASSERT_TRUE(fs::exists(part_file()));
  EXPECT_EQ(fs::file_size(part_file()), 65536u);

  req.write = nullptr;  // space freed
  const PullResult r = pull(req);
  EXPECT_EQ(r.resumed_from, 65536u);
  EXPECT_TRUE(r.verified);
  EXPECT_EQ(read_bytes(final_file()), read_bytes(gguf_fixture()));
}

TEST_F(Pull, StalledTransferTimesOutAndKeepsThePart) {
  Server s(gguf_fixture(), {"--mode", "slow", "--cut-after", "50000", "--sleep", "5"});
  PullRequest req = request(s);
  req.stall_timeout_s = 1;
  const std::string err = pull_error(req);
  EXPECT_HAS(err, "resume");
  EXPECT_FALSE(fs::exists(final_file()));
  ASSERT_TRUE(fs::exists(part_file()));
  EXPECT_EQ(fs::file_size(part_file()), 50000u);
}

TEST_F(Pull, APartLockedByAnotherPullIsLeftAlone) {
  Server s(gguf_fixture());
  const int fd = ::open(part_file().c_str(), O_WRONLY | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX), 0);
  EXPECT_HAS(pull_error(request(s)), "another pull");
  ::close(fd);
  EXPECT_TRUE(s.ranges().empty());
}

TEST_F(Pull, TargetNameComesFromTheUrlOrTheRequest) {
  Server s(gguf_fixture());
  PullRequest req = request(s, "/dir/some%20model.gguf?download=true");
  EXPECT_EQ(fs::path(pull(req).path).filename(), "some model.gguf");
  req.file_name = "chosen.gguf";
  EXPECT_EQ(pull(req).path, (dir_ / "chosen.gguf").string());
  req.file_name = "../escape.gguf";
  EXPECT_HAS(pull_error(req), "..");
  EXPECT_FALSE(fs::exists(dir_.parent_path() / "escape.gguf"));
}

}  // namespace
}  // namespace meadow::fetch
