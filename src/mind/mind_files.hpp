// The mind layer's embedded files (src/mind/): agent_guide.md. Compiled in by meadow_embed.
#pragma once

#include <vector>

#include "util/embedded_file.hpp"

namespace meadow::mind {

const std::vector<util::EmbeddedFile>& mind_files();

}  // namespace meadow::mind
