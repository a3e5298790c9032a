// What every bench prints or measures the same way: the machine's name, process CPU time,
// peak RSS, and best-of-N timing (wall and CPU/threads, since these machines are shared).
#pragma once

#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <fstream>
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
