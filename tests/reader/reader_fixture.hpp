// A tiny random meadow-reader GGUF for tests (written with the test GGUF writer): a one-layer
// bert encoder (embedding 16, 2 heads, 64 positions) over a small WordPiece vocabulary, with
// every reader.* head and key train/reader/export.py writes. The spec steers what a test needs:
// which tag every token gets (the tag head's bias), whether a default exists, a missing head or
// key, another judge.
#pragma once

#include <array>
#include <string>
#include <vector>

namespace meadow::reader_test {

struct TinyReader {
  std::string reading = "option";  // reader.reading: "option" or "rule" (its heads)
  // Added to the tag head's bias (O, B, I, AND, OR, PRON, ANTE; a pass per rule has no ANTE):
  // a large value makes that tag every token's.
  std::array<float, 7> tag_bias{};
  float ante_bias = -50;          // a pass per rule: added to the antecedent flag's bias
  float default_bias = 0;         // added to the default head's bias
  std::vector<std::string> skip;  // tensors or metadata keys left out
  std::string judge = "late";     // reader.judge
  uint32_t max_tokens = 64;       // reader.max_tokens
  bool wrong_fc1_shape = false;   // reader.judge.fc1.weight one column short
};

// Writes the file (to path) and returns path.
std::string write_tiny_reader(const std::string& path, const TinyReader& spec = {});

// A scratch path under the build dir, unique to this process.
std::string tiny_path(const std::string& name);

}  // namespace meadow::reader_test
