// The server's front: where connections wait until a request has arrived, so that a slow or
// idle client costs a socket, never a thread.
//
// One thread watches every connection that has no complete request yet (new ones, and
// keep-alive ones between requests) with epoll, looking at what arrived without consuming it
// (server/head_scan.hpp). A connection goes to a worker thread only when its request head and
// body (or the first 16 KiB of a long body) are there; a request must arrive whole within
// `read_timeout` of its first byte (408 otherwise), an idle keep-alive connection is closed
// after `keep_alive`. Workers whose request body is still arriving (long bodies, "Expect:
// 100-continue") are at most a quarter of the workers; the others wait in the front. So 64
// clients that each send a header line every 3 s hold no worker, and /health answers at once.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "server/connection.hpp"

namespace meadow::server {

struct FrontOptions {
  int threads = 32;  // worker threads: requests being read, run or answered at once
  size_t max_body = 1 << 20;
  Clock::duration read_timeout = std::chrono::seconds(10);   // a request's first byte to its last
  Clock::duration keep_alive = std::chrono::seconds(5);      // idle between requests
  Clock::duration write_timeout = std::chrono::seconds(30);  // one write's wait for room
  int keep_alive_max = 100;                                  // requests per connection
  size_t max_connections = 1000;  // waiting in the front; beyond that new ones get 503
};

// Answers one request on the connection (the caller's HTTP parser and routes). `close_after`:
// say "Connection: close" and end it; `closed` is set when the client asked to close. Returns
// false when the connection must end (unreadable request, a write failed).
using ServeFn = std::function<bool(Connection& c, bool close_after, bool& closed)>;

class Front {
 public:
  Front(FrontOptions opts, ServeFn serve);
  ~Front();
  Front(const Front&) = delete;
  Front& operator=(const Front&) = delete;

  const FrontOptions& options() const { return opts_; }

  // A connection just accepted; never blocks. The front owns the socket from here.
  void admit(int fd);
  // Closes every connection (requests in flight are cut) and joins the threads. Idempotent.
  void stop();

 private:
  struct Waiting;  // a connection in the front, with its deadline
  struct Gate;     // the gate thread's state: the connections it watches
  void gate_loop();
  void worker_loop();
  void readmit(std::unique_ptr<Waiting> w);  // from a worker, after an answer
  void wake();

  const FrontOptions opts_;
  const ServeFn serve_;
  const size_t bulk_max_;
  int epoll_fd_ = -1;
  int wake_fd_ = -1;

  std::mutex mu_;
  std::condition_variable work_cv_;
  bool stopping_ = false;
  std::vector<std::unique_ptr<Waiting>> incoming_;  // for the gate thread to take
  std::deque<std::unique_ptr<Waiting>> ready_;      // for the workers
  std::set<Connection*> serving_;                   // with a worker now (stop() cuts them)
  size_t bulk_ = 0;                                 // bulk requests with a worker now

  std::thread gate_;
  std::vector<std::thread> workers_;
};

}  // namespace meadow::server
