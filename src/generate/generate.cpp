// Block-wise diffusion and causal generation (meadow/runtime/generate.hpp).
#include "meadow/runtime/generate.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <optional>
#include <random>
#include <set>
#include <utility>

#include "generate/sampling.hpp"
#include "meadow/error.hpp"
#include "util/printable.hpp"

namespace meadow::generate {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

void check_options(const model::Model& m, std::span<const int32_t> prompt,
                   const GenerateOptions& o) {
  if (prompt.empty()) throw Error("generate: the prompt has no tokens");
  check_options(o);
  const int64_t ctx = m.config().n_ctx;
  if (ctx > 0 && int64_t(prompt.size()) + o.max_new_tokens > ctx)
    throw Error("generate: prompt (" + std::to_string(prompt.size()) +
                " tokens) + max_new_tokens (" + std::to_string(o.max_new_tokens) +
                ") exceed the context length " + std::to_string(ctx));
  if (!m.config().causal && m.config().mask_id < 0)
    throw Error("generate: this diffusion model has no mask token (tokenizer.ggml.mask_token_id)");
}

// What ends the answer once committed: the first stop token, then stop strings in the text.
struct Finisher {
  const Tokenizer& tok;
  std::set<int32_t> stops;
  const std::vector<std::string>& stop_strings;

  // Cuts `out` at the first stop token at or after `from`; true when one was found.
  bool cut_at_stop_token(Generation& out, size_t from) const {
    for (size_t i = from; i < out.tokens.size(); ++i)
      if (stops.count(out.tokens[i])) {
        out.tokens.resize(i);
        return true;
      }
    return false;
  }
  // After tokens from `from` on were committed: true (finish_reason "stop") when a stop token,
  // a stop string or the caller ends the answer.
  bool committed(Generation& out, size_t from, const OnCommit& cb) const {
    bool stop = cut_at_stop_token(out, from);
    if (out.logprobs.size() > out.tokens.size()) out.logprobs.resize(out.tokens.size());
    stop = stop || decode(out) || (cb && !cb(out));
    if (stop) out.finish_reason = "stop";
    return stop;
  }
  // Decodes; cuts at the first stop string. True when one was found.
  bool decode(Generation& out) const {
    out.text = tok.decode(out.tokens, true);
    size_t cut = std::string::npos;
    for (const auto& s : stop_strings)
      if (!s.empty()) cut = std::min(cut, out.text.find(s));
    if (cut == std::string::npos) return false;
    out.text.resize(cut);
    return true;
  }
};

// One denoising step's commit: the most confident picks, as many as the threshold admits (at
// least one) or an even share of what is left over the remaining steps.
void unmask(std::vector<int32_t>& tokens, const std::vector<int64_t>& masked,
            const std::vector<Pick>& picks, int64_t step, int64_t steps, double threshold) {
  std::vector<size_t> order(picks.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t z) { return picks[a].confidence > picks[z].confidence; });
  size_t k;
  if (threshold > 0) {
    k = size_t(std::count_if(picks.begin(), picks.end(),
                             [&](const Pick& p) { return p.confidence >= threshold; }));
    k = std::max<size_t>(k, 1);
  } else {
    const int64_t left = std::max<int64_t>(steps - step, 1);
    k = size_t((int64_t(masked.size()) + left - 1) / left);
  }
  for (size_t j = 0; j < k && j < order.size(); ++j)
    tokens[size_t(masked[order[j]])] = picks[order[j]].token;
}

