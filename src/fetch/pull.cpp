// pull(): download into FILE.part (resumed with a Range request as resume.hpp's rules allow),
// verify, open as GGUF, rename. The HTTP side is a Transport: curl here, a fake in the fuzzer.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>

#include "fetch/curl_handle.hpp"
#include "fetch/resume.hpp"
#include "fetch/sha256.hpp"
#include "fetch/transport.hpp"
#include "meadow/error.hpp"
#include "meadow/runtime/fetch.hpp"
#include "meadow/runtime/gguf.hpp"
#include "util/atomic_file.hpp"
#include "util/printable.hpp"
#include "util/read_file.hpp"

namespace meadow::fetch {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using detail::GetEnd;
using detail::HttpGet;
using detail::Inspect;
using detail::PartRecord;
using detail::record_path;
using detail::ResponseSink;
using detail::ResumePlan;
using detail::Transport;
using detail::Verdict;
using namespace detail;  // the resume rules (resume.hpp)

std::string errno_text(int e) {
  return std::strerror(e);
}

// An open file descriptor, closed on destruction.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  // Closes now and reports close()'s own error (a write-back failure can surface here).
  int close() {
    const int fd = fd_;
    fd_ = -1;
    return fd >= 0 ? ::close(fd) : 0;
  }

 private:
  int fd_;
};

uint64_t fd_size(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw Error(std::string("fstat: ") + errno_text(errno));
  return uint64_t(st.st_size);
}

// The output folder: created if missing; must be a folder we may write into.
fs::path prepare_dir(const std::string& out_dir) {
  if (out_dir.empty()) throw Error("no output folder (pass --out DIR)");
  const fs::path dir(out_dir);
  std::error_code ec;
  if (!fs::exists(dir, ec)) {
    fs::create_directories(dir, ec);
    if (ec) throw Error("cannot create " + out_dir + ": " + ec.message());
  }
  if (!fs::is_directory(dir, ec)) throw Error(out_dir + ": not a folder");
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw Error(out_dir + ": not writable (" + errno_text(errno) + ")");
  return dir;
}

// Opens an already present final file: good (a GGUF, with the known hash) or an error that
// names --force. Fills result fields.
void accept_existing(const fs::path& final_path, const std::string& sha, PullResult& r,
                     const Inspect& inspect) {
  const std::string p = final_path.string();
  std::error_code ec;
  if (fs::is_directory(final_path, ec))
    throw Error(p + " is a folder; --force does not replace it");
  if (!fs::is_regular_file(final_path, ec))
    throw Error(p + " exists and is not a regular file; --force replaces it");
  try {
    r.arch = inspect(p);
    r.bytes = fs::file_size(final_path);
  } catch (const Error& e) {
    throw Error(p + " exists but is not a valid GGUF (" + e.what() + "); --force replaces it");
  }
  r.sha256 = sha256_file(p);
  if (!sha.empty() && r.sha256 != sha)
    throw Error(p + " exists but its sha256 is " + r.sha256 + ", not the expected " + sha +
                "; --force replaces it");
  r.path = p;
  r.already_present = true;
  r.verified = !sha.empty();
}

bool write_all(const WriteFn& write, int fd, const char* p, size_t n) {
  while (n > 0) {
    const ssize_t w = write ? write(fd, p, n) : ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return false;
    if (w == 0) {
      errno = ENOSPC;
      return false;
    }
    p += w;
    n -= size_t(w);
  }
  return true;
}

// The record beside the .part (resume.hpp); written whole or not at all.
// Read through the one bounded reader: a record that is missing, too large, or not a regular
// file (a FIFO would block a plain open) is no record, and the .part starts again.
std::optional<PartRecord> read_record(const std::string& part) {
  try {
    return parse_record(util::read_file(record_path(part), 65536));
  } catch (const Error&) {
    return std::nullopt;
  }
}

void write_record(const std::string& part, const PartRecord& rec) {
  const std::string text = record_text(rec);
  util::AtomicFile f(record_path(part));
  if (!write_all(nullptr, f.fd(), text.data(), text.size()))
    throw Error("write " + record_path(part) + ": " + errno_text(errno));
  f.commit();
}

