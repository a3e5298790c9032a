// Model resolution: MEADOW_MIND_MODEL → explicit path → cache dir → embedded default.
#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "meadow/error.hpp"
#include "meadow/mind.hpp"

namespace meadow {
namespace {

namespace fs = std::filesystem;

std::optional<std::string> getenv_nonempty(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return std::nullopt;
  return std::string(v);
}

bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);  // follows symlinks
}

// Why an existing path is not a model file, or empty when it does not exist.
std::string not_a_file(const fs::path& p) {
  std::error_code ec;
  const fs::file_status st = fs::status(p, ec);
  if (ec || !fs::exists(st)) return {};
  if (fs::is_directory(st)) return "is a directory, not a GGUF file";
  if (fs::is_fifo(st)) return "is a named pipe, not a GGUF file";
  if (fs::is_character_file(st) || fs::is_block_file(st)) return "is a device, not a GGUF file";
  if (!fs::is_regular_file(st)) return "is not a regular file";
  return {};
}

}  // namespace

ModelSearch ModelSearch::from_environment() {
  ModelSearch s;
  s.env_model = getenv_nonempty("MEADOW_MIND_MODEL");
  s.xdg_cache = getenv_nonempty("XDG_CACHE_HOME");
  s.home = getenv_nonempty("HOME");
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec && exe.has_parent_path()) {
    const fs::path dir = exe.parent_path();
    s.embedded_dirs.push_back((dir / ".." / "share" / "meadow-mind" / "models").lexically_normal());
    s.embedded_dirs.push_back((dir / "models").string());
  }
  // The shared object holding this code, when it is not the executable: the Python package's
  // extension module, whose models/ folder sits beside it in site-packages/meadow_mind/.
  Dl_info so{};
  if (dladdr(reinterpret_cast<void*>(&ModelSearch::from_environment), &so) && so.dli_fname) {
    const fs::path lib = fs::absolute(so.dli_fname, ec);
    if (!ec && lib.has_parent_path() && lib != exe)
      s.embedded_dirs.push_back((lib.parent_path() / "models").string());
  }
#ifdef MEADOW_MODELS_DIR
  s.embedded_dirs.push_back(MEADOW_MODELS_DIR);
#endif
  return s;
}

std::optional<std::string> ModelSearch::cache_dir() const {
  if (xdg_cache) return (fs::path(*xdg_cache) / "meadow-mind" / "models").string();
  if (home) return (fs::path(*home) / ".meadow-mind" / "models").string();
  return std::nullopt;
}

std::string resolve_model(const std::string& explicit_path, const ModelSearch& where) {
  if (where.env_model) {
    if (is_file(*where.env_model)) return *where.env_model;
    const std::string why = not_a_file(*where.env_model);
    throw Error("MEADOW_MIND_MODEL=" + *where.env_model + ": " +
                (why.empty() ? "no such model file" : why));
  }
  const auto cache = where.cache_dir();
  if (!explicit_path.empty()) {
    if (is_file(explicit_path)) return explicit_path;
    if (const std::string why = not_a_file(explicit_path); !why.empty())
      throw Error("model " + explicit_path + ": " + why);
    for (const auto& l : list_models(where)) {
      if (l.model.name != explicit_path) continue;
      if (l.path) return *l.path;
      throw Error("model " + explicit_path + " is not present (" + l.model.description +
                  "; get it with " + l.model.source + ")");
    }
    if (cache && explicit_path.find('/') == std::string::npos) {
      for (const auto& name : {explicit_path, explicit_path + ".gguf"})
        if (is_file(fs::path(*cache) / name)) return (fs::path(*cache) / name).string();
    }
    throw Error("model " + explicit_path + ": no such file" +
                (cache ? " (nor in " + *cache + ")" : std::string()));
  }
  std::vector<std::string> tried;
  if (cache) {
    for (const char* name : {"default.gguf", "meadow-nano.gguf"}) {
      const fs::path p = fs::path(*cache) / name;
      if (is_file(p)) return p.string();
      tried.push_back(p.string());
    }
  }
  for (const auto& dir : where.embedded_dirs) {
    const fs::path p = fs::path(dir) / "meadow-nano.gguf";
    if (is_file(p)) return p.string();
    tried.push_back(p.string());
  }
  std::string list;
  for (const auto& t : tried) list += (list.empty() ? "" : ", ") + t;
  throw Error("no model found: set MEADOW_MIND_MODEL or pass a model path (tried " + list + ")");
}

std::string resolve_model(const std::string& explicit_path) {
  return resolve_model(explicit_path, ModelSearch::from_environment());
}

}  // namespace meadow
