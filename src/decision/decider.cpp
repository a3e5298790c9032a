// Decider: one forward pass per decision, read as the softmax over the option letters.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "decision/softmax.hpp"
#include "meadow/error.hpp"
#include "meadow/runtime/decider.hpp"
#include "util/spare_pool.hpp"

namespace meadow {

double Decision::prob(char letter) const {
  for (const auto& [l, p] : probs)
    if (l == letter) return p;
  return 0.0;
}

void check_options(const DecideOptions& o) {
  if (o.threads < 0 || o.threads > model::kMaxThreads)
    throw Error("decision: threads must be in 0.." + std::to_string(model::kMaxThreads) +
                " (0: auto), not " + std::to_string(o.threads));
  if (!(o.exit_margin >= 0 && o.exit_margin <= 1))
    throw Error("decision: the early-exit margin must be in [0, 1] (0: off)");
  if (!(o.float_recheck >= 0 && o.float_recheck <= 1))
    throw Error("decision: the float re-check margin must be in [0, 1] (0: off)");
}

namespace decision {
namespace {

// Top-1 minus top-2 probability (1 for a single option).
double margin_of(const std::vector<double>& pr) {
  if (pr.size() < 2) return 1.0;
  double best = 0, second = 0;
  for (const double p : pr) {
    if (p > best)
      second = best, best = p;
    else if (p > second)
      second = p;
  }
  return best - second;
}

}  // namespace

double normalized_entropy(std::span<const double> probs) {
  if (probs.size() < 2) return 0.0;
  double h = 0.0;
  for (const double p : probs)
    if (p > 0) h -= p * std::log(p);
  return h / std::log(double(probs.size()));
}

namespace {

// What one decision reuses: the model's workspace, the sequence and its logits, the tokenizer's
// text and ids, the letter probabilities and the draft. Vectors keep their capacity.
struct Scratch {
  model::Workspace ws;
  model::RunOptions ro;
  model::EarlyExit exit;
  std::vector<model::Sequence> batch;
  std::vector<model::Logits> out;
  std::string text;
  std::vector<int32_t> mid, suffix, draft;
  std::vector<double> z, pz, pr;
  std::vector<float> top;
};

// Where the situation goes in the suffix (see build_suffix_frame): the pieces before and after
// the one that holds it, tokenized once, and that piece's text around it.
struct SuffixFrame {
  bool ok = false;
  std::vector<int32_t> lead, tail;
  std::string before, after;
};

// The mark rendered where the situation goes, to find the suffix frame.
constexpr const char* kMark = "\x01";

}  // namespace

// A table bound to a model. It is shared by threads (decide() is const): each call borrows a
// Scratch from the pool and gives it back, so a warm decider holds one per caller that ran at
// the same time.
struct Decider::Impl {
  Impl(const model::Model& model, const Tokenizer& tok, std::string rule,
       std::vector<Choice> choices, DecideOptions opts);

  PromptIds prompt_ids(std::string_view situation) const;
  std::vector<Decision> decide_batch(std::span<const std::string> situations) const;
  bool cached() const { return !cache_.tokens.empty(); }

  std::unique_ptr<Scratch> new_scratch() const;  // with this decider's pass options
  void run(std::string_view situation, bool use_cache, Decision& d) const;
  // Decides again in float when the integer pass's margin is under opts_.float_recheck.
  void recheck(std::string_view situation, bool use_cache, Scratch& s, Decision& d) const;
  void sequence(std::string_view situation, bool use_cache, Scratch& s, model::Sequence& seq) const;
  void forward(const std::vector<model::Sequence>& batch, bool use_cache, Scratch& s) const;
  void read(const model::Logits& logits, std::string_view situation, Scratch& s, Decision& d) const;
  void letter_probs(const float* row, bool full_vocab, Scratch& s) const;  // into s.pr
  void build_suffix_frame(const std::vector<ChatPiece>& suffix);
  // The suffix ids into ids; checks the context.
  void suffix_ids(std::string_view situation, Scratch& s, std::vector<int32_t>& ids) const;

