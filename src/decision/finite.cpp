// The check of a model's numbers (meadow/runtime/decider.hpp: check_finite).
#include <cmath>
#include <limits>
#include <string>

#include "meadow/error.hpp"
#include "meadow/runtime/decider.hpp"

namespace meadow::decision {
namespace {

// True when every value is finite. `!(|x| <= max)` holds for NaN and both infinities; the
// flags are OR-ed, so the loop vectorizes without reordering any float arithmetic.
template <class T>
bool all_finite(std::span<const T> v) {
  bool bad = false;
  for (const T x : v) bad |= !(std::fabs(x) <= std::numeric_limits<T>::max());
  return !bad;
}

[[noreturn]] void fail(const model::Model& model, std::string_view what) {
  const std::string adapter =
      model.lora_path().empty() ? "" : " with the adapter " + model.lora_path();
  throw ModelError(std::string(what) + ": the model " + model.file().path() + adapter +
                   " gives non-finite logits (NaN or Inf): the model is broken, not the input");
}

}  // namespace

void check_finite(const model::Model& model, std::span<const float> logits, std::string_view what) {
  if (!all_finite(logits)) fail(model, what);
}

void check_finite(const model::Model& model, std::span<const double> logits,
                  std::string_view what) {
  if (!all_finite(logits)) fail(model, what);
}

}  // namespace meadow::decision
