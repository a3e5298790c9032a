// What the shipped embedded model is claimed to do: models/meadow-nano.targets.json, written
// from its measured evaluation table (models/MODEL_CARD.md). Tests of a claimed target are
// hard tests; an unclaimed one is skipped naming the card, so the suite states what the
// shipped model does not do yet instead of hiding it or failing on a known gap.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

namespace meadow::testing {

// True when the card claims `target` (a built-in task's name, or "relabelling"), or when there
// is no targets file at all (then every target is asserted).
inline bool embedded_target_claimed(const std::string& target) {
  const auto p = std::filesystem::path(MEADOW_SOURCE_DIR) / "models" / "meadow-nano.targets.json";
  std::ifstream in(p);
  if (!in) return true;
  return nlohmann::json::parse(in).at("met").value(target, false);
}

}  // namespace meadow::testing
