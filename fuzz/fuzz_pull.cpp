// pull's resume logic (src/fetch/resume.hpp, driven by pull_with) against a fake server whose
// replies, versions of the file and failures the input chooses. The first byte picks:
//   'R'  the rest is a record file: parse_record never throws; a parsed record writes back to
//        the same record (record_text round-trips);
//   'H'  the rest is header lines of a reply, judged against a plan and record from the input:
//        an append is a 206 from exactly the .part's end naming its file; a completion is a 416
//        for a .part as long as its record says; messages are one line without the password;
//   else a world: three URLs (two with a password in their userinfo) naming the same file
//        model.gguf, each serving versions of its bytes (random contents, a strong or weak
//        ETag or none, a Last-Modified or none, distinct within a URL but the same across
//        URLs: only the URL tells two servers' files apart) that change when the input says,
//        and up to 8 pulls into one folder with --force, a known hash, an expected size, a
//        disk that fills, a check that rejects the file, as the input says; between pulls the
//        input may delete the final file or the record, or cut the .part shorter. Each reply
//        is an honest RFC 9110 one, or ignores Range, or ignores If-Range, or starts at
//        another byte, or sends only part of the rest, or is an error status, a redirect
//        first, a cut, a refused connection, with ETag, Last-Modified or Content-Length left
//        out; or (chaos) any status, header lines and body bytes.
// After each pull:
//   only meadow::Error escapes; its message is one line and never holds the password, nor does
//     any record file;
//   a pull that returns leaves the final file and no .part or record, and a failed one leaves
//     the final file as it was; a non-empty .part always has a record naming one of the URLs;
//   unless a chaos reply or a hand-written record was played: the final file is exactly one
//     version of the URL pulled (never a splice of two), the version with the known hash when
//     one was given; a .part is a prefix of a version of its record's URL with the record's
//     validators and length.
#include <fuzzer/FuzzedDataProvider.h>

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "fetch/resume.hpp"
#include "fetch/sha256.hpp"
#include "fetch/transport.hpp"
#include "meadow/error.hpp"
#include "meadow/runtime/fetch.hpp"

