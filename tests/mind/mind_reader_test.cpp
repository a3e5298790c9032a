// Mind on a meadow-reader file (tiny random readers, tests/reader/reader_fixture.hpp): the
// reader is found by the file's architecture, decisions carry every condition it read with
// P(holds), the reading is cached per table and shown by the exam, and what a reader cannot
// do fails clearly (no language model, no LoRA, a rule it cannot decide from).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

#include "meadow/error.hpp"
#include "meadow/mind.hpp"
#include "meadow/runtime/reader.hpp"
#include "reader_fixture.hpp"

namespace meadow {
namespace {

constexpr int kO = 0, kI = 2;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

// Every rule token tagged `tag`: I makes the whole rule one literal for every option.
std::string tiny_reader(const std::string& name, int tag, float default_bias = -50) {
  reader_test::TinyReader spec;
  spec.tag_bias[size_t(tag)] = 50;
  spec.default_bias = default_bias;
  return reader_test::write_tiny_reader(reader_test::tiny_path(name), spec);
}

Task kettle() {
  Task t;
  t.name = "kettle";
  t.rule = "If the kettle whistles, choose C. Otherwise A.";
  t.options = {{'C', "pour the tea", {0}, ""}, {'A', "wait", {1}, ""}};
  t.sanity = {{"the kettle whistles", 'C'}, {"the kettle is cold", 'A'}};
  t.perceive = [](const Values& o) {
    return std::string(o.at(0) > 0.5 ? "the kettle whistles" : "the kettle is cold");
  };
  return t;
}

TEST(MindReader, DecidesInPartsAndSaysWhy) {
  Mind mind(tiny_reader("mind_whole", kI));
  ASSERT_NE(mind.reader(), nullptr);
  EXPECT_GE(mind.options().decide.threads, 1);
  const Task t = kettle();
  const Decision d = mind.decide_status(t, "the kettle whistles");
  EXPECT_TRUE(d.letter == 'C' || d.letter == 'A');
  ASSERT_EQ(d.probs.size(), 2u);
  EXPECT_NEAR(d.probs[0].second + d.probs[1].second, 1.0, 1e-9);
  EXPECT_EQ(d.status, "the kettle whistles");
  EXPECT_TRUE(std::isnan(d.coherence));  // no answer slot, no Σ draft
  EXPECT_GE(d.entropy, 0.0);
  EXPECT_LE(d.entropy, 1.0);
  EXPECT_GT(d.lat_ms, 0.0);
  // one clause per option: the whole rule, as this reader tags it
  ASSERT_EQ(d.conditions.size(), 2u);
  EXPECT_EQ(d.conditions[0].letter, 'C');
  EXPECT_EQ(d.conditions[1].letter, 'A');
  EXPECT_EQ(d.conditions[0].text, "\"" + t.rule + "\"");
  for (const auto& c : d.conditions) EXPECT_TRUE(c.p >= 0 && c.p <= 1) << c.p;
  // both options' conditions are the same words: the same probability, an even split
  EXPECT_DOUBLE_EQ(d.conditions[0].p, d.conditions[1].p);
}

TEST(MindReader, ReadsEachTableOnceAndAgainWhenItChanges) {
  Mind mind(tiny_reader("mind_cache", kI));
  Task t = kettle();
  const reader::Reading* first = mind.reading(t);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(mind.reading(t), first);
  t.rule = "Choose C when the kettle whistles, else A.";
  const reader::Reading* second = mind.reading(t);
  EXPECT_NE(second, first);
  EXPECT_EQ(second->rule, t.rule);
}

TEST(MindReader, EveryEntryPointAgrees) {
  Mind mind(tiny_reader("mind_paths", kI));
  Task t = kettle();
  const Decision one = mind.decide_status(t, "the kettle is cold");
  const Decision fresh = mind.decide_status_uncached(t, "the kettle is cold");
  EXPECT_EQ(one.letter, fresh.letter);
  EXPECT_NEAR(one.probs[0].second, fresh.probs[0].second, 1e-9);
  const std::vector<std::string> both = {"the kettle whistles", "the kettle is cold"};
  const auto batch = mind.decide_status_batch(t, both);
  ASSERT_EQ(batch.size(), 2u);
  EXPECT_NEAR(batch[1].probs[0].second, one.probs[0].second, 1e-9);
  const Decided d = mind.decide(t, {0.0});
  EXPECT_EQ(d.info.status, "the kettle is cold");
  EXPECT_NEAR(d.info.probs[0].second, one.probs[0].second, 1e-9);
  EXPECT_EQ(d.action, t.option(d.info.letter).action);
  const auto ds = mind.decide_batch(t, {{1.0}, {0.0}});
  ASSERT_EQ(ds.size(), 2u);
  EXPECT_EQ(ds[0].info.status, "the kettle whistles");
}

TEST(MindReader, TheExamShowsTheReadingBeforeItsTable) {
  Mind mind(tiny_reader("mind_exam", kI));
  const Task t = kettle();
  const ExamResult r = mind.exam(t);
  EXPECT_EQ(r.n_total, 2);
  EXPECT_NE(r.reading.find("C \"pour the tea\" if \"" + t.rule + "\""), std::string::npos)
      << r.reading;
  const std::string table = exam_table(t, r);
  EXPECT_EQ(table.rfind("how the rule was read:\n", 0), 0u) << table;
  EXPECT_NE(table.find("  #  exp  got"), std::string::npos);
}

TEST(MindReader, ARuleItCannotDecideFromIsAnErrorNamingTheWords) {
  // Every token O and no default: no option has a condition.
  Mind mind(tiny_reader("mind_none", kO));
  const Task t = kettle();
  const std::string why = error_of([&] { mind.decide_status(t, "the kettle whistles"); });
  EXPECT_NE(why.find("task kettle: the reader found no condition for any option"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("If the kettle whistles"), std::string::npos) << why;
  EXPECT_NE(error_of([&] { mind.exam(t); }).find("no condition for any option"), std::string::npos);
  EXPECT_THROW(mind.reading(t), Error);
}

TEST(MindReader, OnlyTheDefaultReadIsNotAnErrorButTheOtherOptionIsNamedAtTheExam) {
  // Every token O, a default: A... or C, whichever the head prefers; the other is unreachable.
  Mind mind(tiny_reader("mind_default", kO, 50));
  const Task t = kettle();
  const reader::Reading* r = mind.reading(t);
  ASSERT_NE(r, nullptr);
  ASSERT_TRUE(r->default_index().has_value());
  const Decision d = mind.decide_status(t, "anything at all");
  EXPECT_EQ(d.letter, r->options[*r->default_index()].letter);
  EXPECT_TRUE(d.conditions.empty());
  const std::string why = error_of([&] { mind.exam(t); });
  EXPECT_NE(why.find("the reader found no condition for "), std::string::npos) << why;
  EXPECT_NE(why.find("and it is not the default: reword the rule"), std::string::npos) << why;
}

TEST(MindReader, WhatAReaderHasNotFailsClearly) {
  const std::string path = tiny_reader("mind_refuse", kI);
  Mind mind(path);
  EXPECT_NE(error_of([&] { mind.model(); }).find("a meadow-reader reads rules in parts"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              Mind(path, MindOptions{.lora = "adapter.gguf"});
            }).find("a meadow-reader takes no LoRA adapter"),
            std::string::npos);
}

}  // namespace
}  // namespace meadow
