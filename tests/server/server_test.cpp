// The HTTP server over real loopback sockets (meadow/runtime/server.hpp): OpenAI response shapes,
// the stream's events adding up to the whole answer, /v1/decide equal to `meadow-mind decide
// --json`, bad requests refused with 4xx JSON errors, a full queue with 503, and 16 concurrent
// clients sending a mix of valid and invalid requests, after which the server is still healthy.
#include <gtest/gtest.h>
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "meadow/runtime/generate.hpp"
#include "meadow/runtime/model.hpp"
#include "meadow/runtime/server.hpp"
#include "meadow/runtime/tokenizer.hpp"

#include "../decision/mind_fixture.hpp"
#include "server_client.hpp"

namespace {

using meadow::mind_test::shell_quote;
using namespace meadow::server_test;
using nlohmann::json;

// Server-sent events: the JSON of each "data:" event before [DONE]; `done` says whether
// [DONE] came last.
std::vector<json> events(const std::string& body, bool& done) {
  std::vector<json> out;
  done = false;
  size_t pos = 0;
  while (pos < body.size()) {
    size_t end = body.find("\n\n", pos);
    if (end == std::string::npos) end = body.size();
    const std::string ev = body.substr(pos, end - pos);
    pos = end + 2;
    if (ev.rfind("data: ", 0) != 0) continue;
    const std::string data = ev.substr(6);
    if (data == "[DONE]") {
      done = pos >= body.size();
      break;
    }
    out.push_back(json::parse(data));
  }
  return out;
}

// One request answered whole, then streamed (with the usage chunk): the whole reply, the stream's
// events and whether [DONE] came last.
struct WholeAndStream {
  Reply whole;
  std::vector<json> events;
  bool done = false;
};

WholeAndStream whole_and_stream(int port, const std::string& path, json body) {
  WholeAndStream r{post(port, path, body), {}, false};
  EXPECT_EQ(r.whole.status, 200) << r.whole.body;
  body["stream"] = true;
  body["stream_options"] = {{"include_usage", true}};
  const Reply s = post(port, path, body);
  EXPECT_EQ(s.status, 200) << s.body;
  r.events = events(s.body, r.done);
  return r;
}

// What the library generates for the same prompt and options: the server must answer exactly
// this (greedy decoding is deterministic).
std::string expected_text(const std::string& model_path, bool chat, const std::string& text,
                          int max_tokens, int block_size = 32) {
  const auto m = meadow::model::Model::load(model_path);
  const auto tok = meadow::Tokenizer::from_gguf(m.file());
  const auto ids =
      chat ? meadow::generate::chat_prompt_ids(tok, {{"user", text}}) : tok.encode(text, false);
  meadow::generate::GenerateOptions o;
  o.max_new_tokens = max_tokens;
  o.block_size = block_size;
  // As JSON carries it: bytes that are not UTF-8 (a character cut by max_tokens, or a random
  // model's odd bytes) become U+FFFD.
  const std::string raw = meadow::generate::generate(m, tok, ids, o).text;
  return json::parse(json(raw).dump(-1, ' ', false, json::error_handler_t::replace))
      .get<std::string>();
}

class ServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    unsetenv("MEADOW_MIND_MODEL");  // the fixture, not a model the environment names
    model_ = new std::string(meadow::mind_test::train_fixture());
    server_ = new Running(options(*model_));
  }
  static void TearDownTestSuite() {
    delete server_;
    delete model_;
  }
  static int port() { return server_->port(); }
  static const std::string& model() { return *model_; }

  static std::string* model_;
  static Running* server_;
};
std::string* ServerTest::model_ = nullptr;
Running* ServerTest::server_ = nullptr;

TEST_F(ServerTest, HealthAndModels) {
  const Reply h = call(port(), "GET", "/health");
  ASSERT_EQ(h.status, 200) << h.body;
  EXPECT_EQ(h.j["status"], "ok");
  const Reply m = call(port(), "GET", "/v1/models");
  ASSERT_EQ(m.status, 200) << m.body;
  EXPECT_EQ(m.j["object"], "list");
  ASSERT_EQ(m.j["data"].size(), 1u);
  EXPECT_EQ(m.j["data"][0]["id"], "fixture");
  EXPECT_EQ(m.j["data"][0]["object"], "model");
  EXPECT_EQ(call(port(), "GET", "/v1/models/fixture").status, 200);
  const Reply none = call(port(), "GET", "/v1/models/other");
  EXPECT_EQ(none.status, 404);
  EXPECT_TRUE(is_error_json(none)) << none.body;
}

TEST_F(ServerTest, ChatCompletionShapeUsageAndText) {
  const Reply r = post(port(), "/v1/chat/completions", chat_body("Say hello.", 8));
  ASSERT_EQ(r.status, 200) << r.body;
  const json& j = r.j;
  EXPECT_EQ(j["object"], "chat.completion");
  EXPECT_EQ(j["model"], "fixture");
  EXPECT_TRUE(j["id"].get<std::string>().rfind("chatcmpl-", 0) == 0);
  EXPECT_TRUE(j["created"].is_number_integer());
  ASSERT_EQ(j["choices"].size(), 1u);
  const json& c = j["choices"][0];
  EXPECT_EQ(c["index"], 0);
  EXPECT_EQ(c["message"]["role"], "assistant");
  EXPECT_EQ(c["message"]["content"], expected_text(model(), true, "Say hello.", 8));
  const int n = j["usage"]["completion_tokens"];
  EXPECT_LE(n, 8);
  EXPECT_EQ(c["finish_reason"], n == 8 ? "length" : "stop");
  EXPECT_GT(j["usage"]["prompt_tokens"].get<int>(), 0);
  EXPECT_EQ(j["usage"]["total_tokens"].get<int>(), j["usage"]["prompt_tokens"].get<int>() + n);
}

TEST_F(ServerTest, ContentPartsAndNullContentReadLikeStrings) {
  json parts = chat_body("", 6);
  parts["messages"] = {
      {{"role", "system"}, {"content", "Be brief."}},
      {{"role", "user"},
       {"content", {{{"type", "text"}, {"text", "Say "}}, {{"type", "text"}, {"text", "hello."}}}}},
      {{"role", "assistant"}, {"content", nullptr}}};
  json plain = parts;
  plain["messages"][1]["content"] = "Say hello.";
  plain["messages"][2]["content"] = "";
  const Reply a = post(port(), "/v1/chat/completions", parts);
  const Reply b = post(port(), "/v1/chat/completions", plain);
  ASSERT_EQ(a.status, 200) << a.body;
  ASSERT_EQ(b.status, 200) << b.body;
  EXPECT_EQ(a.j["choices"][0]["message"], b.j["choices"][0]["message"]);
  EXPECT_EQ(a.j["usage"], b.j["usage"]);
}

