// The reader's heads (`reader.*` tensors, train/reader/export.py) and the metadata that says how
// to run them, checked once at load: every missing tensor or key is named, every shape checked.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "meadow/runtime/encoder.hpp"
#include "meadow/runtime/gguf.hpp"
#include "reader/numbers.hpp"
#include "reader/tags.hpp"
#include "tensor/ops.hpp"

namespace meadow::reader {

// y = x W^T + b for a head: W read in place from the mapping when it is F32 (export.py writes
// F32), else decoded once into `owned`.
struct Linear {
  tensor::Weights w;
  std::vector<float> owned;
  std::vector<float> b;
  int64_t rows = 0, cols = 0;
  // y [n, rows] from x [n, cols], single-threaded (heads are a few rows).
  void apply(const float* x, int64_t n, float* y) const;
};

// How the rule is read (reader.reading): one pass per option, or one pass per rule.
enum class ReadingKind { PerOption, PerRule };

struct Heads {
  ReadingKind reading = ReadingKind::PerOption;
  int64_t n_embd = 0;
  int64_t look_heads = 0;          // the look's attention heads (nn.MultiheadAttention num_heads)
  float look_eps = 1e-5f;          // look_norm's LayerNorm epsilon
  int64_t max_tokens = 0;          // decide.py's max_len: the longest input, [CLS] / [SEP] included
  TagIds tags;                     // of the reading's tag head (reader.tags)
  std::array<int, kOps> op_row{};  // the op head's row of each Op
  int t1 = 1, t2 = 2;              // the thresholds head's rows of T1 and T2
  // The pass per option: tags over the rule, P(default) from segment A's mean.
  Linear tag, def;
  // The pass per rule: tags and antecedent flags over the rule, each clause linked to an option
  // (link_q([clause; words before; words after]) . link_k(option listing mean)), P(default)
  // per option.
  Linear rule_tag, ante, link_q, link_k, rule_default;
  // The late judge.
  Linear op, q, k, v, out, fc1, fc2, thr;
  std::vector<float> norm_w, norm_b;     // look_norm
  std::vector<float> value_h, value_hu;  // the value head's halves: [h, h * u] -> 1
  float value_b = 0;
};

// Every tensor and key the reader needs, read from the encoder's file. Throws meadow::Error
// "PATH: ..." naming what is missing or ill-shaped.
Heads load_heads(const model::Encoder& enc);

// Whether the file names itself a reader (has reader.version): such a file without every head
// is an error, not a plain encoder.
bool has_reader_metadata(const gguf::File& file);

}  // namespace meadow::reader