// ---- curl as the transport -----------------------------------------------------------------

struct CurlCall {
  ResponseSink* sink = nullptr;
  bool stopped = false;  // a sink call said stop
};

size_t on_header(char* data, size_t size, size_t n, void* user) {
  auto* c = static_cast<CurlCall*>(user);
  c->sink->header(std::string_view(data, size * n));
  return size * n;
}

size_t on_body(char* data, size_t size, size_t n, void* user) {
  auto* c = static_cast<CurlCall*>(user);
  if (!c->sink->body(data, size * n)) {
    c->stopped = true;
    return 0;  // CURLE_WRITE_ERROR
  }
  return size * n;
}

int on_xfer(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* c = static_cast<CurlCall*>(user);
  if (c->sink->tick()) return 0;
  c->stopped = true;
  return 1;  // CURLE_ABORTED_BY_CALLBACK
}

class CurlTransport : public Transport {
 public:
  GetEnd get(const HttpGet& req, ResponseSink& sink) override {
    detail::Easy h(curl_easy_init());
    if (!h) throw Error("libcurl: cannot create a handle");
    char errbuf[CURL_ERROR_SIZE] = {0};
    CURL* c = h.get();
    const std::string range = std::to_string(req.offset) + "-";
    detail::Slist headers;
    if (req.offset > 0 && !req.if_range.empty()) {
      const std::string line = "If-Range: " + req.if_range;
      headers.reset(curl_slist_append(nullptr, line.c_str()));
      if (!headers) throw Error("libcurl: out of memory");
    }
    CurlCall call;
    call.sink = &sink;
    curl_easy_setopt(c, CURLOPT_URL, req.url.c_str());
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    // An https URL never follows a redirect down to plain http.
    curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR,
                     req.https_only_redirects ? "https" : "http,https");
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(c, CURLOPT_MAXREDIRS, 10L);
    // No CURLOPT_FAILONERROR: every final status reaches judge_reply (a 416 included).
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "meadow-mind/0.1 (pull)");
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, req.connect_timeout_s);
    if (req.offset > 0) curl_easy_setopt(c, CURLOPT_RANGE, range.c_str());
    if (headers) curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &call);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &call);
    curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_xfer);
    curl_easy_setopt(c, CURLOPT_XFERINFODATA, &call);
    const CURLcode rc = curl_easy_perform(c);
    GetEnd end;
    if (rc == CURLE_OK) {
      end.kind = GetEnd::kDone;
    } else if (call.stopped) {
      end.kind = GetEnd::kAborted;
    } else {
      end.kind = GetEnd::kFailed;
      end.error = errbuf[0] ? errbuf : curl_easy_strerror(rc);
      while (!end.error.empty() && (end.error.back() == '\n' || end.error.back() == '\r'))
        end.error.pop_back();
    }
    return end;
  }
};

// ---- one request's responses into the .part -------------------------------------------------

// Judges the final response at its first body byte (or at its end when it has none) and
// writes the body into the .part: after it (206) or in its place (200, with a new record
// written first). Never throws: a failure is kept for pull_with to report.
class Session : public ResponseSink {
 public:
  Session(const PullRequest& req, int fd, const std::string& part, const ResumePlan& plan,
          const std::optional<PartRecord>& record, const std::string& url_sha,
          const std::string& shown, detail::Sha256& hash)
      : req_(req),
        fd_(fd),
        part_(part),
        plan_(plan),
        record_(record),
        url_sha_(url_sha),
        shown_(shown),
        hash_(hash) {}

  void header(std::string_view line) override {
    last_byte_ = Clock::now();
    if (!decided_) add_header_line(reply_, line);  // trailers after the body change nothing
  }

