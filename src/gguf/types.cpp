// Block geometry and names of the ggml tensor types this reader supports.
#include <string>

#include "gguf/blocks.hpp"
#include "meadow/error.hpp"
#include "meadow/runtime/gguf.hpp"

namespace meadow::gguf {

bool is_supported(uint32_t raw_type) {
  switch (static_cast<TensorType>(raw_type)) {
    case TensorType::F32:
    case TensorType::F16:
    case TensorType::BF16:
    case TensorType::Q8_0:
    case TensorType::Q4_0:
    case TensorType::Q4_1:
    case TensorType::Q5_0:
    case TensorType::Q5_1:
    case TensorType::Q4_K:
    case TensorType::Q5_K:
    case TensorType::Q6_K:
    case TensorType::Q8_K:
      return true;
  }
  return false;
}

int64_t block_elements(TensorType t) {
  switch (t) {
    case TensorType::F32:
    case TensorType::F16:
    case TensorType::BF16:
      return 1;
    case TensorType::Q8_0:
      return blocks::kQ8_0Elems;
    case TensorType::Q4_0:
    case TensorType::Q4_1:
    case TensorType::Q5_0:
    case TensorType::Q5_1:
      return blocks::kQ4_0Elems;
    case TensorType::Q4_K:
    case TensorType::Q5_K:
    case TensorType::Q6_K:
    case TensorType::Q8_K:
      return blocks::kQK;
  }
  throw Error("unsupported tensor type " + std::to_string(uint32_t(t)));
}

int64_t block_bytes(TensorType t) {
  switch (t) {
    case TensorType::F32:
      return 4;
    case TensorType::F16:
    case TensorType::BF16:
      return 2;
    case TensorType::Q8_0:
      return blocks::kQ8_0Bytes;
    case TensorType::Q4_0:
      return blocks::kQ4_0Bytes;
    case TensorType::Q4_1:
      return blocks::kQ4_1Bytes;
    case TensorType::Q5_0:
      return blocks::kQ5_0Bytes;
    case TensorType::Q5_1:
      return blocks::kQ5_1Bytes;
    case TensorType::Q4_K:
      return blocks::kQ4_KBytes;
    case TensorType::Q5_K:
      return blocks::kQ5_KBytes;
    case TensorType::Q6_K:
      return blocks::kQ6_KBytes;
    case TensorType::Q8_K:
      return blocks::kQ8_KBytes;
  }
  throw Error("unsupported tensor type " + std::to_string(uint32_t(t)));
}

// Names of all ggml type ids (so an error can say "Q4_1", not just "3"); ids 4, 5 and
// 31..33 are retired in ggml.
const char* type_name(TensorType t) {
  static constexpr const char* kNames[] = {
      "F32",   "F16",        "Q4_0",       "Q4_1",       "Q4_2",     "Q4_3",     "Q5_0",
      "Q5_1",  "Q8_0",       "Q8_1",       "Q2_K",       "Q3_K",     "Q4_K",     "Q5_K",
      "Q6_K",  "Q8_K",       "IQ2_XXS",    "IQ2_XS",     "IQ3_XXS",  "IQ1_S",    "IQ4_NL",
      "IQ3_S", "IQ2_S",      "IQ4_XS",     "I8",         "I16",      "I32",      "I64",
      "F64",   "IQ1_M",      "BF16",       "Q4_0_4_4",   "Q4_0_4_8", "Q4_0_8_8", "TQ1_0",
      "TQ2_0", "IQ4_NL_4_4", "IQ4_NL_4_8", "IQ4_NL_8_8", "MXFP4"};
  const auto i = static_cast<uint32_t>(t);
  return i < std::size(kNames) ? kNames[i] : "unknown";
}

uint64_t row_bytes(TensorType t, uint64_t n) {
  const auto be = static_cast<uint64_t>(block_elements(t));
  if (n % be != 0) {
    throw Error(std::to_string(n) + " elements is not a multiple of the " + type_name(t) +
                " block size " + std::to_string(be));
  }
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(n / be, static_cast<uint64_t>(block_bytes(t)), &bytes)) {
    throw Error(std::to_string(n) + " elements of " + type_name(t) + " overflow a byte count");
  }
  return bytes;
}

}  // namespace meadow::gguf
