// The resume rules of pull, as pure functions (no curl, no files): what to do with an existing
// FILE.part given its record (FILE.part.json), the request URL and the server's reply. pull.cpp
// drives them with curl; fuzz/fuzz_pull.cpp with a fake transport. docs/pull.md states them.
//
// The record ties the .part's bytes to where they came from: a SHA-256 of the exact request
// URL (the password, if any, is never written in clear), the URL as shown (userinfo
// redacted), and the validators of the reply that started the file (ETag, Last-Modified, the
// whole length). A .part is continued only when its record names the same URL and a validator
// the server can check with If-Range; a 206 is appended only when it names the same file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace meadow::fetch::detail {

struct PartRecord {
  std::string url_sha256;         // SHA-256 (hex) of the exact request URL
  std::string url;                // the URL as shown (redact_url), for people reading the file
  std::string etag;               // as the server sent it ("" none); weak ones are kept, never used
  std::string last_modified;      // as the server sent it ("" none)
  std::optional<uint64_t> total;  // the whole file's length, when the reply gave it
  bool operator==(const PartRecord&) const = default;
};

// The record as one line of JSON, and back. parse_record returns nullopt for anything that
// is not a record this version wrote (never throws meadow::Error; std::bad_alloc may pass).
std::string record_text(const PartRecord& r);
std::optional<PartRecord> parse_record(std::string_view text);

// SHA-256 of the URL's exact bytes, lowercase hex.
std::string url_sha256(const std::string& url);

// A validator If-Range may carry: a strong ETag, else the Last-Modified date; "" if neither.
std::string if_range_value(const PartRecord& r);

// Before the request: continue the .part from its size, or drop it and start from zero.
struct ResumePlan {
  uint64_t offset = 0;      // Range start; 0 = the whole file (the .part is emptied first)
  std::string if_range;     // sent with the Range
  std::string why_restart;  // when a non-empty .part is dropped: why (one line)
};
ResumePlan plan_resume(uint64_t part_size, const std::optional<PartRecord>& record,
                       const std::string& url_sha);

// The final response to one request, as far as the rules need it.
struct Reply {
  long status = 0;
  std::optional<uint64_t> content_length;
  bool has_content_range = false;
  std::optional<uint64_t> range_start, range_end;  // "bytes START-END/…"
  std::optional<uint64_t> range_total;             // "…/TOTAL" (also "bytes */TOTAL")
  std::optional<std::string> etag, last_modified;
};
// Feeds one header line (as received, CRLF or not) into reply: a status line ("HTTP/…")
// starts a new response (after a redirect, say); other lines set the fields above. Malformed
// values leave a field unset (or, for Content-Range, mark it present but unreadable).
void add_header_line(Reply& reply, std::string_view line);

struct Verdict {
  enum Kind {
    kAppend,    // 206 continuing the .part: write the body after it
    kReplace,   // the whole file (200): empty the .part, write `record`, then the body
    kComplete,  // 416 for a .part that already holds the whole file
    kRestart,   // this reply cannot continue the .part: drop it, ask again from zero
    kFail,      // an error reply (or a size other than expected): stop with `why`
  } kind = kFail;
  std::optional<uint64_t> total;  // the whole file's length, when known (kAppend, kReplace)
  PartRecord record;              // kReplace: the new record
  std::string why;                // kRestart, kFail: one line
  bool wrong_size = false;        // kFail because the file is not expected_size long
};
// plan: what the request asked (its record is `record`, the .part's, when plan.offset > 0).
// shown_url: the URL for messages. expected_size: 0 = unknown.
Verdict judge_reply(const ResumePlan& plan, const std::optional<PartRecord>& record,
                    const std::string& url_sha, const std::string& shown_url, const Reply& reply,
                    uint64_t expected_size);

}  // namespace meadow::fetch::detail
