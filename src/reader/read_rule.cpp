// The pass per rule (decide.py's read_rule): [CLS] rule [SEP] "A: text; B: text; ..." [SEP]
// once; tags (data.RULE_TAGS) and antecedent flags over the rule give the literals, grouped into
// clauses; each clause goes to the option it links to (link_q([mean of its literals' tokens;
// mean of the rule tokens between the previous clause and it; mean of those up to the next
// clause]) . link_k(the option's listing mean), data.clause_windows), and P(default) comes from
// each option's listing mean.
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

// data.clause_windows: per clause (its tokens), the rule tokens between the clause before it
// (in rule order) and it, and between it and the clause after it.
std::vector<std::pair<std::vector<size_t>, std::vector<size_t>>> clause_windows(
    const std::vector<std::vector<size_t>>& clauses, const std::vector<size_t>& rule_tokens) {
  std::vector<size_t> order(clauses.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  auto first = [&](size_t k) { return *std::min_element(clauses[k].begin(), clauses[k].end()); };
  auto last = [&](size_t k) { return *std::max_element(clauses[k].begin(), clauses[k].end()); };
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return first(a) < first(b); });
  std::vector<std::pair<std::vector<size_t>, std::vector<size_t>>> out(clauses.size());
  for (size_t i = 0; i < order.size(); ++i) {
    const size_t k = order[i];
    const int64_t lo = i > 0 ? int64_t(last(order[i - 1])) : -1;
    const int64_t hi = i + 1 < order.size() ? int64_t(first(order[i + 1])) : INT64_MAX;
    for (size_t t : rule_tokens) {
      if (lo < int64_t(t) && t < first(k)) out[k].first.push_back(t);
      if (last(k) < t && int64_t(t) < hi) out[k].second.push_back(t);
    }
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
    r.options.push_back({options[k].letter, options[k].text, {}, sigmoid32(def)});
    hd.link_k.apply(m.data(), 1, keys.data() + k * size_t(e));
  }
  std::vector<LiteralRun> lits = literals_from_tags(rule, p.tokens, hd.tags, 0);
  std::vector<std::vector<size_t>> tokens_of(lits.size());
  for (size_t l = 0; l < lits.size(); ++l) tokens_of[l] = lits[l].tokens;
  std::vector<std::vector<size_t>> members;
  std::vector<Clause> clauses = group_clauses(std::move(lits), &members);
  std::vector<std::vector<size_t>> clause_tokens(clauses.size());
  for (size_t c = 0; c < clauses.size(); ++c)
    for (size_t l : members[c])
      clause_tokens[c].insert(clause_tokens[c].end(), tokens_of[l].begin(), tokens_of[l].end());
  std::vector<size_t> rule_tokens;
  for (size_t t = 0; t < p.tokens.size(); ++t)
    if (p.tokens[t].seq == 0 && p.tokens[t].off.end > p.tokens[t].off.begin)
      rule_tokens.push_back(t);
  const auto windows = clause_windows(clause_tokens, rule_tokens);

  std::vector<float> query(static_cast<size_t>(e)), features;
  for (size_t c = 0; c < clauses.size(); ++c) {
    features.clear();
    const std::vector<size_t>* parts[] = {&clause_tokens[c], &windows[c].first, &windows[c].second};
    for (const std::vector<size_t>* rows : parts) {
      const std::vector<float> m = mean_of(h, *rows);
      features.insert(features.end(), m.begin(), m.end());
    }
    hd.link_q.apply(features.data(), 1, query.data());
    std::vector<double> link(options.size());
    for (size_t k = 0; k < options.size(); ++k) {
      double dot = 0;
      for (int64_t i = 0; i < e; ++i)
        dot += double(query[size_t(i)]) * keys[k * size_t(e) + size_t(i)];
      link[k] = dot / std::sqrt(double(e));  // model.py's scale: its softmax is the link's
    }
    // The first most likely option takes the clause; the softmax says how sure the link is.
    const size_t best = size_t(std::max_element(link.begin(), link.end()) - link.begin());
    double sum = 0;
    for (double a : link) sum += std::exp(a - link[best]);
    clauses[c].link_p = 1.0 / sum;
    r.options[best].clauses.push_back(std::move(clauses[c]));
  }
}

}  // namespace meadow::reader
