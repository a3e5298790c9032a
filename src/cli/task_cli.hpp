// What the task commands (task_commands.cpp) share with the real-time games' commands
// (realtime_commands.cpp).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "meadow/mind.hpp"
#include "meadow/tasks.hpp"

namespace meadow::cli {

// Prints the exam table; false when the exam failed.
bool run_exam(Mind& mind, const Task& task);
// Creates the folder a file will be written into; throws meadow::Error when it cannot.
void ensure_parent(const std::string& path);
// `meadow-mind parkour` / `shapes`: exam → real-time run (GIF, trace) → result line, then the
// full-generation contender beside it (and, for shapes, the smallest window search).
void add_realtime_task_command(CLI::App& app, const BuiltinTask& bt);

}  // namespace meadow::cli