namespace {

using namespace meadow;
using namespace meadow::fetch;
using namespace meadow::fetch::detail;
namespace fs = std::filesystem;

const std::string kSecret = "Pw-s3cret-9Q";
const std::vector<std::string> kUrls = {
    "http://alice:" + kSecret + "@a.example/m/model.gguf",
    "http://b.example/other/model.gguf",
    "https://alice:" + kSecret + "@a.example/m/model.gguf?rev=2",
};

// An invariant broken: says which line, then aborts (a crash to libFuzzer).
[[noreturn]] void fail(int line = __builtin_LINE()) {
  std::fprintf(stderr, "fuzz_pull: invariant at fuzz_pull.cpp:%d broken\n", line);
  std::abort();
}

// One line, never the password (unless the input wrote a record itself: a restart names the
// record's URL, whatever the input put there).
bool g_hand_record = false;
void check_message(const std::string& m) {
  if (m.empty() || m.find('\n') != std::string::npos || m.find('\r') != std::string::npos ||
      (!g_hand_record && m.find(kSecret) != std::string::npos))
    fail();
}

std::string sha_hex(const std::string& bytes) {
  Sha256 h;
  h.update(bytes.data(), bytes.size());
  return h.hex();
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
}

// ---- 'R' and 'H' ---------------------------------------------------------------------------

void fuzz_record(const std::string& text) {
  const auto r = parse_record(text);
  if (!r) return;
  const auto again = parse_record(record_text(*r));
  if (!again || !(*again == *r)) fail();
}

void fuzz_reply(FuzzedDataProvider& in) {
  ResumePlan plan;
  std::optional<PartRecord> record;
  const std::string url_sha = url_sha256(kUrls[0]);
  if (in.ConsumeBool()) {
    PartRecord r;
    r.url_sha256 = url_sha;
    r.url = redact_url(kUrls[0]);
    r.etag = in.ConsumeRandomLengthString(16);
    r.last_modified = in.ConsumeRandomLengthString(16);
    if (in.ConsumeBool()) r.total = in.ConsumeIntegral<uint64_t>();
    record = r;
    plan = plan_resume(in.ConsumeIntegralInRange<uint64_t>(0, 1 << 20), record, url_sha);
  }
  Reply reply;
  while (in.remaining_bytes()) add_header_line(reply, in.ConsumeRandomLengthString(80));
  const uint64_t expected = reply.content_length.value_or(0) ^ 1;
  const Verdict v = judge_reply(plan, record, url_sha, redact_url(kUrls[0]), reply, expected);
  if (v.kind == Verdict::kAppend) {
    if (reply.status != 206 || plan.offset == 0 || reply.range_start != plan.offset ||
        !reply.range_total || *reply.range_end + 1 != *reply.range_total ||
        (record->total && record->total != reply.range_total) || v.total != reply.range_total)
      fail();
  } else if (v.kind == Verdict::kComplete) {
    if (reply.status != 416 || plan.offset == 0 || record->total != plan.offset) fail();
  } else if (v.kind == Verdict::kReplace) {
    if (reply.status != 200 || v.record.url_sha256 != url_sha) fail();
    check_message(v.record.url + " ");
  } else {
    check_message(v.why);
  }
  if (plan.offset == 0 && record && !plan.why_restart.empty()) check_message(plan.why_restart);
}

// ---- the world -----------------------------------------------------------------------------

struct Version {
  size_t size = 0;
  std::string etag, modified;  // "" = the server has none
  std::string bytes() const {
    std::string out(size, '\0');
    uint64_t x = seed;
    for (auto& c : out) {  // splitmix64
      x += 0x9E3779B97F4A7C15ull;
      uint64_t z = x;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      c = char((z ^ (z >> 31)) & 0xff);
    }
    return out;
  }
  uint64_t seed = 0;
};

struct World {
  explicit World(FuzzedDataProvider& in) : in(in) {
    for (int u = 0; u < 3; ++u) {
      current[u] = new_version(u);
      served[u].insert(current[u]);
    }
  }

  // Validators are unique per URL only: two servers may well send the same ETag or date for
  // different bytes (nginx's ETag is the mtime and size), so only the URL tells them apart.
  int new_version(int u) {
    const int n = count[u]++;
    Version v;
    const int id = int(versions.size());
    v.seed = uint64_t(id) * 1000003u + 17;
    v.size = in.ConsumeIntegralInRange<size_t>(0, 4096);
    switch (in.ConsumeIntegralInRange(0, 3)) {
      case 0:
        break;
      case 1:
      case 2:
        v.etag = "\"v" + std::to_string(n) + "\"";
        break;
      default:
        v.etag = "W/\"v" + std::to_string(n) + "\"";
        break;
    }
    if (in.ConsumeBool()) v.modified = "Mon, " + std::to_string(10 + n) + " Nov 2026 10:00:00 GMT";
    versions.push_back(v);
    return id;
  }

  FuzzedDataProvider& in;
  std::vector<Version> versions;
  int current[3] = {0, 0, 0};
  int count[3] = {0, 0, 0};  // versions of each URL so far
  std::set<int> served[3];
  bool tainted = false;      // a chaos reply or a hand-written record: contents are not checked
  bool hand_record = false;  // a record was written by the input (it may hold anything)
  bool orphan_ok = false;    // the input removed or spoiled the record of a non-empty .part
};

class FakeServer : public Transport {
 public:
  explicit FakeServer(World& w) : w_(w) {}

