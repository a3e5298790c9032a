#include "reader/tags.hpp"

#include <algorithm>

namespace meadow::reader {
namespace {

std::string cut(std::string_view text, uint32_t begin, uint32_t end) {
  return std::string(text.substr(begin, end - begin));
}

// A literal while its tokens are read: the rule bytes it covers, and for a pronoun's literal
// where the pronoun ends and the antecedent's bytes.
struct Open {
  uint32_t begin = 0, end = 0;
  std::optional<uint32_t> pron_end;
  std::optional<TokenOffset> ante;
  double p = 1;
  std::vector<size_t> tokens;
  Join join = Join::None;
};

}  // namespace

std::vector<LiteralRun> literals_from_tags(std::string_view rule,
                                           std::span<const TaggedToken> tokens, const TagIds& ids,
                                           int segment) {
  std::vector<Open> lits;
  std::vector<TokenOffset> runs;  // antecedent runs
  std::optional<size_t> cur;      // index in lits of the literal the next I token extends
  Join pending = Join::None;
  bool prev_ante = false;
  for (size_t k = 0; k < tokens.size(); ++k) {
    const TaggedToken& t = tokens[k];
    const uint32_t s = t.off.begin, e = t.off.end;
    if (t.seq != segment || e <= s) {
      cur.reset();
      prev_ante = false;
      continue;
    }
    if (t.ante) {
      if (prev_ante)
        runs.back().end = e;
      else
        runs.push_back({s, e});
    }
    prev_ante = t.ante;
    if (t.tag == ids.b || t.tag == ids.pron || (t.tag == ids.i && !cur)) {
      Open lit{s, e, std::nullopt, std::nullopt, t.p, {k}, pending};
      if (t.tag == ids.pron && !runs.empty()) {
        lit.pron_end = e;
        lit.ante = runs.back();
      }
      cur = lits.size();
      lits.push_back(std::move(lit));
      pending = Join::None;
    } else if (t.tag == ids.i) {
      Open& l = lits[*cur];
      l.end = e;
      l.p = std::min(l.p, t.p);
      l.tokens.push_back(k);
    } else {
      cur.reset();
      if (t.tag == ids.and_)
        pending = Join::And;
      else if (t.tag == ids.or_)
        pending = Join::Or;
    }
  }
  std::vector<LiteralRun> out;
  for (Open& x : lits) {
    LiteralRun run;
    Literal& lit = run.literal;
    lit.words = {x.begin, x.end, cut(rule, x.begin, x.end)};
    lit.tag_p = x.p;
    if (x.ante) {
      lit.antecedent = Span{x.ante->begin, x.ante->end, cut(rule, x.ante->begin, x.ante->end)};
      lit.text = lit.antecedent->text + cut(rule, *x.pron_end, x.end);
    } else {
      lit.text = lit.words.text;
    }
    run.tokens = std::move(x.tokens);
    run.join = x.join;
    out.push_back(std::move(run));
  }
  return out;
}

std::vector<Clause> group_clauses(std::vector<LiteralRun> lits,
                                  std::vector<std::vector<size_t>>* members) {
  std::vector<Clause> clauses;
  for (size_t k = 0; k < lits.size(); ++k) {
    if (lits[k].join != Join::None && !clauses.empty()) {
      Clause& c = clauses.back();
      c.literals.push_back(std::move(lits[k].literal));
      if (c.join == Join::None) c.join = lits[k].join;
      if (members) members->back().push_back(k);
    } else {
      clauses.push_back({{std::move(lits[k].literal)}, Join::None});
      if (members) members->push_back({k});
    }
  }
  return clauses;
}

std::vector<Clause> clauses_from_tags(std::string_view rule, std::span<const TaggedToken> tokens,
                                      const TagIds& ids) {
  return group_clauses(literals_from_tags(rule, tokens, ids, 1));
}

std::optional<std::string> tagged_run(std::string_view text, std::span<const TaggedToken> tokens,
                                      int want, int seq) {
  std::optional<uint32_t> start;
  uint32_t end = 0;
  for (const TaggedToken& t : tokens) {
    if (t.seq != seq || t.off.end <= t.off.begin) continue;
    if (t.tag == want) {
      if (!start) start = t.off.begin;
      end = t.off.end;
    } else if (start) {
      break;
    }
  }
  if (!start) return std::nullopt;
  return cut(text, *start, end);
}

std::vector<Span> unclaimed_runs(std::string_view rule, std::span<const TokenOffset> rule_tokens,
                                 const std::vector<bool>& claimed) {
  std::vector<Span> out;
  bool open = false;
  for (size_t k = 0; k < rule_tokens.size(); ++k) {
    const TokenOffset& o = rule_tokens[k];
    if (claimed[k]) {
      open = false;
      continue;
    }
    if (open) {
      out.back().end = o.end;
    } else {
      out.push_back({o.begin, o.end, {}});
      open = true;
    }
  }
  for (Span& s : out) s.text = cut(rule, s.begin, s.end);
  return out;
}

}  // namespace meadow::reader
