// read_body (server/body.hpp): framing, then decompression, each bounded.
#include "server/body.hpp"

#include <zlib.h>

#include <algorithm>
#include <memory>
#include <string_view>

#include "server/head_scan.hpp"
#include "server/json_errors.hpp"

namespace meadow::server {
namespace {

constexpr size_t kBuf = 16 * 1024;

std::string lower_trimmed(std::string s) {
  const size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  s = a == std::string::npos ? "" : s.substr(a, b - a + 1);
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
  return s;
}

[[noreturn]] void too_large(size_t max_body) {
  throw HttpError(413,
                  "the request body is larger than the server's limit of " +
                      std::to_string(max_body) + " bytes",
                  "payload_too_large");
}

[[noreturn]] void bad(const std::string& why) {
  throw HttpError(400, "unreadable request body: " + why, "invalid_body");
}

// Bytes off the wire, counted against the wire limit. Never reads past what the framing asks
// for: the bytes after the body belong to the connection's next request. The connection's
// stream buffers, so the byte-at-a-time lines cost no system call each.
class Wire {
 public:
  Wire(const ReadFn& read, size_t limit, size_t max_body)
      : read_(read), limit_(limit), max_body_(max_body) {}

  // Up to `n` bytes (at least 1); throws at the end of the connection.
  std::string_view some(size_t n) { return {buf_, get(buf_, std::min(n, sizeof buf_))}; }
  // One line ending in CRLF, without it; at most 1 KiB.
  std::string line() {
    std::string out;
    for (;;) {
      char c = 0;
      get(&c, 1);
      if (c == '\n') {
        if (out.empty() || out.back() != '\r') bad("a chunk line does not end in CRLF");
        out.pop_back();
        return out;
      }
      out.push_back(c);
      if (out.size() > 1024) bad("a chunk line is longer than 1 KiB");
    }
  }

 private:
  size_t get(char* p, size_t n) {
    if (total_ >= limit_) too_large(max_body_);
    const size_t got = read_(p, std::min(n, limit_ - total_));
    if (got == 0) bad("the connection ended inside the body");
    total_ += got;
    return got;
  }

  const ReadFn& read_;
  const size_t limit_, max_body_;
  size_t total_ = 0;
  char buf_[kBuf];
};

// Where decoded bytes go: the body, through inflate when the content is compressed.
class Sink {
 public:
  Sink(const std::string& encoding, size_t max_body) : max_body_(max_body) {
    if (encoding.empty() || encoding == "identity") return;
    if (encoding != "gzip" && encoding != "x-gzip" && encoding != "deflate")
      throw HttpError(415, "Content-Encoding '" + encoding + "' is not supported (gzip, deflate)",
                      "unsupported_encoding");
    z_ = std::make_unique<z_stream>();
    // 15 + 32: a zlib or a gzip header, found by the magic bytes (HTTP's "deflate" is zlib's).
    if (inflateInit2(z_.get(), 15 + 32) != Z_OK) {
      z_.reset();
      throw HttpError(500, "cannot start decompression", "internal_error");
    }
  }
  ~Sink() {
    if (z_) inflateEnd(z_.get());
  }
  Sink(const Sink&) = delete;
  Sink& operator=(const Sink&) = delete;

  void add(std::string_view in) {
    if (!z_) return append(in.data(), in.size());
    if (ended_) {
      if (!in.empty()) bad("bytes after the end of the compressed data");
      return;
    }
    z_->next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    z_->avail_in = uInt(in.size());
    char out[kBuf];
    do {
      z_->next_out = reinterpret_cast<Bytef*>(out);
      z_->avail_out = sizeof out;
      const int rc = inflate(z_.get(), Z_NO_FLUSH);
      if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR)
        bad(std::string("compressed data: ") + (z_->msg ? z_->msg : "corrupt"));
      append(out, sizeof out - z_->avail_out);
      if (rc == Z_STREAM_END) {
        ended_ = true;
        if (z_->avail_in > 0) bad("bytes after the end of the compressed data");
        return;
      }
      if (rc == Z_BUF_ERROR && z_->avail_in == 0) return;
    } while (z_->avail_in > 0 || z_->avail_out == 0);
  }

  std::string finish() {
    if (z_ && !ended_) bad("the compressed data ends early");
    return std::move(body_);
  }

 private:
  void append(const char* p, size_t n) {
    if (n > max_body_ - body_.size()) too_large(max_body_);
    body_.append(p, n);
  }

  const size_t max_body_;
  std::unique_ptr<z_stream> z_;
  bool ended_ = false;
  std::string body_;
};

}  // namespace

std::string read_body(const ReadFn& read, const BodyFraming& framing, size_t max_body) {
  const std::string te = lower_trimmed(framing.transfer_encoding);
  const std::string cl = lower_trimmed(framing.content_length);
  if (!te.empty() && te != "chunked")
    throw HttpError(501, "Transfer-Encoding '" + te + "' is not supported", "not_implemented");
  if (!te.empty() && !cl.empty()) bad("both Content-Length and Transfer-Encoding");
  Sink sink(lower_trimmed(framing.content_encoding), max_body);
  Wire wire(read, 2 * max_body + 64 * 1024, max_body);
  if (te == "chunked") {
    for (;;) {
      const auto parsed = parse_chunk_size(wire.line());
      if (!parsed) bad("a chunk size is not a hex number");
      uint64_t size = *parsed;
      if (size == 0) break;
      if (size > 2 * max_body + 64 * 1024) too_large(max_body);
      while (size > 0) {
        const std::string_view part = wire.some(size_t(size));
        sink.add(part);
        size -= part.size();
      }
      if (!wire.line().empty()) bad("a chunk does not end in CRLF");
    }
    while (!wire.line().empty()) {
    }  // trailer fields, ignored
  } else if (!cl.empty()) {
    if (cl.size() > 18 || cl.find_first_not_of("0123456789") != std::string::npos)
      bad("Content-Length is not a number");
    uint64_t left = std::stoull(cl);
    if (left > max_body) too_large(max_body);
    while (left > 0) {
      const std::string_view part = wire.some(size_t(left));
      sink.add(part);
      left -= part.size();
    }
  }
  return sink.finish();
}

}  // namespace meadow::server
