// Shared by the pull tests: the loopback server (tests/fetch/serve.py, started and stopped by
// each test), fixture files, and a fresh folder per test.
#pragma once

#include <gtest/gtest.h>
#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

namespace meadow::fetch_test {

// `serve.py --file FILE ARGS…` on 127.0.0.1 (ephemeral port); stopped by the destructor
// (SIGTERM, then waited for). The server also stops by itself after 60 s.
class Server {
 public:
  Server(const std::string& file, const std::vector<std::string>& args = {});
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  int port() const { return port_; }
  std::string url(const std::string& path = "/model.gguf") const;
  // The Range header of each request so far ("" for none), in order.
  std::vector<std::string> ranges() const;
  // The If-Range header of each request so far ("" for none), in order.
  std::vector<std::string> if_ranges() const;

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  std::string log_;
};

// A ~570 KB random-weight llama GGUF (tools/make_fixture.py), made once per test binary;
// other_gguf() is a second one with another seed; not_gguf() is random bytes of similar size.
const std::string& gguf_fixture();
const std::string& other_gguf();
const std::string& not_gguf();

std::string read_bytes(const std::filesystem::path& p);
void write_bytes(const std::filesystem::path& p, const std::string& bytes);
// A TCP port on 127.0.0.1 that nothing listens on (bound, then closed).
int unused_port();

// A fresh folder per test (removed afterwards, made writable again first); proxies unset so
// that curl talks to the loopback server directly.
class PullTestDir : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  std::filesystem::path dir_;
};

}  // namespace meadow::fetch_test
