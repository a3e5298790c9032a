// `pull NAME|URL`: the one explicit download (see include/meadow/runtime/fetch.hpp); `pull --list`.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "meadow/error.hpp"
#include "meadow/mind.hpp"
#include "meadow/runtime/fetch.hpp"
#include "util/printable.hpp"

namespace meadow::cli {
namespace {

struct PullArgs {
  std::string what, out, sha256, name;
  bool force = false, list = false, json = false;
};

void print_list(bool as_json) {
  if (as_json) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& m : fetch::known_models())
      j.push_back(
          {{"name", m.name},
           {"arch", m.arch},
           {"quant", m.quant},
           {"file", m.file},
           {"size", m.size ? nlohmann::json(m.size) : nlohmann::json(nullptr)},
           {"size_text", m.size_text},
           {"sha256", m.sha256.empty() ? nlohmann::json(nullptr) : nlohmann::json(m.sha256)},
           {"url", m.url}});
    std::printf("%s\n", j.dump(2).c_str());
    return;
  }
  std::printf("%-14s %-6s %-7s %-8s %-8s %s\n", "name", "arch", "quant", "size", "sha256",
              "upstream file (saved as NAME.gguf)");
  for (const auto& m : fetch::known_models())
    std::printf("%-14.*s %-6.*s %-7.*s %-8.*s %-8s %.*s\n", int(m.name.size()), m.name.data(),
                int(m.arch.size()), m.arch.data(), int(m.quant.size()), m.quant.data(),
                int(m.size_text.size()), m.size_text.data(), m.sha256.empty() ? "none" : "known",
                int(m.file.size()), m.file.data());
  std::printf("\nURLs: meadow-mind pull --list --json; sources: docs/pull.md\n");
}

std::string mib(uint64_t b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MiB", double(b) / (1 << 20));
  return buf;
}

// A one-line bar redrawn in place on stderr (only when stderr is a terminal).
void draw_bar(uint64_t bytes, uint64_t total, std::chrono::steady_clock::time_point t0,
              uint64_t start) {
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double rate = secs > 0 ? double(bytes - std::min(bytes, start)) / secs : 0;
  char line[160];
  if (total > 0) {
    const double f = std::min(1.0, double(bytes) / double(total));
    const int width = 30, fill = int(f * width);
    std::string bar(size_t(fill), '#');
    bar.resize(size_t(width), ' ');
    std::snprintf(line, sizeof line, "\r[%s] %3d%%  %s / %s  %s/s ", bar.c_str(), int(f * 100),
                  mib(bytes).c_str(), mib(total).c_str(), mib(uint64_t(rate)).c_str());
  } else {
    std::snprintf(line, sizeof line, "\r%s  %s/s ", mib(bytes).c_str(),
                  mib(uint64_t(rate)).c_str());
  }
  std::fputs(line, stderr);
  std::fflush(stderr);
}

// "already present", or how many bytes came in how long, resumed or restarted.
std::string how_it_came(const fetch::PullResult& r) {
  std::string how;
  if (r.already_present) {
    how = "already present";
  } else {
    char speed[64];
    std::snprintf(speed, sizeof speed, " in %.1f s", r.seconds);
    how = "downloaded " + mib(r.transferred) + speed;
    if (r.resumed_from && !r.restarted) how += ", resumed at " + mib(r.resumed_from);
    if (r.restarted)
      how +=
          ", restarted from zero (" +
          (r.restart_reason.empty() ? std::string("the server did not resume") : r.restart_reason) +
          ")";
  }
  return how;
}

void run_pull(const PullArgs& a) {
  if (a.list) {
    print_list(a.json);
    return;
  }
  if (a.json) throw Error("--json goes with --list");
  if (a.what.empty())
    throw Error("pull needs a model NAME or a URL (names: meadow-mind pull --list)");

  fetch::PullRequest req;
  // What the messages call it: a URL's password never reaches the terminal or a log.
  std::string label = util::printable(fetch::redact_url(a.what));
  const bool is_url = a.what.find("://") != std::string::npos;
  if (is_url) {
    req.url = a.what;
    req.sha256 = a.sha256;
  } else if (a.what.find_first_of("/:") != std::string::npos) {
    throw Error("malformed URL '" + label + "' (expected https://HOST/PATH/FILE.gguf)");
  } else {
    const fetch::KnownModel* m = fetch::find_known(a.what);
    if (!m)
      throw Error("unknown model '" + a.what + "' (see meadow-mind pull --list, or pass a URL)");
    if (!a.sha256.empty())
      throw Error("--sha256 is for a URL; " + a.what + "'s hash is in the table");
    req.url = std::string(m->url);
    // Saved as NAME.gguf, so that `--model NAME` finds it in the cache dir (DESIGN.md).
    req.file_name = std::string(m->name) + ".gguf";
    req.sha256 = std::string(m->sha256);
    req.expected_size = m->size;
  }
  if (!a.name.empty()) req.file_name = a.name;
  req.force = a.force;
  if (!a.out.empty()) {
    req.out_dir = a.out;
  } else {
    const auto cache = ModelSearch::from_environment().cache_dir();
    if (!cache)
      throw Error("no model cache dir (neither XDG_CACHE_HOME nor HOME is set); pass --out DIR");
    req.out_dir = *cache;
  }

  const bool tty = ::isatty(STDERR_FILENO) == 1;
  const auto t0 = std::chrono::steady_clock::now();
  bool drew = false;
  uint64_t first = UINT64_MAX;
  if (tty)
    req.on_progress = [&](uint64_t bytes, uint64_t total) {
      if (first == UINT64_MAX) first = bytes;
      draw_bar(bytes, total, t0, first);
      drew = true;
    };
  fetch::PullResult r;
  try {
    r = fetch::pull(req);
  } catch (...) {
    if (drew) std::fputs("\n", stderr);
    throw;
  }
  if (drew) std::fputs("\n", stderr);

  const std::string how = how_it_came(r);
  const std::string check =
      r.verified ? "sha256 verified" : "no known hash; not verified (sha256 " + r.sha256 + ")";
  std::fprintf(stderr, "pull %s: %s (%s, %s; %s); %s\n", label.c_str(), r.path.c_str(),
               mib(r.bytes).c_str(), r.arch.empty() ? "no arch" : r.arch.c_str(), how.c_str(),
               check.c_str());
  std::printf("%s\n", r.path.c_str());
}

}  // namespace

void add_pull_command(CLI::App& app) {
  auto args = std::make_shared<PullArgs>();
  auto* p = app.add_subcommand(
      "pull", "download a GGUF model (a NAME from --list, or a URL) into the model cache dir");
  p->add_option("model", args->what, "a name from `pull --list`, or an https:// (or http://) URL");
  p->add_option("--out", args->out,
                "folder to write into (default: $XDG_CACHE_HOME/meadow-mind/models, else "
                "~/.meadow-mind/models)");
  p->add_option("--sha256", args->sha256, "the URL's expected SHA-256 (64 hex digits)");
  p->add_option("--name", args->name, "target file name (default: the URL's last path segment)");
  p->add_flag("--force", args->force, "replace an existing file (and restart any .part)");
  p->add_flag("--list", args->list, "print the names pull knows");
  p->add_flag("--json", args->json, "with --list: print the table as JSON");
  p->callback([args] { run_pull(*args); });
}

}  // namespace meadow::cli
