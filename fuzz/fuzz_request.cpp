// The generation request as the Python package (and the CLI) hands it to the library: message
// roles, stop strings, temperature, top_p, threshold, block size and threads, checked by
// chat_role, check_stop and check_options (meadow/runtime/generate.hpp). The bytes build one
// request; the same request is also written as the JSON body a client would send to the server. On
// any bytes:
//   the library's checks throw nothing but meadow::Error, with a one-line message;
//   an accepted request is in range (roles canonical, stops 1..16 non-empty strings,
//     temperature in [0, 2], top_p in (0, 1], threshold in [0, 1], threads in 1..256);
//   the library and the server (parse_text_request) accept and refuse the same requests:
//     one validation, not two that drift.
#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "meadow/error.hpp"
#include "meadow/runtime/generate.hpp"
#include "meadow/runtime/model.hpp"
#include "server/json_errors.hpp"
#include "server/request.hpp"

namespace {

using meadow::generate::GenerateOptions;
using meadow::server::Json;

const char* const kRoles[] = {"system", "user", "assistant", "tool",  "developer",
                              "wizard", "",     "User",      "user ", "function"};

double pick_number(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange<int>(0, 5)) {
    case 0:
      return in.ConsumeFloatingPointInRange<double>(-1, 3);
    case 1:
      return double(in.ConsumeIntegralInRange<int>(-2, 3));
    case 2:
      return in.ConsumeBool() ? 0.0 : 1.0;
    case 3:
      return 2.0 + in.ConsumeFloatingPointInRange<double>(0, 1e-9);
    case 4:
      return in.ConsumeFloatingPoint<double>();
    default:
      return in.ConsumeProbability<double>();
  }
}

void one_line(const std::string& s) {
  if (s.find('\n') != std::string::npos) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  std::vector<meadow::ChatMessage> messages;
  const int n_messages = in.ConsumeIntegralInRange<int>(1, 4);
  for (int i = 0; i < n_messages; ++i) {
    const std::string role =
        in.ConsumeBool() ? kRoles[in.ConsumeIntegralInRange<size_t>(0, std::size(kRoles) - 1)]
                         : in.ConsumeRandomLengthString(12);
    messages.push_back({role, in.ConsumeRandomLengthString(32)});
  }
  GenerateOptions o;
  o.max_new_tokens = 8;
  const int n_stops = in.ConsumeIntegralInRange<int>(0, 18);
  for (int i = 0; i < n_stops; ++i) o.stop.push_back(in.ConsumeRandomLengthString(8));
  const bool with_temperature = in.ConsumeBool(), with_top_p = in.ConsumeBool(),
             with_threshold = in.ConsumeBool();
  if (with_temperature) o.temperature = pick_number(in);
  if (with_top_p) o.top_p = pick_number(in);
  if (with_threshold) o.threshold = pick_number(in);
  const bool json_numbers_ok =
      std::isfinite(o.temperature) && std::isfinite(o.top_p) && std::isfinite(o.threshold);

  // The library's checks, as the Python package's generate() meets them.
  bool lib_ok = true;
  try {
    for (auto& m : messages) m.role = meadow::generate::chat_role(m.role);
    meadow::generate::check_options(o);
  } catch (const meadow::Error& e) {
    lib_ok = false;
    one_line(e.what());
  }
  if (lib_ok) {
    for (const auto& m : messages)
      if (m.role != "system" && m.role != "user" && m.role != "assistant" && m.role != "tool")
        std::abort();
    if (o.stop.size() > 16) std::abort();
    for (const auto& s : o.stop)
      if (s.empty()) std::abort();
    if (!(o.temperature >= 0 && o.temperature <= 2) || !(o.top_p > 0 && o.top_p <= 1) ||
        !(o.threshold >= 0 && o.threshold <= 1))
      std::abort();
  }
  // Threads: the Python package's count reaches the same check.
  GenerateOptions t;
  t.threads = in.ConsumeIntegralInRange<int>(-2, 100000);
  bool threads_ok = true;
  try {
    meadow::generate::check_options(t);
  } catch (const meadow::Error& e) {
    threads_ok = false;
    one_line(e.what());
  }
  if (threads_ok != (t.threads >= 1 && t.threads <= meadow::model::kMaxThreads)) std::abort();

  // The same request as a server body (JSON has no NaN or infinity: those are not compared).
  if (!json_numbers_ok) return 0;
  Json body = Json::object();
  body["messages"] = Json::array();
  // The roles as the client wrote them: rebuild from the input's original roles.
  FuzzedDataProvider again(data, size);
  for (int i = 0, n = again.ConsumeIntegralInRange<int>(1, 4); i < n; ++i) {
    const std::string role =
        again.ConsumeBool() ? kRoles[again.ConsumeIntegralInRange<size_t>(0, std::size(kRoles) - 1)]
                            : again.ConsumeRandomLengthString(12);
    body["messages"].push_back({{"role", role}, {"content", again.ConsumeRandomLengthString(32)}});
  }
  body["stop"] = o.stop;
  if (with_temperature) body["temperature"] = o.temperature;
  if (with_top_p) body["top_p"] = o.top_p;
  if (with_threshold) body["threshold"] = o.threshold;
  body["max_tokens"] = 8;
  bool server_ok = true;
  try {
    meadow::server::parse_text_request(
        Json::parse(body.dump(-1, ' ', false, Json::error_handler_t::replace)), true, 256);
  } catch (const meadow::server::HttpError& e) {
    server_ok = false;
    if (e.status != 400) std::abort();
  } catch (const Json::exception&) {
    return 0;  // a string that is not UTF-8 was replaced: not the same request
  }
  if (server_ok != lib_ok) std::abort();
  return 0;
}
