// Viewing a GGUF tensor as a 2-D weight matrix.
#include <string>

#include "meadow/error.hpp"
#include "tensor/ops.hpp"
#include "tensor/quant_blocks.hpp"

namespace meadow::tensor {

Weights weights_of(const gguf::TensorInfo& t) {
  if (t.dims.empty() || t.dims.size() > 2) {
    throw Error("tensor " + t.name + ": expected a 1-D or 2-D weight, got " +
                std::to_string(t.dims.size()) + " dimensions");
  }
  const detail::BlockGeometry g = detail::block_geometry(t.type);
  if (g.elems == 0) throw Error("tensor " + t.name + ": unsupported weight type");
  Weights w;
  w.type = t.type;
  w.data = t.data;
  w.cols = int64_t(t.dims[0]);
  w.rows = t.dims.size() == 2 ? int64_t(t.dims[1]) : 1;
  if (w.cols <= 0 || w.rows <= 0 || w.cols % g.elems != 0) {
    throw Error("tensor " + t.name + ": row length " + std::to_string(w.cols) +
                " is not a positive multiple of the block size " + std::to_string(g.elems));
  }
  if (!t.data) throw Error("tensor " + t.name + ": no data");
  const uint64_t need = uint64_t(w.rows) * uint64_t(w.cols / g.elems) * uint64_t(g.bytes);
  if (t.nbytes != 0 && need > t.nbytes) {
    throw Error("tensor " + t.name + ": " + std::to_string(t.nbytes) + " bytes, shape needs " +
                std::to_string(need));
  }
  return w;
}

}  // namespace meadow::tensor
