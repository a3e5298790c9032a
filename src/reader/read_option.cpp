// The pass per option (decide.py's read): [CLS] "{letter}: {text}" [SEP] rule [SEP] for each
// option, tags over the rule (data.TAGS), P(default) from the mean of segment A.
#include <algorithm>
#include <string>

#include "meadow/error.hpp"
#include "reader/passes.hpp"

namespace meadow::reader {

void read_per_option(const PassContext& ctx, std::string_view rule,
                     const std::vector<Option>& options, Reading& r) {
  const Heads& hd = ctx.heads;
  std::vector<int32_t> rule_ids, ids;
  std::vector<TokenOffset> rule_off, off;
  ctx.tokenizer.encode_offsets(rule, true, rule_ids, rule_off);
  const int32_t cls = *ctx.tokenizer.cls_id(), sep = *ctx.tokenizer.sep_id();

  // A rule too long for a pass is cut as decide.py's truncation="only_second" cuts it, and the
  // Reading says which words went unread.
  std::vector<Pass> passes(options.size());
  size_t kept_min = rule_ids.size();
  for (size_t i = 0; i < options.size(); ++i) {
    const std::string query = std::string(1, options[i].letter) + ": " + options[i].text;
    ctx.tokenizer.encode_offsets(query, true, ids, off);
    if (int64_t(ids.size()) + 4 > hd.max_tokens)
      throw Error(std::string("reader: option ") + options[i].letter + " is " +
                  std::to_string(ids.size()) + " tokens; the reader reads " +
                  std::to_string(hd.max_tokens) + " with the rule");
    const size_t keep = std::min(rule_ids.size(), size_t(hd.max_tokens) - 3 - ids.size());
    kept_min = std::min(kept_min, keep);
    Pass& p = passes[i];
    p.add(cls, {}, -1, 0);
    for (size_t k = 0; k < ids.size(); ++k) p.add(ids[k], off[k], 0, 0);
    p.add(sep, {}, -1, 0);
    for (size_t k = 0; k < keep; ++k) p.add(rule_ids[k], rule_off[k], 1, 1);
    p.add(sep, {}, -1, 1);
  }
  if (kept_min < rule_ids.size()) {
    const uint32_t from = rule_off[kept_min].begin;
    r.unread = Span{from, uint32_t(rule.size()), std::string(rule.substr(from))};
  }

  std::vector<model::EncoderInput> batch;
  for (const Pass& p : passes) batch.push_back(p.input);
  const std::vector<model::Hidden> hidden = ctx.encoder.encode(batch, ctx.encode);

  std::vector<bool> claimed(kept_min, false);
  std::vector<float> logits;
  for (size_t i = 0; i < options.size(); ++i) {
    const model::Hidden& h = hidden[i];
    Pass& p = passes[i];
    const int64_t n_tags = hd.tag.rows;
    logits.resize(size_t(h.rows * n_tags));
    hd.tag.apply(h.data.data(), h.rows, logits.data());
    size_t rule_k = 0;
    std::vector<size_t> seg_a;
    for (int64_t t = 0; t < h.rows; ++t) {
      TaggedToken& tok = p.tokens[size_t(t)];
      std::tie(tok.tag, tok.p) = argmax_p(logits.data() + t * n_tags, n_tags);
      tok.ante = tok.tag == hd.tags.ante;
      if (p.input.types[size_t(t)] == 0) seg_a.push_back(size_t(t));
      if (tok.seq == 1) {
        if (rule_k < kept_min && tok.tag != hd.tags.o) claimed[rule_k] = true;
        ++rule_k;
      }
    }
    // The default head reads the mean of segment A: [CLS], the query and its [SEP].
    const std::vector<float> a = mean_of(h, seg_a);
    float def = 0;
    hd.def.apply(a.data(), 1, &def);
    r.options.push_back({options[i].letter, options[i].text,
                         clauses_from_tags(rule, p.tokens, hd.tags), sigmoid32(def)});
  }
  r.unclaimed = unclaimed_runs(rule, std::span(rule_off).first(kept_min), claimed);
}

}  // namespace meadow::reader
