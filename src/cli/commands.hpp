// Each command group adds its subcommands to the app; main.cpp wires them together.
#pragma once

#include <CLI/CLI.hpp>

namespace meadow::cli {

void add_model_commands(CLI::App& app);  // model info, tokenize, logits
void add_env_commands(CLI::App& app);    // env list, env run, env play

}  // namespace meadow::cli
