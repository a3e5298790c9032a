#include "model/forward.hpp"

#include <algorithm>

#include "meadow/error.hpp"
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

// Attention of rows [a, b) of one segment of n rows for one layer: q holds those rows' queries,
// k/v the whole segment's keys and values, out receives b - a rows.
void attend(const Config& c, const PassSpec& spec, int64_t layer, const float* q, int64_t a,
            int64_t b, const float* k, const float* v, int64_t n, float* out) {
  const int64_t qd = c.n_head * c.head_dim;
  const tensor::Threads th = spec.threads;
  const AttnMask natural = c.causal ? AttnMask::Causal : AttnMask::Full;
  // Query rows [lo, hi) against keys [0, keys) of the segment.
  auto rows = [&](int64_t lo, int64_t hi, int64_t keys, AttnMask mask) {
    lo = std::max(lo, a);
    hi = std::min(hi, b);
    if (lo < hi)
      tensor::attention(q + (lo - a) * qd, hi - lo, lo, k, v, keys, c.n_head, c.n_head_kv,
                        c.head_dim, mask, out + (lo - a) * qd, th);
  };
  if (spec.prefix) {
    // Keys = the cached prefix K/V, then this segment's own, attended where they lie.
    const int64_t p = spec.prefix->size();
    const tensor::KvPart parts[] = {
        {spec.prefix->k[size_t(layer)].data(), spec.prefix->v[size_t(layer)].data(), p}, {k, v, n}};
    tensor::attention(q, b - a, p + a, parts, c.n_head, c.n_head_kv, c.head_dim, natural, out, th);
    return;
  }
  if (!c.causal && !spec.block_ends.empty()) {
    int64_t start = 0;
    for (size_t i = 0; i <= spec.block_ends.size() && start < n; ++i) {
      const int64_t end = i < spec.block_ends.size() ? std::min(spec.block_ends[i], n) : n;
      if (end <= start) continue;
      rows(start, end, end, AttnMask::Full);
      start = end;
    }
    return;
  }
  if (!c.causal && spec.block > 0 && spec.block < n) {
    // Block mask: the first `block` rows see only themselves, the rest see everything.
    rows(0, spec.block, spec.block, AttnMask::Full);
    rows(spec.block, n, n, AttnMask::Full);
    return;
  }
  rows(0, n, n, natural);
}

// The feed-forward block on n residual rows x: x += down(silu(gate(h)) * up(h)), h = norm(x).
void feed_forward(const Config& c, const LayerWeights& lw, float* x, int64_t n, WorkspaceBuffers& b,
                  tensor::Threads th) {
  const int64_t e = c.n_embd;
  tensor::rmsnorm(x, lw.ffn_norm.data(), b.h.data(), n, e, c.norm_eps);
  const Projection gate_up[] = {{&lw.gate, &lw.lora[kGate], b.gate.data()},
                                {&lw.up, &lw.lora[kUp], b.up.data()}};
  project_shared(gate_up, b.h.data(), n, th, b.lora);
  tensor::swiglu(b.gate.data(), b.up.data(), b.gate.data(), n * c.n_ff, th);
  project(lw.down, lw.lora[kDown], b.gate.data(), n, b.h.data(), th, b.lora);
  for (size_t i = 0; i < size_t(n * e); ++i) x[i] += b.h[i];
}

// Every row's keys and values for layer l from the normed rows b.h (roped, kept when asked);
// with_q: the same rows' queries into b.q too, from the same pass over b.h (not roped here).
void keys_values(const Config& c, const PassSpec& spec, int64_t l, const LayerWeights& lw,
                 int64_t n, WorkspaceBuffers& b, tensor::RopeStyle style, bool with_q) {
  const int64_t kvd = c.n_head_kv * c.head_dim;
  const Projection kvq[] = {{&lw.wk, &lw.lora[kK], b.k.data()},
                            {&lw.wv, &lw.lora[kV], b.v.data()},
                            {&lw.wq, &lw.lora[kQ], b.q.data()}};
  project_shared({kvq, with_q ? 3u : 2u}, b.h.data(), n, spec.threads, b.lora);
  if (c.qkv_bias) {
    tensor::add_bias(b.k.data(), lw.bk.data(), n, kvd);
    tensor::add_bias(b.v.data(), lw.bv.data(), n, kvd);
  }
  tensor::rope(b.k.data(), n, c.n_head_kv, c.head_dim, b.rope_cos.data(), b.rope_sin.data(), style);
  if (spec.capture) {
    spec.capture->k[size_t(l)].assign(b.k.begin(), b.k.begin() + n * kvd);
    spec.capture->v[size_t(l)].assign(b.v.begin(), b.v.begin() + n * kvd);
  }
}

