// The pass per rule (decide.py's read_rule): [CLS] rule [SEP] "A: text; B: text; ..." [SEP]
// once; tags (data.RULE_TAGS) and antecedent flags over the rule give the literals, each clause
// goes to the option its literals link to (link_q(literal mean) . link_k(option mean), averaged
// over the clause's literals), and P(default) comes from each option's listing mean.
#include <algorithm>
#include <cmath>
#include <string>

#include "meadow/error.hpp"
#include "reader/passes.hpp"

namespace meadow::reader {
namespace {

// data.option_listing: the lettered options joined by "; ", and each one's bytes in it.
std::string listing_of(const std::vector<Option>& options, std::vector<TokenOffset>& spans) {
  std::string out;
  for (const Option& o : options) {
    if (!out.empty()) out += "; ";
    const std::string piece = std::string(1, o.letter) + ": " + o.text;
    spans.push_back({uint32_t(out.size()), uint32_t(out.size() + piece.size())});
    out += piece;
  }
  return out;
}

}  // namespace

void read_per_rule(const PassContext& ctx, std::string_view rule,
                   const std::vector<Option>& options, Reading& r) {
  const Heads& hd = ctx.heads;
  const int64_t e = hd.n_embd;
  std::vector<TokenOffset> spans;
  const std::string listing = listing_of(options, spans);
  std::vector<int32_t> rule_ids, list_ids;
  std::vector<TokenOffset> rule_off, list_off;
  ctx.tokenizer.encode_offsets(rule, true, rule_ids, rule_off);
  ctx.tokenizer.encode_offsets(listing, true, list_ids, list_off);
  if (int64_t(list_ids.size()) + 4 > hd.max_tokens)
    throw Error("reader: the options are " + std::to_string(list_ids.size()) +
                " tokens; the reader reads " + std::to_string(hd.max_tokens) + " with the rule");
  // Every option must be read whole (they are what the clauses link to), so a pass too long is
  // cut in the rule, and the Reading says which words went unread.
  const size_t keep = std::min(rule_ids.size(), size_t(hd.max_tokens) - 3 - list_ids.size());
  if (keep < rule_ids.size()) {
    const uint32_t from = rule_off[keep].begin;
    r.unread = Span{from, uint32_t(rule.size()), std::string(rule.substr(from))};
  }
  Pass p;
  p.add(*ctx.tokenizer.cls_id(), {}, -1, 0);
  for (size_t k = 0; k < keep; ++k) p.add(rule_ids[k], rule_off[k], 0, 0);
  p.add(*ctx.tokenizer.sep_id(), {}, -1, 0);
  for (size_t k = 0; k < list_ids.size(); ++k) p.add(list_ids[k], list_off[k], 1, 1);
  p.add(*ctx.tokenizer.sep_id(), {}, -1, 1);
  const model::Hidden h = ctx.encoder.encode({p.input}, ctx.encode).at(0);

  const int64_t n_tags = hd.rule_tag.rows;
  std::vector<float> logits(size_t(h.rows * n_tags)), ante(size_t(h.rows));
  hd.rule_tag.apply(h.data.data(), h.rows, logits.data());
  hd.ante.apply(h.data.data(), h.rows, ante.data());
  std::vector<bool> claimed(keep, false);
  std::vector<std::vector<size_t>> option_rows(options.size());
  size_t rule_k = 0;
  for (int64_t t = 0; t < h.rows; ++t) {
    TaggedToken& tok = p.tokens[size_t(t)];
    std::tie(tok.tag, tok.p) = argmax_p(logits.data() + t * n_tags, n_tags);
    tok.ante = ante[size_t(t)] > 0;
    if (tok.seq == 0) claimed[rule_k++] = tok.tag != hd.tags.o || tok.ante;
    if (tok.seq == 1 && tok.off.end > tok.off.begin)
      for (size_t k = 0; k < spans.size(); ++k)
        if (tok.off.begin < spans[k].end && tok.off.end > spans[k].begin)
          option_rows[k].push_back(size_t(t));
  }
  r.unclaimed = unclaimed_runs(rule, std::span(rule_off).first(keep), claimed);

  // Each option's listing mean: its P(default), and the key its literals are linked by.
  std::vector<float> keys(options.size() * size_t(e));
  for (size_t k = 0; k < options.size(); ++k) {
    const std::vector<float> m = mean_of(h, option_rows[k]);
    float def = 0;
    hd.rule_default.apply(m.data(), 1, &def);
    r.options.push_back({options[k].letter, options[k].text, {}, sigmoid(def)});
    hd.link_k.apply(m.data(), 1, keys.data() + k * size_t(e));
  }
  std::vector<LiteralRun> lits = literals_from_tags(rule, p.tokens, hd.tags, 0);
  std::vector<std::vector<double>> link(lits.size(), std::vector<double>(options.size()));
  std::vector<float> query(static_cast<size_t>(e));
  for (size_t l = 0; l < lits.size(); ++l) {
    const std::vector<float> m = mean_of(h, lits[l].tokens);
    hd.link_q.apply(m.data(), 1, query.data());
    for (size_t k = 0; k < options.size(); ++k) {
      double dot = 0;
      for (int64_t c = 0; c < e; ++c)
        dot += double(query[size_t(c)]) * keys[k * size_t(e) + size_t(c)];
      link[l][k] = dot;
    }
  }
  std::vector<std::vector<size_t>> members;
  std::vector<Clause> clauses = group_clauses(std::move(lits), &members);
  for (size_t c = 0; c < clauses.size(); ++c) {
    // The clause's literals' links averaged; the first most likely option takes it. Its
    // softmax at the trained scale (model.py divides by sqrt(h)) says how sure the link is.
    std::vector<double> avg(options.size(), 0.0);
    for (size_t l : members[c])
      for (size_t k = 0; k < options.size(); ++k) avg[k] += link[l][k] / double(members[c].size());
    const size_t best = size_t(std::max_element(avg.begin(), avg.end()) - avg.begin());
    double sum = 0;
    for (double a : avg) sum += std::exp((a - avg[best]) / std::sqrt(double(e)));
    clauses[c].link_p = 1.0 / sum;
    r.options[best].clauses.push_back(std::move(clauses[c]));
  }
}

}  // namespace meadow::reader
