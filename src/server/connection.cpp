// Connection (server/connection.hpp): reads under the request's deadline, writes under a
// per-write timeout.
#include "server/connection.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace meadow::server {
namespace {

constexpr size_t kReadAhead = 16 * 1024;

// Milliseconds until `t` for poll(), at least 0, at most a day.
int ms_until(Clock::time_point t) {
  const auto now = Clock::now();
  if (t <= now) return 0;
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t - now).count() + 1;
  return int(std::min<int64_t>(ms, 86'400'000));
}

void address_of(const sockaddr_storage& ss, std::string& ip, int& port) {
  char text[INET6_ADDRSTRLEN] = {};
  if (ss.ss_family == AF_INET) {
    const auto& a = reinterpret_cast<const sockaddr_in&>(ss);
    ::inet_ntop(AF_INET, &a.sin_addr, text, sizeof text);
    port = ntohs(a.sin_port);
  } else if (ss.ss_family == AF_INET6) {
    const auto& a = reinterpret_cast<const sockaddr_in6&>(ss);
    ::inet_ntop(AF_INET6, &a.sin6_addr, text, sizeof text);
    port = ntohs(a.sin6_port);
  }
  ip = text;
}

}  // namespace

Connection::Connection(int fd, Clock::duration write_timeout)
    : fd_(fd), write_timeout_(write_timeout) {}

Connection::~Connection() {
  ::shutdown(fd_, SHUT_RDWR);
  ::close(fd_);
}

bool Connection::is_readable() const {
  if (pos_ < buf_.size()) return true;
  pollfd p{fd_, POLLIN, 0};
  return ::poll(&p, 1, 0) > 0;
}

// Writable unless the peer reset the connection or the socket failed. A read side at its end
// (the client half-closed after sending the request) does not count: it still reads answers.
bool Connection::is_writable() const {
  pollfd p{fd_, POLLOUT, 0};
  const int n = ::poll(&p, 1, ms_until(Clock::now() + write_timeout_));
  return n > 0 && (p.revents & (POLLERR | POLLHUP | POLLNVAL)) == 0 && (p.revents & POLLOUT);
}

ssize_t Connection::read(char* ptr, size_t size) {
  if (pos_ == buf_.size()) {
    buf_.clear();
    pos_ = 0;
    for (;;) {
      pollfd p{fd_, POLLIN, 0};
      const int n = ::poll(&p, 1, ms_until(deadline_));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return -1;
      if (n == 0) {
        timed_out_ = true;
        return -1;
      }
      buf_.resize(kReadAhead);
      const ssize_t got = ::recv(fd_, buf_.data(), buf_.size(), MSG_DONTWAIT);
      if (got < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) {
        buf_.clear();
        continue;
      }
      if (got <= 0) {
        buf_.clear();
        return got < 0 ? -1 : 0;
      }
      buf_.resize(size_t(got));
      break;
    }
  }
  const size_t k = std::min(size, buf_.size() - pos_);
  std::memcpy(ptr, buf_.data() + pos_, k);
  pos_ += k;
  return ssize_t(k);
}

ssize_t Connection::write(const char* ptr, size_t size) {
  const auto deadline = Clock::now() + write_timeout_;
  for (;;) {
    const ssize_t n = ::send(fd_, ptr, size, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n >= 0) return n;
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return -1;
    pollfd p{fd_, POLLOUT, 0};
    const int r = ::poll(&p, 1, ms_until(deadline));
    if (r == 0 || (r < 0 && errno != EINTR)) return -1;
    if (r > 0 && (p.revents & (POLLERR | POLLHUP | POLLNVAL))) return -1;
  }
}

void Connection::write_all(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = write(bytes.data(), bytes.size());
    if (n <= 0) return;
    bytes.remove_prefix(size_t(n));
  }
}

void Connection::try_write(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    bytes.remove_prefix(size_t(n));
  }
}

void Connection::get_remote_ip_and_port(std::string& ip, int& port) const {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  port = 0;
  ip.clear();
  if (::getpeername(fd_, reinterpret_cast<sockaddr*>(&ss), &len) == 0) address_of(ss, ip, port);
}

void Connection::get_local_ip_and_port(std::string& ip, int& port) const {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  port = 0;
  ip.clear();
  if (::getsockname(fd_, reinterpret_cast<sockaddr*>(&ss), &len) == 0) address_of(ss, ip, port);
}

void Connection::cut() {
  ::shutdown(fd_, SHUT_RDWR);
}

}  // namespace meadow::server
