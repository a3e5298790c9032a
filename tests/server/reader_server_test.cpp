// A server of a meadow-reader (tiny random readers, tests/reader/reader_fixture.hpp):
// /v1/decide answers what Mind answers, with every condition it read and P(holds); a rule it
// cannot decide from is a 400 naming the words; generation routes say a reader has none; the
// readings are cached per table.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "meadow/mind.hpp"
#include "meadow/runtime/reader.hpp"
#include "reader_fixture.hpp"
#include "server/decider_cache.hpp"
#include "server_client.hpp"

namespace {

using namespace meadow::server_test;
using nlohmann::json;

std::string tiny_reader(const std::string& name, int tag) {
  meadow::reader_test::TinyReader spec;
  spec.tag_bias[size_t(tag)] = 50;
  spec.default_bias = -50;
  return meadow::reader_test::write_tiny_reader(meadow::reader_test::tiny_path(name), spec);
}

const std::string kRule = "If the kettle whistles, choose A. Otherwise B.";

TEST(ReaderServer, DecideCarriesTheConditionsAsMindDoes) {
  unsetenv("MEADOW_MIND_MODEL");
  const std::string path = tiny_reader("server_whole", 2);
  Running server(options(path));
  const json body{{"rule", kRule},
                  {"options", {"pour the tea", "wait"}},  // lettered A, B
                  {"state", "the kettle whistles"}};
  const Reply r = post(server.port(), "/v1/decide", body);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(r.j["coherence"].is_null());
  ASSERT_EQ(r.j["conditions"].size(), 2u);
  EXPECT_EQ(r.j["conditions"][0]["letter"], "A");
  EXPECT_EQ(r.j["conditions"][0]["text"], "\"" + kRule + "\"");

  meadow::Mind mind(path);
  meadow::Task t;
  t.name = "decide";
  t.rule = kRule;
  t.options = {{'A', "pour the tea", {0}, ""}, {'B', "wait", {1}, ""}};
  const meadow::Decision d = mind.decide_status(t, "the kettle whistles");
  EXPECT_EQ(r.j["letter"], std::string(1, d.letter));
  EXPECT_NEAR(r.j["probs"]["A"].get<double>(), d.probs[0].second, 1e-12);
  EXPECT_NEAR(r.j["conditions"][1]["p"].get<double>(), d.conditions[1].p, 1e-12);
  // the second decision of the table uses its cached reading: the same answer
  const Reply again = post(server.port(), "/v1/decide", body);
  EXPECT_EQ(again.j["probs"], r.j["probs"]);
  EXPECT_EQ(again.j["conditions"], r.j["conditions"]);
}

TEST(ReaderServer, WhatAReaderCannotDoIsAClearError) {
  Running server(options(tiny_reader("server_blind", 0)));
  const Reply r = post(server.port(), "/v1/decide",
                       {{"rule", kRule}, {"options", {"pour the tea", "wait"}}, {"state", "x"}});
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_NE(r.body.find("no condition for any option"), std::string::npos) << r.body;
  const Reply chat = post(server.port(), "/v1/chat/completions",
                          {{"messages", {{{"role", "user"}, {"content", "hi"}}}}});
  EXPECT_EQ(chat.status, 400) << chat.body;
  EXPECT_NE(chat.body.find("a meadow-reader reads rules in parts"), std::string::npos) << chat.body;
}

TEST(ReadingCache, ReusesAReadingAndEvictsByBytes) {
  const auto rd = meadow::reader::Reader::open(tiny_reader("server_cache", 2));
  const std::vector<meadow::reader::Option> options = {{'A', "pour the tea"}, {'B', "wait"}};
  meadow::server::ReadingCache big(rd, 1, size_t(1) << 30);
  const auto a = big.get(kRule, options);
  EXPECT_EQ(big.get(kRule, options), a);  // the same reading, not read again
  big.get("Choose A when the kettle whistles, else B.", options);
  EXPECT_EQ(big.size(), 2u);
  const size_t one = big.bytes() / 2;
  ASSERT_GT(one, 0u);
  // Room for one: the second evicts the first, which is then read anew.
  meadow::server::ReadingCache small(rd, 1, one + one / 2);
  const auto first = small.get(kRule, options);
  small.get("Choose A when the kettle whistles, else B.", options);
  EXPECT_EQ(small.size(), 1u);
  EXPECT_NE(small.get(kRule, options), first);
  // Larger than the whole budget: read and returned, not kept.
  meadow::server::ReadingCache tiny(rd, 1, 16);
  EXPECT_NE(tiny.get(kRule, options), nullptr);
  EXPECT_EQ(tiny.size(), 0u);
  EXPECT_EQ(tiny.bytes(), 0u);
}

}  // namespace
