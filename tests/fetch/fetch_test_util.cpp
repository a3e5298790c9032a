#include "fetch_test_util.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

extern char** environ;

namespace meadow::fetch_test {

namespace fs = std::filesystem;

namespace {

fs::path fixture_dir() {
  const fs::path d = fs::path(MEADOW_BINARY_DIR) / "fetch_fixtures";
  fs::create_directories(d);
  return d;
}

// ctest runs each test in its own process, several at once: write aside, then rename.
std::string make_fixture(const std::string& name, const std::string& extra) {
  const std::string out = (fixture_dir() / name).string();
  const std::string tmp = out + ".tmp" + std::to_string(::getpid());
  const std::string cmd = std::string(MEADOW_PYTHON) + " " + MEADOW_SOURCE_DIR +
                          "/tools/make_fixture.py --arch llama " + extra + " --out '" + tmp + "'";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  fs::rename(tmp, out);
  return out;
}

}  // namespace

const std::string& gguf_fixture() {
  static const std::string p = make_fixture("llama.gguf", "--seed 1");
  return p;
}

const std::string& other_gguf() {
  static const std::string p = make_fixture("llama_other.gguf", "--seed 2");
  return p;
}

const std::string& not_gguf() {
  static const std::string p = [] {
    const std::string out = (fixture_dir() / "noise.gguf").string();
    std::mt19937 rng(7);
    std::string bytes(200000, '\0');
    for (auto& c : bytes) c = char(rng() & 0xff);
    write_bytes(out + ".tmp" + std::to_string(::getpid()), bytes);
    fs::rename(out + ".tmp" + std::to_string(::getpid()), out);
    return out;
  }();
  return p;
}

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_bytes(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
}

int unused_port() {
  const int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  ::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(s);
  return ntohs(a.sin_port);
}

Server::Server(const std::string& file, const std::vector<std::string>& args) {
  static int counter = 0;
  log_ = (fixture_dir() /
          ("serve-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".log"))
             .string();
  fs::remove(log_);
  std::vector<std::string> argv = {
      MEADOW_PYTHON,   std::string(MEADOW_SOURCE_DIR) + "/tests/fetch/serve.py",
      "--file",        file,
      "--log",         log_,
      "--max-seconds", "60"};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);

  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&fa, fds[0]);
  const int rc = posix_spawn(&pid_, MEADOW_PYTHON, &fa, nullptr, cargv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    throw std::runtime_error("cannot start serve.py");
  }
  // The first line is the port; give the interpreter 20 s to get there.
  std::string line;
  pollfd p{fds[0], POLLIN, 0};
  while (line.find('\n') == std::string::npos && ::poll(&p, 1, 20000) > 0) {
    char buf[64];
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n <= 0) break;
    line.append(buf, size_t(n));
  }
  ::close(fds[0]);
  port_ = std::atoi(line.c_str());
  if (port_ <= 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
    throw std::runtime_error("serve.py did not report a port (got '" + line + "')");
  }
}

Server::~Server() {
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    ::waitpid(pid_, nullptr, 0);
  }
  std::error_code ec;
  fs::remove(log_, ec);
}

std::string Server::url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + path;
}

namespace {

std::vector<std::string> log_field(const std::string& log, const char* key) {
  std::vector<std::string> out;
  std::ifstream in(log);
  for (std::string line; std::getline(in, line);) {
    const auto j = nlohmann::json::parse(line);
    out.push_back(!j.contains(key) || j[key].is_null() ? "" : j[key].get<std::string>());
  }
  return out;
}

}  // namespace

std::vector<std::string> Server::ranges() const {
  return log_field(log_, "range");
}

std::vector<std::string> Server::if_ranges() const {
  return log_field(log_, "if_range");
}

void PullTestDir::SetUp() {
  for (const char* v :
       {"http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "all_proxy"})
    ::unsetenv(v);
  dir_ =
      fs::temp_directory_path() / ("meadow-pull-" + std::to_string(::getpid()) + "-" +
                                   ::testing::UnitTest::GetInstance()->current_test_info()->name());
  std::error_code ec;
  fs::remove_all(dir_, ec);
  fs::create_directories(dir_);
}

void PullTestDir::TearDown() {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir_, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
    fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
  fs::remove_all(dir_, ec);
}

}  // namespace meadow::fetch_test
