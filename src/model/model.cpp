// Model: loading, request validation, and the three entry points (run, encode_prefix,
// run_cached) over the shared layer pass.
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "meadow/error.hpp"
#include "meadow/runtime/model.hpp"
#include "model/forward.hpp"
#include "model/lora.hpp"
#include "model/weights.hpp"

namespace meadow::model {
namespace {

void check_tokens(const Config& c, std::span<const int32_t> tokens, const std::string& what) {
  if (tokens.empty()) throw Error(what + " has no tokens");
  for (int32_t t : tokens)
    if (t < 0 || t >= c.n_vocab)
      throw Error(what + ": token id " + std::to_string(t) + " is outside the vocabulary (" +
                  std::to_string(c.n_vocab) + ")");
}

void check_length(const Config& c, int64_t n, const std::string& what) {
  if (c.n_ctx > 0 && n > c.n_ctx)
    throw Error(what + " has " + std::to_string(n) + " tokens, more than the context length " +
                std::to_string(c.n_ctx));
}

void check_vocab_rows(const Config& c, const std::vector<int32_t>& rows) {
  for (int32_t r : rows)
    if (r < 0 || r >= c.n_vocab)
      throw Error("vocabulary row " + std::to_string(r) + " is outside the vocabulary (" +
                  std::to_string(c.n_vocab) + ")");
}

tensor::MatmulPath matmul_path(Arithmetic a) {
  switch (a) {
    case Arithmetic::Float:
      return tensor::MatmulPath::Float;
    case Arithmetic::Integer:
      return tensor::MatmulPath::Integer;
    case Arithmetic::Auto:
      break;
  }
  return tensor::MatmulPath::Auto;
}

// The pass's threads: the workspace's pool and scratch, and the asked arithmetic.
tensor::Threads pass_threads(WorkspaceBuffers& b, int threads, Arithmetic a) {
  tensor::Threads th = b.threads(threads);
  th.matmul = matmul_path(a);
  return th;
}

// The caller's workspace, or one for this run alone.
struct PassWorkspace {
  std::unique_ptr<WorkspaceBuffers> own;
  WorkspaceBuffers* b = nullptr;
  explicit PassWorkspace(const RunOptions& o) {
    if (o.workspace && !o.workspace->buffers)  // moved from: usable again
      o.workspace->buffers = std::make_unique<WorkspaceBuffers>();
    if (!o.workspace) own = std::make_unique<WorkspaceBuffers>();
    b = o.workspace ? o.workspace->buffers.get() : own.get();
  }
};

// Lays the batch end to end and runs it into out; each request's asked positions (indices into
// prefix + suffix, so offset by `pos0`) become logits rows.
void run_batch(const Config& c, const ModelWeights& w, const std::vector<Sequence>& batch,
               const RunOptions& o, const PassSpec& spec, WorkspaceBuffers& ws,
               std::vector<Logits>& out) {
  check_vocab_rows(c, o.vocab_rows);
  if (o.threads < 1) throw Error("threads must be at least 1");
  const int64_t pos0 = spec.prefix ? spec.prefix->size() : 0;
  std::vector<int32_t>& tokens = ws.tokens;
  std::vector<Segment>& segs = ws.segs;
  std::vector<int64_t>& rows = ws.rows;  // rows of the concatenated stream to project
  tokens.clear();
  segs.clear();
  rows.clear();
  for (size_t i = 0; i < batch.size(); ++i) {
    const Sequence& s = batch[i];
    const std::string what = "sequence " + std::to_string(i);  // short: no allocation
    check_tokens(c, s.tokens, what);
    const int64_t len = int64_t(s.tokens.size());
    check_length(c, pos0 + len, what);
    segs.push_back({int64_t(tokens.size()), len});
    for (int64_t p : s.positions) {
      if (p < pos0 || p >= pos0 + len)
        throw Error(
            what + ": position " + std::to_string(p) + " is outside [" + std::to_string(pos0) +
            ", " + std::to_string(pos0 + len) + ")" +
            (p < pos0 && pos0 > 0 ? " (positions in the cached prefix have no logits)" : ""));
      rows.push_back(segs.back().start + (p - pos0));
    }
    tokens.insert(tokens.end(), s.tokens.begin(), s.tokens.end());
  }
  out.resize(batch.size());
  if (batch.empty()) return;
  // Each request's asked rows of the residual stream x, through the final norm and head.
  auto read = [&](const std::vector<float>& x, const std::vector<int32_t>& vocab_rows,
                  int64_t layers, std::vector<Logits>& into) {
    const int64_t cols = vocab_rows.empty() ? c.n_vocab : int64_t(vocab_rows.size());
    const int64_t n_rows = int64_t(rows.size());
    ws.hidden.resize(size_t(n_rows * c.n_embd));
    ws.logits.resize(size_t(n_rows * cols));
    for (int64_t r = 0; r < n_rows; ++r)
      std::copy_n(x.data() + rows[size_t(r)] * c.n_embd, c.n_embd, ws.hidden.data() + r * c.n_embd);
    if (n_rows > 0)
      output_logits(c, w, ws.hidden.data(), n_rows, vocab_rows, ws.logits.data(), spec.threads,
                    ws.normed);
    into.resize(batch.size());
    int64_t r = 0;
    for (size_t i = 0; i < batch.size(); ++i) {
      Logits& l = into[i];
      l.rows = int64_t(batch[i].positions.size());
      l.cols = cols;
      l.data.assign(ws.logits.begin() + r * cols, ws.logits.begin() + (r + l.rows) * cols);
      l.layers = layers;
      r += l.rows;
    }
  };
  PassSpec pass = spec;
  if (o.early_exit) {
    if (spec.capture) throw Error("early exit does not apply to a pass that keeps its K/V");
    if (!o.early_exit->stop) throw Error("early exit without a stop function");
    check_vocab_rows(c, o.early_exit->vocab_rows);
  }
  // The probe reads the letters after a layer; the pass holds it through one pointer, which
  // fits std::function's inline storage (no allocation per pass).
  auto probe = [&](int64_t layers, const std::vector<float>& x) {
    read(x, o.early_exit->vocab_rows, layers, ws.probe);
    return o.early_exit->stop(layers, ws.probe);
  };
  if (o.early_exit) {
    const auto* fn = &probe;
    pass.after_layer = [fn](int64_t layers, const std::vector<float>& x) {
      return (*fn)(layers, x);
    };
  }
  pass.read_rows = &rows;
  int64_t layers = 0;
  const std::vector<float>& x = run_layers(c, w, tokens, segs, pass, ws, &layers);
  read(x, o.vocab_rows, layers, out);
}

std::vector<Logits> run_batch(const Config& c, const ModelWeights& w,
                              const std::vector<Sequence>& batch, const RunOptions& o,
                              PassSpec spec) {
  PassWorkspace ws(o);
  spec.threads = pass_threads(*ws.b, o.threads, o.arithmetic);
  std::vector<Logits> out;
  run_batch(c, w, batch, o, spec, *ws.b, out);
  return out;
}

}  // namespace

Model Model::load(const std::string& path, const std::string& lora_path) {
  if (lora_path.empty()) return Model(gguf::File::open(path));
  gguf::File base = gguf::File::open(path);
  return Model(std::move(base), gguf::File::open(lora_path));
}

Model::Model(gguf::File file)
    : file_(std::make_unique<gguf::File>(std::move(file))),
      cfg_(read_config(*file_)),
      w_(std::make_unique<ModelWeights>(bind_weights(*file_, cfg_))) {
  // MEADOW_PACK=0: the file's layout only (A/B runs of the packed panels).
  const char* pack = std::getenv("MEADOW_PACK");
  if (!pack || std::string_view(pack) != "0") pack_layers(*file_, *w_);
}

// The pairs are copied out of the adapter (as float32), so its mapping ends here.
Model::Model(gguf::File file, const gguf::File& adapter) : Model(std::move(file)) {
  attach_lora(adapter, cfg_, *file_, *w_);
  lora_path_ = adapter.path();
}

Model::Model(Model&&) noexcept = default;
Model& Model::operator=(Model&&) noexcept = default;
Model::~Model() = default;

bool Model::uses_integers(int64_t n, Arithmetic arithmetic) const {
  const tensor::MatmulPath path = matmul_path(arithmetic);
  for (const LayerWeights& l : w_->layers)
    for (const tensor::Weights* x : {&l.wq, &l.wk, &l.wv, &l.wo, &l.gate, &l.up, &l.down})
      if (tensor::takes_integer(*x, n, path)) return true;
  return tensor::takes_integer(w_->output, n, path);
}

int64_t Model::logits_row_for(int64_t p) const {
  return cfg_.shift_logits ? std::max<int64_t>(p - 1, 0) : p;
}

std::vector<Logits> Model::run(const std::vector<Sequence>& batch, const RunOptions& opts,
                               Mask mask, int64_t prefix_len) const {
  if (prefix_len < 0) throw Error("prefix length must not be negative");
  PassSpec spec;
  spec.block = mask == Mask::Prefix ? prefix_len : 0;
  return run_batch(cfg_, *w_, batch, opts, spec);
}

PrefixCache Model::encode_prefix(std::span<const int32_t> tokens, int threads,
                                 Arithmetic arithmetic) const {
  check_tokens(cfg_, tokens, "prefix");
  check_length(cfg_, int64_t(tokens.size()), "prefix");
  if (threads < 1) throw Error("threads must be at least 1");
  PrefixCache cache;
  cache.tokens.assign(tokens.begin(), tokens.end());
  WorkspaceBuffers ws;
  PassSpec spec;
  spec.threads = pass_threads(ws, threads, arithmetic);
  spec.capture = &cache;
  const std::vector<int64_t> none;  // only the K/V are kept: the last layer computes nothing else
  spec.read_rows = &none;
  const Segment seg{0, int64_t(tokens.size())};
  run_layers(cfg_, *w_, tokens, std::span(&seg, 1), spec, ws);
  return cache;
}

std::vector<Logits> Model::run_block_causal(const std::vector<Sequence>& batch,
                                            const RunOptions& opts,
                                            std::vector<int64_t> block_ends) const {
  for (size_t i = 0; i < block_ends.size(); ++i)
    if (block_ends[i] < 1 || (i > 0 && block_ends[i] <= block_ends[i - 1]))
      throw Error("block ends must be positive and increasing");
  PassSpec spec;
  spec.block_ends = std::move(block_ends);
  return run_batch(cfg_, *w_, batch, opts, spec);
}

Logits Model::extend(PrefixCache& cache, const Sequence& seq, const RunOptions& opts) const {
  const bool empty = cache.tokens.empty();
  if (!empty && (cache.k.size() != size_t(cfg_.n_layer) || cache.v.size() != size_t(cfg_.n_layer)))
    throw Error("prefix cache does not belong to this model");
  PassSpec spec;
  spec.prefix = empty ? nullptr : &cache;
  PrefixCache added;
  spec.capture = &added;
  Logits out = std::move(run_batch(cfg_, *w_, {seq}, opts, spec).front());
  if (empty) {
    cache.k = std::move(added.k);
    cache.v = std::move(added.v);
  } else {
    for (size_t l = 0; l < cache.k.size(); ++l) {
      cache.k[l].insert(cache.k[l].end(), added.k[l].begin(), added.k[l].end());
      cache.v[l].insert(cache.v[l].end(), added.v[l].begin(), added.v[l].end());
    }
  }
  cache.tokens.insert(cache.tokens.end(), seq.tokens.begin(), seq.tokens.end());
  return out;
}

std::vector<Logits> Model::run_cached(const PrefixCache& prefix, const std::vector<Sequence>& batch,
                                      const RunOptions& opts) const {
  std::vector<Logits> out;
  run_cached(prefix, batch, opts, out);
  return out;
}

void Model::run_cached(const PrefixCache& prefix, const std::vector<Sequence>& batch,
                       const RunOptions& opts, std::vector<Logits>& out) const {
  if (prefix.k.size() != size_t(cfg_.n_layer) || prefix.v.size() != size_t(cfg_.n_layer))
    throw Error("prefix cache does not belong to this model");
  PassWorkspace ws(opts);
  PassSpec spec;
  spec.prefix = &prefix;
  spec.threads = pass_threads(*ws.b, opts.threads, opts.arithmetic);
  run_batch(cfg_, *w_, batch, opts, spec, *ws.b, out);
}

Workspace::Workspace() : buffers(std::make_unique<WorkspaceBuffers>()) {}
Workspace::~Workspace() = default;
Workspace::Workspace(Workspace&&) noexcept = default;
Workspace& Workspace::operator=(Workspace&&) noexcept = default;

}  // namespace meadow::model
