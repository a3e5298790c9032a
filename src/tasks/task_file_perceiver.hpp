// A task file's declarative perceiver, compiled: observation → one status sentence.
#pragma once

#include <memory>
#include <string>

#include "meadow/task_file.hpp"
#include "meadow/values.hpp"

namespace meadow::tasks {

// A mistake in a perceiver, by the field it is in ("perceiver.words.lean.buckets[1].say"), so
// that the file reader can add the line.
struct FieldError {
  std::string field;
  std::string why;
};

struct CompiledPerceiver;

// Checks names, expressions (muparser) and templates; throws FieldError.
std::shared_ptr<const CompiledPerceiver> compile_perceiver(const PerceiverSpec& spec);

// A number as a template prints it, and as task files are written: decimals >= 0 fixed; -1 a
// whole number as one, else the shortest text that reads back to the same double.
std::string number_text(double v, int decimals = -1);

// Thread-safe. Throws meadow::Error for an observation of the wrong size.
std::string say(const CompiledPerceiver& p, const Values& obs);

}  // namespace meadow::tasks
