// The resume rules one by one (src/fetch/resume.hpp), and redact_url: what the loopback tests
// reach only through a whole pull.
#include <gtest/gtest.h>

#include <string>

#include "fetch/resume.hpp"
#include "meadow/runtime/fetch.hpp"

namespace meadow::fetch {
namespace {

using detail::judge_reply;
using detail::PartRecord;
using detail::plan_resume;
using detail::Reply;
using detail::ResumePlan;
using detail::Verdict;

TEST(RedactUrl, HidesThePasswordOnly) {
  EXPECT_EQ(redact_url("http://u:pw@h.org/x.gguf"), "http://u:***@h.org/x.gguf");
  EXPECT_EQ(redact_url("https://u:p:w@h.org:8080/x?a=b"), "https://u:***@h.org:8080/x?a=b");
  EXPECT_EQ(redact_url("https://token@h.org/x"), "https://***@h.org/x");      // a bare token
  EXPECT_EQ(redact_url("u:pw@h.org/x.gguf"), "u:***@h.org/x.gguf");           // no scheme
  EXPECT_EQ(redact_url("https://h.org/a@b.gguf"), "https://h.org/a@b.gguf");  // '@' in the path
  EXPECT_EQ(redact_url("https://h.org/x.gguf"), "https://h.org/x.gguf");
}

PartRecord record_of(const std::string& url) {
  PartRecord r;
  r.url_sha256 = detail::url_sha256(url);
  r.url = redact_url(url);
  r.etag = "\"abc\"";
  r.last_modified = "Mon, 02 Nov 2026 10:00:00 GMT";
  r.total = 1000;
  return r;
}

TEST(PartRecord, RoundTripsAndRefusesOthers) {
  const PartRecord r = record_of("http://u:secret1@h.org/x.gguf");
  const std::string text = detail::record_text(r);
  EXPECT_EQ(text.find("secret1"), std::string::npos) << text;
  ASSERT_TRUE(detail::parse_record(text));
  EXPECT_EQ(*detail::parse_record(text), r);
  PartRecord no_total = r;
  no_total.total.reset();
  EXPECT_EQ(*detail::parse_record(detail::record_text(no_total)), no_total);
  for (const char* bad : {"", "{}", "[1]", "not json",
                          R"({"meadow_part": 2, "url_sha256": "", "url": "", "etag": "",
                              "last_modified": "", "total": null})",
                          R"({"meadow_part": 1, "url_sha256": "abc", "url": "", "etag": "",
                              "last_modified": "", "total": null})",
                          R"({"meadow_part": 1, "url_sha256": "00", "url": "", "etag": "",
                              "last_modified": "", "total": -5})"})
    EXPECT_FALSE(detail::parse_record(bad)) << bad;
}

TEST(PlanResume, ContinuesOnlyTheSameUrlWithAValidator) {
  const std::string url = "https://h.org/x.gguf";
  const std::string sha = detail::url_sha256(url);
  PartRecord r = record_of(url);
  ResumePlan p = plan_resume(400, r, sha);
  EXPECT_EQ(p.offset, 400u);
  EXPECT_EQ(p.if_range, "\"abc\"");

  EXPECT_EQ(plan_resume(0, r, sha).offset, 0u);  // nothing to continue
  p = plan_resume(400, std::nullopt, sha);
  EXPECT_EQ(p.offset, 0u);
  EXPECT_NE(p.why_restart.find("no record"), std::string::npos);
  p = plan_resume(400, r, detail::url_sha256("https://h.org/y/x.gguf"));
  EXPECT_EQ(p.offset, 0u);
  EXPECT_NE(p.why_restart.find("another URL"), std::string::npos);
  EXPECT_EQ(plan_resume(1001, r, sha).offset, 0u);     // longer than the file
  EXPECT_EQ(plan_resume(1000, r, sha).offset, 1000u);  // complete: asked, a 416 will say so

  r.etag = "W/\"abc\"";  // a weak ETag cannot go in If-Range: the date does
  EXPECT_EQ(plan_resume(400, r, sha).if_range, r.last_modified);
  r.last_modified.clear();
  EXPECT_EQ(plan_resume(400, r, sha).offset, 0u);
  r.etag = "\"a\r\nX-Evil: 1\"";  // a hand-edited record never makes a header line
  EXPECT_EQ(plan_resume(400, r, sha).offset, 0u);
}

Reply reply_of(const std::vector<std::string>& lines) {
  Reply r;
  for (const auto& l : lines) detail::add_header_line(r, l + "\r\n");
  return r;
}

