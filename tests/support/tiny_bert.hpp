// The tensors of a one-layer BERT encoder under llama.cpp's bert names (the names
// tools/convert_bert.py writes), for the tiny random encoders some tests write: each is handed,
// in this order, to add(name, dims, mean) with dims in ggml order (columns first); the norms'
// weights have mean 1, everything else mean 0.
#pragma once

#include <cstdint>
#include <string>

namespace meadow::gguf {

template <class Add>
void add_bert_one_layer_tensors(Add&& add, uint64_t embd, uint64_t ff, uint64_t ctx,
                                uint64_t n_tokens) {
  add("token_embd.weight", {embd, n_tokens}, 0);
  add("token_types.weight", {embd, 2}, 0);
  add("position_embd.weight", {embd, ctx}, 0);
  add("token_embd_norm.weight", {embd}, 1);
  add("token_embd_norm.bias", {embd}, 0);
  for (const char* p : {"attn_q", "attn_k", "attn_v", "attn_output"}) {
    add(std::string("blk.0.") + p + ".weight", {embd, embd}, 0);
    add(std::string("blk.0.") + p + ".bias", {embd}, 0);
  }
  for (const char* p : {"attn_output_norm", "layer_output_norm"}) {
    add(std::string("blk.0.") + p + ".weight", {embd}, 1);
    add(std::string("blk.0.") + p + ".bias", {embd}, 0);
  }
  add("blk.0.ffn_up.weight", {embd, ff}, 0);
  add("blk.0.ffn_up.bias", {ff}, 0);
  add("blk.0.ffn_down.weight", {ff, embd}, 0);
  add("blk.0.ffn_down.bias", {embd}, 0);
}

}  // namespace meadow::gguf