Generation generate_causal(const model::Model& m, std::span<const int32_t> prompt,
                           const GenerateOptions& o, const Finisher& fin, const OnCommit& cb) {
  Generation out;
  std::mt19937_64 rng(o.seed);
  model::Workspace ws;  // one for the whole generation: buffers and worker pool reused per step
  model::RunOptions ro;
  ro.threads = o.threads;
  ro.workspace = &ws;
  const int64_t n_vocab = m.config().n_vocab;
  std::vector<int32_t> seq(prompt.begin(), prompt.end());
  model::PrefixCache cache;
  auto t0 = Clock::now();
  model::Logits logits = o.cache ? m.extend(cache, {seq, {int64_t(seq.size()) - 1}}, ro)
                                 : m.run({{seq, {int64_t(seq.size()) - 1}}}, ro).front();
  out.passes = 1;
  out.prefill_ms = ms_since(t0);
  t0 = Clock::now();
  out.finish_reason = "length";
  for (int i = 0; i < o.max_new_tokens; ++i) {
    decision::check_finite(m, {logits.row(0), size_t(n_vocab)}, "generate");
    const Pick pick = pick_token(logits.row(0), n_vocab, o.temperature, o.top_p, o.confidence, rng);
    out.tokens.push_back(pick.token);
    if (o.logprobs >= 0)
      out.logprobs.push_back(token_logprob(logits.row(0), n_vocab, pick.token, o.logprobs));
    ++out.steps;
    if (fin.committed(out, out.tokens.size() - 1, cb)) break;
    if (i + 1 == o.max_new_tokens) break;
    seq.push_back(pick.token);
    const int64_t last = int64_t(seq.size()) - 1;
    logits =
        o.cache ? m.extend(cache, {{pick.token}, {last}}, ro) : m.run({{seq, {last}}}, ro).front();
    ++out.passes;
  }
  fin.decode(out);
  out.ms = ms_since(t0);
  return out;
}

Generation generate_blocks(const model::Model& m, std::span<const int32_t> prompt,
                           const GenerateOptions& o, const Finisher& fin, const OnCommit& cb) {
  Generation out;
  std::mt19937_64 rng(o.seed);
  model::Workspace ws;  // one for the whole generation: buffers and worker pool reused per step
  model::RunOptions ro;
  ro.threads = o.threads;
  ro.workspace = &ws;
  const model::Config& c = m.config();
  const int32_t mask = c.mask_id;
  const int64_t n_vocab = c.n_vocab;
  const int64_t p0 = int64_t(prompt.size());

  std::vector<int32_t> canvas(prompt.begin(), prompt.end());  // committed tokens
  std::vector<int64_t> block_ends{p0};                        // the uncached path's mask
  model::PrefixCache cache;
  std::vector<float> carry;  // shifted models: the logits row before the current block
  // Committed tokens join the cache; a shifted model keeps the last one's row, which predicts
  // the next block's first position.
  auto commit = [&](const std::vector<int32_t>& tokens, int64_t last) {
    const auto rows = c.shift_logits ? std::vector<int64_t>{last} : std::vector<int64_t>{};
    carry = std::move(m.extend(cache, {tokens, rows}, ro).data);
    ++out.passes;
  };
  auto t0 = Clock::now();
  if (o.cache) commit(canvas, p0 - 1);
  out.prefill_ms = ms_since(t0);
  t0 = Clock::now();
  out.finish_reason = "length";

  int64_t produced = 0;
  std::vector<int32_t> block, full;  // reused across blocks and steps
  std::vector<int64_t> masked;
  std::vector<Pick> picks;
  while (produced < o.max_new_tokens) {
    const int64_t b = std::min<int64_t>(o.block_size, o.max_new_tokens - produced);
    const int64_t start = p0 + produced;
    block.assign(size_t(b), mask);
    const int64_t steps = o.steps_per_block > 0 ? std::min<int64_t>(o.steps_per_block, b) : b;
    for (int64_t step = 0;; ++step) {
      masked.clear();
      for (int64_t i = 0; i < b; ++i)
        if (block[size_t(i)] == mask) masked.push_back(i);
      if (masked.empty()) break;
      // Rows to read (only the masked positions'): position start + i is predicted by row
      // start + i - 1 when shifted.
      std::vector<int64_t> rows;
      bool need_carry = false;
      for (int64_t i : masked) {
        if (c.shift_logits && i == 0 && o.cache) {
          need_carry = true;
          continue;
        }
        rows.push_back(c.shift_logits ? start + i - 1 : start + i);
      }
      model::Logits logits;
      if (o.cache) {
        if (!rows.empty()) logits = std::move(m.run_cached(cache, {{block, rows}}, ro).front());
      } else {
        full.assign(canvas.begin(), canvas.end());
        full.insert(full.end(), block.begin(), block.end());
        logits = std::move(m.run_block_causal({{full, rows}}, ro, block_ends).front());
      }
      ++out.passes;
      ++out.steps;
      // Each masked position's pick, in `masked` order.
      picks.clear();
      size_t r = 0;
      for (int64_t i : masked) {
        const float* row = (need_carry && i == 0) ? carry.data() : logits.row(int64_t(r++));
        decision::check_finite(m, {row, size_t(n_vocab)}, "generate");
        picks.push_back(pick_token(row, n_vocab, o.temperature, o.top_p, o.confidence, rng));
      }
      unmask(block, masked, picks, step, steps, o.threshold);
    }
    // The finished block joins the committed tokens (and the cache).
    if (o.cache) commit(block, start + b - 1);
    canvas.insert(canvas.end(), block.begin(), block.end());
    block_ends.push_back(start + b);
    const size_t before = out.tokens.size();
    out.tokens.insert(out.tokens.end(), block.begin(), block.end());
    produced += b;
    if (fin.committed(out, before, cb)) break;
  }
  fin.decode(out);
  out.ms = ms_since(t0);
  return out;
}

}  // namespace

