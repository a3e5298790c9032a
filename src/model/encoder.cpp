// Encoder: loading, input checks, the batch layout and the tensor lookups of extra heads.
#include <algorithm>
#include <memory>
#include <string>

#include "meadow/error.hpp"
#include "meadow/runtime/encoder.hpp"
#include "model/encoder_forward.hpp"
#include "model/encoder_weights.hpp"

namespace meadow::model {
namespace {

void check_input(const EncoderConfig& c, const EncoderInput& in, size_t i) {
  const std::string what = "sequence " + std::to_string(i);
  if (in.tokens.empty()) throw Error(what + " has no tokens");
  if (int64_t(in.tokens.size()) > c.n_ctx)
    throw Error(what + " has " + std::to_string(in.tokens.size()) +
                " tokens, more than the context length " + std::to_string(c.n_ctx));
  for (int32_t t : in.tokens)
    if (t < 0 || t >= c.n_vocab)
      throw Error(what + ": token id " + std::to_string(t) + " is outside the vocabulary (" +
                  std::to_string(c.n_vocab) + ")");
  if (!in.types.empty() && in.types.size() != in.tokens.size())
    throw Error(what + " has " + std::to_string(in.types.size()) + " token types for " +
                std::to_string(in.tokens.size()) + " tokens");
  for (int32_t t : in.types)
    if (t < 0 || t >= c.n_types)
      throw Error(what + ": token type " + std::to_string(t) + " is outside [0, " +
                  std::to_string(c.n_types) + ")");
}

}  // namespace

Encoder Encoder::load(const std::string& path) {
  return Encoder(gguf::File::open(path));
}

Encoder::Encoder(gguf::File file)
    : file_(std::make_unique<gguf::File>(std::move(file))),
      cfg_(read_encoder_config(*file_)),
      w_(std::make_unique<EncoderWeights>(bind_encoder_weights(*file_, cfg_))) {}

Encoder::Encoder(Encoder&&) noexcept = default;
Encoder& Encoder::operator=(Encoder&&) noexcept = default;
Encoder::~Encoder() = default;

std::vector<Hidden> Encoder::encode(const std::vector<EncoderInput>& batch,
                                    const EncodeOptions& opts) const {
  std::vector<Hidden> out;
  encode(batch, opts, out);
  return out;
}

void Encoder::encode(const std::vector<EncoderInput>& batch, const EncodeOptions& opts,
                     std::vector<Hidden>& out) const {
  for (size_t i = 0; i < batch.size(); ++i) check_input(cfg_, batch[i], i);
  out.resize(batch.size());
  if (batch.empty()) return;
  std::unique_ptr<WorkspaceBuffers> own;
  if (opts.workspace && !opts.workspace->buffers)  // moved from: usable again
    opts.workspace->buffers = std::make_unique<WorkspaceBuffers>();
  if (!opts.workspace) own = std::make_unique<WorkspaceBuffers>();
  WorkspaceBuffers& b = opts.workspace ? *opts.workspace->buffers : *own;
  const tensor::Threads th = b.threads(opts.threads);

  b.tokens.clear();
  b.types.clear();
  b.segs.clear();
  for (const EncoderInput& in : batch) {
    b.segs.push_back({int64_t(b.tokens.size()), int64_t(in.tokens.size())});
    b.tokens.insert(b.tokens.end(), in.tokens.begin(), in.tokens.end());
    if (in.types.empty())
      b.types.resize(b.tokens.size(), 0);
    else
      b.types.insert(b.types.end(), in.types.begin(), in.types.end());
  }
  const std::vector<float>& x = encoder_layers(cfg_, *w_, b.tokens, b.types, b.segs, b, th);
  const int64_t e = cfg_.n_embd;
  for (size_t i = 0; i < batch.size(); ++i) {
    const Segment& s = b.segs[i];
    Hidden& h = out[i];
    h.rows = s.len;
    h.cols = e;
    h.data.assign(x.begin() + s.start * e, x.begin() + (s.start + s.len) * e);
  }
}

const gguf::TensorInfo* Encoder::find_tensor(std::string_view name) const {
  return file_->find_tensor(name);
}

std::vector<float> Encoder::tensor_f32(std::string_view name,
                                       const std::vector<uint64_t>& dims) const {
  const gguf::TensorInfo* t = file_->find_tensor(name);
  if (!t) throw Error(file_->path() + ": missing tensor " + std::string(name));
  if (t->dims != dims) {
    auto str = [](const std::vector<uint64_t>& d) {
      std::string s = "[";
      for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
      return s + "]";
    };
    throw Error(file_->path() + ": tensor " + std::string(name) + " has shape " + str(t->dims) +
                ", expected " + str(dims));
  }
  std::vector<float> out(size_t(t->n_elements()));
  gguf::dequantize(t->type, t->data, out.data(), int64_t(out.size()));
  return out;
}

std::vector<float> mean_pool(const Hidden& h) {
  std::vector<float> out(size_t(h.cols));
  mean_pool(h, out);
  return out;
}

void mean_pool(const Hidden& h, std::span<float> out) {
  if (int64_t(out.size()) != h.cols)
    throw Error("mean_pool: " + std::to_string(out.size()) + " outputs for " +
                std::to_string(h.cols) + " columns");
  std::fill(out.begin(), out.end(), 0.0f);
  if (h.rows == 0) return;
  for (int64_t r = 0; r < h.rows; ++r)
    for (int64_t j = 0; j < h.cols; ++j) out[size_t(j)] += h.row(r)[j];
  const float inv = 1.0f / float(h.rows);
  for (float& v : out) v *= inv;
}

}  // namespace meadow::model
