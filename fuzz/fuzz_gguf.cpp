// The GGUF reader on arbitrary bytes: File::open, then every accessor of what it returns, the
// tokenizer and the model config built from it. Must hold: only meadow::Error is thrown, its
// text has no raw control byte (keys, strings and token texts quoted escaped), and nothing a
// sanitizer sees goes wrong.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "meadow/error.hpp"
#include "meadow/runtime/gguf.hpp"
#include "meadow/runtime/model.hpp"
#include "meadow/runtime/tokenizer.hpp"

namespace {

using namespace meadow;

// An error text must be one printable line: a raw NUL would cut it short, an ESC would reach
// the terminal.
void check_message(const char* what) {
  for (const char* p = what; *p; ++p)
    if (static_cast<unsigned char>(*p) < 0x20 || *p == 0x7f) std::abort();
}

template <typename F>
void expect_error_or_value(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    check_message(e.what());
  }
}

void visit(const gguf::Value& v) {
  expect_error_or_value([&] { (void)v.as_u64(); });
  expect_error_or_value([&] { (void)v.as_i64(); });
  expect_error_or_value([&] { (void)v.as_f64(); });
  expect_error_or_value([&] { (void)v.as_bool(); });
  expect_error_or_value([&] { (void)v.as_string().size(); });
  expect_error_or_value([&] {
    const gguf::Array& a = v.as_array();
    for (size_t i = 0; i < a.size(); ++i) {
      visit(a.at(i));  // depth capped by the reader
      if (a.type == gguf::ValueType::STRING) (void)a.string_at(i).size();
    }
  });
}

void exercise(const gguf::File& f) {
  (void)f.version(), (void)f.alignment(), (void)f.file_size();
  for (const auto& kv : f.metadata()) {
    if (f.find(kv.key) == nullptr) std::abort();  // every key is found (the first of a name)
    visit(kv.value);
    expect_error_or_value([&] { (void)f.get_string(kv.key); });
    expect_error_or_value([&] { (void)f.get_u64(kv.key); });
    expect_error_or_value([&] { (void)f.get_f64(kv.key); });
    expect_error_or_value([&] { (void)f.get_bool(kv.key, false); });
  }
  expect_error_or_value([&] { (void)f.at("no.such.key"); });
  std::vector<float> out;
  for (const auto& t : f.tensors()) {
    if (f.find_tensor(t.name) != &t) std::abort();  // names are unique
    (void)t.rows(), (void)t.cols();
    const uint64_t n = t.n_elements();
    expect_error_or_value([&] { (void)gguf::row_bytes(t.type, t.cols()); });
    // Dequantizing reads every byte of the tensor: it must lie inside the file.
    if (n <= (uint64_t(1) << 16)) {
      out.resize(n);
      gguf::dequantize(t.type, t.data, out.data(), int64_t(n));
    }
  }
  expect_error_or_value([&] {
    const Tokenizer tok = Tokenizer::from_gguf(f);
    for (int32_t id = 0; id < tok.size() && id < 512; ++id) (void)tok.token(id), (void)tok.type(id);
    const auto ids = tok.encode("Hello, world! <|im_start|> 12 \xff\xfe ok");
    (void)tok.decode(ids);
    (void)tok.chat_template_name();
  });
  expect_error_or_value([&] { (void)model::read_config(f); });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // File::open takes a path: the bytes go to an in-memory file opened through /proc/self/fd.
  const int fd = ::memfd_create("gguf-fuzz", MFD_CLOEXEC);
  if (fd < 0) std::abort();
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::write(fd, data + done, size - done);
    if (n <= 0) std::abort();
    done += size_t(n);
  }
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  expect_error_or_value([&] { exercise(gguf::File::open(path)); });
  ::close(fd);
  return 0;
}
