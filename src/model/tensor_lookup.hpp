// Looking tensors up in a model file by name, with the file's path in every error: shared by
// the decoder's and the encoder's weight loaders (private to src/model/).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "meadow/runtime/gguf.hpp"
#include "tensor/ops.hpp"

namespace meadow::model {

std::string shape_str(const std::vector<uint64_t>& dims);

// The tensor `name`; throws meadow::Error "PATH: missing tensor NAME".
const gguf::TensorInfo& present(const gguf::File& f, const std::string& name);

// The tensor `name` with exactly the dims `want` (ggml order); throws otherwise.
const gguf::TensorInfo& checked(const gguf::File& f, const std::string& name,
                                const std::vector<uint64_t>& want);

// A [rows x cols] weight matrix read in place.
tensor::Weights matrix(const gguf::File& f, const std::string& name, int64_t cols, int64_t rows);

// A length-n vector dequantized to float.
std::vector<float> vec(const gguf::File& f, const std::string& name, int64_t n);

}  // namespace meadow::model
