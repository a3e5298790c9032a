// Reading request bodies (server/body.hpp) and judging request heads before a worker takes them
// (server/head_scan.hpp), without sockets.
#include <gtest/gtest.h>
#include <zlib.h>

#include <string>

#include "server/body.hpp"
#include "server/head_scan.hpp"
#include "server/json_errors.hpp"
#include "server_client.hpp"

namespace {

using meadow::server::BodyFraming;
using meadow::server::HeadScan;
using meadow::server::HttpError;
using meadow::server::read_body;
using meadow::server::scan_head;
using meadow::server_test::deflated;

// Reads `wire` in pieces of at most `step` bytes; counts what was taken.
struct Source {
  std::string wire;
  size_t step = 7, pos = 0;
  meadow::server::ReadFn fn() {
    return [this](char* p, size_t n) {
      const size_t k = std::min({n, step, wire.size() - pos});
      std::copy_n(wire.data() + pos, k, p);
      pos += k;
      return k;
    };
  }
};

int status_of(const std::string& wire, const BodyFraming& f, size_t max) {
  Source s{wire};
  try {
    read_body(s.fn(), f, max);
    return 200;
  } catch (const HttpError& e) {
    return e.status;
  }
}

TEST(ReadBody, LengthChunkedAndCompressedGiveTheSameBytes) {
  const std::string body = R"({"rule": "If it rains, choose A."})";
  Source plain{body + "GET /next"};  // a pipelined request after the body stays unread
  EXPECT_EQ(read_body(plain.fn(), {std::to_string(body.size()), "", ""}, 1024), body);
  EXPECT_EQ(plain.pos, body.size());
  Source chunked{"5;ext=1\r\n" + body.substr(0, 5) + "\r\n" + "1D\r\n" + body.substr(5) +
                 "\r\n0\r\nTrailer: x\r\n\r\nGET"};
  EXPECT_EQ(read_body(chunked.fn(), {"", "Chunked", ""}, 1024), body);
  EXPECT_EQ(chunked.wire.substr(chunked.pos), "GET");
  for (const auto& [encoding, bits] : {std::pair{"gzip", 15 + 16}, std::pair{"deflate", 15}}) {
    const std::string z = deflated(body, bits);
    Source s{z};
    EXPECT_EQ(read_body(s.fn(), {std::to_string(z.size()), "", encoding}, 1024), body) << encoding;
  }
  Source none{"ignored"};
  EXPECT_EQ(read_body(none.fn(), {"", "", ""}, 1024), "");
  EXPECT_EQ(none.pos, 0u);
}

TEST(ReadBody, OneLimitHoweverTheBodyArrives) {
  const std::string big(2000, 'a');
  EXPECT_EQ(status_of(big, {"2000", "", ""}, 1000), 413);
  EXPECT_EQ(status_of("7d0\r\n" + big + "\r\n0\r\n\r\n", {"", "chunked", ""}, 1000), 413);
  // 4 MiB in ~4 KB: the compressed bytes are within the limit, the decompressed are not.
  const std::string bomb = deflated(std::string(1 << 22, '\0'), 15 + 16);
  ASSERT_LT(bomb.size(), 8000u);
  EXPECT_EQ(status_of(bomb, {std::to_string(bomb.size()), "", "gzip"}, 8000), 413);
  // Many one-byte chunks: the wire bytes are bounded too.
  std::string tiny;
  for (int i = 0; i < 1000; ++i) tiny += "1\r\na\r\n";
  EXPECT_EQ(status_of(tiny + "0\r\n\r\n", {"", "chunked", ""}, 100), 413);
}

TEST(ReadBody, BrokenFramingIsA4xx) {
  EXPECT_EQ(status_of("abc", {"10", "", ""}, 100), 400);  // ends early
  EXPECT_EQ(status_of("zz\r\nab\r\n", {"", "chunked", ""}, 100), 400);
  EXPECT_EQ(status_of("2\r\nabc\r\n0\r\n\r\n", {"", "chunked", ""}, 100), 400);
  EXPECT_EQ(status_of("2\nab\r\n0\r\n\r\n", {"", "chunked", ""}, 100), 400);
  EXPECT_EQ(status_of("not gzip", {"8", "", "gzip"}, 100), 400);
  EXPECT_EQ(status_of("x", {"1", "", "br"}, 100), 415);
  EXPECT_EQ(status_of("x", {"1", "gzip", ""}, 100), 501);
  EXPECT_EQ(status_of("x", {"1", "chunked", ""}, 100), 400);
  EXPECT_EQ(status_of("x", {"-1", "", ""}, 100), 400);
  EXPECT_EQ(status_of(std::string(2000, '1') + "\r\n", {"", "chunked", ""}, 100), 400);
}

TEST(ScanHead, WaitsForTheWholeRequestThenHandsItOver) {
  const std::string h = "POST /v1/decide HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\n";
  EXPECT_EQ(scan_head("POST /v1/decide HTTP/1.1\r\nHost:", false, 100).state,
            HeadScan::State::incomplete);
  EXPECT_EQ(scan_head(h + "ab", false, 100).state, HeadScan::State::incomplete);
  const HeadScan s = scan_head(h + "abcd", false, 100);
  EXPECT_EQ(s.state, HeadScan::State::ready);
  EXPECT_EQ(s.head_bytes, h.size());
  EXPECT_EQ(scan_head(h + "ab", true, 100).state, HeadScan::State::ready);  // the worker says 400
  EXPECT_EQ(scan_head("GET /health HTTP/1.1\r\n\r\n", false, 100).state, HeadScan::State::ready);
  const std::string c = "POST / HTTP/1.1\r\ntransfer-encoding: chunked\r\n\r\n";
  EXPECT_EQ(scan_head(c + "3\r\nabc\r\n", false, 100).state, HeadScan::State::incomplete);
  EXPECT_EQ(scan_head(c + "3\r\nabc\r\n0\r\n\r\n", false, 100).state, HeadScan::State::ready);
  // A long body, or a client waiting for 100 Continue: a worker reads it (bulk share).
  const std::string big = "POST / HTTP/1.1\r\nContent-Length: 100000\r\n\r\n";
  EXPECT_EQ(scan_head(big + std::string(20000, 'x'), false, 1 << 20).state, HeadScan::State::bulk);
  EXPECT_EQ(
      scan_head("POST / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 9\r\n\r\n", false, 100)
          .state,
      HeadScan::State::bulk);
}

TEST(ScanHead, RefusesWhatCannotBeServed) {
  EXPECT_EQ(scan_head("POST / HTTP/1.1\r\nContent-Length: 101\r\n\r\n", false, 100).status, 413);
  EXPECT_EQ(scan_head("POST / HTTP/1.1\r\nContent-Length: x\r\n\r\n", false, 100).status, 400);
  EXPECT_EQ(
      scan_head("POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", false, 100)
          .status,
      400);
  EXPECT_EQ(scan_head("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 1\r\n\r\n",
                      false, 100)
                .status,
            400);
  EXPECT_EQ(scan_head("POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", false, 100).status,
            501);
  EXPECT_EQ(scan_head(std::string(meadow::server::kMaxHeadBytes, 'a'), false, 100).status, 431);
  EXPECT_EQ(scan_head("GET / HT", true, 100).status, 400);
  const HeadScan closed = scan_head("", true, 100);
  EXPECT_EQ(closed.state, HeadScan::State::refuse);
  EXPECT_EQ(closed.status, 0);  // nothing sent: close without a word
}

}  // namespace
