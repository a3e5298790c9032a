// RAII owners for libcurl handles, and libcurl's one-time global init (src/fetch only).
#pragma once

#include <curl/curl.h>

#include <memory>

namespace meadow::fetch::detail {

// curl_global_init once per process, before the first handle (thread-safe: a function static).
void ensure_curl_init();

struct EasyDeleter {
  void operator()(CURL* h) const { curl_easy_cleanup(h); }
};
struct UrlDeleter {
  void operator()(CURLU* h) const { curl_url_cleanup(h); }
};
struct SlistDeleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};
struct CurlFree {
  void operator()(char* p) const { curl_free(p); }
};

using Easy = std::unique_ptr<CURL, EasyDeleter>;
using UrlHandle = std::unique_ptr<CURLU, UrlDeleter>;
using Slist = std::unique_ptr<curl_slist, SlistDeleter>;
using CurlString = std::unique_ptr<char, CurlFree>;

}  // namespace meadow::fetch::detail
