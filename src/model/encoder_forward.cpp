#include "model/encoder_forward.hpp"

namespace meadow::model {
namespace {

template <class T>
void grow(std::vector<T>& v, int64_t n) {
  if (v.size() < size_t(n)) v.resize(size_t(n));
}

void add(float* y, const float* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] += x[i];
}

// x = LayerNorm(x + y) with y = w · in + bias: BERT's post-norm residual step. y is scratch.
void project_residual_norm(const tensor::Weights& w, const std::vector<float>& bias,
                           const float* in, const std::vector<float>& norm_w,
                           const std::vector<float>& norm_b, float eps, float* x, float* y,
                           int64_t n, int64_t e, tensor::Threads th) {
  tensor::matmul(w, in, n, y, th);
  tensor::add_bias(y, bias.data(), n, e);
  add(y, x, n * e);
  tensor::layernorm(y, norm_w.data(), norm_b.data(), x, n, e, eps);
}

}  // namespace

const std::vector<float>& encoder_layers(const EncoderConfig& c, const EncoderWeights& w,
                                         std::span<const int32_t> tokens,
                                         std::span<const int32_t> types,
                                         std::span<const Segment> segs, WorkspaceBuffers& b,
                                         tensor::Threads th) {
  const int64_t n = int64_t(tokens.size()), e = c.n_embd;
  b.x.resize(size_t(n * e));
  grow(b.h, n * e);
  grow(b.q, n * e);
  grow(b.k, n * e);
  grow(b.v, n * e);
  grow(b.att, n * e);
  grow(b.up, n * c.n_ff);
  float* x = b.x.data();
  float* h = b.h.data();

  // Embeddings, summed in BertEmbeddings' order: (word + token type) + position.
  for (const Segment& s : segs) {
    for (int64_t i = 0; i < s.len; ++i) {
      const int64_t t = s.start + i;
      tensor::dequantize_row(w.token_embd, tokens[size_t(t)], x + t * e);
      tensor::dequantize_row(w.token_types, types[size_t(t)], h);
      add(x + t * e, h, e);
      tensor::dequantize_row(w.position_embd, i, h);
      add(x + t * e, h, e);
    }
  }
  tensor::layernorm(x, w.embd_norm_w.data(), w.embd_norm_b.data(), x, n, e, c.norm_eps);

  for (const EncoderLayer& l : w.layers) {
    const tensor::Weights* qkv[] = {&l.wq, &l.wk, &l.wv};
    float* const outs[] = {b.q.data(), b.k.data(), b.v.data()};
    tensor::matmul_shared(qkv, x, n, outs, th);
    tensor::add_bias(b.q.data(), l.bq.data(), n, e);
    tensor::add_bias(b.k.data(), l.bk.data(), n, e);
    tensor::add_bias(b.v.data(), l.bv.data(), n, e);
    for (const Segment& s : segs) {
      const int64_t o = s.start * e;
      tensor::attention(b.q.data() + o, s.len, 0, b.k.data() + o, b.v.data() + o, s.len, c.n_head,
                        c.n_head, c.head_dim, tensor::AttnMask::Full, b.att.data() + o, th);
    }
    project_residual_norm(l.wo, l.bo, b.att.data(), l.attn_norm_w, l.attn_norm_b, c.norm_eps, x, h,
                          n, e, th);
    tensor::matmul(l.up, x, n, b.up.data(), th);
    tensor::add_bias(b.up.data(), l.b_up.data(), n, c.n_ff);
    tensor::gelu(b.up.data(), n * c.n_ff, th);
    project_residual_norm(l.down, l.b_down, b.up.data(), l.out_norm_w, l.out_norm_b, c.norm_eps, x,
                          h, n, e, th);
  }
  return b.x;
}

}  // namespace meadow::model