  bool body(const char* data, size_t n) override {
    last_byte_ = Clock::now();
    if (!decide()) return false;
    if (verdict_.kind != Verdict::kAppend && verdict_.kind != Verdict::kReplace) return false;
    if (verdict_.total && base_ + received_ + n > *verdict_.total) {
      overflow_ = true;  // more than the announced length: keep the .part a clean prefix
      return false;
    }
    if (!write_all(req_.write, fd_, data, n)) {
      write_errno_ = errno ? errno : EIO;
      return false;
    }
    hash_.update(data, n);
    received_ += n;
    progress(false);
    return true;
  }

  bool tick() override {
    progress(false);
    if (Clock::now() - last_byte_ > std::chrono::seconds(req_.stall_timeout_s)) {
      stalled_ = true;
      return false;
    }
    return true;
  }

  // Judges the reply once; for kReplace, empties the .part and writes the new record. False
  // when that failed (error_ says why).
  bool decide() {
    if (decided_) return error_.empty();
    decided_ = true;
    try {
      verdict_ = judge_reply(plan_, record_, url_sha_, shown_, reply_, req_.expected_size);
      if (verdict_.kind == Verdict::kAppend) base_ = plan_.offset;
      if (verdict_.kind == Verdict::kReplace) {
        if (::ftruncate(fd_, 0) != 0) {
          write_errno_ = errno;
          return false;
        }
        hash_.reset();
        replaced_ = plan_.offset > 0;
        write_record(part_, verdict_.record);
      }
    } catch (const std::exception& e) {
      error_ = e.what();
      return false;
    }
    return true;
  }

  void progress(bool final_call) {
    if (!req_.on_progress || !decided_ ||
        (verdict_.kind != Verdict::kAppend && verdict_.kind != Verdict::kReplace))
      return;
    const auto now = Clock::now();
    if (!final_call && now - last_progress_ < std::chrono::milliseconds(100)) return;
    last_progress_ = now;
    req_.on_progress(base_ + received_, verdict_.total.value_or(0));
  }

  bool decided() const { return decided_; }
  const Verdict& verdict() const { return verdict_; }
  const std::string& error() const { return error_; }
  uint64_t received() const { return received_; }
  bool replaced() const { return replaced_; }
  bool stalled() const { return stalled_; }
  bool overflow() const { return overflow_; }
  int write_errno() const { return write_errno_; }

 private:
  const PullRequest& req_;
  const int fd_;
  const std::string& part_;
  const ResumePlan& plan_;
  const std::optional<PartRecord>& record_;
  const std::string& url_sha_;
  const std::string& shown_;
  detail::Sha256& hash_;

  Reply reply_;
  bool decided_ = false;
  Verdict verdict_;
  std::string error_;
  uint64_t base_ = 0;      // file bytes before this body's first byte
  uint64_t received_ = 0;  // body bytes written
  bool replaced_ = false;  // a non-empty .part was emptied for a whole file
  bool stalled_ = false;
  bool overflow_ = false;
  int write_errno_ = 0;
  Clock::time_point last_progress_{};
  Clock::time_point last_byte_ = Clock::now();
};

void remove_file(const fs::path& p) {
  std::error_code ec;
  fs::remove(p, ec);
}

// Moves part onto final: without force it must not exist (checked again atomically).
void install(const fs::path& part, const fs::path& final_path, bool force) {
  if (!force) {
    if (::renameat2(AT_FDCWD, part.c_str(), AT_FDCWD, final_path.c_str(), RENAME_NOREPLACE) == 0)
      return;
    if (errno == EEXIST)
      throw Error(final_path.string() + " appeared during the download; kept " + part.string() +
                  " (pass --force to replace it)");
    if (errno != EINVAL && errno != ENOSYS)
      throw Error("rename " + part.string() + ": " + errno_text(errno));
  }
  if (::rename(part.c_str(), final_path.c_str()) != 0)
    throw Error("rename " + part.string() + ": " + errno_text(errno));
}

