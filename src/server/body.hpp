// Reading a request body, whichever way it arrives: a Content-Length, chunked transfer
// encoding, and gzip or deflate content encoding, each under one limit on the bytes the server
// holds (the decoded, decompressed body) and on the bytes it reads off the wire. A limit
// passed is a 413 at the first byte past it, so a 64 MiB chunked body or a gzip bomb costs the
// server at most the limit and one 16 KiB buffer, whatever it declares.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace meadow::server {

// How the head frames the body; values as the headers give them ("" when absent).
struct BodyFraming {
  std::string content_length;
  std::string transfer_encoding;
  std::string content_encoding;
};

// Reads up to `size` bytes into `buf`: the count read, 0 at the end of the connection.
// It throws HttpError itself when the request's deadline passes (408).
using ReadFn = std::function<size_t(char* buf, size_t size)>;

// The body, decoded and decompressed. Throws HttpError: 413 past `max_body` decoded bytes (or
// 2 x max_body + 64 KiB read, framing included), 415 for an unknown content encoding, 400 for
// broken framing or compressed data, or a connection that ends inside the body. An HttpError
// from here leaves the connection at an unknown place: the caller closes it after answering.
std::string read_body(const ReadFn& read, const BodyFraming& framing, size_t max_body);

}  // namespace meadow::server