TEST_F(ServerTest, TextCompletion) {
  const json body{{"prompt", "Once upon a time"}, {"max_tokens", 8}};
  const Reply r = post(port(), "/v1/completions", body);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.j["object"], "text_completion");
  EXPECT_EQ(r.j["choices"][0]["text"], expected_text(model(), false, "Once upon a time", 8));
  EXPECT_TRUE(r.j["choices"][0]["finish_reason"] == "stop" ||
              r.j["choices"][0]["finish_reason"] == "length");
}

TEST_F(ServerTest, StreamAddsUpToTheWholeAnswer) {
  for (const bool chat : {true, false}) {
    json body =
        chat ? chat_body("Tell a story.", 40) : json{{"prompt", "A story:"}, {"max_tokens", 40}};
    body["block_size"] = 8;  // five blocks: five commits
    const auto [whole, ev, done] =
        whole_and_stream(port(), chat ? "/v1/chat/completions" : "/v1/completions", body);
    ASSERT_EQ(whole.status, 200);
    EXPECT_TRUE(done) << "[DONE] must come last";
    ASSERT_GE(ev.size(), 3u);
    std::string text;
    json finish;
    for (const auto& e : ev) {
      EXPECT_EQ(e["id"], ev[0]["id"]);
      EXPECT_EQ(e["object"], chat ? "chat.completion.chunk" : "text_completion");
      if (e["choices"].empty()) continue;  // the usage chunk
      const json& c = e["choices"][0];
      text += chat ? c["delta"].value("content", "") : c["text"].get<std::string>();
      if (!c["finish_reason"].is_null()) finish = c["finish_reason"];
    }
    if (chat) {
      EXPECT_EQ(ev[0]["choices"][0]["delta"]["role"], "assistant");
    }
    const json& w = whole.j["choices"][0];
    EXPECT_EQ(text, chat ? w["message"]["content"] : w["text"]);
    EXPECT_EQ(finish, w["finish_reason"]);
    EXPECT_EQ(ev.back()["usage"], whole.j["usage"]);
  }
}

TEST_F(ServerTest, StopStringCutsTheAnswerInBothModes) {
  const std::string full = expected_text(model(), true, "Tell a story.", 40, 4);
  ASSERT_GE(full.size(), 12u) << "the fixture's answer is too short to cut";
  const std::string stop = full.substr(full.size() / 2, 3);
  const std::string cut = full.substr(0, full.find(stop));
  json body = chat_body("Tell a story.", 40);
  body["stop"] = {stop, "never-appears-in-it"};
  body["block_size"] = 4;
  const Reply r = post(port(), "/v1/chat/completions", body);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.j["choices"][0]["message"]["content"], cut);
  EXPECT_EQ(r.j["choices"][0]["finish_reason"], "stop");
  body["stream"] = true;
  const Reply s = post(port(), "/v1/chat/completions", body);
  bool done = false;
  std::string text;
  for (const auto& e : events(s.body, done))
    if (!e["choices"].empty()) text += e["choices"][0]["delta"].value("content", "");
  EXPECT_TRUE(done);
  EXPECT_EQ(text, cut);
}

TEST_F(ServerTest, SamplingIsReproduciblePerSeed) {
  json body = chat_body("Say hello.", 12);
  body["temperature"] = 1.0;
  body["top_p"] = 0.9;
  body["seed"] = 7;
  const Reply a = post(port(), "/v1/chat/completions", body);
  const Reply b = post(port(), "/v1/chat/completions", body);
  ASSERT_EQ(a.status, 200) << a.body;
  EXPECT_EQ(a.j["choices"], b.j["choices"]);
}

json decide_cli(const std::string& model_path, const std::string& rule,
                const std::vector<std::string>& options, const std::string& state) {
  std::string cmd = "env -u MEADOW_MIND_MODEL " + std::string(MEADOW_CLI) +
                    " decide --json --model " + shell_quote(model_path) + " --rule " +
                    shell_quote(rule) + " --state " + shell_quote(state);
  for (size_t i = 0; i < options.size(); ++i)
    cmd += " --option " + shell_quote(std::string(1, char('A' + i)) + "=" + options[i]);
  return json::parse(meadow::mind_test::run_command(cmd));
}

void expect_same_decision(const json& server, const json& cli) {
  EXPECT_EQ(server["letter"], cli["letter"]);
  ASSERT_EQ(server["probs"].size(), cli["probs"].size());
  for (const auto& [l, p] : cli["probs"].items())
    EXPECT_NEAR(server["probs"][l].get<double>(), p.get<double>(), 1e-9) << l;
  EXPECT_NEAR(server["margin"].get<double>(), cli["margin"].get<double>(), 1e-9);
  EXPECT_NEAR(server["entropy"].get<double>(), cli["entropy"].get<double>(), 1e-9);
  EXPECT_NEAR(server["coherence"].get<double>(), cli["coherence"].get<double>(), 1e-9);
  EXPECT_TRUE(server["lat_ms"].is_number());
}

TEST_F(ServerTest, DecideEqualsTheDecideCommand) {
  const std::string rule = "If the pole leans left, push left; otherwise push right.";
  const std::vector<std::string> opts{"push the cart left", "push the cart right"};
  for (const std::string state : {"The pole leans left.", "The pole leans right, fast."}) {
    const json cli = decide_cli(model(), rule, opts, state);
    const Reply obj =
        post(port(), "/v1/decide",
             {{"rule", rule}, {"options", {{"A", opts[0]}, {"B", opts[1]}}}, {"state", state}});
    ASSERT_EQ(obj.status, 200) << obj.body;
    expect_same_decision(obj.j, cli);
    const Reply list =
        post(port(), "/v1/decide", {{"rule", rule}, {"options", opts}, {"state", state}});
    ASSERT_EQ(list.status, 200) << list.body;
    expect_same_decision(list.j, cli);
  }
}

// Bodies every endpoint must refuse with a 4xx JSON error; {path, body, expected status}.
struct Bad {
  const char* path;
  std::string body;
  int status;
};