  GetEnd get(const HttpGet& req, ResponseSink& sink) override {
    FuzzedDataProvider& in = w_.in;
    int u = -1;
    for (int i = 0; i < 3; ++i)
      if (req.url == kUrls[i]) u = i;
    if (u < 0) fail();
    if (req.offset > 0 && req.if_range.find_first_of("\r\n") != std::string::npos) fail();
    if (in.ConsumeProbability<float>() < 0.2f) {  // the file changed on the server
      w_.current[u] = w_.new_version(u);
      w_.served[u].insert(w_.current[u]);
    }
    const Version& v = w_.versions[size_t(w_.current[u])];
    const std::string file = v.bytes();
    const int mode = in.ConsumeIntegralInRange(0, 12);
    if (mode == 12) return {GetEnd::kFailed, "Failed to connect to a.example port 80"};
    if (in.ConsumeProbability<float>() < 0.1f) {
      sink.header("HTTP/1.1 302 Found\r\n");
      sink.header("Location: /elsewhere\r\n");
      sink.header("\r\n");
    }
    const bool omit_etag = in.ConsumeProbability<float>() < 0.15f;
    const bool omit_modified = in.ConsumeProbability<float>() < 0.15f;
    const bool omit_length = in.ConsumeProbability<float>() < 0.15f;

    long status = 200;
    std::vector<std::string> headers;
    std::string body;
    size_t start = 0;
    if (mode == 11) {  // chaos
      w_.tainted = true;
      status = in.ConsumeIntegralInRange<long>(100, 599);
      const int n = in.ConsumeIntegralInRange(0, 6);
      for (int i = 0; i < n; ++i) headers.push_back(in.ConsumeRandomLengthString(60));
      body = in.ConsumeRandomLengthString(600);
    } else if (mode == 10) {  // an error status
      static const long codes[] = {404, 500, 403, 401, 301, 204, 202, 503};
      status = codes[in.ConsumeIntegralInRange<size_t>(0, 7)];
      body = in.ConsumeBool() ? "error " + std::to_string(status) + "\n" : "";
    } else {
      bool use_range = req.offset > 0;
      const bool if_range_ok = req.if_range.empty() ||
                               (req.if_range == v.etag && v.etag.rfind("W/", 0) != 0) ||
                               (!v.modified.empty() && req.if_range == v.modified);
      if (mode <= 5 || mode == 8 || mode == 9) use_range = use_range && if_range_ok;  // honest
      if (mode == 6) use_range = false;  // ignores Range
      // mode 7: ignores If-Range (a Range is honoured whatever the file now is)
      if (use_range && req.offset >= file.size()) {
        status = 416;
        headers.push_back("Content-Range: bytes */" + std::to_string(file.size()));
      } else if (use_range) {
        status = 206;
        start = size_t(req.offset);
        size_t end = file.size() - 1;
        if (mode == 8) start = in.ConsumeIntegralInRange<size_t>(0, file.size() - 1);
        if (mode == 9) end = in.ConsumeIntegralInRange<size_t>(start, end);
        body = file.substr(start, end - start + 1);
        headers.push_back("Content-Range: bytes " + std::to_string(start) + "-" +
                          std::to_string(end) + "/" + std::to_string(file.size()));
      } else {
        body = file;
      }
      if (!omit_etag && !v.etag.empty()) headers.push_back("ETag: " + v.etag);
      if (!omit_modified && !v.modified.empty()) headers.push_back("Last-Modified: " + v.modified);
    }
    std::optional<size_t> length;
    if (mode == 11 && in.ConsumeBool()) {
      length = in.ConsumeIntegralInRange<size_t>(0, 2000);  // may lie: the chaos server
    } else if (!omit_length || mode == 11) {
      length = body.size();
    }
    if (length) headers.push_back("Content-Length: " + std::to_string(*length));
    if (in.ConsumeBool()) headers.push_back("Content-Type: application/octet-stream");

    sink.header("HTTP/1.1 " + std::to_string(status) + " Reason\r\n");
    for (const auto& h : headers) sink.header(h + "\r\n");
    sink.header("\r\n");
    if (!sink.tick()) return {GetEnd::kAborted, ""};

    // Like curl: the body ends at Content-Length (the rest ignored), or when the connection
    // closes; a cut before the announced end (or of a chunked body) is an error.
    size_t deliver = length ? std::min(*length, body.size()) : body.size();
    bool cut = in.ConsumeProbability<float>() < 0.25f;
    if (cut) deliver = in.ConsumeIntegralInRange<size_t>(0, deliver);
    if (length && deliver < *length) cut = true;
    size_t at = 0;
    while (at < deliver) {
      const size_t n = std::min(deliver - at, in.ConsumeIntegralInRange<size_t>(1, 1500));
      if (!sink.body(body.data() + at, n)) return {GetEnd::kAborted, ""};
      at += n;
    }
    if (cut) return {GetEnd::kFailed, "transfer closed with outstanding read data remaining"};
    return {GetEnd::kDone, ""};
  }

