// PNG output through libpng's simplified API (no setjmp/longjmp in our code).
#include <png.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "meadow/render.hpp"
#include "render/frame_check.hpp"
#include "util/atomic_file.hpp"

namespace meadow {

namespace {
struct ImageFreer {
  void operator()(png_image* im) const { png_image_free(im); }
};
}  // namespace

void write_png(const std::string& path, const Frame& frame) {
  render_detail::check_frame(frame, "png " + path);
  std::unique_ptr<util::AtomicFile> file;
  try {
    file = std::make_unique<util::AtomicFile>(path);
  } catch (const Error& e) {
    throw Error(std::string("png: ") + e.what());
  }

  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  image.width = static_cast<png_uint_32>(frame.width);
  image.height = static_cast<png_uint_32>(frame.height);
  image.format = PNG_FORMAT_RGB;
  std::unique_ptr<png_image, ImageFreer> guard(&image);
  if (!png_image_write_to_stdio(&image, file->stream(), 0, frame.rgb.data(), 0, nullptr))
    throw Error("png: cannot write " + path + ": " + image.message);
  // commit() flushes and closes (a full disk shows up here), then renames.
  try {
    file->commit();
  } catch (const Error& e) {
    throw Error(std::string("png: ") + e.what());
  }
}

}  // namespace meadow