TEST(JudgeReply, AppendsOnlyTheRestOfTheSameFile) {
  const std::string url = "https://h.org/x.gguf", sha = detail::url_sha256(url);
  const PartRecord r = record_of(url);
  const ResumePlan p = plan_resume(400, r, sha);
  const auto judge = [&](const std::vector<std::string>& lines) {
    return judge_reply(p, r, sha, url, reply_of(lines), 0);
  };
  const Verdict ok = judge({"HTTP/1.1 206 Partial Content", "Content-Range: bytes 400-999/1000",
                            "ETag: \"abc\"", "Content-Length: 600"});
  EXPECT_EQ(ok.kind, Verdict::kAppend);
  EXPECT_EQ(ok.total, 1000u);
  // A redirect first: only the final response counts.
  EXPECT_EQ(judge({"HTTP/1.1 302 Found", "ETag: \"zzz\"", "HTTP/1.1 206 Partial",
                   "Content-Range: bytes 400-999/1000", "ETag: \"abc\""})
                .kind,
            Verdict::kAppend);
  for (const auto& lines : std::vector<std::vector<std::string>>{
           {"HTTP/1.1 206 P", "Content-Range: bytes 0-999/1000", "ETag: \"abc\""},     // start
           {"HTTP/1.1 206 P", "Content-Range: bytes 400-499/1000", "ETag: \"abc\""},   // a part
           {"HTTP/1.1 206 P", "Content-Range: bytes 400-1099/1100", "ETag: \"abc\""},  // length
           {"HTTP/1.1 206 P", "Content-Range: bytes 400-999/1000", "ETag: \"new\""},   // changed
           {"HTTP/1.1 206 P", "Content-Range: bytes 400-999/1000"},  // names no file
           {"HTTP/1.1 206 P", "Content-Range: bytes 400-999/*", "ETag: \"abc\""},
           {"HTTP/1.1 206 P", "Content-Range: junk", "ETag: \"abc\""},
           {"HTTP/1.1 206 P", "Content-Range: bytes 400-999/1000", "ETag: \"abc\"",
            "Last-Modified: Tue, 03 Nov 2026 10:00:00 GMT"},  // one validator differs
           {"HTTP/1.1 416 Range Not Satisfiable", "Content-Range: bytes */1000"},
       })
    EXPECT_EQ(judge(lines).kind, Verdict::kRestart) << lines[1];
  const Verdict whole = judge({"HTTP/1.1 200 OK", "Content-Length: 1200", "ETag: \"new\""});
  EXPECT_EQ(whole.kind, Verdict::kReplace);
  EXPECT_EQ(whole.record.etag, "\"new\"");
  EXPECT_EQ(whole.record.total, 1200u);
  EXPECT_EQ(whole.why, "the file changed on the server");
  EXPECT_EQ(judge({"HTTP/1.1 404 Not Found"}).kind, Verdict::kFail);
  EXPECT_EQ(judge({"HTTP/1.1 200 OK", "Content-Length: 5"}).kind, Verdict::kReplace);
  const Verdict small =
      judge_reply(p, r, sha, url, reply_of({"HTTP/1.1 200 OK", "Content-Length: 5"}), 7);
  EXPECT_EQ(small.kind, Verdict::kFail);
  EXPECT_TRUE(small.wrong_size);
}

TEST(JudgeReply, A416CompletesOnlyAWholePart) {
  const std::string url = "https://h.org/x.gguf", sha = detail::url_sha256(url);
  const PartRecord r = record_of(url);
  const ResumePlan p = plan_resume(1000, r, sha);
  EXPECT_EQ(
      judge_reply(p, r, sha, url, reply_of({"HTTP/1.1 416 R", "Content-Range: bytes */1000"}), 0)
          .kind,
      Verdict::kComplete);
  EXPECT_EQ(
      judge_reply(p, r, sha, url,
                  reply_of({"HTTP/1.1 416 R", "Content-Range: bytes */1000", "ETag: \"other\""}), 0)
          .kind,
      Verdict::kRestart);
  // A 206 to a request for the whole file is an error, not a part to keep.
  EXPECT_EQ(judge_reply(ResumePlan{}, std::nullopt, sha, url,
                        reply_of({"HTTP/1.1 206 P", "Content-Range: bytes 0-9/10"}), 0)
                .kind,
            Verdict::kFail);
}

}  // namespace
}  // namespace meadow::fetch
