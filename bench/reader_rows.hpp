// bench_decide's rows for a meadow-reader file (meadow/runtime/reader.hpp): p50 / p95 wall ms (and
// CPU ms per thread) of reading the bench table's rule (once per task: the passes over the rule and
// every literal) and of one decision on it (the situation encoded once, the late judge per
// literal, combined), over the table's 175 situations. One warm Workspace throughout.
#pragma once

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "bench_util.hpp"
#include "decide_table.hpp"
#include "encoder_rows.hpp"
#include "meadow/runtime/reader.hpp"

namespace meadow::bench {

inline int reader_rows(const std::string& path, int threads, int n) {
  const reader::Reader rd = reader::Reader::open(path);
  const auto& c = rd.encoder().config();
  const Task task = table();
  const auto sits = situations();
  std::vector<reader::Option> options;
  for (const auto& o : task.options) options.push_back({o.letter, o.text});
  model::Workspace ws;
  const reader::RunOptions run{.threads = threads, .workspace = &ws};
  std::printf("machine: %s\n", machine_name().c_str());
  std::printf("reader: %s\n  bert, embd %lld, %lld layers, reading %s, late judge\n", path.c_str(),
              (long long)c.n_embd, (long long)c.n_layer,
              rd.reads_per_rule() ? "one pass per rule" : "one pass per option");
  std::string load;  // the machine is shared: say how busy it was
  std::ifstream("/proc/loadavg") >> load;
  const reader::Reading reading = rd.read(task.rule, options, run);
  std::printf("rule: %zu options, %zu literals (%zu distinct)%s; load average %s\n", options.size(),
              reading.literal_texts().size(), reading.judged.size(),
              reading.unreadable().empty() ? "" : " (unreadable)", load.c_str());
  const int reads = std::max(20, n / 10);
  const EncodeStats r = time_calls(reads, threads, [&] { rd.read(task.rule, options, run); });
  std::printf("  %-44s p50 %7.3f ms  p95 %7.3f ms  cpu %7.3f ms/call/thread  (%d calls)\n",
              "read the rule (once per task)", r.p50, r.p95, r.cpu_ms, reads);
  if (!reading.unreadable().empty()) return 0;
  size_t i = 0;
  const EncodeStats d =
      time_calls(n, threads, [&] { rd.decide(reading, sits[i++ * 37 % sits.size()], run); });
  std::printf("  %-44s p50 %7.3f ms  p95 %7.3f ms  cpu %7.3f ms/call/thread  (%d calls)\n",
              "decide a situation (reading cached)", d.p50, d.p95, d.cpu_ms, n);
  return 0;
}

}  // namespace meadow::bench
