// Tool calls from fixed JSON scaffolds: the call's structure is ours, only the argument values
// are infilled by a diffusion model (meadow/runtime/generate.hpp), and each value is escaped when
// the JSON is written, so the output always parses whatever the model emits.
//
//   {"name": "read_file", "arguments": {"path": "<gap>"}}
//
// The tool is given, or chosen by one decision pass over the tools' descriptions
// (meadow/runtime/decider.hpp).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "meadow/runtime/generate.hpp"

namespace meadow::generate {

struct Tool {
  std::string name;
  std::string description;             // one line: what it does
  std::vector<std::string> arguments;  // argument names, in call order
};

// read_file(path), write_file(path, content), run_bash(command), search_code(query, path),
// git_commit(message).
const std::vector<Tool>& builtin_tools();

// User-defined tools from a JSON file: a list of {"name", "description", "arguments": [..]}
// or OpenAI function schemas ({"type": "function", "function": {"name", "description",
// "parameters": {"properties": {...}}}}). Throws meadow::Error naming the file and problem.
std::vector<Tool> load_tools(const std::string& path);

struct ToolCall {
  std::string name;
  std::vector<std::pair<std::string, std::string>> arguments;  // values as infilled, trimmed
  std::string json;  // {"name": ..., "arguments": {...}}: always valid JSON
  bool chosen_by_model = false;
  double ms = 0;
};

// The JSON of a call, each value escaped (quotes, backslashes, control characters, invalid
// UTF-8 replaced).
std::string tool_call_json(const std::string& name,
                           const std::vector<std::pair<std::string, std::string>>& arguments);

// A value as the model wrote it, cleaned: special tokens are already dropped by decoding;
// surrounding whitespace trimmed.
std::string clean_value(std::string raw);

// Picks the tool (by `tool_name`, else one decision pass), then infills `value_tokens` tokens
// per argument into the scaffold after the request's chat prompt. Throws meadow::Error for an
// unknown tool, no tools, or a causal model (infill needs a diffusion model).
ToolCall tool_call(const model::Model& model, const Tokenizer& tok, const std::string& request,
                   const std::vector<Tool>& tools, const std::string& tool_name, int value_tokens,
                   const GenerateOptions& opts);

}  // namespace meadow::generate
