// `meadow-mind env list|run|play` through the binary: `env run` must reproduce the recorded
// Gymnasium traces in tests/data/gym-traces exactly (values and int/float types), bad input
// exits 2 with one line, and `env play` writes the GIF of the episode the traces recorded.
#include <gif_lib.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_run.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using Output = meadow::cli_test::CliResult;
using meadow::cli_test::read_file;

class EnvCli : public meadow::cli_test::CliTestDir {
 protected:
  EnvCli() : CliTestDir("meadow-env-cli-") {}

  Output run(const std::vector<std::string>& args) const {
    return meadow::cli_test::run_cli(meadow::cli_test::quoted(args), "", file("stderr.txt"));
  }

  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(file(name)) << text;
    return file(name);
  }
};

json load_trace(const std::string& name) {
  std::ifstream in(fs::path(MEADOW_TEST_DATA_DIR) / "gym-traces" / name);
  EXPECT_TRUE(in) << name;
  return json::parse(in);
}

// Equal values of the same JSON kind: 1 and 1.0 differ (toy-text rewards are ints, classic
// control rewards floats), and floats must be the same double.
::testing::AssertionResult same_json(const json& got, const json& want, const std::string& at) {
  const bool got_int = got.is_number_integer(), want_int = want.is_number_integer();
  if (got.is_number() && want.is_number()) {
    if (got_int != want_int)
      return ::testing::AssertionFailure() << at << ": " << got << " vs " << want << " (int/float)";
    if (got_int ? got.get<int64_t>() != want.get<int64_t>()
                : got.get<double>() != want.get<double>())
      return ::testing::AssertionFailure() << at << ": " << got << " vs " << want;
    return ::testing::AssertionSuccess();
  }
  if (got.type() != want.type())
    return ::testing::AssertionFailure() << at << ": " << got << " vs " << want << " (type)";
  if (got.is_array()) {
    if (got.size() != want.size())
      return ::testing::AssertionFailure()
             << at << ": length " << got.size() << " vs " << want.size();
    for (size_t i = 0; i < got.size(); ++i) {
      auto r = same_json(got[i], want[i], at + "[" + std::to_string(i) + "]");
      if (!r) return r;
    }
    return ::testing::AssertionSuccess();
  }
  if (got != want) return ::testing::AssertionFailure() << at << ": " << got << " vs " << want;
  return ::testing::AssertionSuccess();
}

}  // namespace

// The hook other tools rely on: same id, kwargs, seed and actions give Gymnasium's episode.
TEST_F(EnvCli, RunReproducesRecordedTraces) {
  const std::pair<const char*, int> traces[] = {
      {"CartPole-v1.json", 10},
      {"MountainCar-v0.json", 2},
      {"MountainCarContinuous-v0.json", 2},
      {"Acrobot-v1.json", 2},
      {"Pendulum-v1.json", 2},
      {"FrozenLake-v1-4x4-slippery.json", 10},
      {"FrozenLake-v1-8x8-slippery.json", 3},
      {"Taxi-v4.json", 3},
  };
  for (const auto& [name, episodes] : traces) {
    const json trace = load_trace(name);
    for (int e = 0; e < episodes; ++e) {
      const json& ep = trace["episodes"][e];
      json actions = json::array();
      for (const auto& s : ep["steps"]) actions.push_back(s["action"]);
      const Output r = run({"env", "run", trace["env_id"], "--kwargs", trace["kwargs"].dump(),
                            "--seed", std::to_string(ep["seed"].get<int>()), "--actions",
                            write("actions.json", actions.dump()), "--json"});
      ASSERT_EQ(r.code, 0) << name << " seed " << ep["seed"] << ": " << r.err;
      const json got = json::parse(r.out);
      const std::string at = std::string(name) + " seed " + ep["seed"].dump();
      ASSERT_TRUE(got.is_object() && got.size() == 2) << r.out.substr(0, 200);
      EXPECT_TRUE(same_json(got["reset_obs"], ep["reset_obs"], at + " reset_obs"));
      ASSERT_EQ(got["steps"].size(), ep["steps"].size()) << at;
      for (size_t i = 0; i < ep["steps"].size(); ++i) {
        const json& s = ep["steps"][i];
        const json want = {{"obs", s["obs"]},
                           {"reward", s["reward"]},
                           {"terminated", s["terminated"]},
                           {"truncated", s["truncated"]}};
        ASSERT_EQ(got["steps"][i].size(), 4u) << at;
        for (const char* key : {"obs", "reward", "terminated", "truncated"})
          ASSERT_TRUE(same_json(got["steps"][i][key], want[key],
                                at + " step " + std::to_string(i) + " " + key));
      }
    }
  }
}