std::vector<Bad> bad_requests() {
  const std::string chat = "/v1/chat/completions", comp = "/v1/completions", dec = "/v1/decide";
  const std::string msgs = R"("messages":[{"role":"user","content":"hi"}])";
  const std::string tool_f =
      R"({"type": "function", "function": {"name": "f", "parameters": {"properties": {"x": {}}}}})";
  std::vector<Bad> b = {
      {"/v1/chat/completions", "not json", 400},
      {"/v1/chat/completions", "[1, 2]", 400},
      {"/v1/chat/completions", std::string(100, '[') + std::string(100, ']'), 400},
      {"/v1/chat/completions", "{}", 400},
      {"/v1/chat/completions", R"({"messages": "hi"})", 400},
      {"/v1/chat/completions", R"({"messages": []})", 400},
      {"/v1/chat/completions", R"({"messages": [{"content": "hi"}]})", 400},
      {"/v1/chat/completions", R"({"messages": [{"role": "wizard", "content": "hi"}]})", 400},
      {"/v1/chat/completions", R"({"messages": [{"role": "user", "content": 5}]})", 400},
      {"/v1/chat/completions", R"({"messages": [{"role": "user"}]})", 400},
      {"/v1/chat/completions",
       R"({"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}]})",
       400},
      {"/v1/chat/completions", R"({"messages": [{"role": "user", "content": [{"type": "text"}]}]})",
       400},
      {"/v1/chat/completions", "{" + msgs + R"(, "temperature": "hot"})", 400},
      {"/v1/chat/completions", "{" + msgs + R"(, "temperature": 5})", 400},
      {"/v1/chat/completions", "{" + msgs + R"(, "top_p": 0})", 400},
      {"/v1/chat/completions", "{" + msgs + R"(, "max_tokens": 0})", 400},
      {"/v1/chat/completions", "{" + msgs + R"(, "max_tokens": 2.5})", 400},
      {"/v1/chat/completions", "{" + msgs + R"(, "max_tokens": 100000000})", 400},
      {"/v1/chat/completions", "{" + msgs + R"(, "max_tokens": 99999999999999999999})", 400},
      {"/v1/chat/completions", "{" + msgs + R"(, "stop": 3})", 400},
      {"/v1/chat/completions", "{" + msgs + R"(, "stop": ["a", 1]})", 400},
      {"/v1/chat/completions", "{" + msgs + R"(, "stop": [""]})", 400},
      {"/v1/chat/completions", "{" + msgs + R"(, "n": 0})", 400},
      {"/v1/chat/completions", "{" + msgs + R"(, "n": 17})", 400},
      {"/v1/chat/completions", "{" + msgs + R"(, "n": "2"})", 400},
      {"/v1/completions", R"({"prompt": "a", "n": 1.5})", 400},
      {"/v1/chat/completions", "{" + msgs + R"(, "logprobs": true})", 400},  // a diffusion model
      {"/v1/chat/completions", "{" + msgs + R"(, "top_logprobs": 2})", 400},
      {"/v1/chat/completions", "{" + msgs + R"(, "top_logprobs": 21, "logprobs": true})", 400},
      {"/v1/completions", R"({"prompt": "a", "logprobs": true})", 400},
      {"/v1/completions", R"({"prompt": "a", "logprobs": 6})", 400},
      {"/v1/chat/completions", "{" + msgs + R"(, "stream": "yes"})", 400},
      {"/v1/chat/completions", "{" + msgs + R"(, "seed": "x"})", 400},
      {"/v1/chat/completions", "{" + msgs + R"(, "block_size": 0})", 400},
      {"/v1/chat/completions", "{" + msgs + R"(, "threshold": 2})", 400},
      {"/v1/chat/completions", "{" + msgs + R"(, "confidence": "vibes"})", 400},
      {"/v1/chat/completions", "{" + msgs + R"(, "temperature": 1e999})", 400},
      {"/v1/chat/completions", "{\"messages\":[{\"role\":\"user\",\"content\":\"\xff\xfe\"}]}",
       400},
      {"/v1/chat/completions", "{" + msgs + R"(, "choice": "yes"})", 400},
      {"/v1/chat/completions", "{" + msgs + R"(, "choice": []})", 400},
      {"/v1/chat/completions", "{" + msgs + R"(, "choice": ["yes", 1]})", 400},
      {"/v1/chat/completions", "{" + msgs + R"(, "guided_choice": [""]})", 400},
      {"/v1/chat/completions", "{" + msgs + R"(, "tools": "read"})", 400},
      {"/v1/chat/completions", "{" + msgs + R"(, "tools": []})", 400},
      {"/v1/chat/completions", "{" + msgs + R"(, "tools": [5]})", 400},
      {"/v1/chat/completions", "{" + msgs + R"(, "tools": [{"type": "retrieval"}]})", 400},
      {"/v1/chat/completions", "{" + msgs + R"(, "tools": [{"type": "function"}]})", 400},
      {"/v1/chat/completions", "{" + msgs + R"(, "tools": [{"function": {"name": 3}}]})", 400},
      {"/v1/chat/completions",
       "{" + msgs + R"(, "tools": [{"function": {"name": "a b",)" +
           R"( "parameters": {"properties": {"x": {}}}}}]})",
       400},
      {"/v1/chat/completions", "{" + msgs + R"(, "tools": [{"function": {"name": "f"}}]})", 400},
      {"/v1/chat/completions",
       "{" + msgs + R"(, "tools": [{"function": {"name": "f",)" +
           R"( "parameters": {"properties": []}}}]})",
       400},
      {"/v1/chat/completions", "{" + msgs + R"(, "tools": [)" + tool_f + "," + tool_f + "]}", 400},
      {"/v1/chat/completions", "{" + msgs + R"(, "tool_choice": "auto"})", 400},
      {"/v1/chat/completions",
       "{" + msgs + R"(, "tools": [)" + tool_f + R"(], "tool_choice": "sometimes"})", 400},
      {"/v1/chat/completions", "{" + msgs + R"(, "tools": [)" + tool_f + R"(], "tool_choice": 5})",
       400},
      {"/v1/chat/completions",
       "{" + msgs + R"(, "tools": [)" + tool_f +
           R"(], "tool_choice": {"type": "function", "function": {"name": "g"}}})",
       400},
      {"/v1/chat/completions",
       "{" + msgs + R"(, "tools": [)" + tool_f + R"(], "tool_choice": {"type": "function"}})", 400},
      {"/v1/chat/completions",
       "{" + msgs + R"(, "tools": [)" + tool_f + R"(], "choice": ["a", "b"]})", 400},
      {"/v1/chat/completions",
       "{" + msgs + R"(, "tools": [)" + tool_f + R"(], "tool_value_tokens": 0})", 400},
      {"/v1/completions", "{}", 400},
      {"/v1/completions", R"({"prompt": 5})", 400},
      {"/v1/completions", R"({"prompt": ""})", 400},
      {"/v1/completions", R"({"prompt": ["a", "b"]})", 400},
      {"/v1/decide", "{}", 400},
      {"/v1/decide", R"({"rule": "r", "state": "s"})", 400},
      {"/v1/decide", R"({"rule": "r", "options": {"AB": "x"}, "state": "s"})", 400},
      {"/v1/decide", R"({"rule": "r", "options": [], "state": "s"})", 400},
      {"/v1/decide", R"({"rule": "r", "options": {"A": 1}, "state": "s"})", 400},
      {"/v1/decide", R"({"rule": "r", "options": "A", "state": "s"})", 400},
      {"/v1/decide", R"({"rule": "r", "options": ["x", "y"], "state": "  "})", 400},
      {"/v1/decide", R"({"rule": 7, "options": ["x", "y"], "state": "s"})", 400},
      {"/v1/decide", R"({"rule": "r", "options": ["x", "y"]})", 400},
      {"/v1/nothing", "{}", 404},
      {"/v1/chat/completions", std::string(70 * 1024, ' '), 413},  // over the 64 KiB limit
  };
  return b;
}

