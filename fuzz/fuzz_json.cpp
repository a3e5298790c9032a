// Every JSON input we parse: actions files and --kwargs (there are no task or exam files; the
// built-in tasks are code). On arbitrary text:
//   util::parse_json agrees with nlohmann::json::parse: what it accepts nlohmann parses to the
//     same value; what nlohmann rejects it rejects; it rejects more only for nesting past 64
//     levels or integer literals past 64 bits;
//   json_excerpt(v, n) is v.dump() when that fits in n bytes, else a prefix of it and "...";
//   a list's items parsed as actions of a few action spaces are finite and, for Discrete,
//     inside the space; an object given to make() as kwargs builds an env that resets, steps
//     and describes its scene, or is refused with meadow::Error;
//   util::printable of the raw text has no control byte and escaping it again changes nothing.
// Only meadow::Error may be thrown; error texts are one line.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/env_json.hpp"
#include "meadow/env.hpp"
#include "meadow/error.hpp"
#include "util/json_parse.hpp"
#include "util/printable.hpp"

namespace {

using namespace meadow;
using nlohmann::json;

void check_one_line(const Error& e) {
  for (const char* p = e.what(); *p; ++p)
    if (*p == '\n' || *p == '\r') std::abort();
}

void check_excerpt(const json& v) {
  const std::string full = v.dump(-1, ' ', false, json::error_handler_t::replace);
  for (size_t n : {size_t(0), size_t(1), size_t(7), size_t(80), size_t(1) << 20}) {
    const std::string e = util::json_excerpt(v, n);
    if (full.size() <= n) {
      if (e != full) std::abort();
      continue;
    }
    if (e.size() < 3 || e.compare(e.size() - 3, 3, "...") != 0) std::abort();
    const std::string kept = e.substr(0, e.size() - 3);
    if (kept.size() > n || kept.size() + 3 < n || full.compare(0, kept.size(), kept) != 0)
      std::abort();
  }
}

void check_actions(const json& list) {
  static const std::vector<std::unique_ptr<Env>> envs = [] {
    std::vector<std::unique_ptr<Env>> out;
    out.push_back(make("CartPole-v1"));
    out.push_back(make("Pendulum-v1"));
    out.push_back(make("LunarLander-v3", {{"continuous", true}}));
    out.push_back(make("Taxi-v4"));
    return out;
  }();
  for (const auto& env : envs) {
    const Space& space = env->action_space();
    for (size_t i = 0; i < list.size() && i < 16; ++i) {
      try {
        const Values v = cli::parse_action(list[i], space, i, "fuzz");
        for (double x : v)
          if (!std::isfinite(x)) std::abort();
        if (space.kind == Space::Kind::Discrete && !space.contains(v)) std::abort();
      } catch (const Error& e) {
        check_one_line(e);
      }
    }
  }
}

void check_kwargs(const json& kwargs) {
  if (kwargs.size() > 8) return;
  for (const EnvSpec& spec : env_registry()) {
    try {
      auto env = make(spec.id, kwargs);
      env->reset(0);
      const Space& a = env->action_space();
      for (int t = 0; t < 3; ++t) {
        const Values act = a.kind == Space::Kind::Discrete ? Values{double(a.start)} : a.low;
        if (env->step(act).terminated) break;
      }
      (void)env->scene();
    } catch (const Error& e) {
      check_one_line(e);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 1 << 16) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  const std::string shown = util::printable(text);
  for (char c : shown)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) std::abort();
  if (util::printable(shown) != shown) std::abort();

  const json theirs = json::parse(text, nullptr, /*allow_exceptions=*/false);
  json ours;
  try {
    ours = util::parse_json(text, "fuzz input");
  } catch (const Error& e) {
    check_one_line(e);
    if (theirs.is_discarded()) return 0;
    // nlohmann parses these; we refuse them on purpose.
    const std::string msg = e.what();
    const bool deep = util::json_depth(theirs) > util::kMaxJsonDepth;
    if (!deep && msg.find("does not fit in 64 bits") == std::string::npos) std::abort();
    return 0;
  }
  if (theirs.is_discarded() || theirs != ours) std::abort();
  if (util::json_depth(ours) > util::kMaxJsonDepth) std::abort();
  check_excerpt(ours);
  if (ours.is_array()) check_actions(ours);
  if (ours.is_object()) check_kwargs(ours);
  return 0;
}
