// Explicit model download (`meadow-mind pull`): a GGUF fetched over HTTPS (or plain HTTP) with
// libcurl into FILE.part beside the target, resumed with a Range request when the .part is
// there, checked against a SHA-256 when one is known (OpenSSL EVP), opened with the GGUF
// reader, then renamed atomically onto the final name. Nothing else in meadow downloads.
//
//   meadow::fetch::PullRequest req;
//   req.url = "https://…/model.gguf";
//   req.out_dir = cache_dir;              // e.g. ModelSearch::cache_dir()
//   req.sha256 = "…";                     // optional: 64 hex digits
//   meadow::fetch::PullResult r = meadow::fetch::pull(req);  // throws meadow::Error
//
// Guarantees: nothing half-written, unverified or not-a-GGUF ever appears under the final
// name; an existing final file is never replaced unless `force`. A transfer cut mid-way keeps
// FILE.part and its record FILE.part.json (a hash of the exact URL, the server's ETag,
// Last-Modified and length); the next pull continues the .part only for the same URL, with
// "If-Range" so that a file changed on the server comes whole, and only from a reply naming
// the same file; anything else starts again from zero (docs/pull.md, "Resuming"). A hash
// mismatch or a body that is not a GGUF deletes the .part. A password in the URL appears in
// no message and no file: it is shown as user:***@.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include <sys/types.h>

namespace meadow::fetch {

// One entry of the built-in table of community GGUF files (src/fetch/known_models.cpp;
// sources in docs/pull.md).
struct KnownModel {
  std::string_view name;       // what `pull NAME` takes, e.g. "qwen2.5-0.5b"
  std::string_view arch;       // general.architecture of the file: dream, llada, qwen2, llama
  std::string_view quant;      // e.g. "Q4_K_M"
  std::string_view url;        // https, pinned to a repository revision where one is known
  std::string_view file;       // target file name in the cache dir
  uint64_t size = 0;           // exact bytes where the source gives them, else 0
  std::string_view size_text;  // as the model page shows it, e.g. "398 MB"
  std::string_view sha256;     // lowercase hex; empty where no hash was found
};

std::span<const KnownModel> known_models();
const KnownModel* find_known(std::string_view name);  // nullptr if not in the table

// The parts of an http(s) URL that pull needs. parse_url throws meadow::Error
// "malformed URL …" or "unsupported scheme …" (only http and https are accepted).
struct Url {
  std::string scheme;  // "http" or "https", lower case
  std::string host;
  std::string path;  // without query or fragment; "/" if none
};
Url parse_url(const std::string& url);

// The URL with its userinfo's password replaced by "***" ("user:***@host"; a userinfo without
// ':' becomes "***@"), for messages. Textual: works on URLs that do not parse too.
std::string redact_url(std::string_view url);

// The URL path's last segment, percent-decoded; "" if there is none.
std::string file_name_from_url(const Url& url);
// Throws meadow::Error unless name is a plain file name ending in ".gguf" (no '/', no "..",
// no control characters, at most 240 bytes so that FILE.part.json fits beside it).
void check_file_name(const std::string& name);
// Lower-cases a 64-hex-digit SHA-256; throws meadow::Error for anything else.
std::string normalize_sha256(const std::string& hex);
// SHA-256 of a file's bytes, lowercase hex (OpenSSL EVP). Throws meadow::Error.
std::string sha256_file(const std::string& path);

// Writes n bytes at the end of the open file fd; returns bytes written or -1 with errno set,
// like ::write. pull() takes one so tests can inject a failing disk.
using WriteFn = std::function<ssize_t(int fd, const void* data, size_t n)>;

struct PullRequest {
  std::string url;
  std::string out_dir;          // created if missing
  std::string file_name;        // "" = the URL's last path segment
  std::string sha256;           // "" = no known hash: the file is not verified
  uint64_t expected_size = 0;   // 0 = unknown; else a complete file of another size fails
  bool force = false;           // replace an existing final file (and drop any old .part)
  long connect_timeout_s = 30;  // connecting
  long stall_timeout_s = 60;    // abort when no byte arrives for this long
  // Called as bytes arrive (total = 0 while unknown); bytes count the whole file, the .part's
  // earlier bytes included. At most ~10 times a second, and once at the end.
  std::function<void(uint64_t bytes, uint64_t total)> on_progress;
  WriteFn write;  // empty = ::write
};

struct PullResult {
  std::string path;              // the final file
  uint64_t bytes = 0;            // its size
  uint64_t transferred = 0;      // body bytes received in this run
  uint64_t resumed_from = 0;     // the .part's size found (continued from unless restarted)
  bool restarted = false;        // a .part was there but was dropped: see restart_reason
  std::string restart_reason;    // one line, e.g. "the .part was of another URL (…)"
  bool already_present = false;  // the final file was there (and good): nothing downloaded
  bool verified = false;         // its SHA-256 matched the known one
  std::string sha256;            // its SHA-256 (computed)
  std::string arch;              // general.architecture ("" if the file has none)
  double seconds = 0;            // wall time of the transfer
};

// The whole pull; throws meadow::Error with one line naming what failed (unknown scheme,
// HTTP status, connection, write, hash, not a GGUF, existing file). See the guarantees above.
PullResult pull(const PullRequest& req);

}  // namespace meadow::fetch
