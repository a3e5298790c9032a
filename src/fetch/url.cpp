// URL parsing (libcurl's URL API), target file names and hash text.
#include <algorithm>
#include <cctype>
#include <mutex>

#include "fetch/curl_handle.hpp"
#include "meadow/error.hpp"
#include "meadow/runtime/fetch.hpp"
#include "util/printable.hpp"

namespace meadow::fetch {
namespace detail {

void ensure_curl_init() {
  static const CURLcode rc = curl_global_init(CURL_GLOBAL_DEFAULT);
  if (rc != CURLE_OK) throw Error(std::string("libcurl init failed: ") + curl_easy_strerror(rc));
}

}  // namespace detail

namespace {

std::string get_part(CURLU* h, CURLUPart part, unsigned flags = 0) {
  char* raw = nullptr;
  if (curl_url_get(h, part, &raw, flags) != CURLUE_OK || !raw) return "";
  detail::CurlString owned(raw);
  return std::string(raw);
}

}  // namespace

std::string redact_url(std::string_view url) {
  const size_t scheme_end = url.find("://");
  const size_t start = scheme_end == std::string_view::npos ? 0 : scheme_end + 3;
  size_t end = url.find_first_of("/?#", start);
  if (end == std::string_view::npos) end = url.size();
  const size_t at = url.substr(start, end - start).rfind('@');
  if (at == std::string_view::npos) return std::string(url);
  const std::string_view userinfo = url.substr(start, at);
  const size_t colon = userinfo.find(':');
  const std::string shown =
      colon == std::string_view::npos ? "***" : std::string(userinfo.substr(0, colon)) + ":***";
  return std::string(url.substr(0, start)) + shown + std::string(url.substr(start + at));
}

Url parse_url(const std::string& raw_url) {
  detail::ensure_curl_init();
  // Messages show the URL without its password and without raw control bytes.
  const std::string url = util::printable(redact_url(raw_url));
  detail::UrlHandle h(curl_url());
  if (!h) throw Error("out of memory parsing a URL");
  // Any scheme parses here, so that an ftp:// or file:// URL gets its own message.
  const CURLUcode rc =
      curl_url_set(h.get(), CURLUPART_URL, raw_url.c_str(), CURLU_NON_SUPPORT_SCHEME);
  if (rc != CURLUE_OK) throw Error("malformed URL '" + url + "': " + curl_url_strerror(rc));
  Url u;
  u.scheme = get_part(h.get(), CURLUPART_SCHEME);
  std::transform(u.scheme.begin(), u.scheme.end(), u.scheme.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  if (u.scheme != "http" && u.scheme != "https")
    throw Error("unsupported scheme '" + util::printable(u.scheme) + "' in '" + url +
                "' (pull takes https:// or http:// URLs)");
  u.host = get_part(h.get(), CURLUPART_HOST);
  if (u.host.empty()) throw Error("malformed URL '" + url + "': no host");
  u.path = get_part(h.get(), CURLUPART_PATH);
  if (u.path.empty()) u.path.push_back('/');  // (not = "/": GCC 12 warns falsely)
  return u;
}

std::string file_name_from_url(const Url& url) {
  const size_t slash = url.path.rfind('/');
  const std::string seg = slash == std::string::npos ? url.path : url.path.substr(slash + 1);
  if (seg.empty()) return "";
  detail::ensure_curl_init();
  int len = 0;
  char* raw = curl_easy_unescape(nullptr, seg.c_str(), int(seg.size()), &len);
  if (!raw) return seg;
  detail::CurlString owned(raw);
  return std::string(raw, size_t(len));
}

void check_file_name(const std::string& name) {
  if (name.empty()) throw Error("empty target file name");
  if (name.find('/') != std::string::npos)
    throw Error("target file name '" + util::printable(name) + "' must not contain '/'");
  if (name.find("..") != std::string::npos)
    throw Error("target file name '" + util::printable(name) + "' must not contain '..'");
  if (std::any_of(name.begin(), name.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; }))
    throw Error("target file name has control characters");
  const std::string ext = ".gguf";
  if (name.size() <= ext.size() || name.compare(name.size() - ext.size(), ext.size(), ext) != 0)
    throw Error("target file name '" + util::printable(name) + "' must end with .gguf");
  // FILE.part.json (the .part's record) must fit in a file name (255 bytes) too.
  if (name.size() > 240)
    throw Error("target file name is too long (at most 240 bytes, so that FILE.part.json fits)");
}

std::string normalize_sha256(const std::string& hex) {
  std::string out = hex;
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  if (out.size() != 64 || !std::all_of(out.begin(), out.end(), [](char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
      }))
    throw Error("sha256 '" + hex + "' is not 64 hex digits");
  return out;
}

}  // namespace meadow::fetch
