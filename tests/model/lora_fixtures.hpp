// Test helpers for LoRA adapters: a random adapter for a fixture model (editable before it is
// written, so tests can break it one way at a time) and the hand-merged model — the base with
// every adapted weight replaced by float32 W + (alpha / r) B A — that an adapted run must
// equal.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "meadow/runtime/gguf.hpp"

namespace meadow::lora_test {

struct AdapterTensor {
  std::string name;
  std::vector<uint64_t> dims;  // ggml order
  std::vector<float> data;
};

struct AdapterSpec {
  std::vector<std::pair<std::string, gguf::Value>> kv;  // metadata, in order
  std::vector<AdapterTensor> tensors;

  void set(const std::string& key, gguf::Value v);  // replaces or appends
  void erase_key(const std::string& key);
  AdapterTensor& tensor(const std::string& name);  // throws if absent
  void erase_tensor(const std::string& name);
  // Tensors as F32, or F16 / BF16 (rounded by the writer).
  void write(const std::string& path, gguf::TensorType type = gguf::TensorType::F32) const;
};

// general.type "adapter", adapter.type "lora", adapter.lora.alpha, general.architecture of the
// base; a pair for each of the seven projections of every layer: A ~ U(-1, 1) / sqrt(n_in),
// B ~ N(0, b_std^2).
AdapterSpec random_adapter(const gguf::File& base, int64_t rank, float alpha, uint32_t seed,
                           float b_std = 0.05f);

// The base with each adapted weight replaced by float32 W + (alpha / r) B A (double
// accumulation), every other key and tensor copied as is.
void write_merged(const gguf::File& base, const AdapterSpec& adapter, const std::string& path);

// <build>/model_fixtures/NAME: where these tests write their files.
std::string fixture_path(const std::string& name);

}  // namespace meadow::lora_test
