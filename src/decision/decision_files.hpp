// The decision layer's embedded files: models/prompt-contract.json. Compiled in by meadow_embed.
#pragma once

#include <vector>

#include "util/embedded_file.hpp"

namespace meadow::decision {

const std::vector<util::EmbeddedFile>& decision_files();

}  // namespace meadow::decision
