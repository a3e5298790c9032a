#include "tasks/trace.hpp"

#include <nlohmann/json.hpp>

#include "meadow/error.hpp"

namespace meadow {

TraceWriter::TraceWriter(const std::string& path) : path_(path), f_(std::fopen(path.c_str(), "w")) {
  if (!f_) throw Error("cannot write trace file " + path);
}

TraceWriter::~TraceWriter() {
  if (f_) std::fclose(f_);
}

void TraceWriter::write(const EpisodeStep& s) {
  nlohmann::ordered_json j;
  j["step"] = s.step;
  j["status"] = s.status;
  j["letter"] = std::string(1, s.letter);
  nlohmann::ordered_json probs = nlohmann::ordered_json::object();
  for (const auto& [letter, p] : s.probs) probs[std::string(1, letter)] = p;
  j["probs"] = probs;
  j["action"] = s.action;
  j["reward"] = s.reward;
  j["lat_ms"] = s.lat_ms;
  const std::string line = j.dump() + "\n";
  if (f_ && std::fwrite(line.data(), 1, line.size(), f_) != line.size())
    throw Error("cannot write trace file " + path_);
}

void TraceWriter::close() {
  if (!f_) return;
  const bool bad = std::ferror(f_) != 0;
  const bool closed = std::fclose(f_) == 0;
  f_ = nullptr;
  if (bad || !closed) throw Error("cannot write trace file " + path_);
}

}  // namespace meadow
