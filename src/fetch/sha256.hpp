// Incremental SHA-256 over OpenSSL's EVP interface (src/fetch only).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include <openssl/evp.h>

namespace meadow::fetch::detail {

class Sha256 {
 public:
  Sha256();  // throws meadow::Error if OpenSSL cannot set up the digest
  void reset();
  void update(const void* data, size_t n);
  std::string hex();  // the digest of everything so far, lowercase; then reset()

 private:
  struct Free {
    void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
  };
  std::unique_ptr<EVP_MD_CTX, Free> ctx_;
};

// Feeds the first n bytes of the file at path into h; throws meadow::Error on a read error or
// a file shorter than n.
void hash_prefix(const std::string& path, uint64_t n, Sha256& h);

}  // namespace meadow::fetch::detail
