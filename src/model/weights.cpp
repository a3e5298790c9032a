#include "model/weights.hpp"

#include <string>

#include "meadow/error.hpp"
#include "model/tensor_lookup.hpp"

namespace meadow::model {

ModelWeights bind_weights(const gguf::File& f, const Config& c) {
  const int64_t q_dim = c.n_head * c.head_dim, kv_dim = c.n_head_kv * c.head_dim;
  ModelWeights w;
  w.token_embd = matrix(f, "token_embd.weight", c.n_embd, c.n_vocab);
  w.output = c.tied_output ? w.token_embd : matrix(f, "output.weight", c.n_embd, c.n_vocab);
  w.output_norm = vec(f, "output_norm.weight", c.n_embd);
  w.layers.resize(size_t(c.n_layer));
  for (int64_t i = 0; i < c.n_layer; ++i) {
    const std::string b = "blk." + std::to_string(i) + ".";
    LayerWeights& l = w.layers[size_t(i)];
    l.attn_norm = vec(f, b + "attn_norm.weight", c.n_embd);
    l.wq = matrix(f, b + "attn_q.weight", c.n_embd, q_dim);
    l.wk = matrix(f, b + "attn_k.weight", c.n_embd, kv_dim);
    l.wv = matrix(f, b + "attn_v.weight", c.n_embd, kv_dim);
    if (c.qkv_bias) {
      l.bq = vec(f, b + "attn_q.bias", q_dim);
      l.bk = vec(f, b + "attn_k.bias", kv_dim);
      l.bv = vec(f, b + "attn_v.bias", kv_dim);
    }
    l.wo = matrix(f, b + "attn_output.weight", q_dim, c.n_embd);
    l.ffn_norm = vec(f, b + "ffn_norm.weight", c.n_embd);
    l.gate = matrix(f, b + "ffn_gate.weight", c.n_embd, c.n_ff);
    l.up = matrix(f, b + "ffn_up.weight", c.n_embd, c.n_ff);
    l.down = matrix(f, b + "ffn_down.weight", c.n_ff, c.n_embd);
  }
  return w;
}

void pack_layers(const gguf::File& f, ModelWeights& w) {
  // One tensor at a time, its file pages released at once, so the peak stays near one copy.
  // (Two threads packing were slower than one: the time goes to page faults.)
  for (LayerWeights& l : w.layers) {
    for (tensor::Weights* x : {&l.wq, &l.wk, &l.wv, &l.wo, &l.gate, &l.up, &l.down}) {
      tensor::PackedPages buf;
      try {
        buf = tensor::pack_weights(*x);
      } catch (const Error& e) {  // the one-line "PATH: problem" every load error gives
        throw Error(f.path() + ": " + e.what());
      }
      if (!buf) continue;
      x->packed = buf.get();
      f.release(x->data, gguf::row_bytes(x->type, uint64_t(x->cols)) * uint64_t(x->rows));
      w.packed.push_back(std::move(buf));
    }
  }
}

}  // namespace meadow::model
