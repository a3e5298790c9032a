// What every bench prints or measures the same way: the machine's name, process CPU time,
// peak RSS, and best-of-N timing (wall and CPU/threads, since these machines are shared).
#pragma once

#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace meadow::bench {

inline std::string machine_name() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown CPU";
}

inline double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

inline double peak_rss_bytes() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return double(ru.ru_maxrss) * 1024.0;
}

// Resident memory now, from /proc/self/smaps, in three parts: the pages of one mapped file
// (the model), anonymous memory (heap, stacks, buffers) and every other file mapping (the
// program and its libraries' code, which the page cache shares between processes).
struct Resident {
  double file = 0, anon = 0, other = 0;  // bytes
};

inline Resident resident_bytes(const std::string& mapped_path) {
  std::error_code ec;
  const std::string want = std::filesystem::weakly_canonical(mapped_path, ec).string();
  Resident r;
  std::ifstream in("/proc/self/smaps");
  double* part = nullptr;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    if (std::isxdigit(static_cast<unsigned char>(line[0])) && line.find('-') < line.find(' ')) {
      // "start-end perms offset dev inode [path]"
      std::istringstream f(line);
      std::string range, perms, offset, dev, inode, path;
      f >> range >> perms >> offset >> dev >> inode;
      std::getline(f >> std::ws, path);
      part = path == want ? &r.file : (path.empty() || path[0] == '[') ? &r.anon : &r.other;
    } else if (part && line.rfind("Rss:", 0) == 0) {
      *part += 1024.0 * std::stod(line.substr(4));
    }
  }
  return r;
}

// Best of `reps` runs: wall-clock seconds, and CPU seconds of the whole process divided by
// the thread count (what the run would take with its cores to itself: on a shared machine
// wall time alone partly measures the neighbours).
struct Timing {
  double wall = 1e30, cpu = 1e30;
};

template <class F>
Timing best_of(int reps, int threads, F&& f) {
  Timing best;
  for (int r = 0; r < reps; ++r) {
    const double c0 = process_cpu_seconds();
    const auto t0 = std::chrono::steady_clock::now();
    f();
    const auto t1 = std::chrono::steady_clock::now();
    best.wall = std::min(best.wall, std::chrono::duration<double>(t1 - t0).count());
    best.cpu = std::min(best.cpu, (process_cpu_seconds() - c0) / threads);
  }
  return best;
}

}  // namespace meadow::bench