 private:
  World& w_;
};

// /dev/shm/fuzz_pull.<pid> (or under TMPDIR): libFuzzer ends without running atexit
// handlers, so each process first removes the folders of processes that are gone.
const fs::path& work_dir() {
  static const fs::path d = [] {
    const fs::path base = fs::exists("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path();
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(base, ec)) {
      const std::string name = e.path().filename().string();
      if (name.rfind("fuzz_pull.", 0) != 0) continue;
      const std::string pid = name.substr(10);
      if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) continue;
      if (::kill(pid_t(std::stol(pid)), 0) != 0 && errno == ESRCH) fs::remove_all(e.path(), ec);
    }
    const fs::path p = base / ("fuzz_pull." + std::to_string(::getpid()));
    fs::remove_all(p, ec);
    if (!fs::create_directory(p, ec)) fail();
    return p;
  }();
  return d;
}

void clear_dir(const fs::path& dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir)) fs::remove_all(e.path(), ec);
}

// The folder's state after a pull, checked against the world.
void check_folder(World& w, const fs::path& dir) {
  const fs::path part = dir / "model.gguf.part", record = dir / "model.gguf.part.json";
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name != "model.gguf" && name != "model.gguf.part" && name != "model.gguf.part.json")
      fail();  // a leftover temporary file
  }
  // The record holds the server's validators as sent: a chaos reply's may hold anything.
  if (!w.tainted && fs::exists(record) && read_file(record).find(kSecret) != std::string::npos)
    fail();
  const auto rec = fs::exists(record) ? parse_record(read_file(record)) : std::nullopt;
  if (rec && !w.hand_record && rec->url.find(kSecret) != std::string::npos) fail();
  if (!fs::exists(part) || fs::file_size(part) == 0 || rec) w.orphan_ok = false;
  if (!fs::exists(part) || fs::file_size(part) == 0) return;
  // A non-empty .part always has its record, unless the input took it away and no pull got as
  // far as looking at the .part since (one stopped at an existing final file, say).
  if (!rec && w.orphan_ok) return;
  if (!rec) fail();
  if (w.hand_record) return;
  int u = -1;
  for (int i = 0; i < 3; ++i)
    if (rec->url_sha256 == url_sha256(kUrls[size_t(i)])) u = i;
  if (u < 0 || rec->url != redact_url(kUrls[size_t(u)])) fail();
  if (w.tainted) return;
  const std::string bytes = read_file(part);
  for (int id : w.served[u]) {
    const Version& v = w.versions[size_t(id)];
    if (!rec->etag.empty() && rec->etag != v.etag) continue;
    if (!rec->last_modified.empty() && rec->last_modified != v.modified) continue;
    if (rec->total && *rec->total != v.size) continue;
    if (bytes.size() <= v.size && v.bytes().compare(0, bytes.size(), bytes) == 0) return;
  }
  fail();  // a .part that is not a prefix of the file its record names
}

