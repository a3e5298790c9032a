// Reference quantizers for tests and benches (test support: the product never quantizes; it
// reads what converters wrote). Round to nearest, the format's usual scale choice.
//
//   #include "gguf_quantize.hpp"
//   std::vector<uint8_t> q = meadow::gguf::quantize(TensorType::Q4_K, floats.data(), 256);
#pragma once

#include <cstdint>
#include <vector>

#include "meadow/runtime/gguf.hpp"

namespace meadow::gguf {

// Encodes n float32 values (a multiple of the type's block size) as type t; throws
// meadow::Error on a non-finite value or one the format cannot hold.
std::vector<uint8_t> quantize(TensorType t, const float* src, int64_t n);

}  // namespace meadow::gguf
