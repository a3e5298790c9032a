// Reader: loading, and reading a rule (decide.py's read, by the file's pass: read_option.cpp or
// read_rule.cpp), with the literal half of the late judge (judge_late) done once per rule.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <string>

#include "meadow/error.hpp"
#include "meadow/runtime/reader.hpp"
#include "reader/passes.hpp"

namespace meadow::reader {
namespace {

std::atomic<uint64_t> g_next_id{1};

bool blank(std::string_view s) {
  return s.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

}  // namespace

Reader Reader::open(const std::string& path) {
  gguf::File file = gguf::File::open(path);
  if (!model::is_encoder(file))
    throw Error(path +
                ": not a meadow-reader file (a reader is a bert encoder with reader.* heads)");
  return Reader(model::Encoder(std::move(file)));
}

Reader::Reader(model::Encoder encoder)
    : encoder_(std::move(encoder)),
      tokenizer_(Tokenizer::from_gguf(encoder_.file())),
      heads_(std::make_unique<Heads>(load_heads(encoder_))),
      id_(g_next_id++) {
  if (!tokenizer_.cls_id() || !tokenizer_.sep_id())
    throw Error(encoder_.file().path() + ": the vocabulary names no [CLS] / [SEP] token");
}

Reader::Reader(Reader&&) noexcept = default;
Reader& Reader::operator=(Reader&&) noexcept = default;
Reader::~Reader() = default;

bool Reader::is_reader(const gguf::File& file) {
  return model::is_encoder(file) && has_reader_metadata(file);
}

int64_t Reader::max_tokens() const {
  return heads_->max_tokens;
}

bool Reader::reads_per_rule() const {
  return heads_->reading == ReadingKind::PerRule;
}

Reading Reader::read(std::string_view rule, const std::vector<Option>& options,
                     const RunOptions& opts) const {
  const Heads& hd = *heads_;
  if (blank(rule)) throw Error("reader: the rule is empty");
  if (options.empty()) throw Error("reader: no options to read the rule for");
  for (size_t i = 0; i < options.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (options[i].letter == options[j].letter)
        throw Error(std::string("reader: option letter ") + options[i].letter + " is given twice");

  Reading r;
  r.rule = std::string(rule);
  r.reader_id = id_;
  const PassContext ctx{
      encoder_, tokenizer_, hd, {.threads = opts.threads, .workspace = opts.workspace}};
  if (hd.reading == ReadingKind::PerRule)
    read_per_rule(ctx, rule, options, r);
  else
    read_per_option(ctx, rule, options, r);

  // Each distinct literal text once (decide.py's judge_late encodes them so): [CLS] text [SEP]
  // (truncation=True: cut at the end), and what the judge needs of its states, kept with the
  // reading.
  const int32_t cls = *tokenizer_.cls_id(), sep = *tokenizer_.sep_id();
  std::vector<int32_t> ids;
  std::vector<TokenOffset> off;
  std::vector<Pass> passes;
  for (OptionReading& o : r.options)
    for (Clause& c : o.clauses)
      for (Literal& l : c.literals) {
        const auto it = std::find_if(r.judged.begin(), r.judged.end(),
                                     [&](const JudgedLiteral& j) { return j.text == l.text; });
        l.judged = size_t(it - r.judged.begin());
        if (it != r.judged.end()) continue;
        r.judged.push_back({});
        r.judged.back().text = l.text;
        tokenizer_.encode_offsets(l.text, true, ids, off);
        const size_t keep = std::min(ids.size(), size_t(hd.max_tokens) - 2);
        Pass& p = passes.emplace_back();
        p.add(cls, {}, -1, 0);
        for (size_t k = 0; k < keep; ++k) p.add(ids[k], off[k], 0, 0);
        p.add(sep, {}, -1, 0);
      }
  std::vector<model::EncoderInput> batch;
  for (const Pass& p : passes) batch.push_back(p.input);
  std::vector<model::Hidden> states;
  if (!batch.empty()) states = encoder_.encode(batch, ctx.encode);
  const int64_t e = hd.n_embd;
  std::vector<float> logits;
  for (size_t j = 0; j < r.judged.size(); ++j) {
    JudgedLiteral& lit = r.judged[j];
    lit.states = std::move(states[j]);
    const model::Hidden& h = lit.states;
    lit.mean = model::mean_pool(h);
    float op_logits[kOps];
    hd.op.apply(lit.mean.data(), 1, op_logits);
    double op_p[kOps];
    softmax32(op_logits, kOps, op_p);
    for (int k = 0; k < kOps; ++k) lit.op[size_t(k)] = op_p[hd.op_row[size_t(k)]];
    logits.resize(size_t(h.rows * 3));
    hd.thr.apply(h.data.data(), h.rows, logits.data());
    std::vector<TaggedToken>& toks = passes[j].tokens;
    for (int64_t t = 0; t < h.rows; ++t)
      toks[size_t(t)].tag = argmax_p(logits.data() + 3 * t, 3).first;
    lit.t1 = tagged_run(lit.text, toks, hd.t1, 0);
    lit.t2 = tagged_run(lit.text, toks, hd.t2, 0);
    lit.query.resize(size_t(h.rows * e));
    hd.q.apply(h.data.data(), h.rows, lit.query.data());
    // value(cat[s, s * u]) = s . (w_s + w_su * u) + b: folded once per literal.
    lit.value_w.resize(size_t(e));
    for (int64_t c = 0; c < e; ++c)
      lit.value_w[size_t(c)] = hd.value_h[size_t(c)] + hd.value_hu[size_t(c)] * lit.mean[size_t(c)];
  }
  return r;
}

}  // namespace meadow::reader
