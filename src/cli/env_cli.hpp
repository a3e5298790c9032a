// The env command group's actions, one per subcommand; env_commands.cpp wires them to CLI11.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace meadow::cli {

struct EnvRunOptions {
  std::string env_id;
  std::string kwargs = "{}";  // JSON object
  uint64_t seed = 0;
  std::string actions_file;
  bool json = false;
};

struct EnvPlayOptions {
  std::string env_id;
  std::string kwargs = "{}";
  std::string policy = "random";
  uint64_t seed = 0;
  std::optional<int> steps;   // default: until the episode ends (1000 steps without a limit)
  std::optional<double> fps;  // default: the env's Gymnasium render_fps
  std::string gif;            // empty: no GIF
  std::string png_dir;        // empty: no PNGs
};

void env_list(bool json);
void env_run(const EnvRunOptions& o);
void env_play(const EnvPlayOptions& o);

// Gymnasium's metadata["render_fps"] for a registered id (30 if unknown).
double render_fps(const std::string& env_id);

}  // namespace meadow::cli
