// Shared helpers of the tasks tests: a random-weight model with the embedded model's
// tokenizer (tests/decision/make_train_fixture.py), and a GIF frame counter that walks the
// file's blocks independently of the writer.
#pragma once

#include <string>

namespace meadow::testing {

// Path of a random-weight dream GGUF, made once per process under MEADOW_BINARY_DIR.
std::string random_model();

// Image descriptors in a GIF file (walks header, colour tables, extensions and sub-blocks).
// Throws std::runtime_error for a malformed file.
int gif_frame_count(const std::string& path);

// The embedded model's path, or "" while models/meadow-nano.gguf does not exist.
std::string embedded_model();

}  // namespace meadow::testing
