// Trace files: one JSON object per decision, one per line.
#pragma once

#include <cstdio>
#include <memory>
#include <string>

#include "meadow/runner.hpp"
#include "util/atomic_file.hpp"

namespace meadow {

// {"step", "status", "letter", "probs": {letter: p}, "action", "reward", "lat_ms"} per line.
// Lines go to a temporary file beside the path, renamed onto it by close(); a writer destroyed
// unclosed (a failed episode) leaves the path as it was.
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
  std::unique_ptr<util::AtomicFile> file_;
  std::FILE* f_ = nullptr;  // file_'s stream
};

}  // namespace meadow
