// Text commands: generate, draft, route (meadow/runtime/generate.hpp).
//
//   meadow-mind generate --prompt TEXT [--raw] [--system TEXT] [--max-tokens N] [--block N]
//                        [--steps N] [--threshold X] [--confidence probability|margin|entropy]
//                        [--temperature T] [--top-p P] [--seed S] [--stop S]... [--no-cache]
//                        [--threads N] [--ignore-eos] [--model M] [--lora F] [--json]
//   meadow-mind draft --prompt TEXT [--length N] [--json]
//   meadow-mind route --prompt TEXT [--length N] [--escalate-below X] [--json]
//   meadow-mind infill --before TEXT --after TEXT [--tokens N] [--steps N] [--json]
//   meadow-mind tool-call --prompt TEXT [--tool NAME] [--tools FILE] [--value-tokens N] [--json]
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
#include "meadow/mind.hpp"
#include "meadow/runtime/generate.hpp"
#include "meadow/runtime/model.hpp"
#include "meadow/runtime/tool_call.hpp"

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
  std::string before, after, tool, tools_file;  // infill, tool-call
  int tokens = 8, value_tokens = 8;
};

// One JSON object on a line; invalid UTF-8 in model text is replaced, never thrown on.
void print_json(const ordered_json& j) {
  std::printf("%s\n", j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
}

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
    ids = generate::chat_prompt_ids(tok, msgs);
  }
  return {std::move(m), std::move(tok), std::move(ids)};
}

void add_common(CLI::App* c, TextArgs& a) {
  c->add_option("--prompt", a.prompt, "the prompt (the user message)")->required();
  c->add_flag("--raw", a.raw, "the prompt as plain text, without the chat template");
  c->add_option("--system", a.system, "a system message");
  add_model_option(c, a.model);
  add_lora_option(c, a.lora);
  c->add_option("--threads", a.threads, "threads")->check(CLI::Range(1, model::kMaxThreads));
  c->add_flag("--json", a.json, "print one JSON object");
}

generate::GenerateOptions fill_options(const TextArgs& a) {
  generate::GenerateOptions o;
  o.steps_per_block = a.steps;
  o.threshold = a.threshold;
  o.confidence = generate::parse_confidence(a.confidence);
  o.temperature = a.temperature;
  o.top_p = a.top_p;
  o.seed = a.seed;
  o.threads = a.threads;
  return o;
}