void sync_dir(const fs::path& dir) {
  Fd d(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (d.get() >= 0) ::fsync(d.get());
}

// The password of the URL's userinfo ("" if none), and the userinfo as written.
std::pair<std::string, std::string> url_secret(const std::string& url) {
  const size_t scheme_end = url.find("://");
  const size_t start = scheme_end == std::string::npos ? 0 : scheme_end + 3;
  size_t end = url.find_first_of("/?#", start);
  if (end == std::string::npos) end = url.size();
  const size_t at = url.substr(start, end - start).rfind('@');
  if (at == std::string::npos) return {};
  const std::string userinfo = url.substr(start, at);
  const size_t colon = userinfo.find(':');
  return {colon == std::string::npos ? userinfo : userinfo.substr(colon + 1), userinfo + "@"};
}

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
}

// A message with every trace of the URL's userinfo replaced (a last guard: the messages name
// the URL through redact_url already; this covers texts from libraries), on one line.
std::string scrub(std::string msg, const std::string& url) {
  const auto [password, userinfo] = url_secret(url);
  replace_all(msg, url, redact_url(url));
  replace_all(msg, userinfo, redact_url("//" + userinfo).substr(2));
  if (password.size() >= 4) replace_all(msg, password, "***");
  return util::printable(msg);
}

