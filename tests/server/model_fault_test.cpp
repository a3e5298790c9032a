// A broken model (NaN weights, so NaN logits) is the server's fault, not the client's. Chat
// answered 200 with NUL characters, `choice` picked an answer with null logprobs, and
// /v1/decide blamed the client with 400. Now each is a 500 JSON error with code "model_error"
// naming the model file (in a stream: an error event), and the server stays healthy.
#include <gtest/gtest.h>
#include <httplib.h>

#include <cstdlib>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "meadow/runtime/server.hpp"

#include "../decision/mind_fixture.hpp"
#include "server_client.hpp"

namespace {

using namespace meadow::server_test;

meadow::server::ServerOptions broken_options(const std::string& model) {
  auto o = meadow::server_test::options(model);
  o.workers = 2;
  o.queue = 8;
  o.model_id = "broken";
  o.default_max_tokens = 8;
  return o;
}

// {"error": {"code": "model_error", "type": "server_error", "message": "... PATH ..."}}.
void expect_model_error(const json& e, const std::string& path, const std::string& where) {
  ASSERT_TRUE(e.is_object() && e.contains("error")) << where << ": " << e;
  EXPECT_EQ(e["error"]["code"], "model_error") << where << ": " << e;
  EXPECT_EQ(e["error"]["type"], "server_error") << where << ": " << e;
  const std::string msg = e["error"]["message"].get<std::string>();
  EXPECT_NE(msg.find("non-finite logits"), std::string::npos) << where << ": " << msg;
  EXPECT_NE(msg.find(path), std::string::npos) << where << ": " << msg;
}

void expect_500(const Reply& r, const std::string& path, const std::string& where) {
  EXPECT_EQ(r.status, 500) << where << ": " << r.body;
  expect_model_error(r.j, path, where);
}

json chat(const std::string& text) {
  return {{"messages", {{{"role", "user"}, {"content", text}}}}, {"max_tokens", 4}};
}

TEST(ModelFault, NanModelAnswers500ModelErrorEverywhere) {
  unsetenv("MEADOW_MIND_MODEL");
  for (const std::string arch : {"dream", "qwen2"}) {
    SCOPED_TRACE(arch);
    const std::string path = meadow::mind_test::make_fixture(
        "nan-" + arch + "-server",
        "--arch " + arch + " --vocab 512 --nan-tensor output_norm.weight");
    Running s(broken_options(path));
    expect_500(post(s.port(), "/v1/chat/completions", chat("Say hello.")), path, "chat");
    expect_500(post(s.port(), "/v1/completions", {{"prompt", "hello"}, {"max_tokens", 4}}), path,
               "completions");
    json choice = chat("Is the sky blue?");
    choice["choice"] = {"yes", "no", "the sky is green"};
    expect_500(post(s.port(), "/v1/chat/completions", choice), path, "choice");
    expect_500(post(s.port(), "/v1/decide",
                    {{"rule", "If it rains, choose B. Otherwise choose A."},
                     {"options", {"walk", "take the bus"}},
                     {"state", "It rains."}}),
               path, "decide");
    // Streamed, the error is the last event before [DONE].
    for (int n : {1, 2}) {
      json st = chat("Say hello.");
      st["stream"] = true;
      st["n"] = n;
      const Reply r = post(s.port(), "/v1/chat/completions", st);
      ASSERT_EQ(r.status, 200) << r.body;
      const size_t at = r.body.find("\"model_error\"");
      ASSERT_NE(at, std::string::npos) << r.body;
      const size_t start = r.body.rfind("data: ", at) + 6;
      expect_model_error(json::parse(r.body.substr(start, r.body.find("\n\n", at) - start)), path,
                         "stream n=" + std::to_string(n));
      EXPECT_EQ(r.body.find(std::string(1, '\0')), std::string::npos);
      EXPECT_EQ(r.body.find("\\u0000"), std::string::npos) << r.body;
    }
    const Reply h = call(s.port(), "GET", "/health");
    EXPECT_EQ(h.status, 200);
    EXPECT_EQ(h.j["status"], "ok") << h.body;
  }
}

}  // namespace
