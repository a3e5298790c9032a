// Task files (meadow/task_file.hpp): the shipped files decide as the built-in code does on a
// whole episode, a spec survives writing and reading, and every mistake names its place.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "meadow/error.hpp"
#include "meadow/task_file.hpp"
#include "meadow/tasks.hpp"

using namespace meadow;

namespace {

std::string source(const std::string& rel) {
  return (std::filesystem::path(MEADOW_SOURCE_DIR) / rel).string();
}

// The error message parsing `text` gives, or "" when it parses.
std::string error_of(const std::string& text) {
  try {
    parse_task_spec(text, "t.toml");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

const char* kWords = R"(name = "t"
rule = "If the pole is falling left, choose A. Otherwise choose B."
env = "CartPole-v1"
exam = [{ status = "the pole is falling left", expect = "A" }]

[[options]]
letter = "A"
text = "push left"
action = 0

[[options]]
letter = "B"
text = "push right"
action = 1
)";

std::string with_perceiver(const std::string& perceiver) {
  return std::string(kWords) + "\n[perceiver]\n" + perceiver;
}

const char* kFields = "fields = [\"x\", \"v\", \"a\", \"spin\"]\n";

}  // namespace

class TaskFileEpisodes : public ::testing::TestWithParam<const char*> {};

// The file and the code version of a built-in task: the same sentence and the same letter at
// every step of an episode, and the same verdict.
TEST_P(TaskFileEpisodes, FileAndCodeDecideIdentically) {
  const std::string name = GetParam();
  BuiltinTask file = load_task_file(source("tasks/" + name + ".toml"));
  BuiltinTask code = builtin_task(name);
  EXPECT_EQ(file.task.rule, code.task.rule);
  ASSERT_EQ(file.task.sanity.size(), code.task.sanity.size());
  Mind mind;
  RunOptions o;
  o.seed = code.seeds.at(0);
  const RunResult a = run_episode(file.task, mind_decider(mind), o);
  const RunResult b = run_episode(code.task, mind_decider(mind), o);
  ASSERT_EQ(a.episode.steps.size(), b.episode.steps.size());
  for (size_t i = 0; i < a.episode.steps.size(); ++i) {
    ASSERT_EQ(a.episode.steps[i].decision.status, b.episode.steps[i].decision.status)
        << "step " << i;
    ASSERT_EQ(a.episode.steps[i].decision.letter, b.episode.steps[i].decision.letter)
        << "step " << i;
  }
  EXPECT_EQ(a.episode.total_reward, b.episode.total_reward);
  EXPECT_EQ(a.verdict.ok, b.verdict.ok) << a.verdict.text << " / " << b.verdict.text;
}

INSTANTIATE_TEST_SUITE_P(Shipped, TaskFileEpisodes,
                         ::testing::Values("cartpole", "mountaincar", "lunarlander", "parkour",
                                           "shapes"));

// A game that is not built in, written only as a file: its exam passes and it reaches the goal
// on the shortest safe path.
TEST(TaskFile, CliffWalkingExamplePassesAndReachesTheGoal) {
  BuiltinTask t = load_task_file(source("examples/tasks/cliffwalking.toml"));
  Mind mind;
  EXPECT_TRUE(mind.check(t.task).ok);
  RunOptions o;
  o.seed = t.seeds.at(0);
  const RunResult r = run_episode(t.task, mind_decider(mind), o);
  EXPECT_TRUE(r.verdict.ok) << r.verdict.text;
  EXPECT_EQ(r.episode.steps.size(), 13u);
}

TEST(TaskFile, WrittenAndReadBackIsTheSameSpec) {
  for (const char* name : {"cartpole", "mountaincar", "lunarlander", "parkour", "shapes"}) {
    const TaskSpec a = read_task_spec(source(std::string("tasks/") + name + ".toml"));
    const std::string text = task_spec_toml(a);
    const TaskSpec b = parse_task_spec(text, "written");
    EXPECT_EQ(task_spec_toml(b), text) << name;
    ASSERT_TRUE(b.perceiver.has_value());
    // The same sentences from the read-back spec.
    const BuiltinTask ta = make_task(a), tb = make_task(b);
    for (const Values& obs :
         {Values{0.01, -0.2, 0.03, 0.4}, Values{-0.5, 0.01},
          Values{0.1, 1.2, -0.3, -0.5, 0.2, 0.1, 0, 1}, Values{1, 7.5, 12, 1, 0, 1, 3}}) {
      if (obs.size() == a.perceiver->fields.size()) {
        EXPECT_EQ(ta.task.perceive(obs, ta.task), tb.task.perceive(obs, tb.task)) << name;
      }
    }
  }
}

TEST(TaskFile, WordsOfACodeTaskAreSavedWithoutPerceiver) {
  const TaskSpec s = spec_of_words(builtin_task("frozenlake").task);
  const TaskSpec back = parse_task_spec(task_spec_toml(s), "words");
  EXPECT_EQ(back.rule, s.rule);
  EXPECT_EQ(back.env_kwargs, s.env_kwargs);
  EXPECT_EQ(back.exam.size(), s.exam.size());
  EXPECT_FALSE(back.perceiver.has_value());
}

TEST(TaskFile, SaysWordsNumbersAndNestedWords) {
  const std::string perceiver = R"toml(
sentence = "lean {lean} at {a:.2f}, {n} steps"
[perceiver.values]
n = "floor(abs(x) * 10)"
[perceiver.words.side]
of = "a"
buckets = [{ at_most = 0, say = "left" }, { say = "right" }]
[perceiver.words.lean]
of = "abs(a)"
buckets = [{ below = 0.1, say = "slightly {side}" }, { say = "far {side}" }]
)toml";
  const TaskSpec s = parse_task_spec(with_perceiver(kFields + perceiver), "t.toml");
  const BuiltinTask t = make_task(s);
  EXPECT_EQ(t.task.perceive({0.35, 0, -0.05, 0}, t.task), "lean slightly left at -0.05, 3 steps");
  EXPECT_EQ(t.task.perceive({-0.1, 0, 0.25, 0}, t.task), "lean far right at 0.25, 1 steps");
  EXPECT_THROW(t.task.perceive({1, 2}, t.task), Error);  // the wrong number of entries
  // Every word at its longest, every number as wide as a double prints.
  const std::string longest = longest_sentence(*s.perceiver);
  EXPECT_EQ(longest.rfind("lean slightly right at ", 0), 0u) << longest;
  EXPECT_GT(longest.size(), std::string("lean slightly right at 0.25, 1 steps").size() + 30);
}

