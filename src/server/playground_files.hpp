// The playground page's files (src/server/playground/), compiled into the binary by
// cmake/embed_files.cmake.
#pragma once

#include <vector>

#include "util/embedded_file.hpp"

namespace meadow::server {

const std::vector<util::EmbeddedFile>& playground_files();

}  // namespace meadow::server
