// PNG output through libpng's simplified API (no setjmp/longjmp in our code).
#include <png.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "meadow/render.hpp"
#include "render/frame_check.hpp"

namespace meadow {

namespace {
struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
struct ImageFreer {
  void operator()(png_image* im) const { png_image_free(im); }
};
}  // namespace

void write_png(const std::string& path, const Frame& frame) {
  render_detail::check_frame(frame, "png " + path);
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "wb"));
  if (!file) throw Error("png: cannot open " + path + " for writing: " + std::strerror(errno));

  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  image.width = static_cast<png_uint_32>(frame.width);
  image.height = static_cast<png_uint_32>(frame.height);
  image.format = PNG_FORMAT_RGB;
  std::unique_ptr<png_image, ImageFreer> guard(&image);
  if (!png_image_write_to_stdio(&image, file.get(), 0, frame.rgb.data(), 0, nullptr))
    throw Error("png: cannot write " + path + ": " + image.message);
  // fclose flushes; a full disk shows up here.
  if (std::fclose(file.release()) != 0)
    throw Error("png: cannot write " + path + ": " + std::strerror(errno));
}

}  // namespace meadow