TokenLogprob token_logprob(const float* row, int64_t n_vocab, int32_t id, int top_n) {
  const float mx = *std::max_element(row, row + n_vocab);
  double sum = 0;
  for (int64_t i = 0; i < n_vocab; ++i) sum += std::exp(double(row[i]) - mx);
  const double log_z = mx + std::log(sum);
  TokenLogprob t{id, double(row[id]) - log_z, {}};
  const size_t k = std::min<size_t>(size_t(std::max(top_n, 0)), size_t(n_vocab));
  if (k > 0) {
    std::vector<int32_t> order(static_cast<size_t>(n_vocab));
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(
        order.begin(), order.begin() + long(k), order.end(),
        [&](int32_t a, int32_t b) { return row[a] > row[b] || (row[a] == row[b] && a < b); });
    for (size_t i = 0; i < k; ++i) t.top.emplace_back(order[i], double(row[order[i]]) - log_z);
  }
  return t;
}

Confidence parse_confidence(std::string_view name) {
  if (name == "probability") return Confidence::Probability;
  if (name == "margin") return Confidence::Margin;
  if (name == "entropy") return Confidence::NegEntropy;
  throw Error("unknown confidence \"" + std::string(name) + "\" (probability, margin or entropy)");
}

std::vector<int32_t> stop_token_ids(const Tokenizer& tok) {
  std::set<int32_t> ids;
  for (auto id : {tok.eos_id(), tok.eot_id()})
    if (id) ids.insert(*id);
  for (const char* t : {"<|im_end|>", "<|endoftext|>", "<|eot_id|>", "<|end_of_text|>"})
    if (auto id = tok.find(t)) ids.insert(*id);
  if (auto m = tok.mask_id()) ids.erase(*m);
  return {ids.begin(), ids.end()};
}

std::string chat_role(std::string_view role) {
  if (role == "developer") return "system";
  if (role == "system" || role == "user" || role == "assistant" || role == "tool")
    return std::string(role);
  throw Error("unknown role " + util::quoted(role) +
              " (system, developer, user, assistant or tool)");
}

void check_stop(const std::vector<std::string>& stop) {
  if (stop.size() > size_t(kMaxStops))
    throw Error("stop: at most " + std::to_string(kMaxStops) + " strings, not " +
                std::to_string(stop.size()));
  for (const auto& s : stop)
    if (s.empty()) throw Error("stop: the strings must not be empty");
}

void check_options(const GenerateOptions& o) {
  if (o.max_new_tokens < 1) throw Error("generate: max_new_tokens must be at least 1");
  if (o.block_size < 1) throw Error("generate: block_size must be at least 1");
  if (o.steps_per_block < 0) throw Error("generate: steps_per_block must not be negative");
  if (!(o.threshold >= 0 && o.threshold <= 1)) throw Error("generate: threshold must be in [0, 1]");
  if (!(o.temperature >= 0 && o.temperature <= kMaxTemperature))
    throw Error("generate: temperature must be in [0, " + std::to_string(int(kMaxTemperature)) +
                "]");
  if (!(o.top_p > 0 && o.top_p <= 1)) throw Error("generate: top_p must be in (0, 1]");
  if (o.threads < 1 || o.threads > model::kMaxThreads)
    throw Error("generate: threads must be in 1.." + std::to_string(model::kMaxThreads) + ", not " +
                std::to_string(o.threads));
  check_stop(o.stop);
}