TEST_F(ServerTest, BadRequestsGetJsonErrors) {
  for (const Bad& b : bad_requests()) {
    const Reply r = call(port(), "POST", b.path, b.body);
    EXPECT_EQ(r.status, b.status) << b.path << " " << b.body.substr(0, 120) << " -> " << r.body;
    EXPECT_TRUE(is_error_json(r)) << b.path << " " << b.body.substr(0, 120) << " -> " << r.body;
    // Error texts quote what the client sent escaped: always one line (fuzz_server found a
    // role holding a carriage return written raw; fuzz/corpus/server/found-cr-in-role).
    if (is_error_json(r)) {
      const std::string m = r.j["error"]["message"].get<std::string>();
      EXPECT_EQ(m.find_first_of("\r\n"), std::string::npos) << m;
    }
  }
  for (const char* role : {"us\\r", "a\\nb", "\\u0007bell"}) {
    const Reply r =
        call(port(), "POST", "/v1/chat/completions",
             std::string(R"({"messages": [{"role": ")") + role + R"(", "content": "hi"}]})");
    EXPECT_EQ(r.status, 400) << r.body;
    const std::string m = r.j["error"]["message"].get<std::string>();
    EXPECT_EQ(m.find_first_of("\r\n\x07"), std::string::npos) << m;
    EXPECT_NE(m.find("unknown role"), std::string::npos) << m;
  }
  // The context check: a prompt that fits, with far more new tokens than the context holds.
  const Reply r = post(port(), "/v1/chat/completions", chat_body("hi", 1 << 19));
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_EQ(r.j["error"]["code"], "context_length_exceeded") << r.body;
  EXPECT_EQ(call(port(), "GET", "/health").j["status"], "ok");
}

// 16 clients, each sending a rotation of valid and invalid requests; every valid one must get
// the exact expected answer, every invalid one its 4xx JSON error.
TEST_F(ServerTest, SixteenConcurrentClientsMixedRequests) {
  const std::string chat_text = expected_text(model(), true, "Say hello.", 8);
  const std::string comp_text = expected_text(model(), false, "Once upon a time", 8);
  const std::string rule = "If the light is red, stop; if green, go.";
  const std::vector<std::string> opts{"stop the car", "drive on"};
  const json decided = decide_cli(model(), rule, opts, "The light is green.");
  const std::vector<Bad> bad = bad_requests();
  constexpr int kClients = 16, kPerClient = 63;  // 1008 requests
  std::atomic<int> ok{0}, refused{0}, wrong{0};
  std::vector<std::string> failures(kClients);
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      httplib::Client cl("127.0.0.1", port());
      cl.set_read_timeout(60, 0);
      for (int i = 0; i < kPerClient; ++i) {
        const int k = (c * 7 + i) % 14;
        auto fail = [&](const std::string& what) {
          ++wrong;
          if (failures[size_t(c)].empty()) failures[size_t(c)] = what;
        };
        if (k >= 7) {  // half the requests are invalid
          const Bad& b = bad[size_t(c * kPerClient + i) % bad.size()];
          auto r = cl.Post(b.path, b.body, "application/json");
          Reply rep;
          if (r) rep = {r->status, r->body, json::parse(r->body, nullptr, false)};
          if (rep.status == b.status && is_error_json(rep))
            ++refused;
          else
            fail(std::string(b.path) + " " + b.body.substr(0, 60) + " -> " +
                 std::to_string(rep.status) + " " + rep.body.substr(0, 200));
          continue;
        }
        httplib::Result r = [&] {
          if (k == 0 || k == 1) {
            json body = chat_body("Say hello.", 8);
            if (k == 1) body["stream"] = true;
            return cl.Post("/v1/chat/completions", body.dump(), "application/json");
          }
          if (k == 2)
            return cl.Post("/v1/completions",
                           json{{"prompt", "Once upon a time"}, {"max_tokens", 8}}.dump(),
                           "application/json");
          if (k == 3 || k == 4)
            return cl.Post(
                "/v1/decide",
                json{{"rule", rule}, {"options", opts}, {"state", "The light is green."}}.dump(),
                "application/json");
          return cl.Get(k == 5 ? "/v1/models" : "/health");
        }();
        if (!r || r->status != 200) {
          fail("kind " + std::to_string(k) + ": " +
               (r ? std::to_string(r->status) + " " + r->body : std::string("no reply")));
          continue;
        }
        bool good = false;
        if (k == 1) {
          bool done = false;
          std::string text;
          for (const auto& e : events(r->body, done))
            text += e["choices"][0]["delta"].value("content", "");
          good = done && text == chat_text;
        } else {
          const json j = json::parse(r->body, nullptr, false);
          if (k == 0) good = j["choices"][0]["message"]["content"] == chat_text;
          if (k == 2) good = j["choices"][0]["text"] == comp_text;
          if (k == 3 || k == 4)
            good = j["letter"] == decided["letter"] &&
                   std::abs(j["probs"]["A"].get<double>() - decided["probs"]["A"].get<double>()) <
                       1e-9;
          if (k == 5) good = j["data"][0]["id"] == "fixture";
          if (k == 6) good = j["status"] == "ok";
        }
        if (good)
          ++ok;
        else
          fail("kind " + std::to_string(k) + " answered wrongly: " + r->body.substr(0, 300));
      }
    });
  }
  for (auto& t : clients) t.join();
  for (const auto& f : failures) EXPECT_TRUE(f.empty()) << f;
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(ok + refused, kClients * kPerClient);
  EXPECT_GT(refused.load(), 0);
  const Reply h = call(port(), "GET", "/health");
  ASSERT_EQ(h.status, 200);
  EXPECT_EQ(h.j["running"], 0);
  EXPECT_EQ(h.j["waiting"], 0);
}

