// model::Encoder on small random bert files (written here with the test GGUF writer) against a
// plain double-precision BERT written from the architecture's definition in this file: the
// runtime's kernels, batching and threads are not used by the reference. Also the load and
// input errors, extra tensors (a reader's heads) and mean pooling.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "gguf_writer.hpp"
#include "meadow/error.hpp"
#include "meadow/runtime/encoder.hpp"
#include "meadow/runtime/gguf.hpp"
#include "meadow/runtime/model.hpp"

namespace meadow::model {
namespace {

using gguf::TensorType;

struct Shape {
  int64_t e = 32, heads = 4, ff = 64, layers = 2, vocab = 40, ctx = 16, types = 2;
};

std::string temp_path(const std::string& name) {
  return std::string(MEADOW_BINARY_DIR) + "/encoder_test_" + std::to_string(getpid()) + "_" + name +
         ".gguf";
}

struct TempFile {
  std::string path;
  ~TempFile() { std::filesystem::remove(path); }
};

std::vector<float> randn(size_t n, std::mt19937& rng, float scale) {
  std::normal_distribution<float> d(0.0f, scale);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

// A random bert file; `skip` leaves one tensor out, `extra` adds a reader head.
std::string write_bert(const std::string& name, TensorType type, const Shape& s = {},
                       const std::string& skip = "", bool extra = false) {
  std::mt19937 rng(7);
  gguf::Writer w;
  w.add("general.architecture", gguf::make_string("bert"));
  w.add("bert.context_length", gguf::make_u32(uint32_t(s.ctx)));
  w.add("bert.embedding_length", gguf::make_u32(uint32_t(s.e)));
  w.add("bert.feed_forward_length", gguf::make_u32(uint32_t(s.ff)));
  w.add("bert.block_count", gguf::make_u32(uint32_t(s.layers)));
  w.add("bert.attention.head_count", gguf::make_u32(uint32_t(s.heads)));
  w.add("bert.attention.layer_norm_epsilon", gguf::make_f32(1e-12f));
  w.add("bert.attention.causal", gguf::make_bool(false));
  w.add("bert.pooling_type", gguf::make_u32(1));
  w.add("tokenizer.ggml.token_type_count", gguf::make_u32(uint32_t(s.types)));
  if (extra) w.add("reader.version", gguf::make_u32(1));  // unknown keys are left alone
  auto matrix = [&](const std::string& n, int64_t cols, int64_t rows, float scale) {
    if (n == skip) return;
    const auto v = randn(size_t(cols * rows), rng, scale);
    w.add_tensor_f32(n, type, {uint64_t(cols), uint64_t(rows)}, v.data());
  };
  auto vec = [&](const std::string& n, int64_t len, float mean, float scale) {
    if (n == skip) return;
    auto v = randn(size_t(len), rng, scale);
    for (auto& x : v) x += mean;
    w.add_tensor_f32(n, TensorType::F32, {uint64_t(len)}, v.data());
  };
  matrix("token_embd.weight", s.e, s.vocab, 1.0f);
  matrix("token_types.weight", s.e, s.types, 0.5f);
  matrix("position_embd.weight", s.e, s.ctx, 0.5f);
  vec("token_embd_norm.weight", s.e, 1.0f, 0.1f);
  vec("token_embd_norm.bias", s.e, 0.0f, 0.1f);
  for (int64_t l = 0; l < s.layers; ++l) {
    const std::string b = "blk." + std::to_string(l) + ".";
    for (const char* p : {"attn_q", "attn_k", "attn_v", "attn_output"}) {
      matrix(b + p + ".weight", s.e, s.e, 0.2f);
      vec(b + p + ".bias", s.e, 0.0f, 0.1f);
    }
    vec(b + "attn_output_norm.weight", s.e, 1.0f, 0.1f);
    vec(b + "attn_output_norm.bias", s.e, 0.0f, 0.1f);
    matrix(b + "ffn_up.weight", s.e, s.ff, 0.2f);
    vec(b + "ffn_up.bias", s.ff, 0.0f, 0.1f);
    matrix(b + "ffn_down.weight", s.ff, s.e, 0.2f);
    vec(b + "ffn_down.bias", s.e, 0.0f, 0.1f);
    vec(b + "layer_output_norm.weight", s.e, 1.0f, 0.1f);
    vec(b + "layer_output_norm.bias", s.e, 0.0f, 0.1f);
  }
  if (extra) {
    const std::vector<float> head = {1, 2, 3, 4, 5, 6};
    w.add_tensor_f32("reader.head.weight", TensorType::F32, {3, 2}, head.data());
  }
  const std::string path = temp_path(name);
  w.write(path);
  return path;
}

// --- the reference: BERT from its definition, in double, one sequence at a time ---

using Mat = std::vector<double>;  // row-major

Mat tensor(const gguf::File& f, const std::string& name) {
  const gguf::TensorInfo& t = f.tensor(name);
  std::vector<float> v(size_t(t.n_elements()));
  gguf::dequantize(t.type, t.data, v.data(), int64_t(v.size()));
  return Mat(v.begin(), v.end());
}

// y [n, rows] = x [n, cols] W^T + b
Mat linear(const Mat& x, int64_t n, const Mat& w, const Mat& b, int64_t rows, int64_t cols) {
  Mat y(size_t(n * rows));
  for (int64_t t = 0; t < n; ++t)
    for (int64_t r = 0; r < rows; ++r) {
      double s = b[size_t(r)];
      for (int64_t c = 0; c < cols; ++c) s += x[size_t(t * cols + c)] * w[size_t(r * cols + c)];
      y[size_t(t * rows + r)] = s;
    }
  return y;
}

void layer_norm(Mat& x, int64_t n, int64_t d, const Mat& g, const Mat& b) {
  for (int64_t t = 0; t < n; ++t) {
    double mean = 0, var = 0;
    for (int64_t i = 0; i < d; ++i) mean += x[size_t(t * d + i)] / double(d);
    for (int64_t i = 0; i < d; ++i) var += std::pow(x[size_t(t * d + i)] - mean, 2) / double(d);
    for (int64_t i = 0; i < d; ++i)
      x[size_t(t * d + i)] =
          (x[size_t(t * d + i)] - mean) / std::sqrt(var + 1e-12) * g[size_t(i)] + b[size_t(i)];
  }
}

Mat reference(const gguf::File& f, const Shape& s, const std::vector<int32_t>& tokens,
              const std::vector<int32_t>& types) {
  const int64_t n = int64_t(tokens.size()), e = s.e, hd = s.e / s.heads;
  const Mat word = tensor(f, "token_embd.weight"), typ = tensor(f, "token_types.weight"),
            pos = tensor(f, "position_embd.weight");
  Mat x(size_t(n * e));
  for (int64_t t = 0; t < n; ++t)
    for (int64_t i = 0; i < e; ++i)
      x[size_t(t * e + i)] = word[size_t(tokens[size_t(t)] * e + i)] +
                             typ[size_t(types[size_t(t)] * e + i)] + pos[size_t(t * e + i)];
  layer_norm(x, n, e, tensor(f, "token_embd_norm.weight"), tensor(f, "token_embd_norm.bias"));
  for (int64_t l = 0; l < s.layers; ++l) {
    const std::string b = "blk." + std::to_string(l) + ".";
    auto lin = [&](const Mat& in, const std::string& p, int64_t rows, int64_t cols) {
      return linear(in, n, tensor(f, b + p + ".weight"), tensor(f, b + p + ".bias"), rows, cols);
    };
    const Mat q = lin(x, "attn_q", e, e), k = lin(x, "attn_k", e, e), v = lin(x, "attn_v", e, e);
    Mat att(size_t(n * e), 0.0);
    for (int64_t h = 0; h < s.heads; ++h)
      for (int64_t i = 0; i < n; ++i) {
        std::vector<double> p(static_cast<size_t>(n));
        double mx = -1e300, sum = 0;
        for (int64_t j = 0; j < n; ++j) {
          double d = 0;
          for (int64_t c = 0; c < hd; ++c)
            d += q[size_t(i * e + h * hd + c)] * k[size_t(j * e + h * hd + c)];
          p[size_t(j)] = d / std::sqrt(double(hd));
          mx = std::max(mx, p[size_t(j)]);
        }
        for (auto& z : p) sum += (z = std::exp(z - mx));
        for (int64_t j = 0; j < n; ++j)
          for (int64_t c = 0; c < hd; ++c)
            att[size_t(i * e + h * hd + c)] += p[size_t(j)] / sum * v[size_t(j * e + h * hd + c)];
      }
    Mat o = lin(att, "attn_output", e, e);
    for (size_t i = 0; i < o.size(); ++i) o[i] += x[i];
    layer_norm(o, n, e, tensor(f, b + "attn_output_norm.weight"),
               tensor(f, b + "attn_output_norm.bias"));
    x = o;
    Mat u = lin(x, "ffn_up", s.ff, e);
    for (auto& z : u) z = 0.5 * z * std::erfc(-z / std::sqrt(2.0));  // exact GELU
    Mat d = lin(u, "ffn_down", e, s.ff);
    for (size_t i = 0; i < d.size(); ++i) d[i] += x[i];
    layer_norm(d, n, e, tensor(f, b + "layer_output_norm.weight"),
               tensor(f, b + "layer_output_norm.bias"));
    x = d;
  }
  return x;
}

double rel_diff(const Hidden& h, const Mat& want) {
  double worst = 0, top = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    worst = std::max(worst, std::fabs(h.data[i] - want[i]));
    top = std::max(top, std::fabs(want[i]));
  }
  return worst / top;
}

std::vector<EncoderInput> sample_batch() {
  return {{{1, 5, 9, 2}, {0, 0, 0, 0}},
          {{1, 7, 2, 30, 31, 39, 2}, {0, 0, 0, 1, 1, 1, 1}},
          {{0}, {}},  // one token; types default to 0
          {std::vector<int32_t>(16, 3), std::vector<int32_t>(16, 1)}};  // the whole context
}

TEST(Encoder, MatchesTheDefinitionF32AndF16) {
  const Shape s;
  for (const TensorType type : {TensorType::F32, TensorType::F16}) {
    TempFile f{write_bert(type == TensorType::F32 ? "f32" : "f16", type)};
    const Encoder enc = Encoder::load(f.path);
    EXPECT_EQ(enc.config().n_embd, s.e);
    EXPECT_EQ(enc.config().head_dim, s.e / s.heads);
    EXPECT_EQ(enc.config().n_ctx, s.ctx);
    EXPECT_EQ(enc.config().n_types, 2);
    EXPECT_EQ(enc.config().pooling, Pooling::Mean);
    const auto batch = sample_batch();
    for (int threads : {1, 2}) {
      const auto out = enc.encode(batch, {.threads = threads});
      ASSERT_EQ(out.size(), batch.size());
      for (size_t i = 0; i < batch.size(); ++i) {
        std::vector<int32_t> types = batch[i].types;
        types.resize(batch[i].tokens.size(), 0);
        EXPECT_EQ(out[i].rows, int64_t(batch[i].tokens.size()));
        EXPECT_EQ(out[i].cols, s.e);
        // Weights are the file's (F16 rounded alike on both sides): only float32 arithmetic
        // and the GELU approximation (< 1.5e-7) separate the two.
        EXPECT_LE(rel_diff(out[i], reference(enc.file(), s, batch[i].tokens, types)), 2e-5)
            << "sequence " << i << ", " << threads << " threads";
      }
    }
  }
}

TEST(Encoder, WorkspaceReuseGivesTheSameStates) {
  TempFile f{write_bert("ws", TensorType::F32)};
  const Encoder enc = Encoder::load(f.path);
  Workspace ws;
  std::vector<Hidden> first, again;
  enc.encode(sample_batch(), {.threads = 2, .workspace = &ws}, first);
  enc.encode({sample_batch()[0]}, {.threads = 2, .workspace = &ws}, again);  // smaller batch
  enc.encode(sample_batch(), {.threads = 2, .workspace = &ws}, again);
  ASSERT_EQ(first.size(), again.size());
  for (size_t i = 0; i < first.size(); ++i) EXPECT_EQ(first[i].data, again[i].data);
}

TEST(Encoder, BadInputsThrow) {
  TempFile f{write_bert("bad", TensorType::F32)};
  const Encoder enc = Encoder::load(f.path);
  auto fails = [&](EncoderInput in, const std::string& words) {
    try {
      enc.encode({in});
      ADD_FAILURE() << "expected an error naming: " << words;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  fails({{1, 40}, {}}, "outside the vocabulary");
  fails({{1, -1}, {}}, "outside the vocabulary");
  fails({{1, 2}, {0, 2}}, "token type 2");
  fails({{1, 2, 3}, {0, 0}}, "2 token types for 3 tokens");
  fails({std::vector<int32_t>(17, 1), {}}, "more than the context length 16");
  fails({{}, {}}, "no tokens");
  EXPECT_TRUE(enc.encode({}).empty());
}

TEST(Encoder, LoadErrorsNameTheProblem) {
  {
    TempFile f{write_bert("missing", TensorType::F32, {}, "blk.1.ffn_down.bias")};
    try {
      Encoder::load(f.path);
      ADD_FAILURE() << "missing tensor loaded";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(f.path + ": missing tensor blk.1.ffn_down.bias"),
                std::string::npos)
          << e.what();
    }
    // The decoder API points an encoder file to this one.
    try {
      Model::load(f.path);
      ADD_FAILURE() << "Model loaded a bert file";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("meadow-mind hidden"), std::string::npos) << e.what();
    }
  }
  // Another architecture is not an encoder.
  gguf::Writer w;
  w.add("general.architecture", gguf::make_string("llama"));
  TempFile g{temp_path("llama")};
  w.write(g.path);
  EXPECT_FALSE(is_encoder(gguf::File::open(g.path)));
  EXPECT_THROW(Encoder::load(g.path), Error);
}

TEST(Encoder, ExtraTensorsAndKeysAreAcceptedAndFoundByName) {
  TempFile f{write_bert("extra", TensorType::F32, {}, "", true)};
  const Encoder enc = Encoder::load(f.path);
  EXPECT_TRUE(is_encoder(enc.file()));
  const gguf::TensorInfo* head = enc.find_tensor("reader.head.weight");
  ASSERT_NE(head, nullptr);
  EXPECT_EQ(head->dims, (std::vector<uint64_t>{3, 2}));
  EXPECT_EQ(enc.tensor_f32("reader.head.weight", {3, 2}), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_THROW(enc.tensor_f32("reader.head.weight", {2, 3}), Error);
  EXPECT_THROW(enc.tensor_f32("reader.nothing", {1}), Error);
  EXPECT_EQ(enc.find_tensor("reader.nothing"), nullptr);
  EXPECT_EQ(enc.encode(sample_batch()).size(), sample_batch().size());
}

TEST(Encoder, MeanPoolAveragesTheRows) {
  Hidden h{3, 2, {1, 2, 3, 4, 5, 9}};
  EXPECT_EQ(mean_pool(h), (std::vector<float>{3, 5}));
  EXPECT_EQ(mean_pool(Hidden{0, 2, {}}), (std::vector<float>{0, 0}));
  std::vector<float> wrong(3);
  EXPECT_THROW(mean_pool(h, wrong), Error);
}

}  // namespace
}  // namespace meadow::model
