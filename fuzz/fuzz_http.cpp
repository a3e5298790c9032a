// What the server reads off a connection before any route: the request head as the front
// judges it (scan_head, server/head_scan.hpp) and the body as the worker decodes it (read_body,
// server/body.hpp: Content-Length, chunked, gzip/deflate). The bytes are one raw request; the
// first byte picks the body limit and how the reads are cut. On any bytes:
//   scan_head refuses only with 0, 400, 413, 431 or 501, and a head it accepts ends inside
//     the bytes;
//   read_body throws nothing but HttpError (400, 413, 415 or 501), never returns more than the
//     limit, and never reads past the bytes it was given or past what its framing covers;
//   a body scan_head calls complete (ready, not at the end of input) is read by read_body
//     without running out of bytes: the front never hands a worker a request it then waits on.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "server/body.hpp"
#include "server/head_scan.hpp"
#include "server/json_errors.hpp"

namespace {

using namespace meadow::server;

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
  return out;
}

// The three framing headers' last values, as httplib's lookup gives them.
BodyFraming framing_of(std::string_view head) {
  BodyFraming f;
  size_t pos = head.find("\r\n");
  while (pos != std::string_view::npos && pos + 2 < head.size()) {
    pos += 2;
    const size_t eol = head.find("\r\n", pos);
    const std::string_view line = head.substr(pos, eol == std::string_view::npos ? eol : eol - pos);
    pos = eol;
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view v = line.substr(colon + 1);
    while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
    const std::string name = lower(line.substr(0, colon));
    if (name == "content-length") f.content_length = v;
    if (name == "transfer-encoding") f.transfer_encoding = v;
    if (name == "content-encoding") f.content_encoding = v;
  }
  return f;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const size_t max_body = size_t(1) << (4 + data[0] % 12);  // 16 B .. 32 KiB
  const size_t step = 1 + data[0] / 16;                     // reads of 1..16 bytes
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);

  for (const bool eof : {false, true}) {
    const HeadScan s = scan_head(bytes, eof, max_body);
    if (s.state == HeadScan::State::refuse) {
      const int st = s.status;
      if (st != 0 && st != 400 && st != 413 && st != 431 && st != 501) std::abort();
      if (s.message.find('\n') != std::string::npos) std::abort();
      continue;
    }
    if (s.state == HeadScan::State::incomplete) continue;
    if (s.head_bytes < 4 || s.head_bytes > bytes.size()) std::abort();
    const std::string_view body = bytes.substr(s.head_bytes);
    size_t pos = 0;
    bool ran_out = false;
    const ReadFn read = [&](char* p, size_t n) -> size_t {
      const size_t k = std::min({n, step, body.size() - pos});
      if (k == 0) ran_out = true;
      std::memcpy(p, body.data() + pos, k);
      pos += k;
      return k;
    };
    try {
      const std::string got = read_body(read, framing_of(bytes.substr(0, s.head_bytes)), max_body);
      if (got.size() > max_body) std::abort();
    } catch (const HttpError& e) {
      if (e.status != 400 && e.status != 413 && e.status != 415 && e.status != 501) std::abort();
      if (std::string_view(e.what()).find('\n') != std::string_view::npos) std::abort();
    }
    if (pos > body.size()) std::abort();
    // Complete by the front's reading (and not merely because the input ended): the worker
    // must not need a byte more. A compressed body may still be refused, but not for want of
    // bytes.
    if (s.state == HeadScan::State::ready && !eof && ran_out) std::abort();
  }
  return 0;
}