// One worker and no queue: of 16 simultaneous long generations some are refused with 503 and
// a JSON body, the rest answered; health answers throughout.
TEST(ServerBusy, FullQueueAnswers503WithJson) {
  unsetenv("MEADOW_MIND_MODEL");
  auto o = options(meadow::mind_test::train_fixture());
  o.workers = 1;
  o.queue = 0;
  Running s(o);
  std::atomic<int> served{0}, busy{0}, other{0};
  std::vector<std::thread> clients;
  for (int c = 0; c < 16; ++c)
    clients.emplace_back([&] {
      const auto t0 = std::chrono::steady_clock::now();
      const Reply r = post(s.port(), "/v1/chat/completions", chat_body("Tell a long story.", 200));
      const double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      if (r.status == 200)
        ++served;
      else if (r.status == 503 && is_error_json(r) && r.j["error"]["code"] == "server_busy")
        ++busy;
      else
        ++other, ADD_FAILURE() << r.status << " " << r.body << " after " << ms << " ms";
    });
  for (auto& t : clients) t.join();
  EXPECT_EQ(other.load(), 0);
  EXPECT_GE(served.load(), 1);
  EXPECT_GE(busy.load(), 1);
  EXPECT_EQ(call(s.port(), "GET", "/health").j["status"], "ok");
}

// Past the request timeout a generation stops: 504 with a JSON error, or in a stream an error
// event and [DONE]. (A timeout of a microsecond has always passed by the first commit.)
TEST(ServerTimeout, GenerationPastTheTimeoutIs504OrAnErrorEvent) {
  unsetenv("MEADOW_MIND_MODEL");
  auto o = options(meadow::mind_test::train_fixture());
  o.timeout_s = 1e-6;
  Running s(o);
  const Reply r = post(s.port(), "/v1/chat/completions", chat_body("Say hello.", 64));
  EXPECT_EQ(r.status, 504) << r.body;
  EXPECT_TRUE(is_error_json(r)) << r.body;
  EXPECT_EQ(r.j["error"]["code"], "timeout");
  json body = chat_body("Say hello.", 64);
  body["stream"] = true;
  const Reply st = post(s.port(), "/v1/chat/completions", body);
  ASSERT_EQ(st.status, 200) << st.body;
  bool done = false;
  const auto ev = events(st.body, done);
  EXPECT_TRUE(done);
  ASSERT_FALSE(ev.empty());
  EXPECT_EQ(ev.back()["error"]["code"], "timeout") << st.body;
  EXPECT_EQ(call(s.port(), "GET", "/health").j["status"], "ok");
}

// A causal model generates token by token: the stream has an event per token that adds text,
// and adds up to the library's answer.
TEST(ServerCausal, StreamsTokenByToken) {
  unsetenv("MEADOW_MIND_MODEL");
  const std::string path = meadow::mind_test::plain_fixture("qwen2");
  Running s(options(path));
  const json body{{"prompt", "hello world"}, {"max_tokens", 6}};
  const Reply whole = post(s.port(), "/v1/completions", body);
  ASSERT_EQ(whole.status, 200) << whole.body;
  EXPECT_EQ(whole.j["choices"][0]["text"], expected_text(path, false, "hello world", 6));
  json sb = body;
  sb["stream"] = true;
  const Reply st = post(s.port(), "/v1/completions", sb);
  bool done = false;
  std::string text;
  int pieces = 0;
  for (const auto& e : events(st.body, done)) {
    const std::string t = e["choices"][0]["text"];
    pieces += !t.empty();
    text += t;
  }
  EXPECT_TRUE(done);
  EXPECT_EQ(text, whole.j["choices"][0]["text"]);
  EXPECT_GE(pieces, 2) << st.body;
}

// The server's own share of a decision's round trip stays far below Nagle's 40 ms delayed-ACK
// stall (headers and body written separately without TCP_NODELAY added 40 ms to every answer).
// Loose bound: the test machine may be busy; the measured overhead is ~0.4 ms.
TEST_F(ServerTest, DecideRoundTripAddsLittleToTheDecision) {
  httplib::Client c("127.0.0.1", port());
  c.set_keep_alive(true);
  c.set_tcp_nodelay(true);  // the client's own writes must not stall either
  const std::string body = json{
      {"rule", "If the light is red, stop; if green, go."},
      {"options", {"stop the car", "drive on"}},
      {"state",
       "The light is red."}}.dump();
  std::vector<double> overhead;
  for (int i = 0; i < 40; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    auto r = c.Post("/v1/decide", body, "application/json");
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    ASSERT_TRUE(r && r->status == 200);
    overhead.push_back(ms - json::parse(r->body)["lat_ms"].get<double>());
  }
  std::sort(overhead.begin(), overhead.end());
  EXPECT_LT(overhead[overhead.size() / 2], 20.0);
}

// Log-softmax of one logits row at `id`, in double.
double log_softmax_at(const float* row, int64_t cols, int32_t id) {
  double mx = row[0], sum = 0;
  for (int64_t i = 0; i < cols; ++i) mx = std::max(mx, double(row[i]));
  for (int64_t i = 0; i < cols; ++i) sum += std::exp(double(row[i]) - mx);
  return double(row[id]) - mx - std::log(sum);
}

// `choice` on a diffusion model: the answer is one of the strings, the one scored highest, and
// single-token choices score as the one all-masked row reads them.
TEST_F(ServerTest, ChoiceAnswersTheMostLikelyString) {
  json body = chat_body("Is the sky blue?", 8);
  body["choice"] = {"yes", "no", "the sky is green"};
  const Reply r = post(port(), "/v1/chat/completions", body);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.j["choice_method"], "diffusion-all-masked");
  const json& scores = r.j["choice_scores"];
  ASSERT_EQ(scores.size(), 3u);
  size_t best = 0;
  for (size_t i = 0; i < scores.size(); ++i) {
    EXPECT_EQ(scores[i]["text"], body["choice"][i]);
    EXPECT_LT(scores[i]["logprob"].get<double>(), 0.0);
    if (scores[i]["logprob"].get<double>() > scores[best]["logprob"].get<double>()) best = i;
  }
  EXPECT_EQ(r.j["choices"][0]["message"]["content"], body["choice"][best]);
  EXPECT_EQ(r.j["choices"][0]["finish_reason"], "stop");
  EXPECT_EQ(r.j["usage"]["completion_tokens"], scores[best]["tokens"]);
  // The single-token choices against one pass of prompt + one mask, computed here.
  const auto m = meadow::model::Model::load(model());
  const auto tok = meadow::Tokenizer::from_gguf(m.file());
  auto ids = meadow::generate::chat_prompt_ids(tok, {{"user", "Is the sky blue?"}});
  const int64_t n = int64_t(ids.size());
  ids.push_back(m.config().mask_id);
  const auto l = m.run({{ids, {m.logits_row_for(n)}}}, {}).front();
  for (size_t i = 0; i < 2; ++i) {
    const auto t = tok.encode(body["choice"][i].get<std::string>(), false);
    if (t.size() != 1) continue;  // not single-token in this vocabulary
    EXPECT_NEAR(scores[i]["logprob"].get<double>(), log_softmax_at(l.row(0), l.cols, t[0]), 1e-6);
  }
  // Streamed: the same answer as one piece.
  body["stream"] = true;
  const Reply st = post(port(), "/v1/chat/completions", body);
  bool done = false;
  std::string text;
  for (const auto& e : events(st.body, done)) text += e["choices"][0]["delta"].value("content", "");
  EXPECT_TRUE(done);
  EXPECT_EQ(text, body["choice"][best]);
}

