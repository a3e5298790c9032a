#include "tasks/trace.hpp"

#include <nlohmann/json.hpp>

#include "meadow/error.hpp"

namespace meadow {

TraceWriter::TraceWriter(const std::string& path) : path_(path) {
  try {
    file_ = std::make_unique<util::AtomicFile>(path);
    f_ = file_->stream();
  } catch (const Error& e) {
    throw Error(std::string("trace: ") + e.what());
  }
}

// Not closed: the temporary file goes with file_, and the path keeps what it held.
TraceWriter::~TraceWriter() = default;

void TraceWriter::write(const EpisodeStep& s) {
  nlohmann::ordered_json j;
  j["step"] = s.step;
  const DecisionInfo& d = s.decision;
  j["status"] = d.status;
  j["letter"] = std::string(1, d.letter);
  nlohmann::ordered_json probs = nlohmann::ordered_json::object();
  for (const auto& [letter, p] : d.probs) probs[std::string(1, letter)] = p;
  j["probs"] = probs;
  j["action"] = s.action;
  j["reward"] = s.reward;
  j["lat_ms"] = d.lat_ms;
  // Invalid UTF-8 in a status sentence is replaced rather than thrown mid-episode.
  const std::string line = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  if (f_ && std::fwrite(line.data(), 1, line.size(), f_) != line.size())
    throw Error("cannot write trace file " + path_);
}

void TraceWriter::close() {
  if (!file_) return;
  const bool bad = std::ferror(f_) != 0;
  f_ = nullptr;
  if (bad) {
    file_.reset();
    throw Error("cannot write trace file " + path_);
  }
  try {
    file_->commit();
  } catch (const Error& e) {
    file_.reset();
    throw Error(std::string("trace: ") + e.what());
  }
  file_.reset();
}

}  // namespace meadow
