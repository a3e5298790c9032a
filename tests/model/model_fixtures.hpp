// Test helpers: random-weight fixtures made by tools/make_fixture.py into the build dir,
// and logits from the independent NumPy reference (tests/model/reference_forward.py).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace meadow::model_test {

// Runs a shell command; returns its stdout. Fails the test (throws) on a non-zero exit.
std::string run_command(const std::string& cmd);

// Path of a fixture generated once per test process: make_fixture.py --arch ARCH
// --type TYPE EXTRA --out <build>/model_fixtures/<name>.gguf
std::string fixture(const std::string& name, const std::string& arch, const std::string& type,
                    const std::string& extra = "");

// Small shapes per weight type: hidden 64 (ffn 128) for plain and 32-blocks, hidden 256
// (ffn 256) for the K-quants, whose rows must be multiples of 256.
std::string shape_args(const std::string& type);

// Logits rows of the reference forward ("natural" or "prefix" mask).
std::vector<std::vector<double>> reference_logits(const std::string& model,
                                                  const std::vector<int32_t>& ids,
                                                  const std::vector<int64_t>& positions,
                                                  const std::string& mask = "natural",
                                                  int64_t prefix_len = 0,
                                                  const std::vector<int32_t>& vocab_rows = {});

// max |a - b| / max |b| over one row.
double rel_error(const float* a, const std::vector<double>& b);

}  // namespace meadow::model_test
