#include "model/forward.hpp"

#include <algorithm>

#include "model/lora.hpp"
#include "tensor/ops.hpp"

namespace meadow::model {
namespace {

using tensor::AttnMask;

// Grows v to at least n elements; never shrinks, so a reused workspace stops allocating.
template <class T>
void grow(std::vector<T>& v, int64_t n) {
  if (v.size() < size_t(n)) v.resize(size_t(n));
}

// Attention of one segment for one layer. q/k/v rows of the segment are contiguous.
void attend(const Config& c, const PassSpec& spec, int64_t layer, const float* q, const float* k,
            const float* v, int64_t n, float* out) {
  const int64_t qd = c.n_head * c.head_dim;
  const tensor::Threads th = spec.threads;
  const AttnMask natural = c.causal ? AttnMask::Causal : AttnMask::Full;
  if (spec.prefix) {
    // Keys = the cached prefix K/V, then this segment's own, attended where they lie.
    const int64_t p = spec.prefix->size();
    const tensor::KvPart parts[] = {
        {spec.prefix->k[size_t(layer)].data(), spec.prefix->v[size_t(layer)].data(), p}, {k, v, n}};
    tensor::attention(q, n, p, parts, c.n_head, c.n_head_kv, c.head_dim, natural, out, th);
    return;
  }
  if (!c.causal && !spec.block_ends.empty()) {
    int64_t start = 0;
    for (size_t i = 0; i <= spec.block_ends.size() && start < n; ++i) {
      const int64_t end = i < spec.block_ends.size() ? std::min(spec.block_ends[i], n) : n;
      if (end <= start) continue;
      tensor::attention(q + start * qd, end - start, start, k, v, end, c.n_head, c.n_head_kv,
                        c.head_dim, AttnMask::Full, out + start * qd, th);
      start = end;
    }
    return;
  }
  if (!c.causal && spec.block > 0 && spec.block < n) {
    // Block mask: the first `block` rows see only themselves, the rest see everything.
    const int64_t p = spec.block;
    tensor::attention(q, p, 0, k, v, p, c.n_head, c.n_head_kv, c.head_dim, AttnMask::Full, out, th);
    tensor::attention(q + p * qd, n - p, p, k, v, n, c.n_head, c.n_head_kv, c.head_dim,
                      AttnMask::Full, out + p * qd, th);
    return;
  }
  tensor::attention(q, n, 0, k, v, n, c.n_head, c.n_head_kv, c.head_dim, natural, out, th);
}

}  // namespace

tensor::Threads WorkspaceBuffers::threads(int n) {
  n = std::max(n, 1);
  if (n > 1 && (!pool || pool->size() != n)) pool = std::make_unique<tensor::ThreadPool>(n);
  if (n == 1) pool.reset();
  const int workers = pool ? pool->size() : 1;
  if (scratch.size() < size_t(workers)) scratch.resize(size_t(workers));
  return {workers, pool.get(), std::span(scratch).first(size_t(workers))};
}

const std::vector<float>& run_layers(const Config& c, const ModelWeights& w,
                                     std::span<const int32_t> tokens, std::span<const Segment> segs,
                                     const PassSpec& spec, WorkspaceBuffers& b,
                                     int64_t* layers_run) {
  const int64_t n = int64_t(tokens.size()), e = c.n_embd;
  const int64_t qd = c.n_head * c.head_dim, kvd = c.n_head_kv * c.head_dim;
  const tensor::Threads th = spec.threads;
  const auto style = (c.arch == Arch::Dream || c.arch == Arch::Qwen2) ? tensor::RopeStyle::Neox
                                                                      : tensor::RopeStyle::Normal;
  // x is the returned residual stream: exactly n rows. The rest are scratch, grown only.
  b.x.resize(size_t(n * e));
  grow(b.h, n * e);
  grow(b.q, n * qd);
  grow(b.att, n * qd);
  grow(b.k, n * kvd);
  grow(b.v, n * kvd);
  grow(b.gate, n * c.n_ff);
  grow(b.up, n * c.n_ff);
  grow(b.pos, n);
  const int64_t pos0 = spec.prefix ? spec.prefix->size() : 0;
  for (const Segment& s : segs)
    for (int64_t i = 0; i < s.len; ++i) b.pos[size_t(s.start + i)] = int32_t(pos0 + i);
  for (int64_t t = 0; t < n; ++t)
    tensor::dequantize_row(w.token_embd, tokens[size_t(t)], b.x.data() + t * e);
  if (spec.capture) {
    spec.capture->k.assign(size_t(c.n_layer), {});
    spec.capture->v.assign(size_t(c.n_layer), {});
  }

  for (int64_t l = 0; l < c.n_layer; ++l) {
    const LayerWeights& lw = w.layers[size_t(l)];
    // Attention block.
    tensor::rmsnorm(b.x.data(), lw.attn_norm.data(), b.h.data(), n, e, c.norm_eps);
    project(lw.wq, lw.lora[kQ], b.h.data(), n, b.q.data(), th, b.lora);
    project(lw.wk, lw.lora[kK], b.h.data(), n, b.k.data(), th, b.lora);
    project(lw.wv, lw.lora[kV], b.h.data(), n, b.v.data(), th, b.lora);
    if (c.qkv_bias) {
      tensor::add_bias(b.q.data(), lw.bq.data(), n, qd);
      tensor::add_bias(b.k.data(), lw.bk.data(), n, kvd);
      tensor::add_bias(b.v.data(), lw.bv.data(), n, kvd);
    }
    tensor::rope(b.q.data(), n, c.n_head, c.head_dim, b.pos.data(), c.rope_base, style);
    tensor::rope(b.k.data(), n, c.n_head_kv, c.head_dim, b.pos.data(), c.rope_base, style);
    if (spec.capture) {
      spec.capture->k[size_t(l)].assign(b.k.begin(), b.k.begin() + n * kvd);
      spec.capture->v[size_t(l)].assign(b.v.begin(), b.v.begin() + n * kvd);
    }
    for (const Segment& s : segs)
      attend(c, spec, l, b.q.data() + s.start * qd, b.k.data() + s.start * kvd,
             b.v.data() + s.start * kvd, s.len, b.att.data() + s.start * qd);
    project(lw.wo, lw.lora[kO], b.att.data(), n, b.h.data(), th, b.lora);
    for (size_t i = 0; i < size_t(n * e); ++i) b.x[i] += b.h[i];

    // Feed-forward block: down(silu(gate(h)) * up(h)).
    tensor::rmsnorm(b.x.data(), lw.ffn_norm.data(), b.h.data(), n, e, c.norm_eps);
    project(lw.gate, lw.lora[kGate], b.h.data(), n, b.gate.data(), th, b.lora);
    project(lw.up, lw.lora[kUp], b.h.data(), n, b.up.data(), th, b.lora);
    tensor::swiglu(b.gate.data(), b.up.data(), b.gate.data(), n * c.n_ff);
    project(lw.down, lw.lora[kDown], b.gate.data(), n, b.h.data(), th, b.lora);
    for (size_t i = 0; i < size_t(n * e); ++i) b.x[i] += b.h[i];
    if (layers_run) *layers_run = l + 1;
    if (spec.after_layer && l + 1 < c.n_layer && spec.after_layer(l + 1, b.x)) break;
  }
  return b.x;
}

void output_logits(const Config& c, const ModelWeights& w, const float* hidden, int64_t n,
                   const std::vector<int32_t>& vocab_rows, float* out, tensor::Threads th,
                   std::vector<float>& h) {
  grow(h, n * c.n_embd);
  tensor::rmsnorm(hidden, w.output_norm.data(), h.data(), n, c.n_embd, c.norm_eps);
  if (vocab_rows.empty())
    tensor::matmul(w.output, h.data(), n, out, th);
  else
    tensor::matmul_rows(w.output, vocab_rows.data(), int64_t(vocab_rows.size()), h.data(), n, out,
                        th);
}

}  // namespace meadow::model
