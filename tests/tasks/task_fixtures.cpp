#include "task_fixtures.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <vector>

namespace meadow::testing {

std::string random_model() {
  static const std::string path = [] {
    const auto dir = std::filesystem::path(MEADOW_BINARY_DIR) / "task_fixtures";
    std::filesystem::create_directories(dir);
    const std::string out = (dir / "random_dream.gguf").string();
    const std::string cmd = std::string(MEADOW_PYTHON) + " " + MEADOW_SOURCE_DIR +
                            "/tests/decision/make_train_fixture.py --seed 5 --out '" + out + "'";
    if (std::system(cmd.c_str()) != 0) throw std::runtime_error("fixture failed: " + cmd);
    return out;
  }();
  return path;
}

int gif_frame_count(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::vector<unsigned char> b((std::istreambuf_iterator<char>(in)), {});
  size_t i = 0;
  auto need = [&](size_t n) {
    if (i + n > b.size()) throw std::runtime_error("truncated GIF: " + path);
  };
  auto skip_sub_blocks = [&] {
    for (;;) {
      need(1);
      const size_t n = b[i++];
      if (n == 0) return;
      need(n);
      i += n;
    }
  };
  need(13);
  if (std::string(b.begin(), b.begin() + 3) != "GIF") throw std::runtime_error("not a GIF");
  const unsigned flags = b[10];
  i = 13;
  if (flags & 0x80) i += 3u << ((flags & 7) + 1);
  int frames = 0;
  for (;;) {
    need(1);
    const unsigned char tag = b[i++];
    if (tag == 0x3B) return frames;
    if (tag == 0x21) {
      need(1);
      ++i;  // label
      skip_sub_blocks();
    } else if (tag == 0x2C) {
      need(9);
      const unsigned f = b[i + 8];
      i += 9;
      if (f & 0x80) i += 3u << ((f & 7) + 1);
      need(1);
      ++i;  // LZW minimum code size
      skip_sub_blocks();
      ++frames;
    } else {
      throw std::runtime_error("bad GIF block in " + path);
    }
  }
}

std::string embedded_model() {
  const auto p = std::filesystem::path(MEADOW_SOURCE_DIR) / "models" / "meadow-nano.gguf";
  return std::filesystem::exists(p) ? p.string() : "";
}

}  // namespace meadow::testing
