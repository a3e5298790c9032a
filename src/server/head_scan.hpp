// What the server's front (server/front.hpp) reads from the bytes a connection has sent so far,
// without consuming them: is the request head complete, how is its body framed, and has
// enough of the body arrived to hand the connection to a worker thread. A pure function of the
// bytes, so that a slow client is judged by the same rule in tests, the fuzzer and the server.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace meadow::server {

// The largest request head (request line and headers) the server reads.
inline constexpr size_t kMaxHeadBytes = 64 * 1024;
// A body this long (or the whole body, if shorter) must have arrived before a worker thread
// takes the request; a longer one is read by the worker, under the bulk share (front.hpp).
// Small enough that a socket's receive buffer always holds it.
inline constexpr size_t kReadyBodyBytes = 16 * 1024;

struct HeadScan {
  enum class State {
    incomplete,  // the head has not ended yet: wait for more bytes
    ready,       // head and body (or kReadyBodyBytes of it) are here: hand to a worker
    bulk,        // head here, the body is long or the client waits for "100 Continue"
    refuse,      // answer `status` with `message` and close
  };
  State state = State::incomplete;
  size_t head_bytes = 0;  // bytes up to and including the blank line, when known
  int status = 0;         // for refuse: 400, 413, 431, 501
  std::string message;    // for refuse: one line, printable
};

// Header names and tokens compare without regard to ASCII case (RFC 9110 5.1).
bool iequals(std::string_view a, std::string_view b);

// A chunk-size line of chunked transfer coding, without its CRLF: hex digits, then optionally
// ";extensions" (ignored). nullopt when malformed. The front and the body reader share it, so
// they agree on where a chunked body ends.
std::optional<uint64_t> parse_chunk_size(std::string_view line);

// `bytes`: what has arrived, from the request's first byte (at most kMaxHeadBytes +
// kReadyBodyBytes of it is looked at). `eof`: the client closed its sending side.
// `max_body`: the server's body limit (a declared Content-Length above it is refused at once).
HeadScan scan_head(std::string_view bytes, bool eof, size_t max_body);

}  // namespace meadow::server