TEST_F(EnvCli, RunPrintsPythonsNumberText) {
  // Gymnasium's float32 observations as Python prints the widened double, rewards as 1.0.
  const Output r = run({"env", "run", "CartPole-v1", "--seed", "0", "--actions",
                        write("a.json", "[0, 1, 1, 1, 0, 0, 1]"), "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("{\"reset_obs\":[0.013696168549358845,-0.023021329194307327,"
                        "-0.04590264707803726,-0.04834723472595215],\"steps\":[{\"obs\":["
                        "0.013235742226243019,-0.21745604276657104,-0.04686959087848663,"
                        "0.2295069843530655],\"reward\":1.0,\"terminated\":false,"
                        "\"truncated\":false},",
                        0),
            0u)
      << r.out.substr(0, 300);
  EXPECT_EQ(json::parse(r.out)["steps"].size(), 7u);
  // Actions after the end of the episode are not played.
  const Output fl = run({"env", "run", "FrozenLake-v1", "--seed", "0", "--actions",
                         write("f.json", "[0, 2, 3, 0, 0, 0]"), "--json"});
  ASSERT_EQ(fl.code, 0) << fl.err;
  EXPECT_EQ(fl.out,
            "{\"reset_obs\":0,\"steps\":[{\"obs\":0,\"reward\":0,\"terminated\":false,"
            "\"truncated\":false},{\"obs\":4,\"reward\":0,\"terminated\":false,\"truncated\":"
            "false},{\"obs\":5,\"reward\":0,\"terminated\":true,\"truncated\":false}]}\n");
}

TEST_F(EnvCli, RunTakesBoxActionsAsListsOfNumbers) {
  const Output r =
      run({"env", "run", "LunarLander-v3", "--kwargs", "{\"continuous\": true}", "--seed", "3",
           "--actions", write("b.json", "[[0.5, -0.2], [1, 1], [0, 0]]"), "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const json got = json::parse(r.out);
  ASSERT_EQ(got["steps"].size(), 3u);
  for (const auto& s : got["steps"]) {
    ASSERT_EQ(s["obs"].size(), 8u);
    EXPECT_TRUE(s["obs"][0].is_number_float());
    EXPECT_TRUE(s["reward"].is_number_float());
  }
  // Same seed and actions, same episode.
  EXPECT_EQ(run({"env", "run", "LunarLander-v3", "--kwargs", "{\"continuous\": true}", "--seed",
                 "3", "--actions", file("b.json"), "--json"})
                .out,
            r.out);
}

TEST_F(EnvCli, ListNamesEveryEnvWithSpacesAndLimits) {
  const Output text = run({"env", "list"});
  ASSERT_EQ(text.code, 0) << text.err;
  for (const char* id :
       {"CartPole-v1", "MountainCar-v0", "MountainCarContinuous-v0", "Acrobot-v1", "Pendulum-v1",
        "FrozenLake-v1", "CliffWalking-v1", "Taxi-v4", "LunarLander-v3"})
    EXPECT_NE(text.out.find(id), std::string::npos) << id;
  EXPECT_NE(text.out.find("Discrete(500)"), std::string::npos);

  const Output js = run({"env", "list", "--json"});
  ASSERT_EQ(js.code, 0) << js.err;
  const json all = json::parse(js.out);
  ASSERT_TRUE(all.is_array());
  bool saw_cartpole = false, saw_cliff = false;
  for (const auto& e : all) {
    if (e["id"] == "CartPole-v1") {
      saw_cartpole = true;
      EXPECT_EQ(e["max_episode_steps"], 500);
      EXPECT_EQ(e["action_space"], (json{{"type", "Discrete"}, {"n", 2}, {"start", 0}}));
      EXPECT_EQ(e["observation_space"]["low"][1], "-inf");
      EXPECT_EQ(e["render_fps"], 50);
    }
    if (e["id"] == "CliffWalking-v1") {
      saw_cliff = true;
      EXPECT_TRUE(e["max_episode_steps"].is_null());
    }
  }
  EXPECT_TRUE(saw_cartpole && saw_cliff);
}

TEST_F(EnvCli, DocPrintsAnEnvsPageAndEveryPage) {
  const Output one = run({"env", "doc", "Taxi-v4"});
  ASSERT_EQ(one.code, 0) << one.err;
  EXPECT_EQ(one.out.rfind("Taxi-v4: ", 0), 0u) << one.out.substr(0, 80);
  EXPECT_NE(one.out.find("Action space:\n  Discrete(6)"), std::string::npos) << one.out;
  const Output all = run({"env", "doc"});
  ASSERT_EQ(all.code, 0) << all.err;
  for (const char* id : {"CartPole-v1", "Parkour-v0", "Shapes-v0", "FunnelMaze-v0"})
    EXPECT_NE(all.out.find(std::string(id) + ": "), std::string::npos) << id;
  const Output bad = run({"env", "doc", "Taxi-v9"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(read_file(file("stderr.txt")).find("unknown env id 'Taxi-v9'"), std::string::npos);
}

TEST_F(EnvCli, BadInputExitsTwoWithOneLine) {
  const std::string ok = write("ok.json", "[0, 1]");
  struct Case {
    std::vector<std::string> args;
    const char* mentions;
  };
  const Case cases[] = {
      {{"env", "run", "NoSuchEnv-v0", "--seed", "0", "--actions", ok, "--json"}, "NoSuchEnv-v0"},
      {{"env", "run", "CartPole-v1", "--kwargs", "{bad", "--seed", "0", "--actions", ok}, "kwargs"},
      {{"env", "run", "CartPole-v1", "--kwargs", "[1]", "--seed", "0", "--actions", ok}, "kwargs"},
      {{"env", "run", "CartPole-v1", "--kwargs", "{\"no_such\": 1}", "--seed", "0", "--actions",
        ok},
       "no_such"},
      {{"env", "run", "FrozenLake-v1", "--kwargs", "{\"is_slippery\": 3}", "--seed", "0",
        "--actions", ok},
       "is_slippery"},
      {{"env", "run", "CartPole-v1", "--seed", "0", "--actions", file("missing.json")},
       "missing.json"},
      {{"env", "run", "CartPole-v1", "--seed", "0", "--actions", write("m.json", "[0, 1")},
       "m.json"},
      {{"env", "run", "CartPole-v1", "--seed", "0", "--actions", write("o.json", "{}")}, "list"},
      {{"env", "run", "CartPole-v1", "--seed", "0", "--actions", write("r.json", "[0, 2]")},
       "action 1"},
      {{"env", "run", "CartPole-v1", "--seed", "0", "--actions", write("f.json", "[0.5]")},
       "action 0"},
      {{"env", "run", "Pendulum-v1", "--seed", "0", "--actions", write("p.json", "[[0.1, 0.2]]")},
       "action 0"},
      {{"env", "run", "Pendulum-v1", "--seed", "0", "--actions", write("s.json", "[\"x\"]")},
       "action 0"},
      {{"env", "play", "CartPole-v1", "--policy", "clever"}, "policy"},
      {{"env", "play", "CartPole-v1", "--gif", file("no/such/dir/x.gif")}, "x.gif"},
  };
  for (const Case& c : cases) {
    const Output r = run(c.args);
    std::string cmd;
    for (const auto& a : c.args) cmd += a + " ";
    EXPECT_EQ(r.code, 2) << cmd;
    EXPECT_TRUE(r.out.empty()) << cmd << "\n" << r.out;
    EXPECT_NE(r.err.find(c.mentions), std::string::npos) << cmd << "\n" << r.err;
    if (r.err.rfind("error: ", 0) == 0) {  // our errors are one line; CLI11's usage may be more
      EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << cmd << "\n" << r.err;
    }
  }
}

TEST_F(EnvCli, PlayDrawsTheRecordedEpisodeAsAGif) {
  // The action RNG follows the traces' rule, so seed 0 is recorded episode 0 (25 steps).
  const json trace = load_trace("CartPole-v1.json");
  const size_t steps = trace["episodes"][0]["steps"].size();
  const std::string gif_path = file("cp.gif");
  const Output r = run({"env", "play", "CartPole-v1", "--policy", "random", "--seed", "0", "--gif",
                        gif_path, "--png-dir", file("pngs")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find(std::to_string(steps) + " steps"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(gif_path), std::string::npos) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1);

  int err = 0;
  GifFileType* gif = DGifOpenFileName(gif_path.c_str(), &err);
  ASSERT_NE(gif, nullptr);
  ASSERT_EQ(DGifSlurp(gif), GIF_OK);
  EXPECT_EQ(gif->SWidth, 600);
  EXPECT_EQ(gif->SHeight, 400);
  EXPECT_EQ(static_cast<size_t>(gif->ImageCount), steps + 1);  // the reset frame + one per step
  GraphicsControlBlock gcb;
  ASSERT_EQ(DGifSavedExtensionToGCB(gif, 1, &gcb), GIF_OK);
  EXPECT_EQ(gcb.DelayTime, 2);  // 50 fps
  DGifCloseFile(gif, &err);
  EXPECT_TRUE(fs::exists(file("pngs/frame_0000.png")));
  EXPECT_TRUE(fs::exists(file("pngs/frame_" + std::string(4 - std::to_string(steps).size(), '0') +
                              std::to_string(steps) + ".png")));

  const Output capped = run({"env", "play", "Pendulum-v1", "--seed", "1", "--steps", "5"});
  ASSERT_EQ(capped.code, 0) << capped.err;
  EXPECT_NE(capped.out.find("5 steps"), std::string::npos) << capped.out;
}
