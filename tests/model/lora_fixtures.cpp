#include "lora_fixtures.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <random>
#include <stdexcept>

#include "gguf_writer.hpp"

namespace meadow::lora_test {
namespace {

const char* const kProjections[] = {"attn_q",   "attn_k", "attn_v",  "attn_output",
                                    "ffn_gate", "ffn_up", "ffn_down"};

double alpha_of(const AdapterSpec& a) {
  for (const auto& [k, v] : a.kv)
    if (k == "adapter.lora.alpha") return v.as_f64();
  throw std::runtime_error("adapter spec has no alpha");
}

const AdapterTensor* find(const AdapterSpec& a, const std::string& name) {
  for (const auto& t : a.tensors)
    if (t.name == name) return &t;
  return nullptr;
}

}  // namespace

void AdapterSpec::set(const std::string& key, gguf::Value v) {
  for (auto& [k, old] : kv)
    if (k == key) {
      old = std::move(v);
      return;
    }
  kv.emplace_back(key, std::move(v));
}

void AdapterSpec::erase_key(const std::string& key) {
  std::erase_if(kv, [&](const auto& e) { return e.first == key; });
}

AdapterTensor& AdapterSpec::tensor(const std::string& name) {
  for (auto& t : tensors)
    if (t.name == name) return t;
  throw std::runtime_error("adapter spec has no tensor " + name);
}

void AdapterSpec::erase_tensor(const std::string& name) {
  std::erase_if(tensors, [&](const AdapterTensor& t) { return t.name == name; });
}

void AdapterSpec::write(const std::string& path, gguf::TensorType type) const {
  gguf::Writer w;
  for (const auto& [k, v] : kv) w.add(k, v);
  for (const auto& t : tensors) {
    if (type == gguf::TensorType::F32)  // also writes a tensor whose dims do not fit its data
      w.add_tensor(t.name, type, t.dims, t.data.data(), t.data.size() * sizeof(float));
    else
      w.add_tensor_f32(t.name, type, t.dims, t.data.data());
  }
  w.write(path);
}

AdapterSpec random_adapter(const gguf::File& base, int64_t rank, float alpha, uint32_t seed,
                           float b_std) {
  AdapterSpec a;
  a.set("general.architecture", gguf::make_string(base.get_string("general.architecture")));
  a.set("general.type", gguf::make_string("adapter"));
  a.set("adapter.type", gguf::make_string("lora"));
  a.set("adapter.lora.alpha", gguf::make_f32(alpha));
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, b_std);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (const auto& t : base.tensors()) {
    bool adaptable = false;
    for (const char* p : kProjections)
      adaptable |= t.name.starts_with("blk.") && t.name.ends_with(std::string(".") + p + ".weight");
    if (!adaptable) continue;
    const uint64_t n_in = t.dims[0], n_out = t.dims[1], r = uint64_t(rank);
    AdapterTensor ta{t.name + ".lora_a", {n_in, r}, std::vector<float>(n_in * r)};
    AdapterTensor tb{t.name + ".lora_b", {r, n_out}, std::vector<float>(r * n_out)};
    const float bound = 1.0f / std::sqrt(float(n_in));
    for (float& v : ta.data) v = uniform(rng) * bound;
    for (float& v : tb.data) v = normal(rng);
    a.tensors.push_back(std::move(ta));
    a.tensors.push_back(std::move(tb));
  }
  return a;
}

void write_merged(const gguf::File& base, const AdapterSpec& adapter, const std::string& path) {
  const double alpha = alpha_of(adapter);
  gguf::Writer w;
  for (const auto& e : base.metadata()) w.add(e.key, e.value);
  for (const auto& t : base.tensors()) {
    const AdapterTensor* a = find(adapter, t.name + ".lora_a");
    const AdapterTensor* b = find(adapter, t.name + ".lora_b");
    if (!a || !b) {
      w.add_tensor(t.name, t.type, t.dims, t.data, t.nbytes);
      continue;
    }
    const int64_t n_in = int64_t(t.dims[0]), n_out = int64_t(t.dims[1]);
    const int64_t r = int64_t(a->dims[1]);
    const double s = alpha != 0 ? alpha / double(r) : 1.0;
    std::vector<float> m(size_t(n_in * n_out));
    gguf::dequantize(t.type, t.data, m.data(), n_in * n_out);
    for (int64_t o = 0; o < n_out; ++o)
      for (int64_t i = 0; i < n_in; ++i) {
        double d = 0;
        for (int64_t k = 0; k < r; ++k)
          d += double(b->data[size_t(o * r + k)]) * double(a->data[size_t(k * n_in + i)]);
        m[size_t(o * n_in + i)] = float(double(m[size_t(o * n_in + i)]) + s * d);
      }
    w.add_tensor_f32(t.name, gguf::TensorType::F32, t.dims, m.data());
  }
  w.write(path);
}

std::string fixture_path(const std::string& name) {
  const auto dir = std::filesystem::path(MEADOW_BINARY_DIR) / "model_fixtures";
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

}  // namespace meadow::lora_test
