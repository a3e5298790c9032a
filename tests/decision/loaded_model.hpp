// A fixture model loaded with the tokenizer its GGUF holds: what the tests of the decision pass,
// of generation and of the server's decider cache run on (header-only, like mind_fixture.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "meadow/runtime/model.hpp"
#include "meadow/runtime/tokenizer.hpp"

namespace meadow::mind_test {

struct Loaded {
  model::Model model;
  Tokenizer tok;
};

inline Loaded load(const std::string& path) {
  auto m = model::Model::load(path);
  auto t = Tokenizer::from_gguf(m.file());
  return {std::move(m), std::move(t)};
}

// The prompt the draft and generation tests run on: one situation, no chat layout.
inline std::vector<int32_t> pole_prompt(const Loaded& L) {
  return L.tok.encode("The pole leans left and falls fast. What now?", false);
}

}  // namespace meadow::mind_test
