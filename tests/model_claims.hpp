// What the shipped embedded model is claimed to do: models/meadow-nano.targets.json, written
// from its measured evaluation table (models/MODEL_CARD.md). Tests of a claimed target are
// hard tests; an unclaimed one is skipped naming the card, so the suite states what the
// shipped model does not do yet instead of hiding it or failing on a known gap.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

namespace meadow::testing {

// True when the card claims `target` (a built-in task's name, "relabelling" or
// "relabelling_scenes"), when there is no targets file at all, or when MEADOW_TEST_ALL_TARGETS
// is set (python3 -m train.nano.measure measures every target that way to write the file).
inline bool embedded_target_claimed(const std::string& target) {
  if (const char* all = std::getenv("MEADOW_TEST_ALL_TARGETS"); all && *all) return true;
  const auto p = std::filesystem::path(MEADOW_SOURCE_DIR) / "models" / "meadow-nano.targets.json";
  std::ifstream in(p);
  if (!in) return true;
  return nlohmann::json::parse(in).at("met").value(target, false);
}

}  // namespace meadow::testing
