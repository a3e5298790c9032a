// pull(): download into FILE.part (resumed with a Range request), verify, open as GGUF, rename.
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

#include "fetch/curl_handle.hpp"
#include "fetch/sha256.hpp"
#include "meadow/error.hpp"
#include "meadow/fetch.hpp"
#include "meadow/gguf.hpp"

namespace meadow::fetch {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

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
void accept_existing(const fs::path& final_path, const std::string& sha, PullResult& r) {
  const std::string p = final_path.string();
  std::error_code ec;
  if (fs::is_directory(final_path, ec))
    throw Error(p + " is a folder; --force does not replace it");
  if (!fs::is_regular_file(final_path, ec))
    throw Error(p + " exists and is not a regular file; --force replaces it");
  try {
    const gguf::File f = gguf::File::open(p);
    r.arch = f.get_string("general.architecture", "");
    r.bytes = f.file_size();
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

std::string lower(std::string s) {
  for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// One HTTP transfer into the open .part; what the callbacks saw.
struct Transfer {
  const PullRequest* req = nullptr;
  int fd = -1;
  uint64_t offset = 0;  // .part size when the request was sent (the Range start, if > 0)
  detail::Sha256* hash = nullptr;

  // Of the latest response (a redirect starts a new one).
  long status = 0;
  std::optional<uint64_t> content_length;
  std::optional<uint64_t> range_start;  // Content-Range: bytes START-END/TOTAL
  std::optional<uint64_t> range_total;  // TOTAL, also of "bytes */TOTAL" (416)

  bool body_started = false;
  bool bad_range = false;  // 206 for another start than asked
  bool restarted = false;  // 200 to a Range request: rewritten from zero
  uint64_t base = 0;       // file bytes before this body's first byte
  uint64_t received = 0;   // body bytes written
  int write_errno = 0;
  std::optional<uint64_t> total;  // the whole file's size, once known
  Clock::time_point last_progress{};
  Clock::time_point last_byte = Clock::now();  // of anything: headers or body
  bool stalled = false;
  bool wrong_size = false;  // the server announces another size than expected_size

  // Decides, at the body's first byte (or at the end when there was none), whether the body
  // continues the .part (206) or replaces it (anything else). False: abort the transfer.
  bool start_body() {
    if (body_started) return true;
    body_started = true;
    if (offset > 0 && status == 206) {
      if (!range_start || *range_start != offset) {
        bad_range = true;
        return false;
      }
      base = offset;
      if (range_total) total = *range_total;
    } else {
      if (offset > 0) {  // the server ignored the Range: start the file again
        if (::ftruncate(fd, 0) != 0) {
          write_errno = errno;
          return false;
        }
        hash->reset();
        restarted = true;
      }
      base = 0;
      if (content_length) total = *content_length;
    }
    if (req->expected_size && total && *total != req->expected_size) {
      wrong_size = true;  // not the file the table names: stop before fetching it all
      return false;
    }
    return true;
  }

  void progress(bool final_call) {
    if (!req->on_progress || !body_started) return;
    const auto now = Clock::now();
    if (!final_call && now - last_progress < std::chrono::milliseconds(100)) return;
    last_progress = now;
    req->on_progress(base + received, total.value_or(0));
  }
};

size_t on_header(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t len = size * n;
  t->last_byte = Clock::now();
  std::string line(data, len);
  while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.pop_back();
  if (line.rfind("HTTP/", 0) == 0) {  // a new response (after a redirect, say)
    t->status = 0;
    const size_t sp = line.find(' ');
    if (sp != std::string::npos) t->status = std::strtol(line.c_str() + sp + 1, nullptr, 10);
    t->content_length.reset();
    t->range_start.reset();
    t->range_total.reset();
    return len;
  }
  const size_t colon = line.find(':');
  if (colon == std::string::npos) return len;
  const std::string key = lower(line.substr(0, colon));
  std::string value = line.substr(colon + 1);
  value.erase(0, value.find_first_not_of(" \t"));
  if (key == "content-length") {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(value.c_str(), &end, 10);
    if (end != value.c_str()) t->content_length = v;
  } else if (key == "content-range") {
    // "bytes START-END/TOTAL" or "bytes */TOTAL"
    const std::string v = lower(value);
    if (v.rfind("bytes ", 0) == 0) {
      const std::string spec = v.substr(6);
      const size_t slash = spec.find('/');
      if (slash != std::string::npos) {
        const std::string range = spec.substr(0, slash), tot = spec.substr(slash + 1);
        if (tot != "*") t->range_total = std::strtoull(tot.c_str(), nullptr, 10);
        if (range != "*") t->range_start = std::strtoull(range.c_str(), nullptr, 10);
      }
    }
  }
  return len;
}

size_t on_body(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t len = size * n;
  t->last_byte = Clock::now();
  if (!t->start_body()) return 0;
  if (!write_all(t->req->write, t->fd, data, len)) {
    t->write_errno = errno ? errno : EIO;
    return 0;  // CURLE_WRITE_ERROR
  }
  t->hash->update(data, len);
  t->received += len;
  t->progress(false);
  return len;
}

// Also the stall timer: curl's own low-speed check averages over a few seconds, so a burst
// followed by silence would outlast the limit; this counts from the last byte.
int on_xfer(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* t = static_cast<Transfer*>(user);
  t->progress(false);
  if (Clock::now() - t->last_byte > std::chrono::seconds(t->req->stall_timeout_s)) {
    t->stalled = true;
    return 1;  // CURLE_ABORTED_BY_CALLBACK
  }
  return 0;
}

struct Outcome {
  CURLcode rc = CURLE_OK;
  long status = 0;
  std::string error;  // curl's error buffer or strerror
};

// Sends one GET (with Range when t.offset > 0) and streams the body through t.
Outcome run_transfer(const Url& url, Transfer& t) {
  detail::Easy h(curl_easy_init());
  if (!h) throw Error("libcurl: cannot create a handle");
  char errbuf[CURL_ERROR_SIZE] = {0};
  CURL* c = h.get();
  const std::string range = std::to_string(t.offset) + "-";
  const PullRequest& req = *t.req;
  curl_easy_setopt(c, CURLOPT_URL, req.url.c_str());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  // An https URL never follows a redirect down to plain http.
  curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, url.scheme == "https" ? "https" : "http,https");
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(c, CURLOPT_MAXREDIRS, 10L);
  curl_easy_setopt(c, CURLOPT_FAILONERROR, 1L);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_USERAGENT, "meadow-mind/0.1 (pull)");
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, req.connect_timeout_s);
  if (t.offset > 0) curl_easy_setopt(c, CURLOPT_RANGE, range.c_str());
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &t);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_xfer);
  curl_easy_setopt(c, CURLOPT_XFERINFODATA, &t);
  Outcome o;
  o.rc = curl_easy_perform(c);
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &o.status);
  o.error = errbuf[0] ? errbuf : curl_easy_strerror(o.rc);
  return o;
}

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

}  // namespace

