// Front (server/front.hpp): one epoll thread for connections without a complete request, a
// fixed pool of workers for the rest.
#include "server/front.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <unordered_map>

#include "meadow/error.hpp"
#include "server/head_scan.hpp"
#include "server/json_errors.hpp"

namespace meadow::server {

struct Front::Waiting {
  std::unique_ptr<Connection> conn;
  Clock::time_point deadline;
  bool started = false;  // a byte of the next request has arrived (its read clock runs)
  bool eof = false;      // the client closed its sending side
  bool bulk = false;     // handed to a worker before its body arrived
  int served = 0;        // requests answered on this connection
  bool closing = false;  // answered for the last time: draining what the client still sends
  size_t drained = 0;
};

namespace {

// How long and how much a closing connection is read from before it is closed.
constexpr auto kLingerTime = std::chrono::seconds(2);
constexpr size_t kLingerBytes = 4 << 20;

int ms_until(Clock::time_point t) {
  const auto now = Clock::now();
  if (t <= now) return 0;
  return int(std::min<int64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(t - now).count() + 1, 60'000));
}

}  // namespace

Front::Front(FrontOptions opts, ServeFn serve)
    : opts_(opts), serve_(std::move(serve)), bulk_max_(size_t(std::max(1, opts.threads / 4))) {
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (epoll_fd_ < 0 || wake_fd_ < 0) {
    const int e = errno;
    if (epoll_fd_ >= 0) ::close(epoll_fd_);
    if (wake_fd_ >= 0) ::close(wake_fd_);
    throw Error(std::string("serve: cannot start the connection front: ") + std::strerror(e));
  }
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = wake_fd_;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &ev);
  gate_ = std::thread([this] { gate_loop(); });
  for (int i = 0; i < opts_.threads; ++i) workers_.emplace_back([this] { worker_loop(); });
}

Front::~Front() {
  stop();
  ::close(epoll_fd_);
  ::close(wake_fd_);
}

void Front::wake() {
  const uint64_t one = 1;
  (void)!::write(wake_fd_, &one, sizeof one);
}

void Front::admit(int fd) {
  const int yes = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
  auto w = std::make_unique<Waiting>();
  w->conn = std::make_unique<Connection>(fd, opts_.write_timeout);
  w->deadline = Clock::now() + opts_.read_timeout;
  {
    const std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;  // w closes the socket
    incoming_.push_back(std::move(w));
  }
  wake();
}

void Front::readmit(std::unique_ptr<Waiting> w) {
  w->started = w->eof = w->bulk = false;
  w->deadline = Clock::now() + opts_.keep_alive;
  {
    const std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    incoming_.push_back(std::move(w));
  }
  wake();
}

// The gate thread's connections and what it does with them. Only the gate thread touches it.
struct Front::Gate {
  Front& front;
  std::unordered_map<int, std::unique_ptr<Waiting>> conns;
  std::vector<int> want_bulk;  // ready but over the bulk share; looked at again when one ends
  std::string peeked = std::string(kMaxHeadBytes + kReadyBodyBytes, '\0');

