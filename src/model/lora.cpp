#include "model/lora.hpp"

#include <array>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "meadow/error.hpp"
#include "util/printable.hpp"

namespace meadow::model {
namespace {

using util::quoted;

// llama.cpp's names of the Proj slots.
constexpr const char* kProjNames[kProjCount] = {"attn_q",   "attn_k", "attn_v",  "attn_output",
                                                "ffn_gate", "ffn_up", "ffn_down"};

const tensor::Weights& base_of(const LayerWeights& l, Proj p) {
  switch (p) {
    case kQ:
      return l.wq;
    case kK:
      return l.wk;
    case kV:
      return l.wv;
    case kO:
      return l.wo;
    case kGate:
      return l.gate;
    case kUp:
      return l.up;
    default:
      return l.down;
  }
}

struct Target {
  int64_t layer = 0;
  Proj proj = kQ;
};

// "blk.N.<projection>.weight" with N < n_layer; nullopt for any other name.
std::optional<Target> parse_target(std::string_view name, int64_t n_layer) {
  if (!name.starts_with("blk.")) return std::nullopt;
  name.remove_prefix(4);
  int64_t layer = 0;
  size_t i = 0;
  for (; i < name.size() && i < 10 && name[i] >= '0' && name[i] <= '9'; ++i)
    layer = layer * 10 + (name[i] - '0');
  if (i == 0 || i >= name.size() || name[i] != '.' || layer >= n_layer) return std::nullopt;
  name.remove_prefix(i + 1);
  for (int p = 0; p < kProjCount; ++p)
    if (name == std::string(kProjNames[p]) + ".weight") return Target{layer, Proj(p)};
  return std::nullopt;
}

std::string dims_str(const std::vector<uint64_t>& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + "]";
}

std::vector<float> decoded(const gguf::File& f, const gguf::TensorInfo& t) {
  std::vector<float> out(size_t(t.n_elements()));
  gguf::dequantize(t.type, t.data, out.data(), int64_t(out.size()));
  for (float v : out)
    if (!std::isfinite(v))
      throw Error(f.path() + ": tensor " + quoted(t.name) +
                  " holds a non-finite value (NaN or infinity)");
  return out;
}

// Checks the metadata; returns alpha.
double check_header(const gguf::File& ad, const Config& cfg, const gguf::File& base) {
  const std::string& path = ad.path();
  if (!ad.find("general.type"))
    throw Error(path + ": not a LoRA adapter (no general.type; is it a model file?)");
  const std::string type = ad.get_string("general.type");
  if (type != "adapter")
    throw Error(path + ": not an adapter: general.type is " + quoted(type) +
                ", expected 'adapter'");
  if (!ad.find("adapter.type"))
    throw Error(path + ": no adapter.type (expected 'lora'), so not a LoRA adapter");
  const std::string atype = ad.get_string("adapter.type");
  if (atype != "lora")
    throw Error(path + ": adapter.type is " + quoted(atype) + "; only 'lora' adapters load");
  if (!ad.find("adapter.lora.alpha"))
    throw Error(path + ": missing adapter.lora.alpha (the LoRA scale is alpha / rank)");
  const double alpha = ad.get_f64("adapter.lora.alpha");
  if (!std::isfinite(alpha))
    throw Error(path + ": adapter.lora.alpha is " + std::to_string(alpha) + ", not finite");
  const std::string arch = ad.get_string("general.architecture", "");
  if (arch != arch_name(cfg.arch))
    throw Error(path + ": an adapter for architecture " +
                (arch.empty() ? std::string("(none given)") : quoted(arch)) + ", but " +
                base.path() + " is " + quoted(arch_name(cfg.arch)));
  return alpha;
}

}  // namespace

void attach_lora(const gguf::File& ad, const Config& cfg, const gguf::File& base, ModelWeights& w) {
  const std::string& path = ad.path();
  const double alpha = check_header(ad, cfg, base);
  // base tensor name -> (lora_a, lora_b)
  std::map<std::string, std::pair<const gguf::TensorInfo*, const gguf::TensorInfo*>> pairs;
  for (const auto& t : ad.tensors()) {
    const std::string_view n = t.name;
    if (n.ends_with(".lora_a"))
      pairs[std::string(n.substr(0, n.size() - 7))].first = &t;
    else if (n.ends_with(".lora_b"))
      pairs[std::string(n.substr(0, n.size() - 7))].second = &t;
    else
      throw Error(path + ": tensor " + quoted(n) + " is neither a .lora_a nor a .lora_b");
  }
  if (pairs.empty()) throw Error(path + ": holds no LoRA tensors (.lora_a / .lora_b)");

  for (const auto& [target, ab] : pairs) {
    const auto [ta, tb] = ab;
    if (!tb) throw Error(path + ": " + quoted(ta->name) + " has no matching .lora_b");
    if (!ta) throw Error(path + ": " + quoted(tb->name) + " has no matching .lora_a");
    if (!base.find_tensor(target))
      throw Error(path + ": " + quoted(ta->name) + " matches no tensor of " + base.path() +
                  " (no " + quoted(target) + ")");
    const auto where = parse_target(target, cfg.n_layer);
    if (!where)
      throw Error(path + ": " + quoted(target) +
                  " cannot be adapted (only blk.N.attn_q/k/v/output and ffn_gate/up/down)");
    const tensor::Weights& W = base_of(w.layers[size_t(where->layer)], where->proj);
    // Built by appending: GCC 12 warns (-Wrestrict, a false positive) on "[" + std::string.
    std::string want_a("["), want_b("[rank, ");
    want_a += std::to_string(W.cols);
    want_a += ", rank]";
    want_b += std::to_string(W.rows);
    want_b += "]";
    if (ta->dims.size() != 2 || ta->dims[0] != uint64_t(W.cols))
      throw Error(path + ": shape mismatch: " + quoted(ta->name) + " is " + dims_str(ta->dims) +
                  ", expected " + want_a + " for the model's " +
                  dims_str({uint64_t(W.cols), uint64_t(W.rows)}));
    if (tb->dims.size() != 2 || tb->dims[1] != uint64_t(W.rows))
      throw Error(path + ": shape mismatch: " + quoted(tb->name) + " is " + dims_str(tb->dims) +
                  ", expected " + want_b + " for the model's " +
                  dims_str({uint64_t(W.cols), uint64_t(W.rows)}));
    if (ta->dims[1] != tb->dims[0])
      throw Error(path + ": rank mismatch: " + quoted(ta->name) + " has rank " +
                  std::to_string(ta->dims[1]) + ", " + quoted(tb->name) + " rank " +
                  std::to_string(tb->dims[0]));
    LowRank& lr = w.layers[size_t(where->layer)].lora[size_t(where->proj)];
    lr.rank = int64_t(ta->dims[1]);
    lr.a = decoded(ad, *ta);
    lr.b = decoded(ad, *tb);
    // llama.cpp's reading: the rank is the pair's own, and alpha 0 means no scaling.
    const float scale = alpha != 0 ? float(alpha / double(lr.rank)) : 1.0f;
    for (float& v : lr.b) v *= scale;
  }
}

namespace {

void add_pair(const tensor::Weights& w, const LowRank& lr, const float* x, int64_t n, float* y,
              std::vector<float>& scratch) {
  if (lr.rank == 0 || n <= 0) return;
  scratch.resize(size_t(n * lr.rank));
  tensor::add_low_rank(lr.a.data(), lr.b.data(), lr.rank, w.rows, w.cols, x, n, y, scratch.data());
}

}  // namespace

void project(const tensor::Weights& w, const LowRank& lr, const float* x, int64_t n, float* y,
             tensor::Threads th, std::vector<float>& scratch) {
  tensor::matmul(w, x, n, y, th);
  add_pair(w, lr, x, n, y, scratch);
}

void project_shared(std::span<const Projection> ps, const float* x, int64_t n, tensor::Threads th,
                    std::vector<float>& scratch) {
  constexpr size_t kMax = 4;
  if (ps.size() > kMax) throw Error("project_shared: at most 4 projections");
  std::array<const tensor::Weights*, kMax> ws{};
  std::array<float*, kMax> ys{};
  for (size_t i = 0; i < ps.size(); ++i) ws[i] = ps[i].w, ys[i] = ps[i].y;
  tensor::matmul_shared({ws.data(), ps.size()}, x, n, {ys.data(), ps.size()}, th);
  for (const Projection& p : ps) add_pair(*p.w, *p.lr, x, n, p.y, scratch);
}

}  // namespace meadow::model
