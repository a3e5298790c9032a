// Finding metadata values and tensors of an open File, with errors that name file and key.
#include <string>

#include "meadow/error.hpp"
#include "meadow/runtime/gguf.hpp"
#include "util/printable.hpp"

namespace meadow::gguf {
namespace {

// Runs an accessor, adding "PATH: metadata key 'K': " to its type error.
template <typename F>
auto checked(const File& f, std::string_view key, F&& get) {
  try {
    return get();
  } catch (const Error& e) {
    throw Error(f.path() + ": metadata key " + util::quoted(key) + ": " + e.what());
  }
}

}  // namespace

uint64_t TensorInfo::n_elements() const {
  uint64_t n = 1;
  for (auto d : dims) n *= d;  // the reader checked the product fits
  return n;
}

uint64_t TensorInfo::rows() const {
  uint64_t n = 1;
  for (size_t i = 1; i < dims.size(); ++i) n *= dims[i];
  return n;
}

const Value* File::find(std::string_view key) const {
  for (const auto& e : kv_) {
    if (e.key == key) return &e.value;
  }
  return nullptr;
}

const Value& File::at(std::string_view key) const {
  if (const Value* v = find(key)) return *v;
  throw Error(path_ + ": missing metadata key " + util::quoted(key));
}

std::string File::get_string(std::string_view key) const {
  const Value& v = at(key);
  return checked(*this, key, [&] { return v.as_string(); });
}

uint64_t File::get_u64(std::string_view key) const {
  const Value& v = at(key);
  return checked(*this, key, [&] { return v.as_u64(); });
}

double File::get_f64(std::string_view key) const {
  const Value& v = at(key);
  return checked(*this, key, [&] { return v.as_f64(); });
}

std::string File::get_string(std::string_view key, std::string_view fallback) const {
  const Value* v = find(key);
  if (!v) return std::string(fallback);
  return checked(*this, key, [&] { return v->as_string(); });
}

uint64_t File::get_u64(std::string_view key, uint64_t fallback) const {
  const Value* v = find(key);
  if (!v) return fallback;
  return checked(*this, key, [&] { return v->as_u64(); });
}

double File::get_f64(std::string_view key, double fallback) const {
  const Value* v = find(key);
  if (!v) return fallback;
  return checked(*this, key, [&] { return v->as_f64(); });
}

bool File::get_bool(std::string_view key, bool fallback) const {
  const Value* v = find(key);
  if (!v) return fallback;
  return checked(*this, key, [&] { return v->as_bool(); });
}

const TensorInfo* File::find_tensor(std::string_view name) const {
  for (const auto& t : tensors_) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

const TensorInfo& File::tensor(std::string_view name) const {
  if (const TensorInfo* t = find_tensor(name)) return *t;
  throw Error(path_ + ": missing tensor " + util::quoted(name));
}

}  // namespace meadow::gguf
