// Each command group adds its subcommands to the app; run_cli.cpp wires them together.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace meadow::cli {

// Thrown by a command that has printed its own report and must end with a given exit code
// (1 = failed exam or check). main() returns `code` without printing anything more.
// A meadow::ExamFailed escaping a command is printed and also exits 1.
struct Exit {
  int code = 1;
};

// --model NAME|PATH on a command; an empty value is a usage error (it would otherwise fall
// back silently to the default model).
CLI::Option* add_model_option(CLI::App* app, std::string& model, bool required = false);
// --lora FILE beside --model: a LoRA adapter GGUF applied on top of the model
// (meadow/runtime/model.hpp).
CLI::Option* add_lora_option(CLI::App* app, std::string& lora);
// --float-recheck M: models on the integer kernels decide again in float under this margin.
CLI::Option* add_float_recheck_option(CLI::App* app, double& margin);

void add_model_commands(CLI::App& app);    // model info, model list, tokenize, logits
void add_encoder_commands(CLI::App& app);  // hidden (BERT-family encoders)
// `model info` of a bert file (printed, or one JSON object); false when the file is not one.
bool encoder_info(const std::string& path, bool as_json);
void add_env_commands(CLI::App& app);     // env list, env run, env play
void add_mind_commands(CLI::App& app);    // decide, ai-prompt
void add_task_commands(CLI::App& app);    // <task>, list, check, play, bench
void add_reading_command(CLI::App& app);  // reading (exam sets, side by side)
void add_reader_commands(CLI::App& app);  // read-rule (a meadow-reader's reading of a rule)
void add_pull_command(CLI::App& app);     // pull NAME|URL, pull --list
void add_text_commands(CLI::App& app);    // generate, draft, route, infill, tool-call
void add_latency_command(CLI::App& app);  // latency (decision vs generation, plotted)
void add_serve_command(CLI::App& app);    // serve (the HTTP server)

}  // namespace meadow::cli