std::vector<int32_t> chat_prompt_ids(const Tokenizer& tok, const std::vector<ChatMessage>& msgs) {
  if (msgs.empty()) throw Error("messages: none given");
  std::vector<ChatMessage> checked = msgs;
  for (size_t i = 0; i < checked.size(); ++i) {
    try {
      checked[i].role = chat_role(checked[i].role);
    } catch (const Error& e) {
      throw Error("messages[" + std::to_string(i) + "]: " + e.what());
    }
  }
  return encode_chat(tok, render_chat_pieces(detect_chat_template(tok), checked, true));
}

Generation generate(const model::Model& model, const Tokenizer& tok,
                    std::span<const int32_t> prompt, const GenerateOptions& opts,
                    const OnCommit& on_commit) {
  check_options(model, prompt, opts);
  const std::vector<int32_t> ids = stop_token_ids(tok);
  Finisher fin{tok, {ids.begin(), ids.end()}, opts.stop};
  if (opts.ignore_eos) fin.stops.clear();
  return model.config().causal ? generate_causal(model, prompt, opts, fin, on_commit)
                               : generate_blocks(model, prompt, opts, fin, on_commit);
}

Generation fill_gaps(const model::Model& model, const Tokenizer& tok, std::vector<int32_t>& seq,
                     const std::vector<int64_t>& gaps, const GenerateOptions& o) {
  const model::Config& c = model.config();
  if (c.causal) throw Error("infill needs a bidirectional (diffusion) model; this one is causal");
  if (c.mask_id < 0) throw Error("infill: this diffusion model has no mask token");
  if (gaps.empty()) throw Error("infill: the gap must hold at least 1 token");
  if (c.n_ctx > 0 && int64_t(seq.size()) > c.n_ctx)
    throw Error("infill: " + std::to_string(seq.size()) + " tokens exceed the context length " +
                std::to_string(c.n_ctx));
  GenerateOptions checked = o;
  checked.max_new_tokens = 1;
  check_options(model, seq, checked);
  for (int64_t g : gaps) seq[size_t(g)] = c.mask_id;
  std::mt19937_64 rng(o.seed);
  model::Workspace ws;  // one for the whole generation: buffers and worker pool reused per step
  model::RunOptions ro;
  ro.threads = o.threads;
  ro.workspace = &ws;
  const int64_t n = int64_t(gaps.size());
  const int64_t steps = o.steps_per_block > 0 ? std::min<int64_t>(o.steps_per_block, n) : n;
  Generation out;
  const auto t0 = Clock::now();
  // The gaps see both sides: the model's natural full attention over the whole sequence.
  for (int64_t step = 0;; ++step) {
    std::vector<int64_t> masked, rows;
    for (int64_t g : gaps)
      if (seq[size_t(g)] == c.mask_id) {
        masked.push_back(g);
        rows.push_back(model.logits_row_for(g));
      }
    if (masked.empty()) break;
    const model::Logits l = model.run({{seq, rows}}, ro).front();
    ++out.passes;
    ++out.steps;
    std::vector<Pick> picks;
    decision::check_finite(model, l.data, "infill");
    for (int64_t r = 0; r < l.rows; ++r)
      picks.push_back(pick_token(l.row(r), l.cols, o.temperature, o.top_p, o.confidence, rng));
    unmask(seq, masked, picks, step, steps, o.threshold);
  }
  for (int64_t g : gaps) out.tokens.push_back(seq[size_t(g)]);
  out.text = tok.decode(out.tokens, true);
  out.finish_reason = "length";
  out.ms = ms_since(t0);
  return out;
}

Generation infill(const model::Model& model, const Tokenizer& tok, std::span<const int32_t> before,
                  std::span<const int32_t> after, int n_tokens, const GenerateOptions& o) {
  if (before.empty()) throw Error("infill: the text before the gap has no tokens");
  if (n_tokens < 1) throw Error("infill: the gap must hold at least 1 token");
  std::vector<int32_t> seq(before.begin(), before.end());
  std::vector<int64_t> gaps;
  for (int i = 0; i < n_tokens; ++i) {
    gaps.push_back(int64_t(seq.size()));
    seq.push_back(0);  // masked by fill_gaps
  }
  seq.insert(seq.end(), after.begin(), after.end());
  return fill_gaps(model, tok, seq, gaps, o);
}

}  // namespace meadow::generate
