// Reader::decide: the situation encoded once, then the late judge per literal (model.py's
// late_holds, decide.py's judge_late, mix and combine).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

#include "meadow/error.hpp"
#include "meadow/runtime/reader.hpp"
#include "reader/combine.hpp"
#include "reader/heads.hpp"
#include "reader/numbers.hpp"
#include "reader/probability.hpp"
#include "reader/tags.hpp"

namespace meadow::reader {
namespace {

// nn.GELU()'s default: the exact (erf) form.
float gelu(float x) {
  return float(0.5 * double(x) * (1.0 + std::erf(double(x) / std::sqrt(2.0))));
}

// The decision from each judged literal's P(holds): combined, with the letter and margin.
Decision finish(const Reading& reading, const std::vector<double>& p_judged,
                std::chrono::steady_clock::time_point t0) {
  Decision d;
  for (const OptionReading& o : reading.options)
    for (const Clause& c : o.clauses)
      for (const Literal& l : c.literals) d.literal_p.push_back(p_judged.at(l.judged));
  const Combined comb = combine(reading.options, reading.default_index(), d.literal_p);
  d.option_p = comb.option_p;
  d.clause_p = comb.clause_p;
  const size_t best = best_option(comb.probs);
  double second = 0;
  for (size_t i = 0; i < comb.probs.size(); ++i) {
    d.probs.emplace_back(reading.options[i].letter, comb.probs[i]);
    if (i != best) second = std::max(second, comb.probs[i]);
  }
  d.letter = reading.options[best].letter;
  d.margin = comb.probs[best] - second;
  d.lat_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return d;
}

}  // namespace

Decision Reader::decide(const Reading& reading, std::string_view state,
                        const RunOptions& opts) const {
  const auto t0 = std::chrono::steady_clock::now();
  const Heads& hd = *heads_;
  if (reading.reader_id != id_)
    throw Error("reader: this reading was made by another reader (read the rule with this one)");
  if (const std::string why = reading.unreadable(); !why.empty()) throw Error(why);
  if (state.find_first_not_of(" \t\r\n") == std::string_view::npos)
    throw Error("reader: the situation is empty");

  // The situation: [CLS] state [SEP], once per decision.
  std::vector<int32_t> ids;
  std::vector<TokenOffset> off;
  tokenizer_.encode_offsets(state, true, ids, off);
  if (int64_t(ids.size()) + 2 > hd.max_tokens)
    throw Error("reader: the situation is " + std::to_string(ids.size()) +
                " tokens; the reader reads at most " + std::to_string(hd.max_tokens - 2));
  model::EncoderInput in;
  std::vector<TaggedToken> toks;
  in.tokens.push_back(*tokenizer_.cls_id());
  toks.push_back({{}, -1, 0, 1});
  for (size_t k = 0; k < ids.size(); ++k) {
    in.tokens.push_back(ids[k]);
    toks.push_back({off[k], 0, 0, 1});
  }
  in.tokens.push_back(*tokenizer_.sep_id());
  toks.push_back({{}, -1, 0, 1});
  const size_t n_lit = reading.judged.size();
  if (n_lit == 0) return finish(reading, {}, t0);  // the default alone: nothing to judge
  const model::Hidden hs =
      encoder_.encode({in}, {.threads = opts.threads, .workspace = opts.workspace}).at(0);
  const int64_t e = hd.n_embd, ts = hs.rows;
  const std::vector<float> v = model::mean_pool(hs);

  // The look: each literal's tokens attend to the situation's (nn.MultiheadAttention with the
  // literal as query; its query projection was kept with the reading), + residual, look_norm,
  // then the mean over the literal's tokens.
  std::vector<float> k(size_t(ts * e)), vv(size_t(ts * e));
  hd.k.apply(hs.data.data(), ts, k.data());
  hd.v.apply(hs.data.data(), ts, vv.data());
  int64_t rows = 0;
  for (const JudgedLiteral& l : reading.judged) rows += l.states.rows;
  std::vector<float> att(size_t(rows * e)), seen(size_t(rows * e));
  int64_t at = 0;
  for (const JudgedLiteral& l : reading.judged) {
    tensor::attention(l.query.data(), l.states.rows, 0, k.data(), vv.data(), ts, hd.look_heads,
                      hd.look_heads, e / hd.look_heads, tensor::AttnMask::Full, att.data() + at * e,
                      tensor::Threads{1});
    at += l.states.rows;
  }
  hd.out.apply(att.data(), rows, seen.data());
  at = 0;
  for (const JudgedLiteral& l : reading.judged) {
    for (int64_t i = 0; i < l.states.rows * e; ++i)
      seen[size_t(at * e + i)] += l.states.data[size_t(i)];
    at += l.states.rows;
  }
  tensor::layernorm(seen.data(), hd.norm_w.data(), hd.norm_b.data(), seen.data(), rows, e,
                    hd.look_eps);

  // The judge MLP on [u, v, u * v, |u - v|, c] for every literal at once.
  std::vector<float> feats(n_lit * size_t(5 * e), 0.0f), hidden(n_lit * size_t(e));
  at = 0;
  for (size_t j = 0; j < n_lit; ++j) {
    const JudgedLiteral& l = reading.judged[j];
    float* f = feats.data() + j * size_t(5 * e);
    for (int64_t c = 0; c < e; ++c) {
      const float u = l.mean[size_t(c)], s = v[size_t(c)];
      f[c] = u, f[e + c] = s, f[2 * e + c] = u * s, f[3 * e + c] = std::fabs(u - s);
    }
    for (int64_t r = 0; r < l.states.rows; ++r)
      for (int64_t c = 0; c < e; ++c) f[4 * e + c] += seen[size_t((at + r) * e + c)];
    for (int64_t c = 0; c < e; ++c) f[4 * e + c] /= float(l.states.rows);
    at += l.states.rows;
  }
  hd.fc1.apply(feats.data(), int64_t(n_lit), hidden.data());
  for (float& x : hidden) x = gelu(x);

  // Per literal: P(holds) from the judge, or from the comparison of its numbers with the
  // situation's quantity (the value head's run of the situation) where they parse.
  std::vector<double> p_lit(n_lit);
  for (size_t j = 0; j < n_lit; ++j) {
    const JudgedLiteral& l = reading.judged[j];
    float logit = 0;
    hd.fc2.apply(hidden.data() + j * size_t(e), 1, &logit);
    for (int64_t t = 0; t < ts; ++t) {
      float s = hd.value_b;
      for (int64_t c = 0; c < e; ++c) s += hs.row(t)[c] * l.value_w[size_t(c)];
      toks[size_t(t)].tag = s > 0 ? 1 : 0;
    }
    const std::optional<std::string> value = tagged_run(state, toks, 1, 0);
    auto view = [](const std::optional<std::string>& s) {
      return s ? std::optional<std::string_view>(*s) : std::nullopt;
    };
    p_lit[j] = mix(sigmoid32(logit), l.op, view(l.t1), view(l.t2), view(value));
  }

  return finish(reading, p_lit, t0);
}

}  // namespace meadow::reader