void fuzz_world(FuzzedDataProvider& in) {
  g_hand_record = false;
  const fs::path& dir = work_dir();
  clear_dir(dir);
  World w(in);
  FakeServer server(w);
  const fs::path final_path = dir / "model.gguf";
  for (int step = 0; step < 8 && in.remaining_bytes() > 0; ++step) {
    // Between pulls: what a person or a crash may do to the folder.
    const int event = in.ConsumeIntegralInRange(0, 7);
    std::error_code ec;
    if (event == 0) fs::remove(final_path, ec);
    if (event == 1) {
      fs::remove(dir / "model.gguf.part.json", ec);
      w.orphan_ok = true;
    }
    if (event == 2 && fs::exists(dir / "model.gguf.part")) {
      const auto size = fs::file_size(dir / "model.gguf.part");
      fs::resize_file(dir / "model.gguf.part", in.ConsumeIntegralInRange<uintmax_t>(0, size));
    }
    if (event == 3) {
      write_file(dir / "model.gguf.part.json", in.ConsumeRandomLengthString(200));
      w.tainted = w.hand_record = w.orphan_ok = true;
    }

    const int u = in.ConsumeIntegralInRange(0, 2);
    PullRequest req;
    req.url = kUrls[size_t(u)];
    req.out_dir = dir.string();
    req.force = in.ConsumeProbability<float>() < 0.1f;
    const int hash_choice = in.ConsumeIntegralInRange(0, 3);
    std::optional<int> hashed;
    if (hash_choice == 1) hashed = w.current[u];
    if (hash_choice == 2) hashed = in.ConsumeIntegralInRange<int>(0, int(w.versions.size()) - 1);
    if (hashed) req.sha256 = sha_hex(w.versions[size_t(*hashed)].bytes());
    if (in.ConsumeProbability<float>() < 0.1f)
      req.expected_size = in.ConsumeBool() ? w.versions[size_t(w.current[u])].size
                                           : in.ConsumeIntegralInRange<uint64_t>(1, 5000);
    if (in.ConsumeProbability<float>() < 0.15f) {
      auto room = std::make_shared<size_t>(in.ConsumeIntegralInRange<size_t>(0, 5000));
      req.write = [room](int fd, const void* p, size_t n) -> ssize_t {
        if (*room == 0) {
          errno = ENOSPC;
          return -1;
        }
        const ssize_t done = ::write(fd, p, std::min(n, *room));
        if (done > 0) *room -= size_t(done);
        return done;
      };
    }
    const bool reject = in.ConsumeProbability<float>() < 0.1f;
    const Inspect inspect = [reject](const std::string& path) -> std::string {
      if (reject) throw Error("bad magic in " + path);
      return "fake";
    };

    g_hand_record = w.hand_record;
    const bool had_final = fs::exists(final_path);
    const std::string before = had_final ? read_file(final_path) : "";
    try {
      const PullResult r = pull_with(req, server, inspect);
      // Installed: no .part or record left (an already present file leaves a .part of an
      // earlier --force pull alone).
      if (!fs::exists(final_path)) fail();
      if (!r.already_present &&
          (fs::exists(dir / "model.gguf.part") || fs::exists(dir / "model.gguf.part.json")))
        fail();
      const std::string got = read_file(final_path);
      if (r.bytes != got.size()) fail();
      if (!r.restart_reason.empty()) check_message(r.restart_reason);
      if (r.already_present) {
        if (got != before) fail();
      } else if (!w.tainted) {
        if (hashed && got != w.versions[size_t(*hashed)].bytes()) fail();
        bool one = false;  // exactly one version of this URL: never a splice
        for (int id : w.served[u]) one = one || got == w.versions[size_t(id)].bytes();
        if (!one) fail();
        if (req.expected_size && got.size() != req.expected_size) fail();
      }
    } catch (const Error& e) {
      check_message(e.what());
      if (fs::exists(final_path) != had_final || (had_final && read_file(final_path) != before))
        fail();
    }
    check_folder(w, dir);
  }
  clear_dir(dir);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 1 << 14) return 0;
  if (size > 0 && data[0] == 'R') {
    fuzz_record(std::string(reinterpret_cast<const char*>(data) + 1, size - 1));
    return 0;
  }
  FuzzedDataProvider in(data + (size > 0), size - (size > 0));
  if (size > 0 && data[0] == 'H') {
    fuzz_reply(in);
    return 0;
  }
  fuzz_world(in);
  return 0;
}
