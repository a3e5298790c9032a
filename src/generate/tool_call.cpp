// Tool calls from fixed scaffolds (meadow/tool_call.hpp).
#include "meadow/runtime/tool_call.hpp"

#include <chrono>

#include <nlohmann/json.hpp>

#include "meadow/error.hpp"
#include "meadow/runtime/decider.hpp"
#include "util/read_file.hpp"

namespace meadow::generate {
namespace {

using nlohmann::json;

Tool tool_from_json(const json& j, const std::string& where) {
  const json& f = (j.contains("function") && j["function"].is_object()) ? j["function"] : j;
  if (!f.contains("name") || !f["name"].is_string() || f["name"].get<std::string>().empty())
    throw Error(where + ": a tool needs a non-empty \"name\"");
  Tool t;
  t.name = f["name"].get<std::string>();
  if (f.contains("description")) {
    if (!f["description"].is_string()) throw Error(where + ": \"description\" must be a string");
    t.description = f["description"].get<std::string>();
  }
  if (f.contains("arguments")) {
    if (!f["arguments"].is_array()) throw Error(where + ": \"arguments\" must be a list of names");
    for (const json& a : f["arguments"]) {
      if (!a.is_string()) throw Error(where + ": argument names must be strings");
      t.arguments.push_back(a.get<std::string>());
    }
  } else if (f.contains("parameters")) {
    const json& p = f["parameters"];
    if (!p.is_object() || (p.contains("properties") && !p["properties"].is_object()))
      throw Error(where + ": \"parameters\" must be an object with \"properties\"");
    if (p.contains("properties"))
      for (const auto& [name, _] : p["properties"].items()) t.arguments.push_back(name);
  }
  if (t.arguments.empty()) throw Error(where + ": tool " + t.name + " has no arguments");
  return t;
}

}  // namespace

const std::vector<Tool>& builtin_tools() {
  static const std::vector<Tool> tools = {
      {"read_file", "read a file and show its contents", {"path"}},
      {"write_file", "write text into a file", {"path", "content"}},
      {"run_bash", "run a shell command", {"command"}},
      {"search_code", "search the code for a text", {"query", "path"}},
      {"git_commit", "commit the staged changes with a message", {"message"}},
  };
  return tools;
}

std::vector<Tool> load_tools(const std::string& path) {
  // Bounded and type-checked: /dev/zero, a FIFO or a folder is an error, not all the memory.
  json j = json::parse(util::read_file(path), nullptr, false);
  if (j.is_discarded()) throw Error(path + ": not valid JSON");
  if (j.is_object()) j = json::array({j});
  if (!j.is_array() || j.empty()) throw Error(path + ": expected a list of tools");
  std::vector<Tool> out;
  for (size_t i = 0; i < j.size(); ++i)
    out.push_back(tool_from_json(j[i], path + ": tool " + std::to_string(i)));
  return out;
}

std::string clean_value(std::string raw) {
  const auto first = raw.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return {};
  const auto last = raw.find_last_not_of(" \t\r\n");
  return raw.substr(first, last - first + 1);
}

std::string tool_call_json(const std::string& name,
                           const std::vector<std::pair<std::string, std::string>>& arguments) {
  nlohmann::ordered_json args = nlohmann::ordered_json::object();
  for (const auto& [k, v] : arguments) args[k] = v;
  const nlohmann::ordered_json call{{"name", name}, {"arguments", args}};
  return call.dump(-1, ' ', false, json::error_handler_t::replace);
}

ToolCall tool_call(const model::Model& model, const Tokenizer& tok, const std::string& request,
                   const std::vector<Tool>& tools, const std::string& tool_name, int value_tokens,
                   const GenerateOptions& opts) {
  const auto t0 = std::chrono::steady_clock::now();
  if (tools.empty()) throw Error("tool-call: no tools");
  if (tools.size() > 26) throw Error("tool-call: at most 26 tools");
  if (value_tokens < 1) throw Error("tool-call: value_tokens must be at least 1");
  if (model.config().causal)
    throw Error(
        "tool-call infills argument values and needs a diffusion model; this one is causal");
  ToolCall out;
  const Tool* tool = nullptr;
  if (!tool_name.empty()) {
    for (const Tool& t : tools)
      if (t.name == tool_name) tool = &t;
    if (!tool) throw Error("tool-call: unknown tool \"" + tool_name + "\"");
  } else {
    std::vector<decision::Choice> choices;
    for (size_t i = 0; i < tools.size(); ++i)
      choices.push_back({char('A' + i), tools[i].name + ": " + tools[i].description});
    DecideOptions d;
    d.threads = opts.threads;
    const decision::Decider decider(model, tok, "Choose the tool that does what the request asks.",
                                    choices, d);
    const Decision pick = decider.decide(request);
    tool = &tools[size_t(pick.letter - 'A')];
    out.chosen_by_model = true;
  }
  out.name = tool->name;

  // The chat prompt, then the scaffold as the assistant's answer with a gap per value.
  std::vector<int32_t> seq =
      chat_prompt_ids(tok, {{"system", "Answer with one JSON tool call."}, {"user", request}});
  std::vector<std::vector<int64_t>> gaps(tool->arguments.size());
  std::string text = "{\"name\": " + json(tool->name).dump() + ", \"arguments\": {";
  for (size_t a = 0; a < tool->arguments.size(); ++a) {
    text += (a ? "\", " : "") + json(tool->arguments[a]).dump() + ": \"";
    const auto ids = tok.encode(text, false);
    seq.insert(seq.end(), ids.begin(), ids.end());
    text.clear();
    for (int i = 0; i < value_tokens; ++i) {
      gaps[a].push_back(int64_t(seq.size()));
      seq.push_back(0);
    }
  }
  const auto tail = tok.encode("\"}}", false);
  seq.insert(seq.end(), tail.begin(), tail.end());
  if (const auto eot = tok.eot_id() ? tok.eot_id() : tok.find("<|im_end|>")) seq.push_back(*eot);

  std::vector<int64_t> all;
  for (const auto& g : gaps) all.insert(all.end(), g.begin(), g.end());
  fill_gaps(model, tok, seq, all, opts);
  for (size_t a = 0; a < tool->arguments.size(); ++a) {
    std::vector<int32_t> ids;
    for (int64_t p : gaps[a]) ids.push_back(seq[size_t(p)]);
    out.arguments.push_back({tool->arguments[a], clean_value(tok.decode(ids, true))});
  }
  out.json = tool_call_json(out.name, out.arguments);
  out.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace meadow::generate