PullResult pull_checked(const PullRequest& req, Transport& transport, const Inspect& inspect,
                        const std::string& shown) {
  const Url url = parse_url(req.url);
  std::string name = req.file_name.empty() ? file_name_from_url(url) : req.file_name;
  if (name.empty()) throw Error("URL '" + shown + "' names no file; pass --name FILE.gguf");
  check_file_name(name);
  const std::string sha = req.sha256.empty() ? "" : normalize_sha256(req.sha256);

  const fs::path dir = prepare_dir(req.out_dir);
  const fs::path final_path = dir / name;
  const fs::path part = dir / (name + ".part");
  const std::string part_s = part.string(), record_s = record_path(part_s);
  PullResult r;
  r.path = final_path.string();

  std::error_code ec;
  if (fs::exists(fs::symlink_status(final_path, ec))) {
    if (!req.force) {
      accept_existing(final_path, sha, r, inspect);
      return r;
    }
    if (fs::is_directory(final_path, ec))
      throw Error(final_path.string() + " is a folder; --force does not replace it");
  }

  Fd fd(::open(part.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
  if (fd.get() < 0) throw Error("cannot write " + part_s + ": " + errno_text(errno));
  if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0)
    throw Error(part_s + " is being written by another pull");

  // The .part and its record: continued only as plan_resume allows, else emptied first (the
  // record goes after the bytes, so an empty .part never keeps a stale record's promise).
  const std::string url_sha = url_sha256(req.url);
  const uint64_t found = fd_size(fd.get());
  std::optional<PartRecord> record;
  ResumePlan plan;
  if (!req.force) {
    record = read_record(part_s);
    plan = plan_resume(found, record, url_sha);
  }
  const auto empty_part = [&] {
    if (::ftruncate(fd.get(), 0) != 0)
      throw Error("cannot truncate " + part_s + ": " + errno_text(errno));
    remove_file(record_s);
  };
  if (plan.offset == 0) {
    empty_part();
    if (found > 0 && !req.force) {
      r.restarted = true;
      r.restart_reason = plan.why_restart;
    }
  }
  r.resumed_from = req.force ? 0 : found;

  detail::Sha256 hash;
  if (plan.offset > 0) detail::hash_prefix(part_s, plan.offset, hash);

  const auto t0 = Clock::now();
  bool complete = false;
  for (int attempt = 0; attempt < 2 && !complete; ++attempt) {
    HttpGet get;
    get.url = req.url;
    get.https_only_redirects = url.scheme == "https";
    get.offset = plan.offset;
    get.if_range = plan.if_range;
    get.connect_timeout_s = req.connect_timeout_s;
    Session s(req, fd.get(), part_s, plan, record, url_sha, shown, hash);
    const GetEnd end = transport.get(get, s);
    if (end.kind == GetEnd::kDone) s.decide();  // a reply without a body is judged at its end
    r.transferred += s.received();
    if (s.replaced()) {
      r.restarted = true;
      r.restart_reason = s.verdict().why;
    }
    if (s.write_errno())
      throw Error("write " + part_s + ": " + errno_text(s.write_errno()) +
                  " (the .part is kept; free space and pull again to resume)");
    if (!s.error().empty()) throw Error(s.error());
    const Verdict& v = s.verdict();
    if (s.decided() && v.kind == Verdict::kRestart) {
      empty_part();  // this .part cannot be continued: from zero, once
      hash.reset();
      record.reset();
      plan = ResumePlan{};
      r.restarted = true;
      r.restart_reason = v.why;
      continue;
    }
    if (s.decided() && v.kind == Verdict::kFail && v.wrong_size) {
      fd.close();
      remove_file(part);  // it could not complete this file anyway
      remove_file(record_s);
      throw Error(v.why);
    }
    if (s.decided() && v.kind == Verdict::kComplete) {
      complete = true;
      break;
    }
    const uint64_t have = fd_size(fd.get());
    std::string what;
    if (s.decided() && v.kind == Verdict::kFail) {
      what = v.why;
    } else if (s.overflow()) {
      what = shown + " sent more than the " + std::to_string(v.total.value_or(0)) +
             " bytes it announced";
    } else if (end.kind == GetEnd::kDone) {
      if (!v.total || have == *v.total) {
        s.progress(true);
        complete = true;
        break;
      }
      what = "the transfer from " + shown + " ended at " + std::to_string(have) + " of " +
             std::to_string(*v.total) + " bytes";
    } else if (s.stalled()) {
      what = "no data for " + std::to_string(req.stall_timeout_s) + " s from " + shown;
    } else {
      what = (end.error.empty() ? std::string("transfer stopped") : end.error) + " (" + shown + ")";
    }
    // A failed transfer: keep what arrived (and its record) for the next pull; drop an
    // empty .part.
    if (have == 0) {
      fd.close();
      remove_file(part);
      remove_file(record_s);
      throw Error(what);
    }
    throw Error(what + "; kept " + part_s + " (" + std::to_string(have) +
                " bytes): run the same pull again to resume");
  }
  if (!complete) throw Error("the server's Range replies do not add up (" + shown + ")");
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();

  r.bytes = fd_size(fd.get());
  const auto reject = [&](const std::string& why) {
    fd.close();
    remove_file(part);
    remove_file(record_s);
    throw Error(why);
  };
  if (req.expected_size && r.bytes != req.expected_size)
    reject("downloaded " + std::to_string(r.bytes) + " bytes, expected " +
           std::to_string(req.expected_size) + "; deleted " + part_s);
  r.sha256 = hash.hex();
  if (!sha.empty() && r.sha256 != sha)
    reject("sha256 mismatch for " + name + ": got " + r.sha256 + ", expected " + sha +
           "; deleted the download");
  r.verified = !sha.empty();
  if (::fsync(fd.get()) != 0)
    throw Error("write " + part_s + ": " + errno_text(errno) +
                " (the .part is kept; pull again to resume)");
  try {
    r.arch = inspect(part_s);
  } catch (const Error& e) {
    reject("the download is not a valid GGUF (" + std::string(e.what()) + "); deleted it");
  }
  install(part, final_path, req.force);
  remove_file(record_s);
  sync_dir(dir);
  if (fd.close() != 0) throw Error("close " + final_path.string() + ": " + errno_text(errno));
  return r;
}

std::string gguf_arch(const std::string& path) {
  const gguf::File f = gguf::File::open(path);
  return f.get_string("general.architecture", "");
}

}  // namespace

namespace detail {

PullResult pull_with(const PullRequest& req, Transport& transport, const Inspect& inspect) {
  const std::string shown = util::printable(redact_url(req.url));
  try {
    return pull_checked(req, transport, inspect, shown);
  } catch (const Error& e) {
    throw Error(scrub(e.what(), req.url));
  } catch (const std::bad_alloc&) {
    throw Error("out of memory pulling " + shown);
  } catch (const std::exception& e) {
    throw Error(scrub(e.what(), req.url));
  }
}

}  // namespace detail

PullResult pull(const PullRequest& req) {
  detail::ensure_curl_init();
  CurlTransport curl;
  return detail::pull_with(req, curl, gguf_arch);
}

}  // namespace meadow::fetch
