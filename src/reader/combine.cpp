#include "reader/combine.hpp"

#include <algorithm>

#include "meadow/error.hpp"

namespace meadow::reader {

Combined combine(const std::vector<OptionReading>& options, std::optional<size_t> default_index,
                 std::span<const double> literal_p) {
  Combined out;
  size_t next = 0;
  for (const OptionReading& o : options) {
    double best = 0.0;
    for (const Clause& c : o.clauses) {
      if (next + c.literals.size() > literal_p.size())
        throw Error("reader: fewer literal probabilities than the reading has literals");
      double v = 1.0;
      if (c.join == Join::Or) {
        for (size_t k = 0; k < c.literals.size(); ++k) v *= 1 - literal_p[next + k];
        v = 1 - v;
      } else {
        for (size_t k = 0; k < c.literals.size(); ++k) v *= literal_p[next + k];
      }
      next += c.literals.size();
      out.clause_p.push_back(v);
      best = std::max(best, v);
    }
    out.option_p.push_back(best);
  }
  const auto& q = out.option_p;
  double none = 1.0;
  for (size_t k = 0; k < q.size(); ++k)
    if (!default_index || k != *default_index) none *= 1 - q[k];
  out.probs.assign(q.size(), 0.0);
  if (default_index) {
    double total = 0;
    for (size_t k = 0; k < q.size(); ++k)
      if (k != *default_index) total += q[k];
    for (size_t k = 0; k < q.size(); ++k)
      if (k != *default_index) out.probs[k] = total > 0 ? (1 - none) * q[k] / total : 0.0;
    out.probs[*default_index] = total > 0 ? none : 1.0;
  } else {
    double total = 0;
    for (double v : q) total += v;
    if (total == 0) total = 1.0;  // Python's `sum(...) or 1.0`
    for (size_t k = 0; k < q.size(); ++k) out.probs[k] = q[k] / total;
  }
  return out;
}

size_t best_option(const std::vector<double>& probs) {
  size_t best = 0;
  for (size_t k = 1; k < probs.size(); ++k)
    if (probs[k] > probs[best]) best = k;
  return best;
}

}  // namespace meadow::reader
