// The playground page's files (src/server/playground/), compiled into the binary by
// cmake/embed_files.cmake.
#pragma once

#include <string_view>
#include <vector>

namespace meadow::server {

struct EmbeddedFile {
  std::string_view name;  // "index.html", "playground.js"
  std::string_view bytes;
};

const std::vector<EmbeddedFile>& playground_files();

}  // namespace meadow::server
