// scan_head (server/head_scan.hpp): the request head's framing, read from bytes not yet
// consumed.
#include "server/head_scan.hpp"

namespace meadow::server {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// A decimal Content-Length of at most 18 digits; nullopt when malformed.
std::optional<uint64_t> parse_length(std::string_view s) {
  if (s.empty() || s.size() > 18) return std::nullopt;
  uint64_t v = 0;
  for (const char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + uint64_t(c - '0');
  }
  return v;
}

HeadScan refuse(int status, std::string message) {
  HeadScan s;
  s.state = HeadScan::State::refuse;
  s.status = status;
  s.message = std::move(message);
  return s;
}

enum class Chunks { complete, incomplete, malformed };

// Walks chunked framing over the bytes that have arrived: size line, data, CRLF, ..., the
// zero-size chunk, trailer lines, the blank line.
Chunks scan_chunks(std::string_view b) {
  size_t pos = 0;
  for (;;) {
    const size_t eol = b.find("\r\n", pos);
    if (eol == std::string_view::npos)
      return b.size() - pos > 1024 ? Chunks::malformed : Chunks::incomplete;
    const auto parsed = parse_chunk_size(b.substr(pos, eol - pos));
    if (!parsed) return Chunks::malformed;
    const uint64_t size = *parsed;
    pos = eol + 2;
    if (size == 0) {
      // Trailer lines up to a blank one.
      for (;;) {
        const size_t end = b.find("\r\n", pos);
        if (end == std::string_view::npos) return Chunks::incomplete;
        if (end == pos) return Chunks::complete;
        pos = end + 2;
      }
    }
    if (b.size() - pos < size + 2) return Chunks::incomplete;
    if (b.substr(pos + size, 2) != "\r\n") return Chunks::malformed;
    pos += size + 2;
  }
}

}  // namespace

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = char(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = char(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

std::optional<uint64_t> parse_chunk_size(std::string_view line) {
  if (const size_t semi = line.find(';'); semi != std::string_view::npos)
    line = line.substr(0, semi);
  line = trim(line);
  if (line.empty() || line.size() > 15) return std::nullopt;
  uint64_t size = 0;
  for (const char c : line) {
    const int d = c >= '0' && c <= '9'   ? c - '0'
                  : c >= 'a' && c <= 'f' ? c - 'a' + 10
                  : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                         : -1;
    if (d < 0) return std::nullopt;
    size = size * 16 + uint64_t(d);
  }
  return size;
}

HeadScan scan_head(std::string_view bytes, bool eof, size_t max_body) {
  const size_t end = bytes.substr(0, kMaxHeadBytes).find("\r\n\r\n");
  if (end == std::string_view::npos) {
    if (bytes.size() >= kMaxHeadBytes)
      return refuse(431,
                    "the request head is longer than " + std::to_string(kMaxHeadBytes) + " bytes");
    if (eof) return refuse(bytes.empty() ? 0 : 400, "the request ended before its head did");
    return {};
  }
  HeadScan s;
  s.head_bytes = end + 4;
  const std::string_view head = bytes.substr(0, end + 2);
  std::optional<uint64_t> length;
  bool chunked = false, expect_continue = false;
  size_t pos = head.find("\r\n") + 2;  // past the request line
  while (pos < head.size()) {
    const size_t eol = head.find("\r\n", pos);
    const std::string_view line = head.substr(pos, eol - pos);
    pos = eol + 2;
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;  // httplib skips it too
    const std::string_view name = line.substr(0, colon), value = trim(line.substr(colon + 1));
    if (iequals(name, "Content-Length")) {
      const auto v = parse_length(value);
      if (!v) return refuse(400, "Content-Length is not a number");
      if (length && *length != *v) return refuse(400, "two different Content-Length headers");
      length = v;
    } else if (iequals(name, "Transfer-Encoding")) {
      if (!iequals(value, "chunked"))
        return refuse(501, "Transfer-Encoding other than chunked is not supported");
      chunked = true;
    } else if (iequals(name, "Expect")) {
      expect_continue = iequals(value, "100-continue");
    }
  }
  // Both framings at once is how requests are smuggled past proxies (RFC 9112 6.3).
  if (chunked && length) return refuse(400, "both Content-Length and Transfer-Encoding");
  if (length && *length > max_body)
    return refuse(413, "the request body (" + std::to_string(*length) +
                           " bytes) is larger than the server's limit of " +
                           std::to_string(max_body) + " bytes");
  const std::string_view body = bytes.substr(s.head_bytes);
  const bool has_body = chunked || (length && *length > 0);
  if (!has_body) {
    s.state = HeadScan::State::ready;
  } else if (chunked) {
    const Chunks c = scan_chunks(body);
    if (c == Chunks::malformed) return refuse(400, "malformed chunked body");
    s.state = c == Chunks::complete || eof                        ? HeadScan::State::ready
              : expect_continue || body.size() >= kReadyBodyBytes ? HeadScan::State::bulk
                                                                  : HeadScan::State::incomplete;
  } else {
    s.state = body.size() >= *length || eof                       ? HeadScan::State::ready
              : expect_continue || body.size() >= kReadyBodyBytes ? HeadScan::State::bulk
                                                                  : HeadScan::State::incomplete;
  }
  return s;
}

}  // namespace meadow::server
