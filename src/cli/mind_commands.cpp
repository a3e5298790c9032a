// `decide` and `ai-prompt`: the mind's own commands (the tasks' commands live elsewhere).
#include "cli/commands.hpp"

namespace meadow::cli {

void add_mind_commands(CLI::App& app) {}

}  // namespace meadow::cli
