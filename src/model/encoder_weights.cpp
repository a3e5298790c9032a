#include "model/encoder_weights.hpp"

#include <string>

#include "meadow/error.hpp"
#include "model/tensor_lookup.hpp"
#include "util/printable.hpp"

namespace meadow::model {
namespace {

int64_t positive(const gguf::File& f, const std::string& key) {
  const uint64_t v = f.get_u64(key);
  if (v == 0 || v > (uint64_t{1} << 31))
    throw Error(f.path() + ": " + key + " = " + std::to_string(v) + " is out of range");
  return int64_t(v);
}

// Rows of a table whose row length must be n_embd.
int64_t table_rows(const gguf::File& f, const std::string& name, int64_t n_embd) {
  const gguf::TensorInfo& t = present(f, name);
  if (t.dims.size() != 2 || int64_t(t.dims[0]) != n_embd || t.dims[1] == 0 ||
      t.dims[1] > (uint64_t{1} << 31))
    throw Error(f.path() + ": tensor " + name + " has shape " + shape_str(t.dims) + ", expected [" +
                std::to_string(n_embd) + ", rows]");
  return int64_t(t.dims[1]);
}

}  // namespace

bool is_encoder(const gguf::File& f) {
  const gguf::Value* v = f.find("general.architecture");
  return v && v->type == gguf::ValueType::STRING && v->as_string() == "bert";
}

EncoderConfig read_encoder_config(const gguf::File& f) {
  if (!is_encoder(f))
    throw Error(f.path() + ": architecture " +
                util::quoted(f.get_string("general.architecture", "")) +
                " is not an encoder (expected bert)");
  EncoderConfig c;
  c.n_embd = positive(f, "bert.embedding_length");
  c.n_layer = positive(f, "bert.block_count");
  c.n_head = positive(f, "bert.attention.head_count");
  c.n_ff = positive(f, "bert.feed_forward_length");
  if (c.n_embd % c.n_head != 0)
    throw Error(f.path() + ": embedding_length is not a multiple of head_count");
  c.head_dim = c.n_embd / c.n_head;
  c.norm_eps = float(f.get_f64("bert.attention.layer_norm_epsilon"));
  if (!(c.norm_eps >= 0.0f))
    throw Error(f.path() + ": bert.attention.layer_norm_epsilon is out of range");
  if (f.get_bool("bert.attention.causal", false))
    throw Error(f.path() + ": a causal bert is not supported");
  const uint64_t pooling = f.get_u64("bert.pooling_type", 0);
  if (pooling > 2) throw Error(f.path() + ": unknown bert.pooling_type " + std::to_string(pooling));
  c.pooling = Pooling(pooling);
  c.n_vocab = table_rows(f, "token_embd.weight", c.n_embd);
  c.n_ctx = table_rows(f, "position_embd.weight", c.n_embd);
  c.n_types = table_rows(f, "token_types.weight", c.n_embd);
  // bert.context_length may say less than the table holds; never more.
  const int64_t ctx = int64_t(f.get_u64("bert.context_length", uint64_t(c.n_ctx)));
  if (ctx <= 0 || ctx > c.n_ctx)
    throw Error(f.path() + ": bert.context_length " + std::to_string(ctx) +
                " does not fit position_embd.weight (" + std::to_string(c.n_ctx) + " rows)");
  c.n_ctx = ctx;
  if (const gguf::Value* v = f.find("tokenizer.ggml.token_type_count");
      v && int64_t(v->as_u64()) != c.n_types)
    throw Error(f.path() + ": tokenizer.ggml.token_type_count is " + std::to_string(v->as_u64()) +
                " but token_types.weight has " + std::to_string(c.n_types) + " rows");
  return c;
}

EncoderWeights bind_encoder_weights(const gguf::File& f, const EncoderConfig& c) {
  const int64_t e = c.n_embd;
  EncoderWeights w;
  w.token_embd = matrix(f, "token_embd.weight", e, c.n_vocab);
  w.position_embd = tensor::weights_of(present(f, "position_embd.weight"));
  w.token_types = matrix(f, "token_types.weight", e, c.n_types);
  w.embd_norm_w = vec(f, "token_embd_norm.weight", e);
  w.embd_norm_b = vec(f, "token_embd_norm.bias", e);
  w.layers.resize(size_t(c.n_layer));
  for (int64_t i = 0; i < c.n_layer; ++i) {
    const std::string b = "blk." + std::to_string(i) + ".";
    EncoderLayer& l = w.layers[size_t(i)];
    l.wq = matrix(f, b + "attn_q.weight", e, e);
    l.wk = matrix(f, b + "attn_k.weight", e, e);
    l.wv = matrix(f, b + "attn_v.weight", e, e);
    l.wo = matrix(f, b + "attn_output.weight", e, e);
    l.bq = vec(f, b + "attn_q.bias", e);
    l.bk = vec(f, b + "attn_k.bias", e);
    l.bv = vec(f, b + "attn_v.bias", e);
    l.bo = vec(f, b + "attn_output.bias", e);
    l.attn_norm_w = vec(f, b + "attn_output_norm.weight", e);
    l.attn_norm_b = vec(f, b + "attn_output_norm.bias", e);
    l.up = matrix(f, b + "ffn_up.weight", e, c.n_ff);
    l.b_up = vec(f, b + "ffn_up.bias", c.n_ff);
    l.down = matrix(f, b + "ffn_down.weight", c.n_ff, e);
    l.b_down = vec(f, b + "ffn_down.bias", e);
    l.out_norm_w = vec(f, b + "layer_output_norm.weight", e);
    l.out_norm_b = vec(f, b + "layer_output_norm.bias", e);
  }
  return w;
}

}  // namespace meadow::model