PullResult pull(const PullRequest& req) {
  const Url url = parse_url(req.url);
  std::string name = req.file_name.empty() ? file_name_from_url(url) : req.file_name;
  if (name.empty()) throw Error("URL '" + req.url + "' names no file; pass --name FILE.gguf");
  check_file_name(name);
  const std::string sha = req.sha256.empty() ? "" : normalize_sha256(req.sha256);
  detail::ensure_curl_init();

  const fs::path dir = prepare_dir(req.out_dir);
  const fs::path final_path = dir / name;
  const fs::path part = dir / (name + ".part");
  PullResult r;
  r.path = final_path.string();

  std::error_code ec;
  if (fs::exists(fs::symlink_status(final_path, ec))) {
    if (!req.force) {
      accept_existing(final_path, sha, r);
      return r;
    }
    if (fs::is_directory(final_path, ec))
      throw Error(final_path.string() + " is a folder; --force does not replace it");
  }

  Fd fd(::open(part.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
  if (fd.get() < 0) throw Error("cannot write " + part.string() + ": " + errno_text(errno));
  if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0)
    throw Error(part.string() + " is being written by another pull");
  if (req.force && ::ftruncate(fd.get(), 0) != 0)
    throw Error("cannot truncate " + part.string() + ": " + errno_text(errno));

  detail::Sha256 hash;
  uint64_t offset = fd_size(fd.get());
  if (offset > 0) detail::hash_prefix(part.string(), offset, hash);
  r.resumed_from = offset;

  const auto t0 = Clock::now();
  bool complete = false;
  for (int attempt = 0; attempt < 2 && !complete; ++attempt) {
    Transfer t;
    t.req = &req;
    t.fd = fd.get();
    t.offset = offset;
    t.hash = &hash;
    const Outcome o = run_transfer(url, t);
    r.transferred += t.received;
    r.restarted = r.restarted || t.restarted;
    if (t.write_errno)
      throw Error("write " + part.string() + ": " + errno_text(t.write_errno) +
                  " (the .part is kept; free space and pull again to resume)");
    const uint64_t have = fd_size(fd.get());
    const auto restart_from_zero = [&] {
      if (::ftruncate(fd.get(), 0) != 0)
        throw Error("cannot truncate " + part.string() + ": " + errno_text(errno));
      hash.reset();
      offset = 0;
      r.restarted = true;
    };
    if (o.rc == CURLE_HTTP_RETURNED_ERROR && o.status == 416 && offset > 0) {
      if (t.range_total && *t.range_total == offset) {
        complete = true;  // the .part already holds the whole file
        break;
      }
      restart_from_zero();  // a .part longer than the file, or of another file
      continue;
    }
    if (t.bad_range) {
      restart_from_zero();
      continue;
    }
    if (t.wrong_size) {
      fd.close();
      remove_file(part);  // it could not complete this file anyway
      throw Error(req.url + " is " + std::to_string(*t.total) + " bytes, expected " +
                  std::to_string(req.expected_size) + "; not downloaded");
    }
    if (o.rc == CURLE_OK) {
      if (!t.start_body()) {  // an empty body that still had to decide the mode
        if (t.bad_range) {
          restart_from_zero();
          continue;
        }
        throw Error("cannot truncate " + part.string() + ": " + errno_text(t.write_errno));
      }
      r.restarted = r.restarted || t.restarted;
      t.progress(true);
      complete = true;
      break;
    }
    // A failed transfer: keep what arrived for the next pull, drop an empty .part.
    std::string what;
    if (o.rc == CURLE_HTTP_RETURNED_ERROR)
      what = "HTTP " + std::to_string(o.status) + " from " + req.url;
    else if (t.stalled)
      what = "no data for " + std::to_string(req.stall_timeout_s) + " s from " + req.url;
    else
      what = o.error + " (" + req.url + ")";
    if (have == 0) {
      fd.close();
      remove_file(part);
      throw Error(what);
    }
    throw Error(what + "; kept " + part.string() + " (" + std::to_string(have) +
                " bytes): run the same pull again to resume");
  }
  if (!complete) throw Error("the server's Range replies do not add up (" + req.url + ")");
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();

  r.bytes = fd_size(fd.get());
  const auto reject = [&](const std::string& why) {
    fd.close();
    remove_file(part);
    throw Error(why);
  };
  if (req.expected_size && r.bytes != req.expected_size)
    reject("downloaded " + std::to_string(r.bytes) + " bytes, expected " +
           std::to_string(req.expected_size) + "; deleted " + part.string());
  r.sha256 = hash.hex();
  if (!sha.empty() && r.sha256 != sha)
    reject("sha256 mismatch for " + name + ": got " + r.sha256 + ", expected " + sha +
           "; deleted the download");
  r.verified = !sha.empty();
  if (::fsync(fd.get()) != 0)
    throw Error("write " + part.string() + ": " + errno_text(errno) +
                " (the .part is kept; pull again to resume)");
  try {
    const gguf::File f = gguf::File::open(part.string());
    r.arch = f.get_string("general.architecture", "");
  } catch (const Error& e) {
    reject("the download is not a valid GGUF (" + std::string(e.what()) + "); deleted it");
  }
  install(part, final_path, req.force);
  sync_dir(dir);
  if (fd.close() != 0) throw Error("close " + final_path.string() + ": " + errno_text(errno));
  return r;
}

}  // namespace meadow::fetch
