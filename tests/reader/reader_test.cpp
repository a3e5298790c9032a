// Reader end to end on tiny random reader files (reader_fixture.hpp): loading and its errors
// (every missing head named), reading (clauses from the tags, literals judged once, unclaimed
// and unread words), decisions (a distribution, the same on 1 and 2 threads, a reading reused),
// and the refusals: unreadable rules, empty or too long input, a reading of another reader.
// (Parity with the PyTorch reference: tests/reference/reader_reference_test.cpp.)
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <numeric>
#include <string>

#include "meadow/error.hpp"
#include "meadow/runtime/reader.hpp"
#include "reader_fixture.hpp"

namespace meadow::reader {
namespace {

using reader_test::TinyReader;

constexpr int kO = 0, kI = 2;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

// Every rule token tagged I (one literal: the whole rule, for every option); a default or not.
Reader whole_rule_reader(const std::string& name, float default_bias = -50) {
  TinyReader spec;
  spec.tag_bias[kI] = 50;
  spec.default_bias = default_bias;
  return Reader::open(reader_test::write_tiny_reader(reader_test::tiny_path(name), spec));
}

const std::vector<Option> kOptions = {{'C', "sound the horn"}, {'A', "keep the lamp"}};
const std::string kRule = "If the kettle whistles, choose C. Otherwise A.";

TEST(Reader, ReadsEachOptionsClausesAndJudgesEachLiteralOnce) {
  const Reader rd = whole_rule_reader("whole");
  const Reading r = rd.read(kRule, kOptions);
  ASSERT_EQ(r.options.size(), 2u);
  for (const OptionReading& o : r.options) {
    ASSERT_EQ(o.clauses.size(), 1u);
    ASSERT_EQ(o.clauses[0].literals.size(), 1u);
    const Literal& l = o.clauses[0].literals[0];
    EXPECT_EQ(l.text, kRule);
    EXPECT_EQ(l.words.begin, 0u);
    EXPECT_EQ(l.words.end, kRule.size());
    EXPECT_GT(l.tag_p, 0.99);
    EXPECT_EQ(l.judged, 0u);
    EXPECT_LT(o.p_default, 0.01);
  }
  EXPECT_EQ(r.options[0].letter, 'C');
  EXPECT_EQ(r.options[0].text, "sound the horn");
  ASSERT_EQ(r.judged.size(), 1u);  // the same text for both options: encoded once
  const JudgedLiteral& j = r.judged[0];
  EXPECT_EQ(j.text, kRule);
  EXPECT_EQ(j.mean.size(), 16u);
  EXPECT_EQ(j.query.size(), size_t(j.states.rows * 16));
  EXPECT_NEAR(std::accumulate(j.op.begin(), j.op.end(), 0.0), 1.0, 1e-6);  // float32, as torch
  EXPECT_TRUE(r.unclaimed.empty());
  EXPECT_FALSE(r.unread.has_value());
  EXPECT_FALSE(r.default_index().has_value());
  EXPECT_EQ(r.unreadable(), "");
  EXPECT_TRUE(r.unreachable().empty());
  EXPECT_EQ(r.literal_texts(), (std::vector<std::string>{kRule, kRule}));
}

TEST(Reader, DecidesADistributionTheSameOnAnyThreadsAndForAReusedReading) {
  const Reader rd = whole_rule_reader("decide");
  const Reading r = rd.read(kRule, kOptions);
  model::Workspace ws;
  const Decision one = rd.decide(r, "the kettle whistles at 35 degrees", {});
  const Decision two =
      rd.decide(r, "the kettle whistles at 35 degrees", {.threads = 2, .workspace = &ws});
  const Decision again =
      rd.decide(r, "the kettle whistles at 35 degrees", {.threads = 2, .workspace = &ws});
  ASSERT_EQ(one.probs.size(), 2u);
  double total = 0;
  for (size_t i = 0; i < one.probs.size(); ++i) {
    total += one.probs[i].second;
    EXPECT_EQ(one.probs[i].first, kOptions[i].letter);
    EXPECT_NEAR(one.probs[i].second, two.probs[i].second, 1e-6);
    EXPECT_EQ(two.probs[i].second, again.probs[i].second);
  }
  EXPECT_NEAR(total, 1.0, 1e-9);
  ASSERT_EQ(one.literal_p.size(), 2u);
  for (double p : one.literal_p) EXPECT_TRUE(p >= 0 && p <= 1) << p;
  // Both options hold the same literal: an even split, the first option's letter.
  EXPECT_EQ(one.literal_p[0], one.literal_p[1]);
  EXPECT_EQ(one.letter, 'C');
  EXPECT_NEAR(one.margin, 0.0, 1e-12);
  EXPECT_EQ(one.option_p, (std::vector<double>{one.literal_p[0], one.literal_p[1]}));
  EXPECT_GT(one.lat_ms, 0.0);
}

TEST(Reader, NoConditionAndNoDefaultIsUnreadableAndDecideRefuses) {
  TinyReader spec;
  spec.tag_bias[kO] = 50;
  spec.default_bias = -50;
  const Reader rd =
      Reader::open(reader_test::write_tiny_reader(reader_test::tiny_path("none"), spec));
  const Reading r = rd.read(kRule, kOptions);
  for (const OptionReading& o : r.options) EXPECT_TRUE(o.clauses.empty());
  ASSERT_EQ(r.unclaimed.size(), 1u);
  EXPECT_EQ(r.unclaimed[0].text, kRule);  // every word, in one run
  const std::string why = r.unreadable();
  EXPECT_NE(why.find("no condition for any option and no default"), std::string::npos) << why;
  EXPECT_NE(why.find("'" + kRule + "'"), std::string::npos) << why;
  EXPECT_EQ(error_of([&] { rd.decide(r, "the kettle whistles"); }), why);
  EXPECT_EQ(r.unreachable(), (std::vector<char>{'C', 'A'}));
}

TEST(Reader, ADefaultAloneDecidesForItsOption) {
  TinyReader spec;
  spec.tag_bias[kO] = 50;
  spec.default_bias = 50;
  const Reader rd =
      Reader::open(reader_test::write_tiny_reader(reader_test::tiny_path("default"), spec));
  const Reading r = rd.read(kRule, kOptions);
  ASSERT_EQ(r.default_index(), 0u);  // both near 1: the first most likely
  EXPECT_EQ(r.unreadable(), "");
  EXPECT_EQ(r.unreachable(), std::vector<char>{'A'});
  const Decision d = rd.decide(r, "fog");
  EXPECT_EQ(d.letter, 'C');
  EXPECT_EQ(d.probs[0].second, 1.0);
  EXPECT_TRUE(d.literal_p.empty());
}

// One pass per rule: every token I, one literal (the whole rule), one clause, linked to one
// option; that option's condition is the rule, the others have none.
TEST(Reader, APassPerRuleLinksEachClauseToOneOption) {
  TinyReader spec;
  spec.reading = "rule";
  spec.tag_bias[kI] = 50;
  spec.default_bias = -50;
  const Reader rd =
      Reader::open(reader_test::write_tiny_reader(reader_test::tiny_path("rule"), spec));
  EXPECT_TRUE(rd.reads_per_rule());
  const Reading r = rd.read(kRule, kOptions);
  ASSERT_EQ(r.options.size(), 2u);
  EXPECT_EQ(r.options[0].clauses.size() + r.options[1].clauses.size(), 1u);
  const OptionReading& linked = r.options[r.options[0].clauses.empty() ? 1 : 0];
  EXPECT_EQ(linked.clauses[0].literals.at(0).text, kRule);
  EXPECT_GT(linked.clauses[0].link_p, 0.0);
  EXPECT_LE(linked.clauses[0].link_p, 1.0);
  EXPECT_EQ(r.judged.size(), 1u);
  EXPECT_EQ(r.unreadable(), "");
  EXPECT_EQ(r.unreachable().size(), 1u);
  const Decision d = rd.decide(r, "the kettle whistles");
  EXPECT_EQ(d.letter, linked.letter);  // the only option that can hold, no default
  EXPECT_NEAR(d.probs[0].second + d.probs[1].second, 1.0, 1e-12);
  // Antecedent flags on every token: each literal's pronoun would read the run before it; here
  // there are no pronouns, so the literal is the same.
  spec.ante_bias = 50;
  const Reader flagged =
      Reader::open(reader_test::write_tiny_reader(reader_test::tiny_path("rule_ante"), spec));
  const Reading f = flagged.read(kRule, kOptions);
  EXPECT_TRUE(f.unclaimed.empty());
  EXPECT_EQ(f.literal_texts(), std::vector<std::string>{kRule});
  // Nothing tagged and no default: unreadable, as with a pass per option.
  TinyReader none = spec;
  none.tag_bias = {};
  none.tag_bias[kO] = 50;
  none.ante_bias = -50;
  const Reader empty =
      Reader::open(reader_test::write_tiny_reader(reader_test::tiny_path("rule_none"), none));
  const Reading e = empty.read(kRule, kOptions);
  EXPECT_NE(e.unreadable().find("no condition for any option"), std::string::npos);
  EXPECT_THROW(empty.decide(e, "fog"), Error);
}

TEST(Reader, MissingHeadsAreNamed) {
  TinyReader spec;
  spec.skip = {"reader.tag.weight", "reader.look.in_proj.weight", "reader.ops"};
  const std::string path = reader_test::write_tiny_reader(reader_test::tiny_path("missing"), spec);
  const std::string msg = error_of([&] { Reader::open(path); });
  EXPECT_NE(msg.find(path + ": not a meadow-reader file"), std::string::npos) << msg;
  for (const char* name : {"reader.tag.weight", "reader.look.in_proj.weight", "reader.ops"})
    EXPECT_NE(msg.find(name), std::string::npos) << msg;
  EXPECT_EQ(msg.find("reader.look.in_proj.weight, reader.look.in_proj.weight"), std::string::npos)
      << "one tensor named once: " << msg;
  // A pass per rule needs its own heads.
  TinyReader rule;
  rule.reading = "rule";
  rule.skip = {"reader.link_k.weight", "reader.ante.bias"};
  const std::string r =
      reader_test::write_tiny_reader(reader_test::tiny_path("missing_rule"), rule);
  const std::string rmsg = error_of([&] { Reader::open(r); });
  EXPECT_NE(rmsg.find("missing reader.ante.bias, reader.link_k.weight"), std::string::npos) << rmsg;
}

TEST(Reader, APlainEncoderIsNotAReader) {
  TinyReader spec;
  for (const char* k : {"reader.version", "reader.judge", "reader.tags", "reader.ops",
                        "reader.judge_tags", "reader.look.head_count", "reader.max_tokens"})
    spec.skip.push_back(k);
  for (const char* t : {"tag", "default", "op", "look.in_proj", "look.out_proj", "judge.fc1",
                        "judge.fc2", "thresholds", "value"}) {
    spec.skip.push_back(std::string("reader.") + t + ".weight");
    spec.skip.push_back(std::string("reader.") + t + ".bias");
  }
  spec.skip.push_back("reader.look_norm.weight");
  spec.skip.push_back("reader.look_norm.bias");
  const std::string path = reader_test::write_tiny_reader(reader_test::tiny_path("plain"), spec);
  EXPECT_FALSE(Reader::is_reader(gguf::File::open(path)));
  const std::string msg = error_of([&] { Reader::open(path); });
  EXPECT_NE(msg.find("not a meadow-reader file"), std::string::npos) << msg;
  EXPECT_NE(msg.find("reader.version"), std::string::npos) << msg;
  const std::string reader = reader_test::write_tiny_reader(reader_test::tiny_path("ok"));
  EXPECT_TRUE(Reader::is_reader(gguf::File::open(reader)));
}

TEST(Reader, OtherJudgesAndShapesAreRefused) {
  TinyReader cross;
  cross.judge = "cross";
  const std::string a = reader_test::write_tiny_reader(reader_test::tiny_path("cross"), cross);
  EXPECT_NE(error_of([&] { Reader::open(a); }).find("late judge only"), std::string::npos);
  TinyReader shape;
  shape.wrong_fc1_shape = true;
  const std::string b = reader_test::write_tiny_reader(reader_test::tiny_path("shape"), shape);
  const std::string msg = error_of([&] { Reader::open(b); });
  EXPECT_NE(msg.find("reader.judge.fc1.weight has dims 79 x 16, expected 80 x 16"),
            std::string::npos)
      << msg;
}

TEST(Reader, BadInputIsAnError) {
  const Reader rd = whole_rule_reader("bad");
  EXPECT_NE(error_of([&] { rd.read(" \n", kOptions); }).find("the rule is empty"),
            std::string::npos);
  EXPECT_NE(error_of([&] { rd.read(kRule, {}); }).find("no options"), std::string::npos);
  EXPECT_NE(error_of([&] {
              rd.read(kRule, {{'A', "x"}, {'A', "y"}});
            }).find("given twice"),
            std::string::npos);
  const Reading r = rd.read(kRule, kOptions);
  EXPECT_NE(error_of([&] { rd.decide(r, ""); }).find("situation is empty"), std::string::npos);
  std::string long_state;
  for (int i = 0; i < 70; ++i) long_state += "fog ";
  EXPECT_NE(error_of([&] { rd.decide(r, long_state); }).find("70 tokens"), std::string::npos);
  // A reading is tied to the reader that made it (its literals' states are that model's).
  const Reader other = whole_rule_reader("other");
  EXPECT_NE(error_of([&] { other.decide(r, "fog"); }).find("another reader"), std::string::npos);
}

TEST(Reader, ARuleLongerThanTheReaderReadsIsUnreadable) {
  const Reader rd = whole_rule_reader("long");
  std::string rule = "If the kettle whistles choose C.";
  for (int i = 0; i < 12; ++i) rule += " otherwise keep the lamp and the horn";
  const Reading r = rd.read(rule, kOptions);
  ASSERT_TRUE(r.unread.has_value());
  EXPECT_LT(r.unread->begin, rule.size());
  EXPECT_EQ(r.unread->text, rule.substr(r.unread->begin));
  EXPECT_NE(r.unreadable().find("longer than the reader reads"), std::string::npos);
  EXPECT_THROW(rd.decide(r, "fog"), Error);
  // Both queries are as long, so both passes stopped there: so did their literals.
  for (const OptionReading& o : r.options)
    EXPECT_LE(o.clauses.at(0).literals.at(0).words.end, r.unread->begin);
}

}  // namespace
}  // namespace meadow::reader
