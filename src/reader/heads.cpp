#include "reader/heads.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "meadow/error.hpp"

namespace meadow::reader {
namespace {

constexpr uint64_t kVersion = 1;
const char* const kQueryFormat = "{letter}: {text}";  // the passes build exactly this
const char* const kListingSeparator = "; ";           // between the options of a rule's pass

class Loader {
 public:
  explicit Loader(const model::Encoder& enc) : enc_(enc), h_(enc.config().n_embd) {}

  // rows x cols of a [rows_total, cols] tensor, from row `first` on.
  Linear linear(const std::string& name, int64_t rows, int64_t cols, int64_t first = 0,
                int64_t rows_total = 0) {
    Linear l;
    l.rows = rows, l.cols = cols;
    rows_total = rows_total ? rows_total : rows;
    const gguf::TensorInfo* w = tensor(name + ".weight", {uint64_t(cols), uint64_t(rows_total)});
    const gguf::TensorInfo* b = tensor(name + ".bias", {uint64_t(rows_total)});
    if (!w || !b) return l;
    if (w->type == gguf::TensorType::F32) {
      l.w = {gguf::TensorType::F32, reinterpret_cast<const float*>(w->data) + first * cols, rows,
             cols};
    } else {
      const auto all = enc_.tensor_f32(w->name, w->dims);
      l.owned.assign(all.begin() + first * cols, all.begin() + (first + rows) * cols);
      l.w = {gguf::TensorType::F32, l.owned.data(), rows, cols};
    }
    const auto bias = enc_.tensor_f32(b->name, b->dims);
    l.b.assign(bias.begin() + first, bias.begin() + first + rows);
    return l;
  }

  std::vector<float> vector(const std::string& name, int64_t n) {
    const gguf::TensorInfo* t = tensor(name, {uint64_t(n)});
    return t ? enc_.tensor_f32(name, t->dims) : std::vector<float>(size_t(n));
  }

  // A string array key as its items, or empty (and noted) when absent or of another type.
  std::vector<std::string> strings(const std::string& key) {
    const gguf::Value* v = enc_.file().find(key);
    if (!v || v->type != gguf::ValueType::ARRAY || v->as_array().type != gguf::ValueType::STRING) {
      missing_.push_back(key + " (string array)");
      return {};
    }
    std::vector<std::string> out;
    for (size_t i = 0; i < v->as_array().size(); ++i) out.emplace_back(v->as_array().string_at(i));
    return out;
  }

  uint64_t u64(const std::string& key) {
    if (!enc_.file().find(key)) {
      missing_.push_back(key);
      return 0;
    }
    return enc_.file().get_u64(key);
  }

  void problem(std::string what) { problems_.push_back(std::move(what)); }

  // Throws with everything found wrong, missing names first.
  void finish() const {
    if (missing_.empty() && problems_.empty()) return;
    std::string msg = enc_.file().path() + ": ";
    if (!missing_.empty()) {
      msg += "not a meadow-reader file (train/reader/export.py build writes one): missing ";
      for (size_t i = 0; i < missing_.size(); ++i) msg += (i ? ", " : "") + missing_[i];
    }
    for (size_t i = 0; i < problems_.size(); ++i)
      msg += (i || !missing_.empty() ? "; " : "") + problems_[i];
    throw Error(msg);
  }

  int64_t h() const { return h_; }

 private:
  const gguf::TensorInfo* tensor(const std::string& name, const std::vector<uint64_t>& dims) {
    const gguf::TensorInfo* t = enc_.find_tensor(name);
    if (!t) {
      // (q, k and v are three slices of one tensor: name it once)
      if (std::find(missing_.begin(), missing_.end(), name) == missing_.end())
        missing_.push_back(name);
      return nullptr;
    }
    if (t->dims != dims) {
      if (std::find(seen_bad_.begin(), seen_bad_.end(), name) != seen_bad_.end()) return nullptr;
      seen_bad_.push_back(name);
      std::string want, got;
      for (auto d : dims) want += (want.empty() ? "" : " x ") + std::to_string(d);
      for (auto d : t->dims) got += (got.empty() ? "" : " x ") + std::to_string(d);
      problem(name + " has dims " + got + ", expected " + want);
      return nullptr;
    }
    return t;
  }