void run_generate(const TextArgs& a) {
  generate::GenerateOptions o = fill_options(a);
  o.max_new_tokens = a.max_tokens;
  o.block_size = a.block;
  o.cache = !a.no_cache;
  o.stop = a.stop;
  o.ignore_eos = a.ignore_eos;
  const Loaded L = load(a);
  // One stderr line rewritten per committed block or token, only on a terminal.
  const bool progress = !a.json && isatty(fileno(stderr));
  const auto t0 = std::chrono::steady_clock::now();
  size_t shown = 0;
  const generate::Generation g =
      generate::generate(L.model, L.tok, L.prompt, o, [&](const generate::Generation& so_far) {
        if (progress) {
          const std::string& text = so_far.text;
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
                   {"arch", model::arch_name(L.model.config().arch)},
                   {"model", resolve_model(a.model)}};
    print_json(j);
    return;
  }
  std::printf("%s\n", g.text.c_str());
  std::fprintf(stderr, "%zu tokens, %d steps, %d passes, %.1f tokens/s (%s)\n", g.tokens.size(),
               g.steps, g.passes, tps, g.finish_reason.c_str());
}

ordered_json draft_json(const decision::Draft& d) {
  return {{"text", d.text},
          {"tokens", d.tokens},
          {"confidence", d.confidence},
          {"coherence", d.coherence},
          {"ms", d.ms}};
}

void run_draft(const TextArgs& a, bool routing) {
  const Loaded L = load(a);
  const decision::Draft d = decision::draft(L.model, L.tok, L.prompt, a.length, a.threads);
  if (!routing) {
    if (a.json)
      print_json(draft_json(d));
    else
      std::printf("%s\nΣ %.3f (%zu positions, %.1f ms)\n", d.text.c_str(), d.coherence,
                  d.tokens.size(), d.ms);
    return;
  }
  const generate::Route r = generate::route(d, a.escalate_below);
  if (a.json) {
    ordered_json j{{"mode", r.mode},
                   {"signals", r.signals},
                   {"coherence", r.coherence},
                   {"escalate", r.escalate},
                   {"draft", draft_json(d)}};
    print_json(j);
    return;
  }
  std::string signals;
  for (const auto& s : r.signals) signals += (signals.empty() ? "" : ",") + s;
  std::printf("mode %s  signals %s  Σ %.3f%s\n", r.mode.c_str(),
              signals.empty() ? "-" : signals.c_str(), r.coherence, r.escalate ? "  escalate" : "");
}

void run_infill(const TextArgs& a) {
  if (a.before.empty()) throw Error("--before is empty: infill needs the text before the gap");
  const generate::GenerateOptions o = fill_options(a);
  const model::Model m = model::Model::load(resolve_model(a.model), a.lora);
  const Tokenizer tok = Tokenizer::from_gguf(m.file());
  const generate::Generation g = generate::infill(m, tok, tok.encode(a.before, false),
                                                  tok.encode(a.after, false), a.tokens, o);
  if (a.json) {
    const ordered_json j{{"text", g.text}, {"tokens", g.tokens}, {"steps", g.steps}, {"ms", g.ms}};
    print_json(j);
  } else {
    std::printf("%s%s%s\n", a.before.c_str(), g.text.c_str(), a.after.c_str());
  }
}

void run_tool_call(const TextArgs& a) {
  if (a.prompt.empty()) throw Error("--prompt is empty: give the request");
  const std::vector<generate::Tool> tools =
      a.tools_file.empty() ? generate::builtin_tools() : generate::load_tools(a.tools_file);
  const generate::GenerateOptions o = fill_options(a);
  const model::Model m = model::Model::load(resolve_model(a.model), a.lora);
  const Tokenizer tok = Tokenizer::from_gguf(m.file());
  const generate::ToolCall c =
      generate::tool_call(m, tok, a.prompt, tools, a.tool, a.value_tokens, o);
  if (a.json) {
    const ordered_json j{{"call", ordered_json::parse(c.json)},
                         {"chosen_by_model", c.chosen_by_model},
                         {"ms", c.ms}};
    print_json(j);
  } else {
    std::printf("%s\n", c.json.c_str());
  }
}

void add_fill_options(CLI::App* c, TextArgs& a) {
  add_model_option(c, a.model);
  add_lora_option(c, a.lora);
  c->add_option("--steps", a.steps, "denoising steps (0: one token a step)")
      ->check(CLI::Range(0, 1 << 16));
  c->add_option("--threshold", a.threshold, "unmask every position this confident (0: off)")
      ->check(CLI::Range(0.0, 1.0));
  c->add_option("--confidence", a.confidence, "probability, margin or entropy");
  c->add_option("--temperature", a.temperature, "0: greedy")->check(CLI::Range(0.0, 100.0));
  c->add_option("--top-p", a.top_p, "nucleus mass")->check(CLI::Range(0.0, 1.0));
  c->add_option("--seed", a.seed, "sampling seed");
  c->add_option("--threads", a.threads, "threads")->check(CLI::Range(1, model::kMaxThreads));
  c->add_flag("--json", a.json, "print one JSON object");
}

}  // namespace

void add_text_commands(CLI::App& app) {
  auto f = std::make_shared<TextArgs>();
  auto* inf = app.add_subcommand("infill", "fill a gap of masked tokens between two texts");
  inf->add_option("--before", f->before, "the text before the gap")->required();
  inf->add_option("--after", f->after, "the text after the gap");
  inf->add_option("--tokens", f->tokens, "tokens in the gap")->check(CLI::Range(1, 4096));
  add_fill_options(inf, *f);
  inf->callback([f] { run_infill(*f); });

  auto t = std::make_shared<TextArgs>();
  auto* tc = app.add_subcommand("tool-call", "a JSON tool call whose argument values are infilled");
  tc->add_option("--prompt", t->prompt, "the request")->required();
  tc->add_option("--tool", t->tool, "the tool to call (default: the model chooses)");
  tc->add_option("--tools", t->tools_file, "a JSON file of tools (default: the built-in five)");
  tc->add_option("--value-tokens", t->value_tokens, "tokens per argument value")
      ->check(CLI::Range(1, 1024));
  add_fill_options(tc, *t);
  tc->callback([t] { run_tool_call(*t); });

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
