// y = x · Wᵀ for weights of any GGUF type. Two strategies:
//  - few tokens (decode, option-letter rows): SIMD dot products straight on the quantized
//    blocks; the weights are read once and memory bandwidth is the limit.
//  - many tokens: decode tiles of W to float32 (bounded scratch, in parallel) and hand each
//    tile to OpenBLAS sgemm, which is compute-bound and far faster than any dot loop.
// And, for block-quantized weights, an integer path (tensor/quant_dot.hpp): x quantized to
// int8 per 32-value block once per call, then integer dot products over rows split by thread.
#include <cblas.h>
#include <sys/mman.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "meadow/error.hpp"
#include "tensor/blas_core.hpp"
#include "tensor/ops.hpp"
#include "tensor/parallel.hpp"
#include "tensor/quant_blocks.hpp"
#include "tensor/quant_dot.hpp"
#include "tensor/simd_kernels.hpp"

namespace meadow::tensor {
namespace {

constexpr int64_t kGemmMinTokens = 8;  // below this, dot products beat decode + sgemm
// F32 weights up to this many tokens: register tiles beat sgemm, whose packing of the weight
// matrix on every call the few rows cannot amortize. Measured on nano (A/B, one run): decisions
// (33 rows) 2-5 % faster; at 138 rows sgemm is 17 % faster.
constexpr int64_t kTileMaxTokens = 64;
// Rows per sgemm call: wide enough that re-packing x per call stays a few % of the multiply.
constexpr int64_t kTileRows = 256;
// Columns decoded per sgemm call: 256 rows x 4608 floats = 4.5 MiB of scratch per thread.
constexpr int64_t kMaxChunkCols = 4608;

void check_weights(const Weights& w) {
  const detail::BlockGeometry g = detail::block_geometry(w.type);
  if (g.elems == 0) throw Error("matmul: unsupported weight type");
  if (!w.data || w.rows <= 0 || w.cols <= 0 || w.cols % g.elems != 0) {
    throw Error("matmul: bad weights (" + std::to_string(w.rows) + " x " + std::to_string(w.cols) +
                ")");
  }
}

void dot_path(const Weights& w, const int32_t* rows, int64_t k, const float* x, int64_t n, float* y,
              Threads th) {
  const int64_t grain = std::max<int64_t>(16, k / (4 * std::max(th.n, 1)));
  detail::parallel_for(k, grain, th, [&](int64_t b, int64_t e, int) {
    detail::dot_rows(w, rows, b, e, x, n, y, k);
  });
}

// Float32 weights and a few activation rows: register tiles over the weights in place, rows
// split over threads.
void tile_path(const Weights& w, int64_t k, const float* x, int64_t n, float* y, Threads th) {
  const auto* base = static_cast<const float*>(w.data);
  const int64_t grain = std::max<int64_t>(16, k / (4 * std::max(th.n, 1)));
  detail::parallel_for(k, grain, th, [&](int64_t b, int64_t e, int) {
    detail::tile_rows_f32(base, b, e, w.cols, x, n, y, k);
  });
}

// Tiles of kTileRows weight rows, handed out dynamically to our threads; each thread decodes
// its tile to float and runs a single-threaded sgemm on it. No barriers between decode and
// multiply, so a thread the OS preempts does not stall the others; decoding costs ~3 % of the
// multiply. Wide rows are split into column chunks (accumulated with beta = 1) so scratch stays
// one bounded chunk per thread, never the whole matrix.
void gemm_path(const Weights& w, const int32_t* rows, int64_t k, const float* x, int64_t n,
               float* y, Threads th) {
  const bool f32 = w.type == gguf::TensorType::F32 && !rows;
  // Up to kTileRows rows per tile, fewer when that would leave threads idle (min 64 rows).
  const int64_t per_thread = (k + th.n - 1) / std::max(th.n, 1);
  const int64_t tile =
      std::min(k, std::min(kTileRows, std::max<int64_t>(64, (per_thread + 15) / 16 * 16)));
  const int64_t block = detail::block_geometry(w.type).elems;
  const int64_t n_chunks = (w.cols + kMaxChunkCols - 1) / kMaxChunkCols;
  const int64_t blocks_per_chunk = (w.cols / block + n_chunks - 1) / n_chunks;
  const int64_t chunk = f32 ? w.cols : blocks_per_chunk * block;
  std::vector<std::vector<float>> own;  // only without the caller's scratch
  if (th.scratch.size() < size_t(std::max(1, th.n))) own.resize(size_t(std::max(1, th.n)));
  const std::span<std::vector<float>> scratch = own.empty() ? th.scratch : std::span(own);
  if (!f32)  // every worker's buffer grown now, whichever tiles it gets (see attention)
    for (std::vector<float>& buf : scratch.first(size_t(std::max(1, th.n))))
      if (buf.size() < size_t(tile * chunk)) buf.resize(size_t(tile * chunk));
  detail::warn_once_if_slow_blas();
  detail::set_blas_threads(1);
  detail::parallel_for(k, tile, th, [&](int64_t b, int64_t e, int worker) {
    for (int64_t c0 = 0; c0 < w.cols; c0 += chunk) {
      const int64_t nc = std::min(chunk, w.cols - c0);
      const float* panel = static_cast<const float*>(w.data) + b * w.cols;
      int64_t ld = w.cols;
      bool transposed = false;  // packed weights decode as sgemm's B: [nc, e - b]
      if (!f32) {
        auto& buf = scratch[size_t(worker)];
        if (buf.size() < size_t(tile * chunk)) buf.resize(size_t(tile * chunk));
        transposed = w.packed && !rows;
        if (transposed) {
          detail::decode_packed(w, b, e - b, c0, nc, buf.data(), e - b);
        } else {
          detail::decode_rows(w, rows ? rows + b : nullptr, b, e - b, c0, nc, buf.data());
        }
        panel = buf.data();
        ld = transposed ? e - b : nc;
      }
      cblas_sgemm(CblasRowMajor, CblasNoTrans, transposed ? CblasNoTrans : CblasTrans, int(n),
                  int(e - b), int(nc), 1.0f, x + c0, int(w.cols), panel, int(ld),
                  c0 == 0 ? 0.0f : 1.0f, y + b, int(k));
    }
  });
}

// x quantized for the integer kernels (into th's reused buffers, else into own), and every
// worker's row buffers grown for this call by the calling thread.
const detail::QuantizedActs& quantized_input(const float* x, int64_t n, int64_t cols, Threads th,
                                             detail::QuantizedActs& own, bool packed,
                                             int64_t span) {
  detail::QuantizedActs& qa = th.ints ? th.ints[0].acts : own;
  detail::quantize_acts(x, n, cols, qa, th, n >= detail::kPanelMinTokens || packed, span);
  if (th.ints)
    for (int w = 0; w < std::max(th.n, 1); ++w) detail::reserve_rows(th.ints[w].rows, n, cols);
  return qa;
}

// Rows per piece of work on the integer path: whole panels of 16, about 4 pieces per thread.
int64_t int_grain(int64_t k, Threads th) {
  return (std::max<int64_t>(16, k / (4 * std::max(th.n, 1))) + 15) / 16 * 16;
}

// Activations quantized once, then rows split over threads; each task unpacks its rows one at
// a time and multiplies each with all n tokens.
void int_path(const Weights& w, const int32_t* rows, int64_t k, const float* x, int64_t n, float* y,
              Threads th) {
  detail::QuantizedActs own;
  const detail::QuantizedActs& qa =
      quantized_input(x, n, w.cols, th, own, w.packed != nullptr, detail::act_span(w.type));
  detail::parallel_for(k, int_grain(k, th), th, [&](int64_t b, int64_t e, int worker) {
    detail::dot_rows_int(w, rows, b, e, qa, y, k, th.ints ? &th.ints[worker].rows : nullptr);
  });
}

// MEADOW_MATMUL=float|int overrides Auto for a whole run (A/B checks of decisions); read once.
MatmulPath env_override() {
  static const MatmulPath p = [] {
    const char* v = std::getenv("MEADOW_MATMUL");
    if (!v) return MatmulPath::Auto;
    const std::string s(v);
    if (s == "float") return MatmulPath::Float;
    if (s == "int") return MatmulPath::Integer;
    return MatmulPath::Auto;
  }();
  return p;
}

// Measured (docs/measurements.md): from 4 tokens the panel kernel runs 1.5-4.4x the float path
// on 7B shapes and 2.6-3.9x on SmolLM2's 576-wide ones, on every type. At 1-3 tokens the
// AVX-512 direct kernels win for Q4_0 (1.7-2.7x), Q4_1 and Q8_0 (1.1-1.5x) and Q4_K (1.3-2.3x);
// without them Q4_0 and Q6_K still gain (their float loops decode through a buffer), the
// others do not. Narrower weights stay in float.
bool integer_wins_at(const Weights& w, int64_t n) {
  using TT = gguf::TensorType;
  if (n >= detail::kPanelMinTokens || w.type == TT::Q4_0 || w.type == TT::Q6_K) return true;
  return detail::direct_few_tokens() &&
         (w.type == TT::Q4_1 || w.type == TT::Q4_K || w.type == TT::Q8_0);
}

bool integer_wins(const Weights& w, int64_t n) {
  return w.cols >= kIntegerMinCols &&
         integer_wins_at(w, n);  // a supported type (the caller checks)
}

void product(const Weights& w, const int32_t* rows, int64_t k, const float* x, int64_t n, float* y,
             Threads th, MatmulPath path) {
  check_weights(w);
  if (n <= 0 || k <= 0) return;
  if (takes_integer(w, n, path)) return int_path(w, rows, k, x, n, y, th);
  // Packed weights are decoded from the packed copy (their file pages are released).
  if (n < kGemmMinTokens && !(w.packed && !rows)) return dot_path(w, rows, k, x, n, y, th);
  if (w.type == gguf::TensorType::F32 && !rows && n <= kTileMaxTokens)
    return tile_path(w, k, x, n, y, th);
  gemm_path(w, rows, k, x, n, y, th);
}

}  // namespace

void matmul(const Weights& w, const float* x, int64_t n, float* y, Threads th) {
  matmul(w, x, n, y, th, th.matmul);
}

void matmul(const Weights& w, const float* x, int64_t n, float* y, Threads th, MatmulPath path) {
  product(w, nullptr, w.rows, x, n, y, th, path);
}

void matmul_shared(std::span<const Weights* const> ws, const float* x, int64_t n,
                   std::span<float* const> ys, Threads th) {
  if (ws.size() != ys.size()) throw Error("matmul_shared: as many outputs as weights");
  // A piece: rows [b, e) of matrix m. Fixed storage (the hot path allocates nothing): at most
  // kMaxMatrices matrices of at most kMaxPieces / kMaxMatrices pieces each.
  struct Piece {
    int m;
    int64_t b, e;
  };
  constexpr size_t kMaxMatrices = 8, kMaxPieces = 96;
  bool together = ws.size() > 1 && ws.size() <= kMaxMatrices && n > 0, packed = false;
  for (const Weights* w : ws) {
    check_weights(*w);
    if (w->cols != ws[0]->cols) throw Error("matmul_shared: the weights' widths differ");
    together &= takes_integer(*w, n, th.matmul);
    // One quantization for all: their types must agree on its span (else each its own).
    together &= detail::act_span(w->type) == detail::act_span(ws[0]->type);
    packed |= w->packed != nullptr;  // any packed matrix reads the grouped layout
  }
  if (!together) {
    for (size_t m = 0; m < ws.size(); ++m) matmul(*ws[m], x, n, ys[m], th);
    return;
  }
  std::array<Piece, kMaxPieces> pieces;
  size_t np = 0;
  for (size_t m = 0; m < ws.size(); ++m) {
    const int64_t k = ws[m]->rows;
    const int64_t per = int64_t(kMaxPieces / kMaxMatrices);
    const int64_t grain = std::max(int_grain(k, th), ((k + per - 1) / per + 15) / 16 * 16);
    for (int64_t b = 0; b < k; b += grain) pieces[np++] = {int(m), b, std::min(k, b + grain)};
  }
  detail::QuantizedActs own;
  const detail::QuantizedActs& qa =
      quantized_input(x, n, ws[0]->cols, th, own, packed, detail::act_span(ws[0]->type));
  detail::parallel_for(int64_t(np), 1, th, [&](int64_t b, int64_t e, int worker) {
    for (int64_t i = b; i < e; ++i) {
      const Piece& p = pieces[size_t(i)];
      const Weights& w = *ws[size_t(p.m)];
      detail::dot_rows_int(w, nullptr, p.b, p.e, qa, ys[size_t(p.m)], w.rows,
                           th.ints ? &th.ints[worker].rows : nullptr);
    }
  });
}

void matmul_rows(const Weights& w, const int32_t* rows, int64_t k, const float* x, int64_t n,
                 float* y, Threads th) {
  matmul_rows(w, rows, k, x, n, y, th, th.matmul);
}

void IntScratchDeleter::operator()(detail::IntScratch* p) const {
  delete[] p;
}

IntScratchArray make_int_scratch(int workers) {
  return IntScratchArray(new detail::IntScratch[size_t(std::max(workers, 1))]);
}

bool takes_integer(const Weights& w, int64_t n, MatmulPath path) {
  if (!detail::int_dot_supported(w.type)) return false;
  if (path != MatmulPath::Auto) return path == MatmulPath::Integer;
  switch (env_override()) {
    case MatmulPath::Float:
      return false;
    case MatmulPath::Integer:  // at any width (A/B runs of small models)
      return integer_wins_at(w, n);
    case MatmulPath::Auto:
      break;
  }
  return integer_wins(w, n);
}

void matmul_rows(const Weights& w, const int32_t* rows, int64_t k, const float* x, int64_t n,
                 float* y, Threads th, MatmulPath path) {
  check_weights(w);
  for (int64_t i = 0; i < k; ++i) {
    if (rows[i] < 0 || rows[i] >= w.rows) {
      throw Error("matmul_rows: row " + std::to_string(rows[i]) + " out of range [0, " +
                  std::to_string(w.rows) + ")");
    }
  }
  product(w, rows, k, x, n, y, th, path);
}

void PagesDeleter::operator()(uint8_t* p) const {
  ::munmap(p, bytes);
}

PackedPages pack_weights(const Weights& w) {
  check_weights(w);
  const auto bytes = size_t(detail::packed_bytes(w));
  if (bytes == 0) return nullptr;
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    throw Error("pack_weights: out of memory for " + std::to_string(bytes) + " bytes");
  PackedPages out(static_cast<uint8_t*>(p), PagesDeleter{bytes});
  ::madvise(p, bytes, MADV_HUGEPAGE);  // advice: without it, 4 KiB pages
  detail::pack_rows(w, out.get());
  return out;
}

void dequantize_row(const Weights& w, int64_t row, float* out) {
  check_weights(w);
  if (row < 0 || row >= w.rows) {
    throw Error("dequantize_row: row " + std::to_string(row) + " out of range");
  }
  detail::decode_rows(w, nullptr, row, 1, 0, w.cols, out);
}

}  // namespace meadow::tensor
