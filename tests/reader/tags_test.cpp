// Tags to clauses (decide.py's clauses_from_tags), tagged runs and unclaimed words, on rules
// split into words here, each word given its tag by hand.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "reader/tags.hpp"

namespace meadow::reader {
namespace {

const TagIds kIds;

int tag_id(const std::string& t) {
  const char* names[] = {"O", "B", "I", "AND", "OR", "PRON", "ANTE"};
  for (int i = 0; i < 7; ++i)
    if (t == names[i]) return i;
  ADD_FAILURE() << "no tag " << t;
  return 0;
}

// The rule's words (split at spaces; each of ",.:;" a word of its own, as BERT splits
// punctuation) as rule tokens (segment 1) tagged in order, after a query token and a [SEP] the
// decoding must pass over, and before the closing [SEP].
std::vector<TaggedToken> tagged(const std::string& rule, const std::string& tags) {
  std::vector<TaggedToken> out = {{{0, 0}, -1, tag_id("O"), 1},   // [CLS]
                                  {{0, 1}, 0, tag_id("B"), 1},    // the query's letter
                                  {{0, 0}, -1, tag_id("O"), 1}};  // [SEP]
  std::istringstream ts(tags);
  std::string t;
  for (size_t i = 0; i < rule.size();) {
    if (rule[i] == ' ') {
      ++i;
      continue;
    }
    size_t j = i + 1;
    if (std::string(",.:;").find(rule[i]) == std::string::npos)
      while (j < rule.size() && rule[j] != ' ' &&
             std::string(",.:;").find(rule[j]) == std::string::npos)
        ++j;
    EXPECT_TRUE(ts >> t) << "fewer tags than words in: " << rule;
    out.push_back({{uint32_t(i), uint32_t(j)}, 1, tag_id(t), 0.9, t == "ANTE"});
    i = j;
  }
  EXPECT_FALSE(ts >> t) << "more tags than words in: " << rule;
  out.push_back({{0, 0}, -1, tag_id("O"), 1});
  return out;
}

// Clauses as "join|text|text" strings.
std::vector<std::string> read(const std::string& rule, const std::string& tags) {
  std::vector<std::string> out;
  for (const Clause& c : clauses_from_tags(rule, tagged(rule, tags), kIds)) {
    std::string s = join_name(c.join);
    for (const Literal& l : c.literals) s += "|" + l.text;
    out.push_back(s);
  }
  return out;
}

using V = std::vector<std::string>;

TEST(Tags, ALiteralIsARunOfBThenI) {
  EXPECT_EQ(read("If the kettle whistles, choose C", "O B I I O O O"), V{"|the kettle whistles"});
  // An I with no literal open begins one.
  EXPECT_EQ(read("If the kettle whistles, choose C", "O I I I O O O"), V{"|the kettle whistles"});
  // Each B begins a new literal; with nothing joining them they are separate clauses.
  EXPECT_EQ(read("Fog rolling in: C. Smoke: C.", "B I I O O O B O O O"),
            (V{"|Fog rolling in", "|Smoke"}));
  EXPECT_EQ(read("fog smoke", "B B"), (V{"|fog", "|smoke"}));
  EXPECT_EQ(read("Choose A otherwise", "O O O"), V{});
}

TEST(Tags, AndOrJoinLiteralsIntoOneClause) {
  EXPECT_EQ(read("If it rains and the wind blows, choose B", "O B I AND B I I O O O"),
            V{"and|it rains|the wind blows"});
  EXPECT_EQ(read("fog or smoke: C", "B OR B O O"), V{"or|fog|smoke"});
  // The first join named is the clause's.
  EXPECT_EQ(read("a and b or c", "B AND B OR B"), V{"and|a|b|c"});
  // A join word with no literal before it: the literal after it starts a clause.
  EXPECT_EQ(read("and rain", "AND B"), V{"|rain"});
  // Words between a join and the next literal do not undo the join.
  EXPECT_EQ(read("fog and then smoke", "B AND O B"), V{"and|fog|smoke"});
  // Joined literals, then a separate one.
  EXPECT_EQ(read("fog or smoke: C. ice: C", "B OR B O O O B O O"), (V{"or|fog|smoke", "|ice"}));
}

TEST(Tags, APronounStandsForTheNearestAntecedentBeforeIt) {
  const std::string rule = "When the kettle boils choose A; if it whistles choose C";
  EXPECT_EQ(read(rule, "O ANTE ANTE O O O O O PRON I O O"), V{"|the kettle whistles"});
  // Without an antecedent the pronoun stays.
  EXPECT_EQ(read(rule, "O O O O O O O O PRON I O O"), V{"|it whistles"});
  // Two antecedent runs: the later one.
  EXPECT_EQ(read("the pot and the kettle: if it whistles choose C",
                 "ANTE ANTE O ANTE ANTE O O PRON I O O"),
            V{"|the kettle whistles"});
  // An antecedent after the pronoun does not count.
  EXPECT_EQ(read("if it whistles, the kettle", "O PRON I O ANTE ANTE"), V{"|it whistles"});
  const auto c = clauses_from_tags(rule, tagged(rule, "O ANTE ANTE O O O O O PRON I O O"), kIds);
  ASSERT_EQ(c.size(), 1u);
  const Literal& l = c[0].literals[0];
  EXPECT_EQ(l.words.text, "it whistles");  // the rule's own words, pronoun included
  ASSERT_TRUE(l.antecedent.has_value());
  EXPECT_EQ(l.antecedent->text, "the kettle");
  EXPECT_EQ(l.tag_p, 0.9);
}

TEST(Tags, OnlyTheRuleSegmentIsRead) {
  // The query's token is tagged B (tagged() above) and never becomes a literal; neither does
  // a rule token with no characters.
  std::vector<TaggedToken> t = tagged("fog", "B");
  t.insert(t.end() - 1, {{3, 3}, 1, tag_id("B"), 1});
  const auto c = clauses_from_tags("fog", t, kIds);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].literals[0].text, "fog");
}

TEST(Tags, TaggedRunIsTheFirstRunOfItsSegment) {
  const std::string text = "above 2.5 and 3";
  std::vector<TaggedToken> t = {{{0, 0}, -1, 1, 1},  {{0, 5}, 0, 0, 1},  {{6, 7}, 0, 1, 1},
                                {{0, 0}, 1, 0, 1},   {{7, 8}, 0, 1, 1},  {{8, 9}, 0, 1, 1},
                                {{10, 13}, 0, 0, 1}, {{14, 15}, 0, 1, 1}};
  // The [CLS] (segment -1) and a token of segment 1 neither start, extend nor end the run.
  EXPECT_EQ(tagged_run(text, t, 1, 0), "2.5");
  EXPECT_EQ(tagged_run(text, t, 2, 0), std::nullopt);
  EXPECT_EQ(tagged_run(text, t, 0, 0), "above");
}

TEST(Tags, UnclaimedRunsAreTheRuleWordsNoOptionTagged) {
  const std::string rule = "Fog rolling in: C. Otherwise A.";
  const std::vector<TokenOffset> tokens = {{0, 3},   {4, 11},  {12, 14}, {14, 15}, {16, 17},
                                           {17, 18}, {19, 28}, {29, 30}, {30, 31}};
  const std::vector<bool> claimed = {true, true, true, false, false, false, false, true, false};
  const auto runs = unclaimed_runs(rule, tokens, claimed);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].text, ": C. Otherwise");
  EXPECT_EQ(runs[1].text, ".");
}

}  // namespace
}  // namespace meadow::reader