struct BadFile {
  std::string text;
  std::string want;  // what the message must contain, place and field included
};

class TaskFileErrors : public ::testing::TestWithParam<BadFile> {};

TEST_P(TaskFileErrors, NameTheLineAndTheField) {
  const std::string msg = error_of(GetParam().text);
  EXPECT_NE(msg.find(GetParam().want), std::string::npos) << msg;
  EXPECT_EQ(msg.rfind("t.toml:", 0), 0u) << msg;
}

INSTANTIATE_TEST_SUITE_P(
    Mistakes, TaskFileErrors,
    ::testing::Values(
        BadFile{"name = \"t\"\nrule = \"x\"\noptions = [\n", "TOML"},
        BadFile{std::string(kWords) + "colour = 3\n",
                "t.toml:15:1: options[1].colour: unknown field"},
        BadFile{"nmae = \"t\"\n", "t.toml:1:1: nmae: unknown field"},
        BadFile{"name = \"t\"\nrule = \"r\"\n", "options: missing"},
        BadFile{std::string(kWords) + "[[options]]\nletter = \"A\"\ntext = \"x\"\naction = 0\n",
                "letter A appears twice"},
        BadFile{std::string(kWords) + "[[options]]\nletter = \"C\"\ntext = \"x\"\naction = 7\n",
                "options[2].action: not an action of CartPole-v1"},
        BadFile{with_perceiver(std::string(kFields) + "sentence = \"{nope}\"\n"),
                "t.toml:18:12: perceiver.sentence: names {nope}"},
        BadFile{with_perceiver("fields = [\"x\"]\nsentence = \"s\"\n"),
                "perceiver.fields: names 1 entries; CartPole-v1's observation has 4"},
        BadFile{with_perceiver(std::string(kFields) +
                               "sentence = \"{w}\"\n[perceiver.words.w]\nof = \"a\"\n"
                               "buckets = [{ below = 0, say = \"l\" }]\n"),
                "perceiver.words.w.buckets: the buckets leave values >= 0 uncovered"},
        BadFile{with_perceiver(std::string(kFields) +
                               "sentence = \"{w}\"\n[perceiver.words.w]\nof = \"a +\"\n"
                               "buckets = [{ say = \"l\" }]\n"),
                "t.toml:20:6: perceiver.words.w.of: cannot read \"a +\""},
        BadFile{
            with_perceiver(std::string(kFields) +
                           "sentence = \"{p}\"\n[perceiver.values]\np = \"q + 1\"\nq = \"p\"\n"),
            "depends on itself"},
        BadFile{with_perceiver(std::string(kFields) +
                               "sentence = \"{w}\"\n[perceiver.words.w]\nof = \"a\"\n"
                               "buckets = [{ say = \"{w}\" }]\n"),
                "perceiver.words.w: says itself"},
        BadFile{std::string(kWords) + "\n[judge]\nsteps_at_least = 0\n", "judge.steps_at_least"},
        BadFile{"name = \"t\"\nrule = \"r\"\nenv = \"CartPole-v9\"\n"
                "[[options]]\nletter = \"A\"\ntext = \"x\"\naction = 0\n",
                "t.toml:3:7: env: "}));

TEST(TaskFile, AFailedWriteKeepsTheOldFile) {
  const auto dir = std::filesystem::temp_directory_path() / "meadow_task_file_test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "keep.toml").string();
  { std::ofstream(path) << "old"; }
  TaskSpec bad = spec_of_words(builtin_task("cartpole").task);
  bad.env_kwargs = {{"x", nullptr}};  // TOML has no null
  EXPECT_THROW(write_task_spec(bad, path), Error);
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "old");
  std::filesystem::remove_all(dir);
}