// `choice` on a causal model: each choice's summed log-probability is the chain rule, checked
// here against the cached token-by-token path (Model::extend), an independent computation.
TEST(ServerCausal, ChoiceScoresAreChainRuleLogProbabilities) {
  unsetenv("MEADOW_MIND_MODEL");
  const std::string path = meadow::mind_test::plain_fixture("qwen2");
  Running s(options(path));
  const std::vector<std::string> choices{"hello", "world wide", "one two three"};
  json body = chat_body("Say something.", 8);
  body["choice"] = choices;
  const Reply r = post(s.port(), "/v1/chat/completions", body);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.j["choice_method"], "causal-chain-rule");
  const auto m = meadow::model::Model::load(path);
  const auto tok = meadow::Tokenizer::from_gguf(m.file());
  const auto prompt = meadow::generate::chat_prompt_ids(tok, {{"user", "Say something."}});
  for (size_t i = 0; i < choices.size(); ++i) {
    meadow::model::PrefixCache cache;
    auto l = m.extend(cache, {prompt, {int64_t(prompt.size()) - 1}}, {});
    double want = 0;
    for (const int32_t t : tok.encode(choices[i], false)) {
      want += log_softmax_at(l.row(0), l.cols, t);
      l = m.extend(cache, {{t}, {cache.size()}}, {});
    }
    EXPECT_NEAR(r.j["choice_scores"][i]["logprob"].get<double>(), want, 1e-3) << choices[i];
  }
}

// Valid bodies with random bytes changed, cut or repeated: whatever the result, the answer is a
// 200 or a 4xx with a JSON body, never a 5xx or a dropped connection, and the server stays up.
TEST_F(ServerTest, MutatedBodiesNeverBreakTheServer) {
  const std::vector<std::pair<std::string, std::string>> seeds = {
      {"/v1/chat/completions",
       R"({"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],"max_tokens":4,"stop":["a"],"stream":true})"},
      {"/v1/completions", R"({"prompt":"Once","max_tokens":4,"temperature":0.5,"seed":3})"},
      {"/v1/decide", R"({"rule":"r","options":{"A":"x","B":"y"},"state":"s"})"},
      {"/v1/chat/completions",
       R"({"messages":[{"role":"user","content":"hi"}],"choice":["a","b"]})"},
  };
  std::mt19937 rng(20261205);
  const std::string bytes = "{}[]\":,0123456789.-eE\\ntruefalsenull \x00\xff\xc3";
  httplib::Client c("127.0.0.1", port());
  c.set_read_timeout(60, 0);
  for (int i = 0; i < 400; ++i) {
    const auto& [path, seed] = seeds[size_t(i) % seeds.size()];
    std::string body = seed;
    for (int k = 0, n = 1 + int(rng() % 4); k < n && !body.empty(); ++k) {
      const size_t at = rng() % body.size();
      switch (rng() % 4) {
        case 0:
          body[at] = bytes[rng() % bytes.size()];
          break;
        case 1:
          body.erase(at, 1 + rng() % 8);
          break;
        case 2:
          body.insert(at, 1, bytes[rng() % bytes.size()]);
          break;
        default:
          body.resize(at);
          break;
      }
    }
    auto r = c.Post(path, body, "application/json");
    ASSERT_TRUE(r) << "no reply to " << path << " " << body;
    const bool json_body =
        !json::parse(r->body, nullptr, false).is_discarded() || r->body.rfind("data: ", 0) == 0;
    EXPECT_TRUE(r->status == 200 || (r->status >= 400 && r->status < 500))
        << r->status << " for " << path << " " << body << " -> " << r->body;
    EXPECT_TRUE(json_body) << path << " " << body << " -> " << r->body;
  }
  EXPECT_EQ(call(port(), "GET", "/health").j["status"], "ok");
}

// logprobs on a causal model: one entry per generated token, each the chain-rule log-probability
// the cached token-by-token path gives too; greedy tokens are their row's most likely.
TEST(ServerCausal, LogprobsOfGeneratedTokens) {
  unsetenv("MEADOW_MIND_MODEL");
  const std::string path = meadow::mind_test::plain_fixture("qwen2");
  Running s(options(path));
  json body = chat_body("Say something.", 6);
  body["logprobs"] = true;
  body["top_logprobs"] = 3;
  const Reply r = post(s.port(), "/v1/chat/completions", body);
  ASSERT_EQ(r.status, 200) << r.body;
  const json& content = r.j["choices"][0]["logprobs"]["content"];
  ASSERT_EQ(content.size(), r.j["usage"]["completion_tokens"].get<size_t>());
  ASSERT_FALSE(content.empty());
  const auto m = meadow::model::Model::load(path);
  const auto tok = meadow::Tokenizer::from_gguf(m.file());
  const auto prompt = meadow::generate::chat_prompt_ids(tok, {{"user", "Say something."}});
  meadow::model::PrefixCache cache;
  auto l = m.extend(cache, {prompt, {int64_t(prompt.size()) - 1}}, {});
  for (const auto& t : content) {
    ASSERT_EQ(t["top_logprobs"].size(), 3u);
    EXPECT_NEAR(t["logprob"].get<double>(), t["top_logprobs"][0]["logprob"].get<double>(), 1e-4);
    EXPECT_EQ(t["token"], t["top_logprobs"][0]["token"]);
    // The token's id: the argmax of the cached row, whose log-softmax must match.
    int32_t id = 0;
    for (int64_t i = 1; i < l.cols; ++i)
      if (l.row(0)[i] > l.row(0)[id]) id = int32_t(i);
    EXPECT_NEAR(t["logprob"].get<double>(), log_softmax_at(l.row(0), l.cols, id), 1e-3);
    l = m.extend(cache, {{id}, {cache.size()}}, {});
  }
  const Reply c = post(s.port(), "/v1/completions",
                       {{"prompt", "hello world"}, {"max_tokens", 5}, {"logprobs", 2}});
  ASSERT_EQ(c.status, 200) << c.body;
  const json& lp = c.j["choices"][0]["logprobs"];
  ASSERT_EQ(lp["tokens"].size(), c.j["usage"]["completion_tokens"].get<size_t>());
  ASSERT_EQ(lp["token_logprobs"].size(), lp["tokens"].size());
  for (const auto& top : lp["top_logprobs"]) EXPECT_LE(top.size(), 2u);
  for (const auto& x : lp["token_logprobs"]) EXPECT_LE(x.get<double>(), 0.0);
}

