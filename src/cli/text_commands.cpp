// Text commands: generate, draft, route (meadow/generate.hpp).
//
//   meadow-mind generate --prompt TEXT [--raw] [--system TEXT] [--max-tokens N] [--block N]
//                        [--steps N] [--threshold X] [--confidence probability|margin|entropy]
//                        [--temperature T] [--top-p P] [--seed S] [--stop S]... [--no-cache]
//                        [--threads N] [--ignore-eos] [--model M] [--lora F] [--json]
//   meadow-mind draft --prompt TEXT [--length N] [--json]
//   meadow-mind route --prompt TEXT [--length N] [--escalate-below X] [--json]
//
// The prompt is the user message of the model's chat template unless --raw.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "meadow/error.hpp"
#include "meadow/generate.hpp"
#include "meadow/mind.hpp"
#include "meadow/model.hpp"

namespace meadow::cli {
namespace {

using nlohmann::ordered_json;

struct TextArgs {
  std::string prompt, system, model, lora, confidence = "probability";
  std::vector<std::string> stop;
  bool raw = false, json = false, no_cache = false, ignore_eos = false;
  int max_tokens = 128, block = 32, steps = 0, threads = 1, length = 32;
  double threshold = 0, temperature = 0, top_p = 1, escalate_below = 0.5;
  uint64_t seed = 0;
};

struct Loaded {
  model::Model model;
  Tokenizer tok;
  std::vector<int32_t> prompt;
};

Loaded load(const TextArgs& a) {
  if (a.prompt.empty()) throw Error("--prompt is empty");
  model::Model m = model::Model::load(resolve_model(a.model), a.lora);
  Tokenizer tok = Tokenizer::from_gguf(m.file());
  std::vector<int32_t> ids;
  if (a.raw) {
    ids = tok.encode(a.prompt, false);
  } else {
    std::vector<ChatMessage> msgs;
    if (!a.system.empty()) msgs.push_back({"system", a.system});
    msgs.push_back({"user", a.prompt});
    ids = diffusion::chat_prompt_ids(tok, msgs);
  }
  return {std::move(m), std::move(tok), std::move(ids)};
}

void add_common(CLI::App* c, TextArgs& a) {
  c->add_option("--prompt", a.prompt, "the prompt (the user message)")->required();
  c->add_flag("--raw", a.raw, "the prompt as plain text, without the chat template");
  c->add_option("--system", a.system, "a system message");
  add_model_option(c, a.model);
  add_lora_option(c, a.lora);
  c->add_option("--threads", a.threads, "threads")->check(CLI::Range(1, 256));
  c->add_flag("--json", a.json, "print one JSON object");
}

void run_generate(const TextArgs& a) {
  diffusion::GenerateOptions o;
  o.max_new_tokens = a.max_tokens;
  o.block_size = a.block;
  o.steps_per_block = a.steps;
  o.threshold = a.threshold;
  o.confidence = diffusion::parse_confidence(a.confidence);
  o.temperature = a.temperature;
  o.top_p = a.top_p;
  o.seed = a.seed;
  o.cache = !a.no_cache;
  o.threads = a.threads;
  o.stop = a.stop;
  o.ignore_eos = a.ignore_eos;
  const Loaded L = load(a);
  // One stderr line rewritten per committed block or token, only on a terminal.
  const bool progress = !a.json && isatty(fileno(stderr));
  const auto t0 = std::chrono::steady_clock::now();
  size_t shown = 0;
  const diffusion::Generation g =
      diffusion::generate(L.model, L.tok, L.prompt, o, [&](std::string_view text) {
        if (progress) {
          const double s =
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          std::fprintf(stderr, "\r\033[K%zu bytes, %.1f s", text.size(), s);
          shown = text.size();
        }
        return true;
      });
  if (progress && shown) std::fputs("\r\033[K", stderr);
  const double tps = g.ms > 0 ? 1000.0 * double(g.tokens.size()) / g.ms : 0;
  if (a.json) {
    ordered_json j{{"text", g.text},
                   {"finish_reason", g.finish_reason},
                   {"prompt_tokens", L.prompt.size()},
                   {"completion_tokens", g.tokens.size()},
                   {"steps", g.steps},
                   {"passes", g.passes},
                   {"prefill_ms", g.prefill_ms},
                   {"ms", g.ms},
                   {"tokens_per_s", tps},
                   {"model", resolve_model(a.model)}};
    std::printf("%s\n", j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    return;
  }
  std::printf("%s\n", g.text.c_str());
  std::fprintf(stderr, "%zu tokens, %d steps, %d passes, %.1f tokens/s (%s)\n", g.tokens.size(),
               g.steps, g.passes, tps, g.finish_reason.c_str());
}

ordered_json draft_json(const diffusion::Draft& d) {
  return {{"text", d.text},
          {"tokens", d.tokens},
          {"confidence", d.confidence},
          {"coherence", d.coherence},
          {"ms", d.ms}};
}

void run_draft(const TextArgs& a, bool routing) {
  const Loaded L = load(a);
  const diffusion::Draft d = diffusion::draft(L.model, L.tok, L.prompt, a.length, a.threads);
  if (!routing) {
    if (a.json)
      std::printf(
          "%s\n",
          draft_json(d).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    else
      std::printf("%s\nΣ %.3f (%zu positions, %.1f ms)\n", d.text.c_str(), d.coherence,
                  d.tokens.size(), d.ms);
    return;
  }
  const diffusion::Route r = diffusion::route(d, a.escalate_below);
  if (a.json) {
    ordered_json j{{"mode", r.mode},
                   {"signals", r.signals},
                   {"coherence", r.coherence},
                   {"escalate", r.escalate},
                   {"draft", draft_json(d)}};
    std::printf("%s\n", j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    return;
  }
  std::string signals;
  for (const auto& s : r.signals) signals += (signals.empty() ? "" : ",") + s;
  std::printf("mode %s  signals %s  Σ %.3f%s\n", r.mode.c_str(),
              signals.empty() ? "-" : signals.c_str(), r.coherence, r.escalate ? "  escalate" : "");
}

}  // namespace

void add_text_commands(CLI::App& app) {
  auto g = std::make_shared<TextArgs>();
  auto* gen = app.add_subcommand("generate", "generate an answer (block diffusion or causal)");
  add_common(gen, *g);
  gen->add_option("--max-tokens", g->max_tokens, "new tokens at most")
      ->check(CLI::Range(1, 1 << 20));
  gen->add_option("--block", g->block, "diffusion: tokens per block")
      ->check(CLI::Range(1, 1 << 16));
  gen->add_option("--steps", g->steps, "diffusion: steps per block (0: one token a step)")
      ->check(CLI::Range(0, 1 << 16));
  gen->add_option("--threshold", g->threshold,
                  "diffusion: unmask every position this confident (0: off)")
      ->check(CLI::Range(0.0, 1.0));
  gen->add_option("--confidence", g->confidence, "probability, margin or entropy");
  gen->add_option("--temperature", g->temperature, "0: greedy")->check(CLI::Range(0.0, 100.0));
  gen->add_option("--top-p", g->top_p, "nucleus mass")->check(CLI::Range(0.0, 1.0));
  gen->add_option("--seed", g->seed, "sampling seed");
  gen->add_option("--stop", g->stop, "a stop string (repeat)");
  gen->add_flag("--no-cache", g->no_cache, "recompute everything every step (reference path)");
  gen->add_flag("--ignore-eos", g->ignore_eos, "run to --max-tokens through end tokens (benches)");
  gen->callback([g] { run_generate(*g); });

  for (const bool routing : {false, true}) {
    auto a = std::make_shared<TextArgs>();
    auto* c = app.add_subcommand(routing ? "route" : "draft",
                                 routing ? "read the step-0 draft: signals, mode, escalate"
                                         : "the step-0 draft and its coherence Σ");
    add_common(c, *a);
    c->add_option("--length", a->length, "draft positions")->check(CLI::Range(1, 4096));
    if (routing)
      c->add_option("--escalate-below", a->escalate_below, "escalate when Σ is below this")
          ->check(CLI::Range(0.0, 1.0));
    c->callback([a, routing] { run_draft(*a, routing); });
  }
}

}  // namespace meadow::cli
