#include "model/tensor_lookup.hpp"

#include <string>

#include "meadow/error.hpp"

namespace meadow::model {

std::string shape_str(const std::vector<uint64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

const gguf::TensorInfo& present(const gguf::File& f, const std::string& name) {
  const gguf::TensorInfo* t = f.find_tensor(name);
  if (!t) throw Error(f.path() + ": missing tensor " + name);
  return *t;
}

const gguf::TensorInfo& checked(const gguf::File& f, const std::string& name,
                                const std::vector<uint64_t>& want) {
  const gguf::TensorInfo& t = present(f, name);
  if (t.dims != want)
    throw Error(f.path() + ": tensor " + name + " has shape " + shape_str(t.dims) + ", expected " +
                shape_str(want));
  return t;
}

tensor::Weights matrix(const gguf::File& f, const std::string& name, int64_t cols, int64_t rows) {
  return tensor::weights_of(checked(f, name, {uint64_t(cols), uint64_t(rows)}));
}

std::vector<float> vec(const gguf::File& f, const std::string& name, int64_t n) {
  const gguf::TensorInfo& t = checked(f, name, {uint64_t(n)});
  if (n % gguf::block_elements(t.type) != 0)
    throw Error(f.path() + ": tensor " + name + " has a block type its length does not fit");
  std::vector<float> out(static_cast<size_t>(n));
  gguf::dequantize(t.type, t.data, out.data(), n);
  return out;
}

}  // namespace meadow::model