// A client that leaves mid-stream frees its worker within a few commits: the server notices
// the failed write and stops generating, instead of finishing an answer nobody reads. Timed
// against the same answer generated whole (so a slow or sanitized build scales both).
TEST(ServerStream, ClientLeavingStopsTheGeneration) {
  unsetenv("MEADOW_MIND_MODEL");
  auto o = options(meadow::mind_test::train_fixture());
  o.workers = 1;
  Running s(o);
  for (const int n : {1, 3}) {  // n = 3: three choices generated side by side, all stopped
    json body = chat_body("Tell a very long story.", 990);  // ~31 blocks of 32 tokens
    body["n"] = n;
    const auto t_whole = std::chrono::steady_clock::now();
    ASSERT_EQ(post(s.port(), "/v1/chat/completions", body).status, 200);
    const auto whole = std::chrono::steady_clock::now() - t_whole;
    body["stream"] = true;
    httplib::Client c("127.0.0.1", s.port());
    httplib::Request req;
    req.method = "POST";
    req.path = "/v1/chat/completions";
    req.body = body.dump();
    req.set_header("Content-Type", "application/json");
    int received = 0;
    req.content_receiver = [&](const char*, size_t, uint64_t, uint64_t) {
      return ++received < 2;  // read the role chunk and the first block, then hang up
    };
    httplib::Response res;
    httplib::Error err;
    const auto t0 = std::chrono::steady_clock::now();
    c.send(req, res, err);
    c.stop();
    int running = 1;
    while (running != 0 && std::chrono::steady_clock::now() - t0 < 2 * whole) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      running = call(s.port(), "GET", "/health").j["running"].get<int>();
    }
    const auto freed = std::chrono::steady_clock::now() - t0;
    EXPECT_EQ(running, 0);
    EXPECT_LT(freed, whole / 2) << "the worker went on generating for a client that left ("
                                << std::chrono::duration<double>(freed).count() << " s of "
                                << std::chrono::duration<double>(whole).count() << " s), n " << n;
  }
}

// n > 1: choice i is the answer a single request with seed + i gives; usage counts every
// choice's tokens.
TEST_F(ServerTest, NChoicesEachWithItsOwnSeed) {
  for (const bool chat : {true, false}) {
    json body = chat ? chat_body("Say hello.", 10) : json{{"prompt", "Hello"}, {"max_tokens", 10}};
    body["temperature"] = 1.0;
    body["seed"] = 7;
    body["block_size"] = 4;
    body["n"] = 3;
    const char* path = chat ? "/v1/chat/completions" : "/v1/completions";
    const Reply r = post(port(), path, body);
    ASSERT_EQ(r.status, 200) << r.body;
    ASSERT_EQ(r.j["choices"].size(), 3u);
    int tokens = 0;
    std::vector<json> texts;
    for (int i = 0; i < 3; ++i) {
      json one = body;
      one["n"] = 1;
      one["seed"] = 7 + i;
      const Reply s = post(port(), path, one);
      ASSERT_EQ(s.status, 200) << s.body;
      json want = s.j["choices"][0];
      want["index"] = i;
      EXPECT_EQ(r.j["choices"][i], want) << i;
      tokens += s.j["usage"]["completion_tokens"].get<int>();
      texts.push_back(chat ? want["message"]["content"] : want["text"]);
    }
    EXPECT_EQ(r.j["usage"]["completion_tokens"].get<int>(), tokens);
    EXPECT_TRUE(texts[0] != texts[1] || texts[1] != texts[2]) << "three seeds, one answer";
  }
}

// A stream of n > 1 choices: every chunk names its choice by `index`; each choice's chunks add
// up to that choice of the whole answer and end with its own finish_reason.
TEST_F(ServerTest, StreamOfNChoicesInterleavesByIndex) {
  for (const bool chat : {true, false}) {
    json body =
        chat ? chat_body("Tell a story.", 24) : json{{"prompt", "A story:"}, {"max_tokens", 24}};
    body["temperature"] = 1.0;
    body["seed"] = 3;
    body["block_size"] = 4;
    body["n"] = 3;
    const auto [whole, ev, done] =
        whole_and_stream(port(), chat ? "/v1/chat/completions" : "/v1/completions", body);
    ASSERT_EQ(whole.status, 200);
    EXPECT_TRUE(done);
    std::vector<std::string> text(3);
    std::vector<json> finish(3);
    std::vector<int> roles(3, 0);
    for (const auto& e : ev) {
      if (e["choices"].empty()) continue;  // usage
      ASSERT_EQ(e["choices"].size(), 1u);
      const json& c = e["choices"][0];
      const int i = c["index"];
      ASSERT_TRUE(i >= 0 && i < 3) << e.dump();
      EXPECT_TRUE(finish[size_t(i)].is_null()) << "a chunk after choice " << i << " finished";
      if (chat && c["delta"].contains("role")) ++roles[size_t(i)];
      text[size_t(i)] += chat ? c["delta"].value("content", "") : c["text"].get<std::string>();
      if (!c["finish_reason"].is_null()) finish[size_t(i)] = c["finish_reason"];
    }
    for (size_t i = 0; i < 3; ++i) {
      const json& w = whole.j["choices"][i];
      EXPECT_EQ(text[i], chat ? w["message"]["content"] : w["text"]) << i;
      EXPECT_EQ(finish[i], w["finish_reason"]) << i;
      if (chat) {
        EXPECT_EQ(roles[i], 1) << i;
      }
    }
    EXPECT_EQ(ev.back()["usage"], whole.j["usage"]);
  }
}

json tools_body(const std::string& text) {
  json body = chat_body(text, 8);
  body["tools"] = json::array(
      {{{"type", "function"},
        {"function",
         {{"name", "read_file"},
          {"description", "read a file and show its contents"},
          {"parameters", {{"type", "object"}, {"properties", {{"path", {{"type", "string"}}}}}}}}}},
       {{"type", "function"},
        {"function",
         {{"name", "search_code"},
          {"description", "search the code for a text"},
          {"parameters",
           {{"type", "object"},
            {"properties",
             {{"query", {{"type", "string"}}}, {"path", {{"type", "string"}}}}}}}}}}});
  return body;
}

