// Tokenizer::from_gguf: reads llama.cpp's tokenizer.* metadata keys into a Vocab.
#include "meadow/error.hpp"
#include "meadow/gguf.hpp"
#include "meadow/tokenizer.hpp"

namespace meadow {
namespace {

std::vector<std::string> string_array(const gguf::File& f, std::string_view key) {
  const gguf::Array& a = f.at(key).as_array();
  if (a.type != gguf::ValueType::STRING) {
    throw Error(std::string(key) + " must be an array of strings");
  }
  std::vector<std::string> out;
  out.reserve(a.items.size());
  for (const auto& v : a.items) out.push_back(v.as_string());
  return out;
}

std::optional<int32_t> token_id(const gguf::File& f, std::string_view key) {
  const gguf::Value* v = f.find(key);
  if (!v) return std::nullopt;
  int64_t id = v->type == gguf::ValueType::U32 || v->type == gguf::ValueType::U64
                   ? static_cast<int64_t>(v->as_u64())
                   : v->as_i64();
  if (id < 0) return std::nullopt;  // -1: "no such token", as some converters write it
  if (id > INT32_MAX)
    throw Error(std::string(key) + " = " + std::to_string(id) + " is not a token id");
  return static_cast<int32_t>(id);
}

}  // namespace

Tokenizer Tokenizer::from_gguf(const gguf::File& f) {
  try {
    Vocab v;
    v.model = f.get_string("tokenizer.ggml.model");
    v.tokens = string_array(f, "tokenizer.ggml.tokens");
    if (f.find("tokenizer.ggml.merges")) {
      v.merges = string_array(f, "tokenizer.ggml.merges");
    } else if (v.model == "gpt2") {
      throw Error("tokenizer.ggml.merges is missing");
    }
    if (const gguf::Value* types = f.find("tokenizer.ggml.token_type")) {
      const gguf::Array& a = types->as_array();
      v.types.reserve(a.items.size());
      for (const auto& t : a.items) {
        int64_t x = t.as_i64();
        if (x < INT32_MIN || x > INT32_MAX)
          throw Error("tokenizer.ggml.token_type has value " + std::to_string(x));
        v.types.push_back(static_cast<int32_t>(x));
      }
    }
    v.pre = f.get_string("tokenizer.ggml.pre", "default");
    v.bos = token_id(f, "tokenizer.ggml.bos_token_id");
    v.eos = token_id(f, "tokenizer.ggml.eos_token_id");
    v.pad = token_id(f, "tokenizer.ggml.padding_token_id");
    v.mask = token_id(f, "tokenizer.ggml.mask_token_id");
    v.unk = token_id(f, "tokenizer.ggml.unknown_token_id");
    v.eot = token_id(f, "tokenizer.ggml.eot_token_id");
    v.add_bos = f.get_bool("tokenizer.ggml.add_bos_token", false);
    v.chat_template = f.get_string("tokenizer.chat_template", "");
    return from_vocab(std::move(v));
  } catch (const Error& e) {
    throw Error(f.path() + ": " + e.what());
  }
}

}  // namespace meadow
