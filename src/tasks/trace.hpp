// Trace files: one JSON object per decision, one per line.
#pragma once

#include <cstdio>
#include <string>

#include "meadow/task.hpp"

namespace meadow {

// {"step", "status", "letter", "probs": {letter: p}, "action", "reward", "lat_ms"} per line.
class TraceWriter {
 public:
  explicit TraceWriter(const std::string& path);  // throws meadow::Error naming the file
  ~TraceWriter();
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;
  void write(const EpisodeStep& step);
  void close();  // throws meadow::Error if the file could not be written

 private:
  std::string path_;
  std::FILE* f_ = nullptr;
};

}  // namespace meadow
