// Decisions come from the model: with the embedded trained model, relabelling the options'
// letters in the rule relabels the chosen letters. Needs models/meadow-nano.gguf (issue 4);
// skipped with a message until that file exists. A random-weight model cannot pass this.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "../model_claims.hpp"
#include "meadow/mind.hpp"

namespace meadow {
namespace {

// MEADOW_TEST_TRAINED_MODEL points the test at another trained model (e.g. a checkpoint).
std::string trained_model() {
  const char* env = std::getenv("MEADOW_TEST_TRAINED_MODEL");
  return env && *env ? env : std::string(MEADOW_SOURCE_DIR) + "/models/meadow-nano.gguf";
}

struct Table {
  std::string rule;  // with {A} {B} {C} placeholders for the letters
  std::vector<std::string> texts;
  std::vector<std::pair<std::string, int>> situations;  // situation, index of the right option
};

const std::vector<Table> kTables = {
    {"If the kettle is whistling, choose {A}; if the bread is burning, choose {B}; if the dog "
     "is barking, choose {C}.",
     {"turn off the stove", "open the toaster", "walk the dog"},
     {{"The kettle is whistling loudly.", 0},
      {"Smoke: the bread is burning.", 1},
      {"The dog is barking at the door.", 2}}},
    {"When the river is flooding choose {A}, when the field is dry choose {B}, otherwise {C}.",
     {"close the gate", "water the field", "wait"},
     {{"The river is flooding fast.", 0}, {"The field is dry and dusty.", 1}, {"All is calm.", 2}}},
};

std::string fill(std::string rule, const std::string& letters) {
  for (int i = 0; i < 3; ++i) {
    const std::string ph = std::string("{") + char('A' + i) + "}";
    for (size_t at; (at = rule.find(ph)) != std::string::npos;)
      rule.replace(at, ph.size(), 1, letters[i]);
  }
  return rule;
}

// The register the embedded model was trained on (corpus/scenes.py), with words and sentences
// of no built-in task.
const std::vector<Table> kSceneTables = {
    {"If the boat is drifting left, choose {A}. If the boat is drifting right, choose {B}.",
     {"row left", "row right", "drop the anchor"},
     {{"the boat is drifting left, near the dock", 0},
      {"the boat is drifting right and tilts slightly left", 1}}},
    {"Walk toward the lamp.",
     {"walk north", "walk south", "walk east"},
     {{"the lamp lies east, 4 steps away", 2},
      {"the lamp lies north", 0},
      {"the lamp is south, and a wall is east", 1}}},
    {"Steer in the same direction the kite is drifting.",
     {"steer left", "do nothing", "steer right"},
     {{"the kite is drifting right, high above the field", 2},
      {"the kite is drifting left fast", 0}}},
};

// Each table decided under the letters ABC, then relabelled; the chosen option (not letter)
// must follow the rule and stay the same under every relabelling.
void expect_relabelling_follows(const std::vector<Table>& tables, const std::string& claim) {
  const std::string kModel = trained_model();
  if (!std::filesystem::exists(kModel))
    GTEST_SKIP() << kModel << " is not there yet (issue 4 trains it): relabelling test skipped";
  if (kModel == std::string(MEADOW_SOURCE_DIR) + "/models/meadow-nano.gguf" &&
      !testing::embedded_target_claimed(claim))
    GTEST_SKIP() << claim
                 << " is not met by the shipped model (models/MODEL_CARD.md, "
                    "models/meadow-nano.targets.json)";
  Mind mind(kModel);
  int total = 0, followed = 0, relabelled = 0, compared = 0;
  for (const auto& table : tables) {
    std::map<std::string, double> base;  // situation → option index chosen under "ABC"
    for (const std::string letters : {"ABC", "CAB", "BCA", "DFE"}) {
      Task t;
      t.name = "relabel";
      t.rule = fill(table.rule, letters);
      for (int i = 0; i < 3; ++i)
        t.options.push_back({letters[size_t(i)], table.texts[size_t(i)], {double(i)}, ""});
      for (const auto& [situation, right] : table.situations) {
        const Decision d = mind.decide_status(t, situation);
        const double chosen = t.option(d.letter).action.at(0);  // option index, label-free
        ++total;
        followed += chosen == double(right);
        if (letters == "ABC") {
          base[situation] = chosen;
        } else {
          ++compared;
          relabelled += chosen == base.at(situation);  // the letter moved with the label
        }
      }
    }
  }
  ::testing::Test::RecordProperty("followed", followed);
  EXPECT_GE(followed, total * 9 / 10) << followed << "/" << total << " decisions followed the rule";
  EXPECT_GE(relabelled, compared * 9 / 10)
      << relabelled << "/" << compared << " relabelled decisions chose the same option";
}

TEST(TrainedModel, RelabellingTheOptionsRelabelsTheChoice) {
  expect_relabelling_follows(kTables, "relabelling");
}

TEST(TrainedModel, RelabellingSceneTablesRelabelsTheChoice) {
  expect_relabelling_follows(kSceneTables, "relabelling_scenes");
}

}  // namespace
}  // namespace meadow