// The message of a tool call: no content, one call whose arguments parse as a JSON object with
// exactly the function's parameters as string values.
void expect_tool_call(const json& choice, const std::string& name,
                      const std::vector<std::string>& params) {
  EXPECT_EQ(choice["finish_reason"], "tool_calls");
  const json& m = choice["message"];
  EXPECT_EQ(m["role"], "assistant");
  EXPECT_TRUE(m["content"].is_null());
  ASSERT_EQ(m["tool_calls"].size(), 1u) << m.dump();
  const json& call = m["tool_calls"][0];
  EXPECT_EQ(call["type"], "function");
  EXPECT_TRUE(call["id"].is_string());
  EXPECT_EQ(call["function"]["name"], name);
  ASSERT_TRUE(call["function"]["arguments"].is_string());
  const json args = json::parse(call["function"]["arguments"].get<std::string>(), nullptr, false);
  ASSERT_TRUE(args.is_object()) << call.dump();
  ASSERT_EQ(args.size(), params.size()) << args.dump();
  for (const auto& p : params) EXPECT_TRUE(args[p].is_string()) << p << " in " << args.dump();
}

// tools + tool_choice naming a function: a tool_calls message whose arguments are infilled
// into the fixed scaffold, so they parse whatever the model writes; "auto" lets the model pick
// one of the tools; "none" answers in text; n choices are n calls; streamed as deltas.
TEST_F(ServerTest, ToolsAnswerWithAToolCall) {
  json body = tools_body("Show me the file notes.txt.");
  body["tool_choice"] = {{"type", "function"}, {"function", {{"name", "search_code"}}}};
  const Reply r = post(port(), "/v1/chat/completions", body);
  ASSERT_EQ(r.status, 200) << r.body;
  ASSERT_EQ(r.j["choices"].size(), 1u);
  expect_tool_call(r.j["choices"][0], "search_code", {"query", "path"});
  EXPECT_GT(r.j["usage"]["completion_tokens"].get<int>(), 0);

  body["tool_choice"] = "auto";
  body["n"] = 2;
  body["temperature"] = 1.0;
  body["tool_value_tokens"] = 4;
  const Reply a = post(port(), "/v1/chat/completions", body);
  ASSERT_EQ(a.status, 200) << a.body;
  ASSERT_EQ(a.j["choices"].size(), 2u);
  for (int i = 0; i < 2; ++i) {
    const json& c = a.j["choices"][i];
    EXPECT_EQ(c["index"], i);
    const std::string name = c["message"]["tool_calls"][0]["function"]["name"];
    expect_tool_call(c, name,
                     name == "read_file" ? std::vector<std::string>{"path"}
                                         : std::vector<std::string>{"query", "path"});
  }

  body["stream"] = true;
  body["n"] = 1;
  body["tool_choice"] = {{"type", "function"}, {"function", {{"name", "read_file"}}}};
  const Reply st = post(port(), "/v1/chat/completions", body);
  ASSERT_EQ(st.status, 200) << st.body;
  bool done = false;
  const auto ev = events(st.body, done);
  EXPECT_TRUE(done);
  ASSERT_EQ(ev.size(), 3u) << st.body;
  EXPECT_EQ(ev[0]["choices"][0]["delta"]["role"], "assistant");
  const json& call = ev[1]["choices"][0]["delta"]["tool_calls"][0];
  EXPECT_EQ(call["index"], 0);
  EXPECT_EQ(call["function"]["name"], "read_file");
  EXPECT_TRUE(json::parse(call["function"]["arguments"].get<std::string>()).contains("path"));
  EXPECT_EQ(ev[2]["choices"][0]["finish_reason"], "tool_calls");

  json none = tools_body("Say hello.");
  none["tool_choice"] = "none";
  const Reply t = post(port(), "/v1/chat/completions", none);
  ASSERT_EQ(t.status, 200) << t.body;
  EXPECT_EQ(t.j["choices"][0]["message"]["content"], expected_text(model(), true, "Say hello.", 8));
  EXPECT_NE(t.j["choices"][0]["finish_reason"], "tool_calls");
}

// Streamed logprobs (causal model): each chunk carries its tokens' entries; together they are
// the whole answer's, token for token. And n > 1 with logprobs, each choice its own.
TEST(ServerCausal, StreamedLogprobsAddUpToTheWholeAnswers) {
  unsetenv("MEADOW_MIND_MODEL");
  const std::string path = meadow::mind_test::plain_fixture("qwen2");
  Running s(options(path));
  json chat = chat_body("Say something.", 6);
  chat["logprobs"] = true;
  chat["top_logprobs"] = 2;
  chat["n"] = 2;
  chat["temperature"] = 1.0;
  chat["seed"] = 11;
  json comp{{"prompt", "hello world"}, {"max_tokens", 6}, {"logprobs", 2}};
  for (const json& body : {chat, comp}) {
    const bool is_chat = body.contains("messages");
    const char* route = is_chat ? "/v1/chat/completions" : "/v1/completions";
    const Reply whole = post(s.port(), route, body);
    ASSERT_EQ(whole.status, 200) << whole.body;
    json sb = body;
    sb["stream"] = true;
    const Reply st = post(s.port(), route, sb);
    ASSERT_EQ(st.status, 200) << st.body;
    bool done = false;
    const size_t n = whole.j["choices"].size();
    std::vector<json> got(n, json::array());
    std::vector<json> offsets(n, json::array());
    int with_logprobs = 0;
    for (const auto& e : events(st.body, done)) {
      const json& c = e["choices"][0];
      const size_t i = c["index"];
      if (c["logprobs"].is_null()) continue;
      ++with_logprobs;
      if (is_chat) {
        for (const auto& t : c["logprobs"]["content"]) got[i].push_back(t);
      } else {
        const json& lp = c["logprobs"];
        ASSERT_EQ(lp["tokens"].size(), lp["token_logprobs"].size());
        for (size_t k = 0; k < lp["tokens"].size(); ++k) {
          got[i].push_back({lp["tokens"][k], lp["token_logprobs"][k], lp["top_logprobs"][k]});
          offsets[i].push_back(lp["text_offset"][k]);
        }
      }
    }
    EXPECT_TRUE(done);
    EXPECT_GE(with_logprobs, 2) << "token by token: more than one chunk carries logprobs";
    for (size_t i = 0; i < n; ++i) {
      const json& lp = whole.j["choices"][i]["logprobs"];
      if (is_chat) {
        EXPECT_EQ(got[i], lp["content"]) << i;
      } else {
        json want = json::array();
        for (size_t k = 0; k < lp["tokens"].size(); ++k)
          want.push_back({lp["tokens"][k], lp["token_logprobs"][k], lp["top_logprobs"][k]});
        EXPECT_EQ(got[i], want);
        EXPECT_EQ(offsets[i], lp["text_offset"]);
      }
    }
  }
  // Tools need a diffusion model: a causal one refuses them before generating.
  json t = tools_body("Show me notes.txt.");
  t["tool_choice"] = {{"type", "function"}, {"function", {{"name", "read_file"}}}};
  const Reply r = post(s.port(), "/v1/chat/completions", t);
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_TRUE(is_error_json(r)) << r.body;
}

}  // namespace