  const model::Model* model_;
  const Tokenizer* tok_;
  std::string rule_;
  std::vector<Choice> choices_;
  DecideOptions opts_;
  PromptContract contract_;  // the model's, with the options' system message when they set one
  bool integers_ = false;    // the decision pass multiplies in integers (Arithmetic::Auto)
  std::vector<int32_t> prefix_ids_;
  std::vector<int32_t> slot_ids_;  // the answer slot's mask tokens (empty for causal archs)
  SuffixFrame frame_;
  std::vector<int32_t> letter_ids_;  // per choice: the letter's bare token
  std::vector<int32_t> read_ids_;    // every letter form read (causal: "A" and " A")
  std::vector<size_t> read_owner_;   // choice index of each read id
  model::PrefixCache cache_;
  mutable util::SparePool<Scratch> scratch_;  // spare Scratch, one per concurrent caller

  class ScratchLease : public util::SparePool<Scratch>::Lease {
   public:
    explicit ScratchLease(const Impl& d) : Lease(d.scratch_, [&d] { return d.new_scratch(); }) {}
  };
};

Decider::Impl::Impl(const model::Model& model, const Tokenizer& tok, std::string rule,
                    std::vector<Choice> choices, DecideOptions opts)
    : model_(&model),
      tok_(&tok),
      rule_(std::move(rule)),
      choices_(std::move(choices)),
      opts_(std::move(opts)) {
  if (choices_.empty()) throw Error("decision: no options");
  std::set<char> letters;
  const bool causal = model.config().causal;
  for (size_t i = 0; i < choices_.size(); ++i) {
    const char letter = choices_[i].letter;
    if (!letters.insert(letter).second)
      throw Error(std::string("decision: duplicate option letter '") + letter + "'");
    // Causal models may answer "A" or " A" after the generation prompt: both forms are read
    // and their probabilities added. The bidirectional slot is read in its trained form only.
    std::vector<int32_t> forms;
    for (const std::string& text : {std::string(1, letter), std::string{' ', letter}}) {
      const auto ids = tok.encode(text, false);
      if (ids.size() == 1 && std::find(forms.begin(), forms.end(), ids[0]) == forms.end())
        forms.push_back(ids[0]);
      if (!causal) break;
    }
    if (forms.empty())
      throw Error(std::string("decision: option letter '") + letter +
                  "' is not a single token of the model's vocabulary");
    letter_ids_.push_back(forms[0]);
    for (int32_t id : forms) read_ids_.push_back(id), read_owner_.push_back(i);
  }
  check_options(opts_);
  if (opts_.threads == 0) opts_.threads = 1;  // auto, for a Decider alone
  const auto& cfg = model.config();
  if (!cfg.causal) {
    if (opts_.answer_slot < 1 || opts_.answer_slot > 8)
      throw Error("decision: answer slot must hold 1..8 mask tokens");
    if (cfg.mask_id < 0 && !tok.mask_id())
      throw Error("decision: the model has no mask token (tokenizer.ggml.mask_token_id)");
  }
  contract_ = prompt_contract(model.file());
  if (opts_.system) contract_.system = *opts_.system;
  const PromptText frame = prompt_text(tok, contract_, rule_, choices_, kMark);
  prefix_ids_ = encode_chat(tok, frame.prefix);
  if (prefix_ids_.empty()) throw Error("decision: empty prompt prefix");
  build_suffix_frame(frame.suffix);
  if (!cfg.causal) {
    const int32_t mask = cfg.mask_id >= 0 ? cfg.mask_id : *tok.mask_id();
    slot_ids_.assign(size_t(opts_.answer_slot), mask);
  }
  // A decision pass has at least the answer slot and the suffix's markup: 4+ tokens.
  integers_ = model.uses_integers(4);
  // Re-checked decisions must equal the float path's, so their prefix is float too.
  const auto prefix_arithmetic =
      integers_ && opts_.float_recheck > 0 ? model::Arithmetic::Float : model::Arithmetic::Auto;
  if (opts_.prefix_cache)
    cache_ = model.encode_prefix(prefix_ids_, opts_.threads, prefix_arithmetic);
}

Decider::Decider(const model::Model& model, const Tokenizer& tok, std::string rule,
                 std::vector<Choice> choices, DecideOptions opts)
    : impl_(std::make_unique<Impl>(model, tok, std::move(rule), std::move(choices),
                                   std::move(opts))) {}

Decider::Decider(Decider&&) noexcept = default;
Decider& Decider::operator=(Decider&&) noexcept = default;
Decider::~Decider() = default;

const std::vector<int32_t>& Decider::letter_ids() const {
  return impl_->letter_ids_;
}
const std::vector<int32_t>& Decider::read_ids() const {
  return impl_->read_ids_;
}
const std::vector<size_t>& Decider::read_owner() const {
  return impl_->read_owner_;
}
const std::string& Decider::rule() const {
  return impl_->rule_;
}
const std::vector<Choice>& Decider::choices() const {
  return impl_->choices_;
}
const DecideOptions& Decider::options() const {
  return impl_->opts_;
}

const PromptContract& Decider::contract() const {
  return impl_->contract_;
}
bool Decider::cached() const {
  return impl_->cached();
}

// The suffix is rendered once, with kMark where the situation goes: the pieces before the one
// holding the mark and those after it are tokenized here, once per table.
void Decider::Impl::build_suffix_frame(const std::vector<ChatPiece>& suffix) {
  size_t at = suffix.size();
  for (size_t i = 0; i < suffix.size() && at == suffix.size(); ++i)
    if (!suffix[i].special && suffix[i].text.find(kMark) != std::string::npos) at = i;
  if (at == suffix.size()) return;  // no frame: every decision renders the whole suffix
  const std::string& text = suffix[at].text;
  const size_t m = text.find(kMark);
  if (text.find(kMark, m + 1) != std::string::npos) return;
  frame_.lead = encode_chat(*tok_, {suffix.begin(), suffix.begin() + ptrdiff_t(at)});
  frame_.before = text.substr(0, m);
  frame_.after = text.substr(m + 1);
  frame_.tail = encode_chat(*tok_, {suffix.begin() + ptrdiff_t(at) + 1, suffix.end()});
  frame_.ok = true;
}

void Decider::Impl::suffix_ids(std::string_view situation, Scratch& s,
                               std::vector<int32_t>& ids) const {
  // Every template renders a message's content verbatim except llama3, which trims its ends:
  // a situation with no whitespace at either end renders the same in the frame. Any other
  // (and a table whose frame was not found) takes the full rendering.
  const char* ws = " \t\n\r\v\f";
  const bool framed = frame_.ok && !situation.empty() &&
                      std::strchr(ws, situation.front()) == nullptr &&
                      std::strchr(ws, situation.back()) == nullptr;
  if (framed) {
    s.text.assign(frame_.before).append(situation).append(frame_.after);
    tok_->encode(s.text, false, s.mid);
    ids.assign(frame_.lead.begin(), frame_.lead.end());
    ids.insert(ids.end(), s.mid.begin(), s.mid.end());
    ids.insert(ids.end(), frame_.tail.begin(), frame_.tail.end());
  } else {
    ids = encode_chat(*tok_, prompt_text(*tok_, contract_, rule_, choices_, situation).suffix);
  }
  if (ids.empty()) throw Error("decision: empty prompt suffix");
  const int64_t n = int64_t(prefix_ids_.size() + ids.size() + slot_ids_.size());
  const int64_t n_ctx = model_->config().n_ctx;
  if (n_ctx > 0 && n > n_ctx)
    throw Error("decision: prompt of " + std::to_string(n) +
                " tokens exceeds the model's context of " + std::to_string(n_ctx));
}

PromptIds Decider::Impl::prompt_ids(std::string_view situation) const {
  PromptIds p;
  const ScratchLease s(*this);
  suffix_ids(situation, *s, p.suffix);
  p.prefix = prefix_ids_;
  p.slot = slot_ids_;
  // The first slot position (bidirectional) or the next token (causal).
  p.answer_pos = int64_t(p.prefix.size() + p.suffix.size());
  return p;
}

PromptIds Decider::prompt_ids(std::string_view situation) const {
  return impl_->prompt_ids(situation);
}

Decision Decider::decide(std::string_view situation) const {
  Decision d;
  impl_->run(situation, impl_->opts_.prefix_cache, d);
  return d;
}

Decision Decider::decide_uncached(std::string_view situation) const {
  Decision d;
  impl_->run(situation, false, d);
  return d;
}

void Decider::decide_into(std::string_view situation, Decision& d) const {
  impl_->run(situation, impl_->opts_.prefix_cache, d);
}

std::vector<Decision> Decider::decide_batch(std::span<const std::string> situations) const {
  return impl_->decide_batch(situations);
}

// One sequence: the suffix and slot after the cached prefix, or the whole prompt; its logits
// rows are every answer position (bidirectional) or the next-token row (causal).
void Decider::Impl::sequence(std::string_view situation, bool use_cache, Scratch& sc,
                             model::Sequence& s) const {
  const int64_t P = int64_t(prefix_ids_.size());
  if (use_cache) {
    suffix_ids(situation, sc, s.tokens);  // the cached run needs only the suffix
  } else {
    suffix_ids(situation, sc, sc.suffix);
    s.tokens.assign(prefix_ids_.begin(), prefix_ids_.end());
    s.tokens.insert(s.tokens.end(), sc.suffix.begin(), sc.suffix.end());
  }
  const int64_t answer_pos = int64_t(s.tokens.size()) + (use_cache ? P : 0);
  s.tokens.insert(s.tokens.end(), slot_ids_.begin(), slot_ids_.end());
  s.positions.clear();
  if (!model_->config().causal) {
    for (int64_t i = 0; i < int64_t(slot_ids_.size()); ++i)
      s.positions.push_back(model_->logits_row_for(answer_pos + i));
  } else {
    s.positions.push_back(answer_pos - 1);
  }
  if (!opts_.want_coherence) s.positions.resize(1);
}

// A scratch with the pass's options set once: they depend only on this decider's letters,
// threads and early exit, and on the scratch's own workspace.
std::unique_ptr<Scratch> Decider::Impl::new_scratch() const {
  auto s = std::make_unique<Scratch>();
  s->ro.threads = opts_.threads;
  s->ro.workspace = &s->ws;
  if (!opts_.want_coherence) s->ro.vocab_rows = read_ids_;
  if (opts_.exit_margin > 0) {
    s->exit.vocab_rows = read_ids_;
    s->ro.early_exit = &s->exit;
  }
  return s;
}

void Decider::Impl::forward(const std::vector<model::Sequence>& batch, bool use_cache,
                            Scratch& s) const {
  // Early exit: stop after the first layer at which every answer's margin reaches the bar. Set
  // per call: it reads through this decider, which may have moved since the scratch was made.
  if (s.ro.early_exit)
    s.exit.stop = [this, &s](int64_t, const std::vector<model::Logits>& probe) {
      for (const model::Logits& l : probe) {
        letter_probs(l.row(0), false, s);
        if (margin_of(s.pr) < opts_.exit_margin) return false;
      }
      return true;
    };
  if (use_cache)
    model_->run_cached(cache_, batch, s.ro, s.out);
  else
    s.out = model_->run(batch, s.ro, model::Mask::Prefix, int64_t(prefix_ids_.size()));
}

void Decider::Impl::run(std::string_view situation, bool use_cache, Decision& d) const {
  const auto t0 = std::chrono::steady_clock::now();
  if (use_cache && !cached())
    throw Error("decision: no prefix cache (built with prefix_cache = false)");
  const ScratchLease lease(*this);
  Scratch& s = *lease;
  s.batch.resize(1);
  sequence(situation, use_cache, s, s.batch[0]);
  forward(s.batch, use_cache, s);
  read(s.out.at(0), situation, s, d);
  recheck(situation, use_cache, s, d);
  d.lat_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

std::vector<Decision> Decider::Impl::decide_batch(std::span<const std::string> situations) const {
  const auto t0 = std::chrono::steady_clock::now();
  const bool use_cache = opts_.prefix_cache;
  const ScratchLease lease(*this);
  Scratch& s = *lease;
  s.batch.resize(situations.size());
  for (size_t i = 0; i < situations.size(); ++i) sequence(situations[i], use_cache, s, s.batch[i]);
  forward(s.batch, use_cache, s);
  std::vector<Decision> ds(situations.size());
  for (size_t i = 0; i < situations.size(); ++i) read(s.out[i], situations[i], s, ds[i]);
  for (size_t i = 0; i < situations.size(); ++i) recheck(situations[i], use_cache, s, ds[i]);
  // Every answer of the pass is ready when the pass ends: each one's latency is the batch's.
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  for (Decision& d : ds) d.lat_ms = ms;
  return ds;
}

void Decider::Impl::recheck(std::string_view situation, bool use_cache, Scratch& s,
                            Decision& d) const {
  if (!integers_ || !(d.margin < opts_.float_recheck)) return;
  struct InFloat {  // back to Auto however the pass ends
    model::RunOptions& ro;
    explicit InFloat(model::RunOptions& r) : ro(r) { ro.arithmetic = model::Arithmetic::Float; }
    ~InFloat() { ro.arithmetic = model::Arithmetic::Auto; }
  } in_float(s.ro);
  s.batch.resize(1);
  sequence(situation, use_cache, s, s.batch[0]);
  forward(s.batch, use_cache, s);
  read(s.out.at(0), situation, s, d);
}

// The decision read from its logits rows (lat_ms is the caller's).
// Per choice: the softmax over the letter tokens' logits in `row`, each letter's forms summed.
// `full` rows hold the whole vocabulary, else just read_ids_ in order. A model that gives
// non-finite logits is broken: an error, never a letter.
void Decider::Impl::letter_probs(const float* row, bool full, Scratch& s) const {
  s.z.resize(read_ids_.size());
  for (size_t k = 0; k < read_ids_.size(); ++k) s.z[k] = full ? row[read_ids_[k]] : row[k];
  check_finite(*model_, s.z, "decision");
  softmax(s.z, s.pz);
  s.pr.assign(choices_.size(), 0.0);
  for (size_t k = 0; k < s.pz.size(); ++k) s.pr[read_owner_[k]] += s.pz[k];
}

void Decider::Impl::read(const model::Logits& lg, std::string_view situation, Scratch& s,
                         Decision& d) const {
  letter_probs(lg.row(0), opts_.want_coherence, s);
  const std::vector<double>& pr = s.pr;
  d.status.assign(situation);
  d.probs.clear();
  size_t best = 0;
  for (size_t i = 0; i < pr.size(); ++i) {
    d.probs.emplace_back(choices_[i].letter, pr[i]);
    if (pr[i] > pr[best]) best = i;
  }
  d.letter = choices_[best].letter;
  d.margin = margin_of(pr);
  d.layers = lg.layers;
  d.entropy = normalized_entropy(pr);

  if (opts_.want_coherence) {
    s.draft.clear();
    double sum = 0.0;
    for (int64_t r = 0; r < lg.rows; ++r) {
      const auto top = top_token(lg.row(r), lg.cols, s.top);
      sum += top.prob;
      s.draft.push_back(top.id);
    }
    d.coherence = sum / double(lg.rows);
    tok_->decode(s.draft, false, d.draft);
  } else {
    d.coherence = std::numeric_limits<double>::quiet_NaN();
    d.draft.clear();
  }
}

}  // namespace decision
}  // namespace meadow
