// Each command group adds its subcommands to the app; main.cpp wires them together.
#pragma once

#include <CLI/CLI.hpp>

namespace meadow::cli {

// Thrown by a command that has printed its own report and must end with a given exit code
// (1 = failed exam or check). main() returns `code` without printing anything more.
// A meadow::ExamFailed escaping a command is printed and also exits 1.
struct Exit {
  int code = 1;
};

void add_model_commands(CLI::App& app);  // model info, tokenize, logits
void add_env_commands(CLI::App& app);    // env list, env run, env play
void add_mind_commands(CLI::App& app);   // decide, ai-prompt
void add_task_commands(CLI::App& app);   // <task>, list, check, play, bench
void add_pull_command(CLI::App& app);    // pull NAME|URL, pull --list

}  // namespace meadow::cli
