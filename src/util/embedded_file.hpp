// A file compiled into the binary by cmake/embed_files.cmake (meadow_embed in CMakeLists.txt):
// the playground page, the agent guide, the prompt contract. Nothing to install or find at run
// time.
#pragma once

#include <string_view>
#include <vector>

namespace meadow::util {

struct EmbeddedFile {
  std::string_view name;  // the file's name in its source folder: "index.html"
  std::string_view bytes;
};

// The file called `name` among `files`, or nullptr.
inline const EmbeddedFile* find_embedded(const std::vector<EmbeddedFile>& files,
                                         std::string_view name) {
  for (const EmbeddedFile& f : files)
    if (f.name == name) return &f;
  return nullptr;
}

}  // namespace meadow::util
