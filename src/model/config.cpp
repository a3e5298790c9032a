// Hyper-parameters from GGUF metadata, with llama.cpp's key names.
#include <string>

#include "meadow/error.hpp"
#include "meadow/runtime/model.hpp"
#include "util/printable.hpp"

namespace meadow::model {

const char* arch_name(Arch a) {
  switch (a) {
    case Arch::Dream:
      return "dream";
    case Arch::Llada:
      return "llada";
    case Arch::Qwen2:
      return "qwen2";
    case Arch::Llama:
      return "llama";
  }
  return "?";
}

namespace {

Arch parse_arch(const gguf::File& f) {
  const std::string name = f.get_string("general.architecture");
  if (name == "dream") return Arch::Dream;
  if (name == "llada") return Arch::Llada;
  if (name == "qwen2") return Arch::Qwen2;
  if (name == "llama") return Arch::Llama;
  if (name == "bert")
    throw Error(f.path() +
                ": bert is an encoder, without logits: read its hidden states with "
                "meadow-mind hidden (model::Encoder, meadow/runtime/encoder.hpp)");
  throw Error(f.path() + ": unsupported architecture " + util::quoted(name) +
              " (expected dream, llada, qwen2 or llama)");
}

int64_t positive(const gguf::File& f, const std::string& key, uint64_t v) {
  if (v == 0 || v > (uint64_t{1} << 31))
    throw Error(f.path() + ": " + key + " = " + std::to_string(v) + " is out of range");
  return static_cast<int64_t>(v);
}

}  // namespace

Config read_config(const gguf::File& f) {
  Config c;
  c.arch = parse_arch(f);
  const std::string a = arch_name(c.arch);
  auto req = [&](const std::string& key) { return positive(f, a + key, f.get_u64(a + key)); };
  c.n_embd = req(".embedding_length");
  c.n_layer = req(".block_count");
  c.n_head = req(".attention.head_count");
  c.n_ff = req(".feed_forward_length");
  c.n_head_kv = positive(f, a + ".attention.head_count_kv",
                         f.get_u64(a + ".attention.head_count_kv", uint64_t(c.n_head)));
  if (c.n_head % c.n_head_kv != 0)
    throw Error(f.path() + ": head_count " + std::to_string(c.n_head) +
                " is not a multiple of head_count_kv " + std::to_string(c.n_head_kv));
  if (f.find(a + ".attention.key_length"))
    c.head_dim = req(".attention.key_length");
  else if (c.n_embd % c.n_head == 0)
    c.head_dim = c.n_embd / c.n_head;
  else
    throw Error(f.path() + ": embedding_length is not a multiple of head_count");
  if (f.find(a + ".attention.value_length") && req(".attention.value_length") != c.head_dim)
    throw Error(f.path() + ": attention.value_length differs from key_length (unsupported)");
  if (f.find(a + ".rope.dimension_count") && req(".rope.dimension_count") != c.head_dim)
    throw Error(f.path() +
                ": partial rotary embedding (rope.dimension_count != head dim) "
                "is not supported");
  if (c.head_dim % 2 != 0) throw Error(f.path() + ": head dimension must be even for RoPE");
  c.n_ctx = static_cast<int64_t>(f.get_u64(a + ".context_length", 0));
  c.rope_base = static_cast<float>(f.get_f64(a + ".rope.freq_base", 10000.0));
  c.norm_eps = static_cast<float>(f.get_f64(a + ".attention.layer_norm_rms_epsilon"));
  if (!(c.rope_base > 0.0f) || !(c.norm_eps >= 0.0f))
    throw Error(f.path() + ": rope.freq_base or layer_norm_rms_epsilon out of range");
  const bool bidirectional = c.arch == Arch::Dream || c.arch == Arch::Llada;
  c.causal = f.get_bool(a + ".attention.causal", !bidirectional);
  c.shift_logits = f.get_bool("diffusion.shift_logits", c.arch == Arch::Dream);
  if (const auto* v = f.find("tokenizer.ggml.mask_token_id")) c.mask_id = int32_t(v->as_i64());

  const gguf::TensorInfo& embd = f.tensor("token_embd.weight");
  if (embd.dims.size() != 2 || int64_t(embd.dims[0]) != c.n_embd)
    throw Error(f.path() + ": token_embd.weight does not have " + std::to_string(c.n_embd) +
                " columns");
  c.n_vocab = static_cast<int64_t>(embd.dims[1]);
  if (c.mask_id >= c.n_vocab)
    throw Error(f.path() + ": mask token id " + std::to_string(c.mask_id) +
                " is outside the vocabulary");
  c.tied_output = f.find_tensor("output.weight") == nullptr;
  c.qkv_bias = f.find_tensor("blk.0.attn_q.bias") != nullptr;
  return c;
}

uint64_t parameter_count(const gguf::File& file) {
  uint64_t n = 0;
  for (const auto& t : file.tensors()) n += t.n_elements();
  return n;
}

}  // namespace meadow::model
