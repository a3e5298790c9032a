// One client connection as httplib reads and writes it: a socket, the bytes read ahead of the
// request parser, and a deadline for the request being read. Unlike httplib's own stream, a
// read waits only until the request's deadline (a client that trickles one byte a second does
// not restart the clock), and a client that closed only its sending side (a half-close after a
// complete request) still gets its answer.
#pragma once

#include <httplib.h>

#include <chrono>
#include <string>

namespace meadow::server {

using Clock = std::chrono::steady_clock;

class Connection : public httplib::Stream {
 public:
  // Takes ownership of the socket; closes it when destroyed.
  Connection(int fd, Clock::duration write_timeout);
  ~Connection() override;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  bool is_readable() const override;
  bool is_writable() const override;
  // 1..size bytes; 0 at the end of the connection; -1 on an error or past the read deadline.
  ssize_t read(char* ptr, size_t size) override;
  ssize_t write(const char* ptr, size_t size) override;
  void get_remote_ip_and_port(std::string& ip, int& port) const override;
  void get_local_ip_and_port(std::string& ip, int& port) const override;
  int socket() const override { return fd_; }

  // Reads of the current request fail once this passes.
  void set_read_deadline(Clock::time_point t) {
    deadline_ = t;
    timed_out_ = false;
  }
  bool timed_out() const { return timed_out_; }
  // Bytes read from the socket that the parser has not taken yet (a pipelined next request).
  std::string_view pending() const { return {buf_.data() + pos_, buf_.size() - pos_}; }
  // Writes a whole response made elsewhere (a body that could not be read); best effort,
  // waiting for room as write() does.
  void write_all(std::string_view bytes);
  // The same without ever waiting (the front's one thread answers with it): what does not fit
  // in the socket's buffer now is dropped, and the connection is closed after it anyway.
  void try_write(std::string_view bytes);
  // Cuts the connection from another thread: blocked reads and writes return at once.
  void cut();

 private:
  const int fd_;
  const Clock::duration write_timeout_;
  Clock::time_point deadline_ = Clock::time_point::max();
  mutable bool timed_out_ = false;
  std::string buf_;  // read ahead; [pos_, size) not yet taken
  size_t pos_ = 0;
};

}  // namespace meadow::server