// The last layer when only the rows `keep` (sorted, unique) are read afterwards: every row's K
// and V, since the kept rows attend to them, and the rest for the kept rows alone, gathered into
// b.xr. The kept rows of b.x get their outputs; the other rows are left as they were.
void last_layer_rows(const Config& c, const PassSpec& spec, int64_t l, const LayerWeights& lw,
                     std::span<const Segment> segs, int64_t n, WorkspaceBuffers& b,
                     tensor::RopeStyle style) {
  const int64_t e = c.n_embd, qd = c.n_head * c.head_dim, kvd = c.n_head_kv * c.head_dim;
  const tensor::Threads th = spec.threads;
  tensor::rmsnorm(b.x.data(), lw.attn_norm.data(), b.h.data(), n, e, c.norm_eps);
  keys_values(c, spec, l, lw, n, b, style, false);
  const int64_t m = int64_t(b.keep.size());
  if (m == 0) return;
  for (int64_t i = 0; i < m; ++i) {
    const int64_t r = b.keep[size_t(i)];
    std::copy_n(b.x.data() + r * e, e, b.xr.data() + i * e);
    std::copy_n(b.h.data() + r * e, e, b.hr.data() + i * e);
  }
  project(lw.wq, lw.lora[kQ], b.hr.data(), m, b.q.data(), th, b.lora);
  if (c.qkv_bias) tensor::add_bias(b.q.data(), lw.bq.data(), m, qd);
  const int64_t half = c.head_dim / 2;
  for (int64_t i = 0; i < m; ++i) {  // kept row i is row keep[i] of the angles
    const int64_t r = b.keep[size_t(i)];
    tensor::rope(b.q.data() + i * qd, 1, c.n_head, c.head_dim, b.rope_cos.data() + r * half,
                 b.rope_sin.data() + r * half, style);
  }
  // Runs of consecutive kept rows within one segment attend together.
  size_t s = 0;
  for (int64_t i = 0; i < m;) {
    const int64_t r = b.keep[size_t(i)];
    while (segs[s].start + segs[s].len <= r) ++s;
    const Segment& seg = segs[s];
    int64_t j = i + 1;
    while (j < m && b.keep[size_t(j)] == r + (j - i) && b.keep[size_t(j)] < seg.start + seg.len)
      ++j;
    attend(c, spec, l, b.q.data() + i * qd, r - seg.start, r - seg.start + (j - i),
           b.k.data() + seg.start * kvd, b.v.data() + seg.start * kvd, seg.len,
           b.att.data() + i * qd);
    i = j;
  }
  project(lw.wo, lw.lora[kO], b.att.data(), m, b.h.data(), th, b.lora);
  for (size_t i = 0; i < size_t(m * e); ++i) b.xr[i] += b.h[i];
  feed_forward(c, lw, b.xr.data(), m, b, th);
  for (int64_t i = 0; i < m; ++i)
    std::copy_n(b.xr.data() + i * e, e, b.x.data() + b.keep[size_t(i)] * e);
}

}  // namespace

tensor::Threads WorkspaceBuffers::threads(int n) {
  if (n > kMaxThreads)
    throw Error("threads: " + std::to_string(n) + " is more than " + std::to_string(kMaxThreads));
  n = std::max(n, 1);
  if (n > 1 && (!pool || pool->size() != n)) pool = std::make_unique<tensor::ThreadPool>(n);
  if (n == 1) pool.reset();
  const int workers = pool ? pool->size() : 1;
  if (scratch.size() < size_t(workers)) scratch.resize(size_t(workers));
  if (n_ints < workers) ints = tensor::make_int_scratch(n_ints = workers);
  return {workers, pool.get(), std::span(scratch).first(size_t(workers)), tensor::MatmulPath::Auto,
          ints.get()};
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
  grow(b.rope_cos, n * c.head_dim / 2);
  grow(b.rope_sin, n * c.head_dim / 2);
  tensor::rope_angles(b.pos.data(), n, c.head_dim, c.rope_base, b.rope_cos.data(),
                      b.rope_sin.data());
  for (int64_t t = 0; t < n; ++t)
    tensor::dequantize_row(w.token_embd, tokens[size_t(t)], b.x.data() + t * e);
  if (spec.capture) {
    spec.capture->k.assign(size_t(c.n_layer), {});
    spec.capture->v.assign(size_t(c.n_layer), {});
  }

  // The rows read after the pass, when the caller names them: the last layer computes only theirs.
  const bool some_rows = spec.read_rows && int64_t(spec.read_rows->size()) < n;
  if (some_rows) {
    b.keep.assign(spec.read_rows->begin(), spec.read_rows->end());
    std::sort(b.keep.begin(), b.keep.end());
    b.keep.erase(std::unique(b.keep.begin(), b.keep.end()), b.keep.end());
    const size_t m = b.keep.size();
    if (m > 0 && (b.keep.front() < 0 || b.keep.back() >= n)) throw Error("read row out of range");
    grow(b.xr, int64_t(m) * e);
    grow(b.hr, int64_t(m) * e);
  }

  for (int64_t l = 0; l < c.n_layer; ++l) {
    const LayerWeights& lw = w.layers[size_t(l)];
    if (some_rows && l + 1 == c.n_layer) {
      last_layer_rows(c, spec, l, lw, segs, n, b, style);
      if (layers_run) *layers_run = l + 1;
      break;
    }
    // Attention block.
    tensor::rmsnorm(b.x.data(), lw.attn_norm.data(), b.h.data(), n, e, c.norm_eps);
    keys_values(c, spec, l, lw, n, b, style, true);
    if (c.qkv_bias) tensor::add_bias(b.q.data(), lw.bq.data(), n, qd);
    tensor::rope(b.q.data(), n, c.n_head, c.head_dim, b.rope_cos.data(), b.rope_sin.data(), style);
    for (const Segment& s : segs)
      attend(c, spec, l, b.q.data() + s.start * qd, 0, s.len, b.k.data() + s.start * kvd,
             b.v.data() + s.start * kvd, s.len, b.att.data() + s.start * qd);
    project(lw.wo, lw.lora[kO], b.att.data(), n, b.h.data(), th, b.lora);
    for (size_t i = 0; i < size_t(n * e); ++i) b.x[i] += b.h[i];
    feed_forward(c, lw, b.x.data(), n, b, th);
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
