// Tokenizer::from_gguf: reads llama.cpp's tokenizer.* metadata keys into a Vocab.
#include <cstdint>

#include "meadow/error.hpp"
#include "meadow/runtime/gguf.hpp"
#include "meadow/runtime/tokenizer.hpp"
#include "util/printable.hpp"

namespace meadow {
namespace {

// Runs a reader of one key, naming the key in its error.
template <typename F>
auto for_key(std::string_view key, F&& read) {
  try {
    return read();
  } catch (const Error& e) {
    throw Error("metadata key " + util::quoted(key) + ": " + e.what());
  }
}

std::vector<std::string> string_array(const gguf::File& f, std::string_view key) {
  const gguf::Value& v = f.at(key);
  return for_key(key, [&] {
    const gguf::Array& a = v.as_array();
    if (a.type != gguf::ValueType::STRING) throw Error("expected an array of strings");
    std::vector<std::string> out;
    out.reserve(a.size());
    for (size_t i = 0; i < a.size(); ++i) out.emplace_back(a.string_at(i));
    return out;
  });
}

std::vector<int32_t> int_array(const gguf::File& f, std::string_view key) {
  const gguf::Value& v = f.at(key);
  return for_key(key, [&] {
    const gguf::Array& a = v.as_array();
    std::vector<int32_t> out;
    out.reserve(a.size());
    for (size_t i = 0; i < a.size(); ++i) {
      int64_t x = a.at(i).as_i64();
      if (x < INT32_MIN || x > INT32_MAX)
        throw Error("value " + std::to_string(x) + " out of range");
      out.push_back(static_cast<int32_t>(x));
    }
    return out;
  });
}

std::optional<int32_t> token_id(const gguf::File& f, std::string_view key) {
  const gguf::Value* v = f.find(key);
  if (!v) return std::nullopt;
  return for_key(key, [&]() -> std::optional<int32_t> {
    int64_t id = v->type == gguf::ValueType::U32 || v->type == gguf::ValueType::U64
                     ? static_cast<int64_t>(std::min<uint64_t>(v->as_u64(), INT64_MAX))
                     : v->as_i64();
    if (id < 0) return std::nullopt;  // -1: "no such token", as some converters write it
    if (id > INT32_MAX) throw Error(std::to_string(id) + " is not a token id");
    return static_cast<int32_t>(id);
  });
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
      throw Error("missing metadata key 'tokenizer.ggml.merges'");
    }
    if (f.find("tokenizer.ggml.token_type")) v.types = int_array(f, "tokenizer.ggml.token_type");
    v.pre = f.get_string("tokenizer.ggml.pre", "default");
    v.bos = token_id(f, "tokenizer.ggml.bos_token_id");
    v.eos = token_id(f, "tokenizer.ggml.eos_token_id");
    v.pad = token_id(f, "tokenizer.ggml.padding_token_id");
    v.mask = token_id(f, "tokenizer.ggml.mask_token_id");
    v.unk = token_id(f, "tokenizer.ggml.unknown_token_id");
    v.eot = token_id(f, "tokenizer.ggml.eot_token_id");
    v.cls = token_id(f, "tokenizer.ggml.cls_token_id");
    v.sep = token_id(f, "tokenizer.ggml.seperator_token_id");  // llama.cpp's spelling
    v.add_bos = f.get_bool("tokenizer.ggml.add_bos_token", false);
    v.chat_template = f.get_string("tokenizer.chat_template", "");
    v.fold_case = f.get_bool("meadow.tokenizer.fold_case", false);
    return from_vocab(std::move(v));
  } catch (const Error& e) {
    std::string msg = e.what();
    if (msg.rfind(f.path() + ": ", 0) == 0) throw;  // the reader already named the file
    throw Error(f.path() + ": " + msg);
  }
}

}  // namespace meadow
