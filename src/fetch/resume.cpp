// The resume rules (resume.hpp): the record's text, the plan before a request, the verdict on
// a reply. Pure: no files, no network.
#include "fetch/resume.hpp"

#include <algorithm>
#include <cctype>
#include <limits>

#include <nlohmann/json.hpp>

#include "fetch/sha256.hpp"
#include "util/printable.hpp"

namespace meadow::fetch::detail {
namespace {

using nlohmann::json;

constexpr int kRecordVersion = 1;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n'))
    s.remove_suffix(1);
  return s;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// A decimal number of at most 64 bits, nothing else.
std::optional<uint64_t> parse_u64(std::string_view s) {
  if (s.empty() || s.size() > 20) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    const uint64_t d = uint64_t(c - '0');
    if (v > (std::numeric_limits<uint64_t>::max() - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  return v;
}

bool has_control(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; });
}

bool is_hex64(const std::string& s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

bool strong_etag(const std::string& e) {
  return e.size() >= 2 && e.front() == '"' && e.back() == '"';
}

// "bytes START-END/TOTAL", "bytes */TOTAL", "bytes START-END/*".
void parse_content_range(Reply& r, std::string_view v) {
  r.has_content_range = true;
  r.range_start.reset();
  r.range_end.reset();
  r.range_total.reset();
  if (v.size() < 6 || !iequals(v.substr(0, 6), "bytes ")) return;
  v = trim(v.substr(6));
  const size_t slash = v.find('/');
  if (slash == std::string_view::npos) return;
  const std::string_view range = trim(v.substr(0, slash)), tot = trim(v.substr(slash + 1));
  std::optional<uint64_t> total;
  if (tot != "*") {
    total = parse_u64(tot);
    if (!total) return;
  }
  if (range != "*") {
    const size_t dash = range.find('-');
    if (dash == std::string_view::npos) return;
    const auto start = parse_u64(range.substr(0, dash)), end = parse_u64(range.substr(dash + 1));
    if (!start || !end || *end < *start || (total && *end >= *total)) return;
    r.range_start = start;
    r.range_end = end;
  }
  r.range_total = total;
}

// Whether the reply names the record's file: a validator it carries that the record also has
// must be equal, and at least one must be (an ETag only when strong).
bool same_file(const PartRecord& rec, const Reply& reply, bool need_match) {
  bool matched = false;
  if (reply.etag && !rec.etag.empty()) {
    if (*reply.etag != rec.etag) return false;
    matched = matched || strong_etag(rec.etag);
  }
  if (reply.last_modified && !rec.last_modified.empty()) {
    if (*reply.last_modified != rec.last_modified) return false;
    matched = true;
  }
  return matched || !need_match;
}

Verdict restart(std::string why) {
  Verdict v;
  v.kind = Verdict::kRestart;
  v.why = std::move(why);
  return v;
}

Verdict fail(std::string why) {
  Verdict v;
  v.kind = Verdict::kFail;
  v.why = std::move(why);
  return v;
}

Verdict check_size(Verdict v, const std::string& shown_url, uint64_t expected_size) {
  if (expected_size && v.total && *v.total != expected_size) {
    Verdict f = fail(shown_url + " is " + std::to_string(*v.total) + " bytes, expected " +
                     std::to_string(expected_size) + "; not downloaded");
    f.total = v.total;
    f.wrong_size = true;
    return f;
  }
  return v;
}

}  // namespace

std::string record_text(const PartRecord& r) {
  json j = {{"meadow_part", kRecordVersion},
            {"url_sha256", r.url_sha256},
            {"url", r.url},
            {"etag", r.etag},
            {"last_modified", r.last_modified},
            {"total", r.total ? json(*r.total) : json(nullptr)}};
  // ASCII with \u escapes; bytes that are not UTF-8 become U+FFFD (such a validator then
  // never matches again: the .part restarts, which is safe).
  return j.dump(-1, ' ', true, json::error_handler_t::replace) + "\n";
}

std::optional<PartRecord> parse_record(std::string_view text) {
  if (text.size() > 65536) return std::nullopt;
  const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return std::nullopt;
  const auto str = [&](const char* key) -> std::optional<std::string> {
    const auto it = j.find(key);
    if (it == j.end() || !it->is_string()) return std::nullopt;
    return it->get<std::string>();
  };
  const auto version = j.find("meadow_part");
  if (version == j.end() || !version->is_number_unsigned() ||
      version->get<uint64_t>() != uint64_t(kRecordVersion))
    return std::nullopt;
  PartRecord r;
  const auto sha = str("url_sha256"), url = str("url"), etag = str("etag"),
             modified = str("last_modified");
  if (!sha || !is_hex64(*sha) || !url || !etag || !modified) return std::nullopt;
  r.url_sha256 = *sha;
  r.url = *url;
  r.etag = *etag;
  r.last_modified = *modified;
  const auto total = j.find("total");
  if (total == j.end()) return std::nullopt;
  if (total->is_number_unsigned())
    r.total = total->get<uint64_t>();
  else if (!total->is_null())
    return std::nullopt;
  return r;
}

std::string url_sha256(const std::string& url) {
  Sha256 h;
  h.update(url.data(), url.size());
  return h.hex();
}

std::string if_range_value(const PartRecord& r) {
  // A header value must not carry a line break (a record edited by hand could hold one).
  if (strong_etag(r.etag) && !has_control(r.etag)) return r.etag;
  if (!r.last_modified.empty() && !has_control(r.last_modified)) return r.last_modified;
  return "";
}

ResumePlan plan_resume(uint64_t part_size, const std::optional<PartRecord>& record,
                       const std::string& url_sha) {
  ResumePlan p;
  if (part_size == 0) return p;
  if (!record) {
    p.why_restart = "the .part has no record of where it came from";
  } else if (record->url_sha256 != url_sha) {
    p.why_restart = "the .part was of another URL (" + util::quoted(record->url, 200) + ")";
  } else if (if_range_value(*record).empty()) {
    p.why_restart = "the server gave no ETag or Last-Modified to check the .part against";
  } else if (record->total && part_size > *record->total) {
    p.why_restart = "the .part is longer than the file";
  } else {
    p.offset = part_size;
    p.if_range = if_range_value(*record);
  }
  return p;
}

void add_header_line(Reply& reply, std::string_view line) {
  line = trim(line);
  if (line.size() >= 5 && line.substr(0, 5) == "HTTP/") {
    reply = Reply{};
    const size_t sp = line.find(' ');
    if (sp != std::string_view::npos) {
      std::string_view code = line.substr(sp + 1, 3);
      if (code.size() == 3 &&
          std::all_of(code.begin(), code.end(), [](char c) { return c >= '0' && c <= '9'; }))
        reply.status = long(*parse_u64(code));
    }
    return;
  }
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) return;
  const std::string_view key = trim(line.substr(0, colon)), value = trim(line.substr(colon + 1));
  if (iequals(key, "content-length")) {
    reply.content_length = parse_u64(value);
  } else if (iequals(key, "content-range")) {
    parse_content_range(reply, value);
  } else if (iequals(key, "etag")) {
    reply.etag = std::string(value);
  } else if (iequals(key, "last-modified")) {
    reply.last_modified = std::string(value);
  }
}

Verdict judge_reply(const ResumePlan& plan, const std::optional<PartRecord>& record,
                    const std::string& url_sha, const std::string& shown_url, const Reply& reply,
                    uint64_t expected_size) {
  const bool resuming = plan.offset > 0 && record.has_value();
  if (reply.status == 200) {
    Verdict v;
    v.kind = Verdict::kReplace;
    v.total = reply.content_length;
    v.record.url_sha256 = url_sha;
    v.record.url = shown_url;
    v.record.etag = reply.etag.value_or("");
    v.record.last_modified = reply.last_modified.value_or("");
    v.record.total = v.total;
    if (resuming)
      v.why = same_file(*record, reply, false) ? "the server sent the whole file"
                                               : "the file changed on the server";
    return check_size(std::move(v), shown_url, expected_size);
  }
  if (reply.status == 206) {
    if (!resuming)
      return fail("HTTP 206 (a part) from " + shown_url + " to a request for the whole file");
    if (!reply.range_start || !reply.range_end)
      return restart("the server's 206 has no readable Content-Range");
    if (*reply.range_start != plan.offset)
      return restart("the server sent bytes from " + std::to_string(*reply.range_start) +
                     ", not from " + std::to_string(plan.offset));
    if (!reply.range_total) return restart("the server's 206 does not give the file's length");
    if (*reply.range_end + 1 != *reply.range_total)
      return restart("the server sent only a part of the rest");
    if (record->total && *record->total != *reply.range_total)
      return restart("the file's length changed on the server");
    if (!same_file(*record, reply, true))
      return restart("the server's 206 does not name the .part's ETag or Last-Modified");
    Verdict v;
    v.kind = Verdict::kAppend;
    v.total = reply.range_total;
    return check_size(std::move(v), shown_url, expected_size);
  }
  if (reply.status == 416 && resuming) {
    // Nothing past the .part's end: it is complete when its record says so and the reply
    // agrees (the length, a validator it carries).
    const bool whole = record->total && *record->total == plan.offset &&
                       (!reply.range_total || *reply.range_total == plan.offset) &&
                       same_file(*record, reply, false);
    if (!whole) return restart("the server has nothing past the .part's end");
    Verdict v;
    v.kind = Verdict::kComplete;
    v.total = plan.offset;
    return v;
  }
  if (reply.status == 0) return fail("no HTTP status line from " + shown_url);
  return fail("HTTP " + std::to_string(reply.status) + " from " + shown_url);
}

}  // namespace meadow::fetch::detail