  void drop(int fd) {
    ::epoll_ctl(front.epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
    want_bulk.erase(std::remove(want_bulk.begin(), want_bulk.end(), fd), want_bulk.end());
    conns.erase(fd);  // closes the socket
  }

  // Closing right after an answer while the client is still sending (a refused body) would
  // reset the connection, and a reset can discard the answer before the client reads it. So
  // the server says it is done (FIN), then reads and discards for a while before closing.
  void drain(int fd) {
    Waiting& w = *conns[fd];
    char sink[16 * 1024];
    for (;;) {
      const ssize_t n = ::recv(fd, sink, sizeof sink, MSG_DONTWAIT);
      if (n > 0 && (w.drained += size_t(n)) < kLingerBytes) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      if (n < 0 && errno == EINTR) continue;
      return drop(fd);  // the client closed too, or it sent more than we read for it
    }
  }

  void answer_and_close(int fd, int status, const std::string& message) {
    Waiting& w = *conns[fd];
    if (status == 0) return drop(fd);
    w.conn->try_write(error_response(status, message));
    ::shutdown(fd, SHUT_WR);
    w.closing = true;
    w.deadline = Clock::now() + kLingerTime;
    drain(fd);
  }

  void hand_over(int fd, bool bulk) {
    auto it = conns.find(fd);
    ::epoll_ctl(front.epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
    std::unique_ptr<Waiting> w = std::move(it->second);
    conns.erase(it);
    w->bulk = bulk;
    w->conn->set_read_deadline(w->started ? w->deadline : Clock::now() + front.opts_.read_timeout);
    const std::lock_guard<std::mutex> lock(front.mu_);
    if (bulk) ++front.bulk_;
    front.ready_.push_back(std::move(w));
    front.work_cv_.notify_one();
  }

  // A bulk request goes to a worker while the bulk share has room, else it waits its turn.
  void hand_over_bulk(int fd) {
    bool room = false;
    {
      const std::lock_guard<std::mutex> lock(front.mu_);
      room = front.bulk_ < front.bulk_max_;
    }
    if (room) return hand_over(fd, true);
    if (std::find(want_bulk.begin(), want_bulk.end(), fd) == want_bulk.end())
      want_bulk.push_back(fd);
  }

  // Looks at what the connection has sent, without taking it, and decides.
  void look(int fd) {
    auto it = conns.find(fd);
    if (it == conns.end()) return;
    Waiting& w = *it->second;
    if (w.closing) return drain(fd);
    std::string_view pending = w.conn->pending();
    std::string data(pending.substr(0, peeked.size()));
    const ssize_t got =
        ::recv(fd, peeked.data(), peeked.size() - data.size(), MSG_PEEK | MSG_DONTWAIT);
    if (got == 0 && peeked.size() > data.size()) w.eof = true;  // (0 asked for gives 0 too)
    if (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
      return drop(fd);  // reset by the client
    if (got > 0) data.append(peeked.data(), size_t(got));
    if (!data.empty() && !w.started) {
      w.started = true;
      w.deadline = Clock::now() + front.opts_.read_timeout;
    }
    const HeadScan s = scan_head(data, w.eof, front.opts_.max_body);
    switch (s.state) {
      case HeadScan::State::incomplete:
        return;
      case HeadScan::State::refuse:
        return answer_and_close(fd, s.status, s.message);
      case HeadScan::State::ready:
        return hand_over(fd, false);
      case HeadScan::State::bulk:
        return hand_over_bulk(fd);
    }
  }

  // Connections admitted since the last round join the watch (503 when there are too many).
  void take(std::vector<std::unique_ptr<Waiting>> arrived) {
    for (auto& w : arrived) {
      const int fd = w->conn->socket();
      if (conns.size() >= front.opts_.max_connections && !w->closing) {
        w->conn->try_write(error_response(503, "the server has too many open connections"));
        continue;
      }
      epoll_event ev{};
      ev.events = EPOLLIN | EPOLLRDHUP | EPOLLET;
      ev.data.fd = fd;
      if (::epoll_ctl(front.epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0) continue;  // w closes it
      conns[fd] = std::move(w);
      look(fd);  // a closing one drains
    }
  }

  // Waits for bytes, a hang-up, a wake-up or the nearest deadline, and looks at what came.
  void wait(std::vector<epoll_event>& events) {
    Clock::time_point next = Clock::now() + std::chrono::seconds(60);
    for (const auto& [fd, w] : conns) next = std::min(next, w->deadline);
    const int n = ::epoll_wait(front.epoll_fd_, events.data(), int(events.size()), ms_until(next));
    for (int i = 0; i < n; ++i) {
      const int fd = events[size_t(i)].data.fd;
      if (fd == front.wake_fd_) {
        uint64_t count = 0;
        (void)!::read(front.wake_fd_, &count, sizeof count);
        continue;
      }
      auto it = conns.find(fd);
      if (it == conns.end()) continue;
      if (events[size_t(i)].events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) it->second->eof = true;
      look(fd);
    }
  }

  // Deadlines: a request begun but not complete gets 408; an idle connection just closes.
  void expire() {
    const auto now = Clock::now();
    std::vector<std::pair<int, bool>> expired;
    for (const auto& [fd, w] : conns)
      if (w->deadline <= now) expired.emplace_back(fd, w->started && !w->closing);
    for (const auto& [fd, started] : expired) {
      if (started) {
        answer_and_close(fd, 408, "the request did not arrive within the server's read timeout");
        continue;
      }
      drop(fd);
    }
  }
};

void Front::gate_loop() {
  Gate gate{*this};
  std::vector<epoll_event> events(64);
  for (;;) {
    std::vector<std::unique_ptr<Waiting>> arrived;
    {
      const std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) break;
      arrived.swap(incoming_);
    }
    gate.take(std::move(arrived));
    // Bulk requests that waited for a share: the oldest first.
    std::vector<int> retry;
    retry.swap(gate.want_bulk);
    for (const int fd : retry) gate.look(fd);
    gate.wait(events);
    gate.expire();
  }
  for (auto& [fd, w] : gate.conns) ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
}

void Front::worker_loop() {
  for (;;) {
    std::unique_ptr<Waiting> w;
    {
      std::unique_lock<std::mutex> lock(mu_);
      work_cv_.wait(lock, [&] { return stopping_ || !ready_.empty(); });
      if (stopping_) return;
      w = std::move(ready_.front());
      ready_.pop_front();
      serving_.insert(w->conn.get());
    }
    bool keep = false;
    try {
      bool closed = false;
      const bool close_after = ++w->served >= opts_.keep_alive_max;
      keep = serve_(*w->conn, close_after, closed) && !closed && !close_after;
    } catch (...) {  // nothing may end a worker thread; the connection ends instead
      keep = false;
    }
    bool stopping = false;
    {
      const std::lock_guard<std::mutex> lock(mu_);
      serving_.erase(w->conn.get());
      if (w->bulk) --bulk_;
      stopping = stopping_;
    }
    if (w->bulk) wake();     // a bulk share came free
    if (stopping) continue;  // w closes its socket
    if (keep) {
      readmit(std::move(w));
    } else {
      // The last answer went out: the gate closes the connection once the client has read it.
      ::shutdown(w->conn->socket(), SHUT_WR);
      w->closing = true;
      w->drained = 0;
      w->deadline = Clock::now() + kLingerTime;
      const std::lock_guard<std::mutex> lock(mu_);
      if (!stopping_) incoming_.push_back(std::move(w));
      wake();
    }
  }
}

void Front::stop() {
  {
    const std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    for (Connection* c : serving_) c->cut();
  }
  wake();
  work_cv_.notify_all();
  if (gate_.joinable()) gate_.join();
  for (auto& t : workers_)
    if (t.joinable()) t.join();
  const std::lock_guard<std::mutex> lock(mu_);
  incoming_.clear();
  ready_.clear();
}

}  // namespace meadow::server
