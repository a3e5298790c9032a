// The rule table and situations the decision benches share: a CartPole-like three-option rule
// and 175 status sentences of one shape (so the suffix length barely varies).
#pragma once

#include <string>
#include <vector>

#include "meadow/task.hpp"

namespace meadow::bench {

inline meadow::Task table() {
  meadow::Task t;
  t.name = "bench";
  t.rule =
      "If the pole leans or falls to the left, choose A; if it leans or falls to the right, "
      "choose B; if it is upright and still, choose C.";
  t.options = {{'A', "push the cart to the left", {0}, ""},
               {'B', "push the cart to the right", {1}, ""},
               {'C', "push the cart the way it is already moving", {1}, ""}};
  return t;
}

inline std::vector<std::string> situations() {
  const char* lean[] = {"far left",       "left",  "slightly left", "upright",
                        "slightly right", "right", "far right"};
  const char* fall[] = {"falling left fast", "falling left", "still", "falling right",
                        "falling right fast"};
  const char* cart[] = {"near the left edge", "left of centre", "at the centre", "right of centre",
                        "near the right edge"};
  std::vector<std::string> out;
  for (auto l : lean)
    for (auto f : fall)
      for (auto c : cart)
        out.push_back(std::string("The pole leans ") + l + " and is " + f + "; the cart is " + c +
                      ".");
  return out;
}

}  // namespace meadow::bench
