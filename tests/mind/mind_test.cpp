// Mind on a random-weight fixture with the embedded model's tokenizer: decide, working memory,
// the exam (pass, failure listing, configurable misses) and cached vs uncached exams.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "../decision/mind_fixture.hpp"
#include "meadow/error.hpp"
#include "meadow/mind.hpp"
#include "meadow/runtime/model.hpp"
#include "meadow/runtime/tokenizer.hpp"

namespace meadow {
namespace {

Task demo() {
  Task t;
  t.name = "demo";
  t.rule = "If the light is red, choose A; if green, choose B; if yellow, choose C.";
  t.options = {{'A', "stop", {0}, "stop"}, {'B', "go", {1}, "go"}, {'C', "slow down", {2}, ""}};
  t.sanity = {{"The light is red.", 'A'},    {"The light is green.", 'B'},
              {"The light is yellow.", 'C'}, {"The light turns red ahead.", 'A'},
              {"A green light.", 'B'},       {"Yellow light, far away.", 'C'}};
  t.perceive = [](const Values& o) {
    return std::string("The light is ") + (o.at(0) < 0.5 ? "red." : "green.");
  };
  return t;
}

// Exam items re-labelled with what this (random) model actually answers, so the exam passes.
Task passing(Mind& mind) {
  Task t = demo();
  for (auto& item : t.sanity) item.expected = mind.decide_status(t, item.status).letter;
  return t;
}

char other_letter(const Task& t, char l) {
  for (const auto& o : t.options)
    if (o.letter != l) return o.letter;
  return l;
}

TEST(Mind, LoadsAnExplicitPath) {
  ::unsetenv("MEADOW_MIND_MODEL");
  const std::string path = mind_test::train_fixture();
  Mind mind(path);
  EXPECT_EQ(mind.model_path(), path);
  EXPECT_EQ(mind.model().config().arch, model::Arch::Dream);
  EXPECT_EQ(mind.tokenizer().size(), 4096);
  // auto: a small model decides on at most 2 threads
  const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
  EXPECT_EQ(mind.options().decide.threads, std::min(cores, 2));
  EXPECT_EQ(Mind(path, MindOptions{.decide = {.threads = 3}}).options().decide.threads, 3);
}

TEST(Mind, OptionsOutOfRangeFailWhenTheMindIsMade) {
  const std::string path = mind_test::train_fixture();
  EXPECT_THROW(Mind(path, {.decide = {.exit_margin = 1.5}}), Error);
  EXPECT_THROW(Mind(path, {.decide = {.float_recheck = -0.1}}), Error);
  EXPECT_THROW(Mind(path, {.decide = {.float_recheck = std::nan("")}}), Error);
  EXPECT_NO_THROW(Mind(path, {.decide = {.exit_margin = 1, .float_recheck = 0}}));
}

// Two tables whose prompts read the same but whose letters differ get their own decisions: the
// cache key once joined the texts, so the second table was decided with the first one's letters.
TEST(Mind, TablesThatReadAlikeKeepTheirOwnLetters) {
  Mind mind(mind_test::train_fixture());
  Task one = demo();
  one.options = {{'A', "stop\nB) go", {0}, ""}};
  one.sanity.clear();
  Task two = demo();
  two.options = {{'A', "stop", {0}, ""}, {'B', "go", {1}, ""}};
  two.sanity.clear();
  EXPECT_EQ(mind.decide_status(one, "The light is red.").probs.size(), 1u);
  EXPECT_EQ(mind.decide_status(two, "The light is red.").probs.size(), 2u);
}

TEST(Mind, DecideMapsTheLetterToItsAction) {
  Mind mind(mind_test::train_fixture());
  Task t = demo();
  for (double x : {0.0, 1.0}) {
    const auto [action, info] = mind.decide(t, {x});
    EXPECT_EQ(info.status, x < 0.5 ? "The light is red." : "The light is green.");
    EXPECT_EQ(action, t.option(info.letter).action);
    const Decision again = mind.decide_status(t, info.status);
    EXPECT_EQ(again.letter, info.letter);
    EXPECT_NEAR(again.prob('A'), info.prob('A'), 1e-9);  // deterministic
    double sum = 0;
    for (const auto& [l, p] : info.probs) sum += p;
    EXPECT_NEAR(sum, 1.0, 1e-12);
    EXPECT_GT(info.lat_ms, 0);
  }
}

TEST(Mind, InvalidTaskOrNoPerceiverThrows) {
  Mind mind(mind_test::train_fixture());
  Task t = demo();
  t.options[1].letter = 'A';
  EXPECT_THROW(mind.decide(t, {0}), Error);
  EXPECT_THROW(mind.decide_status(t, "x"), Error);
  Task u = demo();
  u.perceive = {};
  EXPECT_THROW(mind.decide(u, {0}), Error);
}

// A task is validated when its table first meets the mind. Changed after that, it still fails
// with an error: a new table (rule or options edited) is validated anew, and memory switched on
// without a key is caught where the key is read.
TEST(Mind, TaskChangedAfterItsFirstDecisionStillFailsCleanly) {
  Mind mind(mind_test::train_fixture());
  Task t = demo();
  (void)mind.decide(t, {0});
  t.memory = true;
  EXPECT_THROW(mind.decide(t, {0}), Error);
  t.memory = false;
  t.options[1].text = " ";
  EXPECT_THROW(mind.decide(t, {0}), Error);
  t.options[1].text = "go";
  EXPECT_EQ(mind.decide(t, {1}).info.status, "The light is green.");
}

// A batch perceives its observations in order (working memory counts each visit before the
// next one is perceived) and answers each as decide() does.
TEST(Mind, DecideBatchPerceivesInOrderAndAnswersAsDecide) {
  Mind mind(mind_test::train_fixture());
  Task t = demo();
  t.memory = true;
  t.mem_key = [](const Values& o) { return "cell " + std::to_string(int(o.at(0))); };
  t.perceive = [](const Values& o, const Task& task) {
    const std::string key = "cell " + std::to_string(int(o.at(0)));
    return key + " seen " + std::to_string(task.visits(key)) + " times.";
  };
  const std::vector<Decided> batch = mind.decide_batch(t, {{0}, {1}, {0}, {0}});
  ASSERT_EQ(batch.size(), 4u);
  const char* want[] = {"cell 0 seen 0 times.", "cell 1 seen 0 times.", "cell 0 seen 1 times.",
                        "cell 0 seen 2 times."};
  for (size_t i = 0; i < batch.size(); ++i) {
    EXPECT_EQ(batch[i].info.status, want[i]);
    const Decision one = mind.decide_status(t, want[i]);
    EXPECT_EQ(batch[i].info.letter, one.letter);
    EXPECT_EQ(batch[i].action, t.option(one.letter).action);
    EXPECT_NEAR(batch[i].info.prob('A'), one.prob('A'), 1e-5);
  }
  EXPECT_TRUE(mind.decide_batch(t, {}).empty());
}

TEST(Mind, WorkingMemoryFeedsThePerceiver) {
  Mind mind(mind_test::train_fixture());
  Task t = demo();
  t.memory = true;
  t.mem_key = [](const Values& o) { return "cell " + std::to_string(int(o.at(0))); };
  std::vector<std::string> said;
  t.perceive = [&said](const Values& o, const Task& task) {
    const std::string key = task.mem_key(o);
    said.push_back(task.seen(key) ? "You have been here before." : "This place is new.");
    return said.back();
  };
  mind.decide(t, {1});
  mind.decide(t, {2});
  const auto [action, info] = mind.decide(t, {1});
  EXPECT_EQ(said, (std::vector<std::string>{"This place is new.", "This place is new.",
                                            "You have been here before."}));
  EXPECT_EQ(info.status, "You have been here before.");
  EXPECT_EQ(t.visits("cell 1"), 2);
  EXPECT_EQ(t.visits("cell 2"), 1);
  t.forget();
  EXPECT_FALSE(t.seen("cell 1"));

  Task off = demo();  // memory off: nothing recorded
  off.mem_key = t.mem_key;
  mind.decide(off, {1});
  EXPECT_TRUE(off.visited.empty());
}

TEST(Mind, ExamPassesWhenEveryItemIsRight) {
  Mind mind(mind_test::train_fixture());
  const Task t = passing(mind);
  const ExamResult r = mind.check(t);
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.n_right, 6);
  EXPECT_EQ(r.n_total, 6);
  EXPECT_TRUE(r.misses.empty());
  ASSERT_EQ(r.decisions.size(), 6u);
  const std::string table = exam_table(t, r);
  EXPECT_NE(table.find("6/6 right"), std::string::npos);
  EXPECT_NE(table.find("PASS"), std::string::npos);
  EXPECT_NE(table.find("The light is yellow."), std::string::npos);
}

TEST(Mind, ExamFailureListsEachMiss) {
  Mind mind(mind_test::train_fixture());
  Task t = passing(mind);
  // One wrong expectation is within the default allowance of one miss.
  const char right0 = t.sanity[0].expected;
  t.sanity[0].expected = other_letter(t, right0);
  const ExamResult one = mind.check(t);
  EXPECT_TRUE(one.ok);
  EXPECT_EQ(one.n_right, 5);
  ASSERT_EQ(one.misses.size(), 1u);
  EXPECT_THROW(mind.check(t, 0), ExamFailed);  // configurable: no miss allowed

  const char right2 = t.sanity[2].expected;
  t.sanity[2].expected = other_letter(t, right2);
  try {
    mind.check(t);
    FAIL() << "two misses must fail the exam";
  } catch (const ExamFailed& e) {
    const std::string m = e.what();
    EXPECT_FALSE(e.result.ok);
    EXPECT_EQ(e.result.n_right, 4);
    ASSERT_EQ(e.result.misses.size(), 2u);
    EXPECT_NE(m.find("4/6 right, 2 missed (at most 1 allowed): FAIL"), std::string::npos) << m;
    for (int i : {0, 2}) {
      const auto& item = t.sanity[size_t(i)];
      const char got = i == 0 ? right0 : right2;
      const std::string line = "miss: \"" + item.status + "\" expected " +
                               std::string(1, item.expected) + ", chose " + std::string(1, got);
      EXPECT_NE(m.find(line), std::string::npos) << m;
    }
    EXPECT_NE(m.find("A="), std::string::npos);  // probabilities are listed
  }
  EXPECT_FALSE(mind.exam(t).ok);  // exam() reports without throwing
  EXPECT_TRUE(mind.exam(t, 2).ok);
  // ExamFailed is not a bad-input error: the CLI gives it exit 1, not 2.
  static_assert(!std::is_base_of_v<Error, ExamFailed>);
}

TEST(Mind, CachedAndUncachedAgreeOnEveryExamItem) {
  Mind cached(mind_test::train_fixture(), MindOptions{.decide = {.prefix_cache = true}});
  Mind plain(mind_test::train_fixture(), MindOptions{.decide = {.prefix_cache = false}});
  const Task t = demo();
  for (const auto& item : t.sanity) {
    const Decision a = cached.decide_status(t, item.status);
    const Decision b = plain.decide_status(t, item.status);
    const Decision c = cached.decide_status_uncached(t, item.status);
    EXPECT_EQ(a.letter, b.letter) << item.status;
    for (const auto& [l, p] : a.probs) {
      EXPECT_NEAR(p, b.prob(l), 1e-4) << item.status;
      EXPECT_NEAR(p, c.prob(l), 1e-4) << item.status;
    }
  }
}

TEST(Mind, EnvironmentVariableSelectsTheModel) {
  const std::string path = mind_test::train_fixture();
  ::setenv("MEADOW_MIND_MODEL", path.c_str(), 1);
  Mind mind;
  EXPECT_EQ(mind.model_path(), path);
  ::setenv("MEADOW_MIND_MODEL", (path + ".missing").c_str(), 1);
  // set but missing: an error, never a silent fallback
  EXPECT_THROW({ Mind m(path); }, Error);
  ::unsetenv("MEADOW_MIND_MODEL");
}

TEST(Mind, AiPromptCoversTheFiveSteps) {
  const std::string g = ai_prompt();
  for (const char* s :
       {"1. Explore the actions", "2. Write perception words",
        "3. Imprint the rule as multiple choice", "4. Decide on memory", "5. Take the exam",
        "velocity or trend", "mind.check(task)", "mind.decide(task, obs)", "sanity", "mem_key"})
    EXPECT_NE(g.find(s), std::string::npos) << s;
}

// One text for both languages: each guide has the shared steps and only its own blocks.
TEST(Mind, AiPromptPicksTheLanguage) {
  const std::string cpp = ai_prompt("cpp"), py = ai_prompt("python");
  EXPECT_NE(cpp.find("(C++ API)"), std::string::npos);
  EXPECT_EQ(cpp.find("(Python)"), std::string::npos);
  EXPECT_NE(py.find("from meadow_mind import"), std::string::npos);
  EXPECT_EQ(py.find("meadow::"), std::string::npos);
  for (const std::string* g : {&cpp, &py}) {
    EXPECT_NE(g->find("Use the SAME words in the sentence"), std::string::npos);
    EXPECT_EQ(g->find(":::"), std::string::npos);
    EXPECT_EQ(g->find("<!--"), std::string::npos);
  }
  EXPECT_THROW(ai_prompt("rust"), Error);
}

// The guide's complete example is examples/ai_prompt_example.cpp (built with the examples),
// indented as a Markdown code block: the code an agent copies compiles.
TEST(Mind, AiPromptQuotesTheExampleThatIsBuilt) {
  std::ifstream in(std::string(MEADOW_SOURCE_DIR) + "/examples/ai_prompt_example.cpp");
  ASSERT_TRUE(in.good());
  std::string line, quoted;
  while (std::getline(in, line)) quoted += (line.empty() ? "" : "    ") + line + "\n";
  ASSERT_GT(quoted.size(), 500u);
  EXPECT_NE(ai_prompt().find(quoted), std::string::npos);
}

}  // namespace
}  // namespace meadow