  const model::Encoder& enc_;
  int64_t h_;
  std::vector<std::string> missing_, problems_, seen_bad_;
};

// Index of each wanted name in `have`; a problem for each one absent.
std::vector<int> indices(Loader& ld, const std::string& key, const std::vector<std::string>& have,
                         const std::vector<std::string>& want) {
  std::vector<int> out;
  for (const std::string& w : want) {
    const auto it = std::find(have.begin(), have.end(), w);
    if (it == have.end() && !have.empty()) ld.problem(key + " has no '" + w + "'");
    out.push_back(it == have.end() ? 0 : int(it - have.begin()));
  }
  return out;
}

// The metadata that says which reading and judge the heads were trained for.
void read_kind(Loader& ld, const gguf::File& f, Heads& hd) {
  const uint64_t version = ld.u64("reader.version");
  if (version != 0 && version != kVersion)
    ld.problem("reader.version " + std::to_string(version) + " (this runtime reads version " +
               std::to_string(kVersion) + ")");
  if (!f.find("reader.judge")) {
    ld.problem("missing reader.judge");
  } else if (f.get_string("reader.judge") != "late") {
    ld.problem("reader.judge is '" + f.get_string("reader.judge") +
               "': the runtime runs the late judge only");
  }
  const std::string reading = f.get_string("reader.reading", "");
  if (reading == "rule") {
    hd.reading = ReadingKind::PerRule;
  } else if (reading != "option") {
    ld.problem(reading.empty() ? "missing reader.reading"
                               : "reader.reading is '" + reading + "', not 'option' or 'rule'");
  }
  const bool per_rule = hd.reading == ReadingKind::PerRule;
  if (f.get_string("reader.query_format", kQueryFormat) != kQueryFormat)
    ld.problem("reader.query_format is '" + f.get_string("reader.query_format") + "', not '" +
               kQueryFormat + "'");
  if (per_rule && f.get_string("reader.listing_separator", kListingSeparator) != kListingSeparator)
    ld.problem("reader.listing_separator is '" + f.get_string("reader.listing_separator") +
               "', not '" + kListingSeparator + "'");
}

// The rows of the tag, comparison and judge-tag heads, by the names the trainer gave them.
// Returns the number of tags and the comparisons named.
std::pair<int64_t, std::vector<std::string>> read_labels(Loader& ld, Heads& hd) {
  const bool per_rule = hd.reading == ReadingKind::PerRule;
  // data.TAGS for the pass per option, data.RULE_TAGS (no ANTE: a flag) for the pass per rule.
  const std::vector<std::string> tag_names =
      per_rule ? std::vector<std::string>{"O", "B", "I", "AND", "OR", "PRON"}
               : std::vector<std::string>{"O", "B", "I", "AND", "OR", "PRON", "ANTE"};
  const auto tags = ld.strings("reader.tags");
  if (!tags.empty() && tags.size() != tag_names.size())
    ld.problem("reader.tags has " + std::to_string(tags.size()) + " tags, not " +
               std::to_string(tag_names.size()));
  const auto t = indices(ld, "reader.tags", tags, tag_names);
  hd.tags = {t[0], t[1], t[2], t[3], t[4], t[5], per_rule ? -1 : t[6]};
  const auto ops = ld.strings("reader.ops");
  if (!ops.empty() && ops.size() != size_t(kOps))
    ld.problem("reader.ops has " + std::to_string(ops.size()) + " comparisons, not 6");
  const auto o = indices(ld, "reader.ops", ops, {"none", ">", ">=", "<", "<=", "in"});
  std::copy(o.begin(), o.end(), hd.op_row.begin());
  const auto jt = ld.strings("reader.judge_tags");
  const auto j = indices(ld, "reader.judge_tags", jt, {"T1", "T2"});
  hd.t1 = j[0], hd.t2 = j[1];
  if (hd.t1 > 2 || hd.t2 > 2)
    ld.problem("reader.judge_tags puts T1 / T2 beyond the thresholds head's 3 rows");
  return {int64_t(tag_names.size()), ops};
}

// The look's heads, its norm's epsilon and the longest input.
void read_sizes(Loader& ld, const gguf::File& f, const model::Encoder& enc, Heads& hd) {
  const int64_t h = ld.h();
  hd.look_heads = int64_t(ld.u64("reader.look.head_count"));
  if (hd.look_heads != 0 && h % hd.look_heads != 0)
    ld.problem("reader.look.head_count " + std::to_string(hd.look_heads) + " does not divide " +
               std::to_string(h));
  hd.look_eps = float(f.get_f64("reader.look_norm.epsilon", 1e-5));
  hd.max_tokens = int64_t(ld.u64("reader.max_tokens"));
  if (hd.max_tokens != 0 && (hd.max_tokens < 3 || hd.max_tokens > enc.config().n_ctx))
    ld.problem("reader.max_tokens " + std::to_string(hd.max_tokens) + " is outside [3, " +
               std::to_string(enc.config().n_ctx) + "]");
}

}  // namespace

bool has_reader_metadata(const gguf::File& file) {
  return file.find("reader.version") != nullptr;
}

Heads load_heads(const model::Encoder& enc) {
  Loader ld(enc);
  const gguf::File& f = enc.file();
  const int64_t h = ld.h();
  Heads hd;
  hd.n_embd = h;
  read_kind(ld, f, hd);
  const auto [n_tags, ops] = read_labels(ld, hd);
  read_sizes(ld, f, enc, hd);
  const bool per_rule = hd.reading == ReadingKind::PerRule;
  if (per_rule) {
    hd.rule_tag = ld.linear("reader.rule_tag", n_tags, h);
    hd.ante = ld.linear("reader.ante", 1, h);
    hd.link_q = ld.linear("reader.link_q", h, 3 * h);  // a clause and the words either side
    hd.link_k = ld.linear("reader.link_k", h, h);
    hd.rule_default = ld.linear("reader.rule_default", 1, h);
  } else {
    hd.tag = ld.linear("reader.tag", n_tags, h);
    hd.def = ld.linear("reader.default", 1, h);
  }
  hd.op = ld.linear("reader.op", int64_t(ops.empty() ? kOps : ops.size()), h);
  hd.q = ld.linear("reader.look.in_proj", h, h, 0, 3 * h);
  hd.k = ld.linear("reader.look.in_proj", h, h, h, 3 * h);
  hd.v = ld.linear("reader.look.in_proj", h, h, 2 * h, 3 * h);
  hd.out = ld.linear("reader.look.out_proj", h, h);
  hd.norm_w = ld.vector("reader.look_norm.weight", h);
  hd.norm_b = ld.vector("reader.look_norm.bias", h);
  hd.fc1 = ld.linear("reader.judge.fc1", h, 5 * h);
  hd.fc2 = ld.linear("reader.judge.fc2", 1, h);
  hd.thr = ld.linear("reader.thresholds", 3, h);
  const Linear value = ld.linear("reader.value", 1, 2 * h);
  ld.finish();

  const float* vw = static_cast<const float*>(value.w.data);
  hd.value_h.assign(vw, vw + h);
  hd.value_hu.assign(vw + h, vw + 2 * h);
  hd.value_b = value.b[0];
  return hd;
}

void Linear::apply(const float* x, int64_t n, float* y) const {
  tensor::matmul(w, x, n, y, tensor::Threads{1});
  tensor::add_bias(y, b.data(), n, rows);
}

}  // namespace meadow::reader
