// TraceWriter (meadow/runner.hpp): JSON lines through an AtomicFile.
#include <nlohmann/json.hpp>

#include "meadow/error.hpp"
#include "meadow/runner.hpp"
#include "util/atomic_file.hpp"

namespace meadow {

struct TraceWriter::File {
  util::AtomicFile file;
  std::FILE* f;  // file's stream
  explicit File(const std::string& path) : file(path), f(file.stream()) {}
};

TraceWriter::TraceWriter(const std::string& path) : path_(path) {
  try {
    file_ = std::make_unique<File>(path);
  } catch (const Error& e) {
    throw Error(std::string("trace: ") + e.what());
  }
}

// Not closed: the temporary file goes with file_, and the path keeps what it held.
TraceWriter::~TraceWriter() = default;

void TraceWriter::write(const EpisodeStep& s, const std::string& act) {
  if (!file_) throw Error("trace: " + path_ + " is already closed");
  nlohmann::ordered_json j;
  j["step"] = s.step;
  const Decision& d = s.decision;
  j["status"] = d.status;
  j["letter"] = std::string(1, d.letter);
  nlohmann::ordered_json probs = nlohmann::ordered_json::object();
  for (const auto& [letter, p] : d.probs) probs[std::string(1, letter)] = p;
  j["probs"] = probs;
  j["action"] = s.action;
  j["act"] = act;
  j["reward"] = s.reward;
  j["lat_ms"] = d.lat_ms;
  if (!d.conditions.empty()) {  // a meadow-reader's: why the letter was chosen
    nlohmann::ordered_json conditions = nlohmann::ordered_json::array();
    for (const auto& c : d.conditions)
      conditions.push_back({{"letter", std::string(1, c.letter)}, {"text", c.text}, {"p", c.p}});
    j["conditions"] = std::move(conditions);
  }
  // Invalid UTF-8 in a status sentence is replaced rather than thrown mid-episode.
  const std::string line = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  if (std::fwrite(line.data(), 1, line.size(), file_->f) != line.size())
    throw Error("cannot write trace file " + path_);
}

void TraceWriter::discard() {
  file_.reset();
}

void TraceWriter::close() {
  if (!file_) return;
  const bool bad = std::ferror(file_->f) != 0;
  if (bad) {
    file_.reset();
    throw Error("cannot write trace file " + path_);
  }
  try {
    file_->file.commit();
  } catch (const Error& e) {
    file_.reset();
    throw Error(std::string("trace: ") + e.what());
  }
  file_.reset();
}

}  // namespace meadow
