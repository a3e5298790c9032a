// The low-rank product of a LoRA pair, added onto a matmul's output.
#include <cblas.h>

#include "tensor/blas_core.hpp"
#include "tensor/ops.hpp"

namespace meadow::tensor {

void add_low_rank(const float* a, const float* b, int64_t rank, int64_t rows, int64_t cols,
                  const float* x, int64_t n, float* y, float* scratch) {
  if (n <= 0 || rank <= 0) return;
  detail::set_blas_threads(1);
  // scratch = x · Aᵀ [n, rank]; then y += scratch · Bᵀ (beta = 1: no second buffer, no add
  // loop). Plain sgemm even for a few tokens: the dot-product kernels pay a per-row cost that
  // rows of only `rank` floats (B) cannot amortise.
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, int(n), int(rank), int(cols), 1.0f, x,
              int(cols), a, int(cols), 0.0f, scratch, int(rank));
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, int(n), int(rows), int(rank), 1.0f, scratch,
              int(rank), b, int(rank), 1.0f, y, int(rows));
}

}  // namespace meadow::tensor
